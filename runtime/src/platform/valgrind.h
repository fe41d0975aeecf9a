// valgrind.h: telling valgrind which memory holds task stacks.
//
// Memcheck follows the stack pointer: when it falls, the bytes it passes
// become addressable; when it rises, the bytes left below it become
// inaccessible, unless the move is larger than a frame can be, which it
// takes for a switch to another stack. Task stacks sit next to each other,
// closer than that: a switch from one task to another looked like a
// return through megabytes of frames, and memcheck took the stacks in
// between for freed memory (13,110 false errors on a program of 200
// tasks). Registered, each is a stack of its own: a move between two is a
// switch, whatever the distance.
//
// The thread stacks that switch to tasks are registered too (a switch
// from a registered stack to one valgrind has not registered is judged by
// its distance again, and under valgrind task stacks are mapped among
// the other mappings, near thread stacks).
//
// Outside valgrind each entry point is one test of a word set once, and a
// runtime built where valgrind's headers were not installed has none of
// this (docs/debugging.md, "valgrind").
#ifndef COPYSTACK_VALGRIND_H
#define COPYSTACK_VALGRIND_H

#include <cstddef>
#include <cstdint>

namespace copystack_rt {
namespace vg {

// 0 until first asked, 1 not under valgrind, 2 under valgrind.
extern int g_running;
int running_slow();

// Whether the program runs under valgrind (asked once).
inline bool running() {
  int r = __atomic_load_n(&g_running, __ATOMIC_RELAXED);
  if (__builtin_expect(r == 0, 0))
    r = running_slow();
  return r == 2;
}

// [lo, hi) now holds a task's stack, or no longer does.
void stack_in_use_slow(uintptr_t lo, uintptr_t hi);
void stack_released_slow(uintptr_t lo, uintptr_t hi);

inline void stack_in_use(uintptr_t lo, uintptr_t hi) {
  if (running())
    stack_in_use_slow(lo, hi);
}
inline void stack_released(uintptr_t lo, uintptr_t hi) {
  if (running())
    stack_released_slow(lo, hi);
}

// The calling thread is about to switch to a task (scheduler.cc execute):
// its own stack is registered, once, and deregistered as a worker's
// thread ends (thread_done).
void thread_runs_tasks_slow();
inline void thread_runs_tasks() {
  if (running())
    thread_runs_tasks_slow();
}
void thread_done_slow();
inline void thread_done() {
  if (running())
    thread_done_slow();
}

// fork(): the registry's lock, held across it (sched/fork.cc).
void fork_lock();
void fork_unlock();

// A stack copy reads every word of the frames it moves and tests whether
// it points into the old stack. Words memcheck holds undefined (argument
// registers a va_list's save area stored unused, padding, locals not yet
// set) would each be a "conditional jump depends on uninitialised value"
// in the runtime. The frames are made defined for the copy, and their
// definedness, saved first, is put back on their new place, so that the
// program's own reads of undefined values are still reported there.
class KeepDefinedness {
public:
  // [src, src + n): the frames about to be copied.
  KeepDefinedness(uintptr_t src, size_t n) {
    if (running())
      save_slow(src, n);
  }
  // Puts the definedness back on the frames' new place.
  void restore(uintptr_t dst) {
    if (bits_)
      restore_slow(dst);
  }
  ~KeepDefinedness() {
    if (bits_)
      free_bits();
  }
  KeepDefinedness(const KeepDefinedness &) = delete;
  KeepDefinedness &operator=(const KeepDefinedness &) = delete;

private:
  void save_slow(uintptr_t src, size_t n);
  void restore_slow(uintptr_t dst);
  void free_bits();
  unsigned char *bits_ = nullptr;
  size_t n_ = 0;
};

} // namespace vg
} // namespace copystack_rt

#endif
