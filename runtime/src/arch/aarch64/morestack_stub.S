/*
 * morestack_stub.S (AArch64): the __morestack of an instrumented shared
 * library (libcopystack_stub.a; x86_64/morestack_stub.S says why): hidden,
 * it jumps to the process's one runtime with every register as the check
 * left it (x16 is the check's scratch register).
 */
	.text
	.globl	__morestack
	.hidden	__morestack
	.type	__morestack,%function
	.p2align 4
__morestack:
	.cfi_startproc
	adrp	x16, :got:__copystack_morestack
	ldr	x16, [x16, #:got_lo12:__copystack_morestack]
	br	x16
	.cfi_endproc
	.size	__morestack, .-__morestack

	.section .note.GNU-stack,"",%progbits
