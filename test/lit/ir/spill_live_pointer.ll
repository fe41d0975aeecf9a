; A pointer argument used after a call that may move the stack gets a slot:
; stored once after its definition, reloaded before the use after the call.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

define internal void @callee() {
  ret void
}

; CHECK-LABEL: define i32 @f(ptr %p)
; CHECK:       %p.cs.slot = alloca ptr
; CHECK:       store ptr %p, ptr %p.cs.slot
; CHECK:       call void @callee()
; CHECK-NEXT:  %p.cs.reload = load ptr, ptr %p.cs.slot
; CHECK-NEXT:  %v = load i32, ptr %p.cs.reload
define i32 @f(ptr %p) {
  call void @callee()
  %v = load i32, ptr %p
  ret i32 %v
}

; A use before the call needs no reload.
; CHECK-LABEL: define i32 @before(ptr %p)
; CHECK-NOT:   alloca
; CHECK:       load i32, ptr %p
define i32 @before(ptr %p) {
  %v = load i32, ptr %p
  call void @callee()
  ret i32 %v
}
