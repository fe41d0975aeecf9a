/*
 * growth.c: the first seed post's experiment, in C, on copystack.
 *
 * main runs as a task on a 2 KiB copyable stack (copystack-cc links it with
 * -Wl,--wrap=main). A recursion with a 128-byte local descends to depth
 * 4096; the runtime reports every stack copy through a growth hook. The
 * program prints:
 *
 *   1. the growth schedule: at which depth each copy happened, the bytes of
 *      frames live, and the ratio to the previous copy;
 *   2. the headroom each check left: how close to the stack's bottom the
 *      stack pointer was when the prologue check failed, against the
 *      928-byte guard; then the guard to the byte: a function with a large
 *      frame called 16 bytes lower at a time, until its check fires;
 *   3. the pointer the runtime rewrites and the integer it cannot: a pointer
 *      to a local survives every copy and still reads 42; a uintptr_t that
 *      holds a copy of the same address keeps the old one.
 *
 * Build and run: copystack-cc -O2 demo/growth.c -o growth && ./growth
 */
#include <copystack/copystack.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FRAME_BYTES = 128, DEPTH = 4096, MAX_COPIES = 64 };

/* Keeps the local array whole: its address escapes into an empty asm. */
#define KEEP(buf) __asm__ volatile("" : : "r"(buf) : "memory")

/* Copies the bytes of a value into an integer in memory, one by one: an
 * integer copy of an address that the runtime must not touch. */
#define COPY_BITS(to, from)                                                    \
  for (unsigned i_ = 0; i_ < sizeof(to); i_++)                                 \
  ((volatile unsigned char *)&(to))[i_] =                                      \
      ((volatile unsigned char *)&(from))[i_]

struct copy_record {
  int depth;
  size_t live, old_size, new_size, headroom, frame;
};

static struct copy_record copies[MAX_COPIES];
static int ncopies;
static volatile int current_depth;
static uintptr_t frame_at[DEPTH];
static volatile char sink;
/* The guard probe: margin below its frame when its check fired. */
static int probe_fired;
static size_t probe_margin, probe_frame;

static void on_copy(const copystack_growth_event *ev, void *data) {
  (void)data;
  if (strcmp(ev->function, "probe") == 0) {
    probe_fired = 1;
    probe_margin = ev->headroom - ev->frame;
    probe_frame = ev->frame;
    return;
  }
  if (ncopies == MAX_COPIES)
    return;
  struct copy_record *r = &copies[ncopies++];
  r->depth = current_depth;
  r->live = ev->used;
  r->old_size = ev->old_size;
  r->new_size = ev->new_size;
  r->headroom = ev->headroom;
  r->frame = ev->frame;
}

__attribute__((noinline)) static void descend(int depth, int max) {
  char frame[FRAME_BYTES];
  frame[0] = (char)depth;
  KEEP(frame);
  current_depth = depth;
  frame_at[depth] = copystack_stack_pointer(); /* falls by each frame */
  if (depth + 1 < max)
    descend(depth + 1, max);
  sink = frame[0];
}

/* A frame of at least 256 bytes: LLVM's check is then %rsp - FRAME against
 * the limit, and %rsp - FRAME is 16-byte aligned, like the limit. */
__attribute__((noinline)) static void probe(void) {
  char big[512];
  KEEP(big);
}

/* Each level is 16 bytes (return address and saved %rbp): calling the probe
 * under n levels puts it 16 * n bytes lower. */
__attribute__((noinline)) static void step(int n) {
  if (n > 0)
    step(n - 1);
  else
    probe();
  __asm__ volatile("" ::: "memory");
}

static void probe_trial(void *arg) { step(*(int *)arg); }

/* Lowers the probe 16 bytes at a time on fresh 2 KiB stacks until its
 * check fires; returns the levels it took, or -1. */
static int find_the_line(void) {
  for (int n = 0; n < 128; n++) {
    probe_fired = 0;
    copystack_run(probe_trial, &n);
    if (probe_fired)
      return n;
  }
  return -1;
}

/* The distance between consecutive frames (copystack_stack_pointer() does
 * not change when the stack moves). */
static long frame_stride(void) {
  return DEPTH > 1 ? (long)(frame_at[0] - frame_at[1]) : 0;
}

static void kib(char *buf, size_t len, double bytes) {
  if (bytes >= 1024 * 1024)
    snprintf(buf, len, "%.1f MiB", bytes / (1024 * 1024));
  else
    snprintf(buf, len, "%.1f KiB", bytes / 1024);
}

int main(void) {
  if (!copystack_in_task()) {
    fprintf(stderr, "growth: main is not a task; build it with copystack-cc\n");
    return 1;
  }
  int anchor = 42;
  int *volatile p = &anchor;
  volatile uint64_t stale = 0;
  COPY_BITS(stale, p);
  volatile uint64_t before = stale;

  copystack_set_growth_hook(on_copy, NULL);
  descend(0, DEPTH);
  copystack_set_growth_hook(NULL, NULL);

  printf("local array %d bytes, frame stride %ld bytes, depth %d\n",
         FRAME_BYTES, frame_stride(), DEPTH);
  printf("copy   at depth  frames live  vs previous\n");
  for (int c = 0; c < ncopies; c++) {
    char live[32];
    kib(live, sizeof live, (double)copies[c].live);
    if (c == 0)
      printf("%-6d %-9d %-12s\n", c + 1, copies[c].depth, live);
    else
      printf("%-6d %-9d %-12s %.2fx\n", c + 1, copies[c].depth, live,
             (double)copies[c].live / (double)copies[c - 1].live);
  }
  printf("%d copies from %zu bytes to %zu KiB\n\n", ncopies,
         ncopies ? copies[0].old_size : 0,
         ncopies ? copies[ncopies - 1].new_size / 1024 : 0);

  printf("copy   stack      frames live  headroom left\n");
  size_t loosest = 0;
  for (int c = 0; c < ncopies; c++) {
    char size[32];
    kib(size, sizeof size, (double)copies[c].old_size);
    printf("%-6d %-10s %-12zu %zu B\n", c + 1, size, copies[c].live,
           copies[c].headroom);
    if (copies[c].headroom > loosest)
      loosest = copies[c].headroom;
  }
  printf("the check fires once the stack pointer is within %d bytes of the\n"
         "stack's bottom: every row is at most %d, the loosest is %zu\n",
         928, 928, loosest);
  printf("(the descent lowers the stack pointer %ld bytes at a time, a frame's\n"
         "stride: the first check inside the band finds it up to that much\n"
         "below the band's edge)\n",
         frame_stride());
  copystack_set_growth_hook(on_copy, NULL);
  int levels = find_the_line();
  copystack_set_growth_hook(NULL, NULL);
  if (levels > 0)
    printf("a %zu-byte frame checked with %zu bytes left below it: no copy;\n"
           "16 bytes lower, with %zu left: copy. The guard is %zu bytes, to "
           "the byte.\n\n",
           probe_frame, probe_margin + 16, probe_margin, probe_margin);
  else
    printf("the guard probe never fired\n\n");

  volatile uint64_t after = 0;
  COPY_BITS(after, p);
  char moved[32];
  kib(moved, sizeof moved,
      (double)(after > before ? after - before : before - after));
  printf("stack copies during the descent: %d\n", ncopies);
  printf("address before the descent:      %#llx\n",
         (unsigned long long)before);
  printf("pointer after the descent:       %#llx  (moved %s)\n",
         (unsigned long long)after, moved);
  printf("uintptr taken before it:         %#llx  (unchanged: %s)\n",
         (unsigned long long)stale, stale == before ? "true" : "false");
  printf("value read through the pointer:  %d\n", *p);
  return stale == before && *p == 42 && after != before &&
                 probe_margin == 928
             ? 0
             : 1;
}
