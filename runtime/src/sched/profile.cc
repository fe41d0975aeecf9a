// profile.cc: profiles in pprof's format (profile.h).
#include "sched/profile.h"

#include "core/copy.h"
#include "core/shrink.h"
#include "core/frame_info.h"
#include "platform/config.h"
#include "platform/demangle.h"
#include "platform/fatal.h"
#include "platform/once.h"
#include "platform/pprof.h"
#include "platform/runtime.h"
#include "platform/sanitizers.h"
#include "platform/spinlock.h"
#include "platform/stats.h"
#include "platform/ticks.h"
#include "sched/dump.h"
#include "sched/observe.h"
#include "sched/task_frames.h"

#include "copystack/copystack.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <time.h>

namespace copystack_rt {
namespace profile {

std::atomic<unsigned> g_recording{0};

namespace {

// Distinct call stacks kept per profile.
constexpr size_t kMaxProfileStacks = 65536;

// The block profile's word in the task (profile.h): the park's time in
// ticks (platform/ticks.h) since g_base, then, once woken, how long it
// waited; a flag for the second; the wait reason in the low byte. 55 bits
// of ticks wrap after months: a wait is their difference, modulo 2^55.
constexpr uint64_t kWokenBit = uint64_t(1) << 8;
constexpr int kTimeShift = 9;
constexpr uint64_t kTimeMask = (uint64_t(1) << (64 - kTimeShift)) - 1;
TickBase g_base; // set by the first start, before anything records
Once g_based;

uint64_t since_base() { return (ticks() - g_base.ticks) & kTimeMask; }

// Samples summed per (label, call stack). The tables are the runtime's,
// under its spin locks, which ThreadSanitizer does not see: their reads
// and writes are unseen (san::UnseenScope), as the runtime's other work
// on the threads' stacks is.
struct Entry {
  uint64_t hash = 0; // 0: an empty slot
  uintptr_t *pcs = nullptr;
  int n = 0;
  uint8_t label = 0;
  int64_t v[2] = {0, 0};
};

struct Table {
  SpinLock lock;
  Entry *slots = nullptr;
  size_t cap = 0, n = 0;
  int64_t overflow[2] = {0, 0}; // samples past kMaxProfileStacks
  uint64_t start_ns = 0;        // since when (CLOCK_REALTIME)

  static uint64_t hash_of(const uintptr_t *pcs, int n, uint8_t label) {
    uint64_t h = 0xcbf29ce484222325ull ^ label;
    for (int i = 0; i < n; ++i)
      h = (h ^ pcs[i]) * 0x100000001b3ull;
    return h ? h : 1;
  }

  bool grow() {
    size_t ncap = cap ? cap * 2 : 256;
    auto *ns = static_cast<Entry *>(calloc(ncap, sizeof(Entry)));
    if (!ns)
      return false;
    for (size_t i = 0; i < cap; ++i) {
      if (!slots[i].hash)
        continue;
      size_t j = slots[i].hash & (ncap - 1);
      while (ns[j].hash)
        j = (j + 1) & (ncap - 1);
      ns[j] = slots[i];
    }
    free(slots);
    slots = ns, cap = ncap;
    return true;
  }

  // Adds v0, v1 to the stack's entry (lock held).
  void add(const uintptr_t *pcs, int n, uint8_t label, int64_t v0,
           int64_t v1) {
    const uint64_t h = hash_of(pcs, n, label);
    if (cap) {
      for (size_t j = h & (cap - 1); slots[j].hash; j = (j + 1) & (cap - 1)) {
        Entry &e = slots[j];
        if (e.hash == h && e.n == n && e.label == label &&
            memcmp(e.pcs, pcs, sizeof(uintptr_t) * n) == 0) {
          e.v[0] += v0, e.v[1] += v1;
          return;
        }
      }
    }
    uintptr_t *copy = nullptr;
    if (this->n >= kMaxProfileStacks || ((this->n + 1) * 2 > cap && !grow()) ||
        !(copy = static_cast<uintptr_t *>(malloc(sizeof(uintptr_t) * (n + 1))))) {
      overflow[0] += v0, overflow[1] += v1;
      return;
    }
    memcpy(copy, pcs, sizeof(uintptr_t) * n);
    size_t j = h & (cap - 1);
    while (slots[j].hash)
      j = (j + 1) & (cap - 1);
    slots[j] = Entry{h, copy, n, label, {v0, v1}};
    ++this->n;
  }

  void clear() {
    for (size_t i = 0; i < cap; ++i)
      free(slots[i].pcs);
    free(slots);
    slots = nullptr;
    cap = n = 0;
    overflow[0] = overflow[1] = 0;
  }
};

Table g_growth, g_block;

uint64_t realtime_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<uint64_t>(ts.tv_nsec);
}

} // namespace

void growth(const Task *t, uintptr_t pc, uintptr_t sp, uintptr_t fp,
            uint64_t copied) {
  TaskFrames f;
  walk_frames(f, pc, sp, fp, t->stack.lo, t->stack.hi);
  san::UnseenScope unseen;
  std::lock_guard<SpinLock> l(g_growth.lock);
  g_growth.add(f.pc, f.n, 0, 1, static_cast<int64_t>(copied));
}

void parked(Task *t) { t->blocked = since_base() << kTimeShift; }

void woken(Task *t, uint8_t reason) {
  const uint64_t b = t->blocked;
  if (!b || (b & kWokenBit))
    return; // parked before recording started, or woken twice
  uint64_t waited = (since_base() - (b >> kTimeShift)) & kTimeMask;
  if (waited > kTimeMask / 2) // counters a CPU apart (never where the
    waited = 0;               // kernel uses them): not months

  t->blocked = (waited << kTimeShift) | kWokenBit | reason;
}

void resumed(Task *t) {
  const uint64_t b = t->blocked;
  t->blocked = 0;
  if (!recording(kBlock))
    return;
  // A preempted task's word was its ticket (sched/preempt.h): no park.
  if (!(b & kWokenBit) || task_preempted(t))
    return;
  TaskFrames f;
  walk_suspended(f, t);
  san::UnseenScope unseen;
  std::lock_guard<SpinLock> l(g_block.lock);
  g_block.add(f.pc, f.n, static_cast<uint8_t>(b), 1,
              static_cast<int64_t>(b >> kTimeShift));
}

// ---- writing -----------------------------------------------------------------

namespace {

// Function names for the writer: the dynamic symbol or the frame map's
// name (frame_info.h symbol_name), demangled.
bool name_pc(uintptr_t pc, const char **name, const char **system_name) {
  static char buf[1024];
  const char *sym = symbol_name(pc);
  if (!sym || strcmp(sym, "<unknown>") == 0)
    return false;
  *system_name = sym;
  *name = demangle(sym, buf, sizeof buf);
  return true;
}

// ticks_delay: the second value is a time in ticks, written in ns.
int write_table(Table &t, const PprofValueType *types, const char *label_key,
                bool ticks_delay, const char *path) {
  PprofWriter w(types, 2, types[0], 1);
  const TickBase now = tick_base();
  auto ns = [&](int64_t v) {
    return static_cast<int64_t>(
        ticks_to_ns(g_base.ticks + static_cast<uint64_t>(v), g_base, now));
  };
  {
    san::UnseenScope unseen;
    std::lock_guard<SpinLock> l(t.lock);
    for (size_t i = 0; i < t.cap; ++i) {
      const Entry &e = t.slots[i];
      if (!e.hash)
        continue;
      char buf[64];
      const char *label =
          label_key ? wait_reason_name(e.label, buf, sizeof buf) : nullptr;
      const int64_t v[2] = {e.v[0], ticks_delay ? ns(e.v[1]) : e.v[1]};
      w.add(e.pcs, e.n, v, PprofLeaf::kReturnAddress, label_key, label);
    }
    if (t.overflow[0]) {
      // No frames to give: a label says what the sample is.
      const int64_t v[2] = {t.overflow[0],
                            ticks_delay ? ns(t.overflow[1]) : t.overflow[1]};
      w.add(nullptr, 0, v, PprofLeaf::kReturnAddress, "stacks",
            "too many distinct stacks: not recorded apart");
    }
    uint64_t now = realtime_ns();
    w.set_times(static_cast<int64_t>(t.start_ns),
                static_cast<int64_t>(t.start_ns ? now - t.start_ns : 0));
  }
  return w.write(path, name_pc);
}

// The tasks profile: every live task's spawn site, with what it does now.
struct TaskCount {
  PprofWriter *w;
};

void count_task(Task *t, void *arg) {
  const uint8_t state = t->state.load(std::memory_order_acquire);
  if (state == kFree)
    return;
  auto *c = static_cast<TaskCount *>(arg);
  const uint8_t r = t->wait_reason.load(std::memory_order_relaxed);
  char buf[64];
  const char *doing = state == kRunning ? "running"
                      : state == kLost  ? "lost in fork"
                      : r == kWaitNone  ? "runnable"
                                        : wait_reason_name(r, buf, sizeof buf);
  const int64_t one = 1;
  const uintptr_t pc = t->spawn_pc;
  c->w->add(&pc, pc ? 1 : 0, &one, PprofLeaf::kReturnAddress, "state",
            doing);
}

int write_tasks(const char *path) {
  static const PprofValueType type{"tasks", "count"};
  PprofWriter w(&type, 1, type, 1);
  TaskCount c{&w};
  for_each_task(count_task, &c);
  w.set_times(static_cast<int64_t>(realtime_ns()), 0);
  return w.write(path, name_pc);
}

// The growth and block tables are written one at a time: the namer's
// buffer is shared.
std::mutex g_write_lock;

} // namespace

int start(unsigned which) {
  if (!which || (which & ~kAll))
    return EINVAL;
  g_based.call([] { g_base = tick_base(); });
  // A profile started anew forgets what an earlier start recorded.
  Table *tables[] = {&g_growth, &g_block};
  const unsigned bits[] = {kGrowth, kBlock};
  for (int i = 0; i < 2; ++i) {
    if (!(which & bits[i]) || recording(bits[i]))
      continue;
    san::UnseenScope unseen;
    std::lock_guard<SpinLock> l(tables[i]->lock);
    tables[i]->clear();
    tables[i]->start_ns = realtime_ns();
  }
  g_recording.fetch_or(which & (kGrowth | kBlock));
  if (which & kBlock)
    set_observer(kObserveBlock, true);
  return 0;
}

int stop(unsigned which) {
  if (!which || (which & ~kAll))
    return EINVAL;
  g_recording.fetch_and(~which);
  if (which & kBlock)
    set_observer(kObserveBlock, false);
  return 0;
}

int write(unsigned which, const char *path) {
  if (!path || !*path)
    return EINVAL;
  std::lock_guard<std::mutex> g(g_write_lock);
  switch (which) {
  case kGrowth: {
    static const PprofValueType types[2] = {{"copies", "count"},
                                            {"copied", "bytes"}};
    return write_table(g_growth, types, nullptr, false, path);
  }
  case kBlock: {
    static const PprofValueType types[2] = {{"contentions", "count"},
                                            {"delay", "nanoseconds"}};
    return write_table(g_block, types, "wait", true, path);
  }
  case kTasks:
    return write_tasks(path);
  default:
    return EINVAL;
  }
}

namespace {

// COPYSTACK_PROFILE_OUT=PREFIX: every profile recorded from the start,
// written at exit to PREFIX.growth.pb.gz, PREFIX.tasks.pb.gz and
// PREFIX.block.pb.gz (%p in it: the process id).
const char *g_prefix = nullptr;
char g_prefix_buf[4096];

void write_at_exit() {
  if (!g_prefix)
    return; // a forked child's exit
  static const struct {
    unsigned bit;
    const char *suffix;
  } kinds[] = {{kGrowth, "growth"}, {kTasks, "tasks"}, {kBlock, "block"}};
  stop(kAll);
  char path[4096];
  size_t n = 0;
  char list[3 * 4096 + 16];
  list[0] = 0;
  for (const auto &k : kinds) {
    snprintf(path, sizeof path, "%s.%s.pb.gz", g_prefix, k.suffix);
    if (int err = write(k.bit, path)) {
      report("COPYSTACK_PROFILE_OUT: could not write %s: %s", path,
             strerror(err));
      continue;
    }
    n += static_cast<size_t>(snprintf(list + n, sizeof list - n, "%s%s",
                                      n ? ", " : "", path));
    if (n >= sizeof list)
      n = sizeof list - 1;
  }
  if (list[0])
    report("profiles written: %s (go tool pprof -top PROGRAM FILE)", list);
}

__attribute__((constructor(200))) void start_from_environment() {
  if (!is_process_runtime())
    return;
  const char *prefix = config().profile_out;
  if (!prefix || !*prefix)
    return;
  g_prefix = expand_output_path(prefix, g_prefix_buf, sizeof g_prefix_buf);
  if (!g_prefix) {
    report("COPYSTACK_PROFILE_OUT: the path is too long");
    return;
  }
  start(kAll);
  atexit(write_at_exit);
}

} // namespace

void after_fork_child() {
  // The child records nothing and writes nothing at its exit (the parent
  // writes its profiles); the tables' locks may have been held by threads
  // the child does not have.
  g_recording.store(0);
  set_observer(kObserveBlock, false);
  g_prefix = nullptr;
  new (&g_growth.lock) SpinLock;
  new (&g_block.lock) SpinLock;
}

} // namespace profile
} // namespace copystack_rt

using namespace copystack_rt;

extern "C" int copystack_profile_start(unsigned which) {
  return profile::start(which);
}

extern "C" int copystack_profile_stop(unsigned which) {
  return profile::stop(which);
}

extern "C" int copystack_profile_write(unsigned which, const char *path) {
  return profile::write(which, path);
}
