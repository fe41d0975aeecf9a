// trace.h: execution traces (COPYSTACK_TRACE_OUT, copystack_trace_start):
// what the tasks did over time, written as Chrome trace-event JSON, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open.
//
// Recording. Each thread appends fixed-size events to a ring of its own,
// reached through its stats block (platform/stats.h: no static TLS), under
// a lock that only the file's writer contends for. A full ring overwrites
// its oldest events and counts them as dropped, so a trace holds each
// thread's latest COPYSTACK_TRACE_BUFFER events (a flight recorder), and
// memory stays bounded however long the program runs. Off, each event site
// costs a load of one global flag and a branch not taken. Events are
// recorded on the threads' own stacks (the runtime's code), never in
// signal handlers.
//
// What is recorded, where it happens:
//   - a task's run on a thread, as one event when it leaves the thread:
//     when it started, how long, and how it left (parked and why, finished,
//     preempted, yielded) -- scheduler.cc execute();
//   - a spawn (the new task, its parent, the spawn site), a wake (the woken
//     task and who woke it: a task, or a thread of the runtime's: the
//     poller, a timer, an I/O thread) -- scheduler.cc;
//   - a stack's copy: growth, a move, a shrink, a compaction, an expansion
//     (sizes, bytes copied, the function that asked) -- growth.cc, copy.cc,
//     shrink.cc;
//   - a collection and a poller wait that blocked or woke tasks, as slices
//     of the thread that made them -- collect.cc, netpoll.cc.
//
// Writing (copystack_trace_stop, or at exit for COPYSTACK_TRACE_OUT): the
// rings' events merged by time into one track per thread (workers, the
// monitor, I/O threads: their runs of tasks, collections, polls) and one
// per task (running, runnable, and waiting slices named by the wait
// reason; growth and shrink as instants), with flow arrows from a spawner
// to its task and from a waker to the task it woke.
//
// A forked child does not inherit the trace: tracing is off there.
#ifndef COPYSTACK_TRACE_H
#define COPYSTACK_TRACE_H

#include "platform/ticks.h"

#include <atomic>
#include <cstdint>

namespace copystack_rt {
namespace trace {

enum Kind : uint8_t {
  kRun = 1,    // ts: when it started; a: ns it ran; r: RunEnd; c: reason
  kSpawn,      // task: the new one; a: its parent (0: none); b: spawn pc
  kWake,       // task: the woken one; a: the waking task (0: a thread)
  kStack,      // a: old size; b: new size; c: bytes copied; r: StackOp;
               // name: the asking function (growth and moves)
  kCollect,    // a thread's slice: a: ns; b: stacks shrunk; c: compacted
  kPoll,       // a thread's slice: a: ns; b: tasks it made runnable
};

// How a run ended.
enum RunEnd : uint8_t { kParked, kDone, kPreempted, kYielded };

// What a stack copy was.
enum StackOp : uint8_t { kGrow, kMove, kShrink, kSuspendedMove, kCompact,
                         kExpand };

struct Event {
  uint64_t ts; // ticks (platform/ticks.h); durations (a) are ticks too
  uint64_t task;
  uint64_t a, b;
  const char *name;
  uint32_t c;
  uint8_t kind, r;
};

extern std::atomic<bool> g_on;

inline bool on() { return g_on.load(std::memory_order_relaxed); }

// Appends an event to the calling thread's ring (no-op if tracing stopped
// meanwhile). ts 0: now.
void record(const Event &e);
inline uint64_t now() { return ticks(); }

// A run of task from start to end (ns), which ended so. A parked task's
// wait reason is the last one set_waiting() gave on this thread (the task
// before it parked, or the park's then() step, which runs before the run
// is recorded: sched/scheduler.cc execute()).
void run_slow(uint64_t task, uint64_t start, uint64_t end, RunEnd how);
void note_reason_slow(uint8_t reason);

// Shorthands for the sites above; each tests on() first.
inline void run(uint64_t task, uint64_t start, uint64_t end, RunEnd how) {
  if (on())
    run_slow(task, start, end, how);
}
inline void note_reason(uint8_t reason) {
  if (on())
    note_reason_slow(reason);
}
inline void spawn(uint64_t task, uint64_t parent, uintptr_t pc) {
  if (on())
    record(Event{0, task, parent, pc, nullptr, 0, kSpawn, 0});
}
inline void wake(uint64_t task, uint64_t waker) {
  if (on())
    record(Event{0, task, waker, 0, nullptr, 0, kWake, 0});
}
inline void stack(uint64_t task, StackOp op, uint64_t old_size,
                  uint64_t new_size, uint64_t copied,
                  const char *fn = nullptr) {
  if (on())
    record(Event{0, task, old_size, new_size, fn,
                 static_cast<uint32_t>(copied), kStack, op});
}
inline void slice(Kind k, uint64_t start, uint64_t n, uint32_t m = 0) {
  if (on())
    record(Event{start, 0, now() - start, n, nullptr, m, k, 0});
}

// Starts tracing to path (the file is written when tracing stops); 0 or an
// errno (EBUSY: tracing already).
int start(const char *path);
// Stops tracing and writes the file; 0 or an errno (EINVAL: not tracing).
int stop();

// fork(): the child records nothing and writes nothing.
void after_fork_child();

} // namespace trace
} // namespace copystack_rt

#endif
