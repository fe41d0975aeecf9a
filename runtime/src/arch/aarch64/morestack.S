/*
 * morestack.S (AArch64): __morestack, the slow path of every own check
 * (passes/target/AArch64.cpp). x86_64/morestack.S is the model; what
 * differs:
 *
 * The check runs after the asking function's frame is set up:
 *   mrs x16, tpidr_el0; ldr x16, [x16, #8]; cmp sp, x16; b.hi 1f
 *   bl __morestack; udf #ARGBYTES; 1:
 * so x30 holds the address of the udf, whose immediate is the function's
 * stack-argument bytes, and sp is the function's own, which may lie below
 * the task's stack (a frame bigger than the guard band). Nothing is stored
 * below it: the registers go to a block on the thread's own stack, and
 * __copystack_grow(block, limit, wide) puts the block on the task's stack
 * right below the asker's sp (growth.cc, frames.cc place_block), moving
 * the stack first if it must, and returns that address (bit 0: yield
 * first). The check keeps every register but x16, x17, x30 and the flags
 * (LLVM may have put any value anywhere before it): the block keeps q0-q7,
 * x0-x15, x18-x29, the asker's sp and x30 (asm_offsets.h MS_*), and q8-q31
 * whole wait on the thread's stack beside it (MS_WIDE_BYTES), relocated
 * there, and below the block on the task's stack during a yield. Returns
 * past the udf, on the new stack.
 *
 * If the limit is 0 the thread runs no task: resume at once.
 */
#include "asm_offsets.h"
#include "copystack/abi.h"

/* q8-q31 at \base (384 bytes). */
.macro WIDE op, base
	\op	q8, q9, [\base, #0]
	\op	q10, q11, [\base, #32]
	\op	q12, q13, [\base, #64]
	\op	q14, q15, [\base, #96]
	\op	q16, q17, [\base, #128]
	\op	q18, q19, [\base, #160]
	\op	q20, q21, [\base, #192]
	\op	q22, q23, [\base, #224]
	\op	q24, q25, [\base, #256]
	\op	q26, q27, [\base, #288]
	\op	q28, q29, [\base, #320]
	\op	q30, q31, [\base, #352]
.endm

/* The block's registers at \base, but x30 and the asker's sp. */
.macro REGS op, base
	\op	q0, q1, [\base, #MS_Q0]
	\op	q2, q3, [\base, #MS_Q0 + 32]
	\op	q4, q5, [\base, #MS_Q0 + 64]
	\op	q6, q7, [\base, #MS_Q0 + 96]
	\op	x0, x1, [\base, #MS_X0]
	\op	x2, x3, [\base, #MS_X0 + 16]
	\op	x4, x5, [\base, #MS_X0 + 32]
	\op	x6, x7, [\base, #MS_X0 + 48]
	\op	x8, x9, [\base, #MS_X0 + 64]
	\op	x10, x11, [\base, #MS_X0 + 80]
	\op	x12, x13, [\base, #MS_X0 + 96]
	\op	x14, x15, [\base, #MS_X0 + 112]
	\op	x18, x19, [\base, #MS_X18]
	\op	x20, x21, [\base, #MS_X18 + 16]
	\op	x22, x23, [\base, #MS_X18 + 32]
	\op	x24, x25, [\base, #MS_X18 + 48]
	\op	x26, x27, [\base, #MS_X18 + 64]
	\op	x28, x29, [\base, #MS_X18 + 80]
.endm

	.text
	.globl	__morestack
	.type	__morestack,%function
	/* The name instrumented shared libraries call (morestack_stub.S). */
	.globl	__copystack_morestack
	.type	__copystack_morestack,%function
	.p2align 4
__morestack:
__copystack_morestack:
	.cfi_startproc
	mrs	x16, tpidr_el0
	ldr	x17, [x16, #COPYSTACK_TCB_LIMIT]
	cbz	x17, .Lspurious
	/* The block and the wide registers below the thread's saved sp. */
	adrp	x17, :gottprel:__copystack_thread
	ldr	x17, [x17, #:gottprel_lo12:__copystack_thread]
	add	x16, x16, x17
	ldr	x17, [x16, #THREAD_SCHED_SP]
	and	x17, x17, #-16
	sub	x17, x17, #(MS_BLOCK_BYTES + MS_WIDE_BYTES)
	REGS	stp, x17
	mov	x16, sp
	stp	x16, x30, [x17, #MS_SP]
	add	x16, x17, #MS_BLOCK_BYTES
	WIDE	stp, x16
	/* x19 keeps the block on the thread's stack; the asker's frame is
	 * found through it: CFA = the asker's sp (the block's MS_SP word),
	 * its x19, x29 and x30 in the block. */
	mov	x19, x17
	mov	sp, x17
	.cfi_escape 0x0f, 0x04, 0x83, 0xe0, 0x02, 0x06	/* CFA = [x19 + 352] */
	.cfi_escape 0x10, 0x1e, 0x03, 0x83, 0xe8, 0x02	/* x30 at x19 + 360 */
	.cfi_escape 0x10, 0x1d, 0x03, 0x83, 0xd8, 0x02	/* x29 at x19 + 344 */
	.cfi_escape 0x10, 0x13, 0x03, 0x83, 0x88, 0x02	/* x19 at x19 + 264 */
	mrs	x16, tpidr_el0
	ldr	x1, [x16, #COPYSTACK_TCB_LIMIT]
	str	xzr, [x16, #COPYSTACK_TCB_LIMIT]
	mov	x0, x19
	add	x2, x19, #MS_BLOCK_BYTES
	bl	__copystack_grow
	/* q8-q31 as the runtime relocated them, before the thread's stack is
	 * left; the task's limit back. */
	add	x1, x19, #MS_BLOCK_BYTES
	WIDE	ldp, x1
	and	x17, x0, #-2
	mrs	x16, tpidr_el0
	adrp	x1, :gottprel:__copystack_thread
	ldr	x1, [x1, #:gottprel_lo12:__copystack_thread]
	add	x1, x16, x1
	ldr	x1, [x1, #THREAD_TASK_LIMIT]
	str	x1, [x16, #COPYSTACK_TCB_LIMIT]
	/* On the block, on the task's stack: CFA = the block's end. */
	mov	sp, x17
	.cfi_def_cfa sp, MS_BLOCK_BYTES
	.cfi_offset x30, MS_RET - MS_BLOCK_BYTES
	.cfi_offset x29, MS_X29 - MS_BLOCK_BYTES
	.cfi_offset x19, MS_X18 + 8 - MS_BLOCK_BYTES
	tbz	x0, #0, 1f
	/* Parked, the task leaves the thread to others: the wide registers
	 * wait below the block, on a stack that does not move while its task
	 * is preempted (growth.cc made room: yield_room_bytes). */
	sub	sp, sp, #MS_WIDE_BYTES
	.cfi_adjust_cfa_offset MS_WIDE_BYTES
	WIDE	stp, sp
	bl	__copystack_preempt
	WIDE	ldp, sp
	add	sp, sp, #MS_WIDE_BYTES
	.cfi_adjust_cfa_offset -MS_WIDE_BYTES
1:
	REGS	ldp, sp
	ldr	x30, [sp, #MS_RET]
	/* The block becomes part of the asking function's frame: cleared, so
	 * that no saved value lingers there as an old-stack address the maps
	 * do not describe (verify mode would rightly report it). */
	mov	x16, sp
	add	x17, sp, #MS_BLOCK_BYTES
2:	stp	xzr, xzr, [x16], #16
	cmp	x16, x17
	b.lo	2b
	add	sp, sp, #MS_BLOCK_BYTES
	.cfi_def_cfa sp, 0
	.cfi_restore x30
	.cfi_restore x29
	.cfi_restore x19
.Lspurious:
	/* Past the udf that follows the call in the check. */
	add	x30, x30, #4
	ret
	.cfi_endproc
	.size	__morestack, .-__morestack
	.size	__copystack_morestack, .-__copystack_morestack

	.section .note.GNU-stack,"",%progbits
