/* An instrumented library that uses tasks inside: lib_sum(n) runs a bound
 * task that starts n tasks, each growing its stack and sending a number
 * back on a channel. Built with copystack-cc -shared; its hosts are not. */
#include <copystack/copystack.h>
#include <string.h>

struct job {
  int n;
  long sum;
};

static copystack_chan *results;

__attribute__((noinline)) static int burn(int depth) {
  char frame[160];
  memset(frame, depth, sizeof frame);
  __asm__ volatile("" : : "r"(frame) : "memory");
  return depth ? burn(depth - 1) + frame[1] : frame[0];
}

static void worker(void *arg) {
  long v = (long)arg;
  burn(200);
  copystack_chan_send(results, &v);
}

static void body(void *arg) {
  struct job *j = arg;
  results = copystack_chan_make(sizeof(long), 0);
  for (long i = 1; i <= j->n; ++i)
    copystack_go(worker, (void *)i);
  for (int i = 0; i < j->n; ++i) {
    long v;
    copystack_chan_recv(results, &v);
    j->sum += v;
  }
  copystack_chan_release(results);
}

long lib_sum(int n) {
  struct job j = {n, 0};
  copystack_run(body, &j);
  return j.sum;
}
