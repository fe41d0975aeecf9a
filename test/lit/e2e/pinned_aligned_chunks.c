// Pinned locals with alignments above 16 (64, 4096) and sizes across the
// pinned area's chunk sizes (512 B first, 16 KiB, up to 64 KiB), nested so
// that most of them start a new chunk: each lands aligned, inside memory
// no other live one uses (its pattern survives the deeper calls), and the
// area is given back (3000 rounds of up to 9 nested blocks leave less than
// 1 MiB of chunks: a leak would be hundreds).
// A timer signal keeps interrupting, and its handler pins blocks of its
// own through the same slow path: the interrupted code may be between
// handing the runtime its request and the runtime reading it (abi.h).
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>

static void *volatile kept;
__attribute__((noinline)) static void keep(void *p) { kept = p; }

static volatile int failures;
static volatile long handled;

#define BLOCK(name, align, size)                                               \
  __attribute__((noinline)) static void name(int depth, unsigned char tag,    \
                                             void (*next)(int, unsigned char)) \
  {                                                                            \
    _Alignas(align) unsigned char b[size];                                     \
    keep(b); /* escapes: pinned */                                             \
    if ((uintptr_t)b % (align))                                                \
      failures++;                                                              \
    memset(b, tag, sizeof b);                                                  \
    if (depth > 0 && next)                                                     \
      next(depth - 1, (unsigned char)(tag + 1));                               \
    else if (next)                                                             \
      cs_burn(20); /* the stack grows or moves while the blocks live */        \
    for (size_t i = 0; i < sizeof b; i++)                                      \
      if (b[i] != tag) {                                                       \
        failures++;                                                            \
        break;                                                                 \
      }                                                                        \
  }

static void chain(int depth, unsigned char tag);
BLOCK(small64, 64, 200)
BLOCK(page, 4096, 5000)
BLOCK(medium, 32, 12000)
BLOCK(large, 128, 70000)

static void chain(int depth, unsigned char tag) {
  switch (depth % 4) {
  case 0: small64(depth, tag, chain); break;
  case 1: page(depth, tag, chain); break;
  case 2: medium(depth, tag, chain); break;
  default: large(depth, tag, chain); break;
  }
}

static void on_alarm(int sig) {
  (void)sig;
  small64(1, 0x80, 0);
  page(0, 0x90, 0);
  handled++;
}

static void run(void *arg) {
  (void)arg;
  for (int round = 0; round < 3000; round++)
    chain(round % 9, (unsigned char)round);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, 0);
  struct itimerval t = {{0, 200}, {0, 200}};
  setitimer(ITIMER_REAL, &t, 0);
  cs_fresh_task(run, 0);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, 0);
  copystack_stats st;
  copystack_get_stats(&st);
  printf("failures %d, signals handled: %s, pinned chunks: %s\n", failures,
         handled > 0 ? "some" : "none",
         st.pinned_sys < (1u << 20) ? "bounded" : "leaked");
  return 0;
}
// CHECK: failures 0, signals handled: some, pinned chunks: bounded
