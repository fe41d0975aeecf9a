; A loop that calls nothing never reaches a prologue check: its back edge
; polls the split-stack limit (%fs:0x70) for the preemption request, with
; one compare and a branch (an asm goto), and calls the runtime's stub,
; rarely, when it is there. The stub keeps every
; register but %r11 (preserve_most): the loop keeps its registers.
; In a function that calls nothing else and has no floating-point or vector
; value, the stub's call is inside the poll's asm: the function stays a leaf.
; RUN: %opt -passes=copystack -copystack-loop-polls=1 -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare void @after(i64)

; CHECK-LABEL: define i64 @sum_then_call(
; CHECK:       loop:
; CHECK:       callbr void asm sideeffect "cmpq $$-2, %fs:0x70\0A\09je ${0:l}", "!i,{{.*}}"()
; CHECK-NEXT:  to label %loop.polled [label %cs.preempt]
; CHECK:       cs.preempt:
; CHECK-NEXT:  call preserve_mostcc void @__copystack_preempt() #[[COLD:[0-9]+]]
; CHECK-NEXT:  br label %loop.polled
; CHECK:       loop.polled:
; CHECK-NEXT:  br i1 %done, label %exit, label %loop
define i64 @sum_then_call(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %q = getelementptr i64, ptr %p, i64 %i
  %v = load i64, ptr %q
  %s.next = add i64 %s, %v
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  call void @after(i64 %s.next)
  ret i64 %s.next
}

; A leaf: the poll and the stub's call in one asm, no red zone, no frame
; pointer.
; CHECK-LABEL: define i64 @sum(
; CHECK-SAME:  #[[LEAF:[0-9]+]]
; CHECK:       loop:
; CHECK:       call void asm sideeffect "cmpq $$-2, %fs:0x70\0A\09jne 1f\0A\09call *__copystack_preempt@GOTPCREL(%rip)\0A1:", "~{r11},~{memory},~{xmm0},{{.*}},~{xmm15},~{dirflag},~{fpsr},~{flags}"(), !copystack.leafpoll
; CHECK-NEXT:  br i1 %done, label %exit, label %loop
; CHECK-NOT:   cs.preempt
define i64 @sum(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %q = getelementptr i64, ptr %p, i64 %i
  %v = load i64, ptr %q
  %s.next = add i64 %s, %v
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %s.next
}

; A leaf with a floating-point value: the stub keeps no vector register,
; so the call stays one the backend sees (and keeps the sum around).
; CHECK-LABEL: define double @fsum(
; CHECK:       callbr void asm sideeffect "cmpq $$-2, %fs:0x70\0A\09je ${0:l}"
; CHECK:       call preserve_mostcc void @__copystack_preempt()
define double @fsum(ptr %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %q = getelementptr double, ptr %p, i64 %i
  %v = load double, ptr %q
  %s.next = fadd double %s, %v
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}
; CHECK: declare preserve_mostcc void @__copystack_preempt() #[[A:[0-9]+]]
; CHECK: attributes #[[LEAF]] = { {{.*}}noredzone{{.*}}"frame-pointer"="none"{{.*}} }
; CHECK: attributes #[[A]] = { {{.*}}nounwind{{.*}} }
; CHECK: attributes #[[COLD]] = { cold nounwind }

; In the machine code the poll is one compare of the word with the request
; and a branch, out of line, to the call.
; RUN: %opt -passes=copystack -copystack-loop-polls=1 %s | %llc -O2 -o - | FileCheck %s --check-prefix=ASM
; ASM-LABEL: sum_then_call:
; ASM:       addq (%rdi), %r{{[a-z0-9]+}}
; ASM-NEXT:  #APP
; ASM-NEXT:  cmpq $-2, %fs:112
; ASM-NEXT:  je .LBB0_[[P:[0-9]+]]
; ASM-NEXT:  #NO_APP
; ASM:       .LBB0_[[P]]:
; ASM:       callq *%r{{[a-z0-9]+}}

; The leaf: no frame pointer, no frame, no prologue check.
; ASM-LABEL: sum:
; ASM-NOT:   %rbp
; ASM-NOT:   %fs:112, %rsp
; ASM:       cmpq $-2, %fs:112
; ASM-NEXT:  jne
; ASM-NEXT:  callq *__copystack_preempt@GOTPCREL(%rip)
; ASM-NOT:   %rbp
; ASM:       retq
