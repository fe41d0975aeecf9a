; glibc's allocator is called in place when the runtime allows it and the
; stack has COPYSTACK_ALLOC_ROOM (4096) bytes above the limit; otherwise the
; call is made as before (here through the dispatch stub). A malloc of
; another signature is left alone.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
; RUN: %opt -passes=copystack -copystack-alloc-in-place=0 -S %s | FileCheck %s --check-prefix=OFF
target triple = "x86_64-pc-linux-gnu"

declare ptr @malloc(i64)
declare void @free(ptr)

; CHECK-LABEL: define ptr @f(i64 %n)
; CHECK:       %alloc.in.place = load i32, ptr @__copystack_alloc_in_place
; CHECK:       %stack.room = call i64 asm sideeffect "movq %rsp, $0\0A\09subq %fs:112, $0"
; CHECK:       icmp sge i64 %stack.room, 4096
; CHECK:       call ptr @malloc(i64 %n), !copystack.inplace
; CHECK:       %p = call ptr @__copystack_dispatch.malloc(i64 %n)
; CHECK:       call void @free(ptr %{{.*}}), !copystack.inplace
; CHECK:       call void @__copystack_dispatch.free(
; OFF-LABEL:   define ptr @f(i64 %n)
; OFF-NOT:     __copystack_alloc_in_place
define ptr @f(i64 %n) {
  %p = call ptr @malloc(i64 %n)
  %q = call ptr @malloc(i64 8)
  call void @free(ptr %q)
  ret ptr %p
}

declare i32 @odd_malloc(i32)
; CHECK-LABEL: define i32 @g(
; CHECK-NOT:   __copystack_alloc_in_place
define i32 @g(i32 %x) {
  %r = call i32 @odd_malloc(i32 %x)
  ret i32 %r
}
