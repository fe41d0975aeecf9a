; Variable-length arrays and alloca(n) live in the pinned area: allocated
; where they stood. Nothing dynamic is left on the real stack, so a
; stacksave becomes the pinned top and a stackrestore gives the pinned
; bytes back (the scope of a VLA in a loop).
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare ptr @llvm.stacksave.p0()
declare void @llvm.stackrestore.p0(ptr)

; CHECK-LABEL: define void @f(i64 %n)
; CHECK-NOT:   alloca i32, i64
; CHECK-NOT:   @llvm.stacksave
; CHECK:       %pin.mark = load i64
; CHECK:       %s = inttoptr i64 %{{.*}} to ptr, !copystack.pinned
; CHECK:       mul i64 %n, 4
; CHECK:       inttoptr i64 {{.*}} to ptr, !copystack.pinned
; CHECK:       %[[BACK:.*]] = ptrtoint ptr %s to i64
; CHECK:       store i64 %[[BACK]], ptr
; CHECK-NOT:   @llvm.stackrestore
; CHECK:       ret void
define void @f(i64 %n) {
  %s = call ptr @llvm.stacksave.p0()
  %a = alloca i32, i64 %n
  store volatile i32 0, ptr %a
  call void @llvm.stackrestore.p0(ptr %s)
  ret void
}

; -O0 keeps the saved stack pointer in a local: followed through it.
; CHECK-LABEL: define void @o0(i64 %n)
; CHECK-NOT:   @llvm.stacksave
; CHECK:       %pin.mark = load i64
; CHECK:       %[[P:.*]] = inttoptr i64 %{{.*}} to ptr, !copystack.pinned
; CHECK:       store ptr %[[P]], ptr %saved_stack
; CHECK:       %[[R:.*]] = load ptr, ptr %saved_stack
; CHECK:       ptrtoint ptr %[[R]] to i64
; CHECK-NOT:   @llvm.stackrestore
; CHECK:       ret void
define void @o0(i64 %n) noinline optnone {
  %saved_stack = alloca ptr
  %s = call ptr @llvm.stacksave.p0()
  store ptr %s, ptr %saved_stack
  %a = alloca i32, i64 %n
  store volatile i32 0, ptr %a
  %r = load ptr, ptr %saved_stack
  call void @llvm.stackrestore.p0(ptr %r)
  ret void
}
