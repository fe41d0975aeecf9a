; Functions the maps cannot describe run on the system stack, like code
; built without the plugin; a remark names each one and the reason.
; RUN: %opt -passes=copystack -pass-remarks-missed=copystack -disable-output %s 2>&1 | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @getcontext(ptr) returns_twice

; CHECK-DAG: remark: <unknown>:0:0: 'forwards' runs on the system stack: it is variadic and forwards its variable arguments (musttail)
define void @forwards(ptr %fn, ...) {
  musttail call void (ptr, ...) %fn(ptr %fn, ...)
  ret void
}

; CHECK-DAG: remark: <unknown>:0:0: 'odd_restore' runs on the system stack: it restores a stack pointer that does not come from llvm.stacksave
define void @odd_restore(i64 %n, ptr %s) {
  %a = alloca i32, i64 %n
  store volatile i32 0, ptr %a
  call void @llvm.stackrestore.p0(ptr %s)
  ret void
}
declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)

; CHECK-DAG: remark: <unknown>:0:0: 'contexts' runs on the system stack: it calls 'getcontext', which returns twice and is not setjmp
define void @contexts(ptr %buf) {
  %r = call i32 @getcontext(ptr %buf)
  ret void
}

; CHECK-DAG: remark: <unknown>:0:0: 'opted_out' runs on the system stack: it is marked copystack_nosplit
define void @opted_out() "copystack-nosplit" {
  ret void
}
