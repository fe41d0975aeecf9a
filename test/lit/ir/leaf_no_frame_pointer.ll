; A function that calls nothing keeps no frame pointer and is never walked
; (frames are walked from call sites), so a leaf that needs no stack has no
; frame and no prologue check. Whatever the backend may turn into a call
; keeps the check (the callee may be a routine the program defines,
; instrumented, which can move the stack): a 128-bit division (__udivti3),
; frem (fmod), a memset intrinsic; with no locals in its map, it keeps no
; frame pointer (the runtime walks it by its CFA rule). A function with
; locals keeps a frame pointer (its frame map reads their offsets from
; %rbp; llvm.localescape makes LLVM keep one).
; RUN: %opt -passes=copystack %s | %llc -O2 -o - | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-LABEL: leaf:
; CHECK-NOT:   %fs:112
; CHECK-NOT:   %rbp
; CHECK:       retq
define i32 @leaf(i32 %x) {
  %y = call i32 @llvm.ctpop.i32(i32 %x)
  ret i32 %y
}
declare i32 @llvm.ctpop.i32(i32)

; CHECK-LABEL: div:
; CHECK:       cmpq %fs:112, %rsp
; CHECK-NOT:   %rbp
; CHECK:       callq *__udivti3@GOTPCREL(%rip)
; CHECK:       callq __morestack
define i128 @div(i128 %a, i128 %b) {
  %q = udiv i128 %a, %b
  ret i128 %q
}

; CHECK-LABEL: locals:
; CHECK:       cmpq %fs:112, %r11
; CHECK:       pushq %rbp
; CHECK:       movq %rsp, %rbp
define i32 @locals(i32 %n) {
  %a = alloca [64 x i32]
  %p = getelementptr [64 x i32], ptr %a, i32 0, i32 %n
  store volatile i32 %n, ptr %p
  %q = getelementptr [64 x i32], ptr %a, i32 0, i32 3
  %v = load volatile i32, ptr %q
  ret i32 %v
}

; A memset intrinsic may become a call (here: a variable size), and the
; program may define memset itself, instrumented: a check.
; CHECK-LABEL: fill:
; CHECK:       cmpq %fs:112, %rsp
; CHECK:       memset
define void @fill(ptr %p, i64 %n) {
  call void @llvm.memset.p0.i64(ptr %p, i8 1, i64 %n, i1 false)
  ret void
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)

; So may frem (fmod).
; CHECK-LABEL: rem:
; CHECK:       cmpq %fs:112, %rsp
; CHECK:       fmod
define double @rem(double %a, double %b) {
  %r = frem double %a, %b
  ret double %r
}
