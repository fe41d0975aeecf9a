/*
 * switch.S (AArch64): moving between a thread's own stack and task stacks.
 * x86_64/switch.S is the model: the same entry points with the same
 * contracts, for AArch64 Linux (AAPCS64, glibc). What differs, and why, is
 * said at each entry point below and summed up at the end of this comment.
 *
 * The limit word is the second word of glibc's thread control block,
 * [TPIDR_EL0 + COPYSTACK_TCB_LIMIT] (abi.h); the runtime's thread state is
 * the initial-exec TLS variable __copystack_thread, at TPIDR_EL0 plus its
 * GOT-held offset (thread_addr below). Both are read anew after anything
 * that may have moved the code to another thread (a park).
 *
 *   void __copystack_switch(uintptr_t *save_sp, uintptr_t new_sp,
 *                           uintptr_t new_limit);
 *       Saves what AAPCS64 keeps across a call and sp in *save_sp,
 *       continues on new_sp with the limit = new_limit. The frame it leaves
 *       on the saved stack, from the saved sp up (asm_offsets.h SWITCH_*,
 *       176 bytes):
 *
 *           +0 FPCR  +4 FPSR  +8 errno  (+12 unused)
 *           +16 d8 ... +72 d15
 *           +80 x19 ... +152 x28  +160 x29  +168 x30 (the return address)
 *
 *       (the code uses the SWITCH_* names only: the order is the header's,
 *       which keeps the words that are never addresses below x19 and the
 *       frame record last, as x86-64's return address).
 *
 *       The first 16 bytes are the thread state of the side that switched
 *       out, put back when it is switched in: each task keeps its own
 *       floating-point control (rounding, flush-to-zero, trap enables) and
 *       cumulative exception flags (FPSR) and errno across parks and
 *       migrations, and so does the scheduler. FPCR is written only when it
 *       differs from the current one (msr fpcr is slow on some cores).
 *       errno's address comes from __errno_location, called on the side
 *       switching out (the int is the thread's, the same for both sides).
 *       Clobbers what a C call may; its CFI describes the frame at sp, so
 *       a debugger unwinds through it on either side of the stack change.
 *
 *   __copystack_task_start
 *       The first code of every task, entered by the first switch into it
 *       through the frame task.cc builds (frames.h, first_switch_frame):
 *       x19 = Task*, x20 = entry, x21/x22/x23 = arguments. Calls
 *       entry(x21, x22, x23) with x29 = 0 (the frame-record chain ends
 *       there) and x30 undefined in its CFI (unwinds end there too), stores
 *       the result in the Task, marks it done and switches back for good.
 *       The address after its call is __copystack_task_return: the end of
 *       every stack walk.
 *
 *   __copystack_foreign_call_x18: target in x18, arguments as for target
 *       Calls the function at x18 on the thread's own stack with the limit
 *       at 0, with the argument registers as the caller left them (x0-x7,
 *       x8 the indirect result address, v0-v7), and returns its result
 *       registers (x0-x7, v0-v7: AAPCS64 uses x0-x1 and v0-v3) to the task
 *       stack and its limit. Instrumented code calls it as the callee's own
 *       C signature with the target as a first `nest` argument, which LLVM
 *       passes in x18 on AArch64: no argument passes through memory.
 *       It clobbers nothing a C call may not: it uses x9 and x16-x18 (x18
 *       is a temporary on Linux). Outside a task (limit 0) it is a plain tail
 *       branch. Its CFI (and that of on_thread_stack, the frame that
 *       switches) lets unwinders and debuggers go from the thread's stack
 *       back into the task's frames. Uses 48 bytes of the task stack (432
 *       when the call ends in a preemption: its 64 bytes of vector results
 *       and __copystack_preempt's).
 *
 *   void __copystack_foreign_entry(void (*fn)(void *), void *arg);
 *       fn(arg) through __copystack_foreign_call_x18: the entry of a task
 *       whose function is foreign code (task.cc).
 *
 *   void __copystack_park(void (*then)(void *), void *arg);
 *       Go's gopark: called by instrumented code on a task stack, saves the
 *       task's context in a switch frame there and switches to the worker's
 *       own stack, where the scheduler runs then(arg) once the context is
 *       saved. Returns when the task runs again (maybe on another thread).
 *       Uses 176 bytes of the task stack. Called anywhere else (a foreign
 *       call, a thread's own stack), it stops the program with a message.
 *       Its park is in progress (Thread::park_fn) until then(arg) has run;
 *       while a fork is being prepared it first waits, running, until the
 *       fork is over (sched/fork.cc). Preceded by the prefix of
 *       instrumented code (abi.h), so that a call through a pointer also
 *       comes straight here; its map is empty.
 *
 *   void __copystack_preempt(void);
 *       Called by instrumented code on a task stack (a loop poll, and the
 *       stubs of the polls that call it with preserve_most) and by
 *       __morestack when the monitor asked the task to yield (abi.h,
 *       COPYSTACK_PREEMPT_LIMIT): parks it with __copystack_preempt_then,
 *       which keeps it for this thread (sched/preempt.h). Keeps errno and
 *       the floating-point control and status (the switch does), and every
 *       general register but x16 and x17 (x30 is its return address).
 *       Vector registers: what AAPCS64 keeps (the low halves of v8-v15,
 *       through the switch), no more: the leaf polls declare v0-v7 and
 *       v16-v31 clobbered and run only in functions without floating-point
 *       or vector values (passes/target/AArch64.cpp leafPoll), and LLVM's
 *       preserve_most keeps no more than AAPCS64 of them. Uses 336 bytes of
 *       the task stack. Its return address after the park is
 *       __copystack_preempt_resume, which tells the collector not to move
 *       the stack (the code it stopped in has no safepoint there).
 *
 *   __copystack_signal_preempt, __copystack_signal_resume
 *       Entered, not called: the preemption signal's handler
 *       (sched/preempt_signal.cc, arch signal_frame.h) saved every
 *       register of the code it interrupted, and returns here with sp
 *       below a frame record {x29, the interrupted pc} under the
 *       interrupted sp (AArch64 has no red zone); every other register
 *       still holds the interrupted value. Parks the task like
 *       __copystack_preempt; once it runs again (on the same thread) it
 *       leaves the task stack for the thread's and
 *       __copystack_signal_restore puts every register back with
 *       rt_sigreturn. Uses at most 208 bytes of the task stack (the
 *       record, its alignment, the park's switch frame).
 *
 *   uint64_t __copystack_pin_grow_entry(void);
 *   void __copystack_pin_release_entry(void);
 *       __copystack_pin_grow and _release (core/pin.cc) through
 *       __copystack_foreign_call_x18, keeping every general register but
 *       x16 and x17, grow's result in x0 (instrumented code calls them with
 *       preserve_most, which on AArch64 keeps x9-x15 and AAPCS64's
 *       callee-saved registers: these keep x0-x15 and x18 as well, as
 *       x86-64's keep every register but %r11; vector registers as
 *       AAPCS64). A frame record of their own, so that a dump from inside
 *       walks on to the caller. Use 208 bytes of the task stack, the
 *       trampoline's included.
 *
 *   void __copystack_no_room(void);
 *       Called by instrumented code when an in-place call's room test
 *       failed (passes/LibcInPlace.cpp); clobbers x16, x17 and the flags
 *       only (x30 is its return address). Counts the miss on the running
 *       task, and every COPYSTACK_ROOM_MISSES misses asks for room: the
 *       limit becomes COPYSTACK_ROOM_LIMIT, unless it is 0 (not on a task
 *       stack) or holds a request already (the preemption's, the room's, or
 *       stress and verify modes' ~0, all at or above COPYSTACK_ROOM_LIMIT).
 *       A preemption the monitor asks for between the test and the store
 *       is not lost: it set preempt_seq first, which __copystack_grow
 *       reads.
 *
 *   void __copystack_landing_pad(void);
 *       Called first in every landing pad of instrumented code. An
 *       exception thrown by foreign code unwinds into task frames with the
 *       limit still 0; this puts the task's limit back if sp is on the task
 *       stack. Clobbers x9, x10, x16 and x17 only, unless AddressSanitizer
 *       or ThreadSanitizer is linked in: then it also tells them a foreign
 *       call is over, as a C call (platform/sanitizers.h).
 *
 *   uintptr_t __copystack_pointer_guard(void);
 *       New on AArch64: glibc's pointer guard, which mangles the sp and lr
 *       a setjmp saves (machine.h, jmpbuf_abi). glibc keeps it in a
 *       variable of its own (static links) or of ld.so (GLIBC_PRIVATE),
 *       not in the thread control block as on x86-64, so it is learned from
 *       a setjmp: glibc's sysdeps/aarch64/setjmp.S stores, at JB_SP (word
 *       13 of the jmp_buf: x19-x28 at 0-9, x29 at 10, lr at 11, word 12
 *       unused, sp at 13, d8-d15 at 14-21), the sp it was entered with
 *       XOR the guard (PTR_MANGLE is a plain eor on AArch64, no rotation);
 *       _setjmp itself sets up no frame. Clobbers what a C call may.
 *
 *   With AddressSanitizer or ThreadSanitizer linked in, a foreign call
 *   tells them it runs on the thread's stack, and when it is back.
 *
 * What differs from x86-64:
 *   - The switch frame keeps x19-x30 and d8-d15 (AAPCS64's callee-saved
 *     state: only the low halves of v8-v15), and FPCR/FPSR for MXCSR and
 *     the x87 words. No x87: FPSR's cumulative flags are written back as a
 *     plain msr (cheap), and the trampoline's preemption does not look for
 *     an x87 result.
 *   - A call leaves its return address in x30, not on the stack: every
 *     entry that calls saves x29 and x30 as a frame record (stp x29, x30)
 *     and keeps sp 16-byte aligned at every call (AAPCS64 requires it at
 *     any sp-relative access, not only at calls).
 *   - The registers preserve_most-style entries may not touch are x16 and
 *     x17 (the intra-procedure-call scratch registers, which a linker
 *     veneer or PLT entry may clobber anyway) where x86-64 had %r11.
 *   - The foreign-call target comes in x18 (LLVM's `nest` register on
 *     AArch64), hence the trampoline's name.
 *   - The fork handshake in __copystack_park fences with dmb ish where
 *     x86-64 used mfence, and spins with yield (pause).
 *   - __copystack_signal_preempt finds the interrupted pc in a frame record
 *     the handler wrote, not as a pushed return address;
 *     __copystack_pointer_guard is new.
 *   - No split-stack notes: they concern the x86 linkers' handling of
 *     gcc's split-stack objects. .note.GNU-stack stays.
 */
#include "asm_offsets.h"
#include "copystack/abi.h"

	/* What the code below assumes of the layouts beyond their names:
	 * pairs it loads and stores with one ldp/stp. */
	.if (SWITCH_FPSR != (SWITCH_FPCR + 4)) || (SWITCH_RET != (SWITCH_X29 + 8))
	.error "asm_offsets.h: the switch frame's pairs"
	.endif
	.if ((SWITCH_FRAME_BYTES % 16) != 0) || (SWITCH_FRAME_BYTES != 176)
	.error "asm_offsets.h: the switch frame's size"
	.endif
	.if COPYSTACK_PREFIX_BYTES != 24
	.error "abi.h: the prefix before __copystack_park"
	.endif

	/* Null unless AddressSanitizer's or ThreadSanitizer's runtime is
	 * linked in (platform/sanitizers.h). */
	.weak	__sanitizer_start_switch_fiber
	.weak	__tsan_ignore_thread_begin

	/* Goes to label when either is linked in: clobbers reg. */
	.macro	if_sanitizer reg, label
	adrp	\reg, :got:__sanitizer_start_switch_fiber
	ldr	\reg, [\reg, #:got_lo12:__sanitizer_start_switch_fiber]
	cbnz	\reg, \label
	adrp	\reg, :got:__tsan_ignore_thread_begin
	ldr	\reg, [\reg, #:got_lo12:__tsan_ignore_thread_begin]
	cbnz	\reg, \label
	.endm

	/* thread = the address of this thread's __copystack_thread, tp =
	 * TPIDR_EL0 (the base of the limit word). Initial-exec TLS. */
	.macro	thread_addr thread, tp
	mrs	\tp, tpidr_el0
	adrp	\thread, :gottprel:__copystack_thread
	ldr	\thread, [\thread, #:gottprel_lo12:__copystack_thread]
	add	\thread, \tp, \thread
	.endm

	/* The general registers a C call may clobber that the preserve_most
	 * entries keep: x0-x15 and x18 (x16, x17: scratch; x30: the return
	 * address, in the frame record). 136 bytes at base + 16 ... + 151 of a
	 * 160-byte frame whose record is at base. */
	.macro	save_caller_saved
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	stp	x8, x9, [sp, #80]
	stp	x10, x11, [sp, #96]
	stp	x12, x13, [sp, #112]
	stp	x14, x15, [sp, #128]
	str	x18, [sp, #144]
	.endm
	/* keep_x0 = 1: x0 keeps its current value (a result). */
	.macro	restore_caller_saved keep_x0
	.if \keep_x0
	ldr	x1, [sp, #24]
	.else
	ldp	x0, x1, [sp, #16]
	.endif
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldp	x8, x9, [sp, #80]
	ldp	x10, x11, [sp, #96]
	ldp	x12, x13, [sp, #112]
	ldp	x14, x15, [sp, #128]
	ldr	x18, [sp, #144]
	.endm

	/* A 160-byte frame with its frame record at sp, x29 = sp; CFA = x29 +
	 * 160. */
	.macro	frame160_enter
	stp	x29, x30, [sp, #-160]!
	.cfi_def_cfa_offset 160
	.cfi_offset x29, -160
	.cfi_offset x30, -152
	mov	x29, sp
	.cfi_def_cfa_register x29
	.endm
	.macro	frame160_leave
	ldp	x29, x30, [sp], #160
	.cfi_def_cfa sp, 0
	.cfi_restore x29
	.cfi_restore x30
	.endm

	.text

	.globl	__copystack_switch
	.type	__copystack_switch,%function
	.p2align 4
__copystack_switch:
	.cfi_startproc
	/* From here on the CFA is sp + 176 and the registers are in the frame
	 * at sp: true of the outgoing side's frame before the stack changes,
	 * and of the incoming side's after, which has the same layout. */
	sub	sp, sp, #SWITCH_FRAME_BYTES
	.cfi_def_cfa_offset SWITCH_FRAME_BYTES
	stp	x29, x30, [sp, #SWITCH_X29]
	.cfi_offset x29, SWITCH_X29 - SWITCH_FRAME_BYTES
	.cfi_offset x30, SWITCH_RET - SWITCH_FRAME_BYTES
	stp	x19, x20, [sp, #SWITCH_X19]
	.cfi_offset x19, SWITCH_X19 - SWITCH_FRAME_BYTES
	.cfi_offset x20, SWITCH_X19 + 8 - SWITCH_FRAME_BYTES
	stp	x21, x22, [sp, #SWITCH_X19 + 16]
	.cfi_offset x21, SWITCH_X19 + 16 - SWITCH_FRAME_BYTES
	.cfi_offset x22, SWITCH_X19 + 24 - SWITCH_FRAME_BYTES
	stp	x23, x24, [sp, #SWITCH_X19 + 32]
	.cfi_offset x23, SWITCH_X19 + 32 - SWITCH_FRAME_BYTES
	.cfi_offset x24, SWITCH_X19 + 40 - SWITCH_FRAME_BYTES
	stp	x25, x26, [sp, #SWITCH_X19 + 48]
	.cfi_offset x25, SWITCH_X19 + 48 - SWITCH_FRAME_BYTES
	.cfi_offset x26, SWITCH_X19 + 56 - SWITCH_FRAME_BYTES
	stp	x27, x28, [sp, #SWITCH_X19 + 64]
	.cfi_offset x27, SWITCH_X19 + 64 - SWITCH_FRAME_BYTES
	.cfi_offset x28, SWITCH_X19 + 72 - SWITCH_FRAME_BYTES
	stp	d8, d9, [sp, #SWITCH_D8]
	.cfi_offset d8, SWITCH_D8 - SWITCH_FRAME_BYTES
	.cfi_offset d9, SWITCH_D8 + 8 - SWITCH_FRAME_BYTES
	stp	d10, d11, [sp, #SWITCH_D8 + 16]
	.cfi_offset d10, SWITCH_D8 + 16 - SWITCH_FRAME_BYTES
	.cfi_offset d11, SWITCH_D8 + 24 - SWITCH_FRAME_BYTES
	stp	d12, d13, [sp, #SWITCH_D8 + 32]
	.cfi_offset d12, SWITCH_D8 + 32 - SWITCH_FRAME_BYTES
	.cfi_offset d13, SWITCH_D8 + 40 - SWITCH_FRAME_BYTES
	stp	d14, d15, [sp, #SWITCH_D8 + 48]
	.cfi_offset d14, SWITCH_D8 + 48 - SWITCH_FRAME_BYTES
	.cfi_offset d15, SWITCH_D8 + 56 - SWITCH_FRAME_BYTES
	/* The thread state of the side switching out: its floating-point
	 * control and status, and errno. */
	mrs	x9, fpcr
	mrs	x10, fpsr
	stp	w9, w10, [sp, #SWITCH_FPCR]
	mov	x19, x0
	mov	x20, x1
	mov	x21, x2
	bl	__errno_location	/* sp is 16-byte aligned: 176 = 11 * 16 */
	ldr	w9, [x0]
	str	w9, [sp, #SWITCH_ERRNO]
	mov	x9, sp
	str	x9, [x19]
	mov	sp, x20
	mrs	x9, tpidr_el0
	str	x21, [x9, #COPYSTACK_TCB_LIMIT]
	/* The side switching in gets its own back (x0: this thread's errno,
	 * the same on both sides). msr fpcr only when it differs: it is slow
	 * on some cores (a pipeline flush). FPCR's upper 32 bits are RES0. */
	ldp	w9, w10, [sp, #SWITCH_FPCR]
	mrs	x11, fpcr
	cmp	x9, x11
	b.eq	1f
	msr	fpcr, x9
1:	msr	fpsr, x10
	ldr	w9, [sp, #SWITCH_ERRNO]
	str	w9, [x0]
	ldp	x19, x20, [sp, #SWITCH_X19]
	ldp	x21, x22, [sp, #SWITCH_X19 + 16]
	ldp	x23, x24, [sp, #SWITCH_X19 + 32]
	ldp	x25, x26, [sp, #SWITCH_X19 + 48]
	ldp	x27, x28, [sp, #SWITCH_X19 + 64]
	ldp	d8, d9, [sp, #SWITCH_D8]
	ldp	d10, d11, [sp, #SWITCH_D8 + 16]
	ldp	d12, d13, [sp, #SWITCH_D8 + 32]
	ldp	d14, d15, [sp, #SWITCH_D8 + 48]
	ldp	x29, x30, [sp, #SWITCH_X29]
	add	sp, sp, #SWITCH_FRAME_BYTES
	.cfi_def_cfa_offset 0
	.cfi_restore x19
	.cfi_restore x20
	.cfi_restore x21
	.cfi_restore x22
	.cfi_restore x23
	.cfi_restore x24
	.cfi_restore x25
	.cfi_restore x26
	.cfi_restore x27
	.cfi_restore x28
	.cfi_restore x29
	.cfi_restore x30
	.cfi_restore d8
	.cfi_restore d9
	.cfi_restore d10
	.cfi_restore d11
	.cfi_restore d12
	.cfi_restore d13
	.cfi_restore d14
	.cfi_restore d15
	ret
	.cfi_endproc
	.size	__copystack_switch, .-__copystack_switch

	.globl	__copystack_task_start
	.globl	__copystack_task_return
	.type	__copystack_task_start,%function
	.p2align 4
__copystack_task_start:
	.cfi_startproc
	.cfi_undefined x30
	/* sp is the stack's top (frames.h first_switch_frame): aligned
	 * already; the mask is a safety net, as on x86-64. */
	mov	x9, sp
	and	sp, x9, #-16
	mov	x0, x21
	mov	x1, x22
	mov	x2, x23
	mov	x29, #0
	blr	x20
__copystack_task_return:
	str	x0, [x19, #TASK_RESULT]
	mov	w9, #1
	strb	w9, [x19, #TASK_DONE]
	add	x0, x19, #TASK_SP
	thread_addr x9, x10		/* maybe another thread than at the start */
	ldr	x1, [x9, #THREAD_SCHED_SP]
	mov	x2, #0
	bl	__copystack_switch
	udf	#0
	.cfi_endproc
	.size	__copystack_task_start, .-__copystack_task_start

	.p2align 4
	.globl	__copystack_foreign_call_x18
	.type	__copystack_foreign_call_x18,%function
__copystack_foreign_call_x18:
.Lforeign_call:
	.cfi_startproc
	mrs	x16, tpidr_el0
	ldr	x17, [x16, #COPYSTACK_TCB_LIMIT]
	cbz	x17, .Lin_place
	.cfi_remember_state
	/* A 32-byte frame on the task stack: the frame record, then the task's
	 * limit (restored below) at x29 + 16. */
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset x29, -32
	.cfi_offset x30, -24
	mov	x29, sp
	.cfi_def_cfa_register x29
	str	x17, [x29, #16]
	bl	on_thread_stack
	/* The monitor asked this run to yield while it was in the call
	 * (sched/preempt.h). The results are in x0-x7 and v0-v7; x9 and x16-x18
	 * are free (AAPCS64: the target clobbers them for the caller anyway). */
	thread_addr x17, x16
	ldr	x18, [x17, #THREAD_PREEMPT_SEQ]
	ldr	x9, [x17, #THREAD_RUN_SEQ]
	cmp	x18, x9
	b.eq	.Lpreempt_asked
	ldr	x9, [x29, #16]
.Lback_on_task:
	str	x9, [x16, #COPYSTACK_TCB_LIMIT]
.Lreturn_to_task:
	.cfi_remember_state
	ldp	x29, x30, [sp], #32
	.cfi_def_cfa sp, 0
	.cfi_restore x29
	.cfi_restore x30
	ret
.Lpreempt_asked:
	.cfi_restore_state
	/* It yields here, at the call's return, as at a loop poll: a task
	 * whose loop is mostly foreign calls (a clock read, a string function)
	 * would otherwise yield only at its next check or poll. The results
	 * stay: x0-x7 (__copystack_preempt keeps every general register but
	 * x16 and x17), q0-q3 (AAPCS64's vector results, below: the park keeps
	 * only the low halves of v8-v15); the switch keeps the callee-saved
	 * state, FPCR and FPSR. Not when the task holds a lock until its
	 * coming park (thread.h park_pending): then its next check fails
	 * instead. The limit is the task's once it runs again. (x86-64 also
	 * waits when an x87 result is on the register stack; AArch64 has no
	 * such state.) */
	ldr	x9, [x17, #THREAD_PARK_FN]
	cbnz	x9, .Lpreempt_later
	ldr	x9, [x29, #16]		/* a task's limit again: not 0 */
	str	x9, [x16, #COPYSTACK_TCB_LIMIT]
	sub	sp, sp, #64
	stp	q0, q1, [sp]
	stp	q2, q3, [sp, #32]
	bl	__copystack_preempt
	ldp	q0, q1, [sp]
	ldp	q2, q3, [sp, #32]
	add	sp, sp, #64
	b	.Lreturn_to_task
.Lpreempt_later:
	mov	x9, #-2			/* COPYSTACK_PREEMPT_LIMIT (preempt.cc) */
	b	.Lback_on_task
.Lin_place:
	.cfi_restore_state
	br	x18
	.cfi_endproc
	.size	__copystack_foreign_call_x18, .-__copystack_foreign_call_x18

	.p2align 4
	.globl	__copystack_foreign_entry
	.type	__copystack_foreign_entry,%function
__copystack_foreign_entry:
	.cfi_startproc
	mov	x18, x0
	mov	x0, x1
	b	.Lforeign_call
	.cfi_endproc
	.size	__copystack_foreign_entry, .-__copystack_foreign_entry

	/* The part of a foreign call that leaves the task stack, a function of
	 * its own: its frame is where a backtrace crosses from the thread's
	 * stack back to the task's. Its CFI marks it a signal frame, as the
	 * kernel's signal return trampoline is marked: a debugger then lets
	 * the backtrace go on into frames at addresses below this one (gdb
	 * otherwise stops with "previous frame inner to this frame"), and
	 * unwinders look up its caller at the return address itself, which
	 * here is an instruction inside __copystack_foreign_call_x18. C++
	 * exceptions thrown by the foreign code unwind through both frames
	 * into the task's. Its frame record (16 bytes) is on the task stack,
	 * and x29 points at it while the target runs. Touches no argument
	 * register but x18 (the target), and uses x16 and x17 only (the
	 * sanitizers' calls aside); no result register after the call. */
	.p2align 4
	.type	on_thread_stack,%function
on_thread_stack:
	.cfi_startproc
	.cfi_signal_frame
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov	x29, sp
	.cfi_def_cfa_register x29
	thread_addr x17, x16
	mov	x16, sp
	str	x16, [x17, #THREAD_FOREIGN_SP]
	ldr	w16, [x17, #THREAD_FOREIGN_SEQ]
	add	w16, w16, #1
	str	w16, [x17, #THREAD_FOREIGN_SEQ]
	ldr	x16, [x17, #THREAD_SCHED_SP]
	and	sp, x16, #-16
	mrs	x16, tpidr_el0
	str	xzr, [x16, #COPYSTACK_TCB_LIMIT]
	if_sanitizer x16, .Lsanitized
	blr	x18
.Lreturned:
	thread_addr x17, x16
	str	xzr, [x17, #THREAD_FOREIGN_SP]
	mov	sp, x29
	ldp	x29, x30, [sp], #16
	.cfi_def_cfa sp, 0
	.cfi_restore x29
	.cfi_restore x30
	ret
.Lsanitized:
	/* A sanitizer is linked in: it learns that the call runs on the
	 * thread's stack, and that the task's is current again after it (an
	 * exception or a longjmp that skips the second tells it in the
	 * landing pad). Both are C calls: the argument registers (x0-x7, x8,
	 * the target in x18, q0-q7), then the result registers (x0-x7,
	 * q0-q3), wait in memory meanwhile. */
	.cfi_def_cfa x29, 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	sub	sp, sp, #208
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	x8, x18, [sp, #64]
	stp	q0, q1, [sp, #80]
	stp	q2, q3, [sp, #112]
	stp	q4, q5, [sp, #144]
	stp	q6, q7, [sp, #176]
	bl	__copystack_san_foreign_enter
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	x8, x18, [sp, #64]
	ldp	q0, q1, [sp, #80]
	ldp	q2, q3, [sp, #112]
	ldp	q4, q5, [sp, #144]
	ldp	q6, q7, [sp, #176]
	blr	x18
	stp	x0, x1, [sp, #0]
	stp	x2, x3, [sp, #16]
	stp	x4, x5, [sp, #32]
	stp	x6, x7, [sp, #48]
	stp	q0, q1, [sp, #64]
	stp	q2, q3, [sp, #96]
	bl	__copystack_san_foreign_leave
	ldp	x0, x1, [sp, #0]
	ldp	x2, x3, [sp, #16]
	ldp	x4, x5, [sp, #32]
	ldp	x6, x7, [sp, #48]
	ldp	q0, q1, [sp, #64]
	ldp	q2, q3, [sp, #96]
	b	.Lreturned
	.cfi_endproc
	.size	on_thread_stack, .-on_thread_stack

	/* The prefix of instrumented code (abi.h), so that a call through a
	 * pointer also goes straight here; its map is empty. The 8 bytes of
	 * filler before it are zeros, udf #0 twice should anything run them;
	 * the sanitizers' word is the filler abi.h names for every target. */
	.p2align 4
	.skip	8, 0
	.long	park_map - __copystack_park
	.long	COPYSTACK_ABI_VERSION
	.quad	COPYSTACK_MAGIC
	.quad	COPYSTACK_PREFIX_FILLER
	.globl	__copystack_park
	.type	__copystack_park,%function
__copystack_park:
	.cfi_startproc
	thread_addr x10, x9
	ldr	x11, [x10, #THREAD_TASK]
	cbz	x11, .Lmisuse
	ldr	x12, [x9, #COPYSTACK_TCB_LIMIT]
	cbz	x12, .Lmisuse
	/* sp within [lo, hi]: hi itself when the task's function tail-calls
	 * here (bl pushes nothing: the function starts at the stack's top). */
	mov	x12, sp
	ldr	x13, [x10, #THREAD_TASK_LO]
	cmp	x12, x13
	b.lo	.Lmisuse
	ldr	x13, [x10, #THREAD_TASK_HI]
	cmp	x12, x13
	b.hi	.Lmisuse
	/* A park in progress, announced (park_fn) before the fork's flag is
	 * read (sched/fork.cc: the fork stores its flag, makes every thread
	 * of the process pass a full barrier with membarrier(2), then reads
	 * each worker's park_fn): either the fork waits for this park to end,
	 * or this park waits for the fork, running, as a task that did not
	 * begin to park. One a _begin entry point announced (park_pending: it
	 * holds a lock then() releases) goes on: a fork that saw it waits for
	 * it.
	 *
	 * The order that matters is this thread's store of park_fn before its
	 * load of the flag (store then load: AArch64 may reorder them, as
	 * x86-64's store buffer may). With membarrier(2) (the second word 0)
	 * program order is enough: MEMBARRIER_CMD_PRIVATE_EXPEDITED runs a
	 * full barrier (smp_mb, dmb ish on arm64) on every CPU running a
	 * thread of the process, between the fork's store of the flag and its
	 * loads of park_fn, and a thread not running passed one in its context
	 * switch. That barrier falls in this thread's program order either
	 * after the store of park_fn (which the fork then sees) or before the
	 * load of the flag (which then sees the fork's store): the asymmetric
	 * fence pattern membarrier(2) exists for, architecture-independent.
	 * Without membarrier (the second word 1) this side fences: dmb ish,
	 * a full barrier, orders the store before the load, as x86-64's
	 * mfence. The second word only goes from 1 to 0, once, before tasks
	 * run (fork.cc): reading a stale 1 costs a needless fence, no more.
	 * No barrier elsewhere: the spin's load needs no acquire (once the
	 * flag is 0 the park goes through the scheduler's locks, which the
	 * fork took and released, and which order what follows), and the
	 * store that withdraws the announcement (3:) only has to become
	 * visible, which it does without one (the fork spins until it does). */
	adrp	x12, :got:__copystack_fork_words
	ldr	x12, [x12, #:got_lo12:__copystack_fork_words]
	ldr	x13, [x10, #THREAD_PARK_FN]
	cbnz	x13, 7f
2:	str	x0, [x10, #THREAD_PARK_FN]
	ldr	w13, [x12, #4]
	cbnz	w13, 5f
6:	ldr	w13, [x12]
	cbnz	w13, 3f
7:	str	x0, [x10, #THREAD_PARK_FN]
	str	x1, [x10, #THREAD_PARK_ARG]
	add	x0, x11, #TASK_SP
	ldr	x1, [x10, #THREAD_SCHED_SP]
	mov	x2, #0
	b	__copystack_switch
3:	str	xzr, [x10, #THREAD_PARK_FN]
4:	yield
	ldr	w13, [x12]
	cbnz	w13, 4b
	b	2b
5:	dmb	ish
	b	6b
.Lmisuse:
	b	__copystack_park_misuse
	.cfi_endproc
	.size	__copystack_park, .-__copystack_park

	.globl	__copystack_preempt
	.globl	__copystack_preempt_resume
	.type	__copystack_preempt,%function
	.p2align 4
__copystack_preempt:
	.cfi_startproc
	frame160_enter
	save_caller_saved		/* all but x16, x17; x19-x29 and d8-d15:
					 * the switch; errno, FPCR, FPSR too */
	adrp	x0, :got:__copystack_preempt_then
	ldr	x0, [x0, #:got_lo12:__copystack_preempt_then]
	mov	x1, #0
	bl	__copystack_park
__copystack_preempt_resume:
	restore_caller_saved 0
	frame160_leave
	ret
	.cfi_endproc
	.size	__copystack_preempt, .-__copystack_preempt

	/* The preemption signal's stop (above): the stop record the handler
	 * wrote at sp (signal_frame.h redirect: x29, pc, x30, sp of the
	 * interrupted code), whose frame record is the caller's, and the
	 * caller's pc no return address. sp stays at the record until the
	 * park: the interrupted sp (the CFA) is the word at sp + 24. */
	.globl	__copystack_signal_preempt
	.globl	__copystack_signal_resume
	.type	__copystack_signal_preempt,%function
	.p2align 4
__copystack_signal_preempt:
	.cfi_startproc
	.cfi_signal_frame
	.cfi_escape 0x0f, 0x03, 0x8f, 0x18, 0x06	/* CFA = [sp + 24] */
	.cfi_escape 0x10, 0x1d, 0x02, 0x8f, 0x00	/* x29 at sp */
	.cfi_escape 0x10, 0x1e, 0x02, 0x8f, 0x08	/* x30 (the pc) at sp + 8 */
	mov	x29, sp
	adrp	x0, :got:__copystack_signal_then
	ldr	x0, [x0, #:got_lo12:__copystack_signal_then]
	mov	x1, #0
	bl	__copystack_park
__copystack_signal_resume:
	thread_addr x9, x10
	ldr	x9, [x9, #THREAD_SCHED_SP]
	and	x9, x9, #-16
	mov	sp, x9
	bl	__copystack_signal_restore
	udf	#0
	.cfi_endproc
	.size	__copystack_signal_preempt, .-__copystack_signal_preempt

	/* result=1: x0 is the result, so it is not restored. */
	.macro	pin_entry name, target, result
	.globl	\name
	.type	\name,%function
	.p2align 4
\name:
	.cfi_startproc
	frame160_enter
	save_caller_saved
	adrp	x18, :got:\target
	ldr	x18, [x18, #:got_lo12:\target]
	bl	.Lforeign_call
	restore_caller_saved \result
	frame160_leave
	ret
	.cfi_endproc
	.size	\name, .-\name
	.endm

	pin_entry __copystack_pin_grow_entry, __copystack_pin_grow, 1
	pin_entry __copystack_pin_release_entry, __copystack_pin_release, 0

	.globl	__copystack_no_room
	.type	__copystack_no_room,%function
	.p2align 4
__copystack_no_room:
	.cfi_startproc
	thread_addr x17, x16
	ldr	x17, [x17, #THREAD_TASK]
	cbz	x17, 1f
	ldrb	w16, [x17, #TASK_ROOM_MISSES]
	add	w16, w16, #1
	cmp	w16, #COPYSTACK_ROOM_MISSES
	b.hs	2f
	strb	w16, [x17, #TASK_ROOM_MISSES]
	ret
2:	strb	wzr, [x17, #TASK_ROOM_MISSES]
	mrs	x16, tpidr_el0
	ldr	x17, [x16, #COPYSTACK_TCB_LIMIT]
	cbz	x17, 1f
	cmn	x17, #3			/* carry: limit >= COPYSTACK_ROOM_LIMIT */
	b.hs	1f
	mov	x17, #-3		/* COPYSTACK_ROOM_LIMIT */
	str	x17, [x16, #COPYSTACK_TCB_LIMIT]
1:	ret
	.cfi_endproc
	.size	__copystack_no_room, .-__copystack_no_room

	.globl	__copystack_landing_pad
	.type	__copystack_landing_pad,%function
	.p2align 4
__copystack_landing_pad:
	.cfi_startproc
	thread_addr x17, x16
	mov	x9, sp
	ldr	x10, [x17, #THREAD_TASK_LO]
	cmp	x9, x10
	b.lo	1f
	ldr	x10, [x17, #THREAD_TASK_HI]
	cmp	x9, x10
	b.hi	1f
	ldr	x10, [x17, #THREAD_TASK_LIMIT]
	str	x10, [x16, #COPYSTACK_TCB_LIMIT]
	/* With a sanitizer, the exception or longjmp may have left a foreign
	 * call early: a tail call, a plain C call for the code that called
	 * here (through 2:, a b with the range of a call, not cbnz's). */
	if_sanitizer x16, 2f
1:	ret
2:	b	__copystack_san_landed
	.cfi_endproc
	.size	__copystack_landing_pad, .-__copystack_landing_pad

	/* glibc's pointer guard: the sp _setjmp stores (word JB_SP = 13, see
	 * the header comment) XOR the sp it was called with, which is this
	 * function's sp at the call and after it (AAPCS64 keeps sp: no other
	 * register needs to remember it). The frame: the record, then a whole
	 * jmp_buf (312 bytes on AArch64, rounded up to 320 to keep sp 16-byte
	 * aligned): _setjmp writes the 22 register words and then, in
	 * __sigjmp_save, __mask_was_saved at byte 176. */
	.globl	__copystack_pointer_guard
	.type	__copystack_pointer_guard,%function
	.p2align 4
__copystack_pointer_guard:
	.cfi_startproc
	stp	x29, x30, [sp, #-336]!
	.cfi_def_cfa_offset 336
	.cfi_offset x29, -336
	.cfi_offset x30, -328
	mov	x29, sp
	.cfi_def_cfa_register x29
	add	x0, sp, #16
	bl	_setjmp
	ldr	x0, [sp, #16 + 8 * 13]
	mov	x9, sp
	eor	x0, x0, x9
	ldp	x29, x30, [sp], #336
	.cfi_def_cfa sp, 0
	.cfi_restore x29
	.cfi_restore x30
	ret
	.cfi_endproc
	.size	__copystack_pointer_guard, .-__copystack_pointer_guard

	.section .rodata
	.p2align 2
park_map:			/* copystack_frame_map (abi.h), empty */
	.long	COPYSTACK_ABI_VERSION
	.long	0		/* flags */
	.long	park_name - .	/* name, self-relative */
	.long	0, 0, 0		/* resolve, objects, bitmaps */
	.long	0, 0, 0, 0	/* nobjects, nescaped, gpr_mask, stack_arg_bytes */
park_name:
	.asciz	"__copystack_park"

	.section .note.GNU-stack,"",%progbits
