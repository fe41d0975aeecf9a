// pin.cc: chunks of the pinned area (pin.h, abi.h).
#include "platform/split_stack_notes.h"
#include "core/pin.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdlib>

namespace copystack_rt {

struct PinChunk {
  PinChunk *prev;
  uintptr_t prev_top, prev_lo, prev_hi;
  size_t bytes; // of the whole mapping, header included
};

namespace {

// Chunks come from the C heap and grow geometrically along a task's chain:
// a task that pins one small local (a wait group its children signal)
// costs a 512-byte chunk, not a page, so a million such tasks stay cheap;
// one that pins a lot gets chunks up to 64 KiB. One spare first-size chunk
// per thread saves the malloc when a loop crosses a chunk boundary.
constexpr size_t kFirstChunk = 512;
constexpr size_t kMaxChunk = 64 * 1024;
std::atomic<uint64_t> g_sys{0};
// Back to the heap when its thread ends.
struct Spare {
  PinChunk *chunk = nullptr;
  ~Spare() {
    if (chunk) {
      g_sys -= chunk->bytes;
      free(chunk);
    }
  }
};
thread_local Spare t_spare;

PinChunk *new_chunk(size_t need, const PinChunk *prev) {
  size_t bytes = prev ? prev->bytes * 2 : kFirstChunk;
  if (bytes > kMaxChunk)
    bytes = kMaxChunk;
  while (bytes < need + sizeof(PinChunk))
    bytes *= 2;
  if (t_spare.chunk && t_spare.chunk->bytes == bytes) {
    PinChunk *c = t_spare.chunk;
    t_spare.chunk = nullptr;
    return c;
  }
  void *p = malloc(bytes);
  if (!p)
    fatal("out of memory for %zu bytes of pinned locals", bytes);
  g_sys += bytes;
  auto *c = static_cast<PinChunk *>(p);
  c->bytes = bytes;
  return c;
}

void drop_chunk(PinChunk *c) {
  // Under ThreadSanitizer a chunk goes back to the heap, where TSan sees
  // it change hands, rather than to the next task on this thread.
  if (!t_spare.chunk && c->bytes == kFirstChunk && !san::tsan()) {
    t_spare.chunk = c;
    return;
  }
  g_sys -= c->bytes;
  free(c);
}

// Pops chunks until value lies in the current one (or none is left).
void pop_to(Thread &th, uintptr_t value) {
  while (th.pin_chunk && (value < th.pin_lo || value > th.pin_hi)) {
    PinChunk *c = th.pin_chunk;
    th.pin_chunk = c->prev;
    th.pin_top = c->prev_top;
    th.pin_lo = c->prev_lo;
    th.pin_hi = c->prev_hi;
    drop_chunk(c);
  }
}

} // namespace

PinState save_pins(const Thread &th) {
  return PinState{th.pin_top, th.pin_lo, th.pin_hi, th.pin_chunk};
}

void load_pins(Thread &th, const PinState &p) {
  th.pin_top = p.top;
  th.pin_lo = p.lo;
  th.pin_hi = p.hi;
  th.pin_chunk = p.chunk;
}

void free_pins(PinState &p) {
  while (PinChunk *c = p.chunk) {
    p.chunk = c->prev;
    drop_chunk(c);
  }
  p = PinState{};
}

uint64_t pinned_bytes_sys() { return g_sys.load(); }

} // namespace copystack_rt

using namespace copystack_rt;

extern "C" void __copystack_pin_grow(void *arg) {
  auto *req = static_cast<copystack_pin_request *>(arg);
  Thread &th = __copystack_thread;
  CS_CHECK(req->align && (req->align & (req->align - 1)) == 0,
           "pinned allocations are aligned to powers of two");
  PinChunk *c = new_chunk(req->size + req->align, th.pin_chunk);
  c->prev = th.pin_chunk;
  c->prev_top = th.pin_top;
  c->prev_lo = th.pin_lo;
  c->prev_hi = th.pin_hi;
  th.pin_chunk = c;
  th.pin_lo = reinterpret_cast<uintptr_t>(c) + sizeof(PinChunk);
  th.pin_hi = reinterpret_cast<uintptr_t>(c) + c->bytes;
  uintptr_t p = (th.pin_hi - req->size) & ~(req->align - 1);
  CS_CHECK(p >= th.pin_lo, "a new pinned chunk holds the request");
  th.pin_top = p;
  req->result = p;
}

extern "C" void __copystack_pin_release(void *arg) {
  auto *req = static_cast<copystack_pin_request *>(arg);
  Thread &th = __copystack_thread;
  uintptr_t mark = req->size;
  pop_to(th, mark);
  CS_CHECK(!th.pin_chunk || (mark >= th.pin_lo && mark <= th.pin_hi) ||
               mark == 0,
           "a released pinned top belongs to a live chunk");
  th.pin_top = mark;
}
