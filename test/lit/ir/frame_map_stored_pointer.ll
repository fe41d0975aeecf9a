; An integer-typed object that a pointer is stored into (the optimizer
; retypes memory freely) has that word described as a pointer.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK: @f.copystack.objects = {{.*}} [{ i32, i32, i32, i16, i16 } { i32 0, i32 16, i32 0, i16 1, i16 1 }]
; CHECK: @f.copystack.bitmaps = private constant [1 x i64] [i64 2]
define void @f(ptr %p) {
  %a = alloca [2 x i64]
  %w1 = getelementptr i8, ptr %a, i64 8
  store ptr %p, ptr %w1
  store i64 3, ptr %a
  ret void
}
