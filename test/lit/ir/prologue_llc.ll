; Through llc: the magic sits 16 bytes before the entry, then the
; sanitizers' word (int3 filler here), and the entry compares %rsp with the
; split-stack limit at %fs:0x70 (112). The frame map is read-only data that
; refers to its parts by offsets the assembler and linker fix, in PIC too:
; no dynamic relocation.
; RUN: %opt -passes=copystack %s | %llc -O2 -o - | FileCheck %s
; RUN: %opt -passes=copystack %s | %llc -O2 -relocation-model=pic -o - | FileCheck %s --check-prefix=MAP
target triple = "x86_64-pc-linux-gnu"

declare void @g(ptr nocapture)

; CHECK:      .long	f.copystack.map-f
; CHECK-NEXT: .long	5
; CHECK-NEXT: .quad	7737593674106692459
; CHECK-NEXT: .quad	-3689348814741910324
; CHECK-NEXT: f:
; CHECK:      cmpq	%fs:112, %rsp
; CHECK:      callq	__morestack
; CHECK-NEXT: retq
; MAP:      .type f.copystack.map,@object
; MAP-NEXT: .section .rodata,"a",@progbits
; MAP-NEXT: .p2align 2
; MAP-NEXT: f.copystack.map:
; MAP-NEXT: .long 5
; MAP-NEXT: .long 0
; MAP-NEXT: .long (.Lf.copystack.name-f.copystack.map)-8
; MAP-NEXT: .long (f.copystack.resolve-f.copystack.map)-12
; MAP-NEXT: .long (.Lf.copystack.objects-f.copystack.map)-16
; MAP-NEXT: .long 0
define void @f() {
  %a = alloca [4 x i32]
  call void @g(ptr %a)
  ret void
}
