; When the safepoint is an invoke and the use is a phi on its normal edge,
; the reload goes on that edge, after the invoke.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @__gxx_personality_v0(...)

define internal void @may_throw() {
  ret void
}

; CHECK-LABEL: define ptr @f(ptr %p, i1 %c)
; CHECK:       invoke void @may_throw()
; CHECK-NEXT:    to label %[[EDGE:.*]] unwind label %lpad
; CHECK:       [[EDGE]]:
; CHECK-NEXT:  %p.cs.reload = load ptr, ptr %p.cs.slot
; CHECK:       phi ptr [ %p.cs.reload, %[[EDGE]] ], [ null, %other ]
define ptr @f(ptr %p, i1 %c) personality ptr @__gxx_personality_v0 {
entry:
  br i1 %c, label %call, label %other
call:
  invoke void @may_throw() to label %join unwind label %lpad
other:
  br label %join
join:
  %r = phi ptr [ %p, %call ], [ null, %other ]
  ret ptr %r
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}
