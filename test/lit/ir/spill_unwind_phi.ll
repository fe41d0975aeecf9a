; A phi in a landing pad with several predecessors, taking a pointer across
; an invoke's unwind edge: the edge cannot be split, so the phi goes through
; a slot the frame map describes, stored before each invoke, loaded in the pad.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @__gxx_personality_v0(...)

define internal void @may_throw() {
  ret void
}

; CHECK-LABEL: define void @f(ptr %p)
; CHECK:       store ptr null, ptr %q.cs.phislot
; CHECK-NEXT:  invoke void @may_throw()
; CHECK:       store ptr %p{{.*}}, ptr %q.cs.phislot
; CHECK-NEXT:  invoke void @may_throw()
; CHECK:       lpad:
; CHECK-NOT:   phi
; CHECK:       landingpad
; CHECK:       %q = load ptr, ptr %q.cs.phislot
; CHECK-NOT:   cleanuppad
define void @f(ptr %p) personality ptr @__gxx_personality_v0 {
entry:
  invoke void @may_throw() to label %second unwind label %lpad
second:
  invoke void @may_throw() to label %done unwind label %lpad
done:
  ret void
lpad:
  %q = phi ptr [ null, %entry ], [ %p, %second ]
  %lp = landingpad { ptr, i32 } cleanup
  call void @use(ptr %q)
  resume { ptr, i32 } %lp
}

declare void @use(ptr)
