/*
 * growth_bench.c: what stack growth costs, the first seed post's warm /
 * fresh / warmctl experiment on copystack, beside the physical floor.
 *
 * For depths 1..4096 of a recursion with 128-byte frames:
 *   warm     a task whose stack already grew past the deepest call runs it
 *   fresh    a new task (2 KiB stack) is created for each call
 *   warmctl  the warm run again, after fresh: a control that brackets the
 *            drift the comparison could suffer (it should match warm)
 *   memcpy   the floor: memcpy of exactly the bytes one fresh call copies,
 *            in the same pieces (one per growth, sizes taken from the
 *            growth hook), between buffers already in cache
 *   runtime  the runtime's own clock of one fresh call's copies
 *            (copystack_stats.copy_ns: copying and relocating)
 * The cost of the copying at depth d is the difference of differences
 * against depth 1, which removes the fixed costs of both columns:
 *   copy(d) = (fresh(d) - fresh(1)) - (warm(d) - warm(1)).
 *
 * The policies this depends on are set here, not inherited: a fresh task
 * must start at 2 KiB, so the start size is 2 KiB and neither the adaptive
 * nor the learned start size may raise it (with learning on, every "fresh"
 * task of the same spawn site starts big and nothing grows). The tasks run
 * on this thread (copystack_run): no workers. "default" as the second
 * argument keeps the process's policies instead, to show what a program
 * with the defaults sees. The growths are checked: with the controlled
 * policies depth 4096 must copy nine times.
 *
 *   growth_bench [ROUNDS [controlled|default]]
 *
 * Output: a "# policy ..." line, then one line per depth, medians of the
 * rounds:
 *   depth warm_ns fresh_ns warmctl_ns copies bytes_copied memcpy_ns runtime_ns
 * scripts/bench-growth runs this beside bench/go/growth and prints both.
 *
 * Build: copystack-cc -O2 --copystack-no-main bench/growth_bench.c
 */
#include <copystack/copystack.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEEP(buf) __asm__ volatile("" : : "r"(buf) : "memory")

enum { FRAME_BYTES = 128, NDEPTHS = 6, MAX_ROUNDS = 31, MAX_COPIES = 32 };
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

/* ns per fresh call; *runtime_ns: the runtime's copy_ns per call. */
static double fresh(int depth, double *runtime_ns) {
  long n = iters(depth);
  copystack_stats before, after;
  copystack_get_stats(&before);
  double t0 = now_ns();
  for (long k = 0; k < n; k++)
    copystack_run(fresh_task, &depth);
  double ns = (now_ns() - t0) / (double)n;
  copystack_get_stats(&after);
  *runtime_ns = (double)(after.copy_ns - before.copy_ns) / (double)n;
  return ns;
}

/* The copies one fresh call makes, recorded by the growth hook: the
 * bytes each copy moved (the growth of the bytes_copied counter, which
 * counts the frames live and the register block __morestack pushed). */
struct copies {
  int n;
  uint64_t last;
  size_t bytes[MAX_COPIES];
};

static void record_copy(const copystack_growth_event *ev, void *data) {
  struct copies *c = data;
  copystack_stats s;
  (void)ev;
  copystack_get_stats(&s);
  if (c->n < MAX_COPIES)
    c->bytes[c->n++] = (size_t)(s.bytes_copied - c->last);
  c->last = s.bytes_copied;
}

/* The floor: ns to memcpy the same pieces, source and destination in
 * cache (the runtime copies a stack its task has just written). The copy
 * goes through a volatile pointer so that it is not elided. */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;
static char *floor_src, *floor_dst;

static double memcpy_floor(const struct copies *c, int depth) {
  if (c->n == 0)
    return 0;
  long n = iters(depth);
  double t0 = now_ns();
  for (long k = 0; k < n; k++)
    for (int i = 0; i < c->n; i++)
      copy_fn(floor_dst, floor_src, c->bytes[i]);
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
  int controlled = !(argc > 2 && strcmp(argv[2], "default") == 0);
  if (rounds < 1 || rounds > MAX_ROUNDS)
    rounds = 7;
  if (controlled) {
    copystack_policy p;
    copystack_get_policy(&p);
    p.adaptive_start = 0;
    p.learn_start = 0;
    p.collect_interval_ms = 0;
    copystack_set_policy(&p);
    copystack_set_start_stack(2048);
  }
  copystack_policy p;
  copystack_get_policy(&p);
  printf("# policy %s start=%zu adaptive=%d learn=%d collect_ms=%llu "
         "workers=none\n",
         controlled ? "controlled" : "default", copystack_start_stack(),
         p.adaptive_start, p.learn_start,
         (unsigned long long)p.collect_interval_ms);

  /* Which copies one fresh call makes at each depth (after a first call,
   * so that the stacks it needs are the ones the timed calls reuse). */
  static struct copies copies[NDEPTHS];
  size_t largest = 0;
  for (int i = 0; i < NDEPTHS; i++) {
    copystack_stats s;
    copystack_run(fresh_task, (void *)&depths[i]);
    copystack_get_stats(&s);
    copies[i].last = s.bytes_copied;
    copystack_set_growth_hook(record_copy, &copies[i]);
    copystack_run(fresh_task, (void *)&depths[i]);
    copystack_set_growth_hook(NULL, NULL);
    for (int k = 0; k < copies[i].n; k++)
      if (copies[i].bytes[k] > largest)
        largest = copies[i].bytes[k];
  }
  if (controlled && copies[NDEPTHS - 1].n != 9) {
    fprintf(stderr, "growth_bench: depth %d copied %d times, not 9: the "
            "start size is not 2 KiB\n", depths[NDEPTHS - 1],
            copies[NDEPTHS - 1].n);
    return 1;
  }
  floor_src = malloc(largest + 64);
  floor_dst = malloc(largest + 64);
  memset(floor_src, 1, largest + 64);
  memset(floor_dst, 2, largest + 64);

  static double warm[NDEPTHS][MAX_ROUNDS], cold[NDEPTHS][MAX_ROUNDS],
      ctl[NDEPTHS][MAX_ROUNDS], mcpy[NDEPTHS][MAX_ROUNDS],
      rt[NDEPTHS][MAX_ROUNDS];
  for (int r = 0; r < rounds; r++) {
    struct warm_job w, c;
    copystack_run(warm_task, &w);
    for (int i = 0; i < NDEPTHS; i++)
      cold[i][r] = fresh(depths[i], &rt[i][r]);
    copystack_run(warm_task, &c);
    for (int i = 0; i < NDEPTHS; i++) {
      warm[i][r] = w.ns[i];
      ctl[i][r] = c.ns[i];
      mcpy[i][r] = memcpy_floor(&copies[i], depths[i]);
    }
  }
  for (int i = 0; i < NDEPTHS; i++) {
    size_t bytes = 0;
    for (int k = 0; k < copies[i].n; k++)
      bytes += copies[i].bytes[k];
    printf("%d %.1f %.1f %.1f %d %zu %.1f %.1f\n", depths[i],
           median(warm[i], rounds), median(cold[i], rounds),
           median(ctl[i], rounds), copies[i].n, bytes,
           median(mcpy[i], rounds), median(rt[i], rounds));
  }
  free(floor_src);
  free(floor_dst);
  return 0;
}
