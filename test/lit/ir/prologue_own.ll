; The own prologue (-copystack-prologue=own, docs/abi.md): a function that
; makes a call LLVM sees gets the pass's check, one asm at the start of the
; entry block, and no "split-stack"; one whose only call is what the
; backend may or may not lower to one (frem here) keeps LLVM's
; split-stack prologue; one that calls nothing gets no check. Every one
; names the stack probe for frames of 208 bytes and more. (The checks
; left out where every callee checks: prologue_own_elided.ll.)
; RUN: %opt -passes=copystack -copystack-prologue=own -copystack-elide-checks=0 %s -S | FileCheck %s
; Through llc: shrink-wrapping leaves the early return without a frame and
; the check before it; a big frame calls the probe with its size in %eax,
; then takes it.
; RUN: %opt -passes=copystack -copystack-prologue=own -copystack-elide-checks=0 %s | %llc -O2 -o - | FileCheck %s --check-prefix=ASM
target triple = "x86_64-pc-linux-gnu"

declare void @g(ptr nocapture)

; CHECK-LABEL: define void @calls(
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp\0A\09ja 1f\0A\09movq $$-1, %r10\0A\09movl $$0, %r11d\0A\09callq __morestack\0A\09retq\0A1:", "~{r10},~{r11},~{xmm8},{{.*}}~{xmm15},~{st},~{st(1)},{{.*}}~{st(7)},~{dirflag},~{fpsr},~{flags}"()
; ASM-LABEL: calls:
; ASM-NEXT: .cfi_startproc
; ASM-NEXT: # %bb.0:
; ASM-NEXT: #APP
; ASM-NEXT: cmpq %fs:112, %rsp
; ASM: #NO_APP
; ASM-NEXT: testl %edi, %edi
; ASM-NEXT: js
; ASM: pushq %rax
; ASM: callq __copystack_dispatch.g
define void @calls(i32 %n) {
  %neg = icmp slt i32 %n, 0
  br i1 %neg, label %out, label %work
work:
  call void @g(ptr null)
  br label %out
out:
  ret void
}

; Stack arguments: the check's %r11 is their size, as LLVM's prologue's.
; CHECK-LABEL: define void @stack_args(
; CHECK: movl $$16, %r11d
define void @stack_args(i64 %a, i64 %b, i64 %c, i64 %d, i64 %e, i64 %f, i64 %g7, i64 %h8) {
  call void @g(ptr null)
  ret void
}

; CHECK-LABEL: define i32 @big(
; CHECK-NOT: split-stack
; ASM-LABEL: big:
; ASM: movl $1{{[0-9]+}}, %eax
; ASM-NEXT: callq __copystack_stack_probe
; ASM-NEXT: subq %rax, %rsp
define i32 @big(i32 %i) {
  %a = alloca [300 x i32]
  call void @g(ptr %a)
  %p = getelementptr [300 x i32], ptr %a, i32 0, i32 %i
  %v = load i32, ptr %p
  ret i32 %v
}

; CHECK-LABEL: define i32 @leaf(
; CHECK-NOT: asm
; CHECK: ret i32
define i32 @leaf(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}

; frem is a call of fmod that the backend makes: LLVM's prologue.
; CHECK-LABEL: define double @maybe_call(
; CHECK-NOT: asm sideeffect "cmpq
; CHECK: ret double
define double @maybe_call(double %x, double %y) {
  %r = frem double %x, %y
  ret double %r
}

; CHECK: attributes #{{[0-9]+}} = { {{.*}}"probe-stack"="__copystack_stack_probe" "stack-probe-size"="208"
; CHECK-NOT: "split-stack"
; CHECK: attributes #{{[0-9]+}} = { {{.*}}"probe-stack"="__copystack_stack_probe" "split-stack" "stack-probe-size"="208"
