// A foreign call in tail position is a jump to the trampoline: the function
// keeps no frame for it, and the trampoline finds the caller's caller's
// return address on the stack, as if that frame had made the call. Checked:
// results through direct and indirect (function pointer, dispatch on the
// prefix) tail calls of libc, one whose foreign callee calls back into
// instrumented code (bsearch's comparator), on a task whose stack grows and
// moves between the calls; and gdb's backtrace from inside a tail-called
// foreign call walks back to the task's older frames and main.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
// RUN: %if normal && gdb %{ gdb -batch -nx -iex "set auto-load safe-path /" -ex "break write" -ex run -ex bt -ex kill --args %t gdb 2>&1 | FileCheck %s --check-prefix=GDB %}
#include "Inputs/check.h"

#include <stdlib.h>
#include <string.h>

static int compare(const void *a, const void *b) {
  cs_burn(4); // instrumented code called back from libc
  return *(const int *)a - *(const int *)b;
}

static const int sorted[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29};

// Direct tail calls of foreign functions.
__attribute__((noinline)) static long parse(const char *s) {
  return strtol(s, 0, 10);
}
__attribute__((noinline)) static void *find(int key) {
  return bsearch(&key, sorted, 10, sizeof(int), compare);
}

// An indirect tail call: the prefix test sends it to the trampoline.
static size_t (*volatile length_of)(const char *) = strlen;
__attribute__((noinline)) static size_t measure(const char *s) {
  return length_of(s);
}

// The write's backtrace for gdb: tail_flush's frame is gone (a tail call
// of fflush), middle and main stay.
__attribute__((noinline)) static int tail_flush(const char *s) {
  fputs(s, stdout);
  return fflush(stdout);
}
__attribute__((noinline)) static int middle(const char *s) {
  return tail_flush(s) + 1; // not a tail call: middle keeps its frame
}

static long total;

static void run(void *arg) {
  (void)arg;
  for (int round = 0; round < 200; round++) {
    cs_burn(round % 40); // the stack grows, and moves in stress mode
    char buf[16];
    snprintf(buf, sizeof buf, "%d", round);
    total += parse(buf);
    int *hit = find(sorted[round % 10]);
    total += hit ? *hit : -1000000;
    total += (long)measure(buf);
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "gdb"))
    return middle("hi\n") == 1 ? 0 : 1;
  cs_fresh_task(run, 0);
  printf("total %ld\n", total);
  return 0;
}
// 0+..+199 = 19900; 20 rounds over the primes (129 each) = 2580; lengths:
// 10 of 1 digit, 90 of 2, 100 of 3 = 490.
// CHECK: total 22970
// GDB: #0 {{.*}}write
// GDB: [copystack: foreign call, back to the task's stack]
// GDB-NEXT: __copystack_foreign_call
// GDB: middle
// GDB: main
// GDB-NOT: Backtrace stopped
