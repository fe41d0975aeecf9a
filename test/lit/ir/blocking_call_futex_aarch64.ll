; syscall(SYS_futex, ...) is redirected by the target's number
; (target/Target.h, futexSyscall): 98 on AArch64 (the asm-generic table),
; 202 on x86-64 (blocking_call_futex.ll). On AArch64, 202 is accept(2)
; and stays a system call. Before, the pass matched x86-64's number only,
; and libstdc++'s latches, barriers and atomic waits blocked AArch64
; workers in futex(2) (std_shared_mutex_future_once.cpp hung under qemu).
; RUN: %opt -passes=copystack -copystack-experimental-aarch64 -S %s | FileCheck %s
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

declare i64 @syscall(i64, ...)

; CHECK-LABEL: define i64 @wait(
; CHECK:       call i64 @__copystack_blocking_futex(ptr %{{.*}}, i32 0, i32 %{{.*}}, ptr null, ptr null, i32 0)
define i64 @wait(ptr %w, i32 %v) {
  %r = call i64 (i64, ...) @syscall(i64 98, ptr %w, i32 0, i32 %v, ptr null)
  ret i64 %r
}

; CHECK-LABEL: define i64 @not_futex(
; CHECK:       call i64 (i64, ...) @syscall(i64 202,
define i64 @not_futex(i32 %fd) {
  %r = call i64 (i64, ...) @syscall(i64 202, i32 %fd, ptr null, ptr null)
  ret i64 %r
}
