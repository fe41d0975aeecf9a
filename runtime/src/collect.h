// collect.h: the stack lifecycle beyond growth.
//
// The collector (Go's stack shrinking at GC, without a GC) visits every
// suspended task: a task parked, runnable or not yet started, whose saved
// stack pointer and switch frame describe its stack completely. It takes
// the task from kSuspended to kShrinking (a worker that wants to run it
// waits), halves its stack when it uses under a quarter and its frames, the
// guard and some slack fit in the half, and gives it back. Moving a
// suspended stack is growth's relocation started from the switch frame:
// the parking function's callee-saved registers, %rbp and return address.
// A running task is never touched, nor one in a foreign call (it is
// running). Nothing outside a stack points into it (Go's invariant; locals
// whose address leaves the stack are pinned), so nothing else needs fixing.
//
// The same pass measures the average use for the adaptive start size
// (Go 1.19), and then the free stacks' memory goes back to the OS.
// Collections run when the program asks (copystack_collect), and from the
// scheduler's monitor: periodically while stacks change, and when stack
// memory has doubled since the last one.
//
// Learned start sizes: each spawn site (the task's entry function; one per
// lambda in the C++ API) remembers the stack size its tasks ended with, so
// that the next task there starts big enough instead of growing through
// every size again (golang/go#18138), taking a grown stack of that size from
// the pool (golang/go#80137). A site whose tasks end small for a while
// halves its size.
#ifndef COPYSTACK_COLLECT_H
#define COPYSTACK_COLLECT_H

#include "task.h"

#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// Moves the stack of suspended task t, which the caller holds (kShrinking,
// or kRunning right after it parked): to half the size when it qualifies,
// else (always_move) to a fresh stack of the same size. Returns whether it
// shrank. to_pool: release the old stack to the shared pool.
bool shrink_suspended(Task *t, bool always_move, bool to_pool);

// One collection; returns how many stacks shrank.
uint64_t collect(bool shrink);

// The monitor's tick: collects when due or under pressure.
void maybe_collect();

// The learned-size slot of a spawn site (0: none), the start size for a
// task spawned there, and what a finished task teaches its site.
uint16_t spawn_site(uintptr_t fn);
size_t start_size_for(uint16_t site);
void learn_exit(const Task *t);

} // namespace copystack_rt

#endif
