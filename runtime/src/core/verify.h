// verify.h: the fault handler of verify mode.
//
// In verify mode old stacks stay mapped inaccessible (stack_alloc.h) and
// every stack has an inaccessible page below it. A fault in either is a
// copystack bug or a guard overrun, and this handler says which, with the
// faulting address and function, instead of a bare SIGSEGV.
#ifndef COPYSTACK_CORE_VERIFY_H
#define COPYSTACK_CORE_VERIFY_H

namespace copystack_rt {

// Verify mode fills dead stack with this byte (the part of a fresh stack
// below the copy, and what a returned frame left below the stack pointer):
// 0xdbdb... is not a canonical user-space address, so it never looks like a
// pointer into a stack.
constexpr int kPoison = 0xdb;

// Installs the SIGSEGV/SIGBUS handler (once per process; it runs on the
// alternate signal stack of signals.h). No-op outside verify mode.
void prepare_verify_thread();

} // namespace copystack_rt

#endif
