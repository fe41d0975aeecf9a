// A va_list holds addresses on the copyable stack: the caller's
// stack-passed variadic arguments and the register save area of the
// variadic function's shim (x86-64), or the tops of the variadic
// function's two register save areas (AArch64). A va_list that is not a stack object of its
// frame (a local whose address escapes and so moves off the stack, a copy
// on the heap, the caller's list kept through a va_list parameter, a list a
// callee fills through a pointer, a struct holding one) is named by a slot
// the frame map describes, and the runtime relocates the addresses
// through it. Each case reads its arguments one by one, with the stack
// growing in between, on a fresh 2 KiB task (so normal mode copies too).
// RUN: %plain_cc %s -o %t.plain && %t.plain > %t.expected
// RUN: %cc %s -o %t
// RUN: %run %t > %t.out && diff %t.expected %t.out
// RUN: FileCheck %s < %t.out
#include "Inputs/check.h"
#include <stdarg.h>

struct holder { va_list *ap; };
static void *volatile kept;
__attribute__((noinline)) static void keep(void *h) { kept = h; }

// The list's address kept by a local that escapes.
__attribute__((noinline)) static long held(int n, ...) {
  va_list ap;
  va_start(ap, n);
  struct holder h = {&ap};
  keep(&h);
  long s = 0;
  for (int i = 0; i < n; i++) {
    cs_burn(50 + 25 * i);
    s += va_arg(*h.ap, long);
  }
  va_end(ap);
  return s;
}

// va_copy into heap memory.
struct heapy { int tag; va_list ap; };
__attribute__((noinline)) static long on_heap(int n, ...) {
  va_list ap;
  va_start(ap, n);
  struct heapy *hp = malloc(sizeof *hp);
  keep(hp);
  va_copy(hp->ap, ap);
  long s = 0;
  for (int i = 0; i < n; i++) {
    cs_burn(50 + 25 * i);
    s += va_arg(hp->ap, long);
  }
  va_end(hp->ap);
  free(hp);
  va_end(ap);
  return s;
}

// A va_list parameter (a pointer to the caller's list) kept by the callee.
__attribute__((noinline)) static long vsum_kept(int n, va_list ap) {
  struct { va_list *p; } h;
#ifdef __x86_64__
  h.p = (va_list *)ap; // an array type: the parameter points at the list
#else
  h.p = &ap; // AArch64's record: the parameter is the caller's copy
#endif
  keep(&h);
  long s = 0;
  for (int i = 0; i < n; i++) {
    cs_burn(50 + 25 * i);
    s += va_arg(*h.p, long);
  }
  return s;
}
__attribute__((noinline)) static long param(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long s = vsum_kept(n, ap);
  va_end(ap);
  return s;
}

// A callee fills the caller's (escaping) list through a pointer.
__attribute__((noinline)) static void save(va_list *dst, va_list src) {
  va_copy(*dst, src);
}
__attribute__((noinline)) static long filled(int n, ...) {
  va_list ap, mine;
  va_start(ap, n);
  save(&mine, ap);
  struct holder h = {&mine};
  keep(&h);
  long s = 0;
  for (int i = 0; i < n; i++) {
    cs_burn(50 + 25 * i);
    s += va_arg(*h.ap, long);
  }
  va_end(mine);
  va_end(ap);
  return s;
}

// A struct holding a va_list, escaping.
struct wrap { int x; va_list ap; };
__attribute__((noinline)) static long wrapped(int n, ...) {
  struct wrap w;
  w.x = 1;
  va_start(w.ap, n);
  keep(&w);
  long s = 0;
  for (int i = 0; i < n; i++) {
    cs_burn(50 + 25 * i);
    s += va_arg(((struct wrap *)kept)->ap, long);
  }
  va_end(w.ap);
  return s;
}

// Pointers among the arguments: they point into the caller's frame.
__attribute__((noinline)) static long pointers(int n, ...) {
  va_list ap;
  va_start(ap, n);
  struct holder h = {&ap};
  keep(&h);
  long s = 0;
  for (int i = 0; i < n; i++) {
    cs_burn(50 + 25 * i);
    s += *va_arg(*h.ap, long *);
  }
  va_end(ap);
  return s;
}

static long result;
static void run_held(void *a) { result = held(9, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L); }
static void run_on_heap(void *a) { result = on_heap(9, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L); }
static void run_param(void *a) { result = param(9, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L); }
static void run_filled(void *a) { result = filled(9, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L); }
static void run_wrapped(void *a) { result = wrapped(9, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L); }
static void run_pointers(void *a) {
  long v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  result = pointers(9, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                    &v[7], &v[8]);
}

#define CASE(name)                                                             \
  do {                                                                         \
    cs_fresh_task(run_##name, 0);                                              \
    printf(#name ": %ld\n", result);                                           \
  } while (0)

int main(void) {
  CASE(held);
  CASE(on_heap);
  CASE(param);
  CASE(filled);
  CASE(wrapped);
  CASE(pointers);
  return 0;
}
// CHECK: held: 45
// CHECK: on_heap: 45
// CHECK: param: 45
// CHECK: filled: 45
// CHECK: wrapped: 45
// CHECK: pointers: 45
