// io_pool.cc: the blocking calls no poller can wait for (io_pool.h).
//
// Reads and writes of regular files, fsync, fdatasync, file locks (flock,
// lockf, fcntl's F_SETLKW and F_OFD_SETLKW), waitpid, waitid and
// getaddrinfo never make a descriptor "ready": epoll refuses regular
// files, and the others have no descriptor at all. A task that makes one parks
// while a small pool of I/O threads makes the call, as Go's runtime hands
// its P to another thread during a system call, libuv runs file system
// calls and getaddrinfo on its thread pool, and Java's virtual threads
// compensate with extra carrier threads. A pool of threads rather than
// io_uring: io_uring has no getaddrinfo, flock or waitpid, container
// runtimes' seccomp profiles often refuse it (Docker's since 2023), and a
// pool works on every kernel the runtime supports.
//
// The first attempt is made in place when it cannot block: a read with
// RWF_NOWAIT returns what the page cache holds (a file read that hits the
// cache costs what it did: no thread hop), a flock with LOCK_NB, a lockf
// with F_TLOCK, an fcntl lock with F_SETLK (F_OFD_SETLK), a waitpid or
// waitid with WNOHANG. Only what would block goes to the pool, and a short
// in-place read goes on there for the rest, so that a read of a regular
// file still returns everything up to the end of the file.
//
// The I/O thread never touches the task's stack, which the collector may
// move while the task is parked (but for pool_hop's calls, below): the
// call's data goes through a buffer on the heap (a write's copied in
// before the task parks, a read's copied out when it runs again), as do getaddrinfo's strings and hints, an fcntl
// lock's struct flock, and waitpid's status and waitid's siginfo_t. The
// locks the I/O thread takes are the process's (lockf and fcntl's record
// locks) or the open file's (flock, OFD locks), as the task's own call
// would have taken them. A call larger than kMaxCopy bytes is made in place, blocking the
// worker as before (the monitor hands its other tasks to a spare).
//
// pool_hop: a call io.cc makes in place (a terminal, a descriptor epoll
// refuses, a pipe where RWF_NOWAIT does not work) while tasks preempted on
// the calling thread wait to resume there. They resume only on that thread,
// and the call may wait for one of them (the reader of a terminal whose
// writer was preempted on its thread waited for good). The I/O thread
// makes the call itself, on the arguments and buffers where the task left
// them; the task's stack is held where it is (Task::stack_held: the
// collector neither shrinks nor compacts it) until the task runs again.
//
// Threads: started as calls need them, up to kMaxThreads (COPYSTACK's
// default; the calls wait in order beyond that), and kept. The task waits
// in the futex table on its job's done word, which the I/O thread sets and
// wakes (netpoll.h futex_wake): a wait that nothing can end early (no
// timeout or signal ends these calls, as none ends them on a thread).
#include "platform/split_stack_notes.h"
#include "sched/io_pool.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"
#include "platform/stats.h"
#include "sched/deadlock.h"
#include "sched/io_calls.h"
#include "sched/netpoll.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <netdb.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

namespace copystack_rt {

namespace {

constexpr int kMaxThreads = 16;
constexpr size_t kMaxCopy = size_t(4) << 20;

// One call on its way through the pool. The task owns it; the I/O thread
// looks at it from when it takes it until it sets done.
struct Job {
  std::atomic<uint32_t> done{0};
  int kind = 0;
  int fd = -1;
  int64_t n[3] = {};
  char *buf = nullptr; // the data of a read or write
  size_t len = 0;
  char *node = nullptr, *service = nullptr; // getaddrinfo's
  addrinfo hints{};
  bool has_hints = false;
  addrinfo *res = nullptr;
  int status = 0; // waitpid's
  struct flock lock {}; // an fcntl lock's
  siginfo_t info{};     // waitid's
  int64_t result = 0;
  int err = 0;
  copystack_io_call *call = nullptr; // pool_hop's: the task's own call
  bool running = false; // taken by an I/O thread
  Job *next = nullptr;  // in the queue
  Job *anext = nullptr, *aprev = nullptr; // in flight (for fork)
};

struct Pool {
  std::mutex lock;
  std::condition_variable work;
  Job *head = nullptr, *tail = nullptr;
  Job *inflight = nullptr;
  int threads = 0, idle = 0;
};
// Never destroyed: I/O threads may still wait on its condition variable
// while the process exits.
Pool &pool() {
  static Pool *p = new Pool;
  return *p;
}
#define g_pool (pool())

void link_inflight(Job *j) {
  j->aprev = nullptr;
  j->anext = g_pool.inflight;
  if (j->anext)
    j->anext->aprev = j;
  g_pool.inflight = j;
}

void unlink_inflight(Job *j) {
  if (j->aprev)
    j->aprev->anext = j->anext;
  else
    g_pool.inflight = j->anext;
  if (j->anext)
    j->anext->aprev = j->aprev;
}

// The call itself, on the I/O thread.
void run(Job *j) {
  errno = 0;
  if (j->call) { // pool_hop: the call itself, where the task left it
    san::acquire(j); // what the task wrote (a write's data) before
    j->result = io_blocking_call(j->call);
    j->err = errno;
    san::release(j); // what the call wrote (a read's data), for the task
    return;
  }
  int64_t r = -1;
  switch (j->kind) {
  case COPYSTACK_IO_READ:
  case COPYSTACK_IO_READV:
    r = read(j->fd, j->buf, j->len);
    break;
  case COPYSTACK_IO_WRITE:
  case COPYSTACK_IO_WRITEV:
    r = write(j->fd, j->buf, j->len);
    break;
  case COPYSTACK_IO_PREAD:
    r = pread(j->fd, j->buf, j->len, static_cast<off_t>(j->n[1]));
    break;
  case COPYSTACK_IO_PWRITE:
    r = pwrite(j->fd, j->buf, j->len, static_cast<off_t>(j->n[1]));
    break;
  case COPYSTACK_IO_FSYNC:
    r = fsync(j->fd);
    break;
  case COPYSTACK_IO_FDATASYNC:
    r = fdatasync(j->fd);
    break;
  case COPYSTACK_IO_FLOCK:
    r = flock(j->fd, static_cast<int>(j->n[0]));
    break;
  case COPYSTACK_IO_LOCKF:
    r = lockf(j->fd, static_cast<int>(j->n[0]), static_cast<off_t>(j->n[1]));
    break;
  case COPYSTACK_IO_FCNTL_LOCK:
    r = fcntl(j->fd, static_cast<int>(j->n[0]), &j->lock);
    break;
  case COPYSTACK_IO_WAITPID:
    r = waitpid(static_cast<pid_t>(j->n[0]), &j->status,
                static_cast<int>(j->n[1]));
    break;
  case COPYSTACK_IO_WAITID:
    r = waitid(static_cast<idtype_t>(j->n[0]), static_cast<id_t>(j->n[1]),
               &j->info, static_cast<int>(j->n[2]));
    break;
  case COPYSTACK_IO_GETADDRINFO:
    r = getaddrinfo(j->node, j->service, j->has_hints ? &j->hints : nullptr,
                    &j->res);
    break;
  default:
    fatal("an I/O thread was given a call of kind %d", j->kind);
  }
  j->result = r;
  j->err = errno;
}

// Sets done and wakes the task; the job is the task's from here on.
void complete(Job *j) {
  j->done.store(1, std::memory_order_release);
  futex_wake(&j->done, 1, ~0u);
}

void *io_thread(void *) {
  RuntimeThread counted;
  pthread_setname_np(pthread_self(), "copystack-io"); // for ps, gdb, perf
  std::unique_lock<std::mutex> l(g_pool.lock);
  for (;;) {
    while (!g_pool.head) {
      ++g_pool.idle;
      g_pool.work.wait(l);
      --g_pool.idle;
    }
    Job *j = g_pool.head;
    g_pool.head = j->next;
    if (!g_pool.head)
      g_pool.tail = nullptr;
    j->running = true;
    l.unlock();
    run(j);
    l.lock();
    unlink_inflight(j);
    complete(j); // under the lock: a fork sees it done or in flight
  }
  return nullptr;
}

// Starts an I/O thread if every one is busy and there is room (pool lock
// held). False if none runs at all: the caller makes the call in place.
bool ensure_thread() {
  if (g_pool.idle > 0 || g_pool.threads >= kMaxThreads)
    return g_pool.threads > 0;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  // getaddrinfo's resolver wants room (glibc's threads get 8 MiB).
  pthread_attr_setstacksize(&attr, 1 << 20);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t tid;
  int rc = pthread_create(&tid, &attr, io_thread, nullptr);
  pthread_attr_destroy(&attr);
  if (rc == 0)
    ++g_pool.threads;
  return g_pool.threads > 0;
}

// Queues j; false if no I/O thread could be started.
bool submit(Job *j) {
  std::lock_guard<std::mutex> g(g_pool.lock);
  if (!ensure_thread())
    return false;
  j->next = nullptr;
  if (g_pool.tail)
    g_pool.tail->next = j;
  else
    g_pool.head = j;
  g_pool.tail = j;
  link_inflight(j);
  g_pool.work.notify_one();
  return true;
}

void free_job(Job *j) {
  free(j->buf);
  free(j->node);
  free(j->service);
  delete j;
}

constexpr auto finish = finish_call; // netpoll.h
constexpr auto fail = fail_call;

// The in-place answer (also for callers the pool cannot serve): the
// blocking call itself.
int in_place(copystack_io_call *c, IoWait *w) {
  return finish(c, w, io_blocking_call(c));
}

// The bytes of a read or write call's buffer or vector.
size_t data_length(const copystack_io_call *c) {
  if (c->kind == COPYSTACK_IO_READV || c->kind == COPYSTACK_IO_WRITEV) {
    auto *iov = static_cast<const iovec *>(c->p[0]);
    size_t n = 0;
    for (int64_t i = 0; i < c->n[0]; ++i)
      n += iov[i].iov_len;
    return n;
  }
  return static_cast<size_t>(c->n[0]);
}

// Copies between the call's buffer or vector, from byte `from` on, and
// flat (a read's result out, a write's data in).
void copy_data(const copystack_io_call *c, size_t from, char *flat,
               size_t len, bool out) {
  if (c->kind == COPYSTACK_IO_READV || c->kind == COPYSTACK_IO_WRITEV) {
    auto *iov = static_cast<const iovec *>(c->p[0]);
    size_t skip = from;
    for (int64_t i = 0; i < c->n[0] && len; ++i) {
      size_t l = iov[i].iov_len;
      if (skip >= l) {
        skip -= l;
        continue;
      }
      size_t k = std::min(l - skip, len);
      char *user = static_cast<char *>(iov[i].iov_base) + skip;
      if (out)
        memcpy(user, flat, k);
      else
        memcpy(flat, user, k);
      flat += k;
      len -= k;
      skip = 0;
    }
    return;
  }
  char *user = static_cast<char *>(c->p[0]) + from;
  if (out)
    memcpy(user, flat, len);
  else
    memcpy(flat, user, len);
}

bool is_read(int kind) {
  return kind == COPYSTACK_IO_READ || kind == COPYSTACK_IO_READV ||
         kind == COPYSTACK_IO_PREAD;
}

bool is_transfer(int kind) {
  return is_read(kind) || kind == COPYSTACK_IO_WRITE ||
         kind == COPYSTACK_IO_WRITEV || kind == COPYSTACK_IO_PWRITE;
}

// The in-place attempt that cannot block: what it returns (with errno),
// or -2 with errno EAGAIN when the call must go to the pool. *done: bytes
// a read or write moved in place (the rest goes to the pool).
int64_t try_in_place(copystack_io_call *c, uint64_t *done) {
  const int fd = c->fd;
  *done = 0;
  // A probe that fails leaves errno set; a call made in place after it
  // must see the caller's, which a success leaves as it was.
  const int saved = errno;
  auto blocking = [&] {
    errno = saved;
    return io_blocking_call(c);
  };
  // pread and pwrite at a negative offset fail with EINVAL; the vectored
  // forms would take it for the file position.
  if ((c->kind == COPYSTACK_IO_PREAD || c->kind == COPYSTACK_IO_PWRITE) &&
      c->n[1] < 0)
    return blocking();
  switch (c->kind) {
  case COPYSTACK_IO_READ:
  case COPYSTACK_IO_READV:
  case COPYSTACK_IO_PREAD: {
    size_t len = data_length(c);
    if (len == 0)
      return blocking();
    int64_t r;
    if (c->kind == COPYSTACK_IO_READV) {
      r = preadv2(fd, static_cast<const iovec *>(c->p[0]),
                  static_cast<int>(c->n[0]), -1, RWF_NOWAIT);
    } else {
      iovec iov = {c->p[0], len};
      r = preadv2(fd, &iov, 1, c->kind == COPYSTACK_IO_PREAD ? c->n[1] : -1,
                  RWF_NOWAIT);
    }
    if (r < 0 && errno == EOPNOTSUPP)
      return blocking(); // a file system that cannot say (tmpfs)
    if (r < 0 && errno != EAGAIN)
      return r;
    if (r == 0 || static_cast<size_t>(r) == len)
      return r;       // the end of the file, or all of it
    *done = r > 0 ? static_cast<uint64_t>(r) : 0;
    errno = EAGAIN;
    return -2;
  }
  case COPYSTACK_IO_WRITE:
  case COPYSTACK_IO_WRITEV:
  case COPYSTACK_IO_PWRITE: {
    // Buffered writes without waiting, where the file system supports it:
    // what would wait goes to the pool. Where it does not (ext4 on 6.18:
    // EOPNOTSUPP, remembered for the descriptor, so the refused probe
    // costs one call and not one per write), the write is made in place,
    // as Go's runtime makes it: it copies into the page cache and rarely
    // waits (when it does, the monitor hands the worker's tasks to a
    // spare). Measured on ext4: a hop to an I/O thread made a 128 KiB
    // pwrite cost 100 us instead of 4.5, and a 4 KiB one twice its time.
    size_t len = data_length(c);
    PollDesc *pd = poll_desc(fd);
    uint8_t nowait = pd ? pd->nowait_writes.load(std::memory_order_relaxed) : 0;
    int64_t r = -1;
    if (nowait == 1) {
      errno = EOPNOTSUPP;
    } else {
      if (c->kind == COPYSTACK_IO_WRITEV) {
        r = pwritev2(fd, static_cast<const iovec *>(c->p[0]),
                     static_cast<int>(c->n[0]), -1, RWF_NOWAIT);
      } else {
        iovec iov = {c->p[0], len};
        r = pwritev2(fd, &iov, 1,
                     c->kind == COPYSTACK_IO_PWRITE ? c->n[1] : -1,
                     RWF_NOWAIT);
      }
      // A write of nothing returns before the flag is looked at.
      if (pd && nowait == 0 && len &&
          (r >= 0 || errno == EAGAIN || errno == EOPNOTSUPP)) {
        int err = errno;
        pd->nowait_writes.store(r < 0 && err == EOPNOTSUPP ? 1 : 2,
                                std::memory_order_relaxed);
        errno = err;
      }
    }
    if (r < 0 && errno == EOPNOTSUPP)
      return blocking();
    if (r >= 0 && static_cast<size_t>(r) == len)
      return r;
    if (r < 0 && errno != EAGAIN && errno != EOPNOTSUPP)
      return r;
    *done = r > 0 ? static_cast<uint64_t>(r) : 0;
    errno = EAGAIN;
    return -2;
  }
  case COPYSTACK_IO_FLOCK: {
    int op = static_cast<int>(c->n[0]);
    int64_t r = flock(fd, op | LOCK_NB);
    if (r == 0 || (op & LOCK_NB) || errno != EWOULDBLOCK)
      return r;
    errno = EAGAIN;
    return -2;
  }
  case COPYSTACK_IO_LOCKF: {
    // Only F_LOCK waits; the other commands are made as they are.
    const int cmd = static_cast<int>(c->n[0]);
    if (cmd != F_LOCK)
      return blocking();
    int64_t r = lockf(fd, F_TLOCK, static_cast<off_t>(c->n[1]));
    if (r == 0 || (errno != EACCES && errno != EAGAIN))
      return r;
    errno = EAGAIN;
    return -2;
  }
  case COPYSTACK_IO_FCNTL_LOCK: {
    // The lock is tried without waiting, with the caller's struct flock
    // (F_SETLK writes nothing back).
    const int cmd = static_cast<int>(c->n[0]);
    const int now = cmd == F_OFD_SETLKW ? F_OFD_SETLK : F_SETLK;
    if (cmd != F_SETLKW && cmd != F_OFD_SETLKW)
      return blocking();
    int64_t r = fcntl(fd, now, c->p[0]);
    if (r == 0 || (errno != EACCES && errno != EAGAIN))
      return r;
    errno = EAGAIN;
    return -2;
  }
  case COPYSTACK_IO_WAITPID: {
    int options = static_cast<int>(c->n[1]);
    int status = 0;
    int64_t r = waitpid(static_cast<pid_t>(c->n[0]), &status,
                        options | WNOHANG);
    if (r != 0 || (options & WNOHANG)) {
      if (r > 0 && c->p[0])
        *static_cast<int *>(c->p[0]) = status;
      return r;
    }
    errno = EAGAIN;
    return -2;
  }
  case COPYSTACK_IO_WAITID: {
    // With WNOHANG, waitid returns 0 and leaves si_pid 0 when no child
    // has changed state.
    const int options = static_cast<int>(c->n[2]);
    auto *info = static_cast<siginfo_t *>(c->p[0]);
    if (!info || (options & WNOHANG))
      return blocking();
    siginfo_t now{};
    int64_t r = waitid(static_cast<idtype_t>(c->n[0]),
                       static_cast<id_t>(c->n[1]), &now, options | WNOHANG);
    if (r != 0 || now.si_pid != 0) {
      if (r == 0)
        *info = now;
      return r;
    }
    errno = EAGAIN;
    return -2;
  }
  default: // fsync, fdatasync, getaddrinfo: to the pool
    errno = EAGAIN;
    return -2;
  }
}

// The job for c's call from byte `done` on (a read's rest); null if the
// memory for it is not there (the call is then made in place).
Job *make_job(copystack_io_call *c, uint64_t done) {
  auto *j = new (std::nothrow) Job;
  if (!j)
    return nullptr;
  j->kind = c->kind;
  j->fd = c->fd;
  memcpy(j->n, c->n, sizeof j->n);
  if (is_transfer(c->kind)) {
    j->len = data_length(c) - done;
    j->buf = static_cast<char *>(malloc(j->len ? j->len : 1));
    if (!j->buf) {
      delete j;
      return nullptr;
    }
    if (!is_read(c->kind))
      copy_data(c, done, j->buf, j->len, false);
    if (c->kind == COPYSTACK_IO_PREAD || c->kind == COPYSTACK_IO_PWRITE)
      j->n[1] += static_cast<int64_t>(done);
  } else if (c->kind == COPYSTACK_IO_FCNTL_LOCK) {
    j->lock = *static_cast<const struct flock *>(c->p[0]);
  } else if (c->kind == COPYSTACK_IO_GETADDRINFO) {
    auto *node = static_cast<const char *>(c->p[0]);
    auto *service = static_cast<const char *>(c->p[1]);
    j->node = node ? strdup(node) : nullptr;
    j->service = service ? strdup(service) : nullptr;
    if ((node && !j->node) || (service && !j->service)) {
      free_job(j);
      return nullptr;
    }
    if (auto *hints = static_cast<const addrinfo *>(c->p[2])) {
      // Only the fields getaddrinfo reads from hints.
      j->hints.ai_flags = hints->ai_flags;
      j->hints.ai_family = hints->ai_family;
      j->hints.ai_socktype = hints->ai_socktype;
      j->hints.ai_protocol = hints->ai_protocol;
      j->has_hints = true;
    }
  }
  return j;
}

// The task runs again with its job done: the results to the call.
int collect(copystack_io_call *c, IoWait *w, Job *j) {
  if (j->call) { // pool_hop: the results are in place already
    san::acquire(j);
    int64_t r = j->result;
    int err = j->err;
    free_job(j);
    w->job = nullptr;
    __copystack_thread.task->stack_held = 0;
    return r < 0 ? fail(c, w, err) : finish(c, w, r);
  }
  uint64_t before = w->done; // bytes a read moved in place
  int64_t r = j->result;
  int err = j->err;
  if (r > 0 && is_read(c->kind))
    copy_data(c, before, j->buf, static_cast<size_t>(r), true);
  if (c->kind == COPYSTACK_IO_WAITPID && r > 0 && c->p[0])
    *static_cast<int *>(c->p[0]) = j->status;
  if (c->kind == COPYSTACK_IO_WAITID && r == 0)
    *static_cast<siginfo_t *>(c->p[0]) = j->info;
  if (c->kind == COPYSTACK_IO_GETADDRINFO && r == 0)
    *static_cast<addrinfo **>(c->p[3]) = j->res;
  free_job(j);
  w->job = nullptr;
  if (is_transfer(c->kind)) {
    if (r < 0 && before)
      return finish(c, w, static_cast<int64_t>(before));
    if (r >= 0)
      r += static_cast<int64_t>(before);
  }
  if (r < 0)
    return fail(c, w, err);
  return finish(c, w, r);
}

// The task parks until j, queued, is done (done: the bytes its call moved
// in place before).
int wait_for_job(copystack_io_call *c, IoWait *w, Job *j, uint64_t done) {
  if (!w)
    w = new_wait(0);
  w->started = now_ns();
  w->done = done;
  w->job = j;
  w->futex = &j->done;
  w->futex_val = 0;
  w->futex_bits = ~0u;
  w->call_deadline = 0;
  w->interrupt = kNever;
  c->wait = w;
  return park_pending(COPYSTACK_MUST_PARK);
}

} // namespace

bool pool_takes_file_call(const copystack_io_call *c) {
  return data_length(c) <= kMaxCopy;
}

int pool_call(copystack_io_call *c, IoWait *w, WaitEnd end) {
  (void)end; // only the job's completion ends the wait
  if (w && w->job) {
    auto *j = static_cast<Job *>(w->job);
    if (j->done.load(std::memory_order_acquire))
      return collect(c, w, j);
    // Woken early (a wake on the word from elsewhere): wait on.
    w->futex = &j->done;
    w->futex_val = 0;
    return park_pending(COPYSTACK_MUST_PARK);
  }
  const int saved = errno;
  uint64_t done = 0;
  int64_t r = try_in_place(c, &done);
  if (r != -2)
    return finish(c, w, r);
  // The probe's EAGAIN is not the call's: a task parks with its errno and
  // returns with it when the call succeeds.
  errno = saved;
  Job *j = make_job(c, done);
  if (!j)
    return in_place(c, w);
  if (!submit(j)) {
    free_job(j);
    return in_place(c, w);
  }
  return wait_for_job(c, w, j, done);
}

bool pool_may_hop(const copystack_io_call *c) {
  switch (c->kind) {
  case COPYSTACK_IO_FD_WAIT:
  case COPYSTACK_IO_READ:
  case COPYSTACK_IO_WRITE:
  case COPYSTACK_IO_READV:
  case COPYSTACK_IO_WRITEV:
  case COPYSTACK_IO_RECV:
  case COPYSTACK_IO_RECVFROM:
  case COPYSTACK_IO_RECVMSG:
  case COPYSTACK_IO_SEND:
  case COPYSTACK_IO_SENDTO:
  case COPYSTACK_IO_SENDMSG:
  case COPYSTACK_IO_ACCEPT4:
  case COPYSTACK_IO_CONNECT:
  case COPYSTACK_IO_POLL:
  case COPYSTACK_IO_SELECT:
  case COPYSTACK_IO_PREAD:
  case COPYSTACK_IO_PWRITE:
    return true;
  default: // a signal mask, a lock of the thread's own, a futex, a sleep
    return false;
  }
}

int pool_hop(copystack_io_call *c) {
  auto *j = new (std::nothrow) Job;
  if (!j)
    return 0;
  j->kind = c->kind;
  j->call = c;
  Task *t = __copystack_thread.task;
  t->stack_held = 1; // before an I/O thread may read the stack
  san::release(j);
  if (!submit(j)) {
    t->stack_held = 0;
    delete j;
    return 0;
  }
  return wait_for_job(c, nullptr, j, 0);
}

void io_pool_fork_lock() { g_pool.lock.lock(); }
void io_pool_fork_unlock() { g_pool.lock.unlock(); }

void io_pool_after_fork_child() {
  // This thread held the lock across the fork (io_pool_fork_lock) and has
  // released it; the parent's I/O threads that waited for work are gone.
  new (&g_pool.work) std::condition_variable;
  g_pool.threads = 0;
  g_pool.idle = 0;
  for (Job *j = g_pool.inflight, *next; j; j = next) {
    next = j->anext;
    if (!j->running)
      continue;
    unlink_inflight(j);
    j->result = -1;
    j->err = EINTR;
    complete(j);
  }
  std::lock_guard<std::mutex> g(g_pool.lock);
  if (g_pool.head)
    ensure_thread();
}

int io_pool_threads() {
  std::lock_guard<std::mutex> g(g_pool.lock);
  return g_pool.threads;
}

} // namespace copystack_rt
