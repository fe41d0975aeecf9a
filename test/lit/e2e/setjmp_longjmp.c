// setjmp and longjmp across stack copies: the jmp_buf (a local, and a
// global) keeps a mangled stack pointer, frame pointer and callee-saved
// registers that the runtime relocates; longjmp from deep inside a
// recursion that grew the stack lands in the moved frame, with its locals
// and the pointers to them intact; sigsetjmp too, and a longjmp from a
// qsort comparator (foreign code calling back).
// Not under TSan, which cannot follow a jmp_buf whose stack moved: "can't
// find longjmp buf" (docs/debugging.md).
// UNSUPPORTED: tsan
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t && %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"
#include <setjmp.h>
#include <stdlib.h>

static jmp_buf global_env;

__attribute__((noinline)) static void fail_deep(jmp_buf env, int depth,
                                                int code) {
  char frame[128];
  frame[0] = (char)depth;
  CS_KEEP(frame);
  if (depth == 0)
    longjmp(env, code);
  fail_deep(env, depth - 1, code);
  frame[1] = 0;
}

__attribute__((noinline)) static int with_local_env(int depth) {
  jmp_buf env;
  int local = 100;
  int *p = &local;
  volatile int tries = 0;
  int r = setjmp(env);
  if (r == 0) {
    tries++;
    fail_deep(env, depth, 5);
  }
  return r + *p + tries;
}

static int compare(const void *a, const void *b) {
  static int calls;
  if (++calls == 3)
    longjmp(global_env, 9); // out of qsort, back to a task frame
  return *(const int *)a - *(const int *)b;
}

int main(void) {
  printf("local: %d\n", with_local_env(2000));
  int anchor = 7;
  int *volatile pa = &anchor;
  int r = setjmp(global_env);
  if (r == 0)
    fail_deep(global_env, 1500, 3);
  printf("global: %d anchor %d\n", r, *pa);
  sigjmp_buf senv;
  if (sigsetjmp(senv, 1) == 0)
    fail_deep((void *)senv, 800, 4);
  printf("sigsetjmp back\n");
  int v[8] = {8, 7, 6, 5, 4, 3, 2, 1};
  r = setjmp(global_env);
  if (r == 0) {
    cs_burn(300);
    qsort(v, 8, sizeof v[0], compare);
  }
  printf("from qsort: %d, then %d\n", r, cs_burn(400) * 0 + *pa);
  return 0;
}
// CHECK: local: 106
// CHECK: global: 3 anchor 7
// CHECK: sigsetjmp back
// CHECK: from qsort: 9, then 7
