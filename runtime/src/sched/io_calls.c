/*
 * io_calls.c: the wrappers instrumented code calls instead of the C
 * library's blocking calls (passes/BlockingCalls.cpp rewrites the calls;
 * abi.h's COPYSTACK_BLOCKING_CALLS is the list, whose pthread_exit is in
 * thread_tasks.cc). The one file of the runtime
 * compiled with the plugin: a task parks from its own stack, so the loop
 * that parks must be instrumented code (copystack.h, __copystack_io_run).
 * Everything else happens in io.cc, on the thread's stack, through the
 * foreign call to __copystack_io_begin: the attempt that does not block,
 * the wait, and the plain blocking call wherever parking does not apply
 * (outside tasks, on regular files, with COPYSTACK_NETPOLL=0).
 *
 * Each wrapper has the C library function's signature and packs its
 * arguments as io_calls.h's table says.
 */
#define _GNU_SOURCE
#include "sched/io_calls.h"

#include "copystack/copystack.h"

#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

/* glibc's fortify failure ("buffer overflow detected"): the _chk variants
 * check their buffer first, as glibc's do. */
extern void __chk_fail(void) __attribute__((noreturn));

#define EXPORT __attribute__((visibility("default")))

static int64_t run(int kind, int fd, void *p0, void *p1, void *p2, void *p3,
                   int64_t n0, int64_t n1, int64_t n2) {
  copystack_io_call call = {kind, fd, {p0, p1, p2, p3}, {n0, n1, n2}, 0, 0};
  return __copystack_io_run(&call);
}

EXPORT ssize_t __copystack_blocking_read(int fd, void *buf, size_t len) {
  return run(COPYSTACK_IO_READ, fd, buf, 0, 0, 0, (int64_t)len, 0, 0);
}

EXPORT ssize_t __copystack_blocking___read_chk(int fd, void *buf, size_t len,
                                               size_t buflen) {
  if (len > buflen)
    __chk_fail();
  return __copystack_blocking_read(fd, buf, len);
}

EXPORT ssize_t __copystack_blocking_write(int fd, const void *buf, size_t len) {
  return run(COPYSTACK_IO_WRITE, fd, (void *)buf, 0, 0, 0, (int64_t)len, 0, 0);
}

EXPORT ssize_t __copystack_blocking_readv(int fd, const struct iovec *iov,
                                          int iovcnt) {
  return run(COPYSTACK_IO_READV, fd, (void *)iov, 0, 0, 0, iovcnt, 0, 0);
}

EXPORT ssize_t __copystack_blocking_writev(int fd, const struct iovec *iov,
                                           int iovcnt) {
  return run(COPYSTACK_IO_WRITEV, fd, (void *)iov, 0, 0, 0, iovcnt, 0, 0);
}

EXPORT ssize_t __copystack_blocking_recv(int fd, void *buf, size_t len,
                                         int flags) {
  return run(COPYSTACK_IO_RECV, fd, buf, 0, 0, 0, (int64_t)len, flags, 0);
}

EXPORT ssize_t __copystack_blocking___recv_chk(int fd, void *buf, size_t len,
                                               size_t buflen, int flags) {
  if (len > buflen)
    __chk_fail();
  return __copystack_blocking_recv(fd, buf, len, flags);
}

EXPORT ssize_t __copystack_blocking_recvfrom(int fd, void *buf, size_t len,
                                             int flags, struct sockaddr *addr,
                                             socklen_t *addrlen) {
  return run(COPYSTACK_IO_RECVFROM, fd, buf, addr, addrlen, 0, (int64_t)len,
             flags, 0);
}

EXPORT ssize_t __copystack_blocking___recvfrom_chk(int fd, void *buf,
                                                   size_t len, size_t buflen,
                                                   int flags,
                                                   struct sockaddr *addr,
                                                   socklen_t *addrlen) {
  if (len > buflen)
    __chk_fail();
  return __copystack_blocking_recvfrom(fd, buf, len, flags, addr, addrlen);
}

EXPORT ssize_t __copystack_blocking_recvmsg(int fd, struct msghdr *msg,
                                            int flags) {
  return run(COPYSTACK_IO_RECVMSG, fd, msg, 0, 0, 0, flags, 0, 0);
}

EXPORT ssize_t __copystack_blocking_send(int fd, const void *buf, size_t len,
                                         int flags) {
  return run(COPYSTACK_IO_SEND, fd, (void *)buf, 0, 0, 0, (int64_t)len, flags,
             0);
}

EXPORT ssize_t __copystack_blocking_sendto(int fd, const void *buf, size_t len,
                                           int flags,
                                           const struct sockaddr *addr,
                                           socklen_t addrlen) {
  return run(COPYSTACK_IO_SENDTO, fd, (void *)buf, (void *)addr, 0, 0,
             (int64_t)len, flags, addrlen);
}

EXPORT ssize_t __copystack_blocking_sendmsg(int fd, const struct msghdr *msg,
                                            int flags) {
  return run(COPYSTACK_IO_SENDMSG, fd, (void *)msg, 0, 0, 0, flags, 0, 0);
}

EXPORT int __copystack_blocking_accept4(int fd, struct sockaddr *addr,
                                        socklen_t *addrlen, int flags) {
  return (int)run(COPYSTACK_IO_ACCEPT4, fd, addr, addrlen, 0, 0, flags, 0, 0);
}

EXPORT int __copystack_blocking_accept(int fd, struct sockaddr *addr,
                                       socklen_t *addrlen) {
  return __copystack_blocking_accept4(fd, addr, addrlen, 0);
}

EXPORT int __copystack_blocking_connect(int fd, const struct sockaddr *addr,
                                        socklen_t addrlen) {
  return (int)run(COPYSTACK_IO_CONNECT, fd, (void *)addr, 0, 0, 0, addrlen, 0,
                  0);
}

EXPORT int __copystack_blocking_poll(struct pollfd *fds, nfds_t nfds,
                                     int timeout) {
  return (int)run(COPYSTACK_IO_POLL, -1, fds, 0, 0, 0, (int64_t)nfds, timeout,
                  0);
}

EXPORT int __copystack_blocking___poll_chk(struct pollfd *fds, nfds_t nfds,
                                           int timeout, size_t fdslen) {
  if (fdslen / sizeof *fds < nfds)
    __chk_fail();
  return __copystack_blocking_poll(fds, nfds, timeout);
}

EXPORT int __copystack_blocking_ppoll(struct pollfd *fds, nfds_t nfds,
                                      const struct timespec *timeout,
                                      const sigset_t *sigmask) {
  return (int)run(COPYSTACK_IO_PPOLL, -1, fds, (void *)timeout, (void *)sigmask,
                  0, (int64_t)nfds, 0, 0);
}

EXPORT int __copystack_blocking_select(int nfds, fd_set *readfds,
                                       fd_set *writefds, fd_set *exceptfds,
                                       struct timeval *timeout) {
  return (int)run(COPYSTACK_IO_SELECT, -1, readfds, writefds, exceptfds,
                  timeout, nfds, 0, 0);
}

EXPORT unsigned int __copystack_blocking_sleep(unsigned int seconds) {
  return (unsigned int)run(COPYSTACK_IO_SLEEP, -1, 0, 0, 0, 0, seconds, 0, 0);
}

EXPORT int __copystack_blocking_usleep(useconds_t usec) {
  return (int)run(COPYSTACK_IO_USLEEP, -1, 0, 0, 0, 0, usec, 0, 0);
}

EXPORT int __copystack_blocking_nanosleep(const struct timespec *request,
                                          struct timespec *remain) {
  return (int)run(COPYSTACK_IO_NANOSLEEP, -1, (void *)request, remain, 0, 0, 0,
                  0, 0);
}

EXPORT int __copystack_blocking_clock_nanosleep(clockid_t clock, int flags,
                                                const struct timespec *request,
                                                struct timespec *remain) {
  return (int)run(COPYSTACK_IO_CLOCK_NANOSLEEP, -1, (void *)request, remain, 0,
                  0, clock, flags, 0);
}

/* syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3), which
 * passes/BlockingCalls.cpp rewrites into this (io.cc, futex_call). */
EXPORT long __copystack_blocking_futex(uint32_t *uaddr, int op, uint32_t val,
                                       const struct timespec *timeout,
                                       uint32_t *uaddr2, uint32_t val3) {
  return (long)run(COPYSTACK_IO_FUTEX, -1, uaddr, (void *)timeout, uaddr2, 0,
                   op, val, val3);
}

/* pthread mutexes and condition variables (pthread_sync.cc): the waits
 * park a task; the rest goes to the runtime's interposers directly. */
EXPORT int __copystack_blocking_pthread_mutex_lock(pthread_mutex_t *m) {
  return (int)run(COPYSTACK_IO_MUTEX_LOCK, -1, m, 0, 0, 0, CLOCK_REALTIME, 0,
                  0);
}

EXPORT int __copystack_blocking_pthread_mutex_timedlock(
    pthread_mutex_t *m, const struct timespec *abstime) {
  return (int)run(COPYSTACK_IO_MUTEX_LOCK, -1, m, (void *)abstime, 0, 0,
                  CLOCK_REALTIME, 0, 0);
}

EXPORT int __copystack_blocking_pthread_mutex_clocklock(
    pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime) {
  return (int)run(COPYSTACK_IO_MUTEX_LOCK, -1, m, (void *)abstime, 0, 0, clock,
                  0, 0);
}

EXPORT int __copystack_blocking_pthread_cond_wait(pthread_cond_t *c,
                                                  pthread_mutex_t *m) {
  return (int)run(COPYSTACK_IO_COND_WAIT, -1, c, m, 0, 0, -1, 0, 0);
}

EXPORT int __copystack_blocking_pthread_cond_timedwait(
    pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime) {
  return (int)run(COPYSTACK_IO_COND_WAIT, -1, c, m, (void *)abstime, 0, -1, 0,
                  0);
}

EXPORT int __copystack_blocking_pthread_cond_clockwait(
    pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
    const struct timespec *abstime) {
  return (int)run(COPYSTACK_IO_COND_WAIT, -1, c, m, (void *)abstime, 0, clock,
                  0, 0);
}

/* void std::condition_variable::wait(std::unique_lock<std::mutex> &), out
 * of line in libstdc++: the condition variable is its pthread_cond_t, the
 * unique_lock starts with its mutex's address. libstdc++ throws
 * std::system_error for an error, which cannot happen here with a lock
 * the caller owns; so does this, through libstdc++'s own thrower. */
extern void _ZSt20__throw_system_errori(int) __attribute__((noreturn));

EXPORT void __copystack_blocking__ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE(
    pthread_cond_t *c, pthread_mutex_t **lock) {
  int r = __copystack_blocking_pthread_cond_wait(c, *lock);
  if (r)
    _ZSt20__throw_system_errori(r);
}

/* POSIX semaphores (pthread_sync.cc): a task's wait parks; 0, or -1 with
 * errno, as the C library's. sem_timedwait's timeout is on the system
 * clock. */
EXPORT int __copystack_blocking_sem_wait(sem_t *s) {
  return (int)run(COPYSTACK_IO_SEM_WAIT, -1, s, 0, 0, 0, CLOCK_REALTIME, 0, 0);
}

EXPORT int __copystack_blocking_sem_timedwait(sem_t *s,
                                              const struct timespec *abstime) {
  return (int)run(COPYSTACK_IO_SEM_WAIT, -1, s, (void *)abstime, 0, 0,
                  CLOCK_REALTIME, 0, 0);
}

EXPORT int __copystack_blocking_sem_clockwait(sem_t *s, clockid_t clock,
                                              const struct timespec *abstime) {
  return (int)run(COPYSTACK_IO_SEM_WAIT, -1, s, (void *)abstime, 0, 0, clock, 0,
                  0);
}
