; A call to an instrumented function this module defines, and that nothing
; can replace at link time, stays a plain call.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

define internal i32 @local(i32 %x) {
  ret i32 %x
}
define dso_local i32 @exported(i32 %x) {
  ret i32 %x
}
; A definition another object may provide instead (an inline function):
; tested at run time.
define linkonce_odr i32 @inline_fn(i32 %x) {
  ret i32 %x
}

; CHECK-LABEL: define i32 @f()
; CHECK:       %a = call i32 @local(i32 1)
; CHECK-NEXT:  %b = call i32 @exported(i32 2)
; CHECK-NEXT:  load i64, ptr getelementptr (i8, ptr @inline_fn, i64 -16)
define i32 @f() {
  %a = call i32 @local(i32 1)
  %b = call i32 @exported(i32 2)
  %c = call i32 @inline_fn(i32 3)
  %s = add i32 %a, %b
  %t = add i32 %s, %c
  ret i32 %t
}
