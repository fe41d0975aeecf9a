// main may live in a static library (gtest_main, Catch2's main library,
// fmt's test-main): the drivers still link it and run it as the first task,
// with GNU ld, gold and lld.
// RUN: rm -rf %t.dir && mkdir -p %t.dir
// RUN: %cc -DMAIN -c %s -o %t.dir/main.o
// RUN: ar rcs %t.dir/libtestmain.a %t.dir/main.o
// RUN: %cc -c %s -o %t.dir/tests.o
// RUN: %cc %t.dir/tests.o -L%t.dir -ltestmain -o %t && %run %t | FileCheck %s
// RUN: %cc -fuse-ld=gold %t.dir/tests.o %t.dir/libtestmain.a -o %t.gold && %run %t.gold | FileCheck %s
// RUN: %cc -fuse-ld=lld %t.dir/tests.o %t.dir/libtestmain.a -o %t.lld && %run %t.lld | FileCheck %s
#include "Inputs/check.h"

int run_tests(void);

#ifdef MAIN
int main(void) {
  printf("main is a task: %s\n", copystack_in_task() ? "yes" : "no");
  return run_tests();
}
#else
int run_tests(void) {
  cs_burn(500);
  printf("tests grew the stack: %s\n", cs_copies() > 0 ? "yes" : "no");
  return 0;
}
#endif
// CHECK: main is a task: yes
// CHECK: tests grew the stack: yes
