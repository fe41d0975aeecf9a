; The sanitizers' checks do not make locals leave the copyable stack.
; UBSan's alignment and pointer-overflow checks turn an address (or a
; pointer loaded from a local) into an integer, compare it, and pass it to a
; report handler that prints it; its null checks compare a loaded pointer
; with null. TSan passes the address of every access to a hook that records
; it. None of these hands the address to anyone (EscapeAnalysis.cpp,
; Sanitizers.h).
; RUN: %opt -passes=copystack -S %s | FileCheck %s
; RUN: %opt -passes=copystack -pass-remarks='^copystack$' -disable-output %s 2>&1 | FileCheck %s --allow-empty --check-prefix=REMARK --implicit-check-not="moved off"
; REMARK-NOT: remark
target triple = "x86_64-pc-linux-gnu"

@data = private constant [8 x i8] zeroinitializer
declare void @__ubsan_handle_type_mismatch_v1_abort(ptr, i64)
declare void @__ubsan_handle_pointer_overflow_abort(ptr, i64, i64)
declare void @__tsan_write4(ptr)
declare void @__tsan_read8(ptr)
declare void @__tsan_read1(ptr)
declare i32 @__tsan_atomic32_load(ptr, i32)

; CHECK-LABEL: define i32 @f(i64 %i)
; CHECK:       %anchor = alloca i32
; CHECK:       %p = alloca ptr
define i32 @f(i64 %i) {
  %anchor = alloca i32
  %p = alloca ptr
  store i32 42, ptr %anchor
  store volatile ptr %anchor, ptr %p
  ; -O0's pointer-overflow check on &p + i
  %q = getelementptr inbounds i8, ptr %p, i64 %i
  %pi = ptrtoint ptr %p to i64
  %end = add i64 %pi, %i
  %nn = icmp ne ptr %p, null
  %ok = icmp uge i64 %end, %pi
  %both = and i1 %nn, %ok
  br i1 %both, label %load, label %overflow
overflow:
  call void @__ubsan_handle_pointer_overflow_abort(ptr @data, i64 %pi, i64 %end)
  unreachable
load:
  %b = load volatile i8, ptr %q
  ; the alignment and null check of *p
  %v = load volatile ptr, ptr %p
  %vnn = icmp ne ptr %v, null
  %vi = ptrtoint ptr %v to i64
  %low = and i64 %vi, 3
  %al = icmp eq i64 %low, 0
  %good = and i1 %vnn, %al
  br i1 %good, label %use, label %bad
bad:
  call void @__ubsan_handle_type_mismatch_v1_abort(ptr @data, i64 %vi)
  unreachable
use:
  %r = load i32, ptr %v
  ret i32 %r
}

; CHECK-LABEL: define i32 @g(i64 %i)
; CHECK:       %x = alloca i32
; CHECK:       %q = alloca ptr
define i32 @g(i64 %i) {
  %x = alloca i32
  %q = alloca ptr
  call void @__tsan_write4(ptr %x)
  store i32 7, ptr %x
  store ptr %x, ptr %q
  call void @__tsan_read8(ptr %q)
  %p = load ptr, ptr %q
  %b = getelementptr inbounds i8, ptr %q, i64 %i
  call void @__tsan_read1(ptr %b)
  %a = call i32 @__tsan_atomic32_load(ptr %p, i32 5)
  ret i32 %a
}

; TSan and ASan call their own memset, memcpy and memmove in place of the
; C library's (and of the intrinsics): they keep neither address, as the C
; library's do not.
declare ptr @__tsan_memset(ptr, i32, i64)
declare ptr @__tsan_memcpy(ptr, ptr, i64)
declare ptr @__asan_memmove(ptr, ptr, i64)
declare void @use(ptr)

; CHECK-LABEL: define void @h(ptr %src)
; CHECK:       %big = alloca [6000 x i8]
; CHECK:       %copy = alloca [64 x i8]
define void @h(ptr %src) {
  %big = alloca [6000 x i8]
  %copy = alloca [64 x i8]
  call ptr @__tsan_memset(ptr %big, i32 1, i64 6000)
  call ptr @__tsan_memcpy(ptr %copy, ptr %big, i64 64)
  call ptr @__asan_memmove(ptr %copy, ptr %src, i64 64)
  %v = load i8, ptr %copy
  call void @use(ptr %src)
  ret void
}
