; glibc's allocator, mutex and string-scan functions are called in place
; when the runtime set their group's bit (copystack/abi.h) and the stack has
; COPYSTACK_IN_PLACE_ROOM (4096) bytes above the limit; otherwise the call
; is made as before (here through the dispatch stub). pthread_mutex_lock is
; a trylock in place that falls back to the lock when the mutex is held. A
; function of another signature is left alone.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
; RUN: %opt -passes=copystack -copystack-libc-in-place=0 -S %s | FileCheck %s --check-prefix=OFF
target triple = "x86_64-pc-linux-gnu"

declare ptr @malloc(i64)
declare void @free(ptr)
declare i32 @pthread_mutex_lock(ptr)
declare i64 @strcspn(ptr, ptr)

; CHECK-LABEL: define ptr @f(i64 %n)
; CHECK:       %libc.in.place = load i32, ptr @__copystack_libc_in_place
; CHECK:       and i32 %libc.in.place, 1
; CHECK:       %stack.room = call i64 asm sideeffect "movq %rsp, $0\0A\09subq %fs:112, $0", "=r,~{dirflag},~{fpsr},~{flags}"()
; CHECK:       icmp sge i64 %stack.room, 4096
; CHECK:       call ptr @malloc(i64 %n), !copystack.inplace
; CHECK:       %p = call ptr @__copystack_dispatch.malloc(i64 %n)
; CHECK:       call void @free(ptr %{{.*}}), !copystack.inplace
; CHECK:       call void @__copystack_dispatch.free(
; OFF-LABEL:   define ptr @f(i64 %n)
; OFF-NOT:     __copystack_libc_in_place
define ptr @f(i64 %n) {
  %p = call ptr @malloc(i64 %n)
  %q = call ptr @malloc(i64 8)
  call void @free(ptr %q)
  ret ptr %p
}

; CHECK-LABEL: define i32 @lock(ptr %m)
; CHECK:       and i32 %libc.in.place, 2
; CHECK:       %trylock = call i32 @pthread_mutex_trylock(ptr %m){{.*}}, !copystack.inplace
; CHECK-NEXT:  %[[HELD:.*]] = icmp eq i32 %trylock, 16
; CHECK-NEXT:  br i1 %[[HELD]], label %[[LOCK:.*]], label %[[JOIN:.*]]
; CHECK:       [[LOCK]]:
; CHECK-NEXT:  %r = call i32 @__copystack_dispatch.pthread_mutex_lock(ptr %m)
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  phi i32 [ %trylock, %{{.*}} ], [ %r, %[[LOCK]] ]
define i32 @lock(ptr %m) {
  %r = call i32 @pthread_mutex_lock(ptr %m)
  ret i32 %r
}

; CHECK-LABEL: define i64 @scan(
; CHECK:       and i32 %libc.in.place, 4
; CHECK:       call i64 @strcspn(ptr %s, ptr %r), !copystack.inplace
define i64 @scan(ptr %s, ptr %r) {
  %n = call i64 @strcspn(ptr %s, ptr %r)
  ret i64 %n
}

declare i32 @odd_malloc(i32)
declare i32 @malloc_like(i32)
; CHECK-LABEL: define i32 @g(
; CHECK-NOT:   __copystack_libc_in_place
define i32 @g(i32 %x) {
  %r = call i32 @odd_malloc(i32 %x)
  ret i32 %r
}
