; A byval argument is memory the function owns on the copyable stack, in the
; caller's outgoing-argument area. When its address escapes, the function
; copies it into its pinned block at entry and uses the copy from there on
; (Go's "moved to heap" for a parameter); the caller's copy is left alone.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
; RUN: %opt -passes=copystack -pass-remarks='^copystack$' -disable-output %s 2>&1 | FileCheck %s --check-prefix=REMARK --implicit-check-not="moved off"
target triple = "x86_64-pc-linux-gnu"

%struct.big = type { i64, i64, i64, i64, i64, i64, i64 }
declare void @keep(ptr)

; REMARK: remark: <unknown>:0:0: moved off the stack: t (its address is stored in another local, which leaves the stack itself)
; REMARK: remark: <unknown>:0:0: moved off the stack: h (its address is passed to 'keep', which may keep it)
; CHECK-LABEL: define i64 @kept(ptr byval(%struct.big) align 8 %t)
; CHECK:       %t.pinned = getelementptr i8, ptr %pinned, i64 0
; CHECK:       call void @llvm.memcpy.p0.p0.i64(ptr align 8 %t.pinned, ptr align 8 %t, i64 56, i1 false)
; CHECK:       store ptr %t.pinned, ptr %h.pinned
; CHECK:       call void @{{(__copystack_dispatch\.)?}}keep(ptr %h.pinned)
; CHECK:       load i64, ptr %t.pinned
define i64 @kept(ptr byval(%struct.big) align 8 %t) {
  %h = alloca ptr
  store ptr %t, ptr %h
  call void @keep(ptr %h)
  %v = load i64, ptr %t
  ret i64 %v
}

; Passing the argument on by value is a copy, not an escape.
; CHECK-LABEL: define i64 @forwards(ptr byval(%struct.big) align 8 %t)
; CHECK-NOT:   memcpy
; CHECK:       call i64 @kept(ptr byval(%struct.big) align 8 %t)
define i64 @forwards(ptr byval(%struct.big) align 8 %t) {
  %r = call i64 @kept(ptr byval(%struct.big) align 8 %t)
  ret i64 %r
}

; An argument whose address only reaches loads stays where it is.
; CHECK-LABEL: define i64 @reads(ptr byval(%struct.big) align 8 %t)
; CHECK-NOT:   memcpy
; CHECK:       ret i64
define i64 @reads(ptr byval(%struct.big) align 8 %t) {
  %p = getelementptr i8, ptr %t, i64 8
  %v = load i64, ptr %p
  ret i64 %v
}
