// learn.h: start sizes learned per spawn site.
//
// Each spawn site (the task's entry function; one per lambda in the C++
// API) remembers the stack size its tasks ended with, so that the next task
// there starts big enough instead of growing through every size again
// (golang/go#18138), taking a grown stack of that size from the pool. A
// site whose tasks end small for a while halves its size. Beyond Go, which
// has one adaptive size for the whole program (collect.h has that one).
#ifndef COPYSTACK_SCHED_LEARN_H
#define COPYSTACK_SCHED_LEARN_H

#include "sched/task.h"

#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// Learned and adaptive start sizes stop here: a task that needs more grows
// to it.
constexpr size_t kMaxStartSize = size_t(1) << 20;

// The learned-size slot of a spawn site (0: none, or learning is off), the
// start size for a task spawned there, and what a finished task teaches its
// site.
uint16_t spawn_site(uintptr_t fn);
size_t start_size_for(uint16_t site);
void learn_exit(const Task *t);

} // namespace copystack_rt

#endif
