; A variadic function defined here runs on the system stack (LLVM refuses
; split-stack prologues for it): calls to it go foreign without a test.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-LABEL: define internal i32 @sum(i32 %n, ...)
; CHECK-NOT:   prefix
define internal i32 @sum(i32 %n, ...) {
  ret i32 %n
}

; CHECK-LABEL: define i32 @f()
; CHECK-NOT:   icmp eq i64
; CHECK:       call void @__copystack_foreign_call(ptr @__copystack.thunk.0.sum,
define i32 @f() {
  %r = call i32 (i32, ...) @sum(i32 2, i32 3, double 1.0)
  ret i32 %r
}
