/*
 * growth_bench.c: what stack growth costs, the first seed post's warm /
 * fresh / warmctl experiment on copystack.
 *
 * For depths 1..4096 of a recursion with 128-byte frames:
 *   warm     a task whose stack already grew past the deepest call runs it
 *   fresh    a new task (2 KiB stack) is created for each call
 *   warmctl  the warm run again, after fresh: a control that brackets the
 *            drift the comparison could suffer (it should match warm)
 * The cost of the copying at depth d is the difference of differences
 * against depth 1, which removes the fixed costs of both columns:
 *   copy(d) = (fresh(d) - fresh(1)) - (warm(d) - warm(1)).
 * Medians of several rounds. Output, one line per depth:
 *   depth warm_ns fresh_ns warmctl_ns copies bytes_copied
 * scripts/bench-growth runs this beside bench/go/growth and prints both.
 *
 * Build: copystack-cc -O2 --copystack-no-main bench/growth_bench.c
 */
#include <copystack/copystack.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define KEEP(buf) __asm__ volatile("" : : "r"(buf) : "memory")

enum { FRAME_BYTES = 128, NDEPTHS = 6, MAX_ROUNDS = 31 };
static const int depths[NDEPTHS] = {1, 16, 64, 256, 1024, 4096};
static volatile char sink;

__attribute__((noinline)) static void descend(int depth) {
  char frame[FRAME_BYTES];
  frame[0] = (char)depth;
  KEEP(frame);
  if (depth > 1)
    descend(depth - 1);
  sink = frame[0];
}

static long iters(int depth) {
  long n = 2000000 / (depth + 8);
  return n < 100 ? 100 : n;
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The warm worker: one task, grown once, times every depth. */
struct warm_job {
  double ns[NDEPTHS];
};

static void warm_task(void *arg) {
  struct warm_job *job = arg;
  descend(8192);
  for (int i = 0; i < NDEPTHS; i++) {
    long n = iters(depths[i]);
    double t0 = now_ns();
    for (long k = 0; k < n; k++)
      descend(depths[i]);
    job->ns[i] = (now_ns() - t0) / (double)n;
  }
}

static void fresh_task(void *arg) { descend(*(int *)arg); }

static double fresh(int depth) {
  long n = iters(depth);
  double t0 = now_ns();
  for (long k = 0; k < n; k++)
    copystack_run(fresh_task, &depth);
  return (now_ns() - t0) / (double)n;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 7;
  if (rounds < 1 || rounds > MAX_ROUNDS)
    rounds = 7;
  static double warm[NDEPTHS][MAX_ROUNDS], cold[NDEPTHS][MAX_ROUNDS],
      ctl[NDEPTHS][MAX_ROUNDS];
  for (int r = 0; r < rounds; r++) {
    struct warm_job w, c;
    copystack_run(warm_task, &w);
    for (int i = 0; i < NDEPTHS; i++)
      cold[i][r] = fresh(depths[i]);
    copystack_run(warm_task, &c);
    for (int i = 0; i < NDEPTHS; i++) {
      warm[i][r] = w.ns[i];
      ctl[i][r] = c.ns[i];
    }
  }
  printf("# copystack growth\n");
  for (int i = 0; i < NDEPTHS; i++) {
    copystack_stats before, after;
    copystack_get_stats(&before);
    copystack_run(fresh_task, (void *)&depths[i]);
    copystack_get_stats(&after);
    printf("%d %.1f %.1f %.1f %llu %llu\n", depths[i],
           median(warm[i], rounds), median(cold[i], rounds),
           median(ctl[i], rounds),
           (unsigned long long)(after.growths - before.growths),
           (unsigned long long)(after.bytes_copied - before.bytes_copied));
  }
  return 0;
}
