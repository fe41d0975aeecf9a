; Locals whose address only reaches loads, stores through it, comparisons,
; non-capturing parameters, inline asm and other non-escaping locals stay on
; the copyable stack (and are described by the frame map).
; RUN: %opt -passes=copystack -S %s | FileCheck %s
; RUN: %opt -passes=copystack -pass-remarks='^copystack$' -disable-output %s 2>&1 | FileCheck %s --allow-empty --check-prefix=REMARK --implicit-check-not="moved off"
; (There must be no remark at all.)
; REMARK-NOT: remark
target triple = "x86_64-pc-linux-gnu"

declare i64 @strlen(ptr)
declare i32 @printf(ptr, ...)
@fmt = constant [3 x i8] c"%p\00"

; The module's own functions get nocapture where it holds, optimistically
; through recursion.
define internal i32 @walk(i32 %n, ptr %p) {
  %z = icmp eq i32 %n, 0
  br i1 %z, label %done, label %more
more:
  %m = sub i32 %n, 1
  %r = call i32 @walk(i32 %m, ptr %p)
  ret i32 %r
done:
  %v = load i32, ptr %p
  ret i32 %v
}

; CHECK-LABEL: define i32 @f()
; CHECK:       %x = alloca i32
; CHECK:       %buf = alloca [16 x i8]
; CHECK:       %p = alloca ptr
define i32 @f() {
  %x = alloca i32
  %buf = alloca [16 x i8]
  %p = alloca ptr
  store i32 1, ptr %x
  store ptr %x, ptr %p
  %n = call i64 @strlen(ptr %buf)
  call void asm sideeffect "", "r,~{memory}"(ptr %buf)
  call i32 (ptr, ...) @printf(ptr @fmt, ptr %x)
  %i = ptrtoint ptr %buf to i64
  %aligned = and i64 %i, 7
  %c = icmp eq i64 %aligned, 0
  %r = call i32 @walk(i32 10, ptr %x)
  ret i32 %r
}
