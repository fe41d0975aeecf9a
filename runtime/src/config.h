// config.h: the runtime's settings, read once from the environment.
//
//   COPYSTACK_STRESS=1     move the stack at every prologue check (Go's
//                          stackForceMove): every instrumented call copies
//   COPYSTACK_VERIFY=1     after every copy, scan the new stack for words
//                          that still point into the old one and are not
//                          known non-pointers; fence old stacks so a stale
//                          pointer faults with a report instead of reading
//                          reused memory; check argument maps against %r11
//   COPYSTACK_MAX_STACK=N  the largest stack a task may grow to (bytes, or
//                          with a K, M or G suffix); default 1G
//   COPYSTACK_TRACE=1      print every stack copy to stderr
#ifndef COPYSTACK_CONFIG_H
#define COPYSTACK_CONFIG_H

#include <atomic>
#include <cstddef>

namespace copystack {

struct Config {
  bool stress = false;
  bool verify = false;
  bool trace = false;
  std::atomic<size_t> max_stack;
  size_t start_stack;
};

Config &config();

// Parses "123", "64K", "8M", "1G"; returns 0 on malformed input.
size_t parse_size(const char *text);

} // namespace copystack

#endif
