// pthread_sync.h: pthread mutexes and condition variables that park tasks
// (pthread_sync.cc), for io.cc, which runs the calls instrumented code
// makes (COPYSTACK_IO_MUTEX_LOCK, COPYSTACK_IO_COND_WAIT).
#ifndef COPYSTACK_PTHREAD_SYNC_H
#define COPYSTACK_PTHREAD_SYNC_H

#include "sched/netpoll.h"

#include "copystack/copystack.h"

namespace copystack_rt {

// The call in a task that may park: COPYSTACK_MUST_PARK with a futex wait
// in c->wait (io.cc parks the task and calls again with how it ended), or
// 1 with the result in c->result. Frees w once the call is over.
int pthread_sync_call(copystack_io_call *c, IoWait *w, WaitEnd end);

// The same call where nothing can park (a plain thread, a thread's own
// task, foreign code): it blocks the thread. Returns the call's result.
int64_t pthread_sync_blocking(copystack_io_call *c);

// The futex system call itself, past the runtime's interposer of syscall()
// (io.cc).
int64_t raw_futex(void *uaddr, int64_t op, int64_t val, void *ts,
                  void *uaddr2, int64_t val3);

// Whether the runtime takes the mutexes over: its interposers are the
// program's bindings of every name it interposes, the MUTEX group's among
// them (platform/libc_in_place.cc: then that group runs in place).
bool pthread_sync_owns_mutexes();

// A thread the runtime started is about to end: tasks joining a thread
// look again (COPYSTACK_IO_JOIN).
void thread_ended();

// fork(): the child's thread has a thread id of its own.
void pthread_sync_after_fork_child();

} // namespace copystack_rt

#endif
