// runtime.h: one runtime per process.
//
// An executable built with the drivers carries the runtime (libcopystack.a,
// its symbols exported); the instrumented shared libraries it links or
// dlopens need libcopystack.so, whose exported functions then bind to the
// executable's. Both copies are loaded, and each has constructors: only
// the process's runtime (the first definition of the runtime's marker in
// the global scope: the executable's, or libcopystack.so's when the
// executable has none) may run them. A second copy that registered its
// own fork handlers took, in its prepare handler, the locks the first copy
// had just taken (the calls bind to the same functions): every fork,
// system() and popen() of such a process hung.
#ifndef COPYSTACK_RUNTIME_H
#define COPYSTACK_RUNTIME_H

namespace copystack_rt {

// Whether this copy of the runtime is the process's. Hidden: each copy
// must ask its own (an exported one would bind to the executable's).
__attribute__((visibility("hidden"))) bool is_process_runtime();

} // namespace copystack_rt

#endif
