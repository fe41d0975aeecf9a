// A signal handler whose pinned locals take a chunk of their own and that
// leaves by siglongjmp: back in the interrupted code, the pinned area is
// the handler's empty one (core/pin.h). The jump lands once in a frame with
// pinned locals of its own and once in a frame without any; after either,
// new pinned locals, a task switch, and the return of the older frames
// whose locals live in the interrupted chunk must all find their bytes
// intact, and the area must not grow round after round.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include "Inputs/check.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

static void *volatile kept;
__attribute__((noinline)) static void keep(void *p) { kept = p; }

static sigjmp_buf jump;
static volatile int failures;

static void on_usr1(int sig) {
  (void)sig;
  unsigned char big[3000]; // more than the empty area: a mapped chunk
  keep(big);
  memset(big, 0xee, sizeof big);
  siglongjmp(jump, 1);
}

// Pins a block, fills it, yields, and checks it.
__attribute__((noinline)) static void fresh_block(unsigned char tag) {
  unsigned char b[700];
  keep(b);
  memset(b, tag, sizeof b);
  copystack_yield();
  cs_burn(10);
  for (size_t i = 0; i < sizeof b; i++)
    if (b[i] != tag) {
      failures++;
      break;
    }
}

// The jump lands in a frame with pinned locals.
__attribute__((noinline)) static long with_pins(long n) {
  long mine[16] = {n};
  keep(mine);
  if (sigsetjmp(jump, 1) == 0) {
    raise(SIGUSR1);
    return -1;
  }
  fresh_block((unsigned char)n);
  return mine[0];
}

// The jump lands in a frame without any.
__attribute__((noinline)) static long without_pins(long n) {
  if (sigsetjmp(jump, 1) == 0) {
    raise(SIGUSR1);
    return -1;
  }
  fresh_block((unsigned char)(n + 1));
  return n;
}

// An older frame whose pinned block lives in the interrupted chunk.
__attribute__((noinline)) static long older(long n) {
  long outer[24];
  keep(outer);
  for (int i = 0; i < 24; i++)
    outer[i] = n * i;
  long r = (n & 1) ? with_pins(n) : without_pins(n);
  for (int i = 0; i < 24; i++)
    if (outer[i] != n * i)
      failures++;
  return r;
}

static unsigned long long total;

static void run(void *arg) {
  (void)arg;
  for (long n = 1; n <= 2000; n++)
    total += (unsigned long long)older(n);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, 0);
  cs_fresh_task(run, 0);
  copystack_stats st;
  copystack_get_stats(&st);
  printf("total %llu, failures %d, pinned chunks: %s\n", total, failures,
         st.pinned_sys < (1u << 20) ? "bounded" : "leaked");
  return 0;
}
// CHECK: total 2001000, failures 0, pinned chunks: bounded
