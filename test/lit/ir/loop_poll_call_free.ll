; A loop that calls nothing never reaches a prologue check: its back edge
; polls the split-stack limit (%fs:0x70) for the preemption request and
; calls the runtime's stub, rarely, when it is there. The stub keeps every
; register but %r11 (preserve_most): the loop keeps its registers.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-LABEL: define i64 @sum(
; CHECK:       loop:
; CHECK:       %cs.limit = load volatile i64, ptr addrspace(257) inttoptr (i64 112 to ptr addrspace(257))
; CHECK-NEXT:  %cs.yield = icmp eq i64 %cs.limit, -2
; CHECK-NEXT:  br i1 %cs.yield, label %cs.preempt, label %{{.*}}, !prof
; CHECK:       cs.preempt:
; CHECK-NEXT:  call preserve_mostcc void @__copystack_preempt()
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
