; An instrumented function gets LLVM's split-stack prologue (with
; -copystack-prologue=llvm; the own prologue: prologue_own.ll), unwind tables,
; and the 24-byte prefix: map offset, ABI version, magic, and the
; sanitizers' word, int3 filler without them. It keeps a frame pointer
; where its map describes locals (at %rbp offsets) or the user asked for
; frame pointers, and calls something; otherwise none: the runtime walks
; frames by their CFA rules. A function that calls nothing keeps none even
; when asked: it is never walked (frames are walked from call sites), and a
; leaf that needs no stack then has no prologue check either. Only a frame
; whose map describes locals (at fixed %rbp offsets) is never realigned.
; RUN: %opt -passes=copystack -copystack-prologue=llvm -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare void @g()

; CHECK: define void @f() #[[ATTRS:[0-9]+]] align 16 prefix <{ i32, i32, i64, i64 }> <{ i32 trunc (i64 sub (i64 ptrtoint (ptr @f.copystack.map to i64), i64 ptrtoint (ptr @f to i64)) to i32), i32 5, i64 7737593674106692459, i64 -3689348814741910324 }>
define void @f() {
  call void @g()
  ret void
}

; CHECK: define void @asked() #[[ASKED:[0-9]+]] align 16 prefix
define void @asked() "frame-pointer"="all" {
  call void @g()
  ret void
}

; CHECK: define void @local() #[[LOCALS:[0-9]+]] align 16 prefix
define void @local() {
  %x = alloca i64
  call void @h(ptr %x)
  ret void
}
declare void @h(ptr nocapture)

; CHECK: define i32 @leaf(i32 %x) #[[ATTRS]] align 16 prefix
define i32 @leaf(i32 %x) "frame-pointer"="all" {
  %y = call i32 @llvm.ctpop.i32(i32 %x)
  ret i32 %y
}
declare i32 @llvm.ctpop.i32(i32)

; CHECK-DAG: attributes #[[ATTRS]] = { nonlazybind uwtable "frame-pointer"="none" "split-stack" }
; CHECK-DAG: attributes #[[ASKED]] = { nonlazybind uwtable "frame-pointer"="all" "split-stack" }
; CHECK-DAG: attributes #[[LOCALS]] = { nonlazybind uwtable "frame-pointer"="all" "no-realign-stack" "split-stack" }
