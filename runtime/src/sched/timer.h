// timer.h: what the rest of the runtime uses of timer.cc.
#ifndef COPYSTACK_TIMER_H
#define COPYSTACK_TIMER_H

#include <cstdint>

namespace copystack_rt {

// Calls fn(a, b) on the timer thread once now_ns() reaches deadline. A
// timer cannot be cancelled: fn must recognize one that no longer applies
// (the network poller's deadlines carry the sequence number of the wait
// they end, netpoll.cc).
void add_timer(uint64_t deadline, void (*fn)(uintptr_t, uint64_t), uintptr_t a,
               uint64_t b);

// A worker wakes the timer thread for the sleeps it registered without
// waking it (timer.cc): between two tasks, and before it goes idle. Cheap
// when there are none.
void timers_flush();

// The monitor: when it will tick next (it calls timers_flush then too).
void monitor_ticks_at(uint64_t when);

} // namespace copystack_rt

#endif
