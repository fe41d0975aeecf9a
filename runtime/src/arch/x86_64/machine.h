// machine.h (x86-64): the runtime's target-specific pieces that are not
// assembly. Every architecture has its own machine.h in its folder of
// runtime/src/arch/, found through the include path the build sets
// (runtime/CMakeLists.txt, COPYSTACK_ARCH); docs/porting.md lists what is
// still x86-64's outside these folders.
#ifndef COPYSTACK_ARCH_MACHINE_H
#define COPYSTACK_ARCH_MACHINE_H

#include "copystack/abi.h"

#include <csignal>
#include <cstdint>
#include <ucontext.h>
#include <x86intrin.h>

namespace copystack_rt {

// The words of a va_list that may hold addresses in a stack: the System V
// ABI's __va_list_tag { gp_offset, fp_offset, overflow_arg_area,
// reg_save_area } (core/relocate.cc, valist).
constexpr int kVaListAddressWords[] = {1, 2};

// The foreign-call trampoline's frame on the task stack (switch.S): the
// return address into the caller and the saved %rbp; the caller's %rsp
// after the call is the trampoline's %rbp plus this.
constexpr uintptr_t kForeignCallFrameBytes = 16;
// The preemption stub's frame (switch.S __copystack_preempt): the return
// address and the saved %rbp; the caller's %rsp is its %rbp plus this.
constexpr uintptr_t kPreemptFrameBytes = 16;

// One step of a spinning wait.
inline void cpu_relax() { __builtin_ia32_pause(); }

// The CPU's cycle counter (platform/ticks.h decides whether it is usable).
inline uint64_t cycle_counter() { return __rdtsc(); }

// The split-stack limit of the calling thread (abi.h, COPYSTACK_TCB_LIMIT:
// glibc's split-stack word of the thread control block, %fs:0x70).
inline uintptr_t read_limit() {
  uintptr_t v;
  __asm__ volatile("movq %%fs:%c1, %0" : "=r"(v) : "i"(COPYSTACK_TCB_LIMIT));
  return v;
}
inline void write_limit(uintptr_t v) {
  __asm__ volatile("movq %0, %%fs:%c1"
                   :
                   : "r"(v), "i"(COPYSTACK_TCB_LIMIT)
                   : "memory");
}

// The registers of a context a signal interrupted.
inline uintptr_t context_pc(const ucontext_t *uc) {
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
}
inline uintptr_t context_sp(const ucontext_t *uc) {
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RSP]);
}
inline uintptr_t context_fp(const ucontext_t *uc) {
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RBP]);
}
// No link register: a call pushes the return address.
inline uintptr_t context_lr(const ucontext_t *) { return 0; }
// Whether a SIGSEGV may be a register's value used as an address beyond
// the address space: a general-protection fault (si_code SI_KERNEL, no
// address: the address is not canonical), as poison plus a small offset
// is; verify mode then looks for its poison in the registers.
inline bool fault_beyond_address_space(int si_code, uintptr_t, uint32_t) {
  return si_code == SI_KERNEL;
}
// Its general registers but the stack pointer, by index, with their names
// (verify mode names the one that held poison).
constexpr unsigned kContextGprs = 15;
inline uint64_t context_gpr(const ucontext_t *uc, unsigned i) {
  static constexpr int kReg[kContextGprs] = {
      REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, REG_RBP, REG_R8,
      REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  return static_cast<uint64_t>(uc->uc_mcontext.gregs[kReg[i]]);
}
inline const char *context_gpr_name(unsigned i) {
  static constexpr const char *kName[kContextGprs] = {
      "%rax", "%rbx", "%rcx", "%rdx", "%rsi", "%rdi", "%rbp", "%r8",
      "%r9",  "%r10", "%r11", "%r12", "%r13", "%r14", "%r15"};
  return kName[i];
}

// glibc's x86-64 jmp_buf: rbx rbp r12 r13 r14 r15 rsp pc; rbp, rsp and pc
// are mangled with the thread's pointer guard (tcbhead_t.pointer_guard,
// %fs:0x30): rol(value ^ guard, 0x11).
namespace jmpbuf_abi {
enum { kRbx, kRbp, kR12, kR13, kR14, kR15, kRsp, kPc, kWords };
// The words that may point into the stack, as they are and mangled.
constexpr int kPlain[] = {kRbx, kR12, kR13, kR14, kR15};
constexpr int kMangled[] = {kRbp, kRsp};

inline uintptr_t pointer_guard() {
  uintptr_t g;
  __asm__("movq %%fs:0x30, %0" : "=r"(g));
  return g;
}
inline uintptr_t demangle(uintptr_t v) {
  return ((v >> 0x11) | (v << (64 - 0x11))) ^ pointer_guard();
}
inline uintptr_t mangle(uintptr_t v) {
  v ^= pointer_guard();
  return (v << 0x11) | (v >> (64 - 0x11));
}
} // namespace jmpbuf_abi

} // namespace copystack_rt

#endif
