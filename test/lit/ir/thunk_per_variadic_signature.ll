; A variadic call goes through the trampoline with its own call type (LLVM
; sets %al for the callee). Those that pass arguments in memory need a thunk,
; and every call to printf has the type i32 (ptr, ...): thunks are kept apart
; by the call's argument types too, not by the function type alone.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

@fmt = private constant [4 x i8] c"%d\0A\00"

; CHECK-LABEL: define void @f()
; CHECK: call i32 (ptr, ptr, ...) @__copystack_foreign_call_r10(ptr nest @printf, ptr @fmt, i32 4)
; CHECK: call i32 (ptr, ptr, ...) @__copystack_foreign_call_r10(ptr nest @printf, ptr @fmt, i64 5, double 1.000000e+00)
; CHECK: call void @__copystack_foreign_call_r10(ptr nest @__copystack.thunk.0.printf,
; CHECK: call void @__copystack_foreign_call_r10(ptr nest @__copystack.thunk.1.printf,
; CHECK: call void @__copystack_foreign_call_r10(ptr nest @__copystack.thunk.0.printf,
define void @f() {
  call i32 (ptr, ...) @printf(ptr @fmt, i32 4)
  call i32 (ptr, ...) @printf(ptr @fmt, i64 5, double 1.0)
  call i32 (ptr, ...) @printf(ptr @fmt, x86_fp80 0xK3FFF8000000000000000)
  call i32 (ptr, ...) @printf(ptr @fmt, i64 1, i64 2, i64 3, i64 4, i64 5, i64 6)
  call i32 (ptr, ...) @printf(ptr @fmt, x86_fp80 0xK3FFF8000000000000000)
  ret void
}
; CHECK: define internal void @__copystack.thunk.0.printf(
; CHECK:   call i32 (ptr, ...) @printf(ptr %{{.*}}, x86_fp80 %{{.*}})
; CHECK: define internal void @__copystack.thunk.1.printf(
; CHECK:   call i32 (ptr, ...) @printf(ptr %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, i64 %{{.*}})
declare i32 @printf(ptr, ...)
