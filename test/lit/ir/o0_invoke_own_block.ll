; At -O0 (optnone) a call that may move the stack ends its block: FastISel
; hands a block ending in an invoke (or holding anything else it cannot
; select) to SelectionDAG, which would compute a local's address once for
; both calls and keep it in a register across the first.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @__gxx_personality_v0(...)

; Instrumented and recursive: a call to it may move the stack.
define internal void @use(ptr %p) {
  call void @use(ptr %p)
  ret void
}

; CHECK-LABEL: define void @f()
; CHECK:       call void @use(ptr %c)
; CHECK-NEXT:  br label %[[OWN:.*]]
; CHECK:       [[OWN]]:
; CHECK-NEXT:  invoke void @use(ptr %c)
define void @f() noinline optnone personality ptr @__gxx_personality_v0 {
entry:
  %c = alloca i64
  call void @use(ptr %c)
  invoke void @use(ptr %c) to label %done unwind label %lpad
done:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}
