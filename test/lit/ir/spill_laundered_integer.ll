; The optimizer copies pointers through memory as i64 (an 8-byte memcpy
; becomes an i64 load and store). An i64 loaded without a TBAA tag naming
; an integer type may carry a pointer: it gets a slot. One the program's
; type information calls "long" does not.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

define internal void @callee() {
  ret void
}

; CHECK-LABEL: define void @laundered(ptr %src, ptr %dst)
; CHECK:       %bits.cs.slot = alloca i64
; CHECK:       %bits.cs.reload = load i64, ptr %bits.cs.slot
; CHECK-NEXT:  store i64 %bits.cs.reload, ptr %dst
define void @laundered(ptr %src, ptr %dst) {
  %bits = load i64, ptr %src
  call void @callee()
  store i64 %bits, ptr %dst
  ret void
}

; CHECK-LABEL: define void @integer(ptr %src, ptr %dst)
; CHECK-NOT:   %n.cs.slot
; CHECK:       store i64 %n, ptr %dst
define void @integer(ptr %src, ptr %dst) {
  %n = load i64, ptr %src, !tbaa !0
  call void @callee()
  store i64 %n, ptr %dst, !tbaa !0
  ret void
}

!0 = !{!1, !1, i64 0}
!1 = !{!"long", !2, i64 0}
!2 = !{!"omnipotent char", !3, i64 0}
!3 = !{!"Simple C/C++ TBAA"}
