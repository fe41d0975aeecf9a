// copystack_run runs a function as a task from an ordinary thread and, as a
// foreign call, from inside another task; each task gets its own 2 KiB
// stack, grows it, and gives it back.
// RUN: %cc --copystack-no-main %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

struct job {
  int depth;
  int result;
};

static void inner(void *arg) {
  struct job *j = arg;
  j->result = cs_burn(j->depth) - cs_burn(j->depth) + j->depth;
}

static void outer(void *arg) {
  struct job *j = arg;
  int local = 5;
  int *p = &local;
  cs_burn(300);
  struct job nested = {1500, 0};
  copystack_run(inner, &nested); // a task started from a task
  cs_burn(600);
  j->result = nested.result + *p;
}

int main(void) {
  REQUIRE(!copystack_in_task());
  struct job j = {0, 0};
  copystack_run(outer, &j);
  printf("result %d\n", j.result);
  copystack_stats s;
  copystack_get_stats(&s);
  printf("tasks %llu, stack in use %llu\n", (unsigned long long)s.tasks_created,
         (unsigned long long)s.stack_inuse);
  REQUIRE(s.growths + s.moves > 0);
  return 0;
}
// CHECK: result 1505
// CHECK: tasks 2, stack in use 0
