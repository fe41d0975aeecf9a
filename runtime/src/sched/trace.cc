// trace.cc: execution traces (trace.h).
#include "sched/trace.h"

#include "core/frame_info.h"
#include "platform/config.h"
#include "platform/demangle.h"
#include "platform/fatal.h"
#include "platform/runtime.h"
#include "platform/sanitizers.h"
#include "platform/spinlock.h"
#include "platform/stats.h"
#include "sched/dump.h"
#include "sched/observe.h"
#include "sched/scheduler.h"
#include "sched/task.h"
#include "platform/thread.h"

#include "copystack/copystack.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace copystack_rt {

std::atomic<uint8_t> g_observers{0}; // observe.h

namespace trace {

std::atomic<bool> g_on{false};

namespace {

// One thread's events (or, one after the other, those of the threads that
// took over its stats block: thread_left). The header is never freed (a
// thread may still hold it after its trace was written: it then sees
// another session and makes a new ring); the events are taken by the
// writer, under the lock.
struct Ring {
  SpinLock lock;
  Event *ev = nullptr; // cap entries; null once written
  uint32_t cap = 0;
  uint32_t session = 0;
  uint64_t n = 0; // events ever appended: the next goes to ev[n % cap]
  int worker = -1; // the scheduler worker slot, or -1
  uint8_t reason = 0; // the reason a park's then() step gave (note_reason)
  uint64_t reason_task = 0; // and the task it was for
  std::atomic<bool> left{false}; // its thread ended: the next takes it on
  static constexpr int kTids = 4;
  int tids[kTids] = {}; // the first threads that recorded here
  int threads = 0;      // how many did
  char name[16] = {};   // the latest one's name
  Ring *next = nullptr;
};

// The calling thread records in r from now on.
void adopt(Ring *r) {
  const int tid = static_cast<int>(syscall(SYS_gettid));
  if (r->threads < Ring::kTids)
    r->tids[r->threads] = tid;
  ++r->threads;
  r->worker = -1;
  prctl(PR_GET_NAME, r->name, 0, 0, 0);
  r->name[sizeof r->name - 1] = 0;
}

struct State {
  SpinLock lock; // start, stop and the list of rings
  Ring *rings = nullptr;
  char *path = nullptr;
  TickBase t0; // when tracing started
  uint32_t cap = 0;
  bool from_env = false;
};

State g;
// Which trace a ring belongs to: stop() starts a new one.
std::atomic<uint32_t> g_session{1};

Ring *new_ring() {
  auto *r = new (std::nothrow) Ring;
  if (!r)
    return nullptr;
  adopt(r);
  std::lock_guard<SpinLock> l(g.lock);
  if (!on()) {
    delete r;
    return nullptr;
  }
  r->cap = g.cap;
  r->ev = static_cast<Event *>(malloc(sizeof(Event) * r->cap));
  if (!r->ev) {
    delete r;
    return nullptr;
  }
  r->session = g_session.load(std::memory_order_relaxed);
  r->next = g.rings;
  g.rings = r;
  return r;
}

} // namespace

namespace {
// The calling thread's ring for the trace being recorded, or null.
Ring *own_ring() {
  std::atomic<void *> &slot = thread_trace_ring();
  auto *r = static_cast<Ring *>(slot.load(std::memory_order_acquire));
  if (!r || r->session != g_session.load(std::memory_order_relaxed)) {
    r = new_ring();
    if (!r)
      return nullptr;
    slot.store(r, std::memory_order_release);
  } else if (r->left.load(std::memory_order_acquire)) {
    r->left.store(false, std::memory_order_relaxed);
    adopt(r);
  }
  if (r->worker < 0)
    r->worker = current_worker_slot();
  return r;
}

// The rings are the runtime's, under its spin locks, which ThreadSanitizer
// does not see: their reads and writes are unseen.
void append(Ring *r, const Event &e) {
  Event x = e;
  if (!x.ts)
    x.ts = now();
  san::UnseenScope unseen;
  std::lock_guard<SpinLock> l(r->lock);
  if (r->ev)
    r->ev[r->n++ % r->cap] = x;
}
} // namespace

void record(const Event &e) {
  if (Ring *r = own_ring())
    append(r, e);
}

void note_reason_slow(uint8_t reason) {
  const Task *t = __copystack_thread.task; // the parking task
  Ring *r = own_ring();
  if (r && t) {
    r->reason = reason;
    r->reason_task = t->id;
  }
}

void run_slow(uint64_t task, uintptr_t spawn_pc, uint64_t start,
              uint64_t end, RunEnd how, uint8_t reason) {
  Ring *r = own_ring();
  if (!r)
    return;
  if (r->reason && r->reason_task == task) // else: a run recorded before
    reason = r->reason;                    // its then() (late_run)
  r->reason = 0;
  if (!start) // it began before the trace: from the trace's start
    start = g.t0.ticks;
  if (end < start) // counters a CPU apart (never where the kernel uses them)
    end = start;
  append(r, Event{start, task, end - start, spawn_pc, 0, reason, kRun, how});
}

void thread_left(void *ring) {
  static_cast<Ring *>(ring)->left.store(true, std::memory_order_release);
}

// ---- the file -----------------------------------------------------------------

namespace {

// A buffered writer to a file descriptor; remembers the first error.
struct Out {
  int fd = -1;
  int err = 0;
  size_t len = 0;
  char buf[1 << 16];
  // Writes n bytes, through short writes and EINTR.
  void emit(const char *s, size_t n) {
    while (n && !err) {
      ssize_t w = ::write(fd, s, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        err = w < 0 ? errno : EIO;
        return;
      }
      s += w;
      n -= static_cast<size_t>(w);
    }
  }
  void flush() {
    emit(buf, len);
    len = 0;
  }
  void put(const char *s, size_t n) {
    if (len + n > sizeof buf)
      flush();
    if (n > sizeof buf) {
      emit(s, n);
      return;
    }
    memcpy(buf + len, s, n);
    len += n;
  }
  void printf(const char *fmt, ...) __attribute__((format(printf, 2, 3))) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
      put(tmp, static_cast<size_t>(n) < sizeof tmp ? static_cast<size_t>(n)
                                                   : sizeof tmp - 1);
  }
  // A JSON string, quoted and escaped.
  void str(const char *s) {
    put("\"", 1);
    for (; *s; ++s) {
      unsigned char ch = static_cast<unsigned char>(*s);
      if (ch == '"' || ch == '\\') {
        char esc[2] = {'\\', static_cast<char>(ch)};
        put(esc, 2);
      } else if (ch < 0x20) {
        printf("\\u%04x", ch);
      } else {
        put(s, 1);
      }
    }
    put("\"", 1);
  }
};

// An event in the merged list, with the ring (track) it came from.
struct Item {
  Event e;
  uint32_t ring;
  uint32_t seq; // order within the ring, for equal times
};

int by_time(const void *a, const void *b) {
  const auto *x = static_cast<const Item *>(a);
  const auto *y = static_cast<const Item *>(b);
  if (x->e.ts != y->e.ts)
    return x->e.ts < y->e.ts ? -1 : 1;
  if (x->ring != y->ring)
    return x->ring < y->ring ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

// What the writer knows of a task as it walks the events in time order.
enum TaskPhase : uint8_t { kUnknown, kRunnable, kWaiting, kEnded };
struct TaskTrack {
  uint64_t id = 0; // 0: an empty slot
  uint64_t since = 0; // the current phase's start
  uint64_t run_start = 0, run_end = 0; // its latest run
  uintptr_t spawn_pc = 0;
  uint8_t phase = kUnknown;
  uint8_t reason = 0;
};

// Tasks by id: open addressing, doubled when half full.
struct TaskTable {
  TaskTrack *slots = nullptr;
  size_t cap = 0, n = 0;
  bool grow() {
    size_t ncap = cap ? cap * 2 : 1024;
    auto *ns = static_cast<TaskTrack *>(calloc(ncap, sizeof(TaskTrack)));
    if (!ns)
      return false;
    for (size_t i = 0; i < cap; ++i)
      if (slots[i].id)
        *place(ns, ncap, slots[i].id) = slots[i];
    free(slots);
    slots = ns, cap = ncap;
    return true;
  }
  static TaskTrack *place(TaskTrack *s, size_t cap, uint64_t id) {
    size_t i = (id * 0x9e3779b97f4a7c15ull) & (cap - 1);
    while (s[i].id && s[i].id != id)
      i = (i + 1) & (cap - 1);
    return &s[i];
  }
  TaskTrack *get(uint64_t id) {
    if ((n + 1) * 2 > cap && !grow())
      return nullptr;
    TaskTrack *t = place(slots, cap, id);
    if (!t->id) {
      t->id = id;
      ++n;
    }
    return t;
  }
};

constexpr int kThreadsPid = 1;
constexpr int kTasksPid = 2;

// Trace-event times are microseconds: ns since the trace began, with three
// decimals, so that nothing is rounded away.
struct Micros {
  char s[32];
  explicit Micros(uint64_t ns) {
    snprintf(s, sizeof s, "%llu.%03llu",
             static_cast<unsigned long long>(ns / 1000),
             static_cast<unsigned long long>(ns % 1000));
  }
};

const char *run_end_name(uint8_t end) {
  switch (end) {
  case kDone: return "finished";
  case kPreempted: return "preempted";
  case kYielded: return "yielded";
  default: return "parked";
  }
}

const char *op_name(uint8_t op) {
  switch (op) {
  case kGrow: return "grow";
  case kMove: return "move";
  case kShrink: return "shrink";
  case kSuspendedMove: return "move (parked)";
  case kCompact: return "compact";
  default: return "expand";
  }
}

struct Writer {
  Out &o;
  uint64_t t0;
  bool first = true;
  uint64_t flows = 0;
  TaskTable tasks;

  Writer(Out &out, uint64_t start) : o(out), t0(start) {}

  uint64_t rel(uint64_t ts) const { return ts > t0 ? ts - t0 : 0; }

  void begin() {
    if (!first)
      o.put(",\n", 2);
    first = false;
  }
  // A complete slice ("X").
  void slice(int pid, uint64_t tid, const char *name, uint64_t ts,
             uint64_t dur, const char *args = nullptr) {
    if (ts < t0) { // a run that began before the trace: its traced part
      dur = dur > t0 - ts ? dur - (t0 - ts) : 0;
      ts = t0;
    }
    begin();
    o.printf("{\"ph\":\"X\",\"pid\":%d,\"tid\":%llu,\"ts\":%s,\"dur\":%s,"
             "\"name\":",
             pid, static_cast<unsigned long long>(tid), Micros(rel(ts)).s,
             Micros(dur).s);
    o.str(name);
    if (args)
      o.printf(",\"args\":{%s}", args);
    o.put("}", 1);
  }
  void instant(int pid, uint64_t tid, const char *name, uint64_t ts,
               const char *args) {
    begin();
    o.printf("{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%llu,\"ts\":%s,"
             "\"name\":",
             pid, static_cast<unsigned long long>(tid), Micros(rel(ts)).s);
    o.str(name);
    o.printf(",\"args\":{%s}}", args);
  }
  // An arrow from (pid, tid) at ts to the task's slice that starts at to.
  void flow(const char *name, int pid, uint64_t tid, uint64_t ts,
            uint64_t task, uint64_t to) {
    ++flows;
    begin();
    o.printf("{\"ph\":\"s\",\"id\":%llu,\"pid\":%d,\"tid\":%llu,\"ts\":%s,"
             "\"cat\":\"%s\",\"name\":\"%s\"},\n",
             static_cast<unsigned long long>(flows), pid,
             static_cast<unsigned long long>(tid), Micros(rel(ts)).s, name,
             name);
    o.printf("{\"ph\":\"f\",\"bp\":\"e\",\"id\":%llu,\"pid\":%d,\"tid\":%llu,"
             "\"ts\":%s,\"cat\":\"%s\",\"name\":\"%s\"}",
             static_cast<unsigned long long>(flows), kTasksPid,
             static_cast<unsigned long long>(task), Micros(rel(to)).s, name,
             name);
  }
  void track_name(int pid, uint64_t tid, const char *name, long sort) {
    begin();
    o.printf("{\"ph\":\"M\",\"pid\":%d,\"tid\":%llu,\"name\":\"thread_name\","
             "\"args\":{\"name\":",
             pid, static_cast<unsigned long long>(tid));
    o.str(name);
    o.printf("}},\n{\"ph\":\"M\",\"pid\":%d,\"tid\":%llu,"
             "\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%ld}}",
             pid, static_cast<unsigned long long>(tid), sort);
  }

  // The task leaves the phase it was in at ts: its slice for that phase.
  void end_phase(TaskTrack *t, uint64_t ts) {
    if (t->phase == kRunnable) {
      slice(kTasksPid, t->id, "runnable", t->since, ts - t->since);
    } else if (t->phase == kWaiting) {
      char buf[64];
      slice(kTasksPid, t->id, wait_reason_name(t->reason, buf, sizeof buf),
            t->since, ts - t->since);
    }
  }

  void event(const Item &it, const Ring *ring) {
    const Event &e = it.e;
    char args[512];
    switch (e.kind) {
    case kRun: {
      TaskTrack *t = tasks.get(e.task);
      if (!t)
        return;
      end_phase(t, e.ts);
      const uint64_t end = e.ts + e.a;
      char buf[64], name[32];
      const char *why = e.r == kParked
                            ? wait_reason_name(e.c, buf, sizeof buf)
                            : run_end_name(e.r);
      snprintf(args, sizeof args, "\"task\":%llu,\"then\":\"%s\"",
               static_cast<unsigned long long>(e.task), why);
      snprintf(name, sizeof name, "task %llu",
               static_cast<unsigned long long>(e.task));
      slice(kThreadsPid, it.ring + 1, name, e.ts, e.a, args);
      snprintf(args, sizeof args, "\"thread\":%d,\"then\":\"%s\"",
               ring->tids[0], why);
      slice(kTasksPid, e.task, "running", e.ts, e.a, args);
      t->run_start = e.ts;
      t->run_end = end;
      t->since = end;
      if (!t->spawn_pc) // its spawn may have been dropped
        t->spawn_pc = e.b;
      t->reason = e.c;
      t->phase = e.r == kDone     ? kEnded
                 : e.r == kParked ? kWaiting
                                  : kRunnable;
      return;
    }
    case kSpawn: {
      TaskTrack *t = tasks.get(e.task);
      if (!t)
        return;
      t->spawn_pc = e.b;
      if (made_latest_run(t, e.ts)) {
        from(e.a, it, "spawn", e.task, t->run_start);
        return;
      }
      t->phase = kRunnable;
      t->since = e.ts;
      from(e.a, it, "spawn", e.task);
      return;
    }
    case kWake: {
      TaskTrack *t = tasks.get(e.task);
      if (!t)
        return;
      if (t->phase == kRunnable)
        return; // woken while not waiting (a bound task's hand-back)
      if (made_latest_run(t, e.ts)) {
        from(e.a, it, "wake", e.task, t->run_start);
        return;
      }
      end_phase(t, e.ts);
      t->phase = kRunnable;
      t->since = e.ts;
      from(e.a, it, "wake", e.task);
      return;
    }
    case kStack: {
      char a[32], b[32], title[96], fn[256];
      snprintf(title, sizeof title, "%s %s -> %s", op_name(e.r),
               human_bytes(e.a, a, sizeof a), human_bytes(e.b, b, sizeof b));
      fn[0] = 0;
      if (e.pc) // named now: the events keep no pointer into a library
        demangle(symbol_name(e.pc), fn, sizeof fn);
      for (char *p = fn; *p; ++p) // it goes into a JSON string below
        if (*p == '"' || *p == '\\' || static_cast<unsigned char>(*p) < 32)
          *p = '?';
      snprintf(args, sizeof args,
               "\"old\":%llu,\"new\":%llu,\"copied\":%u,\"function\":\"%s\"",
               static_cast<unsigned long long>(e.a),
               static_cast<unsigned long long>(e.b), e.c, fn);
      instant(kTasksPid, e.task, title, e.ts, args);
      return;
    }
    case kCollect:
      snprintf(args, sizeof args, "\"shrunk\":%llu,\"compacted\":%u",
               static_cast<unsigned long long>(e.b), e.c);
      slice(kThreadsPid, it.ring + 1, "collect stacks", e.ts, e.a, args);
      return;
    case kPoll:
      snprintf(args, sizeof args, "\"made_runnable\":%llu",
               static_cast<unsigned long long>(e.b));
      slice(kThreadsPid, it.ring + 1, "poll", e.ts, e.a, args);
      return;
    }
  }

  // The arrow of a spawn or a wake: from the task that made it, within its
  // run (its run, recorded at its start, was read before this); a wake
  // from the then() step of a task's park comes just after the run's end,
  // and leaves from the run's last nanosecond. Otherwise (a thread made it,
  // or the task's run is not in the trace: it was still running when the
  // trace stopped) from the thread's track, where a one-nanosecond slice
  // marks it.
  // A spawn or wake stamped before the end of the task's latest run made
  // that run: the counter's resolution (AArch64's runs at tens of MHz) or
  // two threads' readings of it put the run's start first in time order.
  // Its arrow goes to the run; the task's phase is past it already.
  static bool made_latest_run(const TaskTrack *t, uint64_t ts) {
    return t->run_end && ts < t->run_end;
  }

  // The arrow from what made a task runnable (a task, or else the thread
  // that recorded it) to the task at to (by default the event's time).
  void from(uint64_t maker, const Item &it, const char *what, uint64_t task,
            uint64_t to = ~uint64_t(0)) {
    const uint64_t ts = it.e.ts;
    if (to == ~uint64_t(0))
      to = ts;
    if (TaskTrack *m = maker ? tasks.get(maker) : nullptr) {
      if (m->run_end && m->run_end >= ts) {
        flow(what, kTasksPid, maker, ts, task, to);
        return;
      }
      if (m->run_end && m->phase == kWaiting) {
        flow(what, kTasksPid, maker, m->run_end - 1, task, to);
        return;
      }
    }
    char name[48];
    snprintf(name, sizeof name, "%s task %llu", what,
             static_cast<unsigned long long>(task));
    slice(kThreadsPid, it.ring + 1, name, ts, 1);
    flow(what, kThreadsPid, it.ring + 1, ts, task, to);
  }

  // Tasks still runnable or waiting when the trace ends: their slices run
  // to its end.
  void finish(uint64_t end) {
    for (size_t i = 0; i < tasks.cap; ++i) {
      TaskTrack &t = tasks.slots[i];
      if (t.id) // at least a nanosecond: an arrow binds to it
        end_phase(&t, end > t.since ? end : t.since + 1);
    }
  }

  void name_tasks() {
    for (size_t i = 0; i < tasks.cap; ++i) {
      const TaskTrack &t = tasks.slots[i];
      if (!t.id)
        continue;
      char name[600], fn[512];
      if (t.spawn_pc) {
        demangle(symbol_name(t.spawn_pc - 1), fn, sizeof fn);
        snprintf(name, sizeof name, "task %llu (created by %s)",
                 static_cast<unsigned long long>(t.id), fn);
      } else {
        snprintf(name, sizeof name, "task %llu",
                 static_cast<unsigned long long>(t.id));
      }
      track_name(kTasksPid, t.id, name, static_cast<long>(t.id));
    }
  }
};

// A ring's events, taken for the file.
struct Taken {
  Ring *ring;
  Event *ev;
  uint64_t n;
};

// Takes every ring's events (they are the writer's from here) and writes
// the file.
int write_trace(const char *path, Ring *rings, const TickBase &from,
                uint64_t *events, uint64_t *dropped) {
  const TickBase to = tick_base();
  san::UnseenScope unseen;
  // Each ring's events are taken, with their count, under its lock, in
  // one pass: a thread that saw tracing on before stop() may still append
  // until then.
  size_t nrings = 0;
  for (Ring *r = rings; r; r = r->next)
    ++nrings;
  auto *taken = static_cast<Taken *>(calloc(nrings + 1, sizeof(Taken)));
  if (!taken)
    return ENOMEM;
  size_t total = 0;
  uint32_t index = 0;
  for (Ring *r = rings; r; r = r->next, ++index) {
    Taken &t = taken[index];
    t.ring = r;
    std::lock_guard<SpinLock> l(r->lock);
    t.ev = r->ev;
    t.n = r->n;
    r->ev = nullptr;
    if (t.ev)
      total += t.n < r->cap ? t.n : r->cap;
  }
  auto *items = static_cast<Item *>(malloc(sizeof(Item) * (total + 1)));
  if (!items) {
    for (size_t i = 0; i < nrings; ++i)
      free(taken[i].ev);
    free(taken);
    return ENOMEM;
  }
  size_t k = 0;
  uint64_t lost = 0, end = 0;
  for (index = 0; index < nrings; ++index) {
    const Taken &t = taken[index];
    if (!t.ev)
      continue;
    const uint32_t cap = t.ring->cap;
    const uint64_t keep = t.n < cap ? t.n : cap;
    lost += t.n - keep;
    for (uint64_t i = t.n - keep; i < t.n; ++i) {
      // From ticks to ns since the trace began (a run that began before
      // it: from the start, its traced part).
      Event e = t.ev[i % cap];
      const bool span = e.kind == kRun || e.kind == kCollect || e.kind == kPoll;
      const uint64_t ts = ticks_to_ns(e.ts, from, to);
      const uint64_t last = span ? ticks_to_ns(e.ts + e.a, from, to) : ts;
      e.ts = ts;
      if (span)
        e.a = last - ts;
      items[k++] = Item{e, index, static_cast<uint32_t>(i)};
      if (last > end)
        end = last;
    }
  }
  qsort(items, k, sizeof(Item), by_time);
  *events = k;
  *dropped = lost;

  // Written below; then the events are freed, whatever happened.
  auto release = [&] {
    for (size_t i = 0; i < nrings; ++i)
      free(taken[i].ev);
    free(taken);
    free(items);
  };
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    int err = errno;
    release();
    return err;
  }
  auto *o = static_cast<Out *>(malloc(sizeof(Out)));
  if (!o) {
    close(fd);
    release();
    return ENOMEM;
  }
  new (o) Out;
  o->fd = fd;
  o->printf("{\"otherData\":{\"producer\":\"copystack %s\",\"events\":%llu,"
            "\"dropped_events\":%llu},\n\"traceEvents\":[\n",
            COPYSTACK_VERSION_STRING, static_cast<unsigned long long>(k),
            static_cast<unsigned long long>(lost));
  Writer w(*o, 0);
  w.begin();
  o->printf("{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":"
            "{\"name\":\"threads\"}},\n"
            "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_name\",\"args\":"
            "{\"name\":\"tasks\"}},\n"
            "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\","
            "\"args\":{\"sort_index\":1}},\n"
            "{\"ph\":\"M\",\"pid\":%d,\"name\":\"process_sort_index\","
            "\"args\":{\"sort_index\":2}}",
            kThreadsPid, kTasksPid, kThreadsPid, kTasksPid);
  // Thread tracks' tids are the rings' indices + 1 (a viewer may take tid
  // 0 for the process's own track).
  for (uint32_t i = 0; i < nrings; ++i) {
    const Ring *r = taken[i].ring;
    char name[96], tids[64];
    int n = snprintf(tids, sizeof tids, "thread%s %d",
                     r->threads > 1 ? "s" : "", r->tids[0]);
    for (int j = 1; j < r->threads && j < Ring::kTids; ++j)
      n += snprintf(tids + n, sizeof tids - n, ", %d", r->tids[j]);
    if (r->threads > Ring::kTids)
      snprintf(tids + n, sizeof tids - n, " and %d more",
               r->threads - Ring::kTids);
    if (r->worker >= 0)
      snprintf(name, sizeof name, "worker %d (%s)", r->worker, tids);
    else
      snprintf(name, sizeof name, "%s (%s)", r->name, tids);
    w.track_name(kThreadsPid, i + 1, name,
                 r->worker >= 0 ? r->worker : 100000 + static_cast<long>(i));
    const uint64_t lost_here =
        taken[i].n > r->cap ? taken[i].n - r->cap : 0;
    if (taken[i].ev && lost_here) {
      char args[64];
      snprintf(args, sizeof args, "\"dropped\":%llu",
               static_cast<unsigned long long>(lost_here));
      w.instant(kThreadsPid, i + 1, "events dropped before this", 0, args);
    }
  }
  for (size_t i = 0; i < k; ++i)
    w.event(items[i], taken[items[i].ring].ring);
  w.finish(end);
  w.name_tasks();
  o->printf("\n]}\n");
  o->flush();
  int err = o->err;
  if (close(fd) != 0 && !err)
    err = errno;
  free(w.tasks.slots);
  free(o);
  release();
  return err;
}

void write_at_exit() {
  if (on())
    stop();
}

} // namespace

namespace {
int start_tracing(const char *path, bool from_env) {
  if (!path || !*path)
    return EINVAL;
  char *copy = strdup(path);
  if (!copy)
    return ENOMEM;
  std::lock_guard<SpinLock> l(g.lock);
  if (on()) {
    free(copy);
    return EBUSY;
  }
  static bool registered = false;
  if (!registered) {
    registered = true;
    atexit(write_at_exit);
  }
  free(g.path);
  g.path = copy;
  g.from_env = from_env;
  g.cap = config().trace_buffer;
  g.t0 = tick_base();
  g_on.store(true, std::memory_order_release);
  set_observer(kObserveTrace, true);
  return 0;
}
} // namespace

int start(const char *path) { return start_tracing(path, false); }

int stop() {
  Ring *rings;
  char *path;
  TickBase t0;
  bool from_env;
  {
    std::lock_guard<SpinLock> l(g.lock);
    if (!on())
      return EINVAL;
    g_on.store(false, std::memory_order_release);
    set_observer(kObserveTrace, false);
    g_session.fetch_add(1, std::memory_order_relaxed);
    rings = g.rings;
    g.rings = nullptr;
    path = g.path;
    g.path = nullptr;
    t0 = g.t0;
    from_env = g.from_env;
  }
  uint64_t events = 0, dropped = 0;
  int err = write_trace(path, rings, t0, &events, &dropped);
  if (from_env) {
    if (err)
      report("COPYSTACK_TRACE_OUT: could not write %s: %s", path,
             strerror(err));
    else
      report("trace of %llu events (%llu dropped: COPYSTACK_TRACE_BUFFER "
             "keeps more) written to %s",
             static_cast<unsigned long long>(events),
             static_cast<unsigned long long>(dropped), path);
  }
  free(path);
  return err;
}

void after_fork_child() {
  // The other threads' rings are gone with them, and their locks may be
  // held: the child starts with no trace, leaving them as they are.
  g_on.store(false, std::memory_order_relaxed);
  set_observer(kObserveTrace, false);
  g_session.fetch_add(1, std::memory_order_relaxed);
  new (&g.lock) SpinLock;
  g.rings = nullptr;
  g.path = nullptr;
}

namespace {
// COPYSTACK_TRACE_OUT: traced from the start (the settings are read by
// then, platform/config.cc) to the end.
__attribute__((constructor(200))) void start_from_environment() {
  if (!is_process_runtime())
    return;
  const char *pattern = config().trace_out;
  if (!pattern || !*pattern)
    return;
  char buf[4096];
  const char *path = expand_output_path(pattern, buf, sizeof buf);
  if (int err = path ? start_tracing(path, true) : ENAMETOOLONG)
    report("COPYSTACK_TRACE_OUT=%s: %s", pattern, strerror(err));
}
} // namespace

} // namespace trace
} // namespace copystack_rt

using namespace copystack_rt;

extern "C" int copystack_trace_start(const char *path) {
  return trace::start(path);
}

extern "C" int copystack_trace_stop(void) { return trace::stop(); }
