// verify.cc: naming the faults verify mode provokes (verify.h).
#include "split_stack_notes.h"
#include "verify.h"
#include "config.h"
#include "fatal.h"
#include "frame_info.h"
#include "stack_alloc.h"
#include "thread.h"

#include "copystack/abi.h"

#include <csignal>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <ucontext.h>

namespace copystack_rt {

namespace {

constexpr size_t kAltStack = 64 * 1024;
constexpr uintptr_t kPage = 4096;

struct sigaction g_previous_segv, g_previous_bus;
thread_local bool t_altstack_ready;

void handler(int sig, siginfo_t *si, void *uctx) {
  auto addr = reinterpret_cast<uintptr_t>(si->si_addr);
  auto *uc = static_cast<ucontext_t *>(uctx);
  auto pc = static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  Thread &th = __copystack_thread;
  if (th.task && addr >= th.task_lo - kPage && addr < th.task_lo)
    fatal("stack overflow: %s (pc %#lx) ran into the page below the stack "
          "[%#lx, %#lx) at %#lx: code without a prologue check used more "
          "than the %d-byte guard",
          symbol_name(pc), (unsigned long)pc, (unsigned long)th.task_lo,
          (unsigned long)th.task_hi, (unsigned long)addr, COPYSTACK_GUARD);
  char what[256];
  if (describe_fenced_address(addr, what, sizeof what))
    fatal("verify: %s (pc %#lx) used a pointer the relocation missed: %s",
          symbol_name(pc), (unsigned long)pc, what);
  // Not ours: let the fault happen again under the previous disposition.
  sigaction(sig, sig == SIGSEGV ? &g_previous_segv : &g_previous_bus,
            nullptr);
}

void install() {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_previous_segv);
  sigaction(SIGBUS, &sa, &g_previous_bus);
}

} // namespace

void prepare_verify_thread() {
  if (!config().verify || t_altstack_ready)
    return;
  static std::once_flag once;
  std::call_once(once, install);
  void *p = mmap(nullptr, kAltStack, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    fatal("cannot map an alternate signal stack for verify mode");
  stack_t ss;
  ss.ss_sp = p;
  ss.ss_size = kAltStack;
  ss.ss_flags = 0;
  sigaltstack(&ss, nullptr);
  t_altstack_ready = true;
}

} // namespace copystack_rt
