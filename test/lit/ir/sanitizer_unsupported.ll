; A module a sanitizer copystack cannot support instrumented is an error
; that names the sanitizer and the reason.
; RUN: not %opt -passes=copystack -disable-output %s 2>&1 | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

; CHECK: error: copystack: -fsanitize=memory is not supported: MemorySanitizer shadows every byte of every stack
define void @f() sanitize_memory {
  ret void
}
