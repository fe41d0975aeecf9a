// Pointers outside any object keep their distance to the object when a
// stack moves. lz4 and zstd keep `base = src - index` (a 32-bit index, so
// up to 4 GiB below the buffer) and `dictBase = dict - offset`; such a
// pointer falls wherever the index puts it, and if that is inside a task
// stack, the relocation takes it for an address in the stack and moves it
// with the stack: lz4 at -O0 computed wrong matches in stress mode. Stacks
// live in reservations with 64 GiB of nothing on both sides
// (core/stack_alloc.cc), so no 32-bit offset from any other object
// reaches one.
//
// Each check takes a buffer (malloc'd and mmap'd, small and large, made
// before and after tasks grew and parked, so that stack chunks and
// buffers are mapped in every order), chooses the 32-bit index that puts
// base as near to the running stack as one can (inside it, 64 bytes above
// the stack pointer, where it can), keeps base in memory and in a register
// across a call that moves the stack, and checks both distances after it.
// RUN: %cc %s -o %t && %run %t | FileCheck %s
#include <copystack/copystack.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

__attribute__((noinline)) static long grow(int d) {
  char b[256];
  memset(b, d, sizeof b);
  __asm__ volatile("" : : "r"(b) : "memory");
  return d ? grow(d - 1) + b[1] : 0;
}

static _Atomic int bad, reachable;

// The 32-bit distance from p that lands nearest to the stack pointer
// (below p, or above it when up), and whether that is inside the stack.
static uint32_t nearest(const char *p, uintptr_t sp, int up) {
  uintptr_t want = sp + 64;
  uintptr_t d = up ? want - (uintptr_t)p : (uintptr_t)p - want;
  if (d <= UINT32_MAX) {
    ++reachable;
    return (uint32_t)d;
  }
  return UINT32_MAX;
}

__attribute__((noinline)) static void check(const char *buf, int up) {
  uintptr_t sp;
#if defined(__aarch64__)
  __asm__ volatile("mov %0, sp" : "=r"(sp));
#else
  __asm__ volatile("mov %%rsp, %0" : "=r"(sp));
#endif
  uint32_t index = nearest(buf, sp, up);
  const char *volatile in_memory = up ? buf + index : buf - index;
  const char *in_register = up ? buf + index : buf - index;
  grow(300); // the stack moves (each frame 256 bytes and more)
  __asm__ volatile("" : "+r"(in_register));
  uintptr_t m = up ? in_memory - buf : buf - in_memory;
  uintptr_t r = up ? in_register - buf : buf - in_register;
  if (m != index || r != index) {
    ++bad;
    printf("moved: buf %p, index %#x, kept %#lx in memory, %#lx in a "
           "register\n", (void *)buf, index, (unsigned long)m,
           (unsigned long)r);
  }
}

struct job {
  const char *buf;
  int up;
  copystack_waitgroup *wg;
};

static void check_task(void *arg) {
  struct job *j = arg;
  check(j->buf, j->up);
  copystack_waitgroup_done(j->wg);
}

// Each check on a fresh 2 KiB stack of a task of its own, which grow()
// then moves in every mode; and once on the caller's stack.
static void check_all(char **bufs, int n) {
  struct job jobs[16];
  copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
  copystack_waitgroup_add(&wg, 2 * n);
  for (int i = 0; i < n; ++i)
    for (int up = 0; up < 2; ++up) {
      jobs[2 * i + up] = (struct job){bufs[i], up, &wg};
      copystack_go(check_task, &jobs[2 * i + up]);
      check(bufs[i], up);
    }
  copystack_waitgroup_wait(&wg);
}

static copystack_chan *done;

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void grower(void *arg) {
  grow((int)(long)arg); // a large stack: large slots mapped
  char **bufs = 0;
  copystack_chan_recv(done, &bufs);
  check_all(bufs, 8);
  copystack_waitgroup_done(&wg);
}

static char *mapped(size_t n) {
  void *p = mmap(0, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  return p == MAP_FAILED ? 0 : (char *)p;
}

int main(void) {
  static char *bufs[8];
  bufs[0] = malloc(1 << 20); // mapped before any task grew
  bufs[1] = mapped(64 << 10);
  done = copystack_chan_make(sizeof(char **), 0);
  enum { kTasks = 64 };
  copystack_waitgroup_add(&wg, kTasks);
  for (int i = 0; i < kTasks; ++i)
    copystack_go(grower, (void *)(long)(i % 2 ? 40 : 1000));
  copystack_sleep_ns(20 * 1000 * 1000); // they grow and park
  bufs[2] = malloc(1 << 20); // mapped after the stacks
  bufs[3] = mapped(1 << 20);
  bufs[4] = malloc(16 << 20);
  bufs[5] = malloc(100);
  bufs[6] = mapped(4096);
  bufs[7] = malloc(256 << 10);
  check_all(bufs, 8);
  char **all = bufs;
  for (int i = 0; i < kTasks; ++i)
    copystack_chan_send(done, &all);
  copystack_waitgroup_wait(&wg);
  printf("%d checks, %d bases a 32-bit index put inside a stack's reach, "
         "%d moved\n", (kTasks + 1) * 32, reachable, bad);
  return bad != 0;
}
// CHECK: 2080 checks, 0 bases a 32-bit index put inside a stack's reach, 0 moved
