; A task may continue on another thread after any call that can park. At
; the start of the pipeline, thread identity functions stop being constant
; and thread_local addresses go through a function that reads memory, so
; the optimizer neither merges nor hoists them across such calls; after it,
; each address comes from a call to an accessor. Executables reach static
; TLS in place; shared objects on the system stack (__tls_get_addr may
; allocate).
; RUN: %opt -passes='default<O2>' -S %s | FileCheck %s
; RUN: sed -e 's/"PIE Level", i32 2/"PIE Level", i32 0/' %s | %opt -passes='default<O2>' -S | FileCheck %s --check-prefix=SHARED
target triple = "x86_64-pc-linux-gnu"

@counter = dso_local thread_local global i64 0
@sink = dso_local global i64 0

declare i64 @pthread_self() nounwind memory(none)
declare ptr @llvm.threadlocal.address.p0(ptr) nounwind memory(none)
declare void @may_park()

; CHECK-LABEL: define void @loop(i32 %n)
; CHECK:       call void @{{(__copystack_dispatch\.)?}}may_park()
; CHECK:       %[[A:tls[0-9]*]] = call ptr @__copystack.tls.counter()
; CHECK-NEXT:  load i64, ptr %[[A]]
; CHECK:       call void @{{(__copystack_dispatch\.)?}}may_park()
; CHECK:       %[[B:tls[0-9]*]] = call ptr @__copystack.tls.counter()
; CHECK-NEXT:  store i64 {{.*}}, ptr %[[B]]
define void @loop(i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  call void @may_park()
  %tls = call ptr @llvm.threadlocal.address.p0(ptr @counter)
  %v = load i64, ptr %tls
  %v1 = add i64 %v, 1
  call void @may_park()
  %tls2 = call ptr @llvm.threadlocal.address.p0(ptr @counter)
  store i64 %v1, ptr %tls2
  %i1 = add i32 %i, 1
  %c = icmp ult i32 %i1, %n
  br i1 %c, label %loop, label %done
done:
  ret void
}

; "Did I move?" is not folded to false.
; CHECK-LABEL: define {{.*}}i1 @moved()
; CHECK:       call i64 @pthread_self()
; CHECK:       call void @{{(__copystack_dispatch\.)?}}may_park()
; CHECK:       call i64 @pthread_self()
; CHECK:       icmp ne
define i1 @moved() {
  %a = call i64 @pthread_self()
  call void @may_park()
  %b = call i64 @pthread_self()
  %c = icmp ne i64 %a, %b
  ret i1 %c
}

; The accessor: a leaf run in place in an executable.
; CHECK-LABEL: define internal ptr @__copystack.tls.counter()
; CHECK-NEXT:  call {{.*}}ptr @llvm.threadlocal.address.p0(ptr {{.*}}@counter)
; CHECK:       "copystack-inplace"

; In a shared object it is a foreign call.
; SHARED:      call {{.*}}@__copystack_foreign_call_r10(ptr nest
; SHARED-NOT:  "copystack-inplace"

!llvm.module.flags = !{!0, !1}
!0 = !{i32 8, !"PIC Level", i32 2}
!1 = !{i32 7, !"PIE Level", i32 2}
