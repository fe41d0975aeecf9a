// fatal.h: how the runtime stops the program. Every invariant the runtime
// relies on is checked with CS_CHECK, which names the file, the line and the
// broken invariant. Never a silent corruption, never a bare SIGSEGV for a
// condition the runtime can see.
//
// A fatal error ends the program as Go's do: the message, then the tasks
// (COPYSTACK_TRACEBACK: none, the failing task, all of them by default),
// then exit status 2 (or abort() under COPYSTACK_TRACEBACK=crash, for a
// core dump). The task dump is sched/dump.cc's, when the program has tasks.
#ifndef COPYSTACK_FATAL_H
#define COPYSTACK_FATAL_H

#include <cstdint>

namespace copystack_rt {

// Go's exit status for a panic or a fatal error.
constexpr int kFatalExitStatus = 2;

// Where the failing task's innermost frame is, for its dump: pc (a return
// address, or an interrupted pc + 1) and the stack and frame pointers
// there; for an interrupted frame on a machine whose calls leave the
// return address in a register (AArch64's x30), that register too, which
// a leaf, or a function before it saved it, returns through (0: none, or
// in memory, as on x86-64). All 0: the failing task, if any, is in a
// foreign call.
struct FrameStart {
  uintptr_t pc = 0, sp = 0, fp = 0, lr = 0;
};

// Prints "copystack: fatal: <message>" to stderr, the task dump, and ends
// the program. Safe to call on the system stack from any runtime path;
// formats with vsnprintf into a fixed buffer and writes with write(2).
[[noreturn]] void fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

// The same, when the failing task's frames do not start at a foreign call
// (a growth that went over the limit, a fault): from its innermost frame
// at; the dump walks on by the unwind tables' rules.
[[noreturn]] void fatal_at(const FrameStart &at, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

// Prints line exactly (Go's own wording: "fatal error: all tasks are
// asleep - deadlock!", "SIGQUIT: quit"), then the dump at `level` or the
// configured one (level < 0), and ends the program. at as for fatal_at.
[[noreturn]] void die(const char *line, int level, const FrameStart &at);

// Prints "copystack: <message>" to stderr (for verify reports and traces).
void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

[[noreturn]] void check_failed(const char *file, int line, const char *expr,
                               const char *msg);

// The configured traceback level (config.h Traceback); set once the
// settings are read.
void set_traceback_level(int level);
int traceback_level();

// Writes n bytes to fd, retrying short writes; gives up on an error.
void write_fd(int fd, const char *buf, unsigned long n);

} // namespace copystack_rt

#define CS_CHECK(cond, msg)                                                    \
  do {                                                                         \
    if (__builtin_expect(!(cond), 0))                                          \
      ::copystack_rt::check_failed(__FILE__, __LINE__, #cond, msg);               \
  } while (0)

#endif
