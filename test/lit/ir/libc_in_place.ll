; glibc's allocator, mutex and string-scan functions are called in place
; when the runtime set their group's bit (copystack/abi.h) and the stack has
; COPYSTACK_IN_PLACE_ROOM (4096) bytes above the limit (unsigned: a limit above
; the stack pointer, as in stress mode or with a preemption requested, fails
; the test); otherwise, after the asm's call of __copystack_no_room (a stack
; that keeps failing the test grows), the call is made as before (here through
; the dispatch stub). pthread_mutex_lock is a trylock in place that falls back to the lock
; when the mutex is held: the runtime's wrapper, which parks the task
; (BlockingCalls.cpp). A function of another signature is left alone.
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
; CHECK-NEXT:  %in.place.on = icmp ne i32 %{{.*}}, 0
; CHECK-NEXT:  br i1 %in.place.on, label %[[ROOM:.*]], label %[[SLOW:.*]], !prof
; CHECK:       [[ROOM]]:
; CHECK-NEXT:  callbr void asm sideeffect "leaq -4096(%rsp), %r11\0A\09cmpq %fs:0x70, %r11\0A\09jae ${0:l}\0A\09call *__copystack_no_room@GOTPCREL(%rip)", "!i,~{r11},~{dirflag},~{fpsr},~{flags}"()
; CHECK-NEXT:  to label %[[SLOW]] [label %[[FAST:.*]]]
; CHECK:       [[FAST]]:
; CHECK-NEXT:  call ptr @malloc(i64 %n){{.*}}, !copystack.inplace
; CHECK:       [[SLOW]]:
; CHECK-NEXT:  %p = call ptr @__copystack_dispatch.malloc(i64 %n)
; CHECK:       call void @free(ptr %{{.*}}){{.*}}, !copystack.inplace
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
; CHECK-NEXT:  %r = call i32 @__copystack_blocking_pthread_mutex_lock(ptr %m)
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  phi i32 [ %trylock, %{{.*}} ], [ %r, %[[LOCK]] ]
define i32 @lock(ptr %m) {
  %r = call i32 @pthread_mutex_lock(ptr %m)
  ret i32 %r
}

; A tail call stays one in place (an allocator wrapper jumps to realloc).
declare ptr @realloc(ptr, i64)
; CHECK-LABEL: define ptr @wrapper(ptr %p, i64 %n)
; CHECK:       tail call ptr @realloc(ptr %p, i64 %n){{.*}}, !copystack.inplace
define ptr @wrapper(ptr %p, i64 %n) {
  %r = tail call ptr @realloc(ptr %p, i64 %n)
  ret ptr %r
}

; A trylock of its own is in place as it is.
declare i32 @pthread_mutex_trylock(ptr)
; CHECK-LABEL: define i32 @try(ptr %m)
; CHECK:       and i32 %libc.in.place, 2
; CHECK:       call i32 @pthread_mutex_trylock(ptr %m){{.*}}, !copystack.inplace
; CHECK:       %r = call i32 @__copystack_dispatch.pthread_mutex_trylock(ptr %m)
define i32 @try(ptr %m) {
  %r = call i32 @pthread_mutex_trylock(ptr %m)
  ret i32 %r
}

; CHECK-LABEL: define i64 @scan(
; CHECK:       and i32 %libc.in.place, 4
; CHECK:       call i64 @strcspn(ptr %s, ptr %r){{.*}}, !copystack.inplace
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

; libstdc++'s tree and hash leaves use no stack: the group's bit alone.
declare ptr @_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base(ptr)
declare void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1 zeroext, ptr, ptr, ptr)
declare i64 @_ZSt11_Hash_bytesPKvmm(ptr, i64, i64)
; CHECK-LABEL: define ptr @tree(
; CHECK:       %[[BIT:.*]] = and i32 %libc.in.place, 8
; CHECK-NEXT:  %[[ON:.*]] = icmp ne i32 %[[BIT]], 0
; CHECK-NEXT:  br i1 %[[ON]]
; CHECK:       call ptr @_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base(ptr %n){{.*}}, !copystack.inplace
; CHECK:       call void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1 true, ptr %n, ptr %n, ptr %h){{.*}}, !copystack.inplace
; CHECK:       call i64 @_ZSt11_Hash_bytesPKvmm(ptr %n, i64 4, i64 7){{.*}}, !copystack.inplace
; CHECK-NOT:   callbr
; CHECK:       ret ptr
define ptr @tree(ptr %n, ptr %h) {
  %next = call ptr @_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base(ptr %n)
  call void @_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_(i1 true, ptr %n, ptr %n, ptr %h)
  %x = call i64 @_ZSt11_Hash_bytesPKvmm(ptr %n, i64 4, i64 7)
  store i64 %x, ptr %h
  ret ptr %next
}

; operator new is malloc of at least a byte in place, and the call itself
; (the new handler, bad_alloc) when that is null; operator delete is free.
declare ptr @_Znwm(i64)
declare void @_ZdlPvm(ptr, i64)
; CHECK-LABEL: define ptr @cxx_new(i64 %n)
; CHECK:       and i32 %libc.in.place, 16
; CHECK:       callbr void asm sideeffect "leaq -4096(%rsp)
; CHECK:       %[[ZERO:.*]] = icmp eq i64 %n, 0
; CHECK-NEXT:  %[[SIZE:.*]] = select i1 %[[ZERO]], i64 1, i64 %n
; CHECK-NEXT:  %new.malloc = call ptr @malloc(i64 %[[SIZE]]){{.*}}, !copystack.inplace
; CHECK-NEXT:  %[[NULL:.*]] = icmp eq ptr %new.malloc, null
; CHECK-NEXT:  br i1 %[[NULL]], label %[[NEW:.*]], label %[[JOIN:.*]]
; CHECK:       [[NEW]]:
; CHECK-NEXT:  %p = call ptr @__copystack_dispatch._Znwm(i64 %n)
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  %[[P:.*]] = phi ptr [ %new.malloc, %{{.*}} ], [ %p, %[[NEW]] ]
; CHECK:       call void @free(ptr %[[P]]){{.*}}, !copystack.inplace
; CHECK:       call void @__copystack_dispatch._ZdlPvm(ptr %[[P]], i64 %n)
define ptr @cxx_new(i64 %n) {
  %p = call ptr @_Znwm(i64 %n)
  call void @_ZdlPvm(ptr %p, i64 %n)
  ret ptr %p
}

; An invoke (a new in the scope of a destructor) keeps its landing pad on
; the path that makes the call; the call in place cannot throw.
declare i32 @__gxx_personality_v0(...)
; CHECK-LABEL: define ptr @cxx_new_invoke(i64 %n)
; CHECK:       %new.malloc = call ptr @malloc(i64 %{{.*}}){{.*}}, !copystack.inplace
; CHECK-NEXT:  %[[NULL:.*]] = icmp eq ptr %new.malloc, null
; CHECK-NEXT:  br i1 %[[NULL]], label %[[CALL:.*]], label %[[JOIN:.*]]
; CHECK:       [[CALL]]:
; CHECK-NEXT:  %p = invoke ptr @__copystack_dispatch._Znwm(i64 %n)
; CHECK-NEXT:  to label %[[JOIN]] unwind label %lpad
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  %[[P:.*]] = phi ptr [ %new.malloc, %{{.*}} ], [ %p, %[[CALL]] ]
; CHECK-NEXT:  br label %ok
; CHECK:       ok:
; CHECK-NEXT:  %q = phi ptr [ %[[P]], %[[JOIN]] ]
define ptr @cxx_new_invoke(i64 %n) personality ptr @__gxx_personality_v0 {
entry:
  %p = invoke ptr @_Znwm(i64 %n) to label %ok unwind label %lpad
ok:
  %q = phi ptr [ %p, %entry ]
  ret ptr %q
lpad:
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}

; libstdc++'s string members: the runtime's fast path in place, with the
; call's arguments and their attributes (the char's extension) and no room
; test; it returns the string or null, and null makes the call itself. The
; member's result is the string either way.
declare ptr @_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_appendEPKcm(ptr, ptr, i64)
declare void @_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructEmc(ptr, i64, i8)
; CHECK-LABEL: define i64 @cxx_string(
; CHECK:       and i32 %libc.in.place, 32
; CHECK-NOT:   callbr
; CHECK:       %fast = call ptr @__copystack_fast._ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_appendEPKcm(ptr nonnull %s, ptr %t, i64 %n){{.*}}, !copystack.inplace
; CHECK-NEXT:  %[[NULL:.*]] = icmp eq ptr %fast, null
; CHECK-NEXT:  br i1 %[[NULL]], label %[[CALL:.*]], label %[[JOIN:.*]]
; CHECK:       [[CALL]]:
; CHECK-NEXT:  %r = call ptr @__copystack_dispatch._ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_appendEPKcm(ptr nonnull %s, ptr %t, i64 %n)
; CHECK:       [[JOIN]]:
; CHECK-NEXT:  %[[R:.*]] = phi ptr [ %fast, %{{.*}} ], [ %r, %[[CALL]] ]
; CHECK:       call ptr @__copystack_fast._ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructEmc(ptr %[[R]], i64 3, i8 signext 120){{.*}}, !copystack.inplace
; CHECK:       call void @__copystack_dispatch._ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructEmc(ptr %[[R]], i64 3, i8 signext 120)
; CHECK-NOT:   callbr
; CHECK:       ret i64
; OFF-LABEL:   define i64 @cxx_string(
; OFF-NOT:     __copystack_fast
; OFF:         ret i64
define i64 @cxx_string(ptr %s, ptr %t, i64 %n) {
  %r = call ptr @_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_appendEPKcm(ptr nonnull %s, ptr %t, i64 %n)
  call void @_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructEmc(ptr %r, i64 3, i8 signext 120)
  %l = load i64, ptr %r
  ret i64 %l
}
