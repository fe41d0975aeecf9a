// The tasks demo (demo/tasks.cpp, the seed's counting program) prints the
// seed's three numbers on every run, and what a parked task costs.
// Not under TSan: each task stack is a mapping of its own there, and
// 100,000 of them pass the kernel's vm.max_map_count (docs/debugging.md).
// UNSUPPORTED: tsan
// RUN: %cxx %S/../../../demo/tasks.cpp -o %t && %run %t | FileCheck %s
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
// CHECK:      tasks when main starts:         1
// CHECK-NEXT: tasks while workers block: 100001
// CHECK-NEXT: tasks after release:            1
// CHECK:      while parked, per task: 2048 B of stack, 224 B of task structure
