; Calls to functions other objects define go through a weak, hidden stub
; in its own COMDAT group, which makes the call with the run-time test
; (foreign_call_dispatch.ll); every instrumented definition that binds
; locally gets a hidden alias of that name, which the linker prefers to the
; stubs of other objects. Variadic callees and calls through another type
; keep the test at the call site.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
; RUN: %opt -passes=copystack -copystack-dispatch-stubs=0 -S %s | FileCheck %s --check-prefix=OFF
target triple = "x86_64-pc-linux-gnu"

declare i32 @ext(ptr, i32)
declare i32 @vari(ptr, ...)
declare noalias ptr @alloc(i64)

; CHECK: $__copystack_dispatch.ext = comdat any
; CHECK: @__copystack_dispatch.mine = hidden alias i32 (ptr, i32), ptr @mine
; CHECK-NOT: @__copystack_dispatch.local = {{.*}}alias
; CHECK-NOT: @__copystack_dispatch.weakdef = {{.*}}alias

; CHECK-LABEL: define i32 @f(ptr %p)
; CHECK-NOT:   load i64, ptr getelementptr (i8, ptr @ext
; CHECK:       %r = call i32 @__copystack_dispatch.ext(ptr %p, i32 7)
; CHECK:       call ptr @__copystack_dispatch.alloc(i64 8)
; CHECK:       load i64, ptr getelementptr (i8, ptr @vari, i64 -16)
; CHECK:       call i32 (ptr, ...) @vari(ptr %p, i32 1)
; CHECK:       load i64, ptr getelementptr (i8, ptr @ext, i64 -16)
; CHECK:       call i64 @ext(ptr %p)
; OFF-LABEL:   define i32 @f(ptr %p)
; OFF:         load i64, ptr getelementptr (i8, ptr @ext, i64 -16)
; OFF-NOT:     __copystack_dispatch
define i32 @f(ptr %p) {
  %r = call i32 @ext(ptr %p, i32 7)
  %a = call ptr @alloc(i64 8)
  store ptr %a, ptr %p
  %v = call i32 (ptr, ...) @vari(ptr %p, i32 1)
  %m = call i64 @ext(ptr %p)
  %s = add i32 %r, %v
  ret i32 %s
}

define dso_local i32 @mine(ptr %p, i32 %x) {
  ret i32 %x
}

define internal i32 @local(i32 %x) {
  ret i32 %x
}

define weak i32 @weakdef(i32 %x) {
  %y = call i32 @local(i32 %x)
  ret i32 %y
}

; The stub: the callee's promises about arguments and result, none about
; memory; its call tests the prefix as any dispatched call does, and is a
; tail call on both paths, so that the stub keeps no frame.
; CHECK-LABEL: define weak hidden i32 @__copystack_dispatch.ext(ptr %0, i32 %1)
; CHECK-SAME:  comdat
; CHECK:       load i64, ptr getelementptr (i8, ptr @ext, i64 -16)
; CHECK:       tail call i32 @ext(ptr %0, i32 %1)
; CHECK:       tail call i32 @__copystack_foreign_call_r10(ptr nest @ext, ptr %0, i32 %1)
; CHECK-LABEL: define weak hidden noalias ptr @__copystack_dispatch.alloc(i64 %0)
