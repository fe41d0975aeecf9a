; Every call to printf has the type i32 (ptr, ...): thunks are kept apart by
; the types of the arguments actually passed.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @printf(ptr, ...)
@fmt = constant [3 x i8] c"%d\00"

; CHECK-LABEL: define void @f()
; CHECK: call void @__copystack_foreign_call(ptr @__copystack.thunk.0.printf,
; CHECK: call void @__copystack_foreign_call(ptr @__copystack.thunk.1.printf,
; CHECK: call void @__copystack_foreign_call(ptr @__copystack.thunk.0.printf,
define void @f() {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 1)
  call i32 (ptr, ...) @printf(ptr @fmt, i64 2, double 3.0)
  call i32 (ptr, ...) @printf(ptr @fmt, i32 4)
  ret void
}
; CHECK: define internal void @__copystack.thunk.0.printf(
; CHECK:   call i32 (ptr, ...) @printf(ptr %{{.*}}, i32 %{{.*}})
; CHECK: define internal void @__copystack.thunk.1.printf(
; CHECK:   call i32 (ptr, ...) @printf(ptr %{{.*}}, i64 %{{.*}}, double %{{.*}})
