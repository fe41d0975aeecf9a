; Through llc: the magic sits 16 bytes before the entry, then the
; sanitizers' word (int3 filler here), and the entry compares %rsp with the
; split-stack limit at %fs:0x70 (112).
; RUN: %opt -passes=copystack %s | %llc -O2 -o - | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare void @g(ptr)

; CHECK:      .long	f.copystack.map-f
; CHECK-NEXT: .long	3
; CHECK-NEXT: .quad	7737593674106692459
; CHECK-NEXT: .quad	-3689348814741910324
; CHECK-NEXT: f:
; CHECK:      cmpq	%fs:112, %rsp
; CHECK:      callq	__morestack
; CHECK-NEXT: retq
define void @f() {
  %a = alloca [4 x i32]
  call void @g(ptr %a)
  ret void
}
