/*
 * asm_offsets.h (AArch64): field offsets and layouts shared by the AArch64
 * assembly and the C++ runtime (x86_64/asm_offsets.h is the model).
 * frames.h checks every one of them with static_assert against the C++
 * structs; the .S files use them as is.
 */
#ifndef COPYSTACK_ASM_OFFSETS_H
#define COPYSTACK_ASM_OFFSETS_H

#include "copystack/abi.h"

#include "arch/thread_offsets.h"

/* The switch frame __copystack_switch leaves on a suspended stack, from the
 * saved sp up: the thread state of the side that switched out (FPCR, FPSR,
 * errno), the callee-saved low halves of v8-v15, the callee-saved
 * x19-x28, then the frame record (x29, x30: the return address), last as
 * on x86-64: the integers first, the return address at the frame's end. */
#define SWITCH_FPCR 0
#define SWITCH_FPSR 4
#define SWITCH_ERRNO 8
#define SWITCH_D8 16         /* d8..d15 */
#define SWITCH_X19 80        /* x19..x28 at 80 + 8 * (n - 19) */
#define SWITCH_X29 160
#define SWITCH_RET 168       /* x30 */
#define SWITCH_FRAME_BYTES 176

/* The register block __morestack saves, from its lowest address: q0-q7,
 * x0-x15, x18-x29, the asking function's sp at its check, and the return
 * address into it (x30 at its check: the address of the udf after its
 * call), last, right below that sp. __morestack builds it on the thread's
 * stack (the asker's sp may lie below its stack: the check runs after the
 * frame is set up); __copystack_grow puts it right below the asker's sp
 * on the task's stack (growth.cc), where it is restored from. */
#define MS_Q0 0
#define MS_X0 128            /* x0..x15 at 128 + 8 * n */
#define MS_X18 256           /* x18..x29 at 256 + 8 * (n - 18) */
#define MS_X29 344
#define MS_SP 352
#define MS_RET 360
#define MS_BLOCK_BYTES 368

/* The vector registers __morestack keeps apart from the block, in the
 * thread's stack while the runtime runs: q8-q31 whole (the check may run
 * where any of them holds a value; the C calling convention keeps only the
 * low halves of v8-v15). */
#define MS_WIDE_BYTES 384

#endif
