; On AArch64 the own check runs after the frame is set up, and nothing but
; the callee-saved registers at the frame's top may be stored before it: a
; frame bigger than the room left reaches below the stack, and the runtime
; reads that part as never written (runtime/src/arch/aarch64/frames.cc,
; place_block). A register allocator spills a value where it is defined,
; and -O0's spills every argument that lives across a call, to slots at
; the frame's bottom: the arguments are defined at the entry, before the
; check, so their spills came before it too (foreign_call_registers.c at
; -O0 under qemu; frame_near_stack_bottom.c). The pass passes them through
; the check as operands tied to its results (Attributes.cpp,
; insertOwnCheck): integers and pointers in general registers, an i128 as
; two 64-bit pieces, floating-point and vector values in vector registers,
; aggregates element by element; an argument not used is not carried. llc
; at -O0 then spills them after the check.
; RUN: %opt -passes=copystack -copystack-experimental-aarch64 -S %s | FileCheck %s
; RUN: %opt -passes=copystack -copystack-experimental-aarch64 %s | %llc -O0 -o - | FileCheck %s --check-prefix=O0
target datalayout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128-Fn32"
target triple = "aarch64-unknown-linux-gnu"

declare void @g(ptr)
declare void @h()

; CHECK-LABEL: define i64 @args(
; CHECK: %[[A0:.*]] = extractvalue [2 x i64] %a, 0
; CHECK: %[[A1:.*]] = extractvalue [2 x i64] %a, 1
; CHECK: %[[WH:.*]] = lshr i128 %w, 64
; CHECK: %[[WHI:.*]] = trunc i128 %[[WH]] to i64
; CHECK: %[[R:.*]] = call { i32, ptr, double, i64, i64, i64, i64, <4 x float> } asm sideeffect "mrs x16, tpidr_el0{{.*}}bl __morestack{{.*}}", "=r,=r,=w,=r,=r,=r,=r,=w,0,1,2,3,4,5,6,7,~{x16},~{x17},~{lr},~{cc}"(i32 %i, ptr %p, double %d, i64 %[[A0]], i64 %[[A1]], i64 %{{.*}}, i64 %[[WHI]], <4 x float> %v)
; CHECK: insertvalue [2 x i64] poison, i64 %{{.*}}, 0
; The uses are the check's results now: the arguments themselves only
; feed the check.
; CHECK-NOT: %i
; CHECK-NOT: %p{{[,) ]}}
; CHECK-NOT: %a{{[,) ]}}
; CHECK-NOT: %w{{[,) ]}}
; CHECK: ret i64

; O0-LABEL: args:
; O0: stp x29, x30, [sp, #{{[0-9]+}}]
; O0-NOT: {{str|stur|stp}}
; O0: //APP
; O0-NEXT: mrs x16, TPIDR_EL0
; O0: bl __morestack
; O0: //NO_APP
; O0: str
define i64 @args(i32 %i, ptr %p, double %d, [2 x i64] %a, i128 %w, <4 x float> %v, float %unused) #0 {
  %buf = alloca [1200 x i8]
  call void @g(ptr %buf)
  call void @h()
  %x = sext i32 %i to i64
  store ptr %p, ptr %buf
  %e = extractvalue [2 x i64] %a, 1
  %s = add i64 %x, %e
  %wh = lshr i128 %w, 64
  %wt = trunc i128 %wh to i64
  %s2 = add i64 %s, %wt
  %dv = fptosi double %d to i64
  %s3 = add i64 %s2, %dv
  %f = extractelement <4 x float> %v, i32 0
  %fi = fptosi float %f to i64
  %s4 = add i64 %s3, %fi
  ret i64 %s4
}

; An argument the target does not carry (an fp128 fits a q register; a
; <8 x float> takes two and goes as is) and more than 20 of one class keep
; the others carried.
; CHECK-LABEL: define i64 @many(
; CHECK: asm sideeffect "mrs x16{{.*}}", "=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=w,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,~{x16},~{x17},~{lr},~{cc}"(
define i64 @many(i64 %a0, i64 %a1, i64 %a2, i64 %a3, i64 %a4, i64 %a5, i64 %a6, i64 %a7, i64 %a8, i64 %a9, i64 %a10, i64 %a11, i64 %a12, i64 %a13, i64 %a14, i64 %a15, i64 %a16, i64 %a17, i64 %a18, i64 %a19, i64 %a20, i64 %a21, <8 x float> %wide, fp128 %q) #0 {
  call void @h()
  %s1 = add i64 %a0, %a1
  %s2 = add i64 %s1, %a2
  %s3 = add i64 %s2, %a3
  %s4 = add i64 %s3, %a4
  %s5 = add i64 %s4, %a5
  %s6 = add i64 %s5, %a6
  %s7 = add i64 %s6, %a7
  %s8 = add i64 %s7, %a8
  %s9 = add i64 %s8, %a9
  %s10 = add i64 %s9, %a10
  %s11 = add i64 %s10, %a11
  %s12 = add i64 %s11, %a12
  %s13 = add i64 %s12, %a13
  %s14 = add i64 %s13, %a14
  %s15 = add i64 %s14, %a15
  %s16 = add i64 %s15, %a16
  %s17 = add i64 %s16, %a17
  %s18 = add i64 %s17, %a18
  %s19 = add i64 %s18, %a19
  %s20 = add i64 %s19, %a20
  %s21 = add i64 %s20, %a21
  %f = extractelement <8 x float> %wide, i32 7
  %fi = fptosi float %f to i64
  %qi = fptosi fp128 %q to i64
  %s22 = add i64 %s21, %fi
  %s23 = add i64 %s22, %qi
  ret i64 %s23
}

attributes #0 = { noinline nounwind optnone uwtable "frame-pointer"="non-leaf" }
