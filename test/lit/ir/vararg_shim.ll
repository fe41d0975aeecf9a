; A variadic function becomes a shim (no prologue check: LLVM refuses one;
; it only starts the va_list) and an instrumented body that copies it.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare void @llvm.va_start.p0(ptr)
declare void @llvm.va_end.p0(ptr)

; The shim's va_list is described with its register save area (flag 8); it
; goes to the body, so it is scanned whole (kind 2).
; CHECK-DAG: @sum.copystack.objects = {{.*}} { i32 0, i32 24, i32 0, i16 2, i16 9 }
; A caller describes the variadic arguments it passes on the stack (flag 4):
; after the i32, five pointers take the remaining registers and two go to
; its outgoing area, whose two words are then all pointers (kind 2).
; CHECK-DAG: @caller.copystack.objects = {{.*}} { i32 0, i32 16, i32 0, i16 2, i16 4 }

; CHECK-LABEL: define i32 @sum(i32 %0, ...)
; CHECK:       %ap = alloca { i32, i32, ptr, ptr }, align 16
; CHECK:       call void @llvm.va_start.p0(ptr %ap)
; CHECK:       %{{.*}} = call i32 @sum.copystack.va(i32 %0, ptr %ap)
; CHECK:       call void @llvm.va_end.p0(ptr %ap)
define i32 @sum(i32 %n, ...) {
  %list = alloca { i32, i32, ptr, ptr }
  call void @llvm.va_start.p0(ptr %list)
  %v = va_arg ptr %list, i32
  call void @llvm.va_end.p0(ptr %list)
  ret i32 %v
}

define i32 @caller(ptr %p) {
  %r = call i32 (i32, ...) @sum(i32 7, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p, ptr %p)
  ret i32 %r
}

; CHECK-LABEL: define internal i32 @sum.copystack.va(i32 %n, ptr nocapture %va)
; CHECK:       call void @llvm.va_copy.p0(ptr %list, ptr %va)
; CHECK:       va_arg ptr %list, i32

; The shim has no split-stack attribute.
; CHECK: attributes #{{[0-9]+}} = { noinline nonlazybind uwtable "copystack-vararg-shim" "frame-pointer"="all" "no-realign-stack" }
