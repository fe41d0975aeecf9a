; AArch64's va_list is a record of its own, { ptr, ptr, ptr, i32, i32 }
; (struct.__va_list in C, struct.std::__va_list in C++), whose three
; pointers may point into the stack (the stack arguments and the tops of
; the two register save areas): one that no stack object describes gets a
; slot marked as a va_list reference (kind 5), as x86-64's
; (va_list_ref_slot.ll), and the runtime relocates all three words through
; it (machine.h kVaListAddressWords). Before, the pass knew x86-64's record
; only: a pinned list kept its old stack's addresses (jansson's
; jsonp_error_vset under stress mode).
; RUN: %opt -passes=copystack -copystack-experimental-aarch64 -S %s 2>&1 | FileCheck %s
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

%struct.__va_list = type { ptr, ptr, ptr, i32, i32 }
%"struct.std::__va_list" = type { ptr, ptr, ptr, i32, i32 }
%struct.not_va_list = type { i32, i32 }
declare void @keep(ptr)
declare void @llvm.va_copy.p0(ptr, ptr)
declare void @llvm.va_end.p0(ptr)

; CHECK: @pinned.copystack.objects = {{.*}}{ i32 0, i32 8, i32 0, i16 5, i16 1 }
; CHECK-LABEL: define void @pinned(ptr %src)
; CHECK:       %ap.pinned = getelementptr i8, ptr %pinned, i64 0
; CHECK-NEXT:  %[[A:.*]] = getelementptr i8, ptr %ap.pinned, i64 0
; CHECK-NEXT:  store ptr %[[A]], ptr %ap.pinned.va_list_ref
define void @pinned(ptr %src) {
  %ap = alloca %struct.__va_list, align 8
  call void @llvm.va_copy.p0(ptr %ap, ptr %src)
  call void @keep(ptr %ap)
  call void @llvm.va_end.p0(ptr %ap)
  ret void
}

; C++'s name, and a list inside a record at offset 8.
; CHECK-LABEL: define void @pinned_cxx(ptr %src)
; CHECK:       %[[W:.*]] = getelementptr i8, ptr %w.pinned, i64 8
; CHECK-NEXT:  store ptr %[[W]], ptr %w.pinned.va_list_ref
define void @pinned_cxx(ptr %src) {
  %w = alloca { i64, %"struct.std::__va_list" }, align 8
  %ap = getelementptr i8, ptr %w, i64 8
  call void @llvm.va_copy.p0(ptr %ap, ptr %src)
  call void @keep(ptr %w)
  call void @llvm.va_end.p0(ptr %ap)
  ret void
}

; va_copy into memory that is not a stack object.
; CHECK-LABEL: define void @heap(ptr %dst, ptr %src)
; (The arguments pass through the check: aarch64_check_carries_arguments.ll.)
; CHECK:       store ptr %[[D:.*]], ptr %cs.va_list_ref
; CHECK-NEXT:  call void @llvm.va_copy.p0(ptr %[[D]], ptr
define void @heap(ptr %dst, ptr %src) {
  call void @llvm.va_copy.p0(ptr %dst, ptr %src)
  call void @keep(ptr null)
  call void @llvm.va_end.p0(ptr %dst)
  ret void
}

; A record that is not a va_list gets none.
; CHECK-LABEL: define void @other()
; CHECK-NOT:   va_list_ref
; CHECK:       ret void
define void @other() {
  %o = alloca %struct.not_va_list, align 4
  call void @keep(ptr %o)
  ret void
}
