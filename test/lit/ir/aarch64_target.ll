; The AArch64 target of the pass (passes/target/AArch64.cpp), the port in
; progress (docs/porting.md): accepted only with the hidden
; -copystack-experimental-aarch64 (no runtime exists for it yet). LLVM 19
; has no split-stack prologue and no named stack probe for AArch64, so the
; own check is the only one, and the design rests on what llc does with
; it: the check's call clobbers x30, so the whole frame is set up before
; it, shrink-wrapping or not, and the check compares the stack pointer of
; the frame itself (a 2000-byte frame included; bigger locals go to the
; pinned area). A function whose only
; call the backend may make (frem: fmod) and a leaf with big locals get it
; too; a leaf with neither gets none. No "probe-stack", no "split-stack".
; RUN: not %opt -passes=copystack %s -disable-output 2>&1 | FileCheck %s --check-prefix=REFUSED
; RUN: %opt -passes=copystack -copystack-experimental-aarch64 -S %s 2>%t.err | FileCheck %s
; RUN: FileCheck %s --allow-empty --check-prefix=WARN < %t.err
; RUN: %opt -passes=copystack -copystack-experimental-aarch64 %s | %llc -O2 -o - | FileCheck %s --check-prefix=ASM
; The loop polls (-copystack-loop-polls=1): in a leaf, the poll and the
; stub's call in one asm; after a call, the compare and a branch to it.
; RUN: %opt -passes=copystack -copystack-experimental-aarch64 -copystack-loop-polls=1 %s | %llc -O2 -o - | FileCheck %s --check-prefix=POLLS
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

; REFUSED: copystack supports x86-64 Linux only (this compilation targets aarch64-unknown-linux-gnu)

declare void @g(ptr)
declare i64 @strcspn(ptr, ptr)

; CHECK-LABEL: define void @calls(
; CHECK-NEXT: call i32 asm sideeffect "mrs x16, tpidr_el0\0A\09ldr x16, [x16, #8]\0A\09cmp sp, x16\0A\09b.hi 1f\0A\09bl __morestack\0A\09udf #0\0A1:", "=r,0,~{x16},~{x17},~{lr},~{cc}"(i32 %n)
; ASM-LABEL: calls:
; ASM-NEXT: .cfi_startproc
; ASM-NEXT: // %bb.0:
; ASM-NEXT: str x30, [sp, #-16]!
; ASM: //APP
; ASM-NEXT: mrs x16, TPIDR_EL0
; ASM-NEXT: ldr x16, [x16, #8]
; ASM-NEXT: cmp sp, x16
; ASM-NEXT: b.hi
; ASM-NEXT: bl __morestack
; ASM-NEXT: udf #0
; ASM: //NO_APP
; ASM-NEXT: tbnz w{{[0-9]+}}, #31
define void @calls(i32 %n) {
  %neg = icmp slt i32 %n, 0
  br i1 %neg, label %out, label %work
work:
  call void @g(ptr null)
  br label %out
out:
  ret void
}

; Arguments on the stack: their bytes in the udf (AAPCS64: x0-x7, v0-v7,
; then 8-byte slots; ArgLayout.h).
; CHECK-LABEL: define void @stack_args(
; CHECK-NEXT: call void asm sideeffect {{.*}}udf #24
define void @stack_args(i64 %a, i64 %b, i64 %c, i64 %d, i64 %e, i64 %f, i64 %g7, i64 %h8, i64 %i9, i64 %j10, double %d1, double %d2, double %d3, double %d4, double %d5, double %d6, double %d7, double %d8, float %d9) {
  call void @g(ptr null)
  ret void
}

; Its arguments pass through the check (aarch64_check_carries_arguments.ll).
; CHECK-LABEL: define double @maybe(
; CHECK-NEXT: call { double, double } asm sideeffect "mrs x16{{.*}}", "=w,=w,0,1,~{x16},~{x17},~{lr},~{cc}"(double %a, double %b)
; ASM-LABEL: maybe:
; ASM: str x30, [sp, #-16]!
; ASM: bl __morestack
; ASM: br x0
define double @maybe(double %a, double %b) {
  %r = frem double %a, %b
  ret double %r
}

; CHECK-LABEL: define i32 @leaf(
; CHECK-NOT: asm
; CHECK: ret i32
; ASM-LABEL: leaf:
; ASM-NOT: __morestack
; ASM: ret
define i32 @leaf(i32 %a) {
  %r = mul i32 %a, 3
  ret i32 %r
}

; CHECK-LABEL: define i32 @bigleaf(
; CHECK: call i32 asm sideeffect "mrs x16
; ASM-LABEL: bigleaf:
; ASM: sub sp, sp, #2000
; ASM-NOT: ret
; ASM: mrs x16, TPIDR_EL0
; ASM-NEXT: ldr x16, [x16, #8]
; ASM-NEXT: cmp sp, x16
define i32 @bigleaf(i32 %i) {
  %buf = alloca [500 x i32], align 4
  %p = getelementptr i32, ptr %buf, i32 %i
  store volatile i32 1, ptr %p
  %v = load volatile i32, ptr %buf
  ret i32 %v
}

; Locals over kUncheckedFrameLocals (3072 bytes, Policy.h): what the
; backend stores before a check after the frame could land past the page
; below the stack, so they go to the pinned area (CopyStack.cpp,
; pinBigFrame), and the frame the check covers is the link register's.
; WARN-NOT: hugeleaf
; CHECK-LABEL: define i32 @hugeleaf(
; CHECK-NEXT: call i32 asm sideeffect "mrs x16
; CHECK: %pin.top = phi
; CHECK: %buf.pinned = getelementptr i8, ptr %pinned, i64 0
; CHECK-NOT: alloca
; CHECK: ret i32
; ASM-LABEL: hugeleaf:
; ASM-NEXT: .cfi_startproc
; ASM-NEXT: // %bb.0:
; ASM-NEXT: str x30, [sp, #-16]!
; ASM-NOT: sub sp
; ASM: cmp sp, x16
define i32 @hugeleaf(i32 %i) {
  %buf = alloca [1000 x i32], align 4
  %p = getelementptr i32, ptr %buf, i32 %i
  store volatile i32 1, ptr %p
  %v = load volatile i32, ptr %buf
  ret i32 %v
}

; A local whose address escapes lives in the pinned area, reached from
; the thread pointer and the initial-exec offset of __copystack_thread.
; ASM-LABEL: escapes:
; ASM: bl __morestack
; ASM: mrs [[TP:x[0-9]+]], TPIDR_EL0
; ASM-NEXT: adrp x17, :gottprel:__copystack_thread
; ASM-NEXT: ldr x17, [x17, :gottprel_lo12:__copystack_thread]
; ASM-NEXT: add [[TP]], [[TP]], x17
; ASM: bl __copystack_dispatch.g
define void @escapes() {
  %x = alloca i64, align 8
  call void @g(ptr %x)
  ret void
}

; The room test of a libc call in place: an asm goto, the call of the
; no-room entry through the GOT when it fails.
; CHECK-LABEL: define i64 @scan(
; CHECK: callbr void asm sideeffect "mrs x16, tpidr_el0\0A\09ldr x16, [x16, #8]\0A\09sub x17, sp, #4096\0A\09cmp x17, x16\0A\09b.hs ${0:l}\0A\09adrp x16, :got:__copystack_no_room\0A\09ldr x16, [x16, :got_lo12:__copystack_no_room]\0A\09blr x16", "!i,~{x16},~{x17},~{lr},~{cc}"()
; ASM-LABEL: scan:
; ASM: sub x17, sp, #1, lsl #12
; ASM-NEXT: cmp x17, x16
; ASM-NEXT: b.hs
; ASM: blr x16
define i64 @scan(ptr %s) {
  %r = call i64 @strcspn(ptr %s, ptr %s)
  ret i64 %r
}

; POLLS-LABEL: spin_leaf:
; POLLS: str x30, [sp, #-16]!
; POLLS: mrs x16, TPIDR_EL0
; POLLS-NEXT: ldr x16, [x16, #8]
; POLLS-NEXT: cmn x16, #2
; POLLS-NEXT: b.ne
; POLLS-NEXT: adrp x16, :got:__copystack_preempt
; POLLS-NEXT: ldr x16, [x16, :got_lo12:__copystack_preempt]
; POLLS-NEXT: blr x16
define i32 @spin_leaf(ptr %p) {
entry:
  br label %loop
loop:
  %v = load volatile i32, ptr %p
  %z = icmp eq i32 %v, 0
  br i1 %z, label %loop, label %done
done:
  ret i32 %v
}

; POLLS-LABEL: spin_after_call:
; POLLS: bl __morestack
; POLLS: bl __copystack_dispatch.g
; POLLS: mrs x16, TPIDR_EL0
; POLLS-NEXT: ldr x16, [x16, #8]
; POLLS-NEXT: cmn x16, #2
; POLLS-NEXT: b.eq [[PREEMPT:.LBB[0-9_]+]]
; POLLS: [[PREEMPT]]:
; POLLS: blr
define i32 @spin_after_call(ptr %p) {
entry:
  call void @g(ptr null)
  br label %loop
loop:
  %v = load volatile i32, ptr %p
  %z = icmp eq i32 %v, 0
  br i1 %z, label %loop, label %done
done:
  ret i32 %v
}
