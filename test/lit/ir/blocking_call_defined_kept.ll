; A program that defines its own read (or calls it through a pointer) keeps
; it: only calls to the C library's declaration are redirected.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

define i64 @read(i32 %fd, ptr %buf, i64 %n) {
  ret i64 0
}

; CHECK-LABEL: define i64 @f(i32 %fd, ptr %buf, ptr %fp)
; CHECK:       call i64 @read(i32 %fd, ptr %buf, i64 64)
; CHECK-NOT:   __copystack_blocking_read
define i64 @f(i32 %fd, ptr %buf, ptr %fp) {
  %n = call i64 @read(i32 %fd, ptr %buf, i64 64)
  %m = call i64 %fp(i32 %fd, ptr %buf, i64 64)
  %s = add i64 %n, %m
  ret i64 %s
}
