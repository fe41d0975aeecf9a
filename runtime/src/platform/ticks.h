// ticks.h: a cheap clock for execution traces and profiles, whose every
// event reads it: the CPU's time-stamp counter where the kernel keeps its
// own clock on it (its clocksource is "tsc": invariant, and the same on
// every CPU), about 8 ns against clock_gettime's 26 ns on the machine the
// benchmarks ran on (docs/benchmarks.md); CLOCK_MONOTONIC nanoseconds
// elsewhere. Ticks become nanoseconds by the rate measured between two
// readings of both clocks, a base taken when recording starts and another
// when the result is written: over a trace's milliseconds the two
// clock_gettime reads' error is a few parts in a million.
#ifndef COPYSTACK_TICKS_H
#define COPYSTACK_TICKS_H

#include "machine.h"

#include <atomic>
#include <cstdint>

namespace copystack_rt {

uint64_t now_ns(); // platform/stats.h

extern std::atomic<bool> g_ticks_are_tsc;

inline uint64_t ticks() {
  if (g_ticks_are_tsc.load(std::memory_order_relaxed))
    return cycle_counter();
  return now_ns();
}

// Both clocks read together.
struct TickBase {
  uint64_t ticks = 0, ns = 0;
};

// Decides which counter ticks() reads (once; later calls return at once)
// and returns a base for converting.
TickBase tick_base();

// Nanoseconds since from.ns at tick t, by the rate between from and to.
uint64_t ticks_to_ns(uint64_t t, const TickBase &from, const TickBase &to);

} // namespace copystack_rt

#endif
