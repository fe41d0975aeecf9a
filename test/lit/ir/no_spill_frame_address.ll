; The address of a local, and constant offsets from it, need no slot: the
; backend recomputes them from %rbp, which the runtime moves with the frame.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

define internal void @use(ptr %p) {
  ret void
}

; CHECK-LABEL: define void @f()
; CHECK-NOT:   .cs.slot
; CHECK-NOT:   .cs.reload
; CHECK:       ret void
define void @f() {
  %a = alloca [8 x i32]
  %e = getelementptr [8 x i32], ptr %a, i64 0, i64 5
  call void @use(ptr %e)
  call void @use(ptr %e)
  call void @use(ptr %a)
  ret void
}
