; A call to the C library's read from instrumented code goes to the
; runtime's wrapper of the same signature, which parks the task instead of
; blocking its worker; the wrapper is instrumented, so the call is direct
; (no prefix test) and keeps read's attributes (the buffer stays nocapture).
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i64 @read(i32, ptr nocapture, i64)

; CHECK-LABEL: define i64 @f(i32 %fd, ptr %buf)
; CHECK:       %n = call i64 @__copystack_blocking_read(i32 %fd, ptr %buf, i64 64)
; CHECK-NOT:   __copystack_foreign_call
; CHECK:       ret i64 %n
define i64 @f(i32 %fd, ptr %buf) {
  %n = call i64 @read(i32 %fd, ptr %buf, i64 64)
  ret i64 %n
}
; CHECK: declare i64 @__copystack_blocking_read(i32, ptr nocapture, i64)
