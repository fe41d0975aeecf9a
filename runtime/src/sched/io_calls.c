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

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <netdb.h>
#include <threads.h>
#include <time.h>

/* glibc's fortify failure ("buffer overflow detected"): the _chk variants
 * check their buffer first, as glibc's do. */
extern void __chk_fail(void) __attribute__((noreturn));

#define EXPORT __attribute__((visibility("default")))

/* libstdc++'s thrower of std::system_error, for the wrappers of its
 * member functions. */
extern void _ZSt20__throw_system_errori(int) __attribute__((noreturn));

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

/* Regular files, fsync, fdatasync, file locks (flock, lockf, fcntl's
 * F_SETLKW and F_OFD_SETLKW), waitpid, waitid and getaddrinfo: what would
 * block runs on an I/O thread while the task parks (io_pool.cc). */
EXPORT ssize_t __copystack_blocking_pread(int fd, void *buf, size_t len,
                                          off_t offset) {
  return run(COPYSTACK_IO_PREAD, fd, buf, 0, 0, 0, (int64_t)len, offset, 0);
}

EXPORT ssize_t __copystack_blocking_pwrite(int fd, const void *buf,
                                           size_t len, off_t offset) {
  return run(COPYSTACK_IO_PWRITE, fd, (void *)buf, 0, 0, 0, (int64_t)len,
             offset, 0);
}

EXPORT ssize_t __copystack_blocking___pread_chk(int fd, void *buf, size_t len,
                                                off_t offset, size_t buflen) {
  if (len > buflen)
    __chk_fail();
  return __copystack_blocking_pread(fd, buf, len, offset);
}

/* What glibc's headers call with -D_FILE_OFFSET_BITS=64, the same on
 * x86-64 (off_t is 64 bits). */
EXPORT ssize_t __copystack_blocking_pread64(int fd, void *buf, size_t len,
                                            off64_t offset) {
  return __copystack_blocking_pread(fd, buf, len, offset);
}

EXPORT ssize_t __copystack_blocking_pwrite64(int fd, const void *buf,
                                             size_t len, off64_t offset) {
  return __copystack_blocking_pwrite(fd, buf, len, offset);
}

EXPORT ssize_t __copystack_blocking___pread64_chk(int fd, void *buf,
                                                  size_t len, off64_t offset,
                                                  size_t buflen) {
  return __copystack_blocking___pread_chk(fd, buf, len, offset, buflen);
}

EXPORT int __copystack_blocking_fsync(int fd) {
  return (int)run(COPYSTACK_IO_FSYNC, fd, 0, 0, 0, 0, 0, 0, 0);
}

EXPORT int __copystack_blocking_fdatasync(int fd) {
  return (int)run(COPYSTACK_IO_FDATASYNC, fd, 0, 0, 0, 0, 0, 0, 0);
}

EXPORT int __copystack_blocking_flock(int fd, int operation) {
  return (int)run(COPYSTACK_IO_FLOCK, fd, 0, 0, 0, 0, operation, 0, 0);
}

EXPORT int __copystack_blocking_lockf(int fd, int cmd, off_t len) {
  return (int)run(COPYSTACK_IO_LOCKF, fd, 0, 0, 0, 0, cmd, len, 0);
}

EXPORT int __copystack_blocking_lockf64(int fd, int cmd, off64_t len) {
  return __copystack_blocking_lockf(fd, cmd, len);
}

/* fcntl(fd, F_SETLKW or F_OFD_SETLKW, lock), which passes/BlockingCalls.cpp
 * rewrites into this; every other fcntl stays the C library's. */
EXPORT int __copystack_blocking_fcntl_lock(int fd, int cmd,
                                           struct flock *lock) {
  return (int)run(COPYSTACK_IO_FCNTL_LOCK, fd, lock, 0, 0, 0, cmd, 0, 0);
}

EXPORT pid_t __copystack_blocking_waitpid(pid_t pid, int *status,
                                          int options) {
  return (pid_t)run(COPYSTACK_IO_WAITPID, -1, status, 0, 0, 0, pid, options,
                    0);
}

EXPORT pid_t __copystack_blocking_wait(int *status) {
  return __copystack_blocking_waitpid(-1, status, 0);
}

EXPORT int __copystack_blocking_waitid(idtype_t idtype, id_t id,
                                       siginfo_t *info, int options) {
  return (int)run(COPYSTACK_IO_WAITID, -1, info, 0, 0, 0, idtype, id, options);
}

EXPORT int __copystack_blocking_getaddrinfo(const char *node,
                                            const char *service,
                                            const struct addrinfo *hints,
                                            struct addrinfo **res) {
  return (int)run(COPYSTACK_IO_GETADDRINFO, -1, (void *)node, (void *)service,
                  (void *)hints, res, 0, 0, 0);
}

/* pthread mutexes and condition variables (pthread_sync.cc): the waits
 * park a task; the rest goes to the runtime's interposers directly. p[3]
 * of a lock or a wait is the program's call site (the wrapper's return
 * address), which ThreadSanitizer's reports show for the lock. */
#define CALLER __builtin_return_address(0)

static int mutex_lock(pthread_mutex_t *m, const struct timespec *abstime,
                      clockid_t clock, void *caller) {
  return (int)run(COPYSTACK_IO_MUTEX_LOCK, -1, m, (void *)abstime, 0, caller,
                  clock, 0, 0);
}

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m,
                     const struct timespec *abstime, clockid_t clock,
                     void *caller) {
  return (int)run(COPYSTACK_IO_COND_WAIT, -1, c, m, (void *)abstime, caller,
                  clock, 0, 0);
}

EXPORT int __copystack_blocking_pthread_mutex_lock(pthread_mutex_t *m) {
  return mutex_lock(m, 0, CLOCK_REALTIME, CALLER);
}

EXPORT int __copystack_blocking_pthread_mutex_timedlock(
    pthread_mutex_t *m, const struct timespec *abstime) {
  return mutex_lock(m, abstime, CLOCK_REALTIME, CALLER);
}

EXPORT int __copystack_blocking_pthread_mutex_clocklock(
    pthread_mutex_t *m, clockid_t clock, const struct timespec *abstime) {
  return mutex_lock(m, abstime, clock, CALLER);
}

/* Clock -1: the condition variable's own. */
EXPORT int __copystack_blocking_pthread_cond_wait(pthread_cond_t *c,
                                                  pthread_mutex_t *m) {
  return cond_wait(c, m, 0, -1, CALLER);
}

EXPORT int __copystack_blocking_pthread_cond_timedwait(
    pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime) {
  return cond_wait(c, m, abstime, -1, CALLER);
}

EXPORT int __copystack_blocking_pthread_cond_clockwait(
    pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
    const struct timespec *abstime) {
  return cond_wait(c, m, abstime, clock, CALLER);
}

/* Read-write locks and barriers (pthread_sync.cc): a task's wait parks.
 * pthread_barrier_destroy waits for the callers still leaving a wait. */
static int rwlock(pthread_rwlock_t *l, const struct timespec *abstime,
                  clockid_t clock, int write, void *caller) {
  return (int)run(COPYSTACK_IO_RWLOCK, -1, l, (void *)abstime, 0, caller,
                  clock, write, 0);
}

EXPORT int __copystack_blocking_pthread_rwlock_rdlock(pthread_rwlock_t *l) {
  return rwlock(l, 0, CLOCK_REALTIME, 0, CALLER);
}

EXPORT int __copystack_blocking_pthread_rwlock_timedrdlock(
    pthread_rwlock_t *l, const struct timespec *abstime) {
  return rwlock(l, abstime, CLOCK_REALTIME, 0, CALLER);
}

EXPORT int __copystack_blocking_pthread_rwlock_clockrdlock(
    pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime) {
  return rwlock(l, abstime, clock, 0, CALLER);
}

EXPORT int __copystack_blocking_pthread_rwlock_wrlock(pthread_rwlock_t *l) {
  return rwlock(l, 0, CLOCK_REALTIME, 1, CALLER);
}

EXPORT int __copystack_blocking_pthread_rwlock_timedwrlock(
    pthread_rwlock_t *l, const struct timespec *abstime) {
  return rwlock(l, abstime, CLOCK_REALTIME, 1, CALLER);
}

EXPORT int __copystack_blocking_pthread_rwlock_clockwrlock(
    pthread_rwlock_t *l, clockid_t clock, const struct timespec *abstime) {
  return rwlock(l, abstime, clock, 1, CALLER);
}

EXPORT int __copystack_blocking_pthread_barrier_wait(pthread_barrier_t *b) {
  return (int)run(COPYSTACK_IO_BARRIER, -1, b, 0, 0, 0, 0, 0, 0);
}

EXPORT int __copystack_blocking_pthread_barrier_destroy(pthread_barrier_t *b) {
  return (int)run(COPYSTACK_IO_BARRIER, -1, b, 0, 0, 0, 1, 0, 0);
}

/* pthread_once, and std::call_once through it (pthread_sync.cc keeps the
 * word): a task that finds another's initializer running parks, and the
 * initializer runs here, in instrumented code, so that it may park itself
 * (read a file, take a lock, sleep). std::call_once passes libstdc++'s
 * __once_proxy, which would call the program's closure from foreign code,
 * where no task can park: the trampoline it would call (its thread-local
 * __once_call, which reads __once_callable) is called directly instead. An
 * initializer that throws leaves the word as it found it, for the next
 * caller to try again, as glibc's does. */
extern void __once_proxy(void);
extern __thread void (*_ZSt11__once_call)(void);
extern __thread void *_ZSt15__once_callable;

static void once_abandoned(pthread_once_t **running) {
  if (*running)
    __copystack_once_end(*running, 0);
}

EXPORT int __copystack_blocking_pthread_once(pthread_once_t *once,
                                             void (*init)(void)) {
  /* std::call_once's words, as its caller set them on this thread: after
   * a wait the task may run on another (a preemption keeps them:
   * preempt.cc). */
  void (*call)(void) = 0;
  void *callable = 0;
  if (init == __once_proxy) {
    call = _ZSt11__once_call;
    callable = _ZSt15__once_callable;
  }
  for (;;) {
    int seen = 0;
    switch (__copystack_once_begin(once, &seen)) {
    case COPYSTACK_ONCE_DONE:
      return 0;
    case COPYSTACK_ONCE_NOT_OURS:
      return __copystack_once_forward(once, init);
    case COPYSTACK_ONCE_RUN: {
      pthread_once_t *running __attribute__((cleanup(once_abandoned))) = once;
      if (call) {
        _ZSt15__once_callable = callable;
        _ZSt11__once_call = call;
        init = call;
      }
      init();
      running = 0;
      __copystack_once_end(once, 1);
      return 0;
    }
    default: /* another caller's initializer runs */
      run(COPYSTACK_IO_FUTEX, -1, once, 0, 0, 0, FUTEX_WAIT_PRIVATE, seen, 0);
    }
  }
}

/* libstdc++'s waits for std::future and std::shared_future (the member
 * functions of std::__atomic_futex_unsigned_base, out of line in
 * libstdc++.so, where their futex system calls would block the worker): a
 * wait on the word while it holds val, until an absolute time on the
 * system clock or the steady clock. False only when the time came. */
static int future_wait(unsigned *addr, unsigned val, int has_timeout,
                       long sec, long nsec, int clock_flag) {
  if (!has_timeout) {
    __copystack_blocking_futex(addr, FUTEX_WAIT, val, 0, 0, 0);
    return 1;
  }
  if (sec < 0)
    return 0;
  struct timespec at = {sec, nsec};
  long r = __copystack_blocking_futex(addr, FUTEX_WAIT_BITSET | clock_flag,
                                      val, &at, 0, FUTEX_BITSET_MATCH_ANY);
  return !(r == -1 && errno == ETIMEDOUT);
}

EXPORT _Bool
__copystack_blocking__ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_untilEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE(
    void *self, unsigned *addr, unsigned val, _Bool has_timeout, long sec,
    long nsec) {
  (void)self;
  return future_wait(addr, val, has_timeout, sec, nsec, FUTEX_CLOCK_REALTIME);
}

EXPORT _Bool
__copystack_blocking__ZNSt28__atomic_futex_unsigned_base26_M_futex_wait_until_steadyEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE(
    void *self, unsigned *addr, unsigned val, _Bool has_timeout, long sec,
    long nsec) {
  (void)self;
  return future_wait(addr, val, has_timeout, sec, nsec, 0);
}

/* pthread_join, C11's thrd_join and std::thread::join (out of line in
 * libstdc++): a task polls the thread while it parks (pthread_sync.cc). */
EXPORT int __copystack_blocking_pthread_join(pthread_t t, void **result) {
  return (int)run(COPYSTACK_IO_JOIN, -1, (void *)t, result, 0, 0, 0, 0, 0);
}

/* The timed joins: the same polls, until the deadline (ETIMEDOUT). */
EXPORT int __copystack_blocking_pthread_clockjoin_np(
    pthread_t t, void **result, clockid_t clock,
    const struct timespec *abstime) {
  return (int)run(COPYSTACK_IO_JOIN, -1, (void *)t, result, (void *)abstime,
                  0, clock, 0, 0);
}

EXPORT int __copystack_blocking_pthread_timedjoin_np(
    pthread_t t, void **result, const struct timespec *abstime) {
  return __copystack_blocking_pthread_clockjoin_np(t, result, CLOCK_REALTIME,
                                                   abstime);
}

EXPORT int __copystack_blocking_thrd_join(pthread_t t, int *result) {
  void *r = 0;
  if (__copystack_blocking_pthread_join(t, &r))
    return 2; /* thrd_error */
  if (result)
    *result = (int)(intptr_t)r;
  return 0; /* thrd_success */
}

EXPORT void __copystack_blocking__ZNSt6thread4joinEv(pthread_t *id) {
  int r = EINVAL;
  if (*id)
    r = __copystack_blocking_pthread_join(*id, 0);
  if (r)
    _ZSt20__throw_system_errori(r);
  *id = 0;
}

/* C11's mutexes, condition variables and once (glibc's are its pthread
 * objects, which it locks and waits on through its own internal calls,
 * past every interposer): the pthread wrappers above, with C11's results.
 * The threads' side is pthread_sync.cc's. */
EXPORT int __copystack_blocking_mtx_lock(mtx_t *m) {
  return copystack_c11_result(
      mutex_lock((pthread_mutex_t *)m, 0, CLOCK_REALTIME, CALLER));
}

EXPORT int __copystack_blocking_mtx_timedlock(mtx_t *m,
                                              const struct timespec *abstime) {
  return copystack_c11_result(
      mutex_lock((pthread_mutex_t *)m, abstime, CLOCK_REALTIME, CALLER));
}

EXPORT int __copystack_blocking_cnd_wait(cnd_t *c, mtx_t *m) {
  return copystack_c11_result(
      cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m, 0, -1, CALLER));
}

EXPORT int __copystack_blocking_cnd_timedwait(cnd_t *c, mtx_t *m,
                                              const struct timespec *abstime) {
  return copystack_c11_result(cond_wait(
      (pthread_cond_t *)c, (pthread_mutex_t *)m, abstime, -1, CALLER));
}

EXPORT void __copystack_blocking_call_once(once_flag *once, void (*init)(void)) {
  __copystack_blocking_pthread_once((pthread_once_t *)once, init);
}

/* sched_yield: a task lets the tasks waiting to run go first
 * (copystack_yield), as a thread lets the other threads; with none
 * waiting, or outside a task, it is the OS's. Spin-then-yield loops
 * (libstdc++'s atomic waits spin so before they wait) then let the task
 * they wait for run on their worker. */
EXPORT int __copystack_blocking_sched_yield(void) {
  char here;
  if (__copystack_yield_parks(&here)) {
    copystack_yield();
    return 0;
  }
  return __copystack_os_yield();
}

/* void std::condition_variable::wait(std::unique_lock<std::mutex> &), out
 * of line in libstdc++: the condition variable is its pthread_cond_t, the
 * unique_lock starts with its mutex's address. libstdc++ throws
 * std::system_error for an error, which cannot happen here with a lock
 * the caller owns; so does this, through libstdc++'s own thrower. */
EXPORT void __copystack_blocking__ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE(
    pthread_cond_t *c, pthread_mutex_t **lock) {
  int r = cond_wait(c, *lock, 0, -1, CALLER);
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
