// signal_frame.h (AArch64): the interrupted context a preemption signal
// stops (sched/preempt_signal.cc; x86_64/signal_frame.h says what each
// piece is for), as the kernel's signal frame holds it and as rt_sigreturn
// reads it back.
//
// The kernel's frame is {siginfo (128 bytes), ucontext}, and glibc's
// ucontext_t has the kernel's layout: its 128-byte sigset_t is the kernel's
// mask and the padding after it, and mcontext_t ends in the 4096-byte
// __reserved area whose records hold the rest of the state (fpsimd_context:
// FPSR, FPCR, v0-v31; SVE's registers when they are live; esr_context). A
// record that points outside the frame (extra_context, for SVE vectors too
// long to fit) is not copied: such a stop is refused. rt_sigreturn reads
// the frame at the stack pointer, which must be 16-byte aligned. No red
// zone on AArch64.
#ifndef COPYSTACK_ARCH_SIGNAL_FRAME_H
#define COPYSTACK_ARCH_SIGNAL_FRAME_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ucontext.h>

namespace copystack_rt {

namespace sigframe {

// What the stop takes of the task stack below the interrupted sp: the
// stop record __copystack_signal_preempt starts with (32 bytes, at most
// 16 more to align it) and __copystack_park's switch frame (176).
constexpr uintptr_t kStopBytes = 32 + 16 + 176;

constexpr uint32_t kExtraMagic = 0x45585401; // extra_context

struct Saved {
  alignas(16) unsigned char info[128];
  ucontext_t uc;
};

inline void init() {}
inline size_t saved_bytes() { return sizeof(Saved); }

inline bool save(Saved *s, void *uctx) {
  auto *uc = static_cast<ucontext_t *>(uctx);
  // The records of __reserved, up to the terminator (magic 0).
  const auto *r = reinterpret_cast<const unsigned char *>(
      uc->uc_mcontext.__reserved);
  const size_t n = sizeof uc->uc_mcontext.__reserved;
  for (size_t off = 0; off + 8 <= n;) {
    uint32_t head[2];
    memcpy(head, r + off, sizeof head);
    if (head[0] == 0)
      break;
    if (head[0] == kExtraMagic || head[1] < 8 || head[1] % 16 != 0)
      return false;
    off += head[1];
  }
  memcpy(&s->uc, uc, sizeof(ucontext_t));
  return true;
}

// The handler returns into stub with a stop record below the interrupted
// sp: a frame record {x29, pc}, as if the interrupted instruction had
// called the stub and the stub had saved it, then the interrupted x30 and
// sp, which a walk of the stopped task's frames starts from (a leaf
// returns through x30; the record's alignment hides the sp). The stub's
// unwind rules say the same (switch.S).
inline void redirect(void *uctx, uintptr_t stub) {
  auto *uc = static_cast<ucontext_t *>(uctx);
  const uintptr_t at = (uc->uc_mcontext.sp - 32) & ~uintptr_t(15);
  auto *record = reinterpret_cast<uint64_t *>(at);
  record[0] = uc->uc_mcontext.regs[29];
  record[1] = uc->uc_mcontext.pc;
  record[2] = uc->uc_mcontext.regs[30];
  record[3] = uc->uc_mcontext.sp;
  uc->uc_mcontext.sp = at;
  uc->uc_mcontext.pc = stub;
}

// The stopped frame, from the stop record at the stub's frame pointer:
// the interrupted pc + 1 (taken as a return address), sp, x29 and x30.
inline void stopped_frame(const uint64_t *record, uintptr_t *pc,
                          uintptr_t *sp, uintptr_t *fp, uintptr_t *lr) {
  *fp = record[0];
  *pc = record[1] + 1;
  *lr = record[2];
  *sp = record[3];
}

[[noreturn]] inline void resume(Saved *s) {
  __asm__ volatile("mov sp, %0\n\t"
                   "mov x8, #139\n\t" // rt_sigreturn
                   "svc #0\n\t"
                   "udf #0"
                   :
                   : "r"(s)
                   : "memory");
  __builtin_unreachable();
}

} // namespace sigframe

} // namespace copystack_rt

#endif
