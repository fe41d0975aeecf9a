; Incoming arguments: pointer arguments in registers set bits of gpr_mask
; (doubles take vector registers and leave the integer order alone); the
; rest are argument objects at %rbp + 16 + their offset in the incoming
; area, whose size the map records as LLVM's prologue does in %r11.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; rdi=a rsi=b(i32) rdx=c rcx=d r8=e r9=f(i64): mask 0b011101 = 29.
; Stack: g at +0 (pointer), h at +8 (i32), s byval 24 bytes at +16.
; A one-word pointer is "all words" (kind 2); the byval struct has a bitmap.
; CHECK: @f.copystack.objects = private constant [2 x {{.*}}] [{ i32, i32, i32, i16, i16 } { i32 16, i32 8, i32 0, i16 2, i16 2 }, { i32, i32, i32, i16, i16 } { i32 32, i32 24, i32 0, i16 1, i16 2 }]
; CHECK: @f.copystack.bitmaps = private constant [1 x i64] [i64 1]
; CHECK: @f.copystack.map = {{.*}} i32 2, i32 0, i32 29, i32 40 }
define void @f(ptr %a, i32 %b, double %x, ptr %c, ptr %d, ptr %e, i64 %f,
               ptr %g, i32 %h, ptr byval({ ptr, i64, i64 }) align 8 %s) {
  ret void
}
