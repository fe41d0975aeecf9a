// fatal.cc: fatal errors and reports, written with write(2) so they work on
// any stack and in any state the runtime can be in.
#include "platform/split_stack_notes.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace copystack_rt {

// sched/dump.cc: prints the tasks for a fatal error. Weak: a program (a
// unit test) that links no task code has none to print.
void dump_tasks_for_fatal(int level, const FrameStart &at)
    __attribute__((weak));

namespace {

std::atomic<int> g_level{2}; // kTracebackAll until the settings are read
// The thread that is ending the program; another thread's fatal error
// meanwhile waits for the end instead of interleaving its own.
std::atomic<bool> g_dying{false};
thread_local bool t_dying;

void format(char *buf, size_t size, size_t *len, const char *prefix,
            const char *fmt, va_list ap) {
  int n = snprintf(buf, size, "%s", prefix);
  int m = vsnprintf(buf + n, size - n - 1, fmt, ap);
  if (m < 0)
    m = 0;
  size_t l = static_cast<size_t>(n) + static_cast<size_t>(m);
  if (l > size - 2)
    l = size - 2;
  buf[l++] = '\n';
  buf[l] = 0;
  *len = l;
}

} // namespace

void write_fd(int fd, const char *buf, unsigned long n) {
  while (n > 0) {
    ssize_t w = ::write(fd, buf, n);
    if (w <= 0)
      return;
    buf += w;
    n -= static_cast<unsigned long>(w);
  }
}

void set_traceback_level(int level) { g_level.store(level); }
int traceback_level() { return g_level.load(); }

void die(const char *line, int level, const FrameStart &at) {
  if (t_dying) // a fault while dumping: the message is out, stop now
    _exit(kFatalExitStatus);
  t_dying = true;
  if (g_dying.exchange(true))
    for (;;) // another thread is ending the program
      pause();
  write_fd(2, line, __builtin_strlen(line));
  if (level < 0)
    level = g_level.load();
  if (level > 0 && dump_tasks_for_fatal)
    dump_tasks_for_fatal(level, at);
  san::ending_process();
  if (level >= 3)
    abort();
  _exit(kFatalExitStatus);
}

// fatal and fatal_at: the message, then die() from where the error is.
[[noreturn]] static void vfatal_at(const FrameStart &at, const char *fmt,
                                   va_list ap) {
  char buf[1024];
  size_t len;
  format(buf, sizeof buf, &len, "copystack: fatal: ", fmt, ap);
  die(buf, -1, at);
}

void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfatal_at(FrameStart{}, fmt, ap);
}

void fatal_at(const FrameStart &at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfatal_at(at, fmt, ap);
}

void report(const char *fmt, ...) {
  char buf[1024];
  size_t len;
  va_list ap;
  va_start(ap, fmt);
  format(buf, sizeof buf, &len, "copystack: ", fmt, ap);
  va_end(ap);
  write_fd(2, buf, len);
}

void check_failed(const char *file, int line, const char *expr,
                  const char *msg) {
  fatal("%s:%d: invariant broken: %s (%s)", file, line, msg, expr);
}

} // namespace copystack_rt
