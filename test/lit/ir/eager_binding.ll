; In a shared library, a call to an interposable definition goes through
; the PLT; its lazy resolver would run on the task stack. Such definitions
; are bound at load time like declarations (nonlazybind: calls go through
; the GOT); local and dso_local ones are called directly. (Both call
; nothing: no frame pointer.)
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK: define i32 @interposable(i32 %n) #[[NLB:[0-9]+]]
define i32 @interposable(i32 %n) {
  ret i32 %n
}
; CHECK: define dso_local i32 @bound(i32 %n) #[[PLAIN:[0-9]+]]
define dso_local i32 @bound(i32 %n) {
  ret i32 %n
}
; CHECK-DAG: attributes #[[NLB]] = { nonlazybind uwtable "frame-pointer"="none"{{.*}} }
; CHECK-DAG: attributes #[[PLAIN]] = { uwtable "frame-pointer"="none"{{.*}} }
