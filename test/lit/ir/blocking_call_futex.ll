; syscall(SYS_futex, ...) goes to the runtime's futex wrapper, whatever
; arguments the call passes (the wrapper's missing ones are zero, an
; integer where a pointer belongs is converted); other system calls, and a
; futex call whose number is not a constant, stay syscall().
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i64 @syscall(i64, ...)

; CHECK-LABEL: define i64 @wait(ptr %w, i32 %v)
; CHECK:       call i64 @__copystack_blocking_futex(ptr %w, i32 0, i32 %v, ptr null, ptr null, i32 0)
define i64 @wait(ptr %w, i32 %v) {
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %w, i32 0, i32 %v, ptr null)
  ret i64 %r
}

; CHECK-LABEL: define i64 @timed(ptr %w, i32 %v, ptr %ts)
; CHECK:       call i64 @__copystack_blocking_futex(ptr %w, i32 9, i32 %v, ptr %ts, ptr null, i32 -1)
define i64 @timed(ptr %w, i32 %v, ptr %ts) {
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %w, i32 9, i32 %v, ptr %ts, ptr null, i32 -1)
  ret i64 %r
}

; CHECK-LABEL: define i64 @wake(ptr %w)
; CHECK:       call i64 @__copystack_blocking_futex(ptr %w, i32 1, i32 2147483647, ptr null, ptr null, i32 0)
define i64 @wake(ptr %w) {
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %w, i32 1, i32 2147483647)
  ret i64 %r
}

; CHECK-LABEL: define i64 @requeue(ptr %w, i64 %n, ptr %w2)
; CHECK:       %[[T:.*]] = inttoptr i64 %n to ptr
; CHECK:       call i64 @__copystack_blocking_futex(ptr %w, i32 3, i32 1, ptr %[[T]], ptr %w2, i32 0)
define i64 @requeue(ptr %w, i64 %n, ptr %w2) {
  %r = call i64 (i64, ...) @syscall(i64 202, ptr %w, i32 3, i32 1, i64 %n, ptr %w2)
  ret i64 %r
}

; CHECK-LABEL: define i64 @others(ptr %w, i64 %nr)
; CHECK:       call i64 (i64, ...) @syscall(i64 39)
; CHECK:       call i64 (i64, ...) @syscall(i64 %nr, ptr %w, i32 0, i32 0)
; CHECK-NOT:   call i64 @__copystack_blocking_futex
; CHECK-LABEL: declare i64 @__copystack_blocking_futex
define i64 @others(ptr %w, i64 %nr) {
  %a = call i64 (i64, ...) @syscall(i64 39)
  %b = call i64 (i64, ...) @syscall(i64 %nr, ptr %w, i32 0, i32 0)
  %s = add i64 %a, %b
  ret i64 %s
}
