; ASan's and TSan's checks run in place on the task stack (the runtime keeps
; headroom below every stack for them); UBSan's handlers go to the thread's
; stack without testing a prefix; neither is a safepoint.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare void @__asan_report_store4(i64)
declare void @__tsan_read8(ptr)
declare void @__tsan_func_entry(ptr)
declare void @__ubsan_handle_add_overflow(ptr, i64, i64)

; CHECK-LABEL: define void @f(ptr %p, i64 %a)
; CHECK:       call void @__tsan_func_entry(ptr null)
; CHECK-NEXT:  call void @__tsan_read8(ptr %p)
; CHECK-NEXT:  call void @__asan_report_store4(i64 %a)
; CHECK-NOT:   getelementptr (i8, ptr @__ubsan_handle_add_overflow
; CHECK:       call void @__copystack_foreign_call_r10(ptr nest @__ubsan_handle_add_overflow,
define void @f(ptr %p, i64 %a) {
  call void @__tsan_func_entry(ptr null)
  call void @__tsan_read8(ptr %p)
  call void @__asan_report_store4(i64 %a)
  call void @__ubsan_handle_add_overflow(ptr null, i64 %a, i64 %a)
  ret void
}
