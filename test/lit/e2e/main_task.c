// A program's main runs as the first task on a 2 KiB stack without source
// changes: it sees its arguments and environment, its return value is the
// exit status, and exit() from deep inside the task works.
// RUN: %cc %s -o %t
// RUN: env CS_PROBE=here %run %t one two | FileCheck %s
// RUN: not %run %t fail 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: %run %t exit; test $? -eq 3
#include "Inputs/check.h"
#include <string.h>

__attribute__((noinline)) static void exit_deep(int depth) {
  char frame[200];
  CS_KEEP(frame);
  if (depth == 0)
    exit(3);
  exit_deep(depth - 1);
  frame[0] = 1;
}

int main(int argc, char **argv, char **envp) {
  copystack_stack_info info;
  REQUIRE(copystack_in_task());
  REQUIRE(copystack_current_stack(&info) == 0);
  printf("stack %zu\n", info.size);
  if (argc > 1 && strcmp(argv[1], "fail") == 0)
    return 5;
  if (argc > 1 && strcmp(argv[1], "exit") == 0)
    exit_deep(500);
  int found = 0;
  for (char **e = envp; *e; e++)
    found |= strcmp(*e, "CS_PROBE=here") == 0;
  printf("argc %d argv %s %s env %d\n", argc, argv[1], argv[2], found);
  return 0;
}
// CHECK: stack 2048
// CHECK: argc 3 argv one two env 1
// FAIL: stack 2048
