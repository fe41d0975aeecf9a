; An innermost loop that calls nothing and has a small constant bound on
; its trips (at most 65,536 instructions a run) needs no poll: it ends soon,
; and the loop around it, if any, polls. Unbounded or long loops poll.
; RUN: %opt -passes=copystack -copystack-loop-polls=1 -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-LABEL: define i64 @fixed(
; CHECK-NOT:   asm sideeffect "cmpq $$-2
; CHECK:       ret i64
define i64 @fixed(ptr %p) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %q = getelementptr i64, ptr %p, i64 %i
  %v = load i64, ptr %q
  %s.next = add i64 %s, %v
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, 16
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %s.next
}

; A bound from the type of the count: an unsigned char.
; CHECK-LABEL: define i64 @byte_count(
; CHECK-NOT:   asm sideeffect "cmpq $$-2
; CHECK:       ret i64
define i64 @byte_count(ptr %p, i8 %n8) {
entry:
  %n = zext i8 %n8 to i64
  %none = icmp eq i64 %n, 0
  br i1 %none, label %exit, label %loop
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
  %r = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  ret i64 %r
}

; A million trips: a poll.
; CHECK-LABEL: define i64 @long(
; CHECK:       asm sideeffect "cmpq $$-2
define i64 @long(ptr %p) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi i64 [ 0, %entry ], [ %s.next, %loop ]
  %q = getelementptr i64, ptr %p, i64 %i
  %v = load i64, ptr %q
  %s.next = add i64 %s, %v
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, 1000000
  br i1 %done, label %exit, label %loop
exit:
  ret i64 %s.next
}

; The inner loop (16 trips) needs none; the outer one (n trips) polls.
; CHECK-LABEL: define i64 @nest(
; CHECK:       inner:
; CHECK-NOT:   asm sideeffect "cmpq $$-2
; CHECK:       outer.latch:
; CHECK:       asm sideeffect "cmpq $$-2
; CHECK-NOT:   asm sideeffect "cmpq $$-2
; CHECK:       ret i64
define i64 @nest(ptr %p, i64 %n) {
entry:
  br label %outer
outer:
  %j = phi i64 [ 0, %entry ], [ %j.next, %outer.latch ]
  %t = phi i64 [ 0, %entry ], [ %s.next, %outer.latch ]
  br label %inner
inner:
  %i = phi i64 [ 0, %outer ], [ %i.next, %inner ]
  %s = phi i64 [ %t, %outer ], [ %s.next, %inner ]
  %q = getelementptr i64, ptr %p, i64 %i
  %v = load i64, ptr %q
  %s.next = add i64 %s, %v
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, 16
  br i1 %done, label %outer.latch, label %inner
outer.latch:
  %j.next = add i64 %j, 1
  %all = icmp eq i64 %j.next, %n
  br i1 %all, label %exit, label %outer
exit:
  ret i64 %s.next
}

; A call in the body that may reach foreign code (which has no check): a
; poll, however few the trips (the call's time is not bounded).
; CHECK-LABEL: define void @calls(
; CHECK:       asm sideeffect "cmpq $$-2
define void @calls(ptr %fp) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  call void %fp()
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, 4
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
