; A loop that calls nothing never reaches a prologue check: its back edge
; polls the split-stack limit (%fs:0x70) for the preemption request, with
; one compare and a branch (an asm goto), and calls the runtime's stub,
; rarely, when it is there. The stub keeps every
; register but %r11 (preserve_most): the loop keeps its registers.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-LABEL: define i64 @sum(
; CHECK:       loop:
; CHECK:       callbr void asm sideeffect "cmpq $$-2, %fs:0x70\0A\09je ${0:l}", "!i,{{.*}}"()
; CHECK-NEXT:  to label %loop.polled [label %cs.preempt]
; CHECK:       cs.preempt:
; CHECK-NEXT:  call preserve_mostcc void @__copystack_preempt() #[[COLD:[0-9]+]]
; CHECK-NEXT:  br label %loop.polled
; CHECK:       loop.polled:
; CHECK-NEXT:  br i1 %done, label %exit, label %loop
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
; CHECK: declare preserve_mostcc void @__copystack_preempt() #[[A:[0-9]+]]
; CHECK: attributes #[[A]] = { {{.*}}nounwind{{.*}} }
; CHECK: attributes #[[COLD]] = { cold nounwind }

; In the machine code the poll is one compare of the word with the request
; and a branch, out of line, to the call.
; RUN: %opt -passes=copystack %s | %llc -O2 -o - | FileCheck %s --check-prefix=ASM
; ASM-LABEL: sum:
; ASM:       addq (%rdi), %rax
; ASM-NEXT:  #APP
; ASM-NEXT:  cmpq $-2, %fs:112
; ASM-NEXT:  je .LBB0_[[P:[0-9]+]]
; ASM-NEXT:  #NO_APP
; ASM:       .LBB0_[[P]]:
; ASM:       callq *%rcx
