; A function's pinned block is allocated where its pinned locals are first
; needed: in the nearest block that dominates all their uses, when that
; block is in no loop. A return that the allocation does not dominate gives
; the block back only on the paths that took it (the mark is ~0 on the
; others). In a loop, or with the sinking off, the block is taken at entry.
; RUN: %opt -passes=copystack -S %s | FileCheck %s
; RUN: %opt -passes=copystack -copystack-sink-pins=0 -S %s | FileCheck %s --check-prefix=OFF
target triple = "x86_64-pc-linux-gnu"

declare void @keep(ptr)

; CHECK-LABEL: define i64 @slow_path(
; CHECK:       entry:
; CHECK-NOT:   pin.mark
; CHECK:       br i1 %c, label %slow, label %done
; CHECK:       slow:
; The thread's variable: its offset from the thread pointer (an asm that
; clobbers the flags, and says so), a pointer in the %fs address space.
; CHECK-NEXT:  %cs.thread.tpoff = call i64 asm sideeffect "movq __copystack_thread@gottpoff(%rip), $0", "=r,~{dirflag},~{fpsr},~{flags}"()
; CHECK-NEXT:  %cs.thread = inttoptr i64 %cs.thread.tpoff to ptr addrspace(257)
; CHECK:       %pin.mark = load i64, ptr addrspace(257)
; The return block is phis and the return: the path that took the block
; gives it back on its way there, the other goes on untested.
; CHECK:       br label %done.pin.give
; CHECK:       done.pin.give:
; CHECK-NOT:   icmp ne i64 %pin.mark
; CHECK:       store i64 %pin.mark, ptr
; CHECK:       call preserve_mostcc void @__copystack_pin_release_entry(
; CHECK:       done:
; CHECK-NEXT:  %p = phi i64 [ 0, %entry ], [ %r, %{{[0-9]+}} ]
; CHECK-NEXT:  ret i64 %p
; OFF-LABEL:   define i64 @slow_path(
; OFF:         entry:
; OFF:         %pin.mark = load i64
; OFF:         br i1 %c
define i64 @slow_path(i1 %c, i64 %v) {
entry:
  %x = alloca i64
  br i1 %c, label %slow, label %done
slow:
  store i64 %v, ptr %x
  call void @keep(ptr %x)
  %r = load i64, ptr %x
  br label %done
done:
  %p = phi i64 [ %r, %slow ], [ 0, %entry ]
  ret i64 %p
}

; A return block with more than phis: the mark is tested there.
; CHECK-LABEL: define i64 @slow_path_sum(
; CHECK:       done:
; CHECK-NEXT:  %pin.mark.taken = phi i64 [ %pin.mark, %{{[0-9]+}} ], [ -1, %entry ]
; CHECK-NEXT:  %p = phi i64
; CHECK-NEXT:  %s = add i64 %p, %v
; CHECK:       icmp ne i64 %pin.mark.taken, -1
; CHECK:       store i64 %pin.mark.taken, ptr
; CHECK:       call preserve_mostcc void @__copystack_pin_release_entry(
define i64 @slow_path_sum(i1 %c, i64 %v) {
entry:
  %x = alloca i64
  br i1 %c, label %slow, label %done
slow:
  store i64 %v, ptr %x
  call void @keep(ptr %x)
  %r = load i64, ptr %x
  br label %done
done:
  %p = phi i64 [ %r, %slow ], [ 0, %entry ]
  %s = add i64 %p, %v
  ret i64 %s
}

; Three ways to the return, two of them without the block: only the one
; that took it gives back.
; CHECK-LABEL: define i64 @two_fast_paths(
; CHECK:       done.pin.give:
; CHECK:       call preserve_mostcc void @__copystack_pin_release_entry(
; CHECK:       done:
; CHECK-NOT:   pin.mark
; CHECK:       ret i64
define i64 @two_fast_paths(i1 %c, i1 %d, i64 %v) {
entry:
  %x = alloca i64
  br i1 %c, label %mid, label %done
mid:
  br i1 %d, label %slow, label %done
slow:
  store i64 %v, ptr %x
  call void @keep(ptr %x)
  %r = load i64, ptr %x
  br label %done
done:
  %p = phi i64 [ %r, %slow ], [ 0, %entry ], [ 1, %mid ]
  ret i64 %p
}

; CHECK-LABEL: define void @in_loop(
; CHECK:       entry:
; CHECK:       %pin.mark = load i64
; CHECK:       loop:
; CHECK-NOT:   pin.mark.taken
define void @in_loop(i64 %n) {
entry:
  %x = alloca i64
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  call void @keep(ptr %x)
  %i1 = add i64 %i, 1
  %e = icmp eq i64 %i1, %n
  br i1 %e, label %out, label %loop
out:
  ret void
}

; A use in a block that never runs (-O0 keeps them) constrains nothing: the
; block goes to the reachable use's block (csmith seeds 11, 15 and 181 made
; the pass crash here).
; CHECK-LABEL: define void @dead_use(i1 %c)
; CHECK:       entry:
; CHECK-NOT:   pin.mark
; CHECK:       slow:
; CHECK:       %pin.mark = load i64
define void @dead_use(i1 %c) {
entry:
  %x = alloca i64
  br i1 %c, label %slow, label %done
dead:
  call void @keep(ptr %x)
  br label %done
slow:
  call void @keep(ptr %x)
  br label %done
done:
  ret void
}
