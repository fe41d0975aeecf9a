// io.cc: blocking C library calls made from tasks (io_calls.h), carried
// out on the thread's stack without blocking it; and the interposers that
// keep the poller's knowledge of descriptors current.
//
// __copystack_io_begin makes the call without blocking. If it would block
// and the call is one that parks (the table below), it describes the wait
// (netpoll.h) and returns COPYSTACK_MUST_PARK; the instrumented wrapper
// parks and calls again, and the call continues where it stopped: a write
// keeps the bytes it wrote, a poll its deadline. Everything else runs the
// C library's blocking call in place, as a foreign call would: outside
// tasks, in tasks bound to a thread (copystack_run, thread start routines:
// the thread is theirs), on regular files, terminals and other descriptors
// the poller does not drive, and with COPYSTACK_NETPOLL=0.
//
// How each call keeps the semantics of its blocking self:
//
//   sockets    the attempt passes MSG_DONTWAIT (read and write become recv
//              and send, readv and writev recvmsg and sendmsg); the
//              descriptor's own flags are never touched
//   pipes      preadv2 and pwritev2 with RWF_NOWAIT, where the kernel
//              supports it on pipes (probed once); otherwise pipes block
//   writes     a blocking write writes everything: the call goes on after
//              each park until it has, and returns what it wrote when a
//              timeout, a signal or an error stops it after some bytes
//   accept     poll, then accept (accept has no per-call non-blocking
//              flag); one task at a time per listening socket, and a
//              success lets the next waiter look again
//   connect    the socket is non-blocking during the connect system call
//              only; the task then waits until it is writable and reads
//              SO_ERROR. SO_SNDTIMEO ends the wait with EINPROGRESS, as
//              Linux does
//   O_NONBLOCK a descriptor the program made non-blocking (or MSG_DONTWAIT
//              in the call's flags) returns EAGAIN as before: read with
//              F_GETFL once, and again after any F_SETFL or FIONBIO
//   timeouts   SO_RCVTIMEO and SO_SNDTIMEO end the wait with EAGAIN (read
//              once, and again after any setsockopt of them); poll's,
//              select's and the sleeps' own timeouts hold
//   EINTR      a handler that runs while a task waits ends the wait with
//              EINTR where it would end a thread's blocking call (signal(7)):
//              poll, select and sleeps always; socket calls with a timeout
//              set always; other reads, writes, accept and connect only
//              when the handler lacks SA_RESTART. Every waiting task it
//              applies to sees it, not one chosen thread
//   close      closing a descriptor (close, dup2 and dup3 over it, fclose,
//              close_range) ends the waits on it with EBADF, as Go's Close
//              ends pending reads with net.ErrClosed
//
// Deadlines (copystack_fd_set_deadline) apply to reads, writes, accept,
// connect and copystack_fd_wait; they end a wait with ETIMEDOUT.
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/interpose.h"
#include "platform/sanitizers.h"
#include "platform/split_stack_notes.h"
#include "raw_syscall.h"
#include "platform/stats.h"
#include "platform/thread.h"
#include "sched/io_calls.h"
#include "sched/netpoll.h"
#include "sched/io_pool.h"
#include "sched/preempt.h"
#include "sched/pthread_sync.h"
#include "sched/task.h"

#include "copystack/copystack.h"

#include <algorithm>
#include <alloca.h>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <mutex>
#include <poll.h>
#include <signal.h>
#include <linux/futex.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <netdb.h>
#include <time.h>
#include <unistd.h>

namespace copystack_rt {

namespace {

// ---- the C library's own functions, behind the interposers
// --------------------

#ifndef COPYSTACK_STATIC_LINK
template <typename Fn> Fn next_definition(const char *name) {
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
  if (!fn)
    fatal("%s: the C library's definition was not found", name);
  return fn;
}
#endif

} // namespace
} // namespace copystack_rt

// A static executable's: behind -Wl,--wrap= (platform/interpose.h).
CS_DECLARE_REAL(close, ::close)
CS_DECLARE_REAL(dup2, ::dup2)
CS_DECLARE_REAL(dup3, ::dup3)
CS_DECLARE_REAL(fclose, ::fclose)
CS_DECLARE_REAL(pclose, ::pclose)
CS_DECLARE_REAL(close_range, ::close_range)
CS_DECLARE_REAL(closefrom, ::closefrom)
CS_DECLARE_REAL(fcntl64, ::fcntl64)
CS_DECLARE_REAL(ioctl, ::ioctl)
CS_DECLARE_REAL(setsockopt, ::setsockopt)

namespace copystack_rt {
namespace {

// The C library's own definition of an interposed function (interpose.h).
#ifdef COPYSTACK_STATIC_LINK
#define CS_NEXT(type, name) static_cast<type>(CS_REAL_OF(name))
#else
#define CS_NEXT(type, name) next_definition<type>(#name)
#endif

using FcntlFn = int (*)(int, int, ...);
FcntlFn real_fcntl() {
  static FcntlFn fn = CS_NEXT(FcntlFn, fcntl64);
  return fn;
}



// Bumped by every F_SETFL and FIONBIO, and by every setsockopt of a
// timeout, in the process: a cached O_NONBLOCK or timeout read before is
// read again (a duplicate descriptor shares its flags with the original).
std::atomic<uint32_t> g_flags_epoch{1};
std::atomic<uint32_t> g_timeo_epoch{1};

// ---- what the runtime knows of a descriptor
// -----------------------------------

enum FdKind : uint8_t {
  kUnknown = 0,
  kSocket = 1,
  kPipe = 2,  // pipes and FIFOs, when RWF_NOWAIT works on them
  kOther = 3, // everything else: the blocking call
  kFile = 4,  // regular files: the I/O threads (io_pool.h)
};

// Whether this kernel honours RWF_NOWAIT on pipes: a read of an empty pipe
// returns EAGAIN instead of blocking (or of EOPNOTSUPP on kernels without).
bool pipes_nowait() {
  static const bool ok = [] {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
      return false;
    char c;
    iovec iov = {&c, 1};
    bool works = preadv2(p[0], &iov, 1, -1, RWF_NOWAIT) < 0 && errno == EAGAIN;
    ::close(p[0]);
    ::close(p[1]);
    return works;
  }();
  return ok;
}

uint8_t kind_of(PollDesc *pd, int fd) {
  uint8_t k = pd->kind.load(std::memory_order_relaxed);
  if (k)
    return k;
  struct stat st;
  if (fstat(fd, &st) != 0)
    return kOther; // the blocking call reports EBADF
  if (S_ISSOCK(st.st_mode))
    k = kSocket;
  else if (S_ISFIFO(st.st_mode) && pipes_nowait())
    k = kPipe;
  else if (S_ISREG(st.st_mode))
    k = kFile;
  else
    k = kOther;
  pd->kind.store(k, std::memory_order_relaxed);
  return k;
}

// O_NONBLOCK, cached (pd locked).
bool user_nonblocking(PollDesc *pd, int fd) {
  uint32_t epoch = g_flags_epoch.load();
  if (!pd->nonblock || pd->flags_epoch != epoch) {
    int fl = real_fcntl()(fd, F_GETFL);
    pd->nonblock = fl >= 0 && (fl & O_NONBLOCK) ? 2 : 1;
    pd->flags_epoch = epoch;
  }
  return pd->nonblock == 2;
}

uint64_t timeval_ns(const timeval &tv) {
  return uint64_t(tv.tv_sec) * 1000000000u + uint64_t(tv.tv_usec) * 1000u;
}

// SO_RCVTIMEO and SO_SNDTIMEO, cached (pd locked); 0: none.
void read_timeouts(PollDesc *pd, int fd) {
  uint32_t epoch = g_timeo_epoch.load();
  if (pd->timeo_known && pd->timeo_epoch == epoch)
    return;
  timeval tv{};
  socklen_t len = sizeof tv;
  pd->rcvtimeo = getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) == 0
                     ? timeval_ns(tv)
                     : 0;
  tv = timeval{};
  len = sizeof tv;
  pd->sndtimeo = getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &len) == 0
                     ? timeval_ns(tv)
                     : 0;
  pd->timeo_known = true;
  pd->timeo_epoch = epoch;
}

// ---- results
// ---------------------------------------------------------------------

// The call returns result (errno as the caller left it), or fails.
constexpr auto finish = finish_call; // netpoll.h
constexpr auto fail = fail_call;

// The C library's blocking call, in place.
int64_t blocking_call(copystack_io_call *c) {
  int fd = c->fd;
  void *const *p = c->p;
  const int64_t *n = c->n;
  switch (c->kind) {
  case COPYSTACK_IO_FD_WAIT: {
    pollfd pfd = {fd, static_cast<short>(n[0]), 0};
    int timeout = -1;
    if (n[1]) {
      uint64_t now = now_ns(), d = static_cast<uint64_t>(n[1]);
      timeout = d <= now ? 0 : static_cast<int>((d - now + 999999) / 1000000);
    }
    int r = poll(&pfd, 1, timeout);
    return r > 0 ? pfd.revents : r;
  }
  case COPYSTACK_IO_READ:
    return read(fd, p[0], n[0]);
  case COPYSTACK_IO_WRITE:
    return write(fd, p[0], n[0]);
  case COPYSTACK_IO_READV:
    return readv(fd, static_cast<iovec *>(p[0]), static_cast<int>(n[0]));
  case COPYSTACK_IO_WRITEV:
    return writev(fd, static_cast<iovec *>(p[0]), static_cast<int>(n[0]));
  case COPYSTACK_IO_RECV:
    return recv(fd, p[0], n[0], static_cast<int>(n[1]));
  case COPYSTACK_IO_RECVFROM:
    return recvfrom(fd, p[0], n[0], static_cast<int>(n[1]),
                    static_cast<sockaddr *>(p[1]),
                    static_cast<socklen_t *>(p[2]));
  case COPYSTACK_IO_RECVMSG:
    return recvmsg(fd, static_cast<msghdr *>(p[0]), static_cast<int>(n[0]));
  case COPYSTACK_IO_SEND:
    return send(fd, p[0], n[0], static_cast<int>(n[1]));
  case COPYSTACK_IO_SENDTO:
    return sendto(fd, p[0], n[0], static_cast<int>(n[1]),
                  static_cast<sockaddr *>(p[1]), static_cast<socklen_t>(n[2]));
  case COPYSTACK_IO_SENDMSG:
    return sendmsg(fd, static_cast<msghdr *>(p[0]), static_cast<int>(n[0]));
  case COPYSTACK_IO_ACCEPT4:
    return accept4(fd, static_cast<sockaddr *>(p[0]),
                   static_cast<socklen_t *>(p[1]), static_cast<int>(n[0]));
  case COPYSTACK_IO_CONNECT:
    return connect(fd, static_cast<sockaddr *>(p[0]),
                   static_cast<socklen_t>(n[0]));
  case COPYSTACK_IO_POLL:
    return poll(static_cast<pollfd *>(p[0]), static_cast<nfds_t>(n[0]),
                static_cast<int>(n[1]));
  case COPYSTACK_IO_PPOLL:
    return ppoll(static_cast<pollfd *>(p[0]), static_cast<nfds_t>(n[0]),
                 static_cast<timespec *>(p[1]), static_cast<sigset_t *>(p[2]));
  case COPYSTACK_IO_SELECT:
    return select(static_cast<int>(n[0]), static_cast<fd_set *>(p[0]),
                  static_cast<fd_set *>(p[1]), static_cast<fd_set *>(p[2]),
                  static_cast<timeval *>(p[3]));
  case COPYSTACK_IO_SLEEP:
    return sleep(static_cast<unsigned>(n[0]));
  case COPYSTACK_IO_USLEEP:
    return usleep(static_cast<useconds_t>(n[0]));
  case COPYSTACK_IO_NANOSLEEP:
    return nanosleep(static_cast<timespec *>(p[0]),
                     static_cast<timespec *>(p[1]));
  case COPYSTACK_IO_CLOCK_NANOSLEEP:
    return clock_nanosleep(static_cast<clockid_t>(n[0]), static_cast<int>(n[1]),
                           static_cast<timespec *>(p[0]),
                           static_cast<timespec *>(p[1]));
  case COPYSTACK_IO_FUTEX:
    return raw_futex(p[0], n[0], n[1], p[1], p[2], n[2]);
  case COPYSTACK_IO_PREAD:
    return pread(fd, p[0], static_cast<size_t>(n[0]),
                 static_cast<off_t>(n[1]));
  case COPYSTACK_IO_PWRITE:
    return pwrite(fd, p[0], static_cast<size_t>(n[0]),
                  static_cast<off_t>(n[1]));
  case COPYSTACK_IO_FSYNC:
    return fsync(fd);
  case COPYSTACK_IO_FDATASYNC:
    return fdatasync(fd);
  case COPYSTACK_IO_FLOCK:
    return flock(fd, static_cast<int>(n[0]));
  case COPYSTACK_IO_LOCKF:
    return lockf(fd, static_cast<int>(n[0]), static_cast<off_t>(n[1]));
  case COPYSTACK_IO_FCNTL_LOCK:
    return real_fcntl()(fd, static_cast<int>(n[0]), p[0]);
  case COPYSTACK_IO_WAITPID:
    return waitpid(static_cast<pid_t>(n[0]), static_cast<int *>(p[0]),
                   static_cast<int>(n[1]));
  case COPYSTACK_IO_WAITID:
    return waitid(static_cast<idtype_t>(n[0]), static_cast<id_t>(n[1]),
                  static_cast<siginfo_t *>(p[0]), static_cast<int>(n[2]));
  case COPYSTACK_IO_GETADDRINFO:
    return getaddrinfo(static_cast<const char *>(p[0]),
                       static_cast<const char *>(p[1]),
                       static_cast<const addrinfo *>(p[2]),
                       static_cast<addrinfo **>(p[3]));
  case COPYSTACK_IO_MUTEX_LOCK:
  case COPYSTACK_IO_COND_WAIT:
  case COPYSTACK_IO_SEM_WAIT:
  case COPYSTACK_IO_RWLOCK:
  case COPYSTACK_IO_BARRIER:
  case COPYSTACK_IO_JOIN:
    return pthread_sync_blocking(c);
  }
  fatal("a blocking call of unknown kind %d", c->kind);
}

// Can the wrapper that made call c park? Only from the task's own stack,
// where c lives then: not from instrumented code running on a thread's
// stack (a callback from foreign code, a signal handler on the alternate
// stack), where the call blocks as it always did.
bool can_park(const copystack_io_call *c) {
  const Thread &th = __copystack_thread;
  const auto at = reinterpret_cast<uintptr_t>(c);
  return th.task && !th.task->runner && at >= th.task_lo && at < th.task_hi &&
         config().netpoll;
}

// The call in place, blocking the thread; or, while tasks preempted on this
// thread wait to resume here (one of them may be what the call waits for:
// a terminal's writer, preempted on the thread its reader then blocked,
// waited for good), on an I/O thread (io_pool.h pool_hop).
int blocking(copystack_io_call *c, IoWait *w) {
  if (w) {
    free_wait(w);
    c->wait = nullptr;
  }
  if (preempted_waiting() && can_park(c) && pool_may_hop(c))
    if (int r = pool_hop(c))
      return r;
  c->result = blocking_call(c);
  return 1;
}

// pread and pwrite: the descriptor's kind, cached as for read and write
// (an fstat on every call cost a small pwrite a third of its time).
bool is_regular_file(int fd) {
  if (PollDesc *pd = poll_desc(fd))
    return kind_of(pd, fd) == kFile;
  struct stat st;
  return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

// ---- the calls on one descriptor
// --------------------------------------------------

bool would_block(int64_t r) {
  return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

// What sort of call on one descriptor this is.
struct FdCall {
  uint32_t dir;     // kRead or kWrite
  bool socket_only; // recv, send, accept, connect: ENOTSOCK elsewhere
  int flags_arg;    // n[] index of the MSG_* flags, or -1
};

FdCall describe(int kind) {
  switch (kind) {
  case COPYSTACK_IO_READ:
  case COPYSTACK_IO_READV:
    return {kRead, false, -1};
  case COPYSTACK_IO_WRITE:
  case COPYSTACK_IO_WRITEV:
    return {kWrite, false, -1};
  case COPYSTACK_IO_RECV:
  case COPYSTACK_IO_RECVFROM:
    return {kRead, true, 1};
  case COPYSTACK_IO_RECVMSG:
    return {kRead, true, 0};
  case COPYSTACK_IO_SEND:
  case COPYSTACK_IO_SENDTO:
    return {kWrite, true, 1};
  case COPYSTACK_IO_SENDMSG:
    return {kWrite, true, 0};
  case COPYSTACK_IO_ACCEPT4:
    return {kRead, true, -1};
  case COPYSTACK_IO_CONNECT:
    return {kWrite, true, -1};
  default: // COPYSTACK_IO_FD_WAIT: decided by its events
    return {kRead, false, -1};
  }
}

// iov without its first skip bytes, in out (room for cnt entries).
int trim_iov(const iovec *iov, int cnt, uint64_t skip, iovec *out) {
  int n = 0;
  for (int i = 0; i < cnt; ++i) {
    if (skip >= iov[i].iov_len) {
      skip -= iov[i].iov_len;
      continue;
    }
    out[n].iov_base = static_cast<char *>(iov[i].iov_base) + skip;
    out[n].iov_len = iov[i].iov_len - skip;
    skip = 0;
    ++n;
  }
  return n;
}

uint64_t iov_bytes(const iovec *iov, int cnt) {
  uint64_t total = 0;
  for (int i = 0; i < cnt; ++i)
    total += iov[i].iov_len;
  return total;
}

// Bytes a call moves in full before it returns (writes; reads with
// MSG_WAITALL), or 0 for calls that return after one transfer.
uint64_t full_length(const copystack_io_call *c) {
  switch (c->kind) {
  case COPYSTACK_IO_WRITE:
  case COPYSTACK_IO_SEND:
  case COPYSTACK_IO_SENDTO:
    return static_cast<uint64_t>(c->n[0]);
  case COPYSTACK_IO_WRITEV:
    return iov_bytes(static_cast<iovec *>(c->p[0]), static_cast<int>(c->n[0]));
  case COPYSTACK_IO_SENDMSG: {
    auto *m = static_cast<msghdr *>(c->p[0]);
    return iov_bytes(m->msg_iov, static_cast<int>(m->msg_iovlen));
  }
  case COPYSTACK_IO_RECV:
  case COPYSTACK_IO_RECVFROM:
    return (c->n[1] & MSG_WAITALL) ? static_cast<uint64_t>(c->n[0]) : 0;
  case COPYSTACK_IO_RECVMSG: {
    auto *m = static_cast<msghdr *>(c->p[0]);
    return (c->n[0] & MSG_WAITALL)
               ? iov_bytes(m->msg_iov, static_cast<int>(m->msg_iovlen))
               : 0;
  }
  default:
    return 0;
  }
}

// The attempts' socket calls are system calls made directly, as Go makes
// them: the C library's are cancellation points, which switch the thread's
// cancellation type on and off around every call (a worker thread is not
// cancelled while its tasks run, and a pending cancellation should not end
// it in the middle of one). Under ASan or TSan, the C library's: they
// intercept them (the buffer checks, TSan's order from a send to the
// receive that sees it).
bool sanitized() { return san::asan() || san::tsan(); }

int64_t sock_recvfrom(int fd, void *buf, size_t len, int flags, sockaddr *a,
                      socklen_t *alen) {
  if (sanitized())
    return recvfrom(fd, buf, len, flags, a, alen);
  return syscall(SYS_recvfrom, fd, buf, len, flags, a, alen);
}

int64_t sock_sendto(int fd, const void *buf, size_t len, int flags,
                    const sockaddr *a, socklen_t alen) {
  if (sanitized())
    return sendto(fd, buf, len, flags, a, alen);
  return syscall(SYS_sendto, fd, buf, len, flags, a, alen);
}

int64_t sock_recvmsg(int fd, msghdr *m, int flags) {
  if (sanitized())
    return recvmsg(fd, m, flags);
  return syscall(SYS_recvmsg, fd, m, flags);
}

int64_t sock_sendmsg(int fd, const msghdr *m, int flags) {
  if (sanitized())
    return sendmsg(fd, m, flags);
  return syscall(SYS_sendmsg, fd, m, flags);
}

// One transfer that does not block, from byte `done` of the call's data.
int64_t transfer(copystack_io_call *c, uint8_t kind, uint64_t done) {
  const int fd = c->fd;
  void *const *p = c->p;
  const int64_t *n = c->n;
  const int dw = MSG_DONTWAIT;
  char *buf = static_cast<char *>(p[0]) + done;
  const size_t rest = static_cast<size_t>(n[0]) - done;
  switch (c->kind) {
  case COPYSTACK_IO_READ:
  case COPYSTACK_IO_WRITE: {
    if (kind == kSocket)
      return c->kind == COPYSTACK_IO_READ
                 ? sock_recvfrom(fd, buf, rest, dw, nullptr, nullptr)
                 : sock_sendto(fd, buf, rest, dw, nullptr, 0);
    iovec iov = {buf, rest};
    return c->kind == COPYSTACK_IO_READ ? preadv2(fd, &iov, 1, -1, RWF_NOWAIT)
                                        : pwritev2(fd, &iov, 1, -1, RWF_NOWAIT);
  }
  case COPYSTACK_IO_READV:
  case COPYSTACK_IO_WRITEV: {
    auto *iov = static_cast<iovec *>(p[0]);
    int cnt = static_cast<int>(n[0]);
    if (cnt < 0 || cnt > IOV_MAX) {
      errno = EINVAL;
      return -1;
    }
    auto *left = static_cast<iovec *>(alloca(sizeof(iovec) * (cnt + 1)));
    int nleft = trim_iov(iov, cnt, done, left);
    if (kind == kSocket) {
      msghdr m{};
      m.msg_iov = left;
      m.msg_iovlen = nleft;
      return c->kind == COPYSTACK_IO_READV ? sock_recvmsg(fd, &m, dw)
                                           : sock_sendmsg(fd, &m, dw);
    }
    return c->kind == COPYSTACK_IO_READV
               ? preadv2(fd, left, nleft, -1, RWF_NOWAIT)
               : pwritev2(fd, left, nleft, -1, RWF_NOWAIT);
  }
  case COPYSTACK_IO_RECV:
    return sock_recvfrom(fd, buf, rest, static_cast<int>(n[1]) | dw, nullptr,
                         nullptr);
  case COPYSTACK_IO_RECVFROM:
    return sock_recvfrom(fd, buf, rest, static_cast<int>(n[1]) | dw,
                         static_cast<sockaddr *>(p[1]),
                         static_cast<socklen_t *>(p[2]));
  case COPYSTACK_IO_SEND:
    return sock_sendto(fd, buf, rest, static_cast<int>(n[1]) | dw, nullptr, 0);
  case COPYSTACK_IO_SENDTO:
    return sock_sendto(fd, buf, rest, static_cast<int>(n[1]) | dw,
                       static_cast<sockaddr *>(p[1]),
                       static_cast<socklen_t>(n[2]));
  case COPYSTACK_IO_RECVMSG:
  case COPYSTACK_IO_SENDMSG: {
    auto *m = static_cast<msghdr *>(p[0]);
    if (!done)
      return c->kind == COPYSTACK_IO_RECVMSG
                 ? sock_recvmsg(fd, m, static_cast<int>(n[0]) | dw)
                 : sock_sendmsg(fd, m, static_cast<int>(n[0]) | dw);
    // The rest of a message sent (or received with MSG_WAITALL) in parts;
    // its ancillary data went with the first.
    int cnt = static_cast<int>(m->msg_iovlen);
    auto *left = static_cast<iovec *>(alloca(sizeof(iovec) * (cnt + 1)));
    msghdr rest_m = *m;
    rest_m.msg_iov = left;
    rest_m.msg_iovlen = trim_iov(m->msg_iov, cnt, done, left);
    rest_m.msg_control = nullptr;
    rest_m.msg_controllen = 0;
    int64_t r = c->kind == COPYSTACK_IO_RECVMSG
                    ? sock_recvmsg(fd, &rest_m, static_cast<int>(n[0]) | dw)
                    : sock_sendmsg(fd, &rest_m, static_cast<int>(n[0]) | dw);
    m->msg_flags = rest_m.msg_flags;
    return r;
  }
  }
  fatal("transfer: a call of kind %d moves no data", c->kind);
}

// As many transfers as the call makes before it returns: one, or until
// full_length bytes (done counts them). Returns the call's result, or -1
// with EAGAIN when it must wait first.
int64_t transfers(copystack_io_call *c, uint8_t kind, uint64_t full,
                  uint64_t &done) {
  for (;;) {
    int64_t r = transfer(c, kind, done);
    if (r < 0)
      return done && !would_block(r) ? static_cast<int64_t>(done) : r;
    if (!full)
      return r;
    done += static_cast<uint64_t>(r);
    if (done >= full || r == 0)
      return static_cast<int64_t>(done); // r == 0: end of stream
  }
}

// accept: poll, then accept, one task at a time per socket.
int64_t try_accept(copystack_io_call *c, PollDesc *pd) {
  {
    std::lock_guard<SpinLock> l(pd->lock);
    if (pd->accepting) {
      errno = EAGAIN; // the task in there lets the waiters look again
      return -1;
    }
    pd->accepting = true;
  }
  pollfd pfd = {c->fd, POLLIN, 0};
  int64_t r = -1;
  int err = EAGAIN;
  if (poll(&pfd, 1, 0) > 0) {
    r = accept4(c->fd, static_cast<sockaddr *>(c->p[0]),
                static_cast<socklen_t *>(c->p[1]), static_cast<int>(c->n[0]));
    err = errno;
  }
  {
    std::lock_guard<SpinLock> l(pd->lock);
    pd->accepting = false;
  }
  if (r >= 0)
    pass_on(pd);
  errno = err;
  return r;
}

// connect: started (done == 0) with O_NONBLOCK for the system call only;
// then (done == 1) finished once the socket is writable.
int64_t try_connect(copystack_io_call *c, uint64_t &done) {
  const int fd = c->fd;
  if (done) {
    pollfd pfd = {fd, POLLOUT, 0};
    if (poll(&pfd, 1, 0) <= 0) {
      errno = EAGAIN;
      return -1;
    }
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
      return -1;
    if (err) {
      errno = err;
      return -1;
    }
    return 0;
  }
  int fl = real_fcntl()(fd, F_GETFL);
  if (fl < 0)
    return -1;
  real_fcntl()(fd, F_SETFL, fl | O_NONBLOCK);
  int r = connect(fd, static_cast<sockaddr *>(c->p[0]),
                  static_cast<socklen_t>(c->n[0]));
  int err = errno;
  real_fcntl()(fd, F_SETFL, fl);
  if (r == 0)
    return 0;
  if (err == EINPROGRESS) {
    done = 1;
    errno = EAGAIN;
    return -1;
  }
  if (err == EAGAIN) {
    // A Unix-domain listener's backlog is full: nothing says when it has
    // room. The blocking connect waits for it.
    return connect(fd, static_cast<sockaddr *>(c->p[0]),
                   static_cast<socklen_t>(c->n[0]));
  }
  errno = err;
  return -1;
}

// copystack_fd_wait's attempt: the poll(2) revents, or EAGAIN.
int64_t try_fd_wait(copystack_io_call *c) {
  pollfd pfd = {c->fd, static_cast<short>(c->n[0]), 0};
  int r = poll(&pfd, 1, 0);
  if (r > 0)
    return pfd.revents;
  if (r == 0)
    errno = EAGAIN;
  return -1;
}

// A wait on one descriptor that timed out: EAGAIN for a socket timeout,
// ETIMEDOUT for a deadline (copystack_fd_set_deadline), EINPROGRESS for a
// connect, 0 for copystack_fd_wait; what was written, if anything.
int timed_out(copystack_io_call *c, IoWait *w, PollDesc *pd, uint32_t dir) {
  uint64_t d = pd->deadline[dir == kRead ? 0 : 1].load();
  bool deadline = d && now_ns() >= d;
  if (w->done && c->kind != COPYSTACK_IO_CONNECT)
    return finish(c, w, static_cast<int64_t>(w->done));
  if (deadline)
    return fail(c, w, ETIMEDOUT);
  if (c->kind == COPYSTACK_IO_FD_WAIT)
    return finish(c, w, 0);
  return fail(c, w, c->kind == COPYSTACK_IO_CONNECT ? EINPROGRESS : EAGAIN);
}

int fd_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  const int fd = c->fd;
  PollDesc *pd = poll_desc(fd);
  if (!pd)
    return blocking(c, w);
  FdCall what = describe(c->kind);
  uint32_t dirs = what.dir;
  uint8_t kind = kOther;
  if (c->kind == COPYSTACK_IO_FD_WAIT) {
    short ev = static_cast<short>(c->n[0]);
    dirs = ((ev & (POLLIN | POLLPRI | POLLRDHUP)) ? kRead : 0) |
           ((ev & POLLOUT) ? kWrite : 0);
    if (!dirs)
      dirs = kRead | kWrite;
    what.dir = (dirs & kRead) ? kRead : kWrite;
  } else {
    kind = kind_of(pd, fd);
    if (kind == kFile && !what.socket_only)
      return w || pool_takes_file_call(c) ? pool_call(c, w, end)
                                          : blocking(c, w);
    if (kind == kOther || kind == kFile ||
        (what.socket_only && kind != kSocket))
      return blocking(c, w);
  }
  const uint64_t full = full_length(c);
  uint64_t done = w ? w->done : 0;
  switch (end) {
  case kClosed:
    if (done && c->kind != COPYSTACK_IO_CONNECT)
      return finish(c, w, static_cast<int64_t>(done));
    return fail(c, w, EBADF);
  case kTimedOut:
    return timed_out(c, w, pd, what.dir);
  case kInterrupted:
    if (done && c->kind != COPYSTACK_IO_CONNECT)
      return finish(c, w, static_cast<int64_t>(done));
    return fail(c, w, EINTR);
  default:
    break; // first attempt, or kReady: try (again)
  }

  uint64_t d = pd->deadline[what.dir == kRead ? 0 : 1].load();
  if (d && now_ns() >= d) {
    if (done && c->kind != COPYSTACK_IO_CONNECT)
      return finish(c, w, static_cast<int64_t>(done));
    return fail(c, w, ETIMEDOUT);
  }
  WaitRec snap;
  snapshot(&snap, pd, dirs);
  const SignalCounts signals = signal_counts();
  int64_t r;
  switch (c->kind) {
  case COPYSTACK_IO_ACCEPT4:
    r = try_accept(c, pd);
    break;
  case COPYSTACK_IO_CONNECT:
    r = try_connect(c, done);
    break;
  case COPYSTACK_IO_FD_WAIT:
    r = try_fd_wait(c);
    break;
  default:
    r = transfers(c, kind, full, done);
    if (r < 0 &&
        (errno == ENOTSOCK || errno == EOPNOTSUPP || errno == ESPIPE)) {
      // Not the kind of descriptor it was when the runtime looked (it was
      // closed behind the runtime's back and its number reused).
      pd->kind.store(kUnknown);
      pd->nowait_writes.store(0);
      if (!done)
        return blocking(c, w);
    }
    break;
  }
  if (!would_block(r))
    return finish(c, w, r);

  // It would block. Unless the program asked for that answer, wait.
  const int flags =
      what.flags_arg >= 0 ? static_cast<int>(c->n[what.flags_arg]) : 0;
  uint64_t timeo = 0;
  Interrupt interrupt =
      c->kind == COPYSTACK_IO_FD_WAIT ? kNever : kUnlessRestart;
  enum { kWait, kNonBlocking, kRefused } verdict = kWait;
  {
    std::lock_guard<SpinLock> l(pd->lock);
    if ((flags & MSG_DONTWAIT) ||
        (c->kind != COPYSTACK_IO_FD_WAIT && c->kind != COPYSTACK_IO_CONNECT &&
         user_nonblocking(pd, fd)))
      verdict = kNonBlocking;
    else if (!watch_fd(pd, fd))
      verdict = kRefused; // epoll takes whatever poll(2) can wait for
    else if (kind == kSocket) {
      read_timeouts(pd, fd);
      timeo = what.dir == kRead ? pd->rcvtimeo : pd->sndtimeo;
      if (timeo)
        interrupt = kAlways;
    }
  }
  if (verdict != kWait) {
    if (done && c->kind != COPYSTACK_IO_CONNECT)
      return finish(c, w, static_cast<int64_t>(done));
    if (verdict == kRefused)
      return blocking(c, w);
    return fail(c, w, EAGAIN);
  }
  if (!w) {
    w = new_wait(1);
    w->started = 0; // read from the clock once a timeout needs it
    c->wait = w;
  }
  if (timeo && !w->started)
    w->started = now_ns();
  w->done = done;
  WaitRec *rec = &w->recs[0];
  IoWait *self = rec->wait;
  *rec = snap;
  rec->wait = self;
  if (c->kind == COPYSTACK_IO_FD_WAIT)
    w->call_deadline = static_cast<uint64_t>(c->n[1]);
  else
    w->call_deadline = timeo ? w->started + timeo : 0;
  w->fd_deadline_dir = static_cast<uint8_t>(what.dir);
  w->interrupt = interrupt;
  w->signals = signals;
  return park_pending(COPYSTACK_MUST_PARK);
}

// ---- poll, ppoll, select
// --------------------------------------------------------

// The descriptors a poll-like call watches, and for each the directions.
struct Watch {
  int fd;
  uint32_t dirs;
};

uint32_t poll_dirs(short events) {
  uint32_t d =
      ((events & (POLLIN | POLLPRI | POLLRDNORM | POLLRDBAND | POLLRDHUP))
           ? kRead
           : 0) |
      ((events & (POLLOUT | POLLWRNORM | POLLWRBAND)) ? kWrite : 0);
  return d ? d : kRead | kWrite; // POLLERR and POLLHUP only: any edge
}

size_t set_bytes(int nfds) { return (static_cast<size_t>(nfds) + 63) / 64 * 8; }

// select's attempt: on copies of the sets, so that the program's stay as
// they are until the call returns. Returns the count (the program's sets
// updated when it is not 0, or when final), or -1.
int64_t try_select(copystack_io_call *c, bool final) {
  int nfds = static_cast<int>(c->n[0]);
  if (nfds < 0 || nfds > (1 << 20)) {
    errno = EINVAL;
    return -1;
  }
  size_t bytes = set_bytes(nfds);
  fd_set *copies[3];
  for (int i = 0; i < 3; ++i) {
    copies[i] = nullptr;
    if (c->p[i]) {
      copies[i] = static_cast<fd_set *>(alloca(bytes ? bytes : 8));
      memcpy(copies[i], c->p[i], bytes);
    }
  }
  timeval zero = {0, 0};
  int r = select(nfds, copies[0], copies[1], copies[2], &zero);
  if (r > 0 || (r == 0 && final))
    for (int i = 0; i < 3; ++i)
      if (copies[i])
        memcpy(c->p[i], copies[i], bytes);
  return r;
}

int64_t try_poll(copystack_io_call *c) {
  return poll(static_cast<pollfd *>(c->p[0]), static_cast<nfds_t>(c->n[0]), 0);
}

// The deadline of a poll-like call (0: none); false when the timeout is
// invalid (the blocking call reports it).
bool poll_deadline(const copystack_io_call *c, uint64_t now, uint64_t &out) {
  out = 0;
  if (c->kind == COPYSTACK_IO_POLL) {
    if (c->n[1] >= 0)
      out = now + static_cast<uint64_t>(c->n[1]) * 1000000u;
    return true;
  }
  if (c->kind == COPYSTACK_IO_PPOLL) {
    auto *ts = static_cast<const timespec *>(c->p[1]);
    if (!ts)
      return true;
    if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)
      return false;
    out = now + uint64_t(ts->tv_sec) * 1000000000u + uint64_t(ts->tv_nsec);
    return true;
  }
  auto *tv = static_cast<const timeval *>(c->p[3]);
  if (!tv)
    return true;
  if (tv->tv_sec < 0 || tv->tv_usec < 0 || tv->tv_usec >= 1000000)
    return false;
  out = now + timeval_ns(*tv);
  return true;
}

// select reports the time left in its timeout, as Linux does.
void select_time_left(copystack_io_call *c, uint64_t deadline) {
  auto *tv = static_cast<timeval *>(c->p[3]);
  if (c->kind != COPYSTACK_IO_SELECT || !tv || !deadline)
    return;
  uint64_t now = now_ns(), left = deadline > now ? deadline - now : 0;
  tv->tv_sec = static_cast<time_t>(left / 1000000000u);
  tv->tv_usec = static_cast<suseconds_t>(left % 1000000000u / 1000u);
}

int multi_finish(copystack_io_call *c, IoWait *w, int64_t r,
                 uint64_t deadline) {
  int saved = errno;
  select_time_left(c, deadline);
  errno = saved;
  return finish(c, w, r);
}

// The descriptors to watch, into out (room for the call's count).
int watches(const copystack_io_call *c, Watch *out) {
  int n = 0;
  if (c->kind == COPYSTACK_IO_SELECT) {
    int nfds = static_cast<int>(c->n[0]);
    auto *sets = reinterpret_cast<fd_set *const *>(c->p);
    for (int fd = 0; fd < nfds; ++fd) {
      uint32_t dirs = 0;
      if (sets[0] && FD_ISSET(fd, sets[0]))
        dirs |= kRead;
      if (sets[1] && FD_ISSET(fd, sets[1]))
        dirs |= kWrite;
      if (sets[2] && FD_ISSET(fd, sets[2]))
        dirs |= kRead;
      if (dirs)
        out[n++] = {fd, dirs};
    }
    return n;
  }
  auto *fds = static_cast<const pollfd *>(c->p[0]);
  for (nfds_t i = 0; i < static_cast<nfds_t>(c->n[0]); ++i)
    if (fds[i].fd >= 0)
      out[n++] = {fds[i].fd, poll_dirs(fds[i].events)};
  return n;
}

int sleep_call(copystack_io_call *c, IoWait *w, WaitEnd end);

int multi_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  const bool select_call = c->kind == COPYSTACK_IO_SELECT;
  if (c->kind == COPYSTACK_IO_PPOLL && c->p[2])
    return blocking(c, w); // a signal mask for the wait: a thread's own
  auto attempt = [&](bool final) {
    return select_call ? try_select(c, final) : try_poll(c);
  };
  uint64_t deadline = w ? w->call_deadline : 0;
  switch (end) {
  case kTimedOut:
    return multi_finish(c, w, attempt(true), deadline);
  case kInterrupted:
    errno = EINTR;
    return multi_finish(c, w, -1, deadline);
  default:
    break; // first attempt, kReady, kClosed (poll reports POLLNVAL)
  }
  const SignalCounts signals = signal_counts();
  if (!w) {
    int64_t r = attempt(false);
    if (r != 0)
      return finish(c, w, r);
    uint64_t now = now_ns();
    if (!poll_deadline(c, now, deadline))
      return blocking(c, w);
    if (deadline && deadline <= now) // a zero timeout
      return finish(c, w, attempt(true));
    int64_t count = c->n[0]; // select's nfds, poll's nfds
    if (count < 0 || count > (1 << 20))
      return blocking(c, w);
    auto *list = static_cast<Watch *>(
        alloca(sizeof(Watch) * (static_cast<size_t>(count) + 1)));
    int nw = watches(c, list);
    w = new_wait(nw);
    w->started = now;
    w->call_deadline = deadline;
    w->interrupt = kAlways;
    c->wait = w;
    for (int i = 0; i < nw; ++i) {
      PollDesc *pd = poll_desc(list[i].fd);
      bool ok = pd != nullptr;
      if (ok) {
        std::lock_guard<SpinLock> l(pd->lock);
        ok = watch_fd(pd, list[i].fd);
      }
      if (!ok)
        return blocking(c, w); // a descriptor epoll refuses
      w->recs[i].pd = pd;
      w->recs[i].dirs = list[i].dirs;
    }
  }
  // Snapshots, then the attempt they cover.
  for (int i = 0; i < w->nrecs; ++i)
    snapshot(&w->recs[i], w->recs[i].pd, w->recs[i].dirs);
  w->signals = signals;
  int64_t r = attempt(false);
  if (r != 0)
    return multi_finish(c, w, r, deadline);
  if (deadline && now_ns() >= deadline)
    return multi_finish(c, w, attempt(true), deadline);
  return park_pending(COPYSTACK_MUST_PARK);
}

// ---- sleeps
// ------------------------------------------------------------------------

// The monotonic deadline of a sleep; false when its arguments are invalid
// (err: what the call reports) or its clock is not one the runtime can
// follow (err 0: the blocking call).
bool sleep_deadline(const copystack_io_call *c, uint64_t now, uint64_t &out,
                    int &err) {
  err = 0;
  switch (c->kind) {
  case COPYSTACK_IO_SLEEP:
    out = now + static_cast<uint64_t>(c->n[0]) * 1000000000u;
    return true;
  case COPYSTACK_IO_USLEEP:
    out = now + static_cast<uint64_t>(c->n[0]) * 1000u;
    return true;
  default:
    break;
  }
  auto *ts = static_cast<const timespec *>(c->p[0]);
  if (!ts || ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000) {
    err = ts ? EINVAL : EFAULT;
    return false;
  }
  uint64_t ns = uint64_t(ts->tv_sec) * 1000000000u + uint64_t(ts->tv_nsec);
  if (c->kind == COPYSTACK_IO_NANOSLEEP) {
    out = now + ns;
    return true;
  }
  clockid_t clock = static_cast<clockid_t>(c->n[0]);
  if (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC &&
      clock != CLOCK_BOOTTIME && clock != CLOCK_TAI)
    return false;
  if (!(c->n[1] & TIMER_ABSTIME)) {
    out = now + ns;
    return true;
  }
  // An absolute time on that clock, taken as a distance from now: a clock
  // set meanwhile does not move the wake-up (a thread's sleep would).
  timespec cur;
  clock_gettime(clock, &cur);
  uint64_t at = uint64_t(cur.tv_sec) * 1000000000u + uint64_t(cur.tv_nsec);
  out = ns > at ? now + (ns - at) : now;
  return true;
}

} // namespace

int64_t io_blocking_call(copystack_io_call *c) { return blocking_call(c); }

// The futex system call itself, not through the runtime's interposer of
// syscall() (pthread_sync.h uses it too).
int64_t raw_futex(void *uaddr, int64_t op, int64_t val, void *ts,
                  void *uaddr2, int64_t val3) {
  return raw_syscall(SYS_futex, reinterpret_cast<long>(uaddr),
                     static_cast<int>(op), static_cast<uint32_t>(val),
                     reinterpret_cast<long>(ts), reinterpret_cast<long>(uaddr2),
                     static_cast<uint32_t>(val3));
}

namespace {

// ---- futex waits
// ----------------------------------------------------------------------
// syscall(SYS_futex, ...) from instrumented code: what libstdc++'s
// std::atomic<T>::wait and notify, std::counting_semaphore, std::latch and
// std::barrier make (passes/BlockingCalls.cpp rewrites the calls). A task's
// FUTEX_WAIT and FUTEX_WAIT_BITSET park it in the poller's futex table
// (netpoll.cc) until a wake on the same word, its timeout or a spurious
// wake-up (which futex users expect); every wake ends tasks' waits and
// makes the system call for plain threads' (the interposer of syscall, at
// the end of this file, does the same for wakes from code built without
// the plugin). The rest (the priority-inheritance operations, and waits
// outside a task) is the system call.

// Linux's futex operations, without the flags.
int futex_cmd(int64_t op) {
  return static_cast<int>(op) & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
}

bool is_futex_wait(int64_t op) {
  int cmd = futex_cmd(op);
  return cmd == FUTEX_WAIT || cmd == FUTEX_WAIT_BITSET;
}

// The tasks' part of a wake-type operation on uaddr (and uaddr2): their
// waits end before the system call wakes threads. The requeue operations
// and FUTEX_WAKE_OP end every task's wait on the words (spurious wake-ups:
// each looks at its word again and waits anew where it must). Returns the
// tasks woken.
int futex_wake_tasks(void *uaddr, int64_t op, int64_t val, void *uaddr2,
                     int64_t val3) {
  switch (futex_cmd(op)) {
  case FUTEX_WAKE:
    return futex_wake(uaddr, static_cast<int>(val), ~0u);
  case FUTEX_WAKE_BITSET:
    return futex_wake(uaddr, static_cast<int>(val), static_cast<uint32_t>(val3));
  case FUTEX_REQUEUE:
  case FUTEX_CMP_REQUEUE:
  case FUTEX_WAKE_OP:
    return futex_wake(uaddr, INT32_MAX, ~0u) +
           (uaddr2 ? futex_wake(uaddr2, INT32_MAX, ~0u) : 0);
  default:
    return 0;
  }
}

int futex_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  if (w) {
    if (end == kTimedOut)
      return fail(c, w, ETIMEDOUT);
    return finish(c, w, 0); // woken, or the word had changed: look again
  }
  const int64_t op = c->n[0];
  const uint32_t val = static_cast<uint32_t>(c->n[1]);
  const uint32_t bits = futex_cmd(op) == FUTEX_WAIT_BITSET
                            ? static_cast<uint32_t>(c->n[2])
                            : ~0u;
  auto *word = static_cast<const std::atomic<uint32_t> *>(c->p[0]);
  auto *ts = static_cast<const timespec *>(c->p[1]);
  if (!word || (reinterpret_cast<uintptr_t>(word) & 3))
    return fail(c, w, word ? EINVAL : EFAULT);
  if (!bits || (ts && (ts->tv_sec < 0 || ts->tv_nsec < 0 ||
                       ts->tv_nsec >= 1000000000)))
    return fail(c, w, EINVAL);
  if (word->load() != val)
    return fail(c, w, EAGAIN);
  uint64_t now = now_ns(), deadline = 0;
  if (ts) {
    uint64_t ns = uint64_t(ts->tv_sec) * 1000000000u + uint64_t(ts->tv_nsec);
    if (futex_cmd(op) == FUTEX_WAIT) {
      deadline = now + ns; // relative, on the monotonic clock
    } else { // absolute, on the monotonic clock or CLOCK_REALTIME
      timespec cur;
      clock_gettime(op & FUTEX_CLOCK_REALTIME ? CLOCK_REALTIME : CLOCK_MONOTONIC,
                    &cur);
      uint64_t at = uint64_t(cur.tv_sec) * 1000000000u + uint64_t(cur.tv_nsec);
      deadline = ns > at ? now + (ns - at) : now;
    }
    if (deadline <= now)
      return fail(c, w, ETIMEDOUT);
    deadline = std::max<uint64_t>(deadline, 1);
  }
  w = new_wait(0);
  w->started = now;
  w->call_deadline = deadline;
  w->interrupt = kNever;
  w->futex = word;
  w->futex_val = val;
  w->futex_bits = bits;
  c->wait = w;
  return park_pending(COPYSTACK_MUST_PARK);
}

int sleep_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  const bool clock_call = c->kind == COPYSTACK_IO_CLOCK_NANOSLEEP;
  uint64_t now = now_ns();
  if (!w) {
    uint64_t deadline;
    int err;
    if (!sleep_deadline(c, now, deadline, err)) {
      if (!err)
        return blocking(c, w);
      if (clock_call)
        return finish(c, w, err);
      return fail(c, w, err);
    }
    if (deadline <= now)
      return finish(c, w, 0);
    w = new_wait(0);
    w->started = now;
    w->call_deadline = deadline;
    w->interrupt = kAlways;
    w->signals = signal_counts();
    c->wait = w;
    return park_pending(COPYSTACK_MUST_PARK);
  }
  uint64_t deadline = w->call_deadline;
  if (end == kInterrupted && now < deadline) {
    uint64_t left = deadline - now;
    if (c->kind == COPYSTACK_IO_SLEEP)
      return finish(c, w, static_cast<int64_t>(left / 1000000000u));
    if (c->kind != COPYSTACK_IO_USLEEP && c->p[1] &&
        !(clock_call && (c->n[1] & TIMER_ABSTIME))) {
      auto *rem = static_cast<timespec *>(c->p[1]);
      rem->tv_sec = static_cast<time_t>(left / 1000000000u);
      rem->tv_nsec = static_cast<long>(left % 1000000000u);
    }
    if (clock_call)
      return finish(c, w, EINTR);
    return fail(c, w, EINTR);
  }
  if (now < deadline) {
    w->signals = signal_counts(); // woken early for no reason: again
    return park_pending(COPYSTACK_MUST_PARK);
  }
  return finish(c, w, 0);
}

} // namespace

} // namespace copystack_rt

using namespace copystack_rt;

namespace {
int io_begin(copystack_io_call *c) {
  auto *w = static_cast<IoWait *>(c->wait);
  WaitEnd end = w ? finish_wait(w) : kNotWaiting;
  if (w && w->job) // an I/O thread's call (io_pool.h), whatever its kind
    return pool_call(c, w, end);
  if (c->kind == COPYSTACK_IO_FUTEX && !is_futex_wait(c->n[0])) {
    // A wake, from a task or a thread: tasks' waits first, then threads'.
    int tasks = futex_wake_tasks(c->p[0], c->n[0], c->n[1], c->p[2], c->n[2]);
    c->result = blocking_call(c);
    if (c->result >= 0)
      c->result += tasks;
    return 1;
  }
  if (!w && !can_park(c))
    return blocking(c, nullptr);
  switch (c->kind) {
  case COPYSTACK_IO_FUTEX:
    return futex_call(c, w, end);
  case COPYSTACK_IO_PREAD:
  case COPYSTACK_IO_PWRITE:
    // Regular files only: anything else blocks in place, as before.
    if (!w && !(is_regular_file(c->fd) && pool_takes_file_call(c)))
      return blocking(c, w);
    return pool_call(c, w, end);
  case COPYSTACK_IO_FSYNC:
  case COPYSTACK_IO_FDATASYNC:
  case COPYSTACK_IO_FLOCK:
  case COPYSTACK_IO_LOCKF:
  case COPYSTACK_IO_FCNTL_LOCK:
  case COPYSTACK_IO_WAITPID:
  case COPYSTACK_IO_WAITID:
  case COPYSTACK_IO_GETADDRINFO:
    return pool_call(c, w, end);
  case COPYSTACK_IO_MUTEX_LOCK:
  case COPYSTACK_IO_COND_WAIT:
  case COPYSTACK_IO_SEM_WAIT:
  case COPYSTACK_IO_RWLOCK:
  case COPYSTACK_IO_BARRIER:
  case COPYSTACK_IO_JOIN:
    return pthread_sync_call(c, w, end);
  case COPYSTACK_IO_POLL:
  case COPYSTACK_IO_PPOLL:
  case COPYSTACK_IO_SELECT:
    return multi_call(c, w, end);
  case COPYSTACK_IO_SLEEP:
  case COPYSTACK_IO_USLEEP:
  case COPYSTACK_IO_NANOSLEEP:
  case COPYSTACK_IO_CLOCK_NANOSLEEP:
    return sleep_call(c, w, end);
  default:
    return fd_call(c, w, end);
  }
}
} // namespace

extern "C" int __copystack_io_begin(COPYSTACK_NOESCAPE copystack_io_call *c) {
  int r = io_begin(c);
  if (r == COPYSTACK_MUST_PARK)
  {
    auto *w = static_cast<IoWait *>(c->wait);
    static_assert(COPYSTACK_IO_KINDS <= kWaitOnIoThread, "task.h kWaitCall");
    w->kind = static_cast<uint8_t>(c->kind | (w->job ? kWaitOnIoThread : 0));
  }
  return r;
}

// ---- interposers
// ---------------------------------------------------------------------
// Descriptors closed or changed through these reach the poller, whoever
// closes them: the program, or a library it calls (the drivers export these
// symbols from executables, as pthread_create). Not under a sanitizer,
// which interposes several of them itself.
#ifndef COPYSTACK_NO_INTERPOSERS
extern "C" {

#define NEXT(type, name) static const auto next = CS_NEXT(type, name)

__attribute__((visibility("default"))) int CS_INTERPOSER(close)(int fd) {
  NEXT(int (*)(int), close);
  forget_fd(fd);
  return next(fd);
}

__attribute__((visibility("default"))) int CS_INTERPOSER(dup2)(int old, int fd) noexcept {
  NEXT(int (*)(int, int), dup2);
  if (old != fd && real_fcntl()(old, F_GETFD) >= 0)
    forget_fd(fd);
  return next(old, fd);
}

__attribute__((visibility("default"))) int CS_INTERPOSER(dup3)(int old, int fd,
                                                int flags) noexcept {
  NEXT(int (*)(int, int, int), dup3);
  if (old != fd && real_fcntl()(old, F_GETFD) >= 0)
    forget_fd(fd);
  return next(old, fd, flags);
}

__attribute__((visibility("default"))) int CS_INTERPOSER(fclose)(FILE *f) {
  NEXT(int (*)(FILE *), fclose);
  int fd = f ? fileno(f) : -1;
  if (fd >= 0)
    forget_fd(fd);
  return next(f);
}

__attribute__((visibility("default"))) int CS_INTERPOSER(pclose)(FILE *f) {
  NEXT(int (*)(FILE *), pclose);
  int fd = f ? fileno(f) : -1;
  if (fd >= 0)
    forget_fd(fd);
  return next(f);
}

__attribute__((visibility("default"))) int CS_INTERPOSER(close_range)(unsigned lo, unsigned hi,
                                                       int flags) noexcept {
  NEXT(int (*)(unsigned, unsigned, int), close_range);
  if (!(flags & CLOSE_RANGE_CLOEXEC) && lo <= hi)
    forget_fds(lo, hi);
  return next(lo, hi, flags);
}

__attribute__((visibility("default"))) void CS_INTERPOSER(closefrom)(int lo) noexcept {
  NEXT(void (*)(int), closefrom);
  if (lo >= 0)
    forget_fds(static_cast<unsigned>(lo), UINT_MAX);
  next(lo);
}

// fcntl and fcntl64: F_SETFL may change O_NONBLOCK, which io.cc caches.
static int fcntl_noting_flags(int fd, int cmd, void *arg) {
  int r = real_fcntl()(fd, cmd, arg);
  if (cmd == F_SETFL)
    g_flags_epoch.fetch_add(1);
  return r;
}

__attribute__((visibility("default"))) int CS_INTERPOSER(fcntl)(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return fcntl_noting_flags(fd, cmd, arg);
}

__attribute__((visibility("default"))) int CS_INTERPOSER(fcntl64)(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  return fcntl_noting_flags(fd, cmd, arg);
}

__attribute__((visibility("default"))) int CS_INTERPOSER(ioctl)(int fd, unsigned long req,
                                                 ...) noexcept {
  NEXT(int (*)(int, unsigned long, ...), ioctl);
  va_list ap;
  va_start(ap, req);
  void *arg = va_arg(ap, void *);
  va_end(ap);
  int r = next(fd, req, arg);
  if (req == FIONBIO)
    g_flags_epoch.fetch_add(1);
  return r;
}

__attribute__((visibility("default"))) int CS_INTERPOSER(setsockopt)(int fd, int level,
                                                      int name,
                                                      const void *value,
                                                      socklen_t len) noexcept {
  NEXT(int (*)(int, int, int, const void *, socklen_t), setsockopt);
  int r = next(fd, level, name, value, len);
  if (level == SOL_SOCKET &&
      (name == SO_RCVTIMEO_OLD || name == SO_SNDTIMEO_OLD ||
       name == SO_RCVTIMEO_NEW || name == SO_SNDTIMEO_NEW))
    g_timeo_epoch.fetch_add(1);
  return r;
}


// Futex wakes from code built without the plugin (a library's
// std::atomic<T>::notify_one) end tasks' waits too (futex_call above).
// Every other system call goes straight through.
__attribute__((visibility("default"))) long CS_INTERPOSER(syscall)(long nr, ...) noexcept {
  va_list ap;
  va_start(ap, nr);
  long a[6];
  for (long &x : a)
    x = va_arg(ap, long);
  va_end(ap);
  if (nr == SYS_futex && !is_futex_wait(a[1])) {
    auto *uaddr = reinterpret_cast<void *>(a[0]);
    auto *uaddr2 = reinterpret_cast<void *>(a[4]);
    int tasks = futex_wake_tasks(uaddr, a[1], a[2], uaddr2, a[5]);
    int64_t r = raw_futex(uaddr, a[1], a[2], reinterpret_cast<void *>(a[3]),
                          uaddr2, a[5]);
    return r >= 0 ? r + tasks : r;
  }
  // Not the C library's syscall() found by a function-local static: its
  // initialization could wait, through this very function (raw_syscall.h).
  return raw_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

} // extern "C"
#endif
