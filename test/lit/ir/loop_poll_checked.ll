; A loop that calls an instrumented function on every iteration is
; preempted at that function's prologue check: no poll. One whose call runs
; only on some iterations polls, and so does one whose call is of a leaf (a
; function that calls nothing may have no check at all).
; RUN: %opt -passes=copystack -copystack-loop-polls=1 -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare void @elsewhere(i64)

; Calls something: a frame pointer, so a frame and a check.
define internal void @work(i64 %i) noinline {
  call void @elsewhere(i64 %i)
  ret void
}

define internal void @leaf(i64 %i) noinline {
  ret void
}

; CHECK-LABEL: define void @every_leaf(
; CHECK:       asm sideeffect "cmpq $$-2
; CHECK:       ret void
define void @every_leaf(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  call void @leaf(i64 %i)
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; CHECK-LABEL: define void @every(
; CHECK-NOT:   __copystack_preempt
; CHECK:       ret void
define void @every(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  call void @work(i64 %i)
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

; CHECK-LABEL: define void @some(
; CHECK:       call preserve_mostcc void @__copystack_preempt()
; CHECK:       ret void
define void @some(i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %latch ]
  %odd = and i64 %i, 1
  %c = icmp eq i64 %odd, 0
  br i1 %c, label %call, label %latch
call:
  call void @work(i64 %i)
  br label %latch
latch:
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
