; A module with nothing instrumented needs no runtime and refers to none.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK-NOT: __copystack_runtime_missing
define void @f() #0 {
  ret void
}

attributes #0 = { "copystack-nosplit" }
