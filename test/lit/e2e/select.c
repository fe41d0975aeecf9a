// select from C: the default case, fairness between ready cases, send and
// receive cases, closed channels, null channels, a blocking select woken by
// another task (and withdrawn from the channels it did not pick), and a
// timeout with copystack_after.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"

static copystack_chan *late;

static void send_later(void *arg) {
  long v = (long)arg;
  copystack_sleep_ns(3000000);
  cs_burn(200);
  copystack_chan_send(late, &v);
}

int main(void) {
  copystack_chan *a = copystack_chan_make(sizeof(int), 1000);
  copystack_chan *b = copystack_chan_make(sizeof(int), 1000);
  int x = 0, y = 0;

  // Nothing ready, block = 0: the default case.
  copystack_select_case cases[2] = {{a, &x, COPYSTACK_RECV, 0},
                                    {b, &y, COPYSTACK_RECV, 0}};
  printf("default: %d\n", copystack_select(cases, 2, 0));

  // Both always ready: each case is picked about half the time.
  for (int i = 0; i < 1000; i++) {
    copystack_chan_send(a, &i);
    copystack_chan_send(b, &i);
  }
  int picked[2] = {0, 0};
  for (int i = 0; i < 1000; i++) {
    int r = copystack_select(cases, 2, 1);
    REQUIRE(r == 0 || r == 1);
    REQUIRE(cases[r].ok == 1);
    picked[r]++;
    cs_burn(i % 30);
  }
  // 1000 fair coin flips land within 350..650 but for 1 in 10^21 runs.
  printf("fair: %s\n",
         picked[0] > 350 && picked[1] > 350 ? "yes" : "NO");
  REQUIRE(picked[0] + picked[1] == 1000);
  REQUIRE(copystack_chan_len(a) == (size_t)(1000 - picked[0]));

  // A send case and a null channel: the null case never proceeds.
  copystack_chan *s = copystack_chan_make(sizeof(int), 1);
  int out = 42, in = 0;
  copystack_select_case sc[2] = {{0, &in, COPYSTACK_RECV, 0},
                                 {s, &out, COPYSTACK_SEND, 0}};
  printf("send case: %d\n", copystack_select(sc, 2, 1));
  REQUIRE(copystack_chan_recv(s, &in) && in == 42);
  printf("all null: %d\n", copystack_select(sc, 1, 0));

  // A closed channel is always ready: ok 0 and a zeroed element.
  copystack_chan_close(s);
  in = 5;
  sc[1] = (copystack_select_case){s, &in, COPYSTACK_RECV, 1};
  int r = copystack_select(sc, 2, 1);
  printf("closed: case %d ok %d value %d\n", r, sc[1].ok, in);

  // Blocking on two unbuffered channels; a task sends on the second.
  late = copystack_chan_make(sizeof(long), 0);
  copystack_chan *quiet = copystack_chan_make(sizeof(long), 0);
  long lv = 0, qv = 0;
  copystack_select_case wait2[2] = {{quiet, &qv, COPYSTACK_RECV, 0},
                                    {late, &lv, COPYSTACK_RECV, 0}};
  copystack_go(send_later, (void *)7L);
  r = copystack_select(wait2, 2, 1);
  printf("woken: case %d value %ld\n", r, lv);
  // Its waiter on `quiet` is gone: nobody receives there now.
  long probe = 1;
  copystack_select_case try_quiet = {quiet, &probe, COPYSTACK_SEND, 0};
  printf("withdrawn: %d\n", copystack_select(&try_quiet, 1, 0));

  // A blocking send case that is not chosen keeps its element.
  long keep = 99;
  copystack_select_case mixed[2] = {{quiet, &keep, COPYSTACK_SEND, 0},
                                    {late, &lv, COPYSTACK_RECV, 0}};
  copystack_go(send_later, (void *)9L);
  r = copystack_select(mixed, 2, 1);
  printf("mixed: case %d value %ld keep %ld\n", r, lv, keep);

  // A timeout.
  uint64_t start = copystack_now_ns(), fired = 0;
  copystack_chan *timeout = copystack_after(5000000);
  copystack_select_case tc[2] = {{quiet, &qv, COPYSTACK_RECV, 0},
                                 {timeout, &fired, COPYSTACK_RECV, 0}};
  r = copystack_select(tc, 2, 1);
  printf("timeout: case %d after 5ms: %s\n", r,
         fired >= start + 5000000 ? "yes" : "NO");
  copystack_chan_release(timeout);
  return 0;
}
// CHECK: default: -1
// CHECK: fair: yes
// CHECK: send case: 1
// CHECK: all null: -1
// CHECK: closed: case 1 ok 0 value 0
// CHECK: woken: case 1 value 7
// CHECK: withdrawn: -1
// CHECK: mixed: case 1 value 9 keep 99
// CHECK: timeout: case 1 after 5ms: yes
