// split_stack_notes.h: included once by every C++ file of the runtime.
//
// gold and lld rewrite the prologue of split-stack code that calls into an
// object without a .note.GNU-split-stack section (to make it ask for a big
// stack before calling code that cannot grow one). The runtime is called
// from instrumented code but never runs on a task stack, so its objects say
// they are split-stack; and .note.GNU-no-split-stack tells the linkers not
// to look for split-stack prologues in them.
#ifndef COPYSTACK_SPLIT_STACK_NOTES_H
#define COPYSTACK_SPLIT_STACK_NOTES_H

// x86-64 only: the linkers of other targets know no split-stack code (gold
// refuses an AArch64 object with the note: "linker does not include stack
// split support").
#if defined(__x86_64__)
__asm__(".pushsection .note.GNU-split-stack,\"\",@progbits\n.popsection\n"
        ".pushsection .note.GNU-no-split-stack,\"\",@progbits\n.popsection\n");
#endif

#endif
