// sync.h: what the rest of the runtime uses of sync.cc.
#ifndef COPYSTACK_SYNC_H
#define COPYSTACK_SYNC_H

#include "copystack/copystack.h"

namespace copystack_rt {

// Sends without ever parking; false when the channel has no room and no
// receiver. From any thread (the timer thread uses it).
bool chan_try_send(copystack_chan *c, void *elem);

// Bytes of live channels and their buffers (for the memory statistics).
uint64_t chan_bytes_inuse();

} // namespace copystack_rt

#endif
