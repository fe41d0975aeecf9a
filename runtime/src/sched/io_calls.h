/*
 * io_calls.h: the blocking C library calls a task makes through the runtime,
 * shared by the instrumented wrappers (io_calls.c, compiled with the plugin)
 * and the runtime half that carries them out (io.cc). C and C++.
 *
 * Each wrapper puts its arguments in a copystack_io_call (copystack.h) as
 * the table below says, and runs it with __copystack_io_run: p[] are the
 * pointer arguments, n[] the integer ones, in the order of the call's
 * parameters. COPYSTACK_IO_FD_WAIT (copystack.h) is 1; these follow it.
 */
#ifndef COPYSTACK_SCHED_IO_CALLS_H
#define COPYSTACK_SCHED_IO_CALLS_H

enum copystack_io_kind {
  /*                         fd  p[]                       n[]           */
  COPYSTACK_IO_READ = 2,  /* fd  buf                       len           */
  COPYSTACK_IO_WRITE,     /* fd  buf                       len           */
  COPYSTACK_IO_READV,     /* fd  iov                       iovcnt        */
  COPYSTACK_IO_WRITEV,    /* fd  iov                       iovcnt        */
  COPYSTACK_IO_RECV,      /* fd  buf                       len flags     */
  COPYSTACK_IO_RECVFROM,  /* fd  buf addr addrlen          len flags     */
  COPYSTACK_IO_RECVMSG,   /* fd  msg                       flags         */
  COPYSTACK_IO_SEND,      /* fd  buf                       len flags     */
  COPYSTACK_IO_SENDTO,    /* fd  buf addr                  len flags
                                                           addrlen       */
  COPYSTACK_IO_SENDMSG,   /* fd  msg                       flags         */
  COPYSTACK_IO_ACCEPT4,   /* fd  addr addrlen              flags         */
  COPYSTACK_IO_CONNECT,   /* fd  addr                      addrlen       */
  COPYSTACK_IO_POLL,      /* -   fds                       nfds timeout  */
  COPYSTACK_IO_PPOLL,     /* -   fds timespec sigmask      nfds          */
  COPYSTACK_IO_SELECT,    /* -   readfds writefds
                                 exceptfds timeval         nfds          */
  COPYSTACK_IO_SLEEP,     /* -                             seconds       */
  COPYSTACK_IO_USLEEP,    /* -                             microseconds  */
  COPYSTACK_IO_NANOSLEEP, /* -   request remain                          */
  COPYSTACK_IO_CLOCK_NANOSLEEP,
                          /* -   request remain            clock flags   */
  COPYSTACK_IO_FUTEX,     /* -   uaddr timeout uaddr2      op val val3   */
  COPYSTACK_IO_MUTEX_LOCK,/* -   mutex abstime - caller    clock         */
  COPYSTACK_IO_COND_WAIT, /* -   cond mutex abstime caller clock (-1: the
                                                           cond's own)   */
  COPYSTACK_IO_SEM_WAIT,  /* -   sem abstime               clock         */
  COPYSTACK_IO_RWLOCK,    /* -   rwlock abstime - caller   clock write   */
  COPYSTACK_IO_BARRIER,   /* -   barrier                   destroy       */
  COPYSTACK_IO_JOIN,      /* -   thread result abstime     clock         */
  COPYSTACK_IO_PREAD,     /* fd  buf                       len offset    */
  COPYSTACK_IO_PWRITE,    /* fd  buf                       len offset    */
  COPYSTACK_IO_FSYNC,     /* fd                                          */
  COPYSTACK_IO_FDATASYNC, /* fd                                          */
  COPYSTACK_IO_FLOCK,     /* fd                            operation     */
  COPYSTACK_IO_LOCKF,     /* fd                            cmd len       */
  COPYSTACK_IO_FCNTL_LOCK,/* fd  struct flock              cmd           */
  COPYSTACK_IO_WAITPID,   /* -   status                    pid options   */
  COPYSTACK_IO_WAITID,    /* -   siginfo                   idtype id
                                                           options       */
  COPYSTACK_IO_GETADDRINFO,/* -  node service hints res                  */
  COPYSTACK_IO_KINDS
};

/* pthread_once's word (pthread_sync.cc), for io_calls.c's wrapper. */
#include <errno.h>
#include <pthread.h>
#include <threads.h>
#ifdef __cplusplus
extern "C" {
#endif
enum copystack_once_step {
  COPYSTACK_ONCE_DONE,     /* the initializer has run */
  COPYSTACK_ONCE_RUN,      /* the caller runs it now, then ends it */
  COPYSTACK_ONCE_WAIT,     /* another runs it: wait for *seen to change */
  COPYSTACK_ONCE_NOT_OURS  /* the C library's (a sanitizer's) pthread_once */
};
int __copystack_once_begin(pthread_once_t *once, int *seen);
/* done: 1 after the initializer returned, 0 when it threw. */
void __copystack_once_end(pthread_once_t *once, int done);
int __copystack_once_forward(pthread_once_t *once, void (*init)(void));
/* A pthread call's result as C11's <threads.h> reports it. */
static inline int copystack_c11_result(int r) {
  switch (r) {
  case 0:
    return thrd_success;
  case EBUSY:
    return thrd_busy;
  case ETIMEDOUT:
    return thrd_timedout;
  case ENOMEM:
    return thrd_nomem;
  default:
    return thrd_error;
  }
}
/* sched_yield's (scheduler.cc). */
int __copystack_yield_parks(const void *here);
int __copystack_os_yield(void);
#ifdef __cplusplus
}
#endif

#endif
