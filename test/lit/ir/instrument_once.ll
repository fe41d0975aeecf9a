; clang -fplugin and -fpass-plugin together register the pass twice; the
; module flag makes the second run a no-op.
; RUN: %opt -passes=copystack,copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-COUNT-1: call void (...) @llvm.localescape
; CHECK-NOT:     call void (...) @llvm.localescape
; CHECK:         !{i32 2, !"copystack.instrumented", i32 1}
define void @f() {
  %a = alloca i32
  store volatile i32 0, ptr %a
  ret void
}
