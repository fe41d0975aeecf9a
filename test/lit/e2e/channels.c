// Channels from C: unbuffered and buffered, FIFO order, len and cap,
// close semantics (buffered values drain first, then zeroed elements and
// 0; close wakes every blocked receiver), elements larger than the task's
// inline buffer, and element operations for elements that own memory.
// Senders and receivers grow their stacks between operations.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"
#include <string.h>

struct big {
  long words[12]; // 96 bytes: more than a task's inline element buffer
};

static copystack_chan *numbers, *results;

static void producer(void *arg) {
  long n = (long)arg;
  for (long i = 1; i <= n; i++) {
    cs_burn((int)(i % 40));
    copystack_chan_send(numbers, &i);
  }
  copystack_chan_close(numbers);
}

static void consumer(void *arg) {
  (void)arg;
  long v, sum = 0;
  int local = 3;
  int *p = &local; // a pointer to a local, alive across every park
  while (copystack_chan_recv(numbers, &v)) {
    sum += v * *p;
    cs_burn((int)(v % 60));
  }
  REQUIRE(v == 0); // zeroed once closed
  copystack_chan_send(results, &sum);
}

static void big_sender(void *arg) {
  copystack_chan *c = arg;
  for (int i = 0; i < 20; i++) {
    struct big b;
    for (int k = 0; k < 12; k++)
      b.words[k] = i * 100 + k;
    cs_burn(i * 10);
    copystack_chan_send(c, &b);
  }
}

static copystack_chan *gate;
static copystack_waitgroup closed_wg = COPYSTACK_WAITGROUP_INIT;
static long zeroed_receivers;
static copystack_mutex zeroed_lock = COPYSTACK_MUTEX_INIT;

static void blocked_receiver(void *arg) {
  (void)arg;
  long v = 77;
  int ok = copystack_chan_recv(gate, &v);
  copystack_mutex_lock(&zeroed_lock);
  if (!ok && v == 0)
    zeroed_receivers++;
  copystack_mutex_unlock(&zeroed_lock);
  copystack_waitgroup_done(&closed_wg);
}

// Elements that own heap memory: the channel moves and destroys them.
struct owned {
  char *text;
};
static int destroyed;
static void owned_move(void *dst, void *src) {
  ((struct owned *)dst)->text = ((struct owned *)src)->text;
  ((struct owned *)src)->text = 0;
}
static void owned_destroy(void *obj) {
  free(((struct owned *)obj)->text);
  destroyed++;
}

int main(void) {
  // Unbuffered, then buffered: the same sum.
  for (int cap = 0; cap <= 8; cap += 8) {
    numbers = copystack_chan_make(sizeof(long), (size_t)cap);
    results = copystack_chan_make(sizeof(long), 0);
    copystack_go(producer, (void *)1000L);
    copystack_go(consumer, 0);
    long sum = 0;
    copystack_chan_recv(results, &sum);
    printf("cap %d: sum %ld\n", cap, sum);
    copystack_chan_release(numbers);
    copystack_chan_release(results);
  }

  // Buffered: FIFO, len, cap; values sent before close still arrive.
  copystack_chan *b = copystack_chan_make(sizeof(int), 4);
  for (int i = 10; i < 14; i++)
    copystack_chan_send(b, &i);
  printf("len %zu cap %zu\n", copystack_chan_len(b), copystack_chan_cap(b));
  copystack_chan_close(b);
  int v, got = 0;
  while (copystack_chan_recv(b, &v))
    printf("%s%d", got++ ? " " : "drained: ", v);
  printf(" | after close: %d %d\n", copystack_chan_recv(b, &v), v);
  copystack_chan_release(b);

  // Large elements, through an unbuffered channel.
  copystack_chan *bc = copystack_chan_make(sizeof(struct big), 0);
  copystack_go(big_sender, bc);
  long check = 0;
  for (int i = 0; i < 20; i++) {
    struct big r;
    copystack_chan_recv(bc, &r);
    for (int k = 0; k < 12; k++)
      REQUIRE(r.words[k] == i * 100 + k);
    check += r.words[11];
  }
  printf("big elements: %ld\n", check);
  copystack_chan_release(bc);

  // close wakes all blocked receivers with zeroed elements.
  gate = copystack_chan_make(sizeof(long), 0);
  copystack_waitgroup_add(&closed_wg, 50);
  for (int i = 0; i < 50; i++)
    copystack_go(blocked_receiver, 0);
  while (copystack_num_tasks() < 51)
    copystack_yield();
  copystack_sleep_ns(2000000); // let them all reach the receive
  copystack_chan_close(gate);
  copystack_waitgroup_wait(&closed_wg);
  printf("woken by close: %ld\n", zeroed_receivers);
  copystack_chan_release(gate);

  // Element operations: moved through, destroyed when left behind.
  copystack_chan *oc =
      copystack_chan_make_with(sizeof(struct owned), 3, owned_move,
                               owned_destroy);
  for (int i = 0; i < 3; i++) {
    struct owned o = {strdup("payload")};
    copystack_chan_send(oc, &o); // o.text is moved out
    REQUIRE(o.text == 0);
  }
  struct owned first;
  copystack_chan_recv(oc, &first);
  printf("owned: %s, destroyed %d\n", first.text, destroyed);
  free(first.text);
  copystack_chan_release(oc); // two left inside
  printf("destroyed after release: %d\n", destroyed);
  return 0;
}
// CHECK: cap 0: sum 1501500
// CHECK: cap 8: sum 1501500
// CHECK: len 4 cap 4
// CHECK: drained: 10 11 12 13 | after close: 0 0
// CHECK: big elements: 19220
// CHECK: woken by close: 50
// CHECK: owned: payload, destroyed 1
// CHECK: destroyed after release: 3
