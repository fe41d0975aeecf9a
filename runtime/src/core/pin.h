// pin.h: the pinned area, where locals that cannot live on a copyable stack
// go (abi.h explains the protocol instrumented code follows).
//
// Chunks are allocated on demand and linked: each chunk's header remembers
// the pinned state from before it, so giving bytes back across a chunk
// boundary frees the chunks left behind (pin.cc has the sizes).
#ifndef COPYSTACK_PIN_H
#define COPYSTACK_PIN_H

#include "platform/fatal.h"
#include "platform/thread.h"

namespace copystack_rt {

// The pinned state a task carries while it does not run: the top, and
// the current chunk, whose bounds are the thread's lo and hi while the
// task runs (without a chunk they are 0).
struct PinState {
  uintptr_t top = 0;
  PinChunk *chunk = nullptr;
};

// A chunk's header; its pinned bytes follow it.
struct PinChunk {
  PinChunk *prev;
  uintptr_t prev_top, prev_lo, prev_hi;
  size_t bytes; // of the whole mapping, header included
  bool mapped;  // by mmap, in a signal handler (pin.cc), not from the heap
};

// Signal handlers. A handler may interrupt any code: the runtime halfway
// through moving the thread's pinned state (a new chunk, a task switch), or
// malloc. So a handler gets a pinned area of its own (the trampoline,
// signals.cc): top, lo and hi are 0 while the chunk stays the interrupted
// code's, and the chunks it needs are mapped, not allocated. That state,
// "a chunk and no bounds", is a handler's empty area; its frames' marks
// are 0. Only a siglongjmp out of the handler leaves it in place: then a
// mark that is not 0 is the interrupted code's, and releasing it gives the
// chunk its bounds back (pin.cc pop_to); a task switch keeps it as a top
// of 0 with a chunk.
struct SignalPins {
  uintptr_t top, lo, hi;
  PinChunk *chunk;
  uint64_t arg;
};
SignalPins enter_signal_pins(Thread &th);
// After a handler that returned: frees what it left and puts back s.
void leave_signal_pins(Thread &th, const SignalPins &s);

// The thread's bounds are c's: its bytes after the header.
inline void set_bounds(Thread &th, const PinChunk *c) {
  th.pin_lo = reinterpret_cast<uintptr_t>(c) + sizeof(PinChunk);
  th.pin_hi = reinterpret_cast<uintptr_t>(c) + c->bytes;
}

// Inline: every task switch saves and loads them.
inline PinState save_pins(const Thread &th) {
  CS_CHECK(th.pin_chunk || (th.pin_lo == 0 && th.pin_hi == 0),
           "a task's pinned area without a chunk has no bounds");
  CS_CHECK(th.pin_top || th.pin_lo == 0,
           "a pinned area with bounds has a top in them");
  return PinState{th.pin_top, th.pin_chunk};
}

inline void load_pins(Thread &th, const PinState &p) {
  th.pin_top = p.top;
  th.pin_chunk = p.chunk;
  if (p.chunk && p.top) {
    set_bounds(th, p.chunk);
  } else {
    th.pin_lo = th.pin_hi = 0;
  }
}
// Releases every chunk of p (a task that finished).
void free_pins(PinState &p);

uint64_t pinned_bytes_sys();

} // namespace copystack_rt

#endif
