// collect.h: the stack lifecycle beyond growth.
//
// The collector (Go's stack shrinking at GC, without a GC) visits every
// suspended task: a task parked, runnable or not yet started, whose saved
// stack pointer and switch frame describe its stack completely. It takes
// the task from kSuspended to kShrinking (a worker that wants to run it
// waits), halves its stack when it qualifies (core/shrink.h), or, when the
// task was already parked at the last collection and still is (and, for
// the monitor's collections, for a second at least), compacts it
// (core/copy.h: only its live bytes stay, in a heap block, until it runs
// again), and gives it back. A running task is never touched, nor one in a foreign call (it is
// running). Nothing outside a stack points into it (docs/maps.md, "The
// invariant"), so nothing else needs fixing.
//
// The same pass measures the average use for the adaptive start size
// (Go 1.19), and then the free stacks' memory goes back to the OS.
// Collections run when the program asks (copystack_collect), and from the
// scheduler's monitor: periodically while stacks change, and when stack
// memory has doubled since the last one.
#ifndef COPYSTACK_SCHED_COLLECT_H
#define COPYSTACK_SCHED_COLLECT_H

#include "sched/task.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// One collection; returns how many stacks shrank. asked: the program asked
// for it (copystack_collect), else the monitor runs it.
uint64_t collect(bool shrink, bool asked);

// The monitor's tick: collects when due or under pressure.
void maybe_collect();

// Set when a task parks (set_waiting), cleared by each collection: a park
// since the last collection makes the next periodic one due, so tasks that
// park after the collections went quiet are marked and, a period later,
// compacted. One relaxed load per park; the store only on the first park
// of a period.
extern std::atomic<uint8_t> g_parked_since_collect;
inline void note_parked() {
  if (!g_parked_since_collect.load(std::memory_order_relaxed))
    g_parked_since_collect.store(1, std::memory_order_relaxed);
}

// fork(): no collection runs across it (sched/fork.cc).
void collect_fork_lock();
void collect_fork_unlock();

} // namespace copystack_rt

#endif
