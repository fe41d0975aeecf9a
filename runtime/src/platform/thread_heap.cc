// thread_heap.cc: per-thread blocks on the heap (thread_heap.h).
#include "platform/split_stack_notes.h"
#include "platform/thread_heap.h"
#include "platform/fatal.h"

#include <atomic>
#include <pthread.h>

namespace copystack_rt {

namespace {

pthread_key_t g_key;
pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
std::atomic<void (*)(void *)> g_destroy[kNumThreadSlots];

// A thread ends: its blocks go (a destroy that makes a block anew is
// called again by glibc's next round of key destructors).
void thread_ended(void *arg) {
  auto *th = static_cast<Thread *>(arg);
  for (int i = 0; i < kNumThreadSlots; ++i)
    if (void *p = th->slots.p[i]) {
      th->slots.p[i] = nullptr;
      g_destroy[i].load()(p);
    }
}

void make_key() {
  if (pthread_key_create(&g_key, thread_ended) != 0)
    fatal("pthread_key_create failed: the runtime's per-thread state "
          "cannot be freed when threads end");
}

} // namespace

void *make_thread_slot(ThreadSlot slot, const SlotKind &kind) {
  pthread_once(&g_key_once, make_key);
  g_destroy[slot].store(kind.destroy);
  Thread &th = __copystack_thread;
  void *p = kind.make();
  th.slots.p[slot] = p;
  pthread_setspecific(g_key, &th);
  return p;
}

} // namespace copystack_rt
