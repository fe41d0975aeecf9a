; -fsanitize=kcfi's type hash becomes the last 4 bytes of the prefix, the
; immediate of a "movl $hash, %eax" ending at the entry, where x86 KCFI
; checks read it; the metadata goes. A hash that would read as ENDBR64 is
; masked as the checks mask it.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK: define void @f() {{.*}}prefix <{ i32, i32, i64, <{ [3 x i8], i8, i32 }> }> <{ {{.*}}, i64 7737593674106692459, <{ [3 x i8], i8, i32 }> <{ [3 x i8] c"\CC\CC\CC", i8 -72, i32 1234 }> }>
; CHECK-NOT: !kcfi_type
; CHECK-SAME: {
define void @f() !kcfi_type !0 {
  ret void
}
!0 = !{i32 1234}

; CHECK: define void @endbr() {{.*}}<{ [3 x i8] c"\CC\CC\CC", i8 -72, i32 -98693132 }>
define void @endbr() !kcfi_type !1 {
  ret void
}
!1 = !{i32 -98693133}
