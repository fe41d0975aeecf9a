; A call to a function only declared here may reach foreign code: it tests
; the callee's magic at run time, calls instrumented code directly and
; foreign code through the system stack, via a thunk that makes the call.
; The call is made so at the call site with the dispatch stubs off, and in
; the stub otherwise (dispatch_stubs.ll).
; RUN: %opt -passes=copystack -copystack-dispatch-stubs=0 -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @ext(ptr, i32)

; CHECK-LABEL: define i32 @f(ptr %p)
; CHECK:       %[[W:.*]] = load i64, ptr getelementptr (i8, ptr @ext, i64 -16), align 1
; CHECK:       icmp eq i64 %[[W]], 7737593674106692459
; CHECK:       %[[R1:.*]] = call i32 @ext(ptr %p, i32 7)
; CHECK:       store ptr %p, ptr
; CHECK:       store i32 7, ptr
; CHECK:       call void @__copystack_foreign_call(ptr @__copystack.thunk.0.ext, ptr %foreign.frame)
; CHECK:       %[[R2:.*]] = load i32, ptr
; CHECK:       phi i32 [ %[[R1]], %{{.*}} ], [ %[[R2]], %{{.*}} ]
define i32 @f(ptr %p) {
  %r = call i32 @ext(ptr %p, i32 7)
  ret i32 %r
}

; CHECK-LABEL: define internal void @__copystack.thunk.0.ext(ptr %0)
; CHECK:       %[[A:.*]] = load ptr, ptr
; CHECK:       %[[B:.*]] = load i32, ptr
; CHECK:       %[[C:.*]] = call i32 @ext(ptr %[[A]], i32 %[[B]])
; CHECK:       store i32 %[[C]], ptr
