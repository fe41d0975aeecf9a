; Pointers whose objects are globals or fresh allocations never point into a
; stack: no slot.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

@g = global [4 x i32] zeroinitializer
declare noalias ptr @malloc(i64)

define internal void @callee() {
  ret void
}

; CHECK-LABEL: define i32 @f(i64 %i)
; CHECK-NOT:   .cs.slot
; CHECK:       ret i32
define i32 @f(i64 %i) {
  %p = getelementptr [4 x i32], ptr @g, i64 0, i64 %i
  %m = call ptr @malloc(i64 16)
  call void @callee()
  %a = load i32, ptr %p
  %b = load i32, ptr %m
  %s = add i32 %a, %b
  ret i32 %s
}
