/* Foreign calls that hold their worker: a long one (the monitor sees the
 * worker stuck in it and hands its slot to a spare), or many short ones. */
#ifndef COPYSTACK_TEST_SPIN_H
#define COPYSTACK_TEST_SPIN_H

#include <time.h>

/* Spins for us microseconds on the thread's own stack. */
__attribute__((annotate("copystack_nosplit"), noinline)) static void
spin_us(long us) {
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  do
    clock_gettime(CLOCK_MONOTONIC, &t);
  while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 <
         us);
}

static inline void spin_ms(long ms) { spin_us(ms * 1000); }

#endif
