// pin.cc: chunks of the pinned area (pin.h, abi.h).
#include "split_stack_notes.h"
#include "pin.h"
#include "fatal.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <sys/mman.h>

namespace copystack {

struct PinChunk {
  PinChunk *prev;
  uintptr_t prev_top, prev_lo, prev_hi;
  size_t bytes; // of the whole mapping, header included
};

namespace {

constexpr size_t kChunk = 16 * 1024;
constexpr size_t kPage = 4096;
std::atomic<uint64_t> g_sys{0};
thread_local PinChunk *t_spare;

PinChunk *new_chunk(size_t need) {
  size_t bytes = kChunk;
  while (bytes < need + sizeof(PinChunk))
    bytes *= 2;
  if (t_spare && t_spare->bytes >= bytes) {
    PinChunk *c = t_spare;
    t_spare = nullptr;
    return c;
  }
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    fatal("cannot map %zu bytes for pinned locals: %s", bytes,
          strerror(errno));
  g_sys += bytes;
  auto *c = static_cast<PinChunk *>(p);
  c->bytes = bytes;
  return c;
}

void drop_chunk(PinChunk *c) {
  if (!t_spare && c->bytes == kChunk) {
    t_spare = c;
    return;
  }
  g_sys -= c->bytes;
  munmap(c, c->bytes);
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

} // namespace copystack

using namespace copystack;

extern "C" void __copystack_pin_grow(void *arg) {
  auto *req = static_cast<copystack_pin_request *>(arg);
  Thread &th = __copystack_thread;
  CS_CHECK(req->align && (req->align & (req->align - 1)) == 0,
           "pinned allocations are aligned to powers of two");
  PinChunk *c = new_chunk(req->size + req->align);
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
