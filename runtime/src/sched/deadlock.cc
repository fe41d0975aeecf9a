// deadlock.cc: the deadlock check (deadlock.h).
#include "platform/split_stack_notes.h"
#include "sched/deadlock.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"
#include "sched/scheduler.h"
#include "sched/task.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

namespace copystack_rt {

namespace {

std::atomic<int> g_runtime_threads{0};
thread_local int t_runtime_depth;
std::atomic<int64_t> g_external_waits{0};
// One check at a time; a check that finds another under way leaves it.
std::mutex g_check_lock;
// A check was asked for while another ran: the one running looks again
// once it is done (the asker's state may have changed after its look
// began: a worker still finishing the last task that parked, which the
// look saw running).
std::atomic<bool> g_check_again{false};

// The threads of the process (/proc/self/stat, field 20), or -1. Raw
// system calls: the descriptor is the runtime's for a moment, and
// ThreadSanitizer, which tracks descriptors through the C library's calls,
// would take its number, reused by the next open in another thread (a
// memfd_create it does not see), for an object the two share.
int os_threads() {
  int fd = static_cast<int>(
      syscall(SYS_openat, AT_FDCWD, "/proc/self/stat", O_RDONLY | O_CLOEXEC));
  if (fd < 0)
    return -1;
  char buf[1024];
  ssize_t n = syscall(SYS_read, fd, buf, sizeof buf - 1);
  syscall(SYS_close, fd);
  if (n <= 0)
    return -1;
  buf[n] = 0;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  const char *p = strrchr(buf, ')');
  if (!p)
    return -1;
  // The space before each of fields 3 (state) to 20 (num_threads).
  for (int field = 3; field <= 20; ++field) {
    p = strchr(p + 1, ' ');
    if (!p)
      return -1;
  }
  return atoi(p + 1);
}

// Everything but the tasks themselves: nothing that could end a wait.
bool nothing_could_wake() {
  if (!scheduler_quiet())
    return false;
  if (timers_pending() != 0 || g_external_waits.load() != 0)
    return false;
  int threads = os_threads();
  return threads > 0 &&
         threads <= g_runtime_threads.load() + san::internal_threads();
}

struct Look {
  uint32_t deadline_ms = coarse_ms() + kObservePatienceMs;
  std::vector<Task *> held;
  bool asleep = true; // every task seen so far waits on a task primitive
};

void hold_if_asleep(Task *t, void *arg) {
  auto *look = static_cast<Look *>(arg);
  uint8_t state = t->state.load(std::memory_order_acquire);
  // A task lost in a fork (sched/fork.cc) never runs again: asleep.
  if (!look->asleep || state == kFree || state == kLost)
    return;
  if (!hold_task_until(t, look->deadline_ms)) { // running
    look->asleep = false;
    return;
  }
  look->held.push_back(t);
  if (!waits_on_tasks(t->wait_reason.load(std::memory_order_acquire)))
    look->asleep = false;
}

} // namespace

RuntimeThread::RuntimeThread() {
  if (t_runtime_depth++ == 0)
    g_runtime_threads.fetch_add(1);
}

RuntimeThread::~RuntimeThread() {
  if (--t_runtime_depth == 0)
    g_runtime_threads.fetch_sub(1);
}

void deadlock_fork_lock() { g_check_lock.lock(); }
void deadlock_fork_unlock() { g_check_lock.unlock(); }

void deadlock_after_fork_child() {
  g_runtime_threads.store(t_runtime_depth > 0 ? 1 : 0);
}

void external_wait_begin() { g_external_waits.fetch_add(1); }
void external_wait_end() { g_external_waits.fetch_sub(1); }

void check_deadlock() {
  if (live_tasks() == 0 || !nothing_could_wake())
    return;
  g_check_again.store(true);
  for (;;) {
    {
      std::unique_lock<std::mutex> g(g_check_lock, std::try_to_lock);
      if (!g.owns_lock())
        return; // its holder looks again when it is done
      g_check_again.store(false);
      Look look;
      for_each_task(hold_if_asleep, &look);
      // With every task held, nothing that could wake one may have
      // started meanwhile: look at the rest again.
      bool dead = look.asleep && !look.held.empty() && nothing_could_wake();
      for (Task *t : look.held)
        release_task(t);
      if (dead)
        die("fatal error: all tasks are asleep - deadlock!\n", -1,
            FrameStart{});
    }
    // Asked again while this look ran: that worker returned, counting on
    // this one. Otherwise done.
    if (!g_check_again.load() || live_tasks() == 0 || !nothing_could_wake())
      return;
  }
}

} // namespace copystack_rt
