// gdb walks a backtrace from inside libc, called from a task, back through
// the foreign-call trampoline to the task's frames and main: from a
// breakpoint in write() and from abort(). The write is stdio's, inside
// fflush: a write() the task makes itself goes to the network poller's
// wrapper, which tries pwritev2(RWF_NOWAIT) first (docs/debugging.md).
// REQUIRES: normal, gdb || gdb-stub
// RUN: %cc %s -o %t
// RUN: %gdb -ex "break write" -ex run -ex bt -ex kill %t 2>&1 | FileCheck %s --check-prefix=WRITE
// RUN: %gdb -ex run -ex bt -ex kill --args %t abort 2>&1 | FileCheck %s --check-prefix=ABORT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static int leaf(int n, int crash) {
  if (n > 0)
    return leaf(n - 1, crash) + 1;
  if (crash)
    abort();
  fputs("hi\n", stdout);
  return fflush(stdout) == 0 ? 3 : -1;
}

__attribute__((noinline)) static int middle(int crash) {
  return leaf(3, crash) * 2; // not a tail call: middle keeps its frame
}

int main(int argc, char **argv) {
  return middle(argc > 1 && !strcmp(argv[1], "abort")) == 12 ? 0 : 1;
}
// WRITE: #0 {{.*}}write
// WRITE: [copystack: foreign call, back to the task's stack]
// WRITE-NEXT: __copystack_foreign_call
// WRITE: leaf (
// WRITE: middle
// WRITE: main
// WRITE-NOT: Backtrace stopped
// ABORT: abort
// ABORT: [copystack: foreign call, back to the task's stack]
// ABORT-NEXT: __copystack_foreign_call
// ABORT: leaf (
// ABORT: middle
// ABORT: main
// ABORT-NOT: Backtrace stopped
