// dlopen of an instrumented library from a plain host (as Python's ctypes
// does): libcopystack.so needs little static TLS (its larger per-thread
// state is on the heap), so it fits the surplus glibc keeps for libraries
// loaded late, instead of "cannot allocate memory in static TLS block".
// A host built without a sanitizer cannot load a library built with one
// (with or without copystack).
// UNSUPPORTED: ubsan || tsan
// RUN: %cc -fPIC -shared %S/Inputs/tasks_lib.c -o %t.lib.so
// RUN: %host_cc %s -o %t -ldl
// RUN: %run %t %t.lib.so | FileCheck %s
// The host's Python loads the library only where it is the machine's own.
// RUN: %if !qemu %{ %run python3 -c "import ctypes, sys; l = ctypes.CDLL(sys.argv[1]); print('ctypes sum', l.lib_sum(100))" %t.lib.so | FileCheck %s --check-prefix=CTYPES %}
// The TLS segment of the shared runtime stays under 256 bytes:
// RUN: readelf -lW %cs_lib/libcopystack.so | FileCheck %s --check-prefix=TLS
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2)
    return 1;
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  long (*sum)(int) = (long (*)(int))dlsym(lib, "lib_sum");
  printf("sum %ld\n", sum(100));
  return 0;
}
// CHECK: sum 5050
// CTYPES: ctypes sum 5050
// TLS: TLS {{.*}} 0x0000{{[0-9a-f][0-9a-f]}} R
