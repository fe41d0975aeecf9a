// verify.h: the fault handler of verify mode.
//
// In verify mode old stacks stay mapped inaccessible (stack_alloc.h) and
// every stack has an inaccessible page below it. A fault in either is a
// copystack bug or a guard overrun, and this handler says which, with the
// faulting address and function, instead of a bare SIGSEGV.
#ifndef COPYSTACK_VERIFY_H
#define COPYSTACK_VERIFY_H

namespace copystack_rt {

// Installs the SIGSEGV/SIGBUS handler (once per process; it runs on the
// alternate signal stack of signals.h). No-op outside verify mode.
void prepare_verify_thread();

} // namespace copystack_rt

#endif
