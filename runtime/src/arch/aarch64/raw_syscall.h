// raw_syscall.h (AArch64): a system call made with svc, not through the C
// library's syscall(), which the runtime interposes (x86_64/raw_syscall.h
// says why).
#ifndef COPYSTACK_ARCH_RAW_SYSCALL_H
#define COPYSTACK_ARCH_RAW_SYSCALL_H

#include <cerrno>

namespace copystack_rt {

inline long raw_syscall(long nr, long a, long b, long c, long d, long e,
                        long f) {
  register long x8 asm("x8") = nr;
  register long x0 asm("x0") = a;
  register long x1 asm("x1") = b;
  register long x2 asm("x2") = c;
  register long x3 asm("x3") = d;
  register long x4 asm("x4") = e;
  register long x5 asm("x5") = f;
  asm volatile("svc #0"
               : "+r"(x0)
               : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
               : "memory");
  long r = x0;
  if (r < 0 && r > -4096) {
    errno = static_cast<int>(-r);
    return -1;
  }
  return r;
}

} // namespace copystack_rt

#endif
