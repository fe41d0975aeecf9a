// terminate.cc: an exception no handler catches (one that leaves a task's
// function, like a panic that leaves a goroutine) is a fatal error: the
// message names the exception and its what(), and the task dump shows
// where it was thrown (the throwing task is still in its foreign call to
// the unwinder). The one file of the runtime built with exceptions and
// RTTI, to name the exception (runtime/CMakeLists.txt).
#include "platform/split_stack_notes.h"
#include "platform/fatal.h"
#include "sched/dump.h"

#include <cxxabi.h>
#include <exception>
#include <typeinfo>

namespace __gnu_cxx {
void __verbose_terminate_handler();
}

namespace copystack_rt {

namespace {

[[noreturn]] void on_terminate() {
  const std::type_info *type = abi::__cxa_current_exception_type();
  if (!type)
    fatal("std::terminate was called (no exception is active)");
  const char *what = nullptr;
  try {
    throw;
  } catch (const std::exception &e) {
    what = e.what();
  } catch (...) {
  }
  // A type's name is mangled without the _Z of a function's.
  int status = -1;
  char *name = abi::__cxa_demangle(type->name(), nullptr, nullptr, &status);
  if (status != 0 || !name)
    name = const_cast<char *>(type->name());
  if (what)
    fatal("uncaught exception %s: %s", name, what);
  fatal("uncaught exception %s", name);
}

} // namespace

void install_terminate_handler() {
  // Only over the C++ library's default: a program's own handler stays.
  if (std::get_terminate() == &__gnu_cxx::__verbose_terminate_handler)
    std::set_terminate(on_terminate);
}

} // namespace copystack_rt
