; Variable-length arrays and alloca(n) live in the pinned area: allocated
; where they stood, given back where their scope's stackrestore is.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)

; CHECK-LABEL: define void @f(i64 %n)
; CHECK-NOT:   alloca i32, i64
; CHECK:       %[[S:.*]] = call ptr @llvm.stacksave.p0()
; CHECK:       %[[TOP:.*]] = load i64, ptr {{.*}}, !copystack.pinned
; CHECK:       mul i64 %n, 4
; CHECK:       inttoptr i64 {{.*}} to ptr, !copystack.pinned
; CHECK:       store i64 %[[TOP]], ptr
; CHECK:       call void @llvm.stackrestore.p0(ptr %[[S]])
define void @f(i64 %n) {
  %s = call ptr @llvm.stacksave.p0()
  %a = alloca i32, i64 %n
  store volatile i32 0, ptr %a
  call void @llvm.stackrestore.p0(ptr %s)
  ret void
}
