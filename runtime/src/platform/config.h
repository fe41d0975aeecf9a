// config.h: the runtime's settings, read once from the environment.
//
// Every COPYSTACK_* variable the runtime reads is a row of one table
// (config.cc, kKnobs): its name, default, accepted forms and meaning. The
// same table parses the environment and prints the listing that
// COPYSTACK_HELP=1 asks for, so the two cannot drift apart. Parsing is
// strict: a value that is not one of the accepted forms (a negative size,
// one that overflows, trailing garbage, an empty value, "false" where a
// number is expected) stops the program with a message naming the variable
// and the forms it accepts, and a COPYSTACK_* variable that is not a
// setting gets a warning naming the closest one (a typo would otherwise be
// silently ignored).
//
// The settings, in short (COPYSTACK_HELP=1 prints them with their current
// values):
//   COPYSTACK_STRESS       move the stack at every prologue check
//   COPYSTACK_VERIFY       fence every stack a task leaves; "scan" also
//                          scans new stacks for undescribed old addresses
//   COPYSTACK_VERIFY_ARENA_GIB  address space verify mode hands stacks from
//   COPYSTACK_VERIFY_REUSE poison released stacks and reuse their addresses
//                          after N more, instead of fencing each one
//   COPYSTACK_MAX_STACK    the largest stack a task may grow to
//   COPYSTACK_START_STACK  the stack a task starts with
//   COPYSTACK_TRACE        print every stack copy
//   COPYSTACK_TRACE_OUT    write an execution trace there (sched/trace.h)
//   COPYSTACK_TRACE_BUFFER events each thread's trace ring keeps
//   COPYSTACK_PROFILE_OUT  write pprof profiles there at exit
//                          (sched/profile.h)
//   COPYSTACK_SHRINK, _ADAPTIVE, _LEARN, _RELEASE, _COMPACT, _COLLECT_MS
//                          the collection policy (copystack_policy)
//   COPYSTACK_THREADS      threads' start routines run as tasks
//   COPYSTACK_NETPOLL      blocking calls from tasks (read, accept, poll,
//                          sleep...) park the task instead of blocking the
//                          worker (sched/io.cc)
//   COPYSTACK_PREEMPT      tasks that run for a time slice are preempted
//   COPYSTACK_PREEMPT_SIGNAL  ... also by a signal (sched/preempt_signal.h)
//   COPYSTACK_WORKERS      worker threads (default: the CPUs)
//   COPYSTACK_TRACEBACK    what a fatal error prints: none, single, all,
//                          crash (Go's GOTRACEBACK)
//   COPYSTACK_SYMBOLIZER   the program that turns addresses into file:line
//   COPYSTACK_CPU          the stack copy's vector unit (platform/cpu.h)
//   COPYSTACK_HELP         print the settings and exit
#ifndef COPYSTACK_CONFIG_H
#define COPYSTACK_CONFIG_H

#include "platform/cpu.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace copystack_rt {

// How much of the tasks a fatal error prints (Go's GOTRACEBACK levels).
enum Traceback : int {
  kTracebackNone = 0,   // the message only
  kTracebackSingle = 1, // and the task that failed
  kTracebackAll = 2,    // and every task (the default)
  kTracebackCrash = 3,  // every task, then abort() for a core dump
};

// An output path from the environment (COPYSTACK_TRACE_OUT,
// COPYSTACK_PROFILE_OUT) with %p replaced by the process id and %% by %,
// so that the programs a program starts do not overwrite its files.
// Returns buf, or null when it does not fit.
char *expand_output_path(const char *pattern, char *buf, size_t len);

struct Config {
  bool stress = false;
  bool verify = false;
  bool verify_scan = false;
  bool trace = false;
  // An execution trace's file (sched/trace.h), or empty; and how many
  // events each thread's ring keeps.
  const char *trace_out = "";
  uint32_t trace_buffer = 65536;
  // The pprof profiles' file prefix (sched/profile.h), or empty.
  const char *profile_out = "";
  bool thread_tasks = true;
  // 0: one per CPU the process may run on.
  int workers = 0;
  uint64_t verify_arena_gib = 1024;
  // 0: every released stack is fenced; N: verify mode's reuse ring
  // (core/stack_alloc.cc).
  unsigned verify_reuse = 0;
  bool verify_reuse_set = false; // else 16 under stress, 0 otherwise
  Traceback traceback = kTracebackAll;
  // A path to llvm-symbolizer, or empty: look for one; "0": none.
  const char *symbolizer = "";
  bool netpoll = true;
  bool preempt = true;
  bool preempt_signal = true;
  // The stack copy's code variant (platform/cpu.h).
  CpuVariant cpu = CpuVariant::kAuto;
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
  std::atomic<bool> compact{true};
  std::atomic<uint64_t> collect_ms{1000};
};

// The size a new task's stack starts with, before any per-site learning.
size_t default_start_stack();

// The settings, read at start-up (or at the runtime's first use, if that
// comes earlier): inline, since every task switch reads some.
extern std::atomic<Config *> g_config;
Config &config_first_use();
inline Config &config() {
  Config *c = g_config.load(std::memory_order_acquire);
  return c ? *c : config_first_use();
}
// The settings once they are read, or null while they are being read (a
// fatal error in a setting must not read them again).
const Config *config_if_loaded();

// The parsers behind the table. Each returns false, leaving *out alone, for
// anything but an accepted form.
//
// Sizes: decimal bytes, or with a K, M, G or T suffix (powers of 1024, any
// case, optionally followed by "B" or "iB": 64K, 8M, 1GiB). No sign, no
// spaces, no overflow.
bool parse_size(const char *text, uint64_t *out);
// Counts: decimal digits only, no overflow.
bool parse_count(const char *text, uint64_t *out);
// Booleans: exactly 0, 1, true, false, yes, no, on, off (any case).
bool parse_bool(const char *text, bool *out);

// The closest setting to a name that is not one (for the typo warning), or
// null when none is close.
const char *closest_knob(const char *name);

// Prints every setting with its default and current value to fd.
void print_knobs(int fd);

} // namespace copystack_rt

#endif
