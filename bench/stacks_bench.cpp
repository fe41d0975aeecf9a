// stacks_bench: the stack lifecycle (docs/stacks.md), beside the same
// programs in Go (bench/go/stacks). scripts/bench-stacks runs both and
// prints the ratios.
//
//   stacks_bench shrink KB N C
//       The second seed post's experiment: N tasks each call a function
//       with a KB KiB local once, signal a wait group and park on a
//       channel. Then C collections (copystack_collect; Go: runtime.GC),
//       one at a time. One line before the first collection (step=0) and
//       one after each: stack in use per task, the stacks' OS memory, all
//       the runtime's OS memory, RSS. Then the tasks are released; each
//       checks a pointer into its stack that it kept across the park.
//   stacks_bench shortlived POLICY N WAVE
//       N tasks in waves of WAVE live at a time. Each recurses 80 frames
//       deep (about 26 KiB of stack here, 22 KiB in Go: a 32 KiB stack in
//       both, four doublings from 2 KiB), parks at the bottom until its
//       whole wave is there, unwinds and exits. Every tenth wave a
//       collection runs while the wave is parked at depth (what an
//       adaptive start size learns from). Prints ns per task and stack
//       growths per task. POLICY:
//         off       no adaptive start, no per-site learning
//         adaptive  start size follows the average use at collections
//         learn     start size learned per spawn site
//         both      adaptive and learned (the defaults)
//         hint      off, and copystack::go(stack_size(32 KiB), ...)
//
// main runs as a task (copystack-c++ links it so), like Go's main
// goroutine. Automatic collections are turned off (collect interval 0) so
// that only the collections the program asks for run, like GOGC=off in the
// seed post. The runtime still collects under stack-memory pressure
// (in-use stack memory over 16 MiB and twice what the last collection
// left); shrink mode turns shrinking off until its first collection so that
// such a collection during the spawning does not shrink anything, and
// shortlived mode keeps its waves under 16 MiB of stacks.
//
// The locals are zeroed, as Go zeroes `var buf [8 << 10]byte`: both
// programs touch the same pages.
#include <copystack/copystack.hpp>

#include "bench_common.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <unistd.h>

#define KEEP(buf) __asm__ volatile("" : : "r"(buf) : "memory")

namespace {

using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point t0) {
  return double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                    Clock::now() - t0)
                    .count());
}

void set_policy(int shrink, int adaptive, int learn) {
  copystack_policy p;
  copystack_get_policy(&p);
  p.shrink = shrink;
  p.adaptive_start = adaptive;
  p.learn_start = learn;
  p.collect_interval_ms = 0;
  copystack_set_policy(&p);
}

// ---- shrink -----------------------------------------------------------------

// A function whose frame holds a local of N bytes, called once.
template <size_t N> __attribute__((noinline)) int touch() {
  char buf[N];
  memset(buf, 0, N);
  buf[0] = buf[N - 1] = 1;
  KEEP(buf);
  return buf[0] + buf[N - 1];
}

void print_step(int step, long n, double collect_ns) {
  copystack_stats s = copystack::stats();
  struct mallinfo2 mi = mallinfo2();
  // What the process holds from the OS for the runtime: stacks (net of
  // what went back), and the C heap (task structures, channels).
  double os = double(s.stack_sys) + double(mi.arena + mi.hblkhd);
  printf("step=%d tasks=%llu stack=%.0f stack_sys=%llu released=%llu "
         "os=%.0f rss=%.0f shrinks=%llu growths=%llu collections=%llu "
         "collect_ns=%.0f\n",
         step, (unsigned long long)s.tasks_live, double(s.stack_inuse) / n,
         (unsigned long long)s.stack_sys,
         (unsigned long long)s.stack_released, os, rss_bytes(),
         (unsigned long long)s.shrinks, (unsigned long long)s.growths,
         (unsigned long long)s.collections, collect_ns);
  fflush(stdout);
}

int shrink(int kb, long n, int collections) {
  if (kb != 0 && kb != 8 && kb != 64) {
    fprintf(stderr, "stacks_bench: shrink KB is 0, 8 or 64\n");
    return 2;
  }
  // No shrinking until the first collection the program asks for.
  set_policy(0, 1, 1);
  copystack::Chan<char> block(0);
  copystack::WaitGroup started, finished;
  started.add(n);
  finished.add(n);
  copystack::WaitGroup *st = &started, *fin = &finished;
  for (long i = 0; i < n; ++i)
    copystack::go([kb, st, fin, block]() mutable {
      long v = 0x5eed + kb;
      long *p = &v; // into this stack, kept across the park
      KEEP(p);
      if (kb == 8)
        touch<8 << 10>();
      else if (kb == 64)
        touch<64 << 10>();
      st->done();
      block.recv();
      KEEP(p);
      if (*p != 0x5eed + kb) {
        fprintf(stderr, "stacks_bench: a stack pointer went stale\n");
        abort();
      }
      fin->done();
    });
  started.wait();
  // Let the last tasks reach their channel receive.
  copystack::sleep_for(std::chrono::milliseconds(50));
  set_policy(1, 1, 1);
  print_step(0, n, 0);
  for (int i = 1; i <= collections; ++i) {
    auto t0 = Clock::now();
    copystack::collect();
    print_step(i, n, ns_since(t0));
  }
  // Release them: every task resumes on its shrunk stack and checks it.
  auto t0 = Clock::now();
  block.close();
  finished.wait();
  double release = ns_since(t0);
  // A task that has signalled exists until it returns: give the last ones
  // a moment.
  for (int i = 0; i < 1000 && copystack::num_tasks() > 1; ++i)
    copystack::sleep_for(std::chrono::milliseconds(1));
  printf("released tasks=%llu release_ns=%.0f\n",
         (unsigned long long)copystack::num_tasks(), release);
  return 0;
}

// ---- shortlived ---------------------------------------------------------------

constexpr int kPad = 192;   // bytes of local per frame
constexpr int kDepth = 80;  // frames: about 26 KiB of stack at the bottom
constexpr int kCollectEvery = 10;

long g_used_at_bottom; // by the first task of the first wave

__attribute__((noinline)) long descend(int depth, copystack_chan *gate,
                                       copystack::WaitGroup *arrived,
                                       bool report) {
  char pad[kPad];
  memset(pad, 0, kPad);
  pad[0] = static_cast<char>(depth);
  KEEP(pad);
  long r = 0;
  if (depth > 1) {
    r = descend(depth - 1, gate, arrived, report);
  } else {
    if (report) {
      copystack_stack_info si;
      if (copystack_current_stack(&si) == 0)
        g_used_at_bottom = long(si.hi - si.sp);
    }
    arrived->done();
    char c;
    copystack_chan_recv(gate, &c); // until the gate closes
  }
  return r + pad[0];
}

int shortlived(const char *policy, long n, long wave) {
  int adaptive = 0, learn = 0;
  bool hint = false;
  if (!strcmp(policy, "adaptive"))
    adaptive = 1;
  else if (!strcmp(policy, "learn"))
    learn = 1;
  else if (!strcmp(policy, "both"))
    adaptive = learn = 1;
  else if (!strcmp(policy, "hint"))
    hint = true;
  else if (strcmp(policy, "off")) {
    fprintf(stderr, "stacks_bench: unknown policy %s\n", policy);
    return 2;
  }
  set_policy(1, adaptive, learn);
  copystack_stats s0 = copystack::stats();
  double at_depth = 0;
  long waves = n / wave;
  auto t0 = Clock::now();
  for (long w = 0; w < waves; ++w) {
    copystack::Chan<char> gate(0);
    copystack::WaitGroup arrived, finished;
    arrived.add(wave);
    finished.add(wave);
    copystack_chan *g = gate.get();
    copystack::WaitGroup *a = &arrived, *f = &finished;
    for (long i = 0; i < wave; ++i) {
      bool report = w == 0 && i == 0;
      auto body = [g, a, f, report] {
        descend(kDepth, g, a, report);
        f->done();
      };
      if (hint)
        copystack::go(copystack::stack_size(32 << 10), body);
      else
        copystack::go(body);
    }
    arrived.wait(); // the whole wave is at the bottom
    if (w % kCollectEvery == 0) {
      if (w == 0)
        at_depth = double(copystack::stats().stack_inuse) / double(wave);
      copystack::collect();
    }
    gate.close();
    finished.wait();
  }
  double ns = ns_since(t0);
  copystack_stats s1 = copystack::stats();
  long done = waves * wave;
  printf("policy=%s n=%ld wave=%ld ns=%.1f growths=%.3f copied=%.0f "
         "copy_ns=%.1f stack_at_depth=%.0f used=%ld start=%llu "
         "collections=%llu\n",
         policy, done, wave, ns / done,
         double(s1.growths - s0.growths) / done,
         double(s1.bytes_copied - s0.bytes_copied) / done,
         double(s1.copy_ns - s0.copy_ns) / done, at_depth, g_used_at_bottom,
         (unsigned long long)s1.start_stack,
         (unsigned long long)(s1.collections - s0.collections));
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc >= 5 && !strcmp(argv[1], "shrink"))
    return shrink(atoi(argv[2]), atol(argv[3]), atoi(argv[4]));
  if (argc >= 5 && !strcmp(argv[1], "shortlived"))
    return shortlived(argv[2], atol(argv[3]), atol(argv[4]));
  fprintf(stderr,
          "usage: stacks_bench shrink 0|8|64 N COLLECTIONS\n"
          "       stacks_bench shortlived off|adaptive|learn|both|hint N "
          "WAVE\n");
  return 2;
}
