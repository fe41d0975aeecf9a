// The symbol every instrumented object refers to, so that linking
// instrumented code without the runtime fails with an error naming the
// runtime (copystack/abi.h, COPYSTACK_RUNTIME_SYMBOL; the reference comes
// from passes/Attributes.cpp). It also tells a copy of the runtime whether
// it is the process's runtime (runtime.h).
#include "platform/runtime.h"

#include "copystack/abi.h"

#include <dlfcn.h>

extern "C" {
extern const char copystack_runtime_marker[] asm(COPYSTACK_RUNTIME_SYMBOL);
const char copystack_runtime_marker[] = "copystack runtime";
// This copy's own marker, whichever definition the process binds the
// name to.
extern const char own_runtime_marker
    __attribute__((alias(COPYSTACK_RUNTIME_SYMBOL), visibility("hidden")));
}

namespace copystack_rt {

bool is_process_runtime() {
#ifdef COPYSTACK_STATIC_LINK
  return true;
#else
  const void *first = dlsym(RTLD_DEFAULT, COPYSTACK_RUNTIME_SYMBOL);
  return !first || first == static_cast<const void *>(&own_runtime_marker);
#endif
}

} // namespace copystack_rt
