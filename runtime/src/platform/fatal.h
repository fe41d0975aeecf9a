// fatal.h: how the runtime stops the program. Every invariant the runtime
// relies on is checked with CS_CHECK, which names the file, the line and the
// broken invariant, then aborts. Never a silent corruption, never a bare
// SIGSEGV for a condition the runtime can see.
#ifndef COPYSTACK_FATAL_H
#define COPYSTACK_FATAL_H

namespace copystack_rt {

// Prints "copystack: fatal: <message>" to stderr and aborts. Safe to call
// on the system stack from any runtime path; formats with vsnprintf into a
// fixed buffer and writes with write(2).
[[noreturn]] void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

// Prints "copystack: <message>" to stderr (for verify reports and traces).
void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

[[noreturn]] void check_failed(const char *file, int line, const char *expr,
                               const char *msg);

} // namespace copystack_rt

#define CS_CHECK(cond, msg)                                                    \
  do {                                                                         \
    if (__builtin_expect(!(cond), 0))                                          \
      ::copystack_rt::check_failed(__FILE__, __LINE__, #cond, msg);               \
  } while (0)

#endif
