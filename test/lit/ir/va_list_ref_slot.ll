; A va_list no stack object describes gets a slot the frame map marks as a
; va_list reference (kind 5): a va_list local that moved off the stack
; (set at entry, for the frame's life), and a va_copy into memory that is
; not a stack object of the frame (set before the va_copy, cleared by a
; va_end of the same address).
; RUN: %opt -passes=copystack -pass-remarks=copystack -S %s 2>&1 | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

%struct.__va_list_tag = type { i32, i32, ptr, ptr }
declare void @keep(ptr)
declare void @llvm.va_copy.p0(ptr, ptr)
declare void @llvm.va_end.p0(ptr)
declare i32 @vfprintf(ptr, ptr, ptr)

; CHECK: @pinned.copystack.objects = {{.*}}{ i32 0, i32 8, i32 0, i16 5, i16 1 }
; CHECK-LABEL: define void @pinned(ptr %src)
; CHECK:       %ap.pinned = getelementptr i8, ptr %pinned, i64 0
; CHECK-NEXT:  %[[A:.*]] = getelementptr i8, ptr %ap.pinned, i64 0
; CHECK-NEXT:  store ptr %[[A]], ptr %ap.pinned.va_list_ref
define void @pinned(ptr %src) {
  %ap = alloca [1 x %struct.__va_list_tag], align 16
  call void @llvm.va_copy.p0(ptr %ap, ptr %src)
  call void @keep(ptr %ap)
  call void @llvm.va_end.p0(ptr %ap)
  ret void
}

; CHECK-LABEL: define void @heap(ptr %dst, ptr %src)
; CHECK:       store ptr null, ptr %cs.va_list_ref
; CHECK:       store ptr %dst, ptr %cs.va_list_ref
; CHECK-NEXT:  call void @llvm.va_copy.p0(ptr %dst, ptr %src)
; CHECK:       call void @llvm.va_end.p0(ptr %[[D:.*]])
; CHECK-NEXT:  %[[C:.*]] = load ptr, ptr %cs.va_list_ref
; CHECK:       %[[E:.*]] = icmp eq ptr %[[C]], %dst
; CHECK-NEXT:  %[[N:.*]] = select i1 %[[E]], ptr null, ptr %[[C]]
; CHECK-NEXT:  store ptr %[[N]], ptr %cs.va_list_ref
define void @heap(ptr %dst, ptr %src) {
  call void @llvm.va_copy.p0(ptr %dst, ptr %src)
  call void @keep(ptr null)
  call void @llvm.va_end.p0(ptr %dst)
  ret void
}

; A va_list that stays a stack object needs no slot; libc's va_list
; consumers keep nothing.
; CHECK-NOT: remark: {{.*}}'local'
; CHECK-LABEL: define void @local(ptr %f, ptr %fmt, ptr %src)
; CHECK-NOT:   va_list_ref
; CHECK:       ret void
define void @local(ptr %f, ptr %fmt, ptr %src) {
  %ap = alloca [1 x %struct.__va_list_tag], align 16
  call void @llvm.va_copy.p0(ptr %ap, ptr %src)
  %r = call i32 @vfprintf(ptr %f, ptr %fmt, ptr %ap)
  call void @llvm.va_end.p0(ptr %ap)
  ret void
}
