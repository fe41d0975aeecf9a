/* A pipeline of tasks in C: main, itself a task, starts a producer and four
 * workers. The producer sends depths over a channel; each worker descends
 * that deep into libwalk, growing its 2 KiB stack, and sends back what it
 * found. main checks the total and that stacks grew. Exits 1 on a mismatch. */
#include "walk.h"

#include <copystack/copystack.h>

#include <stdio.h>

#ifndef __COPYSTACK__
#error "compile with $(pkg-config --cflags copystack-main)"
#endif

enum { WORKERS = 4, JOBS = 32, STEP = 50 };

static copystack_chan *jobs, *results;

static void producer(void *arg) {
  (void)arg;
  for (int i = 1; i <= JOBS; i++) {
    int depth = i * STEP;
    copystack_chan_send(jobs, &depth);
  }
  copystack_chan_close(jobs);
}

static void worker(void *arg) {
  (void)arg;
  int depth;
  while (copystack_chan_recv(jobs, &depth)) {
    long sum = walk(depth);
    copystack_chan_send(results, &sum);
  }
}

int main(void) {
  jobs = copystack_chan_make(sizeof(int), 0);
  results = copystack_chan_make(sizeof(long), JOBS);
  copystack_go(producer, NULL);
  for (int i = 0; i < WORKERS; i++)
    copystack_go(worker, NULL);

  long total = 0, expected = 0;
  for (int i = 1; i <= JOBS; i++) {
    long sum;
    copystack_chan_recv(results, &sum);
    total += sum;
    expected += walk_expected(i * STEP);
  }
  copystack_stats s;
  copystack_get_stats(&s);
  printf("copystack %s (pkg-config), main is a task: %d\n",
         COPYSTACK_VERSION_STRING, copystack_in_task());
  printf("%d jobs on %d worker tasks: total %ld, expected %ld\n", JOBS,
         WORKERS, total, expected);
  printf("stack growths: %llu\n", (unsigned long long)s.growths);
  if (total != expected || s.growths == 0 || !copystack_in_task()) {
    printf("FAILED\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
