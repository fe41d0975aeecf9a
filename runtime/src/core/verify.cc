// verify.cc: naming the faults verify mode provokes (verify.h).
#include "platform/split_stack_notes.h"
#include "platform/demangle.h"
#include "core/verify.h"
#include "platform/config.h"
#include "platform/constants.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"
#include "platform/once.h"
#include "core/frame_info.h"
#include "machine.h"
#include "platform/signals.h"
#include "core/stack_alloc.h"
#include "platform/thread.h"

#include "copystack/abi.h"

#include <csignal>
#include <cstring>
#include <mutex>
#include <ucontext.h>

namespace copystack_rt {

namespace {



struct sigaction g_previous_segv, g_previous_bus;

void handler(int sig, siginfo_t *si, void *uctx) {
  auto addr = reinterpret_cast<uintptr_t>(si->si_addr);
  auto *uc = static_cast<ucontext_t *>(uctx);
  uintptr_t pc = context_pc(uc);
  Thread &th = __copystack_thread;
  san::SignalScope scope;
  // The task dump starts at the faulting instruction, when the fault is on
  // the task's own stack (frame_info.h interrupted_start).
  FrameStart at;
  if (th.task)
    interrupted_start(uctx, th.task_lo, th.task_hi, &at);
  if (th.task && addr >= th.task_lo - kPage && addr < th.task_lo)
    fatal_at(at,
             "stack overflow: %s (pc %#lx) ran into the page below the "
             "stack [%#lx, %#lx) at %#lx: code without a prologue check "
             "used more than the %d-byte guard",
             Demangled(symbol_name(pc)).str(), (unsigned long)pc,
             (unsigned long)th.task_lo, (unsigned long)th.task_hi,
             (unsigned long)addr, COPYSTACK_GUARD);
  // Poison, or poison plus a small offset, used as an address (machine.h
  // fault_beyond_address_space): named by a register that holds poison.
  constexpr uint64_t kHigh = 0x01010101ull * kPoison;
  if (sig == SIGSEGV && fault_beyond_address_space(si->si_code, addr,
                                                   uint32_t(kHigh))) {
    for (unsigned i = 0; i < kContextGprs; ++i) {
      const uint64_t v = context_gpr(uc, i);
      if (v >> 32 == kHigh)
        fatal_at(at,
                 "verify: %s (pc %#lx) used %s = %#lx, verify mode's "
                 "poison, as an address: a value read from a stack a task "
                 "left when its stack was copied (through a pointer the "
                 "relocation missed) or from dead stack below the frames",
                 Demangled(symbol_name(pc)).str(), (unsigned long)pc,
                 context_gpr_name(i), (unsigned long)v);
    }
  }
  char what[256];
  if (describe_fenced_address(addr, what, sizeof what))
    fatal_at(at,
             "verify: %s (pc %#lx) used a pointer the relocation missed: %s",
             Demangled(symbol_name(pc)).str(), (unsigned long)pc, what);
  // Not ours: let the fault happen again under the previous disposition.
  system_sigaction(sig, sig == SIGSEGV ? &g_previous_segv : &g_previous_bus,
                   nullptr);
}

void install() {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  system_sigaction(SIGSEGV, &sa, &g_previous_segv);
  system_sigaction(SIGBUS, &sa, &g_previous_bus);
}

} // namespace

void prepare_verify_thread() {
  if (!config().verify)
    return;
  static Once once;
  once.call(install);
}

} // namespace copystack_rt
