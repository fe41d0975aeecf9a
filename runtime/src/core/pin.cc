// pin.cc: chunks of the pinned area (pin.h, abi.h).
#include "platform/split_stack_notes.h"
#include "core/pin.h"
#include "platform/constants.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <sys/mman.h>

namespace copystack_rt {

namespace {

// Chunks come from the C heap: a task that pins one small local (a wait
// group its children signal) costs a 512-byte chunk, not a page, so a
// million such tasks stay cheap; one that needs more pins a lot (a
// recursion whose frames pin locals, an interpreter), and its next chunks
// are big enough that its depth rarely goes back and forth across a chunk
// boundary: 16 KiB, then doubling up to 64 KiB.
constexpr size_t kFirstChunk = 512;
constexpr size_t kSecondChunk = 16 * 1024;
constexpr size_t kMaxChunk = 64 * 1024;
// Chunks given back stay with the thread, up to this many bytes, for the
// next task's (or the same task's) next chunk: a recursion whose frames
// pin locals crosses a chunk boundary at every call and return, and without
// them paid a malloc and a free each time (segmented stacks' hot split;
// QuickJS's interpreter hit it on a sixth of its calls).
constexpr size_t kCachedBytes = 256 * 1024;
std::atomic<uint64_t> g_sys{0};
struct ChunkCache {
  PinChunk *head = nullptr; // linked through prev
  size_t bytes = 0;
  ~ChunkCache() { // the thread ends: its chunks go back to the heap
    while (PinChunk *c = head) {
      head = c->prev;
      g_sys -= c->bytes;
      free(c);
    }
  }
};
thread_local ChunkCache t_cached;

// A new chunk's header, over bytes of memory at p.
PinChunk *chunk_at(void *p, size_t bytes, bool mapped) {
  g_sys += bytes;
  auto *c = static_cast<PinChunk *>(p);
  c->bytes = bytes;
  c->mapped = mapped;
  return c;
}

// In a signal handler: mmap, which is async-signal-safe where malloc is
// not, and no cache, which the interrupted code may be changing.
PinChunk *map_chunk(size_t need) {
  size_t bytes = (need + sizeof(PinChunk) + kPage - 1) & ~(kPage - 1);
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    fatal("cannot map %zu bytes of pinned locals in a signal handler", bytes);
  return chunk_at(p, bytes, true);
}

PinChunk *new_chunk(size_t need, const PinChunk *prev) {
  if (san::in_signal_handler())
    return map_chunk(need);
  size_t bytes = !prev                         ? kFirstChunk
                 : prev->bytes < kSecondChunk ? kSecondChunk
                                              : prev->bytes * 2;
  if (bytes > kMaxChunk)
    bytes = kMaxChunk;
  while (bytes < need + sizeof(PinChunk))
    bytes *= 2;
  // The most recently given back chunk that is big enough.
  ChunkCache &cache = t_cached;
  for (PinChunk **link = &cache.head; *link; link = &(*link)->prev) {
    PinChunk *c = *link;
    if (c->bytes >= need + sizeof(PinChunk) && c->bytes <= 2 * bytes) {
      *link = c->prev;
      cache.bytes -= c->bytes;
      return c;
    }
  }
  void *p = malloc(bytes);
  if (!p)
    fatal("out of memory for %zu bytes of pinned locals", bytes);
  return chunk_at(p, bytes, false);
}

void drop_chunk(PinChunk *c) {
  // Under ThreadSanitizer a chunk goes back to the heap, where TSan sees
  // it change hands, rather than to the next task on this thread. Under
  // LeakSanitizer too: a cached chunk is reachable from this thread's TLS,
  // and the pointers a finished task's pinned locals (and the frames of its
  // foreign calls, such as malloc's result) left in it hid leaks. A mapped
  // chunk goes back at once (it may be a signal handler's, and the cache
  // is not for it to touch).
  ChunkCache &cache = t_cached;
  if (!c->mapped && cache.bytes + c->bytes <= kCachedBytes && !san::tsan() &&
      !san::leak_checks()) {
    c->prev = cache.head;
    cache.head = c;
    cache.bytes += c->bytes;
    return;
  }
  g_sys -= c->bytes;
  if (c->mapped)
    munmap(c, c->bytes);
  else
    free(c);
}

// Drops the chunks from head down to stop (not included), or to the end.
void drop_until(PinChunk *&head, const PinChunk *stop) {
  while (head && head != stop) {
    PinChunk *c = head;
    head = c->prev;
    drop_chunk(c);
  }
}

// Pops chunks until value lies in the current one (or none is left). A
// chunk without bounds is a signal handler's empty area (pin.h): its own
// mark, 0, stops there; any other value is the interrupted code's, after a
// siglongjmp out of the handler, and lies in that chunk.
void pop_to(Thread &th, uintptr_t value) {
  while (th.pin_chunk && (value < th.pin_lo || value > th.pin_hi)) {
    PinChunk *c = th.pin_chunk;
    if (th.pin_lo == 0 && th.pin_hi == 0) {
      if (value == 0)
        return;
      set_bounds(th, c);
      continue;
    }
    th.pin_chunk = c->prev;
    th.pin_top = c->prev_top;
    th.pin_lo = c->prev_lo;
    th.pin_hi = c->prev_hi;
    drop_chunk(c);
  }
}

} // namespace

void free_pins(PinState &p) {
  drop_until(p.chunk, nullptr);
  p = PinState{};
}

uint64_t pinned_bytes_sys() { return g_sys.load(); }

SignalPins enter_signal_pins(Thread &th) {
  SignalPins s{th.pin_top, th.pin_lo, th.pin_hi, th.pin_chunk, th.pin_arg};
  std::atomic_signal_fence(std::memory_order_seq_cst);
  th.pin_top = th.pin_lo = th.pin_hi = 0;
  return s;
}

void leave_signal_pins(Thread &th, const SignalPins &s) {
  // A handler that returned gave its bytes back; chunks are left only by
  // a longjmp inside it past its pinned frames.
  drop_until(th.pin_chunk, s.chunk);
  th.pin_top = s.top;
  th.pin_lo = s.lo;
  th.pin_hi = s.hi;
  th.pin_chunk = s.chunk;
  th.pin_arg = s.arg;
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" uint64_t __copystack_pin_grow(void) {
  Thread &th = __copystack_thread;
  const uint64_t need = th.pin_arg;
  PinChunk *c = new_chunk(need, th.pin_chunk);
  c->prev = th.pin_chunk;
  c->prev_top = th.pin_top;
  c->prev_lo = th.pin_lo;
  c->prev_hi = th.pin_hi;
  th.pin_chunk = c;
  set_bounds(th, c);
  CS_CHECK(th.pin_hi - th.pin_lo >= need, "a new pinned chunk holds the request");
  th.pin_top = th.pin_hi;
  return th.pin_top;
}

extern "C" void __copystack_pin_release(void) {
  Thread &th = __copystack_thread;
  const uintptr_t mark = th.pin_arg;
  pop_to(th, mark);
  CS_CHECK(!th.pin_chunk || (mark >= th.pin_lo && mark <= th.pin_hi) ||
               mark == 0,
           "a released pinned top belongs to a live chunk");
  th.pin_top = mark;
}
