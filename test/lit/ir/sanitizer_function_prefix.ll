; -fsanitize=function's signature and type hash become the last word of the
; prefix, where the checks at call sites read them (entry - 8 and - 4); the
; metadata goes, so that the backend does not emit them again after it.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
; RUN: %opt -passes=copystack %s | %llc -O2 -o - | FileCheck %s --check-prefix=ASM
target triple = "x86_64-pc-linux-gnu"

; CHECK: define void @f() {{.*}}prefix <{ i32, i32, i64, <{ i32, i32 }> }> <{ {{.*}}, i32 5, i64 7737593674106692459, <{ i32, i32 }> <{ i32 -1056584962, i32 1234 }> }>
; CHECK-NOT: !func_sanitize
; CHECK-SAME: {
define void @f() !func_sanitize !0 {
  ret void
}
!0 = !{i32 -1056584962, i32 1234}

; ASM:      .quad	7737593674106692459
; ASM-NEXT: .long	3238382334
; ASM-NEXT: .long	1234
; ASM-NEXT: f:
