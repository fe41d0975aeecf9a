; An indirect call through the thread's stack keeps its kcfi check: the
; thunk's call carries the original's bundle.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-LABEL: define void @f(ptr %fn)
; CHECK:       call void %fn(i32 1) [ "kcfi"(i32 99) ]
; CHECK:       call void @__copystack_foreign_call_r10(ptr nest @__copystack.thunk.0,
define void @f(ptr %fn) !kcfi_type !0 {
  call void %fn(i32 1) [ "kcfi"(i32 99) ]
  ret void
}
!0 = !{i32 5}
; CHECK-LABEL: define internal void @__copystack.thunk.0(ptr %0)
; CHECK:       call void %{{.*}}(i32 %{{.*}}) [ "kcfi"(i32 99) ]
