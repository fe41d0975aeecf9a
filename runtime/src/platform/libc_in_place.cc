// Which C library functions instrumented code may call in place on a task
// stack (copystack/abi.h, COPYSTACK_LIBC_IN_PLACE_SYMBOL): a group only when
// the program's binding of each of its functions is glibc's own, whose
// stack use is small and known. An allocator or library linked into the
// program or preloaded (jemalloc, a lock profiler) and the sanitizers'
// interceptors bind these names to other code, with other stack needs:
// then that group's calls stay foreign calls.
#include "copystack/abi.h"
#include "platform/runtime.h"
#include "sched/pthread_sync.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>

extern "C" {
void *__libc_malloc(size_t) __attribute__((weak));
void __libc_free(void *) __attribute__((weak));
void *__libc_calloc(size_t, size_t) __attribute__((weak));
void *__libc_realloc(void *, size_t) __attribute__((weak));

extern int copystack_libc_in_place asm(COPYSTACK_LIBC_IN_PLACE_SYMBOL);
__attribute__((visibility("default"))) int copystack_libc_in_place = 0;
}

namespace {

using Fn = void (*)();

// Compared through volatile copies, so that the compiler cannot fold it.
bool same(Fn mine, Fn libc) {
  volatile Fn a = mine;
  volatile Fn b = libc;
  return b != nullptr && a == b;
}

template <typename F> Fn erase(F *f) { return reinterpret_cast<Fn>(f); }

// Every function of the groups, by group (copystack/abi.h).
const struct {
  int group;
  const char *name;
} kFunctions[] = {
#define COPYSTACK_ENTRY(G, N, S, H) {COPYSTACK_IN_PLACE_##G, N},
    COPYSTACK_IN_PLACE_FUNCTIONS(COPYSTACK_ENTRY)
#undef COPYSTACK_ENTRY
};

// The allocator: glibc exports its own entry points under second names,
// which also works in a static executable.
bool allocator_is_glibc() {
  return same(erase(&malloc), erase(&__libc_malloc)) &&
         same(erase(&free), erase(&__libc_free)) &&
         same(erase(&calloc), erase(&__libc_calloc)) &&
         same(erase(&realloc), erase(&__libc_realloc));
}

// Others: what the program's references resolve to (the global scope's
// first definition) against the library's own (libc.so.6, libstdc++.so.6),
// for every name of the group (copystack/abi.h). Not knowable without the
// library loaded dynamically: then no. For NEW that is all six operators,
// even those a program's code may not call: libstdc++'s own call each other
// through the global scope (_ZdlPvm calls _ZdlPv, _Znam calls _Znwm), so one
// replaced name changes what the others do.
bool all_from(void *lib, int group) {
  if (!lib)
    return false;
  for (const auto &f : kFunctions) {
    if (f.group != group)
      continue;
    Fn mine = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, f.name));
    Fn own = reinterpret_cast<Fn>(dlsym(lib, f.name));
    if (!same(mine, own))
      return false;
  }
  return true;
}

__attribute__((constructor)) void detect_libc() {
  if (!copystack_rt::is_process_runtime())
    return; // the process's runtime detects it (platform/runtime.h)
#ifdef COPYSTACK_STATIC_LINK
  // A static executable (platform/interpose.h) has no libc.so.6 to ask,
  // and a dlopen there would make the linker warn at every link.
  void *libc = nullptr;
  void *cxx = nullptr;
#else
  void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_NOLOAD);
#endif
  int groups = 0;
  if (allocator_is_glibc())
    groups |= COPYSTACK_IN_PLACE_ALLOC;
  if (all_from(libc, COPYSTACK_IN_PLACE_MUTEX) ||
      copystack_rt::pthread_sync_owns_mutexes())
    groups |= COPYSTACK_IN_PLACE_MUTEX;
  if (all_from(libc, COPYSTACK_IN_PLACE_SCAN))
    groups |= COPYSTACK_IN_PLACE_SCAN;
  if (all_from(cxx, COPYSTACK_IN_PLACE_TREE))
    groups |= COPYSTACK_IN_PLACE_TREE;
  if ((groups & COPYSTACK_IN_PLACE_ALLOC) &&
      all_from(cxx, COPYSTACK_IN_PLACE_NEW))
    groups |= COPYSTACK_IN_PLACE_NEW;
  // The string members' fast paths (string_in_place.cc) stand in for
  // libstdc++'s own; with ALLOC, which a sanitizer's interceptors turn off
  // (they would see the copies libstdc++'s code makes unseen).
  if ((groups & COPYSTACK_IN_PLACE_ALLOC) &&
      all_from(cxx, COPYSTACK_IN_PLACE_STRING))
    groups |= COPYSTACK_IN_PLACE_STRING;
  if (libc)
    dlclose(libc);
  if (cxx)
    dlclose(cxx);
  copystack_libc_in_place = groups;
}

} // namespace
