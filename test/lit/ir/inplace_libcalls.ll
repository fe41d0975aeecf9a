; memcpy, strlen and their kin run in place on the task stack, bound at load
; time like every callee of instrumented code (nonlazybind, RtLibUseGOT): a
; lazy PLT resolver would run on the task stack.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
; RUN: %opt -passes=copystack -S %s | FileCheck %s --check-prefix=DECL
target triple = "x86_64-pc-linux-gnu"

declare i64 @strlen(ptr)
declare ptr @getenv(ptr)

; CHECK-LABEL: define i64 @f(ptr %s)
; CHECK:       %n = call i64 @strlen(ptr %s)
; CHECK-NEXT:  call ptr @__copystack_dispatch.getenv(ptr %s)
define i64 @f(ptr %s) {
  %n = call i64 @strlen(ptr %s)
  %e = call ptr @getenv(ptr %s)
  ret i64 %n
}
; DECL: declare i64 @strlen(ptr nocapture) #[[NLB:[0-9]+]]
; DECL: attributes #[[NLB]] = { {{.*}}nonlazybind{{.*}} }
; DECL: !{i32 7, !"RtLibUseGOT", i32 1}
