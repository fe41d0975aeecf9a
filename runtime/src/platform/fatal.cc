// fatal.cc: fatal errors and reports, written with write(2) so they work on
// any stack and in any state the runtime can be in.
#include "platform/split_stack_notes.h"
#include "platform/fatal.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace copystack_rt {

static void write_all(const char *buf, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(2, buf, n);
    if (w <= 0)
      return;
    buf += w;
    n -= static_cast<size_t>(w);
  }
}

static void vprint(const char *prefix, const char *fmt, va_list ap) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "%s", prefix);
  int m = vsnprintf(buf + n, sizeof buf - n - 1, fmt, ap);
  if (m < 0)
    m = 0;
  size_t len = static_cast<size_t>(n) + static_cast<size_t>(m);
  if (len > sizeof buf - 2)
    len = sizeof buf - 2;
  buf[len++] = '\n';
  write_all(buf, len);
}

void fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint("copystack: fatal: ", fmt, ap);
  va_end(ap);
  abort();
}

void report(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprint("copystack: ", fmt, ap);
  va_end(ap);
}

void check_failed(const char *file, int line, const char *expr,
                  const char *msg) {
  fatal("%s:%d: invariant broken: %s (%s)", file, line, msg, expr);
}

} // namespace copystack_rt
