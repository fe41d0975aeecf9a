// thread_heap.h: the runtime's larger per-thread state (caches of task
// structures, stacks and frame lookups) lives on the heap, one block per
// thread and per kind, reached through a slot of the Thread (thread.h).
//
// Why not thread_local: instrumented code reaches __copystack_thread with
// initial-exec TLS, so libcopystack.so needs static TLS, and glibc gives a
// library loaded with dlopen (Python's ctypes loading an instrumented
// library) only a small surplus of it, for all of the library's TLS. The
// runtime's TLS is the Thread and a few words; everything else is made on
// a thread's first use and freed when the thread ends.
#ifndef COPYSTACK_THREAD_HEAP_H
#define COPYSTACK_THREAD_HEAP_H

#include "platform/thread.h"

namespace copystack_rt {

// How a slot's block is made and, when its thread ends, destroyed.
struct SlotKind {
  void *(*make)();
  void (*destroy)(void *);
};

// The slot's block for the calling thread, made on first use.
void *make_thread_slot(ThreadSlot slot, const SlotKind &kind);

inline void *thread_slot(ThreadSlot slot, const SlotKind &kind) {
  void *p = __copystack_thread.slots.p[slot];
  if (__builtin_expect(p != nullptr, 1))
    return p;
  return make_thread_slot(slot, kind);
}

// A SlotKind for T: new T, delete.
template <class T> const SlotKind &slot_kind() {
  static const SlotKind kind{[]() -> void * { return new T(); },
                             [](void *p) { delete static_cast<T *>(p); }};
  return kind;
}

template <class T> T &thread_block(ThreadSlot slot) {
  return *static_cast<T *>(thread_slot(slot, slot_kind<T>()));
}

} // namespace copystack_rt

#endif
