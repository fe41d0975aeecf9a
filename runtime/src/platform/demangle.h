// demangle.h: function names in messages, demangled (C++ names through
// the C++ ABI's demangler; anything else as is).
#ifndef COPYSTACK_DEMANGLE_H
#define COPYSTACK_DEMANGLE_H

#include <cstddef>

namespace copystack_rt {

// Writes the demangled form of name into buf (truncated to len) and
// returns buf; a name that is not mangled is copied. Allocates (the C++
// ABI's demangler does): not for signal handlers that may have interrupted
// malloc.
const char *demangle(const char *name, char *buf, size_t len);

// A demangled name for one message: fatal("... %s", Demangled(n).str()).
class Demangled {
public:
  explicit Demangled(const char *name) { demangle(name, buf_, sizeof buf_); }
  const char *str() const { return buf_; }

private:
  char buf_[512];
};

} // namespace copystack_rt

#endif
