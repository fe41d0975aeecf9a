/* Absolute deadlines for the timed pthread calls' tests. */
#ifndef COPYSTACK_TEST_DEADLINE_H
#define COPYSTACK_TEST_DEADLINE_H

#include <time.h>

/* ms milliseconds from now on clock. */
static inline struct timespec in_ms(clockid_t clock, long ms) {
  struct timespec t;
  clock_gettime(clock, &t);
  t.tv_nsec += ms * 1000000;
  t.tv_sec += t.tv_nsec / 1000000000;
  t.tv_nsec %= 1000000000;
  return t;
}

/* Whether clock has reached at. */
static inline int reached(clockid_t clock, struct timespec at) {
  struct timespec now;
  clock_gettime(clock, &now);
  return now.tv_sec > at.tv_sec ||
         (now.tv_sec == at.tv_sec && now.tv_nsec >= at.tv_nsec);
}

#endif
