; FastISel (-O0) calls memcpy through the PLT whatever RtLibUseGOT says: in
; optnone functions the pass turns variable-size mem intrinsics into libc
; calls, which it binds eagerly. Small constant sizes stay inline.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; CHECK-LABEL: define void @f(ptr %a, ptr %b, i64 %n)
; CHECK:       call ptr @memcpy(ptr %a, ptr %b, i64 %n)
; CHECK:       call ptr @memset(ptr %a, i32 7, i64 100)
; CHECK:       call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %b, i64 16, i1 false)
define void @f(ptr %a, ptr %b, i64 %n) noinline optnone {
  call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %b, i64 %n, i1 false)
  call void @llvm.memset.p0.i64(ptr %a, i8 7, i64 100, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %a, ptr %b, i64 16, i1 false)
  ret void
}
