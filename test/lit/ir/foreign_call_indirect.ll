; An indirect call dispatches on the callee's prefix too. Through the
; trampoline the target is the nest argument; a thunk, when the call passes
; anything in memory, takes the callee from the frame. The direct call is
; the likely path (laid out as the fall-through).
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-LABEL: define void @f(ptr %fn)
; CHECK:       getelementptr i8, ptr %fn, i64 -16
; CHECK:       %[[I:.*]] = icmp eq i64 %prefix, 7737593674106692459
; CHECK-NEXT:  br i1 %[[I]], label %{{.*}}, label %{{.*}}, !prof ![[LIKELY:[0-9]+]]
; CHECK:       call void %fn(i32 1)
; CHECK:       {{^  }}call void @__copystack_foreign_call_r10(ptr nest %fn, i32 1)
define void @f(ptr %fn) {
  call void %fn(i32 1)
  ret void
}

; CHECK-LABEL: define void @g(ptr %fn, x86_fp80 %x)
; CHECK:       getelementptr i8, ptr %fn, i64 -16
; CHECK:       call void %fn(x86_fp80 %x)
; CHECK:       store ptr %fn, ptr
; CHECK:       call void @__copystack_foreign_call_r10(ptr nest @__copystack.thunk.0,
define void @g(ptr %fn, x86_fp80 %x) {
  call void %fn(x86_fp80 %x)
  ret void
}
; A tail call stays one through the trampoline, so that the backend can
; jump to it and the function keeps no frame for its foreign path; a call
; that was not one does not become one (@f above).
; CHECK-LABEL: define i32 @h(ptr %fn, i32 %x)
; CHECK:       %[[D:.*]] = tail call i32 %fn(i32 %x)
; CHECK:       %[[F:.*]] = tail call i32 @__copystack_foreign_call_r10(ptr nest %fn, i32 %x)
define i32 @h(ptr %fn, i32 %x) {
  %r = tail call i32 %fn(i32 %x)
  ret i32 %r
}

; CHECK-LABEL: define internal void @__copystack.thunk.0(ptr %0)
; CHECK:       %[[T:.*]] = load ptr, ptr
; CHECK:       call void %[[T]](x86_fp80

; CHECK: ![[LIKELY]] = !{!"branch_weights", i32 {{[0-9]+}}, i32 1}
