// -fsplit-stack asks for gcc-style split stacks, whose prologues and
// __morestack clash with copystack's: a clear error, not a duplicate
// __morestack at link time.
// RUN: not %cc -fsplit-stack %s -o %t 2>&1 | FileCheck %s
// RUN: not clang -fpass-plugin=%cs_lib/CopyStack.so -fsplit-stack -c %s -o %t.o 2>&1 | FileCheck %s
// REQUIRES: normal
int main(void) { return 0; }
// CHECK: error: copystack: -fsplit-stack cannot be combined with the copystack plugin
// CHECK-NOT: multiple definition
