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
