; fcntl(fd, F_SETLKW or F_OFD_SETLKW, lock) goes to the runtime's wrapper,
; which parks the task while an I/O thread waits for the lock; every other
; command of the variadic fcntl (F_SETLK, F_GETFL...) and a command that is
; not a constant stay fcntl. lockf and waitid go to theirs as every blocking
; call of the list does.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @fcntl(i32, i32, ...)
declare i32 @fcntl64(i32, i32, ...)
declare i32 @lockf(i32, i32, i64)
declare i32 @waitid(i32, i32, ptr, i32)

; CHECK-LABEL: define i32 @wait_lock(i32 %fd, ptr %fl)
; CHECK:       %[[R:.*]] = call i32 @__copystack_blocking_fcntl_lock(i32 %fd, i32 7, ptr %fl)
; CHECK:       ret i32 %[[R]]
define i32 @wait_lock(i32 %fd, ptr %fl) {
  %r = call i32 (i32, i32, ...) @fcntl(i32 %fd, i32 7, ptr %fl)
  ret i32 %r
}

; CHECK-LABEL: define i32 @wait_ofd_lock(i32 %fd, ptr %fl)
; CHECK:       call i32 @__copystack_blocking_fcntl_lock(i32 %fd, i32 38, ptr %fl)
define i32 @wait_ofd_lock(i32 %fd, ptr %fl) {
  %r = call i32 (i32, i32, ...) @fcntl64(i32 %fd, i32 38, ptr %fl)
  ret i32 %r
}

; CHECK-LABEL: define i32 @others(i32 %fd, ptr %fl, i32 %cmd)
; CHECK:       call i32 (i32, i32, ...) @fcntl(i32 %fd, i32 6, ptr %fl)
; CHECK:       call i32 (i32, i32, ...) @fcntl(i32 %fd, i32 3)
; CHECK:       call i32 (i32, i32, ...) @fcntl(i32 %fd, i32 %cmd, ptr %fl)
; CHECK-NOT:   __copystack_blocking_fcntl_lock
; CHECK:       ret i32
define i32 @others(i32 %fd, ptr %fl, i32 %cmd) {
  %a = call i32 (i32, i32, ...) @fcntl(i32 %fd, i32 6, ptr %fl)
  %b = call i32 (i32, i32, ...) @fcntl(i32 %fd, i32 3)
  %c = call i32 (i32, i32, ...) @fcntl(i32 %fd, i32 %cmd, ptr %fl)
  %s = add i32 %a, %b
  %t = add i32 %s, %c
  ret i32 %t
}

; CHECK-LABEL: define i32 @lockf_and_waitid(i32 %fd, ptr %info)
; CHECK:       call i32 @__copystack_blocking_lockf(i32 %fd, i32 1, i64 0)
; CHECK:       call i32 @__copystack_blocking_waitid(i32 0, i32 0, ptr %info, i32 4)
define i32 @lockf_and_waitid(i32 %fd, ptr %info) {
  %a = call i32 @lockf(i32 %fd, i32 1, i64 0)
  %b = call i32 @waitid(i32 0, i32 0, ptr %info, i32 4)
  %s = add i32 %a, %b
  ret i32 %s
}

; With -D_FILE_OFFSET_BITS=64, glibc's headers call the 64-bit names, the
; same functions on x86-64: they park too.
declare i32 @lockf64(i32, i32, i64)
declare i64 @pread64(i32, ptr, i64, i64)
declare i64 @pwrite64(i32, ptr, i64, i64)
declare i64 @__pread64_chk(i32, ptr, i64, i64, i64)

; CHECK-LABEL: define i64 @large_file_names(i32 %fd, ptr %b)
; CHECK:       call i32 @__copystack_blocking_lockf64(i32 %fd, i32 1, i64 0)
; CHECK:       call i64 @__copystack_blocking_pread64(i32 %fd, ptr %b, i64 8, i64 0)
; CHECK:       call i64 @__copystack_blocking_pwrite64(i32 %fd, ptr %b, i64 8, i64 0)
; CHECK:       call i64 @__copystack_blocking___pread64_chk(i32 %fd, ptr %b, i64 8, i64 0, i64 8)
define i64 @large_file_names(i32 %fd, ptr %b) {
  %a = call i32 @lockf64(i32 %fd, i32 1, i64 0)
  %r = call i64 @pread64(i32 %fd, ptr %b, i64 8, i64 0)
  %w = call i64 @pwrite64(i32 %fd, ptr %b, i64 8, i64 0)
  %c = call i64 @__pread64_chk(i32 %fd, ptr %b, i64 8, i64 0, i64 8)
  %s = add i64 %r, %w
  %t = add i64 %s, %c
  ret i64 %t
}
; CHECK: declare i32 @__copystack_blocking_fcntl_lock(i32, i32, ptr)
