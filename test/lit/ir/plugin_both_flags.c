// The clang plugin works through -fplugin= and through -fpass-plugin=, and
// instruments once when given both.
// RUN: %clang_cs -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fpass-plugin=%cs_plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang_cs -fpass-plugin=%cs_plugin -O2 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang_cs -O0 -S -emit-llvm %s -o - | FileCheck %s

// CHECK-COUNT-1: @f.copystack.map =
// CHECK-NOT: @f.copystack.map.
// CHECK: define {{.*}}i32 @f(ptr {{.*}}) {{.*}}prefix <{ i32, i32, i64, i64 }>
int f(int *p) { return *p; }
