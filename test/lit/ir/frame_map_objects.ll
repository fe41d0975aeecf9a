; The frame map describes every stack object word by word: pointer fields
; by their type, integers as known non-pointers, and objects a callee may
; write anything into as scanned whole.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

define internal void @fill(ptr %p) {
  ret void
}

; Objects: {ptr, i64, ptr} (bitmap 0b101 = 5), i64 (no pointers), a byte
; buffer passed to a call (all words).
; CHECK: @f.copystack.objects = private constant [3 x { i32, i32, i32, i16, i16 }] [{ i32, i32, i32, i16, i16 } { i32 0, i32 24, i32 0, i16 1, i16 1 }, { i32, i32, i32, i16, i16 } { i32 0, i32 8, i32 0, i16 3, i16 1 }, { i32, i32, i32, i16, i16 } { i32 0, i32 16, i32 0, i16 2, i16 1 }]
; CHECK: @f.copystack.bitmaps = private constant [1 x i64] [i64 5]
; The map is read-only: name, resolver, objects and bitmaps by offsets from
; the map's own fields 2 to 5 (abi.h), then the counts.
; CHECK: @f.copystack.map = internal constant {{.*}} { i32 5, i32 0, i32 trunc (i64 sub (i64 ptrtoint (ptr @f.copystack.name to i64), i64 ptrtoint (ptr getelementptr inbounds ({{.*}}, ptr @f.copystack.map, i32 0, i32 2) to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @f.copystack.resolve to i64), i64 ptrtoint (ptr getelementptr inbounds ({{.*}}, ptr @f.copystack.map, i32 0, i32 3) to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @f.copystack.objects to i64), i64 ptrtoint (ptr getelementptr inbounds ({{.*}}, ptr @f.copystack.map, i32 0, i32 4) to i64)) to i32), i32 trunc (i64 sub (i64 ptrtoint (ptr @f.copystack.bitmaps to i64), i64 ptrtoint (ptr getelementptr inbounds ({{.*}}, ptr @f.copystack.map, i32 0, i32 5) to i64)) to i32), i32 3, i32 3, i32 0, i32 0 }
define void @f() {
  %s = alloca { ptr, i64, ptr }
  %n = alloca i64
  %buf = alloca [16 x i8]
  store i64 1, ptr %n
  call void @fill(ptr %buf)
  ret void
}
