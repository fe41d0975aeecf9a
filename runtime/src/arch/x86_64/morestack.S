/*
 * morestack.S: __morestack, the slow path of every split-stack prologue.
 *
 * C prototype: none. Called by LLVM's prologue (abi.h) with
 *   %r10 = the frame the function needs, %r11 = its stack-argument bytes,
 *   [%rsp] = return address into the function (pointing at a one-byte ret),
 *   [%rsp+8] = the function's own return address,
 * and every argument register live. It saves all of them in a block on the
 * task stack (inside the guard band), switches to the thread's own stack and
 * calls __copystack_grow(block, limit), which returns the address of the
 * block in the (possibly new) stack. It restores the registers from there
 * and returns to the function past its "ret", on the new stack. limit is
 * the value the check failed against: COPYSTACK_PREEMPT_LIMIT (abi.h) when
 * the monitor asked the task to yield; then __copystack_grow sets bit 0 of
 * the address it returns, and the task calls __copystack_preempt on the
 * block before it resumes (the registers stay in the block meanwhile).
 *
 * Block layout (asm_offsets.h, MoreStackBlock in growth.cc):
 *
 *   block+0    xmm0 .. xmm7                   16 bytes each
 *   block+128  r15 r14 r13 r12 r11 r10 r9 r8  the reverse of the pushes
 *   block+192  rdi rsi rdx rcx rbx rax rbp
 *   block+248  return address into the asking function
 *   block+256  the asking function's return address   <- its %rsp (CFA-8)
 *
 * If the limit is 0 the thread is not running a task: something rewrote the
 * prologue to call here unconditionally (gold and lld do this before calls
 * into code without split-stack notes). Resume at once.
 */
#include "asm_offsets.h"
#include "copystack/abi.h"

#define TCB_LIMIT %fs:COPYSTACK_TCB_LIMIT

/* The vector registers whole at %rsp, by __copystack_vector_width (cpu.h:
 * 0 none, 1 AVX, 2 AVX-512F, 3 AVX-512F and BW): the argument registers
 * ymm0-7 or zmm0-7 (512 bytes at most), or with all=1 every vector
 * register and the AVX-512 masks (VEC_ALL_BYTES), for the stack probe,
 * which LLVM takes to keep every register. The flags change. */
#define VEC_ARGS_BYTES 512
#define VEC_ALL_BYTES 2112
.macro SAVE_WIDE all
	cmpb	$1, __copystack_vector_width(%rip)
	jb	9f
	je	8f
	.irp r, 0, 1, 2, 3, 4, 5, 6, 7
	vmovdqu64 %zmm\r, 64*\r(%rsp)
	.endr
	.if \all
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	vmovdqu64 %zmm\r, 64*\r(%rsp)
	.endr
	cmpb	$3, __copystack_vector_width(%rip)
	jb	7f
	.irp r, 0, 1, 2, 3, 4, 5, 6, 7
	kmovq	%k\r, 2048+8*\r(%rsp)
	.endr
	jmp	9f
7:
	.irp r, 0, 1, 2, 3, 4, 5, 6, 7
	kmovw	%k\r, 2048+8*\r(%rsp)
	.endr
	.endif
	jmp	9f
8:
	.irp r, 0, 1, 2, 3, 4, 5, 6, 7
	vmovdqu	%ymm\r, 32*\r(%rsp)
	.endr
	.if \all
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqu	%ymm\r, 32*\r(%rsp)
	.endr
	.endif
9:
.endm

/* Puts back what SAVE_WIDE saved, and the caller's upper state with it.
 * A 256- or 512-bit load into a register 0-15 marks the upper halves of
 * ymm0-15/zmm0-15 in use (XINUSE bits 2 and 6) even when the bits loaded
 * are zero, and legacy SSE code then runs several times slower until the
 * next vzeroupper (5.4x on the machine of docs/benchmarks.md: BM_loops, an
 * SSE loop after a task's stack probe). So when every saved register of
 * 0-15 has its bits above 128 zero (the common case: the caller's code is
 * SSE, or ended its AVX with vzeroupper), they are put back with
 * vzeroupper and VEX.128 loads: the same values, exactly, and a clean
 * upper state. Only when one of them holds upper bits are they reloaded
 * whole (the caller's state was dirty then anyway); with AVX-512, as ymm
 * registers after vzeroupper when none holds bits above 255: the state a
 * caller's AVX2 code leaves, put back as it was, zmm0-15's high halves
 * not marked in use.
 * zmm16-31 and the masks have no such penalty and are reloaded as saved.
 * xmm0-7 get their low 128 bits from the block after this (RESTORE_BLOCK,
 * legacy SSE moves, which keep the state as it is), so the clean path
 * loads only xmm8-15. zmm0-2 serve as scratch for the test; every path
 * overwrites them. Labels 3-9 only: the code around uses 1 and 2 across
 * it. */
.macro RESTORE_WIDE all
	cmpb	$1, __copystack_vector_width(%rip)
	jb	9f
	je	5f
	/* AVX-512: any bit above 128 in the saved zmm0-7 (0-15)? */
	vmovdqu64 0(%rsp), %zmm0
	.irp r, 1, 2, 3, 4, 5, 6, 7
	vporq	64*\r(%rsp), %zmm0, %zmm0
	.endr
	.if \all
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	vporq	64*\r(%rsp), %zmm0, %zmm0
	.endr
	.endif
	vextracti64x4 $1, %zmm0, %ymm1		/* bits 256-511 */
	vextractf128 $1, %ymm0, %xmm2		/* bits 128-255 */
	vptest	%ymm1, %ymm1
	jnz	6f
	vzeroupper				/* keeps xmm2 */
	vptest	%xmm2, %xmm2
	jnz	3f
	.if \all
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqu	64*\r(%rsp), %xmm\r
	.endr
	.endif
	jmp	7f
3:
	/* Upper bits in ymm only: VEX.256 loads, which zero bits 256-511 and
	 * leave those of zmm0-15 unmarked. */
	.irp r, 0, 1, 2, 3, 4, 5, 6, 7
	vmovdqu	64*\r(%rsp), %ymm\r
	.endr
	.if \all
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqu	64*\r(%rsp), %ymm\r
	.endr
	.endif
	jmp	7f
6:
	.irp r, 0, 1, 2, 3, 4, 5, 6, 7
	vmovdqu64 64*\r(%rsp), %zmm\r
	.endr
	.if \all
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqu64 64*\r(%rsp), %zmm\r
	.endr
	.endif
7:
	.if \all
	.irp r, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	vmovdqu64 64*\r(%rsp), %zmm\r
	.endr
	cmpb	$3, __copystack_vector_width(%rip)
	jb	4f
	.irp r, 0, 1, 2, 3, 4, 5, 6, 7
	kmovq	2048+8*\r(%rsp), %k\r
	.endr
	jmp	9f
4:
	.irp r, 0, 1, 2, 3, 4, 5, 6, 7
	kmovw	2048+8*\r(%rsp), %k\r
	.endr
	.endif
	jmp	9f
5:
	/* AVX: any bit above 128 in the saved ymm0-7 (0-15)? (AVX only:
	 * vorps and vextractf128, not their AVX2 integer forms.) */
	vmovdqu	0(%rsp), %ymm0
	.irp r, 1, 2, 3, 4, 5, 6, 7
	vorps	32*\r(%rsp), %ymm0, %ymm0
	.endr
	.if \all
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	vorps	32*\r(%rsp), %ymm0, %ymm0
	.endr
	.endif
	vextractf128 $1, %ymm0, %xmm0
	vptest	%xmm0, %xmm0
	jnz	8f
	vzeroupper
	.if \all
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqu	32*\r(%rsp), %xmm\r
	.endr
	.endif
	jmp	9f
8:
	.irp r, 0, 1, 2, 3, 4, 5, 6, 7
	vmovdqu	32*\r(%rsp), %ymm\r
	.endr
	.if \all
	.irp r, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqu	32*\r(%rsp), %ymm\r
	.endr
	.endif
9:
.endm

/* Pushes the register block (the layout above) and leaves %rsp at it. */
.macro SAVE_BLOCK
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	pushq	%rax
	.cfi_adjust_cfa_offset 8
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbx, 0
	pushq	%rcx
	.cfi_adjust_cfa_offset 8
	pushq	%rdx
	.cfi_adjust_cfa_offset 8
	pushq	%rsi
	.cfi_adjust_cfa_offset 8
	pushq	%rdi
	.cfi_adjust_cfa_offset 8
	pushq	%r8
	.cfi_adjust_cfa_offset 8
	pushq	%r9
	.cfi_adjust_cfa_offset 8
	pushq	%r10
	.cfi_adjust_cfa_offset 8
	pushq	%r11
	.cfi_adjust_cfa_offset 8
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r12, 0
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r13, 0
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r14, 0
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %r15, 0
	subq	$128, %rsp
	.cfi_adjust_cfa_offset 128
	movdqu	%xmm0, 0(%rsp)
	movdqu	%xmm1, 16(%rsp)
	movdqu	%xmm2, 32(%rsp)
	movdqu	%xmm3, 48(%rsp)
	movdqu	%xmm4, 64(%rsp)
	movdqu	%xmm5, 80(%rsp)
	movdqu	%xmm6, 96(%rsp)
	movdqu	%xmm7, 112(%rsp)
.endm

/* With the block at %rsp: %rbx keeps it, fn(block, limit) runs on the
 * thread's own stack with the limit 0 (no check fails there), and %rax is
 * what fn returned. */
.macro CALL_ON_THREAD_STACK fn, all
	/* %rbx (saved above) keeps the block across the call: the unwinder and
	 * gdb find the asking function's frame through it. */
	movq	%rsp, %rbx
	.cfi_def_cfa_register %rbx
	movq	%rsp, %rdi
	movq	TCB_LIMIT, %rsi
	movq	__copystack_thread@gottpoff(%rip), %rax
	movq	%fs:THREAD_SCHED_SP(%rax), %rsp
	andq	$-16, %rsp
	movq	$0, TCB_LIMIT
	/* The vector argument registers beyond their low 128 bits (the block
	 * keeps xmm0-7): the runtime's own code may change them (its AVX copy
	 * ends with vzeroupper). fn's third argument is the save area; the
	 * block's xmm0-7, restored after it with legacy SSE moves, keep the
	 * upper bits these put back, and RESTORE_WIDE leaves the upper state
	 * clean when those bits are all zero. */
	subq	$VEC_ALL_BYTES, %rsp
	andq	$-64, %rsp
	movq	%rsp, %rdx
	SAVE_WIDE \all
	call	\fn
	RESTORE_WIDE \all
.endm

/* After CALL_ON_THREAD_STACK: back on the block fn returned (bit 0 of
 * %rax, a preemption asked for, left in %cl), with the task's limit in
 * %rax for the caller to store. */
.macro RESUME_ON_BLOCK
	movq	%rax, %rcx
	andq	$-2, %rax
	movq	%rax, %rsp
	.cfi_def_cfa_register %rsp
	movq	__copystack_thread@gottpoff(%rip), %rax
	movq	%fs:THREAD_TASK_LIMIT(%rax), %rax
.endm

/* Restores the registers from the block at %rsp, clears it and pops it, up
 * to the return address into the asking function. */
.macro RESTORE_BLOCK
	movdqu	0(%rsp), %xmm0
	movdqu	16(%rsp), %xmm1
	movdqu	32(%rsp), %xmm2
	movdqu	48(%rsp), %xmm3
	movdqu	64(%rsp), %xmm4
	movdqu	80(%rsp), %xmm5
	movdqu	96(%rsp), %xmm6
	movdqu	112(%rsp), %xmm7
	movq	128(%rsp), %r15
	.cfi_restore %r15
	movq	136(%rsp), %r14
	.cfi_restore %r14
	movq	144(%rsp), %r13
	.cfi_restore %r13
	movq	152(%rsp), %r12
	.cfi_restore %r12
	movq	160(%rsp), %r11
	movq	168(%rsp), %r10
	movq	176(%rsp), %r9
	movq	184(%rsp), %r8
	movq	192(%rsp), %rdi
	movq	200(%rsp), %rsi
	movq	208(%rsp), %rdx
	movq	216(%rsp), %rcx
	movq	224(%rsp), %rbx
	.cfi_restore %rbx
	movq	232(%rsp), %rax
	movq	240(%rsp), %rbp
	.cfi_restore %rbp
	/* The block becomes part of the asking function's frame. Clear it, so
	 * that no saved register value lingers there as an old-stack address
	 * the maps do not describe (verify mode would rightly report it); and
	 * while it is still above the stack pointer: memcheck takes a store
	 * more than 128 bytes below it for one to freed stack. */
	.irp off, 0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240
	movq	$0, \off(%rsp)
	.endr
	addq	$248, %rsp
	.cfi_adjust_cfa_offset -248
.endm

	.text
	.globl	__morestack
	.type	__morestack,@function
	/* gold sends split-stack code that calls code without split-stack
	 * notes here, under libgcc's name for it. */
	.globl	__morestack_non_split
	.type	__morestack_non_split,@function
	/* The name instrumented shared libraries call (morestack_stub.S). */
	.globl	__copystack_morestack
	.type	__copystack_morestack,@function
	.p2align 4
__morestack:
__morestack_non_split:
__copystack_morestack:
	.cfi_startproc
	cmpq	$0, TCB_LIMIT
	je	.Lspurious
	SAVE_BLOCK
	CALL_ON_THREAD_STACK __copystack_grow, 0
	/* Resume on the block __copystack_grow returned, yielding first when
	 * its bit 0 says so. */
	RESUME_ON_BLOCK
	movq	%rax, TCB_LIMIT
	testb	$1, %cl
	jz	1f
	/* Parked, the task leaves the thread to others, whose code changes
	 * every vector register: the wide ones go below the block, on a stack
	 * that does not move while its task is preempted, and which
	 * __copystack_grow made room on (growth.cc, yield_room_bytes). */
	subq	$VEC_ARGS_BYTES, %rsp
	.cfi_adjust_cfa_offset VEC_ARGS_BYTES
	SAVE_WIDE 0
	call	__copystack_preempt
	RESTORE_WIDE 0
	addq	$VEC_ARGS_BYTES, %rsp
	.cfi_adjust_cfa_offset -VEC_ARGS_BYTES
1:
	RESTORE_BLOCK
.Lspurious:
	/* Past the one-byte "ret" that follows the call in LLVM's prologue. */
	addq	$1, (%rsp)
	ret
	.cfi_endproc
	.size	__morestack, .-__morestack
	.size	__morestack_non_split, .-__morestack_non_split
	.size	__copystack_morestack, .-__copystack_morestack


/*
 * __copystack_stack_probe: the check of a frame too big for the guard band
 * (abi.h, "The stack limit and the prologue": the own prologue). LLVM's
 * prologue calls it, by the name in the function's "probe-stack"
 * attribute, after pushing the callee-saved registers and before it takes
 * the rest of the frame:
 *   %rax = the bytes it is about to take (it then does subq %rax, %rsp),
 *   [%rsp] = return address into the prologue,
 * and every other register live: a probe keeps all but the flags, vector
 * registers and masks included (a shrink-wrapped prologue may run where
 * any of them holds a value).
 * When %rsp - %rax would be at or below the limit, it saves every register
 * in a block as __morestack does and calls __copystack_grow_probe(block,
 * limit) on the thread's stack, which returns the block's address in the
 * (possibly new) stack; it restores the registers there and returns into
 * the prologue. A pending preemption is left to the check that follows
 * the prologue: the limit is made to fail it again.
 */
	.text
	.globl	__copystack_stack_probe
	.type	__copystack_stack_probe,@function
	/* The name instrumented shared libraries reach (morestack_stub.S). */
	.globl	__copystack_probe
	.type	__copystack_probe,@function
	.p2align 4
__copystack_stack_probe:
__copystack_probe:
	.cfi_startproc
	pushq	%r11
	.cfi_adjust_cfa_offset 8
	leaq	16(%rsp), %r11
	subq	%rax, %r11
	jb	1f
	cmpq	TCB_LIMIT, %r11
	jbe	1f
	popq	%r11
	.cfi_adjust_cfa_offset -8
	ret
1:
	.cfi_adjust_cfa_offset 8
	popq	%r11
	.cfi_adjust_cfa_offset -8
	cmpq	$0, TCB_LIMIT
	je	2f
	SAVE_BLOCK
	CALL_ON_THREAD_STACK __copystack_grow_probe, 1
	/* Bit 0: a preemption was asked for; the check after the prologue
	 * takes it, so the limit says so again. */
	RESUME_ON_BLOCK
	testb	$1, %cl
	jz	3f
	movq	$-2, %rax		/* COPYSTACK_PREEMPT_LIMIT */
3:
	movq	%rax, TCB_LIMIT
	RESTORE_BLOCK
2:
	ret
	.cfi_endproc
	.size	__copystack_stack_probe, .-__copystack_stack_probe
	.size	__copystack_probe, .-__copystack_probe

	/* Both split-stack notes: gold and lld leave calls into an object with
	 * .note.GNU-split-stack alone, and do not insist on finding split-stack
	 * prologues in an object with .note.GNU-no-split-stack. */
	.section .note.GNU-split-stack,"",@progbits
	.section .note.GNU-no-split-stack,"",@progbits
	.section .note.GNU-stack,"",@progbits
