/*
 * copystack/abi.h: the contract between the copystack compiler passes and
 * the copystack runtime. Both sides include this file; nothing else crosses.
 *
 *   passes/FrameMaps.cpp     emits the tables described here (its LLVM struct
 *                            types must match the C structs below; it checks
 *                            the sizes with static_assert against this file)
 *   runtime/src/frame_info.cc reads them
 *   runtime/src/arch/x86_64/ (assembly) uses the constants through
 *                            asm_offsets.h
 *
 * Target: x86-64 Linux (System V ABI), glibc, LLVM 19 split-stack prologues.
 *
 * The prologue LLVM emits for every instrumented function:
 *
 *     frame < 256 bytes:   cmpq %fs:0x70, %rsp        ; ja body
 *     frame >= 256 bytes:  leaq -FRAME(%rsp), %r11
 *                          cmpq %fs:0x70, %r11        ; ja body
 *     slow path:           movl $FRAME, %r10d
 *                          movl $ARGBYTES, %r11d
 *                          callq __morestack
 *                          retq                       ; one byte: 0xc3
 *                          jmp body                   ; resumed here
 *
 * so the runtime keeps "stack lo + COPYSTACK_GUARD" in the thread control
 * block's split-stack slot while a task runs, and resumes the function at
 * (return address + 1) on the new stack.
 */
#ifndef COPYSTACK_ABI_H
#define COPYSTACK_ABI_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#endif

/* Bumped whenever a table layout or a symbol's contract changes. A runtime
 * refuses maps of another version with a message naming the function. */
#define COPYSTACK_ABI_VERSION 5

/* Offset of glibc's tcbhead_t.__private_ss on x86-64: the stack limit LLVM's
 * split-stack prologue compares against. 0 outside a copyable stack, so
 * instrumented code runs unchanged on ordinary thread stacks. On AArch64
 * (the port in progress, docs/porting.md) the word at TPIDR_EL0 + 8, which
 * glibc's thread control block ({dtv, private}) leaves unused. */
#if defined(__aarch64__)
#define COPYSTACK_TCB_LIMIT 8
#else
#define COPYSTACK_TCB_LIMIT 0x70
#endif

/* The guard band: the limit is stack lo + 928. Go's stackNosplit (800) +
 * StackSmall (128) on linux/amd64, the number the seed posts measure.
 * What runs below the limit without a check of its own:
 *   - up to 255 bytes of an instrumented frame: LLVM compares only %rsp, not
 *     %rsp - FRAME, for frames under 256 bytes (kSplitStackAvailable);
 *   - __morestack's register block (COPYSTACK_MORESTACK_BLOCK bytes below);
 *   - the runtime's entry stubs before they switch to the system stack;
 *   - code the backend calls on its own (memcpy, memset, __udivti3...),
 *     which must fit the rest. */
#define COPYSTACK_GUARD 928

/* The register block __morestack pushes on the task stack before it
 * switches stacks: xmm0-7 and every general register but %rsp, and the
 * return address into the asking function (runtime/src/core/copy.h,
 * MoreStackBlock). It lies within the guard band. */
#if defined(__aarch64__)
/* AArch64: q0-q7, x0-x15, x18-x30 and the asker's sp (arch/aarch64). */
#define COPYSTACK_MORESTACK_BLOCK 368
#else
#define COPYSTACK_MORESTACK_BLOCK 256
#endif

/* The own prologue (the default; -copystack-prologue=llvm gives LLVM's
 * split-stack prologue back; docs/abi.md): the
 * pass places the check itself, an inline asm at the start of the entry
 * block that LLVM's shrink-wrapping may leave before or after the frame:
 *   cmpq %fs:0x70, %rsp; ja 1f; movq $-1, %r10; movl $ARGBYTES, %r11d;
 *   callq __morestack; retq; 1:
 * %r10 = COPYSTACK_OWN_CHECK says so to __morestack (LLVM's prologue puts
 * the frame's size there), and the runtime reads from the unwind tables
 * whether the frame is already set up. A frame whose prologue takes
 * COPYSTACK_PROBE_FRAME bytes or more (beyond the pushed callee-saved
 * registers) is checked by LLVM's stack probe instead, a call of
 * COPYSTACK_SYM_STACK_PROBE with the size in %rax before the frame is
 * taken: exact, whatever the frame holds. Below that size a frame fits the
 * guard band's budget for an unchecked frame, pushes included. */
#define COPYSTACK_OWN_CHECK 0xffffffffffffffffull
#define COPYSTACK_PROBE_FRAME 208
/* Under the own prologue a function that makes calls goes without the
 * check when each of them is a direct call of a function of its module
 * that checks (and is not itself without one), its locals are static and
 * take at most COPYSTACK_ELIDED_LOCALS bytes, and nothing in it may become
 * a call of anything else. Its frame is then the one unchecked frame the
 * guard band's budget allows between a checked one and its callee's
 * check: under COPYSTACK_ELIDED_FRAME bytes, pushes included, which LLVM's
 * probe enforces from COPYSTACK_ELIDED_PROBE bytes taken beyond the
 * pushes. 256 (a checked frame) + 8 + 144 + 8 + 256 (the callee's frame
 * before its check) + 256 (COPYSTACK_MORESTACK_BLOCK) = 928. */
#define COPYSTACK_ELIDED_LOCALS 32
#define COPYSTACK_ELIDED_PROBE 96
#define COPYSTACK_ELIDED_FRAME 144
#define COPYSTACK_SYM_STACK_PROBE "__copystack_stack_probe"

/* The smallest stack a task starts with (Go's stackMin). */
#define COPYSTACK_MIN_STACK 2048

/* The default maximum a single stack may grow to: 1 GiB, as Go on 64-bit. */
#define COPYSTACK_DEFAULT_MAX_STACK (1ull << 30)

/* The runtime's entry points that instrumented code calls by name
 * (passes/ emits the calls, runtime/src defines them). */
#define COPYSTACK_SYM_MORESTACK "__morestack"
#define COPYSTACK_SYM_FOREIGN_CALL "__copystack_foreign_call_r10"
/* Its AArch64 name: the target in x18, LLVM's `nest` register there. */
#define COPYSTACK_SYM_FOREIGN_CALL_X18 "__copystack_foreign_call_x18"
#define COPYSTACK_SYM_LANDING_PAD "__copystack_landing_pad"
#define COPYSTACK_SYM_PARK "__copystack_park"
/* The pinned area's slow paths: __copystack_pin_grow and _release (below)
 * through the foreign-call trampoline, keeping every register but %r11
 * (LLVM's preserve_most convention, which instrumented code calls them
 * with: a frame with pinned locals keeps no more callee-saved registers
 * for this rare call than it would without it). */
#define COPYSTACK_SYM_PIN_GROW "__copystack_pin_grow_entry"
#define COPYSTACK_SYM_PIN_RELEASE "__copystack_pin_release_entry"
/* What a loop poll calls to yield (COPYSTACK_PREEMPT_LIMIT below), and the
 * prefix of the runtime's wrappers for blocking C library calls, which
 * instrumented code calls instead (passes/BlockingCalls.cpp; the list is
 * COPYSTACK_BLOCKING_CALLS, runtime/src/sched/io_calls.c defines them). */
#define COPYSTACK_SYM_PREEMPT "__copystack_preempt"
#define COPYSTACK_BLOCKING_PREFIX "__copystack_blocking_"

/* What the _begin half of a blocking primitive returns when the calling
 * task must park (copystack.h's inline functions, runtime/src/sched/sync.cc):
 * channel operations, wait groups and mutexes return COPYSTACK_MUST_PARK,
 * select (whose other results are case indexes) COPYSTACK_SELECT_MUST_PARK. */
#define COPYSTACK_MUST_PARK 2
#define COPYSTACK_SELECT_MUST_PARK (-2)

/* Preemption (Go's stackPreempt). The monitor asks a task that has run for
 * a time slice to yield by storing this value in its thread's split-stack
 * limit: every prologue check fails (it is above any stack address), and
 * __morestack hands the task back to the scheduler. Loops in which no
 * prologue check runs get a poll at their back edge that compares the limit
 * with this value and calls COPYSTACK_SYM_PREEMPT when they are equal
 * (passes/LoopPolls.cpp). Not ~0, the value stress and verify modes keep
 * there, so that those modes do not make every poll yield. */
#define COPYSTACK_PREEMPT_LIMIT 0xfffffffffffffffeull

/* A task whose in-place calls keep finding too little room (below) asks
 * for a bigger stack: after COPYSTACK_ROOM_MISSES failed room tests in a
 * task, COPYSTACK_SYM_NO_ROOM (which the failed test calls, with
 * preserve_most: it clobbers only %r11) stores this value in the limit,
 * unless a preemption request or stress and verify modes' ~0 is there.
 * The next prologue check fails, and __morestack grows the stack so that
 * the frames live have COPYSTACK_IN_PLACE_ROOM bytes below them (or
 * resumes when they already have). Without it a stack grows only to what
 * its deepest frame needs, and a task whose stack is a little short of the
 * room makes every one of those calls foreign, for good. */
#define COPYSTACK_ROOM_LIMIT 0xfffffffffffffffdull
#define COPYSTACK_ROOM_MISSES 64
#define COPYSTACK_SYM_NO_ROOM "__copystack_no_room"

/* The C library functions instrumented code calls through the runtime's
 * wrappers (COPYSTACK_BLOCKING_PREFIX + name), which park the calling task
 * instead of blocking its worker thread (io_calls.c), and pthread_exit,
 * whose wrapper tells the sanitizers that the thread ends, not the task
 * (thread_tasks.cc): X(name, parameter count). */
#define COPYSTACK_BLOCKING_CALLS(X)                                            \
  X(read, 3) X(write, 3) X(readv, 3) X(writev, 3) X(recv, 4)                   \
  X(recvfrom, 6) X(recvmsg, 3) X(send, 4) X(sendto, 6) X(sendmsg, 3)           \
  X(accept, 3) X(accept4, 4) X(connect, 3) X(poll, 3) X(ppoll, 4)              \
  X(select, 5) X(sleep, 1) X(usleep, 1) X(nanosleep, 2)                        \
  X(clock_nanosleep, 4) X(__read_chk, 4) X(__recv_chk, 5)                      \
  X(__recvfrom_chk, 7) X(__poll_chk, 4) X(pthread_exit, 1)                    \
  X(pthread_mutex_lock, 1) X(pthread_mutex_timedlock, 2)                       \
  X(pthread_mutex_clocklock, 3) X(pthread_cond_wait, 2)                        \
  X(pthread_cond_timedwait, 3) X(pthread_cond_clockwait, 4)                    \
  X(_ZNSt18condition_variable4waitERSt11unique_lockISt5mutexE, 2)             \
  X(sem_wait, 1) X(sem_timedwait, 2) X(sem_clockwait, 3)                     \
  X(pthread_rwlock_rdlock, 1) X(pthread_rwlock_timedrdlock, 2)                \
  X(pthread_rwlock_clockrdlock, 3) X(pthread_rwlock_wrlock, 1)                \
  X(pthread_rwlock_timedwrlock, 2) X(pthread_rwlock_clockwrlock, 3)           \
  X(pthread_barrier_wait, 1) X(pthread_barrier_destroy, 1)                   \
  X(pthread_once, 2) X(pthread_join, 2) X(thrd_join, 2)                      \
  X(pthread_timedjoin_np, 3) X(pthread_clockjoin_np, 4)                       \
  X(_ZNSt6thread4joinEv, 1) X(mtx_lock, 1) X(mtx_timedlock, 2)                \
  X(cnd_wait, 2) X(cnd_timedwait, 3) X(call_once, 2) X(sched_yield, 0)        \
  X(pread, 4) X(pwrite, 4) X(__pread_chk, 5) X(fsync, 1) X(fdatasync, 1)       \
  X(flock, 2) X(lockf, 3) X(waitpid, 3) X(wait, 1) X(waitid, 4)               \
  X(getaddrinfo, 4)                                                            \
  X(pread64, 4) X(pwrite64, 4) X(__pread64_chk, 5) X(lockf64, 3)             \
  X(_ZNSt28__atomic_futex_unsigned_base19_M_futex_wait_untilEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE, 6) \
  X(_ZNSt28__atomic_futex_unsigned_base26_M_futex_wait_until_steadyEPjjbNSt6chrono8durationIlSt5ratioILl1ELl1EEEENS2_IlS3_ILl1ELl1000000000EEEE, 6)

/* Every instrumented function is preceded by 24 bytes of prefix data:
 *
 *     entry - 24:  int32   offset of the function's copystack_frame_map,
 *                          relative to the function entry
 *     entry - 20:  uint32  COPYSTACK_ABI_VERSION
 *     entry - 16:  uint64  COPYSTACK_MAGIC
 *     entry -  8:  8 bytes the sanitizers' word: what clang's
 *                          -fsanitize=function (the signature 0xc105cafe,
 *                          then the type hash) or -fsanitize=kcfi (the type
 *                          hash in the last 4 bytes) put just before an
 *                          entry, where their checks at call sites read it;
 *                          COPYSTACK_PREFIX_FILLER in code built without
 *                          them (passes/Sanitizers.cpp)
 *
 * The magic is what call sites test ("may this callee run on a copyable
 * stack?") before calling code whose origin is not known at compile time;
 * the offset is how the runtime finds a frame's map from its function. A
 * PC-relative offset keeps .text free of dynamic relocations, so the maps
 * load in PIE executables and shared libraries with default link flags.
 * The sanitizers' word is there in every instrumented function, with the
 * sanitizers or without, so that the magic is at one place whatever flags
 * each object of a program was compiled with. */
#ifdef __ASSEMBLER__
#define COPYSTACK_MAGIC 0x6b6174737970636b /* "kcpystak" */
#define COPYSTACK_PREFIX_FILLER 0xcccccccccccccccc /* int3 x 8 */
#else
#define COPYSTACK_MAGIC 0x6b6174737970636bull
#define COPYSTACK_PREFIX_FILLER 0xccccccccccccccccull
#endif
#define COPYSTACK_PREFIX_BYTES 24
/* Where the magic is, before the entry. */
#define COPYSTACK_MAGIC_OFFSET 16

#ifndef __ASSEMBLER__
/* The prefix, as the runtime reads it at entry - sizeof(copystack_prefix)
 * (passes/FrameMaps.cpp emits it; static_asserts on both sides). */
typedef struct copystack_prefix {
  int32_t map_offset; /* of the copystack_frame_map, from the entry */
  uint32_t version;   /* COPYSTACK_ABI_VERSION */
  uint64_t magic;     /* COPYSTACK_MAGIC */
  uint64_t sanitizer; /* -fsanitize=function or kcfi data, or the filler */
} copystack_prefix;
#endif

/* Kinds of described locations in a frame (copystack_object.kind). */
#define COPYSTACK_OBJ_BITMAP 1       /* words marked in the bitmap are pointers */
#define COPYSTACK_OBJ_ALL_WORDS 2    /* every aligned word may be a pointer */
#define COPYSTACK_OBJ_NO_POINTERS 3  /* known to hold no pointer (verify mode) */
#define COPYSTACK_OBJ_JMPBUF_REF 4   /* an 8-byte slot holding a pointer to the
                                        glibc jmp_buf this frame last passed
                                        to setjmp (or null): the jmp_buf's
                                        saved %rsp and %rbp (mangled with the
                                        thread's pointer guard) and callee-saved
                                        registers may point into the stack */
#define COPYSTACK_OBJ_VALIST_REF 5   /* an 8-byte slot holding a pointer to a
                                        va_list that no stack object of this
                                        frame describes (pinned, on the heap,
                                        or reached through a pointer), or
                                        null: its overflow_arg_area and
                                        reg_save_area (words 1 and 2) may
                                        point into the stack */

/* copystack_object.flags */
#define COPYSTACK_OBJF_ESCAPED 1     /* offset comes from the resolve helper */
#define COPYSTACK_OBJF_ARGUMENT 2    /* lives in the caller's outgoing area:
                                        valid at __morestack time as well */
#define COPYSTACK_OBJF_OUTGOING 4    /* in this frame's outgoing-argument
                                        area: the offset is from the bottom
                                        of the frame (the callee's CFA), not
                                        from %rbp. Variadic arguments passed
                                        on the stack, which only the caller
                                        can describe */
#define COPYSTACK_OBJF_REG_SAVE_AREA 8 /* a va_list that va_start filled in
                                        this frame: besides its two pointers,
                                        the six integer registers saved in
                                        the register save area it points to
                                        may hold pointers (range-checked) */

/* copystack_frame_map.flags */
#define COPYSTACK_MAPF_ARGS_CONSERVATIVE 1 /* argument registers and the
                                              incoming stack-argument area could
                                              not be modelled: range-check all */
#define COPYSTACK_MAPF_VECTOR_ARGS 2       /* vector registers may carry
                                              pointers: range-check xmm0-7 */
#define COPYSTACK_MAPF_SP_OFFSETS 4        /* AArch64: the escaped objects'
                                              offsets are from the frame's
                                              bottom (the stack pointer at
                                              its calls), not from the frame
                                              pointer: LLVM's local address
                                              register without variable-sized
                                              objects */

/* The integer argument registers in System V order; bit i of gpr_mask. */
#define COPYSTACK_GPR_RDI 0
#define COPYSTACK_GPR_RSI 1
#define COPYSTACK_GPR_RDX 2
#define COPYSTACK_GPR_RCX 3
#define COPYSTACK_GPR_R8 4
#define COPYSTACK_GPR_R9 5

/* Every instrumented object refers to this symbol, which only the runtime
 * defines (runtime/src/link_marker.cc; the reference comes from
 * passes/CopyStack.cpp). Instrumented code linked without the runtime, as a
 * bare -fplugin build that forgot libcopystack, then fails to link with an
 * undefined reference that says what to do, beside the raw __copystack_*
 * ones; GNU ld, gold and lld all name it. */
#define COPYSTACK_RUNTIME_SYMBOL                                               \
  "__copystack_runtime_missing__link_libcopystack_or_use_copystack_cc"

/* A few C library functions are called in place on the task stack, not
 * through the foreign-call trampoline, when the stack has
 * COPYSTACK_IN_PLACE_ROOM bytes above the limit (rsp - ROOM >= limit,
 * unsigned: a limit above the stack pointer, as in stress and verify modes
 * or while a preemption is requested, fails it) and the runtime found at
 * start-up that the program's binding of each function of the group is
 * glibc's own (not an interposed allocator or library, not a sanitizer's
 * interceptor); it sets the group's bit in this int then. The groups:
 *   ALLOC  malloc, free, calloc, realloc (248-520 bytes of stack measured,
 *          arena creation and mmap paths included);
 *   MUTEX  pthread_mutex_unlock, and pthread_mutex_lock as a
 *          pthread_mutex_trylock in place that falls back to the foreign
 *          pthread_mutex_lock when the mutex is held (a task must not
 *          block its worker where the monitor cannot see it);
 *   SCAN   strcspn, strspn, strpbrk (glibc's generic versions keep a
 *          256-byte table on the stack);
 *   TREE   libstdc++'s red-black tree steps (_Rb_tree_increment and
 *          _decrement, _insert_and_rebalance, _rebalance_for_erase) and
 *          hashes (_Hash_bytes, _Fnv_hash_bytes): leaves that use no stack,
 *          so called in place without the room test, as memcpy is; the
 *          binding of each must be libstdc++.so.6's own;
 *   NEW    the global operator new and delete (_Znwm, _Znam, _ZdlPv,
 *          _ZdaPv, _ZdlPvm, _ZdaPvm), in place as what libstdc++'s own
 *          definitions do: malloc(n ? n : 1), and the call itself (foreign:
 *          the new handler, the exception) only when that returns null;
 *          free(p). Only with ALLOC, and when the binding of every one of
 *          them is libstdc++.so.6's own (a program that replaces any of
 *          them, or a sanitizer's interceptors, turns the group off);
 *   STRING libstdc++'s std::string members that instrumented code calls
 *          most (_M_append, _M_assign, _M_replace, _M_replace_aux,
 *          _M_construct(n, c), _M_erase and resize(n, c)), in place as the runtime's own copy of
 *          their paths that neither allocate nor throw: what fits the
 *          string's capacity (COPYSTACK_SYM_STRING_FAST + the name: a leaf
 *          that calls memcpy, memmove or memset, so no room test, as for
 *          TREE). It returns null where the string must grow (or the
 *          arguments overlap the string, for _M_replace), and the call
 *          itself is then made, foreign. The layout and these members'
 *          behaviour are libstdc++'s C++11 ABI, fixed since GCC 5. Only
 *          with ALLOC (a sanitizer's interceptors turn ALLOC off), and
 *          when the binding of every one of them is libstdc++.so.6's own.
 * Before the runtime's constructors run, and for every group in a static
 * executable that cannot tell, the calls are foreign calls. */
#define COPYSTACK_LIBC_IN_PLACE_SYMBOL "__copystack_libc_in_place"
#define COPYSTACK_IN_PLACE_ALLOC 1
#define COPYSTACK_IN_PLACE_MUTEX 2
#define COPYSTACK_IN_PLACE_SCAN 4
#define COPYSTACK_IN_PLACE_TREE 8
#define COPYSTACK_IN_PLACE_NEW 16
#define COPYSTACK_IN_PLACE_STRING 32
#define COPYSTACK_SYM_STRING_FAST "__copystack_fast."
#define COPYSTACK_IN_PLACE_ROOM 4096
/* The groups called in place without the room test: leaves that use no
 * stack to speak of, as memcpy (the guard band is room enough). */
#define COPYSTACK_IN_PLACE_NO_ROOM                                             \
  (COPYSTACK_IN_PLACE_TREE | COPYSTACK_IN_PLACE_STRING)
/* The std::string members of STRING (libstdc++'s C++11 ABI names). */
#define COPYSTACK_STRING_APPEND \
  "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_appendEPKcm"
#define COPYSTACK_STRING_ASSIGN \
  "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_assignERKS4_"
#define COPYSTACK_STRING_REPLACE \
  "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE10_M_replaceEmmPKcm"
#define COPYSTACK_STRING_REPLACE_AUX \
  "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE14_M_replace_auxEmmmc"
#define COPYSTACK_STRING_CONSTRUCT \
  "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructEmc"
#define COPYSTACK_STRING_ERASE \
  "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE8_M_eraseEmm"
#define COPYSTACK_STRING_RESIZE \
  "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE6resizeEmc"

/* Every function of those groups, one line each: the group, the name, the
 * C signature (the pass's names for them: PtrI64 is void *(uint64_t)) and
 * what runs in place (Same: the call itself; TryLock: pthread_mutex_trylock,
 * then the call itself when the mutex is held; NewAsMalloc, DeleteAsFree;
 * Fast: COPYSTACK_SYM_STRING_FAST + the name, then the call itself when
 * that returned null).
 * The pass rewrites calls of these; the runtime sets a group's bit when the
 * program's binding of every name of the group is the library's own (for
 * ALLOC, glibc's __libc_* entry points; NEW also needs ALLOC). */
#define COPYSTACK_IN_PLACE_FUNCTIONS(X)                                       \
  X(ALLOC, "malloc", PtrI64, Same)                                             \
  X(ALLOC, "free", VoidPtr, Same)                                              \
  X(ALLOC, "calloc", PtrI64I64, Same)                                          \
  X(ALLOC, "realloc", PtrPtrI64, Same)                                         \
  X(MUTEX, "pthread_mutex_lock", I32Ptr, TryLock)                              \
  X(MUTEX, "pthread_mutex_trylock", I32Ptr, Same)                              \
  X(MUTEX, "pthread_mutex_unlock", I32Ptr, Same)                               \
  X(SCAN, "strcspn", I64PtrPtr, Same)                                          \
  X(SCAN, "strspn", I64PtrPtr, Same)                                           \
  X(SCAN, "strpbrk", PtrPtrPtr, Same)                                          \
  X(TREE, "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base", PtrPtr, Same)     \
  X(TREE, "_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base", PtrPtr, Same)    \
  X(TREE, "_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base", PtrPtr, Same)     \
  X(TREE, "_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base", PtrPtr, Same)    \
  X(TREE, "_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_", \
    VoidBoolPtrPtrPtr, Same)                                                   \
  X(TREE, "_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_",      \
    PtrPtrPtr, Same)                                                           \
  X(TREE, "_ZSt11_Hash_bytesPKvmm", I64PtrI64I64, Same)                        \
  X(TREE, "_ZSt15_Fnv_hash_bytesPKvmm", I64PtrI64I64, Same)                    \
  X(NEW, "_Znwm", PtrI64, NewAsMalloc)                                         \
  X(NEW, "_Znam", PtrI64, NewAsMalloc)                                         \
  X(NEW, "_ZdlPv", VoidPtr, DeleteAsFree)                                      \
  X(NEW, "_ZdaPv", VoidPtr, DeleteAsFree)                                      \
  X(NEW, "_ZdlPvm", VoidPtrI64, DeleteAsFree)                                  \
  X(NEW, "_ZdaPvm", VoidPtrI64, DeleteAsFree)                                  \
  X(STRING, COPYSTACK_STRING_APPEND, PtrPtrPtrI64, Fast)                       \
  X(STRING, COPYSTACK_STRING_ASSIGN, VoidPtrPtr, Fast)                         \
  X(STRING, COPYSTACK_STRING_REPLACE, PtrPtrI64I64PtrI64, Fast)                \
  X(STRING, COPYSTACK_STRING_REPLACE_AUX, PtrPtrI64I64I64I8, Fast)             \
  X(STRING, COPYSTACK_STRING_CONSTRUCT, VoidPtrI64I8, Fast)                    \
  X(STRING, COPYSTACK_STRING_ERASE, VoidPtrI64I64, Fast)                      \
  X(STRING, COPYSTACK_STRING_RESIZE, VoidPtrI64I8, Fast)

/* Locals whose address may outlive their frame or be stored where no map
 * can see it live in the pinned area instead: a per-task LIFO area that
 * never moves (Go's "moved to heap"). Instrumented code allocates there
 * inline, through three fields of the runtime's per-thread state, the
 * initial-exec TLS symbol __copystack_thread:
 *
 *     top   the next free byte + 1; allocation goes down
 *     lo    the lowest usable byte of the current chunk
 *     hi    the highest: top when the chunk is empty
 *
 * A frame allocates N bytes aligned to A by setting top = (top - N) & -A
 * when that value, compared as signed, is at least lo (a thread without a
 * chunk has top and lo 0: the value is then negative); a size known only
 * at run time is tested as top - lo >= N + A - 1 instead, unsigned, since
 * top - N could wrap above top. The fields are read and written as
 * offsets from the thread pointer (%fs), whichever thread the task runs
 * on at that moment. Without the room, it stores N + A - 1 in the
 * thread's arg field and calls __copystack_pin_grow (through
 * COPYSTACK_SYM_PIN_GROW), which starts a chunk with that many bytes free
 * and returns its top, and allocates from there the same way. It gives its
 * bytes back by restoring the top it found, directly when that value lies
 * in [lo, hi], and otherwise by storing it in arg and calling
 * __copystack_pin_release (COPYSTACK_SYM_PIN_RELEASE). No request object
 * on the stack, so a frame whose only locals are pinned has no stack
 * object in its map and needs no frame pointer, and no argument register
 * the caller must free for this rare call. */
#define COPYSTACK_THREAD_SYMBOL "__copystack_thread"
/* The running task (0 outside tasks) and its stack [lo, hi): read by
 * copystack_stack_pointer() in copystack.h. */
#define COPYSTACK_THREAD_TASK 16
#define COPYSTACK_THREAD_TASK_LO 24
#define COPYSTACK_THREAD_TASK_HI 32
#define COPYSTACK_THREAD_PIN_TOP 48
#define COPYSTACK_THREAD_PIN_LO 56
#define COPYSTACK_THREAD_PIN_HI 64
#define COPYSTACK_THREAD_PIN_ARG 88

#ifndef __ASSEMBLER__
#ifdef __cplusplus
extern "C" {
#endif

/* Starts a pinned chunk with at least the thread's arg bytes free; returns
 * its top (the thread's pinned top, which the caller then lowers). */
uint64_t __copystack_pin_grow(void);
/* Puts the pinned top back to the thread's arg, a value outside the
 * current chunk. */
void __copystack_pin_release(void);

/* A location in a frame that may hold pointers into the stack. */
typedef struct copystack_object {
  int32_t offset;        /* from the frame's %rbp (argument objects: rbp + 16
                            is the first incoming stack argument) */
  uint32_t size;         /* bytes */
  uint32_t bitmap;       /* index of the first bitmap word (KIND_BITMAP) */
  uint16_t kind;         /* COPYSTACK_OBJ_* */
  uint16_t flags;        /* COPYSTACK_OBJF_* */
} copystack_object;

/* One per instrumented function, found through the prefix. Read-only and
 * free of dynamic relocations: the map refers to its name, its objects, its
 * bitmaps and its resolver by self-relative offsets (the field's own
 * address plus its value; 0: none), which the static linker fixes, so maps
 * cost no relocation at load time, sit in .rodata and are shared between
 * the processes that map the binary. The offsets of escaped objects are
 * not in the map: the runtime asks resolve for them. */
typedef struct copystack_frame_map {
  uint32_t version;      /* COPYSTACK_ABI_VERSION */
  uint32_t flags;        /* COPYSTACK_MAPF_* */
  int32_t name;          /* const char[]: the function's symbol name, for
                            diagnostics */
  /* void (*)(int32_t *out): writes the %rbp-relative offset of escaped
   * object i into out[i], for the objects with COPYSTACK_OBJF_ESCAPED,
   * which come first. Generated from llvm.localescape/llvm.localrecover,
   * so offsets are assembler constants. */
  int32_t resolve;
  int32_t objects;       /* const copystack_object[nobjects]; an escaped
                            object's offset there is 0 */
  int32_t bitmaps;       /* const uint64_t[]: one bit per 8-byte word, LSB
                            first */
  uint32_t nobjects;
  uint32_t nescaped;     /* objects with COPYSTACK_OBJF_ESCAPED */
  uint32_t gpr_mask;     /* integer argument registers holding pointers */
  uint32_t stack_arg_bytes; /* incoming stack-argument bytes: what LLVM loads
                               into %r11 before __morestack */
} copystack_frame_map;

/* The address a self-relative field names, or 0. */
static inline const void *copystack_map_target(const int32_t *field) {
  return *field ? (const char *)field + *field : (const void *)0;
}
static inline const char *copystack_map_name(const copystack_frame_map *m) {
  return (const char *)copystack_map_target(&m->name);
}
static inline const copystack_object *
copystack_map_objects(const copystack_frame_map *m) {
  return (const copystack_object *)copystack_map_target(&m->objects);
}
static inline const uint64_t *
copystack_map_bitmaps(const copystack_frame_map *m) {
  return (const uint64_t *)copystack_map_target(&m->bitmaps);
}
typedef void (*copystack_resolve_fn)(int32_t *out);
static inline copystack_resolve_fn
copystack_map_resolve(const copystack_frame_map *m) {
  return (copystack_resolve_fn)(uintptr_t)copystack_map_target(&m->resolve);
}

#ifdef __cplusplus
}
#endif
#endif /* __ASSEMBLER__ */

#endif /* COPYSTACK_ABI_H */
