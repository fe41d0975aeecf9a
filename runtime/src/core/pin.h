// pin.h: the pinned area, where locals that cannot live on a copyable stack
// go (abi.h explains the protocol instrumented code follows).
//
// Chunks are allocated on demand and linked: each chunk's header remembers
// the pinned state from before it, so giving bytes back across a chunk
// boundary frees the chunks left behind (pin.cc has the sizes).
#ifndef COPYSTACK_PIN_H
#define COPYSTACK_PIN_H

#include "platform/thread.h"

namespace copystack_rt {

// The pinned state a task carries while it does not run: the top, and
// the current chunk, whose bounds are the thread's lo and hi while the
// task runs (without a chunk they are 0).
struct PinState {
  uintptr_t top = 0;
  PinChunk *chunk = nullptr;
};

PinState save_pins(const Thread &th);
void load_pins(Thread &th, const PinState &p);
// Releases every chunk of p (a task that finished).
void free_pins(PinState &p);

uint64_t pinned_bytes_sys();

} // namespace copystack_rt

#endif
