; A module with instrumented code refers to the symbol only the runtime
; defines, so that a link without the runtime names what is missing.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK: @__copystack_runtime_missing__link_libcopystack_or_use_copystack_cc = external global i8
; CHECK: @__copystack_runtime_reference = internal constant ptr @__copystack_runtime_missing__link_libcopystack_or_use_copystack_cc
; CHECK: @llvm.compiler.used = {{.*}}@__copystack_runtime_reference
define void @f() {
  %a = alloca i32
  store volatile i32 0, ptr %a
  ret void
}
