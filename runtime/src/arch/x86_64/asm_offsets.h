/*
 * asm_offsets.h: field offsets and layouts shared by the x86-64 assembly and
 * the C++ runtime. platform/thread.h, sched/task.h and core/copy.h check
 * every one of them with static_assert against the C++ structs; the .S
 * files use them as is.
 */
#ifndef COPYSTACK_ASM_OFFSETS_H
#define COPYSTACK_ASM_OFFSETS_H

#include "copystack/abi.h"

#include "arch/thread_offsets.h"

/* The switch frame __copystack_switch leaves on a suspended stack, from the
 * saved %rsp up: r15 r14 r13 r12 rbx rbp, then the return address. */
#define SWITCH_MXCSR 0
#define SWITCH_FPUCW 4
#define SWITCH_FPUSW 6
#define SWITCH_ERRNO 8
#define SWITCH_R15 16
#define SWITCH_R14 24
#define SWITCH_R13 32
#define SWITCH_R12 40
#define SWITCH_RBX 48
#define SWITCH_RBP 56
#define SWITCH_RET 64
#define SWITCH_FRAME_BYTES 72

/* The register block __morestack pushes on the task stack, from its lowest
 * address: xmm0-7, then the general registers in the reverse order of their
 * pushes, then the return address into the asking function (which points at
 * the one-byte ret of LLVM's slow path), then that function's own return
 * address. */
#define MS_XMM0 0
#define MS_R15 128
#define MS_R14 136
#define MS_R13 144
#define MS_R12 152
#define MS_R11 160
#define MS_R10 168
#define MS_R9 176
#define MS_R8 184
#define MS_RDI 192
#define MS_RSI 200
#define MS_RDX 208
#define MS_RCX 216
#define MS_RBX 224
#define MS_RAX 232
#define MS_RBP 240
#define MS_RET 248           /* into the asking function's slow path */
#define MS_CALLER_RET 256    /* the asking function's return address */
#define MS_BLOCK_BYTES 256   /* everything below MS_CALLER_RET */

#endif
