; Every static alloca is escaped, so that its offset from %rbp is an
; assembler constant, and the resolver returns those offsets.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-LABEL: define void @f()
; CHECK:       %a = alloca ptr
; CHECK-NEXT:  %b = alloca i32
; CHECK-NEXT:  call void (...) @llvm.localescape(ptr %a, ptr %b)
define void @f() {
  %a = alloca ptr
  %b = alloca i32
  store ptr %b, ptr %a
  ret void
}
; CHECK-LABEL: define internal void @f.copystack.resolve(ptr %0)
; CHECK:       call ptr @llvm.localrecover(ptr @f, ptr null, i32 0)
; CHECK:       call ptr @llvm.localrecover(ptr @f, ptr null, i32 1)
