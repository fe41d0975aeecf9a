// config.h: the runtime's settings, read once from the environment.
//
//   COPYSTACK_STRESS=1     move the stack at every prologue check (Go's
//                          stackForceMove): every instrumented call copies
//   COPYSTACK_VERIFY=1     fence every stack a task leaves (inaccessible,
//                          its addresses never reused) so that any pointer
//                          the relocation missed faults when used and is
//                          reported by name; check each argument map
//                          against the size LLVM puts in %r11; scrub dead
//                          stack at every check (every check traps)
//   COPYSTACK_VERIFY=scan  also scan each new stack for words that still
//                          hold old-stack addresses and that no map
//                          describes, and print them (advisory: a register
//                          allocator's dead spill slot looks the same)
//   COPYSTACK_MAX_STACK=N  the largest stack a task may grow to (bytes, or
//                          with a K, M or G suffix); default 1G
//   COPYSTACK_TRACE=1      print every stack copy to stderr
//   COPYSTACK_START_STACK=N  the stack a task starts with (default 2K)
//   COPYSTACK_SHRINK=0     do not shrink stacks at collections
//   COPYSTACK_ADAPTIVE=0   do not adapt the start size to the average use
//   COPYSTACK_LEARN=0      do not learn start sizes per spawn site
//   COPYSTACK_RELEASE=0    keep free stack memory instead of returning it
//   COPYSTACK_COLLECT_MS=N automatic collections every N ms (0: only when
//                          asked, and under stack-memory pressure)
//   COPYSTACK_THREADS=0    threads the program creates run their start
//                          routines on their own stacks, not as tasks
//   COPYSTACK_NETPOLL=0    blocking calls from tasks (read, accept, poll,
//                          sleep...) block the worker as in foreign code,
//                          instead of parking the task (sched/io.cc)
//   COPYSTACK_PREEMPT=0    tasks are never preempted (Go's
//                          GODEBUG=asyncpreemptoff=1, and more: Go still
//                          preempts at prologues then)
#ifndef COPYSTACK_CONFIG_H
#define COPYSTACK_CONFIG_H

#include <atomic>
#include <cstddef>

namespace copystack_rt {

struct Config {
  bool stress = false;
  bool verify = false;
  bool verify_scan = false;
  bool trace = false;
  bool thread_tasks = true;
  bool netpoll = true;
  bool preempt = true;
  std::atomic<size_t> max_stack;
  // The start size set by the program (COPYSTACK_START_STACK,
  // copystack_set_start_stack), and the adaptive one the collector
  // computes; a task starts with the larger.
  std::atomic<size_t> start_stack;
  std::atomic<size_t> adaptive_start;
  // The collection policy (copystack_policy).
  std::atomic<bool> shrink{true};
  std::atomic<bool> adaptive{true};
  std::atomic<bool> learn{true};
  std::atomic<bool> release{true};
  std::atomic<uint64_t> collect_ms{1000};
};

// The size a new task's stack starts with, before any per-site learning.
size_t default_start_stack();

Config &config();

// Parses "123", "64K", "8M", "1G"; returns 0 on malformed input.
size_t parse_size(const char *text);

} // namespace copystack_rt

#endif
