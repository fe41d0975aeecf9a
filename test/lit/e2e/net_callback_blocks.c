// A blocking call in instrumented code that foreign code calls back (a
// qsort comparator) runs on the thread's stack, where a task cannot park:
// it blocks the worker as before (the monitor hands the other tasks to a
// spare), instead of stopping the program.
// RUN: %cc %s -o %t && env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/net.h"

static int sv[2];
static int reads;

static void writer(void *arg) {
  (void)arg;
  copystack_sleep_ns(20000000);
  REQUIRE(write(sv[1], "q", 1) == 1);
}

static int cmp(const void *a, const void *b) {
  if (!reads++) {
    char c = 0;
    REQUIRE(read(sv[0], &c, 1) == 1 && c == 'q');
  }
  return *(const int *)a - *(const int *)b;
}

int main(void) {
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  copystack_go(writer, 0);
  int v[4] = {3, 1, 4, 2};
  qsort(v, 4, sizeof v[0], cmp);
  printf("sorted: %d%d%d%d\n", v[0], v[1], v[2], v[3]);
  return 0;
}
// CHECK: sorted: 1234
