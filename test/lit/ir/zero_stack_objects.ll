; Every stack object starts as zeros (docs/maps.md, "Words only partly
; written"): after each lifetime.start, at entry without markers, unless
; the first write there covers the whole object. An aggregate's store does
; not write its padding, so it does not count.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

declare void @fill(ptr nocapture)
declare void @llvm.lifetime.start.p0(i64, ptr nocapture)
declare void @llvm.lifetime.end.p0(i64, ptr nocapture)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; CHECK-LABEL: define void @markers(
; CHECK: call void @llvm.lifetime.start.p0(i64 64, ptr %buf)
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr align 8 %buf, i8 0, i64 64, i1 false)
; CHECK: call void @{{(__copystack_dispatch\.)?}}fill(ptr %buf)
; CHECK: call void @llvm.lifetime.start.p0(i64 64, ptr %buf)
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr align 8 %buf, i8 0, i64 64, i1 false)
define void @markers(i1 %c) {
  %buf = alloca [64 x i8], align 8
  call void @llvm.lifetime.start.p0(i64 64, ptr %buf)
  call void @fill(ptr %buf)
  call void @llvm.lifetime.end.p0(i64 64, ptr %buf)
  br i1 %c, label %again, label %out
again:
  call void @llvm.lifetime.start.p0(i64 64, ptr %buf)
  call void @fill(ptr %buf)
  call void @llvm.lifetime.end.p0(i64 64, ptr %buf)
  br label %out
out:
  ret void
}

; No markers: zeroed at entry, after the allocas. A whole memcpy right
; after lifetime.start (address arithmetic between them does not count):
; not zeroed. An aggregate store there: zeroed.
; CHECK-LABEL: define void @entry(
; CHECK: call void @llvm.memset.p0.i64(ptr align 8 %plain, i8 0, i64 24, i1 false)
; CHECK: call void @llvm.lifetime.start.p0(i64 32, ptr %copied)
; CHECK-NEXT: %at = getelementptr
; CHECK-NEXT: call void @llvm.memcpy.p0.p0.i64(ptr %at, ptr %src, i64 32, i1 false)
; CHECK: call void @llvm.lifetime.start.p0(i64 8, ptr %agg)
; CHECK-NEXT: call void @llvm.memset.p0.i64(ptr align 8 %agg, i8 0, i64 8, i1 false)
; CHECK-NEXT: store { i32, i8 } %v, ptr %agg
define void @entry(ptr %src, { i32, i8 } %v) {
  %plain = alloca [3 x i64], align 8
  %copied = alloca [32 x i8], align 8
  %agg = alloca { i32, i8 }, align 8
  call void @fill(ptr %plain)
  call void @llvm.lifetime.start.p0(i64 32, ptr %copied)
  %at = getelementptr [32 x i8], ptr %copied, i64 0, i64 0
  call void @llvm.memcpy.p0.p0.i64(ptr %at, ptr %src, i64 32, i1 false)
  call void @fill(ptr %copied)
  call void @llvm.lifetime.start.p0(i64 8, ptr %agg)
  store { i32, i8 } %v, ptr %agg
  call void @fill(ptr %agg)
  ret void
}
