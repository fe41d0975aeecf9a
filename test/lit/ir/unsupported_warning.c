// A construct copystack cannot support on a copyable stack is a compiler
// warning naming the function and the construct (the function then runs on
// the thread's own stack, like code built without the plugin); clang does
// not crash. An explicit opt-out is silent.
// RUN: %clang_cs -O2 -g -c %s -o /dev/null 2>&1 | FileCheck %s
// RUN: %clang_cs -O2 -S -emit-llvm %s -o - 2>/dev/null | FileCheck %s --check-prefix=IR
#include <ucontext.h>

// CHECK: unsupported_warning.c:[[@LINE+1]]:1: warning: copystack: 'saves' runs on the thread's own stack, not a copyable one: it calls 'getcontext', which returns twice and is not setjmp
int saves(ucontext_t *u) { return getcontext(u); }

// CHECK-NOT: 'quiet'
// IR: define {{.*}} @quiet({{[^)]*}}) #{{[0-9]+}} {{{$}}
__attribute__((annotate("copystack_nosplit"))) int quiet(int x) { return x; }
