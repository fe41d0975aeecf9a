/*
 * morestack_stub.S: the __morestack of an instrumented shared library
 * (libcopystack_stub.a; the drivers link it into every -shared output).
 *
 * LLVM's prologues call __morestack by that name. Left undefined in a
 * library, the name is free for whoever links a program against it, and a
 * program linked without the copystack drivers takes libgcc's __morestack
 * from libgcc.a (the linker resolves the library's undefined symbol there
 * before it looks at the library's own dependencies), with libgcc's
 * split-stack initializer, which sets the thread's stack limit: the
 * library's first foreign call then switches to a stack pointer of 0.
 * Defined here, hidden, the library's prologues bind to this stub, which
 * jumps to the process's one runtime (__copystack_morestack, morestack.S)
 * with every register as the prologue left it.
 */
	.text
	.globl	__morestack
	.hidden	__morestack
	.type	__morestack,@function
	.globl	__morestack_non_split
	.hidden	__morestack_non_split
	.type	__morestack_non_split,@function
	.p2align 4
__morestack:
__morestack_non_split:
	.cfi_startproc
	jmp	*__copystack_morestack@GOTPCREL(%rip)
	.cfi_endproc
	.size	__morestack, .-__morestack
	.size	__morestack_non_split, .-__morestack_non_split

	/* The frame check of big frames under the own prologue (morestack.S),
	 * bound the same way. */
	.globl	__copystack_stack_probe
	.hidden	__copystack_stack_probe
	.type	__copystack_stack_probe,@function
	.p2align 4
__copystack_stack_probe:
	.cfi_startproc
	jmp	*__copystack_probe@GOTPCREL(%rip)
	.cfi_endproc
	.size	__copystack_stack_probe, .-__copystack_stack_probe

	.section .note.GNU-split-stack,"",@progbits
	.section .note.GNU-no-split-stack,"",@progbits
	.section .note.GNU-stack,"",@progbits
