// config.cc: the COPYSTACK_* settings (config.h): one table that parses
// the environment and prints the listing.
#include "platform/split_stack_notes.h"
#include "platform/runtime.h"
#include "platform/config.h"
#include "platform/fatal.h"

#include "copystack/abi.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <unistd.h>

extern char **environ;

namespace copystack_rt {

bool parse_count(const char *text, uint64_t *out) {
  if (!text || !*text)
    return false;
  uint64_t v = 0;
  for (const char *p = text; *p; ++p) {
    if (*p < '0' || *p > '9')
      return false;
    if (__builtin_mul_overflow(v, 10, &v) ||
        __builtin_add_overflow(v, static_cast<uint64_t>(*p - '0'), &v))
      return false;
  }
  *out = v;
  return true;
}

bool parse_size(const char *text, uint64_t *out) {
  if (!text || !*text)
    return false;
  size_t digits = strspn(text, "0123456789");
  if (digits == 0 || digits > 20)
    return false;
  char number[21];
  memcpy(number, text, digits);
  number[digits] = 0;
  uint64_t v;
  if (!parse_count(number, &v))
    return false;
  const char *end = text + digits;
  int shift = 0;
  switch (*end) {
  case 'k': case 'K': shift = 10; break;
  case 'm': case 'M': shift = 20; break;
  case 'g': case 'G': shift = 30; break;
  case 't': case 'T': shift = 40; break;
  default: break;
  }
  if (shift) {
    ++end;
    if (*end == 'i')
      ++end;
  }
  if (*end == 'b' || *end == 'B')
    ++end;
  if (*end)
    return false;
  if (shift && v > (UINT64_MAX >> shift))
    return false;
  *out = v << shift;
  return true;
}

bool parse_bool(const char *text, bool *out) {
  static const char *const kTrue[] = {"1", "true", "yes", "on"};
  static const char *const kFalse[] = {"0", "false", "no", "off"};
  if (!text)
    return false;
  for (const char *w : kTrue)
    if (strcasecmp(text, w) == 0)
      return *out = true, true;
  for (const char *w : kFalse)
    if (strcasecmp(text, w) == 0)
      return *out = false, true;
  return false;
}

namespace {

constexpr const char *kBoolForms = "0, 1, true, false, yes, no, on or off";

// One setting. set() parses the value into the config and returns false
// when it is not one of the accepted forms (or out of range); show() writes
// the value in effect.
struct Knob {
  const char *name;
  const char *dflt;    // the default, as the listing shows it
  const char *accepts; // the accepted forms, for the listing and errors
  const char *what;
  bool (*set)(Config &c, const char *value);
  void (*show)(const Config &c, char *buf, size_t len);
};

void show_bool(bool v, char *buf, size_t len) {
  snprintf(buf, len, "%d", v ? 1 : 0);
}

void show_size(uint64_t v, char *buf, size_t len) {
  static const char *const kUnits[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    ++u;
  }
  snprintf(buf, len, "%llu%s", static_cast<unsigned long long>(v), kUnits[u]);
}

const char *const kTracebackNames[] = {"none", "single", "all", "crash"};

bool set_size_at_least(std::atomic<size_t> &field, const char *v,
                       uint64_t lo, uint64_t hi) {
  uint64_t n;
  if (!parse_size(v, &n) || n < lo || n > hi)
    return false;
  field.store(n);
  return true;
}

const Knob kKnobs[] = {
    {"COPYSTACK_STRESS", "0", kBoolForms,
     "move the stack at every prologue check (Go's stackForceMove)",
     [](Config &c, const char *v) { return parse_bool(v, &c.stress); },
     [](const Config &c, char *b, size_t n) { show_bool(c.stress, b, n); }},
    {"COPYSTACK_VERIFY", "0", "0, 1, true, false, yes, no, on, off or scan",
     "fence every stack a task leaves and name any use of a missed "
     "pointer; scan: also report undescribed old-stack words after copies",
     [](Config &c, const char *v) {
       if (strcasecmp(v, "scan") == 0)
         return c.verify = c.verify_scan = true;
       return parse_bool(v, &c.verify);
     },
     [](const Config &c, char *b, size_t n) {
       if (c.verify_scan)
         snprintf(b, n, "scan");
       else
         show_bool(c.verify, b, n);
     }},
    {"COPYSTACK_VERIFY_ARENA_GIB", "1024", "a number of GiB from 1 to 65536",
     "address space verify mode hands stacks out from",
     [](Config &c, const char *v) {
       uint64_t n;
       if (!parse_count(v, &n) || n < 1 || n > 65536)
         return false;
       c.verify_arena_gib = n;
       return true;
     },
     [](const Config &c, char *b, size_t n) {
       snprintf(b, n, "%llu",
                static_cast<unsigned long long>(c.verify_arena_gib));
     }},
    {"COPYSTACK_VERIFY_REUSE", "0 (16 with COPYSTACK_STRESS)",
     "a number of stacks from 0 to 1024",
     "verify mode: 0 fences every stack a task leaves at a fresh address; "
     "N poisons each one up to 1 MiB instead, and reuses its address "
     "after N later ones of its size and placement, when its poison is "
     "intact (fast where page-table updates are slow: stress mode moves a "
     "stack at every call, and fenced it ran lz4's tests hundreds of "
     "times slower than without verify)",
     [](Config &c, const char *v) {
       uint64_t n;
       if (!parse_count(v, &n) || n > 1024)
         return false;
       c.verify_reuse = static_cast<unsigned>(n);
       c.verify_reuse_set = true;
       return true;
     },
     [](const Config &c, char *b, size_t n) {
       snprintf(b, n, "%u", c.verify_reuse);
     }},
    {"COPYSTACK_MAX_STACK", "1G",
     "a size of at least 2048 bytes: bytes, or a number with a K, M, G or "
     "T suffix (64K, 8M, 1G)",
     "the largest stack one task may grow to",
     [](Config &c, const char *v) {
       return set_size_at_least(c.max_stack, v, COPYSTACK_MIN_STACK,
                                UINT64_MAX);
     },
     [](const Config &c, char *b, size_t n) {
       show_size(c.max_stack.load(), b, n);
     }},
    {"COPYSTACK_START_STACK", "2K",
     "a size from 2048 bytes to 1G: bytes, or a number with a K, M or G "
     "suffix (8K, 1M)",
     "the stack a task starts with (rounded up to a power of two)",
     [](Config &c, const char *v) {
       return set_size_at_least(c.start_stack, v, COPYSTACK_MIN_STACK,
                                uint64_t(1) << 30);
     },
     [](const Config &c, char *b, size_t n) {
       show_size(c.start_stack.load(), b, n);
     }},
    {"COPYSTACK_CPU", "auto", "auto, baseline, avx2 or avx512f",
     "the vector unit the stack copy uses: auto is the best this CPU has; "
     "the others let a test run every variant the machine can execute",
     [](Config &c, const char *v) { return parse_cpu_variant(v, &c.cpu); },
     [](const Config &c, char *b, size_t n) {
       snprintf(b, n, "%s", cpu_variant_name(c.cpu));
     }},
    {"COPYSTACK_TRACE", "0", kBoolForms, "print every stack copy to stderr",
     [](Config &c, const char *v) { return parse_bool(v, &c.trace); },
     [](const Config &c, char *b, size_t n) { show_bool(c.trace, b, n); }},
    {"COPYSTACK_TRACE_OUT", "(none)", "a file's path",
     "write an execution trace of the whole run to that file (%p in it: "
     "the process id) when the program exits: Chrome trace-event JSON, "
     "for Perfetto (ui.perfetto.dev) and chrome://tracing; "
     "copystack_trace_start() traces a part of a run",
     [](Config &c, const char *v) {
       c.trace_out = v;
       return *v != 0;
     },
     [](const Config &c, char *b, size_t n) {
       snprintf(b, n, "%s", *c.trace_out ? c.trace_out : "(none)");
     }},
    {"COPYSTACK_TRACE_BUFFER", "65536", "a number of events from 1024 to 2^24",
     "how many events each thread keeps for an execution trace (48 bytes "
     "each): when a thread records more, its oldest ones are dropped, and "
     "the trace says how many",
     [](Config &c, const char *v) {
       uint64_t n;
       if (!parse_count(v, &n) || n < 1024 || n > (uint64_t(1) << 24))
         return false;
       c.trace_buffer = static_cast<uint32_t>(n);
       return true;
     },
     [](const Config &c, char *b, size_t n) {
       snprintf(b, n, "%u", c.trace_buffer);
     }},
    {"COPYSTACK_PROFILE_OUT", "(none)", "a path prefix",
     "record profiles from the start and write them in pprof's format "
     "when the program exits (%p in PREFIX: the process id): "
     "PREFIX.growth.pb.gz (stack growth by the "
     "call stack that asked), PREFIX.tasks.pb.gz (live tasks by spawn "
     "site) and PREFIX.block.pb.gz (time parked by wait reason and call "
     "stack), for `go tool pprof -top PROGRAM FILE`",
     [](Config &c, const char *v) {
       c.profile_out = v;
       return *v != 0;
     },
     [](const Config &c, char *b, size_t n) {
       snprintf(b, n, "%s", *c.profile_out ? c.profile_out : "(none)");
     }},
    {"COPYSTACK_SHRINK", "1", kBoolForms,
     "collections halve the stacks of tasks that use little of them",
     [](Config &c, const char *v) {
       bool b;
       return parse_bool(v, &b) && (c.shrink.store(b), true);
     },
     [](const Config &c, char *b, size_t n) {
       show_bool(c.shrink.load(), b, n);
     }},
    {"COPYSTACK_ADAPTIVE", "1", kBoolForms,
     "the start size follows the average use seen at collections",
     [](Config &c, const char *v) {
       bool b;
       return parse_bool(v, &b) && (c.adaptive.store(b), true);
     },
     [](const Config &c, char *b, size_t n) {
       show_bool(c.adaptive.load(), b, n);
     }},
    {"COPYSTACK_LEARN", "1", kBoolForms,
     "start sizes are learned per spawn site",
     [](Config &c, const char *v) {
       bool b;
       return parse_bool(v, &b) && (c.learn.store(b), true);
     },
     [](const Config &c, char *b, size_t n) {
       show_bool(c.learn.load(), b, n);
     }},
    {"COPYSTACK_RELEASE", "1", kBoolForms,
     "free stack memory goes back to the OS at collections",
     [](Config &c, const char *v) {
       bool b;
       return parse_bool(v, &b) && (c.release.store(b), true);
     },
     [](const Config &c, char *b, size_t n) {
       show_bool(c.release.load(), b, n);
     }},
    {"COPYSTACK_COMPACT", "1", kBoolForms,
     "a task parked across a collection keeps only its live bytes (off "
     "under ASan, TSan and LeakSanitizer)",
     [](Config &c, const char *v) {
       bool b;
       return parse_bool(v, &b) && (c.compact.store(b), true);
     },
     [](const Config &c, char *b, size_t n) {
       show_bool(c.compact.load(), b, n);
     }},
    {"COPYSTACK_COLLECT_MS", "1000", "a number of milliseconds (0: never)",
     "automatic collections while stacks change, every this many ms",
     [](Config &c, const char *v) {
       uint64_t ms;
       return parse_count(v, &ms) && (c.collect_ms.store(ms), true);
     },
     [](const Config &c, char *b, size_t n) {
       snprintf(b, n, "%llu",
                static_cast<unsigned long long>(c.collect_ms.load()));
     }},
    {"COPYSTACK_THREADS", "1", kBoolForms,
     "start routines of the threads a program creates run as tasks",
     [](Config &c, const char *v) { return parse_bool(v, &c.thread_tasks); },
     [](const Config &c, char *b, size_t n) {
       show_bool(c.thread_tasks, b, n);
     }},
    {"COPYSTACK_NETPOLL", "1", kBoolForms,
     "blocking calls from tasks (socket read, accept, poll, sleep...) park "
     "the task on the network poller; 0: they block the worker",
     [](Config &c, const char *v) { return parse_bool(v, &c.netpoll); },
     [](const Config &c, char *b, size_t n) { show_bool(c.netpoll, b, n); }},
    {"COPYSTACK_PREEMPT", "1", kBoolForms,
     "a task that runs for a time slice yields at its next call of "
     "instrumented code, at a loop poll or, by the signal, at any "
     "instruction; 0: tasks are never preempted",
     [](Config &c, const char *v) { return parse_bool(v, &c.preempt); },
     [](const Config &c, char *b, size_t n) { show_bool(c.preempt, b, n); }},
    {"COPYSTACK_PREEMPT_SIGNAL", "1", kBoolForms,
     "the monitor stops such a task with a signal (SIGURG) at any "
     "instruction of instrumented code, as Go 1.14 does (code has no loop "
     "polls unless built with --copystack-preempt=polls or TSan); 0: only "
     "at calls and loop polls",
     [](Config &c, const char *v) { return parse_bool(v, &c.preempt_signal); },
     [](const Config &c, char *b, size_t n) {
       show_bool(c.preempt_signal, b, n);
     }},
    {"COPYSTACK_WORKERS", "the CPUs", "a number of workers from 1 to 1024",
     "worker threads that run tasks (Go's GOMAXPROCS)",
     [](Config &c, const char *v) {
       uint64_t n;
       if (!parse_count(v, &n) || n < 1 || n > 1024)
         return false;
       c.workers = static_cast<int>(n);
       return true;
     },
     [](const Config &c, char *b, size_t n) {
       if (c.workers)
         snprintf(b, n, "%d", c.workers);
       else
         snprintf(b, n, "the CPUs");
     }},
    {"COPYSTACK_TRACEBACK", "all", "none, single, all or crash",
     "what a fatal error prints: the message only, the failing task too, "
     "every task, or every task and then a core dump (Go's GOTRACEBACK)",
     [](Config &c, const char *v) {
       for (int i = 0; i < 4; ++i)
         if (strcasecmp(v, kTracebackNames[i]) == 0)
           return c.traceback = static_cast<Traceback>(i), true;
       return false;
     },
     [](const Config &c, char *b, size_t n) {
       snprintf(b, n, "%s", kTracebackNames[c.traceback]);
     }},
    {"COPYSTACK_SYMBOLIZER", "llvm-symbolizer",
     "a path to llvm-symbolizer, or 0 for none",
     "turns addresses in task dumps into file:line (found in the LLVM 19 "
     "directories or /usr/bin when not set)",
     [](Config &c, const char *v) {
       c.symbolizer = v;
       return *v != 0;
     },
     [](const Config &c, char *b, size_t n) {
       snprintf(b, n, "%s", *c.symbolizer ? c.symbolizer : "llvm-symbolizer");
     }},
    {"COPYSTACK_HELP", "0", kBoolForms, "print these settings and exit",
     [](Config &, const char *v) {
       bool b;
       return parse_bool(v, &b);
     },
     [](const Config &, char *b, size_t n) { snprintf(b, n, "-"); }},
};

// COPYSTACK_* variables that copystack's own scripts read (scripts/test,
// scripts/csmith-diff, scripts/test-install): not settings of the runtime,
// and not typos.
const char *const kScriptVariables[] = {
    "COPYSTACK_BUILD_DIR", "COPYSTACK_CLEAN", "COPYSTACK_CSMITH",
    "COPYSTACK_SKIP_DEB", "COPYSTACK_SKIP_TSAN"};

constexpr const char kPrefix[] = "COPYSTACK_";

size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63)
    return 64;
  size_t row[64];
  for (size_t j = 0; j <= lb; ++j)
    row[j] = j;
  for (size_t i = 1; i <= la; ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; ++j) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

void write_all(int fd, const char *s, size_t n) {
  while (n) {
    ssize_t w = ::write(fd, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void print_table(const Config &c, int fd);

// Reads every variable of the table from the environment; stops the
// program at the first malformed one, warns about COPYSTACK_* variables
// that are not settings.
void apply_environment(Config &c) {
  bool help = false;
  for (const Knob &k : kKnobs) {
    const char *v = getenv(k.name);
    if (!v)
      continue;
    if (!*v)
      fatal("%s is set but empty: expected %s", k.name, k.accepts);
    if (!k.set(c, v))
      fatal("%s=%s: expected %s", k.name, v, k.accepts);
    if (strcmp(k.name, "COPYSTACK_HELP") == 0)
      parse_bool(v, &help);
  }
  for (char **e = environ; e && *e; ++e) {
    if (strncmp(*e, kPrefix, sizeof kPrefix - 1) != 0)
      continue;
    char name[128];
    size_t len = strcspn(*e, "=");
    if (len >= sizeof name)
      len = sizeof name - 1;
    memcpy(name, *e, len);
    name[len] = 0;
    bool known = false;
    for (const Knob &k : kKnobs)
      known |= strcmp(k.name, name) == 0;
    for (const char *s : kScriptVariables)
      known |= strcmp(s, name) == 0;
    if (known)
      continue;
    if (const char *near = closest_knob(name))
      report("warning: %s is not a copystack setting; did you mean %s? "
             "(COPYSTACK_HELP=1 lists them)",
             name, near);
    else
      report("warning: %s is not a copystack setting (COPYSTACK_HELP=1 "
             "lists them)",
             name);
  }
  if (c.stress && !c.verify_reuse_set)
    c.verify_reuse = 16;
  set_traceback_level(c.traceback);
  if (help) {
    print_table(c, 1);
    _exit(0);
  }
}

} // namespace

// Set once the settings are read: config()'s fast path, and what
// config_if_loaded() answers.
std::atomic<Config *> g_config{nullptr};

namespace {

Config *load() {
  static Config c;
  c.max_stack.store(COPYSTACK_DEFAULT_MAX_STACK);
  c.start_stack.store(COPYSTACK_MIN_STACK);
  c.adaptive_start.store(COPYSTACK_MIN_STACK);
  apply_environment(c);
  g_config.store(&c, std::memory_order_release);
  return &c;
}

// Settings are read when the program starts, not at the runtime's first
// use: a malformed value, a typo or COPYSTACK_HELP=1 is reported before
// the program does anything.
__attribute__((constructor)) void load_at_start() {
  if (is_process_runtime())
    config();
}

} // namespace

char *expand_output_path(const char *pattern, char *buf, size_t len) {
  size_t n = 0;
  for (const char *p = pattern; *p; ++p) {
    char pid[24];
    const char *piece = p;
    size_t k = 1;
    if (p[0] == '%' && p[1] == 'p') {
      k = static_cast<size_t>(snprintf(pid, sizeof pid, "%d", getpid()));
      piece = pid;
      ++p;
    } else if (p[0] == '%' && p[1] == '%') {
      ++p;
    }
    if (n + k >= len)
      return nullptr;
    memcpy(buf + n, piece, k);
    n += k;
  }
  buf[n] = 0;
  return buf;
}

const char *closest_knob(const char *name) {
  const char *best = nullptr;
  size_t best_d = SIZE_MAX;
  for (const Knob &k : kKnobs) {
    size_t d = edit_distance(name, k.name);
    if (d < best_d) {
      best_d = d;
      best = k.name;
    }
  }
  // Close: a few letters off, relative to the part after the prefix.
  size_t tail = strlen(name) > sizeof kPrefix - 1
                    ? strlen(name) - (sizeof kPrefix - 1)
                    : 1;
  size_t limit = tail / 3 > 2 ? tail / 3 : 2;
  return best_d <= limit ? best : nullptr;
}

namespace {

void print_table(const Config &c, int fd) {
  char line[1024];
  int n = snprintf(line, sizeof line,
                   "copystack settings (environment variables), with the "
                   "value in effect:\n\n");
  write_all(fd, line, static_cast<size_t>(n));
  for (const Knob &k : kKnobs) {
    char cur[256];
    k.show(c, cur, sizeof cur);
    n = snprintf(line, sizeof line,
                 "%s=%s\n    %s.\n    default: %s; accepts %s\n\n", k.name,
                 cur, k.what, k.dflt, k.accepts);
    if (n > 0)
      write_all(fd, line,
                static_cast<size_t>(n) < sizeof line ? static_cast<size_t>(n)
                                                     : sizeof line - 1);
  }
}

} // namespace

void print_knobs(int fd) { print_table(config(), fd); }

Config &config_first_use() {
  static Config *c = load();
  return *c;
}

const Config *config_if_loaded() {
  return g_config.load(std::memory_order_acquire);
}

size_t default_start_stack() {
  Config &c = config();
  size_t a = c.adaptive.load(std::memory_order_relaxed)
                 ? c.adaptive_start.load(std::memory_order_relaxed)
                 : 0;
  size_t s = c.start_stack.load(std::memory_order_relaxed);
  return a > s ? a : s;
}

} // namespace copystack_rt
