/* A task that counts 1 ms ticks until cs_ticker_stop(), then is done with
 * the wait group its go call passed: the I/O tests' evidence that the
 * worker ran other tasks while one task's call waited. C. */
#ifndef COPYSTACK_TEST_TICKER_H
#define COPYSTACK_TEST_TICKER_H

#include <copystack/copystack.h>

static int cs_ticker_stopped;
static long cs_ticker_ticks;

static void cs_ticker(void *wg) {
  while (!__atomic_load_n(&cs_ticker_stopped, __ATOMIC_RELAXED)) {
    __atomic_fetch_add(&cs_ticker_ticks, 1, __ATOMIC_RELAXED);
    copystack_sleep_ns(1000000);
  }
  copystack_waitgroup_done((copystack_waitgroup *)wg);
}

static inline long cs_ticks(void) {
  return __atomic_load_n(&cs_ticker_ticks, __ATOMIC_RELAXED);
}

static inline void cs_ticker_stop(void) {
  __atomic_store_n(&cs_ticker_stopped, 1, __ATOMIC_RELAXED);
}

#endif
