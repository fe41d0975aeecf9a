; A local aligned beyond 16 bytes would make LLVM realign the frame (locals
; then sit at no fixed %rbp offset): it moves to the pinned area, aligned.
; RUN: %opt -passes=copystack -pass-remarks='^copystack$' -S %s 2>&1 | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK: remark: <unknown>:0:0: moved off the stack: v (it is aligned to 64 bytes
; CHECK-LABEL: define void @f()
; CHECK-NOT:   alloca i32, align 64
; CHECK:       and i64 {{.*}}, -64
define void @f() {
  %v = alloca i32, align 64
  store volatile i32 0, ptr %v
  ret void
}
