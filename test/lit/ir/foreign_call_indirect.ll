; An indirect call dispatches on the callee's prefix too; its thunk takes
; the callee from the frame.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-LABEL: define void @f(ptr %fn)
; CHECK:       getelementptr i8, ptr %fn, i64 -16
; CHECK:       call void %fn(i32 1)
; CHECK:       store ptr %fn, ptr
; CHECK:       call void @__copystack_foreign_call(ptr @__copystack.thunk.0,
define void @f(ptr %fn) {
  call void %fn(i32 1)
  ret void
}
; CHECK-LABEL: define internal void @__copystack.thunk.0(ptr %0)
; CHECK:       %[[T:.*]] = load ptr, ptr
; CHECK:       call void %[[T]](i32
