; Under TSan, the checks of accesses to the running thread's own memory
; (errno through __errno_location, a thread_local by name, the ctype
; tables) are dropped: tasks that run on one thread run one at a time, and
; TSan, for which switching tasks orders nothing, would report each task's
; errno as a race with the previous task's (ThreadIdentity.h). An address
; that comes from memory is checked as before.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

@tl = thread_local global [4 x i32] zeroinitializer
declare ptr @__errno_location()
declare ptr @__ctype_b_loc()
declare i64 @strtol(ptr, ptr, i32)
declare void @__tsan_write4(ptr)
declare void @__tsan_read4(ptr)
declare void @__tsan_read8(ptr)
declare void @__tsan_atomic32_store(ptr, i32, i32)

; CHECK-LABEL: define i32 @f(
; CHECK-NOT:   call void @__tsan_write4(ptr %e)
; CHECK-NOT:   call void @__tsan_read4(ptr %e2)
; CHECK-NOT:   call void @__tsan_read4(ptr %slot)
; CHECK-NOT:   call void @__tsan_read8(ptr %ct)
; CHECK:       call void @__tsan_read4(ptr %kept)
; CHECK:       call void @__tsan_atomic32_store(ptr %t
define i32 @f(ptr %s, ptr %pp) {
  %e = call ptr @__errno_location()
  call void @__tsan_write4(ptr %e)
  store i32 0, ptr %e
  %v = call i64 @strtol(ptr %s, ptr null, i32 10)
  %e2 = call ptr @__errno_location()
  call void @__tsan_read4(ptr %e2)
  %err = load i32, ptr %e2
  %t = call ptr @llvm.threadlocal.address.p0(ptr @tl)
  %slot = getelementptr inbounds [4 x i32], ptr %t, i64 0, i64 2
  call void @__tsan_read4(ptr %slot)
  %x = load i32, ptr %slot
  %ct = call ptr @__ctype_b_loc()
  call void @__tsan_read8(ptr %ct)
  %tab = load ptr, ptr %ct
  ; a pointer kept in memory: whose it is, TSan decides
  %kept = load ptr, ptr %pp
  call void @__tsan_read4(ptr %kept)
  %y = load i32, ptr %kept
  call void @__tsan_atomic32_store(ptr %t, i32 1, i32 0)
  %a = add i32 %err, %x
  %b = add i32 %a, %y
  ret i32 %b
}
declare ptr @llvm.threadlocal.address.p0(ptr)
