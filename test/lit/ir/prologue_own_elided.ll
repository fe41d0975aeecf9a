; The own prologue leaves the check out of a function whose every call goes
; to a function of the module that checks at its entry (abi.h,
; COPYSTACK_ELIDED_FRAME): its frame is then the one unchecked frame the
; guard band's budget allows before the next check, kept small by LLVM's
; probe from 96 bytes, and it is noinline (LTO must not put its calls in a
; leaf). Its callees keep their checks: no two unchecked frames in a row.
; RUN: %opt -passes=copystack -copystack-prologue=own %s -S | FileCheck %s
; RUN: %opt -passes=copystack -copystack-prologue=own -copystack-elide-checks=0 %s -S | FileCheck %s --check-prefix=ALL
; RUN: %opt -passes=copystack -copystack-prologue=own %s | %llc -O2 -o - | FileCheck %s --check-prefix=ASM
target triple = "x86_64-pc-linux-gnu"

declare void @g(ptr nocapture)
declare i32 @leaf_elsewhere(i32)

; More than 32 bytes of locals: the probe would cost more than the check.
; CHECK-LABEL: define dso_local void @checked(
; CHECK: alloca [16 x i32]
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
; ALL-LABEL: define dso_local void @checked(
; ALL: call void asm sideeffect "cmpq %fs:0x70, %rsp
define dso_local void @checked(i32 %n) {
  %a = alloca [16 x i32]
  %neg = icmp slt i32 %n, 0
  br i1 %neg, label %out, label %work
work:
  call void @g(ptr %a)
  br label %out
out:
  ret void
}

; Every call goes to @checked: no check.
; CHECK-LABEL: define dso_local void @wrapper(
; CHECK-SAME: #[[ELIDED:[0-9]+]]
; CHECK-NOT: asm sideeffect "cmpq
; CHECK: ret void
; ALL-LABEL: define dso_local void @wrapper(
; ALL-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
; ASM-LABEL: wrapper:
; ASM-NOT: %fs:112
; ASM: callq checked
; ASM-NOT: %fs:112
; ASM: .cfi_endproc
define dso_local void @wrapper(i32 %n) {
  call void @checked(i32 %n)
  %m = add i32 %n, 1
  call void @checked(i32 %m)
  ret void
}

; Its callee has none: this one checks.
; CHECK-LABEL: define dso_local void @calls_wrapper(
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
define dso_local void @calls_wrapper(i32 %n) {
  call void @wrapper(i32 %n)
  ret void
}

; The stub of another object's function checks at its entry.
; CHECK-LABEL: define dso_local void @calls_stub_only(
; CHECK-NOT: asm sideeffect "cmpq
; CHECK: call void @__copystack_dispatch.g(
define dso_local void @calls_stub_only() {
  call void @g(ptr null)
  ret void
}

; A callee with no check (a leaf): checked.
; CHECK-LABEL: define dso_local i32 @calls_leaf(
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
define dso_local i32 @leaf(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}
define dso_local i32 @calls_leaf(i32 %x) {
  %y = call i32 @leaf(i32 %x)
  %z = call i32 @leaf(i32 %y)
  call void @checked(i32 %z)
  ret i32 %z
}

; Up to 32 bytes of locals do.
; CHECK-LABEL: define dso_local void @small_locals(
; CHECK-NOT: asm sideeffect "cmpq
; CHECK: ret void
define dso_local void @small_locals(i32 %n) {
  %a = alloca [8 x i32]
  store volatile i32 %n, ptr %a
  call void @checked(i32 %n)
  ret void
}

; A dynamic local is no part of the frame the probe sees.
; CHECK-LABEL: define dso_local void @dynamic_local(
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
define dso_local void @dynamic_local(i32 %n) {
  %a = alloca i8, i32 %n, align 1
  store volatile i8 0, ptr %a
  call void @checked(i32 %n)
  ret void
}

; Through a pointer, to itself, to a definition another object may replace,
; and a frem (a call of fmod) beside a checked callee: checked.
; CHECK-LABEL: define dso_local void @through_pointer(
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
define dso_local void @through_pointer(ptr %f) {
  call void %f(i32 1)
  ret void
}
; CHECK-LABEL: define dso_local void @recursive(
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
define dso_local void @recursive(i32 %n) {
  %z = icmp eq i32 %n, 0
  br i1 %z, label %out, label %more
more:
  %m = sub i32 %n, 1
  call void @recursive(i32 %m)
  call void @checked(i32 %m)
  br label %out
out:
  ret void
}
define weak void @replaceable(i32 %n) {
  call void @g(ptr null)
  ret void
}
; CHECK-LABEL: define dso_local void @calls_replaceable(
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
define dso_local void @calls_replaceable(i32 %n) {
  call void @replaceable(i32 %n)
  ret void
}
; CHECK-LABEL: define dso_local double @with_frem(
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
define dso_local double @with_frem(double %x, double %y, i32 %n) {
  call void @checked(i32 %n)
  %r = frem double %x, %y
  ret double %r
}

; A 256-bit vector's spill may realign the frame: checked.
; CHECK-LABEL: define dso_local <8 x i32> @wide_vector(
; CHECK-NEXT: call void asm sideeffect "cmpq %fs:0x70, %rsp
define dso_local <8 x i32> @wide_vector(<8 x i32> %v, i32 %n) {
  call void @checked(i32 %n)
  %w = add <8 x i32> %v, %v
  ret <8 x i32> %w
}

; A variadic function's shim is an unchecked frame: its body checks,
; whatever it calls.
; CHECK-LABEL: define internal void @variadic.copystack.va(
; CHECK: call void asm sideeffect "cmpq %fs:0x70, %rsp
; CHECK: ret void
define dso_local void @variadic(i32 %n, ...) {
  call void @checked(i32 %n)
  ret void
}

; CHECK: attributes #[[ELIDED]] = { noinline {{.*}}"stack-probe-size"="96" }
