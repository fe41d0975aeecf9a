; Every landing pad starts by re-establishing the task's stack limit: an
; exception thrown by foreign code unwinds into it with the limit still 0.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @__gxx_personality_v0(...)
declare void @ext()

; CHECK:      %lp = landingpad { ptr, i32 }
; CHECK-NEXT:   cleanup
; CHECK-NEXT: call void @__copystack_landing_pad()
define void @f() personality ptr @__gxx_personality_v0 {
entry:
  invoke void @ext() to label %ok unwind label %lpad
ok:
  ret void
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}
