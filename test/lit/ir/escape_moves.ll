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
; The pinned block: inline allocation from the thread's pinned area; when
; the chunk has less than 16 + 15 bytes free, the runtime starts a new one
; (the bytes needed in the thread's argument word, offset 88, its top in
; the result), and the block is carved from whichever top; the top given
; back on return.
; CHECK-LABEL: define void @f()
; CHECK:       %pin.mark = load i64
; CHECK:       %[[FREE:.*]] = sub i64 %pin.mark,
; CHECK:       icmp ult i64 %[[FREE]], 31
; CHECK:       %[[ARG:.*]] = getelementptr i8, ptr %cs.thread, i64 88
; CHECK-NEXT:  store i64 31, ptr %[[ARG]]
; CHECK-NEXT:  %[[GOT:.*]] = call preserve_mostcc i64 @__copystack_pin_grow_entry()
; CHECK:       %pin.from = phi i64 [ %pin.mark, %{{.*}} ], [ %[[GOT]], %{{.*}} ]
; CHECK-NEXT:  %[[LOW:.*]] = sub i64 %pin.from, 16
; CHECK-NEXT:  %pin.top = and i64 %[[LOW]], -16
; CHECK-NEXT:  store i64 %pin.top, ptr
; CHECK:       %pinned = inttoptr i64 %pin.top to ptr, !copystack.pinned
; CHECK:       %global_kept.pinned = getelementptr i8, ptr %pinned, i64 0
; CHECK:       store ptr %global_kept.pinned, ptr @keep
; CHECK:       store i64 %pin.mark, ptr
; CHECK:       store i64 %pin.mark, ptr
; CHECK:       call preserve_mostcc void @__copystack_pin_release_entry()
