; An instrumented function gets LLVM's split-stack prologue, frame pointers,
; unwind tables, and the 24-byte prefix: map offset, ABI version, magic,
; and the sanitizers' word, int3 filler without them.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK: define void @f() #[[ATTRS:[0-9]+]] align 16 prefix <{ i32, i32, i64, i64 }> <{ i32 trunc (i64 sub (i64 ptrtoint (ptr @f.copystack.map to i64), i64 ptrtoint (ptr @f to i64)) to i32), i32 4, i64 7737593674106692459, i64 -3689348814741910324 }>
define void @f() {
  ret void
}
; CHECK: attributes #[[ATTRS]] = { nonlazybind uwtable "frame-pointer"="all" "no-realign-stack" "split-stack" }
