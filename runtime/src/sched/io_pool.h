// io_pool.h: the blocking calls no poller can wait for, run on a small pool
// of I/O threads while the task parks (io_pool.cc).
#ifndef COPYSTACK_IO_POOL_H
#define COPYSTACK_IO_POOL_H

#include "sched/netpoll.h"

#include "copystack/copystack.h"

namespace copystack_rt {

// A task's call on a regular file (read, write, readv, writev, pread,
// pwrite), fsync, fdatasync, flock, waitpid or getaddrinfo: done in place
// when it cannot block (a read of cached pages, a non-blocking flock), on
// an I/O thread otherwise, with the task parked. The io.cc protocol:
// COPYSTACK_MUST_PARK with the wait in c->wait, or 1 with c->result.
int pool_call(copystack_io_call *c, IoWait *w, WaitEnd end);

// Whether the call on a regular file goes to pool_call (not too large to
// copy through the I/O thread's buffer).
bool pool_takes_file_call(const copystack_io_call *c);

// A call io.cc would make in place, blocking the thread, while tasks
// preempted on this thread wait for it (preempt.h preempted_waiting: they
// resume only here, and the call may wait for one of them): an I/O thread
// makes it instead, on the call's own arguments and buffers in the task's
// stack, which stays where it is until the task runs again
// (Task::stack_held); the task parks meanwhile. False if the call is not
// one an I/O thread may make for it (a signal mask for the wait, a lock
// of the thread's own) or no I/O thread can start: the caller makes it in
// place. pool_call collects the result when the task runs again.
bool pool_may_hop(const copystack_io_call *c);
int pool_hop(copystack_io_call *c);

// The C library's blocking call, in place (io.cc).
int64_t io_blocking_call(copystack_io_call *c);

// fork() (sched/fork.cc): the pool's lock around it; in the child, whose
// I/O threads are gone, the calls that were running on one fail with
// EINTR (it may have done part of the call: the parent's thread did), and
// the queued ones get threads of their own again.
void io_pool_fork_lock();
void io_pool_fork_unlock();
void io_pool_after_fork_child();

// The I/O threads the pool has started, for the task dump.
int io_pool_threads();

} // namespace copystack_rt

#endif
