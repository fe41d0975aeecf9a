// Words that are only partly a value: an x87 long double fills 10 bytes of
// its 16-byte slot, a short 2 bytes of its word. The rest holds whatever
// the memory held before, and on a task stack that is often an address
// inside the stack. The relocation range-checks words that no map calls
// integers (spill slots, the outgoing arguments of a call, objects written
// through a pointer), and such a word looks like an address: the move adds
// its delta to it. Every move is by a multiple of 64 KiB, so the low 16
// bits, where the long double's sign and exponent and the short live, are
// never changed (core/stack_alloc.h, docs/maps.md).
//
// Each shape writes a stack address into the memory first (fill(), and the
// stack arguments of dirty()), then stores a value whose low 16 bits make
// the word exactly that address, then grows the stack several times.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"
#include <stdint.h>
#include <string.h>
#include <unistd.h>

static uintptr_t stack_addr(void) {
  copystack_stack_info info;
  REQUIRE(copystack_current_stack(&info) == 0);
  return (uintptr_t)info.hi - 256; // in the task's first frames: live
}

// A long double whose sign and exponent are the low 16 bits of t.
static long double ld_like(uintptr_t t) {
  union {
    long double v;
    struct {
      uint64_t mantissa;
      uint16_t sign_exp;
    } p;
  } u;
  memset(&u, 0, sizeof u);
  u.p.mantissa = 0xc000000000000000ull;
  u.p.sign_exp = (uint16_t)t;
  return u.v;
}

static int same_ld(long double a, long double b) {
  return memcmp(&a, &b, 10) == 0;
}

__attribute__((noinline, weak)) void fill(uintptr_t t) {
  volatile uintptr_t frame[96];
  for (int i = 0; i < 96; i++)
    frame[i] = t;
}

// Eight integer arguments: the last two in the caller's outgoing-argument
// area, where the next call's stack arguments go.
__attribute__((noinline, weak)) uintptr_t
dirty(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, uintptr_t e,
      uintptr_t f, uintptr_t g, uintptr_t h) {
  CS_KEEP(&a);
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h;
}

__attribute__((noinline, weak)) void grow(void) { cs_burn(600); }

__attribute__((noinline, weak)) long double one(void) {
  long double x = 1.0L;
  __asm__ volatile("" : "+m"(x));
  return x;
}

// The argument stays in the caller's outgoing area, the callee reads it
// there after the call (at -O2; -O0 copies it into a local first).
__attribute__((noinline, weak)) long double pass_on_stack(long double x) {
  grow();
  return x;
}

// Kept in a spill slot across the call (at -O2).
__attribute__((noinline, weak)) long double keep_in_spill(long double x) {
  long double y = x * one();
  grow();
  return y * one();
}

// Written through a pointer by a callee: the object's words are scanned.
__attribute__((noinline, weak)) void set_ld(long double *p, long double v) {
  *p = v;
}
__attribute__((noinline, weak)) long double written_by_callee(long double v) {
  long double x;
  set_ld(&x, v);
  grow();
  return x;
}

// Bytes copied in by memcpy (at -O0; -O2 keeps x in a register).
__attribute__((noinline, weak)) long double copied_in(long double v) {
  long double x;
  memcpy(&x, &v, 10);
  grow();
  return x;
}

// Bytes read from a pipe (a libc call that writes through the pointer and
// keeps nothing: the object stays on the stack, scanned whole).
static int pipe_fds[2];
__attribute__((noinline, weak)) long double read_in(long double v) {
  long double x;
  REQUIRE(write(pipe_fds[1], &v, 10) == 10);
  REQUIRE(read(pipe_fds[0], &x, 10) == 10);
  grow();
  return x;
}

struct narrow {
  short s;
} __attribute__((aligned(8)));
__attribute__((noinline, weak)) void set_short(struct narrow *p, short v) {
  p->s = v;
}
__attribute__((noinline, weak)) short short_by_callee(short v) {
  struct narrow n;
  set_short(&n, v);
  grow();
  return n.s;
}
__attribute__((noinline, weak)) short short_copied_in(short v) {
  struct narrow n;
  memcpy(&n.s, &v, 2);
  grow();
  return n.s;
}
__attribute__((noinline, weak)) short short_read_in(short v) {
  struct narrow n;
  REQUIRE(write(pipe_fds[1], &v, 2) == 2);
  REQUIRE(read(pipe_fds[0], &n.s, 2) == 2);
  grow();
  return n.s;
}

// A byte at bit 16 of its word, which a 64 KiB move does change: the
// object must not hold stale bytes around it (every stack object starts as
// zeros, passes/StackObjects.h). Written by a callee, read from a pipe, and
// stored by the function itself into an array whose address escapes to
// asm (examples/makefile-consumer's shape: 1 run in 20 lost bytes).
struct bytes8 {
  unsigned char b[8];
} __attribute__((aligned(8)));
__attribute__((noinline, weak)) void set_byte(struct bytes8 *p, int i,
                                              unsigned char v) {
  p->b[i] = v;
}
__attribute__((noinline, weak)) unsigned char byte_by_callee(unsigned char v) {
  struct bytes8 n;
  set_byte(&n, 2, v);
  grow();
  return n.b[2];
}
__attribute__((noinline, weak)) unsigned char byte_read_in(unsigned char v) {
  struct bytes8 n;
  REQUIRE(write(pipe_fds[1], &v, 1) == 1);
  REQUIRE(read(pipe_fds[0], &n.b[2], 1) == 1);
  grow();
  return n.b[2];
}
__attribute__((noinline, weak)) unsigned char byte_stored(unsigned char v) {
  _Alignas(8) unsigned char buf[64];
  buf[2] = v;
  __asm__ volatile("" : : "r"(buf) : "memory");
  grow();
  return buf[2];
}

static int failures;
#define EXPECT_SAME(shape, same)                                               \
  do {                                                                         \
    if (!(same)) {                                                             \
      printf("%s changed the value\n", shape);                                 \
      failures++;                                                              \
    }                                                                          \
  } while (0)

// One shape per task: each starts on 2 KiB and grows inside grow().
typedef int (*shape_fn)(uintptr_t t);
static int shape_pass_on_stack(uintptr_t t) {
  long double v = ld_like(t);
  REQUIRE(dirty(t, t, t, t, t, t, t, t) != 1);
  return same_ld(pass_on_stack(v), v);
}
#define LD_SHAPE(name)                                                         \
  static int shape_##name(uintptr_t t) {                                      \
    long double v = ld_like(t);                                                \
    fill(t);                                                                   \
    return same_ld(name(v), v);                                                \
  }
LD_SHAPE(keep_in_spill)
LD_SHAPE(written_by_callee)
LD_SHAPE(copied_in)
LD_SHAPE(read_in)
#define SHORT_SHAPE(name)                                                      \
  static int shape_##name(uintptr_t t) {                                      \
    fill(t);                                                                   \
    return name((short)t) == (short)t;                                         \
  }
SHORT_SHAPE(short_by_callee)
SHORT_SHAPE(short_copied_in)
SHORT_SHAPE(short_read_in)
// The byte is taken once, before the call: t is a stack address held as
// an integer, which the compiler may keep in a callee-saved register
// across the call and take the byte from again after it (AArch64 at -O2
// did), and a register's word that is an address in the moving stack
// moves with it (docs/maps.md, "Values live across calls").
#define BYTE_SHAPE(name)                                                       \
  static int shape_##name(uintptr_t t) {                                      \
    fill(t);                                                                   \
    volatile unsigned char want = (unsigned char)(t >> 16);                    \
    return name(want) == want;                                                 \
  }
BYTE_SHAPE(byte_by_callee)
BYTE_SHAPE(byte_read_in)
BYTE_SHAPE(byte_stored)

struct shape {
  const char *name;
  shape_fn fn;
};
#define SHAPE(name) {#name, shape_##name}
static const struct shape shapes[] = {
    SHAPE(pass_on_stack),   SHAPE(keep_in_spill),   SHAPE(written_by_callee),
    SHAPE(copied_in),       SHAPE(read_in),         SHAPE(short_by_callee),
    SHAPE(short_copied_in), SHAPE(short_read_in),   SHAPE(byte_by_callee),
    SHAPE(byte_read_in),    SHAPE(byte_stored),
};

static void run(void *arg) {
  const struct shape *s = arg;
  EXPECT_SAME(s->name, s->fn(stack_addr()));
}

int main(void) {
  // A fresh 2 KiB task per round: each grows from the start again.
  REQUIRE(pipe(pipe_fds) == 0);
  for (int round = 0; round < 8; round++)
    for (unsigned i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
      cs_fresh_task(run, (void *)&shapes[i]);
  if (failures)
    return 1;
  printf("partial words kept their values\n");
  return 0;
}
// CHECK: partial words kept their values
