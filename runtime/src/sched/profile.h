// profile.h: profiles in pprof's format (COPYSTACK_PROFILE_OUT,
// copystack_profile_start/write/stop), for `go tool pprof` and pprof:
//
//   growth  stack growth by the call stack that asked for it: how many
//           copies and how many bytes they copied (the frames live then),
//           recorded as each growth happens (core/growth.cc);
//   tasks   the tasks alive, by spawn site (the call that started each),
//           labelled with what each waits for: a snapshot when written;
//   block   time tasks spent parked, by wait reason (a label) and by the
//           call stack that parked (Go's block profile): from the park to
//           the wake-up, recorded as the task runs again.
//
// Growth and block record only while started (a growth's walk of its
// frames, a park's two clock reads and a walk when it resumes); off, their
// sites cost a load of one global word and a branch. The recorded samples
// are summed per call stack in a table under a lock; at most
// kMaxProfileStacks distinct stacks each, the rest counted as one
// "(too many stacks)" sample.
//
// The block profile keeps its per-task state in the task's result word,
// which is free while a task waits (sched/task.h: the union with the
// preemption ticket): park time and reason packed as below.
#ifndef COPYSTACK_PROFILE_H
#define COPYSTACK_PROFILE_H

#include "sched/task.h"

#include <atomic>
#include <cstdint>

namespace copystack_rt {
namespace profile {

// Bits of copystack_profile_start's argument (copystack.h).
enum : unsigned { kGrowth = 1, kTasks = 2, kBlock = 4, kAll = 7 };

extern std::atomic<unsigned> g_recording;

inline bool recording(unsigned which) {
  return g_recording.load(std::memory_order_acquire) & which;
}

// A growth of task t's stack (it runs on this thread, on its new stack):
// its frames from the asking function, whose prologue stopped at pc with
// %rsp sp and %rbp fp.
void growth(const Task *t, uintptr_t pc, uintptr_t sp, uintptr_t fp,
            uint64_t copied);

// The block profile's three steps, each after testing recording(kBlock):
// t parked (on its worker, before the park's then() step); t is made
// runnable (ready(): the wait's end, and its reason before it is
// cleared); t runs again (execute(), t held by this thread: its frames are
// the ones it parked with; called whenever t->blocked is set, recording
// or not: it clears the word).
void parked(Task *t);
void woken(Task *t, uint8_t reason);
void resumed(Task *t);

// Starts recording (growth and block; tasks needs nothing), writes one
// profile (exactly one bit) to path, stops recording. 0 or an errno.
int start(unsigned which);
int write(unsigned which, const char *path);
int stop(unsigned which);

// fork(): the child records nothing, and writes no profile at its exit.
void after_fork_child();

} // namespace profile
} // namespace copystack_rt

#endif
