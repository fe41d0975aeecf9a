// demangle.cc: demangled names for messages (demangle.h).
#include "platform/split_stack_notes.h"
#include "platform/demangle.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>

namespace copystack_rt {

const char *demangle(const char *name, char *buf, size_t len) {
  if (!len)
    return buf;
  if (!name) {
    snprintf(buf, len, "?");
    return buf;
  }
  int status = -1;
  char *d = nullptr;
  if (name[0] == '_' && name[1] == 'Z')
    d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  snprintf(buf, len, "%s", status == 0 && d ? d : name);
  free(d);
  return buf;
}

} // namespace copystack_rt
