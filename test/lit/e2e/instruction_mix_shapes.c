// The shapes scripts/instruction_mix.py (bench-overhead's breakdown of the
// extra instructions) recognizes in an instrumented binary: a prologue
// check (two instructions; three for a frame of 256 bytes or more), a loop
// poll (two), the prefix test at a call through a pointer (three), the
// in-place tests before malloc (the group's flag and the room, three
// each). If the pass or LLVM changes one of them, this fails instead of the
// benchmark quietly counting it as the program's own code.
// REQUIRES: normal, O2
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s --check-prefix=OUT
// RUN: python3 %S/../../../scripts/instruction_mix.py %t --runtime %cs_lib/libcopystack.a | FileCheck %s --check-prefixes=CHECK,%if own-prologue %{OWN%} %else %{LLVM%}
// OUT: 55 3 -8024092402743952908 6
// Under the own prologue a big frame's check is LLVM's stack probe (the
// mov of the size to %eax and the call) and the pass's check after it,
// and a function that calls nothing has none. The loop has no poll (the
// default, --copystack-preempt=signal); built with polls, it has one.
// RUN: %cc --copystack-preempt=polls %s -o %t.polls
// RUN: python3 %S/../../../scripts/instruction_mix.py %t.polls --runtime %cs_lib/libcopystack.a | FileCheck %s --check-prefix=POLLS
// LLVM: big_frame: prologue checks 3{{$}}
// OWN: big_frame: prologue checks 4{{$}}
// CHECK: in_place: prologue checks 2, in-place tests 6{{$}}
// CHECK: recurse: prologue checks 2{{$}}
// LLVM: spin: prologue checks 2{{$}}
// OWN-NOT: spin:
// POLLS: spin: {{.*}}loop polls 2{{$}}
// CHECK: through_pointer: prologue checks 2, prefix tests 3{{$}}
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) long recurse(long n) {
  return n <= 1 ? n : recurse(n - 1) + recurse(n - 2);
}

__attribute__((noinline)) long big_frame(long n) {
  volatile char buf[1024];
  for (int i = 0; i < 1024; i++)
    buf[i] = (char)(i + n);
  return buf[n & 1023] + recurse(n & 7);
}

__attribute__((noinline)) long spin(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s = s * 31 + i;
  return s;
}

__attribute__((noinline)) long through_pointer(long (*f)(long), long n) {
  return f(n) + 1;
}

__attribute__((noinline)) char *in_place(size_t n) {
  char *p = malloc(n);
  if (p)
    p[0] = 1;
  return p;
}

int main(int argc, char **argv) {
  (void)argv;
  long (*volatile f)(long) = recurse;
  char *p = in_place(64);
  printf("%ld %ld %ld %ld\n", recurse(10), big_frame(argc), spin(1000),
         through_pointer(f, 5));
  free(p);
  return 0;
}
