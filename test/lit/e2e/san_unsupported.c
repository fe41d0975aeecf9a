// Sanitizers copystack cannot support are a compile error that names the
// sanitizer and says why.
// REQUIRES: normal
// RUN: not %cc -fsanitize=memory -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=MSAN
// RUN: not %cc -fsanitize=safe-stack -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=SAFESTACK
// RUN: not %cc -fsanitize=dataflow -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=DFSAN
// RUN: not %cc -fsanitize=hwaddress -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=HWASAN
// RUN: not %cc -fsanitize=numerical -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NSAN
int f(int *p) { return *p; }
int main(void) {
  int x = 1;
  return f(&x) - 1;
}
// MSAN: error: copystack: -fsanitize=memory is not supported: MemorySanitizer
// SAFESTACK: error: copystack: -fsanitize=safe-stack is not supported: SafeStack
// DFSAN: error: copystack: -fsanitize=dataflow is not supported: DataFlowSanitizer
// HWASAN: error: copystack: -fsanitize=hwaddress is not supported
// NSAN: error: {{copystack: -fsanitize=numerical is not supported|unsupported option .-fsanitize=numerical. for target}}
