/* Helpers shared by the end-to-end tests. */
#ifndef COPYSTACK_TEST_CHECK_H
#define COPYSTACK_TEST_CHECK_H

#include <copystack/copystack.h>
#include <stdio.h>
#include <stdlib.h>

/* Fails the test (exit 1) with the condition, file and line. */
#define REQUIRE(cond)                                                          \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FAILED: %s (%s:%d)\n", #cond, __FILE__, __LINE__);     \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* Stack copies so far (growths, and stress-mode moves). */
static inline unsigned long cs_copies(void) {
  copystack_stats s;
  copystack_get_stats(&s);
  return (unsigned long)(s.growths + s.moves);
}

static inline unsigned long cs_growths(void) {
  copystack_stats s;
  copystack_get_stats(&s);
  return (unsigned long)s.growths;
}

/* Keeps a local array whole: its address escapes into an empty asm, so the
 * optimizer cannot shrink it to the elements the test touches. */
#define CS_KEEP(buf) __asm__ volatile("" : : "r"(buf) : "memory")

/* One step of a spinning wait, on either architecture. */
#if defined(__aarch64__)
#define CS_PAUSE() __asm__ volatile("yield" ::: "memory")
#else
#define CS_PAUSE() __builtin_ia32_pause()
#endif

/* Grows the stack of the calling task by recursing depth frames of about
 * 160 bytes each; returns something the optimizer cannot drop. */
__attribute__((noinline)) static int cs_burn(int depth) {
  char frame[128];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth <= 0)
    return frame[0];
  return cs_burn(depth - 1) + frame[0];
}

/* New tasks start at the default start size (or at start bytes, when not
 * 0): no learned or adaptive start size. */
static inline void cs_fixed_start(size_t start) {
  copystack_policy p;
  copystack_get_policy(&p);
  p.learn_start = 0;
  p.adaptive_start = 0;
  copystack_set_policy(&p);
  if (start)
    copystack_set_start_stack(start);
}

/* Runs fn(arg) as a task on a fresh 2 KiB stack (no learned or adaptive
 * start size), so that what fn does grows the stack and copies it in
 * normal mode too, not only under stress and verify modes. In the plain
 * reference build (main is not a task) it calls fn directly. */
static inline void cs_fresh_task(void (*fn)(void *), void *arg) {
  if (!copystack_in_task()) {
    fn(arg);
    return;
  }
  cs_fixed_start(0);
  unsigned long before = cs_growths();
  copystack_run(fn, arg);
  REQUIRE(cs_growths() > before);
}

/* The same for a task that need not grow (a depth at which the stack still
 * has room). */
static inline void cs_fresh_task_any(void (*fn)(void *), void *arg) {
  if (!copystack_in_task()) {
    fn(arg);
    return;
  }
  cs_fixed_start(0);
  copystack_run(fn, arg);
}

#endif
