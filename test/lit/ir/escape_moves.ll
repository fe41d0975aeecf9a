; Locals whose address may outlive the frame or sit where no map can see it
; move to the pinned area (Go's "moved to heap"), with a remark saying why.
; RUN: %opt -passes=copystack -pass-remarks='^copystack$' -S %s 2>&1 | FileCheck %s
target triple = "x86_64-pc-linux-gnu"

@keep = global ptr null
declare void @register_callback(ptr)
declare void @inspect(ptr nocapture)

; CHECK-DAG: remark: <unknown>:0:0: moved off the stack: global_kept (its address is stored where no frame map can see it)
; CHECK-DAG: remark: <unknown>:0:0: moved off the stack: passed_on (its address is passed to 'register_callback', which may keep it)
; CHECK-DAG: remark: <unknown>:0:0: moved off the stack: as_integer (its address is converted to an integer)
; CHECK-DAG: remark: <unknown>:0:0: moved off the stack: in_leaky_local (its address is stored in another local, which hands out what it holds)
define void @f() {
  %global_kept = alloca i32
  %passed_on = alloca i32
  %as_integer = alloca i32
  %in_leaky_local = alloca i32
  %holder = alloca ptr
  store ptr %global_kept, ptr @keep
  call void @register_callback(ptr %passed_on)
  %i = ptrtoint ptr %as_integer to i64
  %back = inttoptr i64 %i to ptr
  store i32 0, ptr %back
  store ptr %in_leaky_local, ptr %holder
  call void @inspect(ptr %holder)
  ret void
}
; The pinned block: inline allocation from the thread's pinned area: the
; block's top computed first, and when it would fall below the chunk's low
; end (a signed compare: no chunk is a top and low end of 0), the runtime
; starts a new chunk with 16 + 15 bytes free (the bytes needed in the
; thread's argument word, offset 88, its top in the result) and the block
; is carved from that top; the top given back on return.
; CHECK-LABEL: define void @f()
; CHECK:       %pin.mark = load i64
; CHECK:       %[[LO:[0-9]+]] = load i64
; CHECK-NEXT:  %[[LOW:[0-9]+]] = sub i64 %pin.mark, 16
; CHECK-NEXT:  %[[NEW:[0-9]+]] = and i64 %[[LOW]], -16
; CHECK-NEXT:  icmp slt i64 %[[NEW]], %[[LO]]
; CHECK:       %[[ARG:.*]] = getelementptr i8, ptr addrspace(257) %cs.thread, i64 88
; CHECK-NEXT:  store i64 31, ptr addrspace(257) %[[ARG]]
; CHECK-NEXT:  %[[GOT:.*]] = call preserve_mostcc i64 @__copystack_pin_grow_entry()
; CHECK-NEXT:  %[[SLOWLOW:[0-9]+]] = sub i64 %[[GOT]], 16
; CHECK-NEXT:  %[[SLOWNEW:[0-9]+]] = and i64 %[[SLOWLOW]], -16
; CHECK:       %pin.top = phi i64 [ %[[NEW]], %{{.*}} ], [ %[[SLOWNEW]], %{{.*}} ]
; CHECK-NEXT:  store i64 %pin.top, ptr
; CHECK:       %pinned = inttoptr i64 %pin.top to ptr, !copystack.pinned
; CHECK:       %global_kept.pinned = getelementptr i8, ptr %pinned, i64 0
; CHECK:       store ptr %global_kept.pinned, ptr @keep
; The top given back: a plain store when the mark lies in the thread's
; chunk (lo <= mark <= hi, two compares), else the runtime's release.
; CHECK:       %[[RLO:[0-9]+]] = load i64
; CHECK:       %[[RHI:[0-9]+]] = load i64
; CHECK-NEXT:  %[[BELOW:[0-9]+]] = icmp ult i64 %pin.mark, %[[RLO]]
; CHECK-NEXT:  %[[ABOVE:[0-9]+]] = icmp ugt i64 %pin.mark, %[[RHI]]
; CHECK-NEXT:  %[[OUT:[0-9]+]] = or i1 %[[BELOW]], %[[ABOVE]]
; CHECK-NEXT:  br i1 %[[OUT]]
; CHECK:       store i64 %pin.mark, ptr
; CHECK-NEXT:  call preserve_mostcc void @__copystack_pin_release_entry()
; CHECK:       store i64 %pin.mark, ptr

; A block whose size is known only at run time: top - size could wrap to an
; address above the top for a huge size, so the test is of the room itself
; (top - lo) against the bytes needed, unsigned.
; CHECK-LABEL: define void @vla(i64 %n)
; CHECK:       %[[VTOP:[0-9]+]] = load i64
; CHECK:       %[[VLO:[0-9]+]] = load i64
; CHECK:       %[[ROOM:[0-9]+]] = sub i64 %[[VTOP]], %[[VLO]]
; CHECK-NEXT:  icmp ult i64 %[[ROOM]],
; CHECK:       call preserve_mostcc i64 @__copystack_pin_grow_entry()
; CHECK:       %pin.from = phi i64 [ %[[VTOP]], %{{.*}} ], [ %{{.*}}, %{{.*}} ]
; CHECK-NEXT:  %[[VLOW:[0-9]+]] = sub i64 %pin.from,
; CHECK-NEXT:  %pin.top = and i64 %[[VLOW]], -16
define void @vla(i64 %n) {
  %buf = alloca i32, i64 %n
  store ptr %buf, ptr @keep
  ret void
}
