// raw_syscall.h: a system call made with the syscall instruction, not
// through the C library's syscall(), which the runtime interposes
// (sched/io.cc). The interposer itself forwards through this: nothing on
// its path may call syscall() again. libstdc++'s __cxa_guard_acquire waits
// for another thread's initialization of a function-local static with
// syscall(SYS_futex, ...): an interposer that initialized a static of its
// own on first use re-entered itself through the guard, once for every
// wait, until the thread's stack ran out (a worker died in scheduling.c's
// migrate run, 1 run in some hundreds).
#ifndef COPYSTACK_ARCH_RAW_SYSCALL_H
#define COPYSTACK_ARCH_RAW_SYSCALL_H

#include <cerrno>

namespace copystack_rt {

// The system call nr with six arguments (the kernel ignores the ones the
// call has not): its result, or -1 with errno, as syscall().
inline long raw_syscall(long nr, long a, long b, long c, long d, long e,
                        long f) {
  register long r10 asm("r10") = d;
  register long r8 asm("r8") = e;
  register long r9 asm("r9") = f;
  long r;
  asm volatile("syscall"
               : "=a"(r)
               : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
               : "rcx", "r11", "memory");
  if (r < 0 && r > -4096) {
    errno = static_cast<int>(-r);
    return -1;
  }
  return r;
}

} // namespace copystack_rt

#endif
