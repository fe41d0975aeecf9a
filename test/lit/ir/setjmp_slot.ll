; A function that calls setjmp keeps the jmp_buf it passed in a slot the
; frame map describes as a jmp_buf reference (kind 4), calls setjmp in
; place, and re-establishes the stack limit after
; it returns (a longjmp from foreign code arrives with the limit at 0).
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare i32 @_setjmp(ptr) returns_twice
declare void @use(ptr)

; CHECK: @f.copystack.objects = {{.*}} { i32 0, i32 8, i32 0, i16 4, i16 1 }
; CHECK-LABEL: define i32 @f(ptr %buf, ptr %p)
; CHECK:       store ptr null, ptr %cs.jmpbuf
; CHECK:       store ptr %buf, ptr %cs.jmpbuf
; CHECK-NEXT:  %r = call i32 @_setjmp(ptr %buf)
; CHECK-NEXT:  call void @__copystack_landing_pad()
define i32 @f(ptr %buf, ptr %p) {
  %r = call i32 @_setjmp(ptr %buf)
  %v = load i32, ptr %p
  ret i32 %v
}
