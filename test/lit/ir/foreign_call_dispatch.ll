; A call to a function only declared here may reach foreign code: it tests
; the callee's magic at run time, calls instrumented code directly and
; foreign code through the system stack. A call whose arguments and result
; all travel in registers goes through the trampoline as it stands, the
; target in a nest argument (%r10); one that passes anything in memory
; stores its arguments in a frame for a thunk that makes the call.
; The call is made so at the call site with the dispatch stubs off, and in
; the stub otherwise (dispatch_stubs.ll).
; RUN: %opt -passes=copystack -copystack-dispatch-stubs=0 -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @ext(ptr, i32)
declare double @ext_ld(ptr, x86_fp80)
declare x86_fp80 @ext_ret_ld(ptr)
declare i64 @ext7(i64, i64, i64, i64, i64, i64, i64)
declare { i64, double } @ext_pair(ptr)

; CHECK-LABEL: define i32 @f(ptr %p)
; CHECK:       %[[W:.*]] = load i64, ptr getelementptr (i8, ptr @ext, i64 -16), align 1
; CHECK:       icmp eq i64 %[[W]], 7737593674106692459
; CHECK:       %[[R1:.*]] = call i32 @ext(ptr %p, i32 7)
; CHECK-NOT:   store
; CHECK:       %[[R2:.*]] = call i32 @__copystack_foreign_call_r10(ptr nest @ext, ptr %p, i32 7)
; CHECK:       phi i32 [ %[[R1]], %{{.*}} ], [ %[[R2]], %{{.*}} ]
define i32 @f(ptr %p) {
  %r = call i32 @ext(ptr %p, i32 7)
  ret i32 %r
}

; Two results, in %rax and %xmm0: registers too.
; CHECK-LABEL: define { i64, double } @pair(ptr %p)
; CHECK:       call { i64, double } @__copystack_foreign_call_r10(ptr nest @ext_pair, ptr %p)
define { i64, double } @pair(ptr %p) {
  %r = call { i64, double } @ext_pair(ptr %p)
  ret { i64, double } %r
}

; A long double argument is passed on the stack: a thunk.
; CHECK-LABEL: define double @ld_arg(ptr %p, x86_fp80 %x)
; CHECK:       call double @ext_ld(ptr %p, x86_fp80 %x)
; CHECK:       store ptr %p, ptr
; CHECK:       store x86_fp80 %x, ptr
; CHECK:       call void @__copystack_foreign_call_r10(ptr nest @__copystack.thunk.{{[0-9]+}}.ext_ld, ptr %foreign.frame)
; CHECK:       load double, ptr
define double @ld_arg(ptr %p, x86_fp80 %x) {
  %r = call double @ext_ld(ptr %p, x86_fp80 %x)
  ret double %r
}

; A long double result comes back in %st0: a thunk.
; CHECK-LABEL: define x86_fp80 @ld_ret(ptr %p)
; CHECK:       call void @__copystack_foreign_call_r10(ptr nest @__copystack.thunk.{{[0-9]+}}.ext_ret_ld, ptr %foreign.frame)
; CHECK:       load x86_fp80, ptr
define x86_fp80 @ld_ret(ptr %p) {
  %r = call x86_fp80 @ext_ret_ld(ptr %p)
  ret x86_fp80 %r
}

; A seventh integer argument is passed on the stack: a thunk.
; CHECK-LABEL: define i64 @seven(i64 %a)
; CHECK:       call void @__copystack_foreign_call_r10(ptr nest @__copystack.thunk.{{[0-9]+}}.ext7, ptr %foreign.frame)
define i64 @seven(i64 %a) {
  %r = call i64 @ext7(i64 %a, i64 %a, i64 %a, i64 %a, i64 %a, i64 %a, i64 %a)
  ret i64 %r
}

declare i32 @__gxx_personality_v0(...)

; An invoke: both calls unwind to the landing pad.
; CHECK-LABEL: define i32 @inv(ptr %p)
; CHECK:       invoke i32 @ext(ptr %p, i32 1)
; CHECK-NEXT:  to label %{{.*}} unwind label %lp
; CHECK:       %[[I:.*]] = invoke i32 @__copystack_foreign_call_r10(ptr nest @ext, ptr %p, i32 1)
; CHECK-NEXT:  to label %{{.*}} unwind label %lp
define i32 @inv(ptr %p) personality ptr @__gxx_personality_v0 {
  %r = invoke i32 @ext(ptr %p, i32 1) to label %ok unwind label %lp
ok:
  ret i32 %r
lp:
  %l = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %l
}

; CHECK-LABEL: define internal void @__copystack.thunk.{{[0-9]+}}.ext_ld(ptr %0)
; CHECK:       %[[A:.*]] = load ptr, ptr
; CHECK:       %[[B:.*]] = load x86_fp80, ptr
; CHECK:       %[[C:.*]] = call double @ext_ld(ptr %[[A]], x86_fp80 %[[B]])
; CHECK:       store double %[[C]], ptr
