/* The stack lifecycle tests' shared parts: the channels they park on and
 * signal with, and a fresh start (collections only when the test asks, and
 * they shrink parked tasks rather than compact them: stack_compact_parked.c
 * tests that). */
#ifndef COPYSTACK_TEST_LIFECYCLE_H
#define COPYSTACK_TEST_LIFECYCLE_H

#include "check.h"

static copystack_chan *wake, *done, *parking;

static size_t my_stack_size(void) {
  copystack_stack_info info;
  REQUIRE(copystack_current_stack(&info) == 0);
  return info.size;
}

static uint64_t growths(void) {
  copystack_stats s;
  copystack_get_stats(&s);
  return s.growths;
}

static void lifecycle_setup(void) {
  wake = copystack_chan_make(1, 0);
  done = copystack_chan_make(1, 0);
  parking = copystack_chan_make(1, 1);
  copystack_policy pol;
  copystack_get_policy(&pol);
  pol.collect_interval_ms = 0; // collections only when the test asks
  pol.compact_parked = 0;
  copystack_set_policy(&pol);
}

static void report_size(void *arg) {
  *(size_t *)arg = my_stack_size();
  char c = 1;
  copystack_chan_send(done, &c);
}

#endif
