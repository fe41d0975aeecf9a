// signals.h: signal handlers never run on a task stack.
//
// A task stack may have less than a page left, and the kernel pushes 1-3
// KiB of signal frame (more with AVX-512 state) before a handler even
// starts. So, like Go on every M, each thread that runs tasks gets an
// alternate signal stack, and the runtime interposes sigaction() and
// signal() so that every handler a program installs runs on it
// (SA_ONSTACK added), through a trampoline that clears the split-stack
// limit while the handler runs: instrumented handler code then runs in
// place on the alternate stack, never asking to grow a stack it is not on.
#ifndef COPYSTACK_SIGNALS_H
#define COPYSTACK_SIGNALS_H

#include <csignal>

namespace copystack_rt {

// Gives the calling thread an alternate signal stack unless it has one
// already. Idempotent; cheap after the first call on a thread.
void prepare_signal_stack();

// Calls hook(restart) after each handler the trampoline runs, restart
// telling whether the handler was installed with SA_RESTART (the network
// poller ends the waits a signal interrupts, sched/netpoll.h). The hook must
// be async-signal-safe.
void on_handled_signal(void (*hook)(bool restart));

// The C library's sigaction, for the runtime's own handlers (no trampoline).
int system_sigaction(int sig, const struct sigaction *act,
                     struct sigaction *old);

// The runtime takes sig (one whose default action is to ignore it: the
// preemption signal, SIGURG) for handler, installed with SA_SIGINFO,
// SA_ONSTACK and SA_RESTART, every signal blocked while it runs. From
// then on the program's sigaction() and signal() for sig only change what
// forward_signal runs, and report what the program last asked for.
void reserve_signal(int sig, void (*handler)(int, siginfo_t *, void *));

// Runs the handler the program installed for a reserved sig, if any, as
// the kernel would have (on the alternate stack already, through the
// trampoline); nothing for SIG_DFL and SIG_IGN.
void forward_signal(int sig, siginfo_t *info, void *uctx);

} // namespace copystack_rt

#endif
