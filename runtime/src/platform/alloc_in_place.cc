// Whether instrumented code may call the C library's allocator in place on
// a task stack (copystack/abi.h, COPYSTACK_ALLOC_IN_PLACE_SYMBOL): only
// when malloc, free, calloc and realloc are glibc's own, whose stack use is
// small and known. An allocator linked into the program or preloaded
// (jemalloc, tcmalloc) and the sanitizers' interceptors bind these names to
// other code, with other stack needs: then every such call stays a foreign
// call.
#include "copystack/abi.h"

#include <stddef.h>
#include <stdlib.h>

extern "C" {
void *__libc_malloc(size_t) __attribute__((weak));
void __libc_free(void *) __attribute__((weak));
void *__libc_calloc(size_t, size_t) __attribute__((weak));
void *__libc_realloc(void *, size_t) __attribute__((weak));

extern int copystack_alloc_in_place asm(COPYSTACK_ALLOC_IN_PLACE_SYMBOL);
__attribute__((visibility("default"))) int copystack_alloc_in_place = 0;
}

namespace {

// The addresses the program's own references resolve to, read through
// volatile pointers so that the compiler cannot fold the comparison.
bool same(void (*mine)(), void (*libc)()) {
  void (*volatile a)() = mine;
  void (*volatile b)() = libc;
  return b != nullptr && a == b;
}

template <typename F> void (*erase(F *f))() {
  return reinterpret_cast<void (*)()>(f);
}

__attribute__((constructor)) void detect_allocator() {
  copystack_alloc_in_place =
      same(erase(&malloc), erase(&__libc_malloc)) &&
      same(erase(&free), erase(&__libc_free)) &&
      same(erase(&calloc), erase(&__libc_calloc)) &&
      same(erase(&realloc), erase(&__libc_realloc));
}

} // namespace
