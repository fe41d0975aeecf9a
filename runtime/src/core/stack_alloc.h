// stack_alloc.h: where copyable stacks come from.
//
// Sizes are powers of two from 2 KiB (COPYSTACK_MIN_STACK). Small stacks are
// carved from larger mappings and kept on per-size free lists; large ones are
// mapped on their own and unmapped when released.
//
// Every move of a stack is by a multiple of kMoveAlign: the stack that
// replaces another has its top at the same address modulo 64 KiB
// (allocate_stack's like_top). The relocation adds the move's delta to every
// word it takes for a pointer into the old stack, and a delta whose low 16
// bits are zero leaves the low 16 bits of every word as they were. So a word
// that is only partly written (an x87 long double's sign and exponent in the
// low 16 bits of its upper word, a bool or short spilled beside stale bytes,
// a setcc into a callee-saved register), whose stale bytes make it look like
// an address inside the old stack, keeps its value (docs/maps.md). In verify mode every stack
// is its own mapping with an inaccessible page below it, and released stacks
// are fenced (made inaccessible, their addresses not reused for a while) so
// that a pointer the relocation missed faults with a report naming it
// instead of reading memory that has moved on.
#ifndef COPYSTACK_STACK_ALLOC_H
#define COPYSTACK_STACK_ALLOC_H

#include <cstddef>
#include <cstdint>

namespace copystack_rt {

struct Stack {
  uintptr_t lo = 0;
  uintptr_t hi = 0;
  size_t size() const { return hi - lo; }
};

// The smallest power of two >= bytes, and at least COPYSTACK_MIN_STACK.
size_t round_stack_size(size_t bytes);

// The stack moves are by multiples of this (above).
constexpr size_t kMoveAlign = size_t(64) << 10;

// A stack of size bytes. like_top: 0 for any placement, else the top of the
// stack this one replaces: the result's hi is congruent to it modulo
// kMoveAlign.
Stack allocate_stack(size_t size, uintptr_t like_top = 0);
// to_pool: straight to the shared pool rather than this thread's cache (the
// collector, which is not where stacks are allocated).
void release_stack(Stack s, bool to_pool = false);

// Gives the memory of free stacks back to the OS (MADV_DONTNEED for pooled
// sizes, a whole page at a time for stacks smaller than one; munmap for
// cached large stacks). Stacks in threads' caches stay. Returns the bytes.
uint64_t scavenge_stacks();
// Bytes given back and not reused since.
uint64_t stack_bytes_released();

// Bytes of stacks handed out and not released; bytes mapped from the OS.
uint64_t stack_bytes_inuse();
uint64_t stack_bytes_sys();

// fork(): the allocator's locks, taken before it and released after it in
// both processes (sched/fork.cc).
void stack_alloc_fork_lock();
void stack_alloc_fork_unlock();

// Verify mode: if addr lies in a fenced (released) stack, describes it in
// buf and returns true. Async-signal-safe.
bool describe_fenced_address(uintptr_t addr, char *buf, size_t len);

} // namespace copystack_rt

#endif
