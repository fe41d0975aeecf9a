; Functions the maps cannot describe run on the system stack, like code
; built without the plugin; a remark names each one and the reason.
; RUN: %opt -passes=copystack -pass-remarks-missed=copystack -disable-output %s 2>&1 | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @setjmp(ptr) returns_twice

; CHECK-DAG: remark: <unknown>:0:0: 'variadic' runs on the system stack: it is variadic
define void @variadic(i32 %n, ...) {
  ret void
}

; CHECK-DAG: remark: <unknown>:0:0: 'vla' runs on the system stack: it allocates stack dynamically
define void @vla(i64 %n) {
  %a = alloca i32, i64 %n
  store volatile i32 0, ptr %a
  ret void
}

; CHECK-DAG: remark: <unknown>:0:0: 'overaligned' runs on the system stack: a local is aligned to 64 bytes
define void @overaligned() {
  %a = alloca i32, align 64
  store volatile i32 0, ptr %a
  ret void
}

; CHECK-DAG: remark: <unknown>:0:0: 'jumps' runs on the system stack: it calls 'setjmp', which returns twice
define void @jumps(ptr %buf) {
  %r = call i32 @setjmp(ptr %buf)
  ret void
}

; CHECK-DAG: remark: <unknown>:0:0: 'opted_out' runs on the system stack: it is marked copystack_nosplit
define void @opted_out() "copystack-nosplit" {
  ret void
}
