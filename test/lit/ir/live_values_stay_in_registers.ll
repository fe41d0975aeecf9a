; A pointer value live across a call that may move the stack stays an SSA
; value: the pass adds no slot for it. Wherever the register allocator
; keeps it across the call (a callee-saved register, a spill slot), the
; runtime finds it: it range-checks every word of a frame its map does not
; know to hold a non-pointer (docs/maps.md, "Values live across calls").
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

define internal void @g(ptr %p) {
  store i32 1, ptr %p
  ret void
}

; CHECK-LABEL: define i32 @f(ptr %p, i64 %i)
; CHECK-NOT:   alloca
; CHECK:       %q = getelementptr i32, ptr %p, i64 %i
; CHECK-NEXT:  call void @g(ptr %q)
; CHECK-NEXT:  %v = load i32, ptr %q
define i32 @f(ptr %p, i64 %i) {
  %q = getelementptr i32, ptr %p, i64 %i
  call void @g(ptr %q)
  %v = load i32, ptr %q
  ret i32 %v
}
