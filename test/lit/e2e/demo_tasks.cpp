// The tasks demo (demo/tasks.cpp, the seed's counting program) prints the
// seed's three numbers on every run, and what a parked task costs.
// Not under TSan: each task stack is a mapping of its own there, and
// 100,000 of them pass the kernel's vm.max_map_count (docs/debugging.md).
// UNSUPPORTED: tsan
// Stress mode compacts tasks as they park: the 2 KiB figure is checked
// with compaction off, the compacted one with it on.
// RUN: %cxx %S/../../../demo/tasks.cpp -o %t
// %{tasks}: the seed's 100,000, and a tenth of it in verify and stress
// mode, where every stack a task leaves is fenced (lit.cfg.py).
// RUN: %run COPYSTACK_COMPACT=0 %t %{tasks} | FileCheck %s -D#N=%{tasks} --check-prefixes=CHECK,OFF
// RUN: %run COPYSTACK_WORKERS=1 %t %{tasks} | FileCheck %s -D#N=%{tasks} --check-prefixes=CHECK,ON
// CHECK:      tasks when main starts: 1
// CHECK-NEXT: tasks while workers block: [[#N+1]]
// CHECK-NEXT: tasks after release: 1
// OFF:        while parked, per task: 2048 B of stack, 240 B of task structure
// OFF-NEXT:   after two collections: 0 tasks compacted
// ON:         after two collections: [[#N]] tasks compacted, {{[1-9][0-9][0-9]}} B of frames each; per task: 0 B of stack
