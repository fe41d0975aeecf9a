; -copystack-park-blocking-calls=0 leaves read a foreign call: it blocks the
; worker thread, as code built without the plugin does.
; RUN: %opt -passes=copystack -copystack-park-blocking-calls=0 -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i64 @read(i32, ptr nocapture, i64)

; CHECK-LABEL: define i64 @f(
; CHECK:       call {{.*}}i64 @__copystack_foreign_call_r10(ptr nest @read,
; CHECK-NOT:   __copystack_blocking_read
define i64 @f(i32 %fd, ptr %buf) {
  %n = call i64 @read(i32 %fd, ptr %buf, i64 64)
  ret i64 %n
}
