; A function defined here that runs on the system stack (here: it makes a
; getcontext call) is called through the foreign path without a test.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @getcontext(ptr) returns_twice

define internal i32 @saves_context(ptr %ctx) {
  %r = call i32 @getcontext(ptr %ctx)
  ret i32 %r
}

; CHECK-LABEL: define i32 @f(ptr %ctx)
; CHECK-NOT:   icmp eq i64
; CHECK:       call {{.*}} @__copystack_foreign_call_r10(ptr nest @saves_context,
define i32 @f(ptr %ctx) {
  %r = call i32 @saves_context(ptr %ctx)
  ret i32 %r
}
