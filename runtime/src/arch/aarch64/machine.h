// machine.h (AArch64): the runtime's target-specific pieces that are not
// assembly (x86_64/machine.h says what each is for).
#ifndef COPYSTACK_ARCH_MACHINE_H
#define COPYSTACK_ARCH_MACHINE_H

#include "copystack/abi.h"

#include <cstdint>
#include <ucontext.h>

namespace copystack_rt {

// The words of a va_list that may hold addresses in a stack: the AAPCS64
// va_list { __stack, __gr_top, __vr_top, __gr_offs, __vr_offs }
// (core/relocate.cc, valist).
constexpr int kVaListAddressWords[] = {0, 1, 2};

// The foreign-call trampoline's frame on the task stack (switch.S
// __copystack_foreign_call_x18): its frame record and the task's limit;
// the caller's sp after the call is its frame pointer plus this.
constexpr uintptr_t kForeignCallFrameBytes = 32;
// The preemption stub's frame (switch.S __copystack_preempt, frame160):
// its frame record at the bottom; the caller's sp is its frame pointer
// plus this.
constexpr uintptr_t kPreemptFrameBytes = 160;

// One step of a spinning wait.
inline void cpu_relax() { __asm__ volatile("yield" ::: "memory"); }

// The generic timer's virtual count (CNTVCT_EL0), readable at EL0 on
// Linux; platform/ticks.h calibrates it as it does the TSC.
inline uint64_t cycle_counter() {
  uint64_t v;
  __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v));
  return v;
}

// The split-stack limit of the calling thread (abi.h, COPYSTACK_TCB_LIMIT:
// the word at TPIDR_EL0 + 8, which glibc's AArch64 thread control block,
// {dtv, private}, leaves unused).
inline uintptr_t read_limit() {
  uintptr_t v, tp;
  __asm__ volatile("mrs %1, tpidr_el0\n\tldr %0, [%1, %2]"
                   : "=r"(v), "=&r"(tp)
                   : "i"(COPYSTACK_TCB_LIMIT));
  return v;
}
inline void write_limit(uintptr_t v) {
  uintptr_t tp;
  __asm__ volatile("mrs %0, tpidr_el0\n\tstr %1, [%0, %2]"
                   : "=&r"(tp)
                   : "r"(v), "i"(COPYSTACK_TCB_LIMIT)
                   : "memory");
}

// The registers of a context a signal interrupted.
inline uintptr_t context_pc(const ucontext_t *uc) {
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
}
inline uintptr_t context_sp(const ucontext_t *uc) {
  return static_cast<uintptr_t>(uc->uc_mcontext.sp);
}
inline uintptr_t context_fp(const ucontext_t *uc) {
  return static_cast<uintptr_t>(uc->uc_mcontext.regs[29]);
}
// The link register: a leaf's return address, and any function's until
// its prologue saved it.
inline uintptr_t context_lr(const ucontext_t *uc) {
  return static_cast<uintptr_t>(uc->uc_mcontext.regs[30]);
}
// Whether a SIGSEGV may be a register's value used as an address beyond
// the address space, whose bits 32-55 are high (the top byte is ignored,
// and the kernel clears it in si_addr; qemu-user reports such a fault at
// address 0): verify mode then looks for its poison in the registers.
inline bool fault_beyond_address_space(int, uintptr_t addr, uint32_t high) {
  return ((addr >> 32) & 0xffffff) == (high & 0xffffff) || addr == 0;
}
// Its general registers x0-x30, by index, with their names.
constexpr unsigned kContextGprs = 31;
inline uint64_t context_gpr(const ucontext_t *uc, unsigned i) {
  return uc->uc_mcontext.regs[i];
}
inline const char *context_gpr_name(unsigned i) {
  static constexpr const char *kName[kContextGprs] = {
      "x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",
      "x8",  "x9",  "x10", "x11", "x12", "x13", "x14", "x15",
      "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
      "x24", "x25", "x26", "x27", "x28", "x29", "x30"};
  return kName[i];
}

// glibc's AArch64 jmp_buf (sysdeps/aarch64/jmpbuf-offsets.h): x19-x28,
// x29, x30 (lr), a word unused, sp, d8-d15; lr and sp are mangled with the
// pointer guard (value ^ guard, no rotation), x29 is not.
namespace jmpbuf_abi {
enum {
  kX19, kX20, kX21, kX22, kX23, kX24, kX25, kX26, kX27, kX28, kX29, kLr,
  kUnused, kSp, kD8, kD9, kD10, kD11, kD12, kD13, kD14, kD15, kWords
};
constexpr int kPlain[] = {kX19, kX20, kX21, kX22, kX23, kX24,
                          kX25, kX26, kX27, kX28, kX29};
constexpr int kMangled[] = {kSp};

// glibc keeps the guard in a variable of its own (static) or of the
// dynamic linker's (GLIBC_PRIVATE), not in the thread control block:
// switch.S learns it from a setjmp, whose saved sp is the guard XOR the
// sp it was called with.
extern "C" uintptr_t __copystack_pointer_guard();
inline uintptr_t pointer_guard() {
  static const uintptr_t g = __copystack_pointer_guard();
  return g;
}
inline uintptr_t demangle(uintptr_t v) { return v ^ pointer_guard(); }
inline uintptr_t mangle(uintptr_t v) { return v ^ pointer_guard(); }
} // namespace jmpbuf_abi

} // namespace copystack_rt

#endif
