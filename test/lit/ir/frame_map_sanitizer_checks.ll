; A sanitizer's check of an access (TSan's __tsan_write8,
; __tsan_volatile_read8...) receives the object's address and neither writes nor
; keeps it: the object is described by the accesses themselves, as without
; the sanitizer. An integer that only holds integers stays "no pointers"
; and is never rewritten at a move (stale_uintptr.c under TSan). TSan's
; atomic hooks stand for the atomic stores they replace: what they store
; counts.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare void @__tsan_write8(ptr)
declare void @__tsan_volatile_read8(ptr)
declare void @__tsan_atomic64_store(ptr, i64, i32)
declare i64 @__tsan_atomic64_load(ptr, i32)

; Kinds: 1 bitmap, 2 all words, 3 no pointers.
; CHECK: @ints.copystack.objects = {{.*}} [{ i32, i32, i32, i16, i16 } { i32 0, i32 8, i32 0, i16 3, i16 1 }, { i32, i32, i32, i16, i16 } { i32 0, i32 16, i32 0, i16 1, i16 1 }]
; CHECK: @ints.copystack.bitmaps = private constant [1 x i64] [i64 2]
define void @ints(ptr %p, i64 %v) {
  %n = alloca i64
  %two = alloca [2 x i64]
  call void @__tsan_write8(ptr %n)
  store volatile i64 %v, ptr %n
  call void @__tsan_volatile_read8(ptr %n)
  %l = load volatile i64, ptr %n
  %w1 = getelementptr i8, ptr %two, i64 8
  call void @__tsan_write8(ptr %w1)
  store ptr %p, ptr %w1
  call void @__tsan_write8(ptr %two)
  store i64 3, ptr %two
  ret void
}

; CHECK: @atomics.copystack.objects = {{.*}} [{ i32, i32, i32, i16, i16 } { i32 0, i32 8, i32 0, i16 2, i16 1 }, { i32, i32, i32, i16, i16 } { i32 0, i32 8, i32 0, i16 3, i16 1 }]
define i64 @atomics(ptr %p) {
  %stored = alloca i64
  %loaded = alloca i64
  %pi = ptrtoint ptr %p to i64
  call void @__tsan_atomic64_store(ptr %stored, i64 %pi, i32 5)
  %v = call i64 @__tsan_atomic64_load(ptr %loaded, i32 5)
  ret i64 %v
}
