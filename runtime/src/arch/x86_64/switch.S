/*
 * switch.S: moving between a thread's own stack and task stacks.
 *
 *   void __copystack_switch(uintptr_t *save_sp, uintptr_t new_sp,
 *                           uintptr_t new_limit);
 *       Saves the callee-saved registers and %rsp in *save_sp, continues on
 *       new_sp with the limit (%fs:COPYSTACK_TCB_LIMIT) = new_limit. The frame it leaves on the saved
 *       stack, from the saved %rsp up (asm_offsets.h SWITCH_*):
 *
 *           +0 MXCSR  +4 x87 control word  +6 x87 status word  +8 errno
 *           (16 bytes)
 *           +16 r15  +24 r14  +32 r13  +40 r12  +48 rbx  +56 rbp  +64 return
 *
 *       The first 16 bytes are the thread state of the side that switched
 *       out, put back when it is switched in: each task keeps its own
 *       floating-point control (rounding, exception masks, flags) and
 *       errno across parks and migrations, and so does the scheduler.
 *
 *   __copystack_task_start
 *       The first code of every task, entered through a switch frame that
 *       task.cc builds: r12 = Task*, r13 = entry, r14/r15/rbx = arguments.
 *       Calls entry(r14, r15, rbx) with %rbp = 0, stores the result, marks
 *       the task done and switches back for good. The address after its call
 *       is __copystack_task_return: the end of every stack walk.
 *
 *   __copystack_foreign_call_r10: target in %r10, arguments as for target
 *       Calls the function at %r10 on the thread's own stack with the limit
 *       at 0, with the argument registers as the caller left them (%rdi,
 *       %rsi, %rdx, %rcx, %r8, %r9, %xmm0-7, %al), and returns its result
 *       registers (%rax, %rdx, %xmm0, %xmm1) to the task stack and its
 *       limit. Instrumented code calls it as the callee's own C signature
 *       with the target as a first `nest` argument, which LLVM passes in
 *       %r10 (docs/abi.md, "Foreign calls"): no argument passes through
 *       memory. Clobbers %r10 and %r11. Outside a task (limit 0) it is a
 *       plain tail call. Its CFI (and that of on_thread_stack, the frame
 *       that switches) lets unwinders and debuggers go from the thread's
 *       stack back into the task's frames. Uses 40 bytes of the task stack.
 *
 *   void __copystack_foreign_entry(void (*fn)(void *), void *arg);
 *       fn(arg) through __copystack_foreign_call_r10: the entry of a task whose
 *       function is foreign code (task.cc).
 *
 *   void __copystack_park(void (*then)(void *), void *arg);
 *       Go's gopark: called by instrumented code on a task stack, saves the
 *       task's context in a switch frame there and switches to the worker's
 *       own stack, where the scheduler runs then(arg) once the context is
 *       saved. Returns when the task runs again (maybe on another thread).
 *       Uses 120 bytes of the task stack. Called anywhere else (a foreign
 *       call, a thread's own stack), it stops the program with a message.
 *       Its park is in progress (Thread::park_fn) until then(arg) has run;
 *       while a fork is being prepared it first waits, running, until the
 *       fork is over (sched/fork.cc).
 *
 *   void __copystack_preempt(void);
 *       Called by instrumented code on a task stack (a loop poll) and by
 *       __morestack when the monitor asked the task to yield (abi.h,
 *       COPYSTACK_PREEMPT_LIMIT): parks it with __copystack_preempt_then,
 *       which keeps it for this thread (sched/preempt.h). Keeps errno (the
 *       switch does), and every register but %r11 (LLVM's preserve_most
 *       convention, which the polls call it with: a poll costs the loop no
 *       registers). Uses
 *       under 200 bytes of the task stack. Its return address after the park
 *       is __copystack_preempt_resume, which tells the collector not to move
 *       the stack (the code it stopped in has no safepoint there).
 *
 *   uint64_t __copystack_pin_grow_entry(void);
 *   void __copystack_pin_release_entry(void);
 *       __copystack_pin_grow and _release (core/pin.cc) through
 *       __copystack_foreign_call_r10, keeping every register but %r11
 *       and grow's result in %rax (preserve_most: the pinned area's slow
 *       path, abi.h, which instrumented code calls with that convention,
 *       costs its frame no callee-saved registers). A frame of their own, so that a dump from
 *       inside walks on to the caller. Use 120 bytes of the task stack,
 *       the trampoline's included.
 *
 *   void __copystack_no_room(void);
 *       Called by instrumented code when an in-place call's room test
 *       failed (passes/LibcInPlace.cpp), with preserve_most; clobbers %r11
 *       and the flags only. Counts the miss on the running task, and every
 *       COPYSTACK_ROOM_MISSES misses asks for room: the limit becomes
 *       COPYSTACK_ROOM_LIMIT, unless it is 0 (not on a task stack) or
 *       holds a request already (the preemption's, the room's, or stress
 *       and verify modes' ~0, all at or above COPYSTACK_ROOM_LIMIT). A
 *       preemption the monitor asks for between the test and the store is
 *       not lost: it set preempt_seq first, which __copystack_grow reads.
 *
 *   void __copystack_landing_pad(void);
 *       Called first in every landing pad of instrumented code. An exception
 *       thrown by foreign code unwinds into task frames with the limit still
 *       0; this puts the task's limit back if %rsp is on the task stack.
 *       Clobbers %rax and %rcx only, unless AddressSanitizer or
 *       ThreadSanitizer is linked in: then it also tells them a foreign call
 *       is over, as a C call (platform/sanitizers.h).
 *
 *   With either linked in, a foreign call tells them it runs on the
 *   thread's stack, and when it is back.
 */
#include "asm_offsets.h"
#include "copystack/abi.h"

#define TCB_LIMIT %fs:COPYSTACK_TCB_LIMIT

	/* Null unless AddressSanitizer's or ThreadSanitizer's runtime is
	 * linked in (platform/sanitizers.h). */
	.weak	__sanitizer_start_switch_fiber
	.weak	__tsan_ignore_thread_begin

	/* Sets ZF when neither is: clobbers reg. */
	.macro	no_sanitizer reg
	movq	__sanitizer_start_switch_fiber@GOTPCREL(%rip), \reg
	testq	\reg, \reg
	jnz	9f
	movq	__tsan_ignore_thread_begin@GOTPCREL(%rip), \reg
	testq	\reg, \reg
9:
	.endm

	/* The registers LLVM's preserve_most convention keeps that a C call
	 * may clobber: all of them but %r11. 64 bytes. */
	.macro	push_caller_saved
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	.endm
	.macro	pop_caller_saved
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rax
	.endm

	.text

	.globl	__copystack_switch
	.type	__copystack_switch,@function
	.p2align 4
__copystack_switch:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	/* The thread state of the side switching out (asm_offsets.h
	 * SWITCH_MXCSR...): its floating-point control and errno. */
	subq	$16, %rsp
	.cfi_adjust_cfa_offset 16
	stmxcsr	SWITCH_MXCSR(%rsp)
	fnstcw	SWITCH_FPUCW(%rsp)
	fnstsw	SWITCH_FPUSW(%rsp)
	movq	%rdi, %r12
	movq	%rsi, %r13
	movq	%rdx, %r14
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	call	__errno_location@PLT
	addq	$8, %rsp
	.cfi_adjust_cfa_offset -8
	movl	(%rax), %ecx
	movl	%ecx, SWITCH_ERRNO(%rsp)
	movq	%rsp, (%r12)
	movq	%r13, %rsp
	movq	%r14, TCB_LIMIT
	/* The side switching in gets its own back (%rax: this thread's errno,
	 * the same on both sides). fldcw only when it differs: it is slow. */
	ldmxcsr	SWITCH_MXCSR(%rsp)
	movzwl	SWITCH_FPUCW(%rsp), %ecx
	subq	$8, %rsp
	fnstcw	(%rsp)
	fnstsw	2(%rsp)
	movzwl	(%rsp), %edx
	cmpl	%ecx, %edx
	je	1f
	fldcw	8+SWITCH_FPUCW(%rsp)
1:	/* The x87 exception flags, which only fldenv can set: only when they
	 * differ (code that uses no x87 arithmetic never gets here). */
	movzwl	2(%rsp), %edx
	movzwl	8+SWITCH_FPUSW(%rsp), %ecx
	xorl	%ecx, %edx
	addq	$8, %rsp
	testl	$0x3f, %edx
	jz	2f
	subq	$32, %rsp
	fnstenv	(%rsp)
	movzwl	4(%rsp), %edx
	andl	$0x7f40, %edx		/* all but the flags, ES and B */
	andl	$0x3f, %ecx
	orl	%ecx, %edx
	testl	$0x3f, %ecx
	jz	3f
	orl	$0x8080, %edx		/* ES and B follow the flags */
3:	movw	%dx, 4(%rsp)
	fldenv	(%rsp)
	addq	$32, %rsp
2:	movl	SWITCH_ERRNO(%rsp), %ecx
	movl	%ecx, (%rax)
	addq	$16, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	.cfi_adjust_cfa_offset -64
	ret
	.cfi_endproc
	.size	__copystack_switch, .-__copystack_switch

	.globl	__copystack_task_start
	.globl	__copystack_task_return
	.type	__copystack_task_start,@function
	.p2align 4
__copystack_task_start:
	.cfi_startproc
	.cfi_undefined rip
	andq	$-16, %rsp
	movq	%r14, %rdi
	movq	%r15, %rsi
	movq	%rbx, %rdx
	xorl	%ebp, %ebp
	call	*%r13
__copystack_task_return:
	movq	%rax, TASK_RESULT(%r12)
	movb	$1, TASK_DONE(%r12)
	leaq	TASK_SP(%r12), %rdi
	movq	__copystack_thread@gottpoff(%rip), %rax
	movq	%fs:THREAD_SCHED_SP(%rax), %rsi
	xorl	%edx, %edx
	call	__copystack_switch
	ud2
	.cfi_endproc
	.size	__copystack_task_start, .-__copystack_task_start

	.p2align 4
	.globl	__copystack_foreign_call_r10
	.type	__copystack_foreign_call_r10,@function
__copystack_foreign_call_r10:
.Lforeign_call:
	.cfi_startproc
	movq	TCB_LIMIT, %r11
	testq	%r11, %r11
	jz	.Lin_place
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%r11			/* the task's limit, restored below */
	subq	$8, %rsp		/* the call below pushes 8 more: aligned */
	call	on_thread_stack
	/* The monitor asked this run to yield while it was in the call
	 * (sched/preempt.h). */
	movq	__copystack_thread@gottpoff(%rip), %r10
	movq	%fs:THREAD_PREEMPT_SEQ(%r10), %r11
	cmpq	%fs:THREAD_RUN_SEQ(%r10), %r11
	je	.Lpreempt_asked
	movq	-8(%rbp), %r11
.Lback_on_task:
	movq	%r11, TCB_LIMIT
.Lreturn_to_task:
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
.Lpreempt_asked:
	.cfi_def_cfa %rbp, 16
	.cfi_offset %rbp, -16
	/* It yields here, at the call's return, as at a loop poll: a task
	 * whose loop is mostly foreign calls (a clock read, a string function)
	 * would otherwise yield only at its next check or poll, and code built
	 * without polls (--copystack-preempt=signal) has none in its loops,
	 * where the signal finds it in the foreign call nearly every time.
	 * The results stay: %rax and %rdx (__copystack_preempt keeps every
	 * general register but %r11), %xmm0 and %xmm1 (below); the switch
	 * keeps the callee-saved state. Not when the task holds a lock until
	 * its coming park (thread.h park_pending), nor with an x87 result on
	 * the register stack (TOP not 0): then its next check fails instead,
	 * as before. The limit is the task's once it runs again. */
	cmpq	$0, %fs:THREAD_PARK_FN(%r10)
	jne	.Lpreempt_later
	pushq	%rax
	fnstsw	%ax
	testw	$0x3800, %ax
	popq	%rax
	jnz	.Lpreempt_later
	movq	-8(%rbp), %r11		/* a task's limit again: not 0 */
	movq	%r11, TCB_LIMIT
	subq	$32, %rsp
	movdqu	%xmm0, (%rsp)
	movdqu	%xmm1, 16(%rsp)
	call	__copystack_preempt
	movdqu	(%rsp), %xmm0
	movdqu	16(%rsp), %xmm1
	jmp	.Lreturn_to_task
.Lpreempt_later:
	movq	$-2, %r11		/* COPYSTACK_PREEMPT_LIMIT (preempt.cc) */
	jmp	.Lback_on_task
.Lin_place:
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	jmp	*%r10
	.cfi_endproc
	.size	__copystack_foreign_call_r10, .-__copystack_foreign_call_r10

	.p2align 4
	.globl	__copystack_foreign_entry
	.type	__copystack_foreign_entry,@function
__copystack_foreign_entry:
	.cfi_startproc
	movq	%rdi, %r10
	movq	%rsi, %rdi
	jmp	.Lforeign_call
	.cfi_endproc
	.size	__copystack_foreign_entry, .-__copystack_foreign_entry

	/* The part of a foreign call that leaves the task stack, a function of
	 * its own: its frame is where a backtrace crosses from the thread's
	 * stack back to the task's. Its CFI marks it a signal frame, as glibc
	 * marks the frame of a signal handler's return: a debugger then lets
	 * the backtrace go on into frames at addresses below this one (gdb
	 * otherwise stops with "previous frame inner to this frame"), and
	 * unwinders look up its caller at the return address itself, which
	 * here is an instruction inside __copystack_foreign_call_r10. C++
	 * exceptions thrown by the foreign code unwind through both frames
	 * into the task's. Touches no argument register but %r10 (the target)
	 * and %r11, and no result register after the call. */
	.p2align 4
	.type	on_thread_stack,@function
on_thread_stack:
	.cfi_startproc
	.cfi_signal_frame
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	movq	__copystack_thread@gottpoff(%rip), %r11
	movq	%rsp, %fs:THREAD_FOREIGN_SP(%r11)
	incl	%fs:THREAD_FOREIGN_SEQ(%r11)
	movq	%fs:THREAD_SCHED_SP(%r11), %rsp
	andq	$-16, %rsp
	movq	$0, TCB_LIMIT
	no_sanitizer %r11
	jnz	.Lsanitized
	call	*%r10
.Lreturned:
	movq	__copystack_thread@gottpoff(%rip), %r11
	movq	$0, %fs:THREAD_FOREIGN_SP(%r11)
	movq	%rbp, %rsp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
.Lsanitized:
	/* A sanitizer is linked in: it learns that the call runs on the
	 * thread's stack, and that the task's is current again after it (an
	 * exception or a longjmp that skips the second tells it in the
	 * landing pad). Both are C calls: the argument registers, then the
	 * result registers, wait in memory meanwhile. */
	.cfi_def_cfa %rbp, 16
	.cfi_offset %rbp, -16
	subq	$192, %rsp
	movq	%rdi, 0(%rsp)
	movq	%rsi, 8(%rsp)
	movq	%rdx, 16(%rsp)
	movq	%rcx, 24(%rsp)
	movq	%r8, 32(%rsp)
	movq	%r9, 40(%rsp)
	movq	%rax, 48(%rsp)
	movq	%r10, 56(%rsp)
	movaps	%xmm0, 64(%rsp)
	movaps	%xmm1, 80(%rsp)
	movaps	%xmm2, 96(%rsp)
	movaps	%xmm3, 112(%rsp)
	movaps	%xmm4, 128(%rsp)
	movaps	%xmm5, 144(%rsp)
	movaps	%xmm6, 160(%rsp)
	movaps	%xmm7, 176(%rsp)
	call	__copystack_san_foreign_enter
	movq	0(%rsp), %rdi
	movq	8(%rsp), %rsi
	movq	16(%rsp), %rdx
	movq	24(%rsp), %rcx
	movq	32(%rsp), %r8
	movq	40(%rsp), %r9
	movq	48(%rsp), %rax
	movq	56(%rsp), %r10
	movaps	64(%rsp), %xmm0
	movaps	80(%rsp), %xmm1
	movaps	96(%rsp), %xmm2
	movaps	112(%rsp), %xmm3
	movaps	128(%rsp), %xmm4
	movaps	144(%rsp), %xmm5
	movaps	160(%rsp), %xmm6
	movaps	176(%rsp), %xmm7
	call	*%r10
	movq	%rax, 0(%rsp)
	movq	%rdx, 8(%rsp)
	movaps	%xmm0, 16(%rsp)
	movaps	%xmm1, 32(%rsp)
	call	__copystack_san_foreign_leave
	movq	0(%rsp), %rax
	movq	8(%rsp), %rdx
	movaps	16(%rsp), %xmm0
	movaps	32(%rsp), %xmm1
	jmp	.Lreturned
	.cfi_endproc
	.size	on_thread_stack, .-on_thread_stack

	/* The prefix of instrumented code (abi.h), so that a call through a
	 * pointer also goes straight here; its map is empty. */
	.p2align 4
	.skip	8, 0xcc
	.long	park_map - __copystack_park
	.long	COPYSTACK_ABI_VERSION
	.quad	COPYSTACK_MAGIC
	.quad	COPYSTACK_PREFIX_FILLER
	.globl	__copystack_park
	.type	__copystack_park,@function
__copystack_park:
	.cfi_startproc
	movq	__copystack_thread@gottpoff(%rip), %rax
	movq	%fs:THREAD_TASK(%rax), %rcx
	testq	%rcx, %rcx
	jz	1f
	cmpq	$0, TCB_LIMIT
	je	1f
	cmpq	%fs:THREAD_TASK_LO(%rax), %rsp
	jb	1f
	cmpq	%fs:THREAD_TASK_HI(%rax), %rsp
	jae	1f
	/* A park in progress, announced (park_fn) before the fork's flag is
	 * read (sched/fork.cc: the fork stores its flag, makes every thread
	 * of the process pass a full barrier with membarrier(2), then reads
	 * each worker's park_fn): either the fork waits for this park to end,
	 * or this park waits for the fork, running, as a task that did not
	 * begin to park. Without membarrier(2) (the second word), this side
	 * fences. One a _begin entry point announced (park_pending: it holds
	 * a lock then() releases) goes on: a fork that saw it waits for it. */
	movq	__copystack_fork_words@GOTPCREL(%rip), %rdx
	cmpq	$0, %fs:THREAD_PARK_FN(%rax)
	jne	7f
2:	movq	%rdi, %fs:THREAD_PARK_FN(%rax)
	cmpl	$0, 4(%rdx)
	jne	5f
6:	cmpl	$0, (%rdx)
	jne	3f
7:	movq	%rdi, %fs:THREAD_PARK_FN(%rax)
	movq	%rsi, %fs:THREAD_PARK_ARG(%rax)
	leaq	TASK_SP(%rcx), %rdi
	movq	%fs:THREAD_SCHED_SP(%rax), %rsi
	xorl	%edx, %edx
	jmp	__copystack_switch
3:	movq	$0, %fs:THREAD_PARK_FN(%rax)
4:	pause
	cmpl	$0, (%rdx)
	jne	4b
	jmp	2b
5:	mfence
	jmp	6b
1:	jmp	__copystack_park_misuse
	.cfi_endproc
	.size	__copystack_park, .-__copystack_park

	.globl	__copystack_preempt
	.globl	__copystack_preempt_resume
	.type	__copystack_preempt,@function
	.p2align 4
__copystack_preempt:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rbx
	.cfi_offset %rbx, -24
	push_caller_saved		/* preserve_most: all but %r11 */
	andq	$-16, %rsp
	/* errno: kept by __copystack_switch, as for any park. */
	movq	__copystack_preempt_then@GOTPCREL(%rip), %rdi
	xorl	%esi, %esi
	call	__copystack_park
__copystack_preempt_resume:
	leaq	-72(%rbp), %rsp
	pop_caller_saved
	popq	%rbx
	.cfi_restore %rbx
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	__copystack_preempt, .-__copystack_preempt

	/* Entered, not called: the preemption signal's handler
	 * (sched/preempt_signal.cc) saved every register of the code it
	 * interrupted, and returns here with %rsp 136 bytes lower (the
	 * interrupted code's red zone, then the interrupted pc where a call
	 * would have put its return address); every other register still
	 * holds the interrupted value. Parks the task like __copystack_preempt;
	 * once it runs again (on the same thread) it leaves the task stack for
	 * the thread's and __copystack_signal_restore puts every register back
	 * with rt_sigreturn. Uses 144 bytes of the task stack below the red
	 * zone (the pc, %rbp, alignment, __copystack_park's 120). */
	.globl	__copystack_signal_preempt
	.globl	__copystack_signal_resume
	.type	__copystack_signal_preempt,@function
	.p2align 4
__copystack_signal_preempt:
	.cfi_startproc
	.cfi_signal_frame	/* its caller's pc is no return address */
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	andq	$-16, %rsp
	movq	__copystack_signal_then@GOTPCREL(%rip), %rdi
	xorl	%esi, %esi
	call	__copystack_park
__copystack_signal_resume:
	movq	__copystack_thread@gottpoff(%rip), %rax
	movq	%fs:THREAD_SCHED_SP(%rax), %rsp
	andq	$-16, %rsp
	call	__copystack_signal_restore
	ud2
	.cfi_endproc
	.size	__copystack_signal_preempt, .-__copystack_signal_preempt

	/* result=1: %rax, saved first by push_caller_saved, is the
	 * result, so its slot takes the call's before the pops. */
	.macro	pin_entry name, target, result
	.globl	\name
	.type	\name,@function
	.p2align 4
\name:
	.cfi_startproc
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	push_caller_saved		/* eight: %rsp stays 16-byte aligned */
	movq	\target@GOTPCREL(%rip), %r10
	call	.Lforeign_call
	.if \result
	movq	%rax, 56(%rsp)
	.endif
	pop_caller_saved
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size	\name, .-\name
	.endm

	pin_entry __copystack_pin_grow_entry, __copystack_pin_grow, 1
	pin_entry __copystack_pin_release_entry, __copystack_pin_release, 0

	.globl	__copystack_no_room
	.type	__copystack_no_room,@function
	.p2align 4
__copystack_no_room:
	.cfi_startproc
	movq	__copystack_thread@gottpoff(%rip), %r11
	movq	%fs:THREAD_TASK(%r11), %r11
	testq	%r11, %r11
	jz	1f
	addb	$1, TASK_ROOM_MISSES(%r11)
	cmpb	$COPYSTACK_ROOM_MISSES, TASK_ROOM_MISSES(%r11)
	jb	1f
	movb	$0, TASK_ROOM_MISSES(%r11)
	cmpq	$0, TCB_LIMIT
	je	1f
	cmpq	$-3, TCB_LIMIT		/* COPYSTACK_ROOM_LIMIT, unsigned */
	jae	1f
	movq	$-3, TCB_LIMIT
1:	ret
	.cfi_endproc
	.size	__copystack_no_room, .-__copystack_no_room

	.globl	__copystack_landing_pad
	.type	__copystack_landing_pad,@function
	.p2align 4
__copystack_landing_pad:
	.cfi_startproc
	movq	__copystack_thread@gottpoff(%rip), %rax
	cmpq	%fs:THREAD_TASK_LO(%rax), %rsp
	jb	1f
	cmpq	%fs:THREAD_TASK_HI(%rax), %rsp
	jae	1f
	movq	%fs:THREAD_TASK_LIMIT(%rax), %rcx
	movq	%rcx, TCB_LIMIT
	/* With a sanitizer, the exception or longjmp may have left a foreign
	 * call early: a tail call, a plain C call for the code that called
	 * here. */
	no_sanitizer %rcx
	jnz	__copystack_san_landed
1:	ret
	.cfi_endproc
	.size	__copystack_landing_pad, .-__copystack_landing_pad

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

	/* Both split-stack notes: gold and lld leave calls into an object with
	 * .note.GNU-split-stack alone, and do not insist on finding split-stack
	 * prologues in an object with .note.GNU-no-split-stack. */
	.section .note.GNU-split-stack,"",@progbits
	.section .note.GNU-no-split-stack,"",@progbits
	.section .note.GNU-stack,"",@progbits
