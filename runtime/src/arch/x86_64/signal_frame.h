// signal_frame.h (x86-64): the interrupted context a preemption signal
// stops (sched/preempt_signal.cc), as the kernel's signal frame holds it
// and as rt_sigreturn reads it back.
#ifndef COPYSTACK_ARCH_SIGNAL_FRAME_H
#define COPYSTACK_ARCH_SIGNAL_FRAME_H

#include <cpuid.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ucontext.h>

namespace copystack_rt {

namespace sigframe {

// What the stop takes of the task stack below the interrupted %rsp: the
// red zone, then __copystack_signal_preempt's 144 bytes (switch.S).
constexpr uintptr_t kRedZone = 128;
constexpr uintptr_t kStopBytes = kRedZone + 144;
// The kernel's struct ucontext on x86-64: flags, link, stack (24 bytes),
// the sigcontext (256, its fpstate pointer at 184), the signal mask (8).
constexpr size_t kUcBytes = 304;
constexpr size_t kUcFpregs = 40 + 184;
// The legacy FXSAVE area's software words (the kernel's
// _fpx_sw_bytes, at 464): magic1, the extended size.
constexpr size_t kSwBytes = 464;
constexpr uint32_t kXstateMagic1 = 0x46505853;
constexpr size_t kFxsaveBytes = 512;

// The saved context: rt_sigreturn reads the frame from %rsp - 8 (its
// return-address word), the ucontext at %rsp, and the XSAVE area through
// the ucontext's pointer, 64-byte aligned as XRSTOR needs.
struct Saved {
  alignas(64) unsigned char pretcode[8];
  unsigned char uc[kUcBytes];
  alignas(64) unsigned char fp[1];
};

inline size_t &fp_capacity() {
  static size_t bytes = 0; // of XSAVE area a context holds
  return bytes;
}

// Once, before any stop: the XSAVE area's size on this CPU.
inline void init() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  size_t xsave = kFxsaveBytes;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_OSXSAVE) &&
      __get_cpuid_count(0xd, 0, &eax, &ebx, &ecx, &edx))
    xsave = ebx > ecx ? ebx : ecx;
  fp_capacity() = xsave + 64; // the kernel's trailing magic, and slack
}

// The bytes one Saved takes.
inline size_t saved_bytes() { return offsetof(Saved, fp) + fp_capacity(); }

// Copies the interrupted context; false when it cannot be kept (no or an
// unexpected floating-point state).
inline bool save(Saved *s, void *uctx) {
  auto *uc = static_cast<ucontext_t *>(uctx);
  const auto *fp =
      reinterpret_cast<const unsigned char *>(uc->uc_mcontext.fpregs);
  if (!fp)
    return false;
  size_t fp_bytes = kFxsaveBytes;
  uint32_t sw[2];
  memcpy(sw, fp + kSwBytes, sizeof sw);
  if (sw[0] == kXstateMagic1)
    fp_bytes = sw[1];
  if (fp_bytes < kFxsaveBytes || fp_bytes > fp_capacity())
    return false;
  memcpy(s->uc, uctx, kUcBytes);
  memcpy(s->fp, fp, fp_bytes);
  // The stub and what runs after it get an empty x87 register stack (the
  // frame's status word: its TOP and flags; the abridged tag word).
  auto *live = const_cast<unsigned char *>(fp);
  memset(live + 2, 0, 2);
  live[4] = 0;
  return true;
}

// The handler returns into stub as if the interrupted instruction had
// called it, below the red zone; the scheduler's code runs with the
// direction and alignment-check flags clear whatever the interrupted code
// had.
inline void redirect(void *uctx, uintptr_t stub) {
  auto *uc = static_cast<ucontext_t *>(uctx);
  greg_t *g = uc->uc_mcontext.gregs;
  const uintptr_t at = static_cast<uintptr_t>(g[REG_RSP]) - kRedZone - 8;
  *reinterpret_cast<uintptr_t *>(at) = static_cast<uintptr_t>(g[REG_RIP]);
  g[REG_RSP] = static_cast<greg_t>(at);
  g[REG_RIP] = static_cast<greg_t>(stub);
  g[REG_EFL] &= ~greg_t(0x40400); // AC, DF
}

// The stopped frame, from the stub's frame (its %rbp: the interrupted
// %rbp, then the pc the handler pushed below the red zone): the
// interrupted pc + 1 (taken as a return address), %rsp and %rbp; no link
// register.
inline void stopped_frame(const uint64_t *record, uintptr_t *pc,
                          uintptr_t *sp, uintptr_t *fp, uintptr_t *lr) {
  *fp = record[0];
  *pc = record[1] + 1;
  *sp = reinterpret_cast<uintptr_t>(record) + 16 + kRedZone;
  *lr = 0;
}

// Every register back as the signal found it, by the kernel.
[[noreturn]] inline void resume(Saved *s) {
  unsigned char *fp = s->fp;
  memcpy(s->uc + kUcFpregs, &fp, sizeof fp);
  __asm__ volatile("movq %0, %%rsp\n\t"
                   "movl $15, %%eax\n\t" // rt_sigreturn
                   "syscall\n\t"
                   "ud2"
                   :
                   : "r"(s->uc)
                   : "memory");
  __builtin_unreachable();
}

} // namespace sigframe

} // namespace copystack_rt

#endif
