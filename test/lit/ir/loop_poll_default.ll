; By default loops get no poll: the runtime's signal stops a task at any
; instruction (runtime/src/sched/preempt_signal.h). A function built with
; ThreadSanitizer, where the runtime sends no signal, still polls;
; -copystack-loop-polls=0 takes its polls away too, =1 gives every function
; polls (copystack-cc's --copystack-preempt=signal|polls).
; RUN: %opt -passes=copystack -S %s | FileCheck %s --check-prefix=DEFAULT
; RUN: %opt -passes=copystack -copystack-loop-polls=0 -S %s | FileCheck %s --check-prefix=NONE
; RUN: %opt -passes=copystack -copystack-loop-polls=1 -S %s | FileCheck %s --check-prefix=ALL
target triple = "x86_64-pc-linux-gnu"

declare void @after(i64)

; DEFAULT-LABEL: define i64 @plain(
; DEFAULT-NOT:   cmpq $$-2, %fs:0x70
; DEFAULT-LABEL: define i64 @tsan(
; DEFAULT:       callbr void asm sideeffect "cmpq $$-2, %fs:0x70
; NONE-NOT:      cmpq $$-2, %fs:0x70
; ALL-LABEL:     define i64 @plain(
; ALL:           callbr void asm sideeffect "cmpq $$-2, %fs:0x70
; ALL-LABEL:     define i64 @tsan(
; ALL:           callbr void asm sideeffect "cmpq $$-2, %fs:0x70
define i64 @plain(ptr %p, i64 %n) {
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

define i64 @tsan(ptr %p, i64 %n) sanitize_thread {
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
