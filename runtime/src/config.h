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
  std::atomic<size_t> max_stack;
  size_t start_stack;
};

Config &config();

// Parses "123", "64K", "8M", "1G"; returns 0 on malformed input.
size_t parse_size(const char *text);

} // namespace copystack_rt

#endif
