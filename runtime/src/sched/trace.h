// trace.h: execution traces (COPYSTACK_TRACE_OUT, copystack_trace_start):
// what the tasks did over time, written as Chrome trace-event JSON, which
// Perfetto (ui.perfetto.dev) and chrome://tracing open.
//
// Recording. Each thread appends fixed-size events to a ring of its own,
// reached through its stats block (platform/stats.h: no static TLS), under
// a lock that only the file's writer contends for. A full ring overwrites
// its oldest events and counts them as dropped, so a trace holds each
// thread's latest COPYSTACK_TRACE_BUFFER events (a flight recorder). A
// thread that ends leaves its ring to the next thread that takes its stats
// block, so memory is bounded by the threads alive at once, however long
// the program runs and however many threads come and go. Off, the
// scheduler tests one byte per run and wake-up (observe.h). Events are
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
// to its task and from a waker to the task it woke. A run in progress when
// tracing starts is in the trace from its start; one in progress when it
// stops is not (its spawns and wake-ups are, from its thread's track).
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
  kRun = 1,    // ts: when it started; a: ticks it ran; b: spawn pc;
               // r: RunEnd; c: reason
  kSpawn,      // task: the new one; a: its parent (0: none); b: spawn pc
  kWake,       // task: the woken one; a: the waking task (0: a thread)
  kStack,      // a: old size; b: new size; c: bytes copied; r: StackOp;
               // pc: in the asking function (growth and moves), named
               // when the file is written
  kCollect,    // a thread's slice: a: ticks; b: stacks shrunk; c: compacted
  kPoll,       // a thread's slice: a: ticks; b: tasks it made runnable
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
  uintptr_t pc;
  uint32_t c;
  uint8_t kind, r;
};

extern std::atomic<bool> g_on;

inline bool on() { return g_on.load(std::memory_order_relaxed); }

// Appends an event to the calling thread's ring (no-op if tracing stopped
// meanwhile). ts 0: now.
void record(const Event &e);
inline uint64_t now() { return ticks(); }

// A run of task from start to end (ticks; start 0: it began before the
// trace, which starts it), which ended so; spawn_pc names the task's track
// even when its spawn was dropped. A parked task's wait reason is the one
// the task gave before it parked (reason: its wait_reason, read while the
// worker still held it), or the one its park's then() step gave on this
// thread (note_reason: a sleep, a poller wait), which runs before the run
// is recorded (sched/scheduler.cc execute()).
void run_slow(uint64_t task, uintptr_t spawn_pc, uint64_t start,
              uint64_t end, RunEnd how, uint8_t reason);
void note_reason_slow(uint8_t reason);

// Shorthands for the sites above; each tests on() first.
inline void run(uint64_t task, uintptr_t spawn_pc, uint64_t start,
                uint64_t end, RunEnd how, uint8_t reason = 0) {
  if (on())
    run_slow(task, spawn_pc, start, end, how, reason);
}
inline void note_reason(uint8_t reason) {
  if (on())
    note_reason_slow(reason);
}
inline void spawn(uint64_t task, uint64_t parent, uintptr_t pc) {
  if (on())
    record(Event{0, task, parent, pc, 0, 0, kSpawn, 0});
}
inline void wake(uint64_t task, uint64_t waker) {
  if (on())
    record(Event{0, task, waker, 0, 0, 0, kWake, 0});
}
inline void stack(uint64_t task, StackOp op, uint64_t old_size,
                  uint64_t new_size, uint64_t copied, uintptr_t pc = 0) {
  if (on())
    record(Event{0, task, old_size, new_size, pc,
                 static_cast<uint32_t>(copied), kStack, op});
}
inline void slice(Kind k, uint64_t start, uint64_t n, uint32_t m = 0) {
  if (on())
    record(Event{start, 0, now() - start, n, 0, m, k, 0});
}

// Starts tracing to path (the file is written when tracing stops); 0 or an
// errno (EBUSY: tracing already).
int start(const char *path);
// Stops tracing and writes the file; 0 or an errno (EINVAL: not tracing).
int stop();

// fork(): the child records nothing and writes nothing.
void after_fork_child();

// The thread whose stats block holds ring ends: the next thread to take
// the block takes the ring on too (one track, its threads one after the
// other), so that threads that come and go do not each keep a buffer.
void thread_left(void *ring);

} // namespace trace
} // namespace copystack_rt

#endif
