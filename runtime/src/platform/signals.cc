// signals.cc: alternate signal stacks and the sigaction interposer
// (signals.h).
#include "platform/signals.h"
#include "core/pin.h"
#include "platform/sanitizers.h"
#include "platform/constants.h"
#include "platform/fatal.h"
#include "platform/thread.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

extern "C" int __sigaction(int, const struct sigaction *, struct sigaction *);
// AddressSanitizer's, ThreadSanitizer's, UBSan's or LeakSanitizer's, if
// linked in.
extern "C" __attribute__((weak)) int
__interceptor_sigaction(int, const struct sigaction *, struct sigaction *);

namespace copystack_rt {

namespace {


constexpr size_t kAltStack = 64 * 1024;

using SigactionFn = int (*)(int, const struct sigaction *,
                            struct sigaction *);

SigactionFn resolve_sigaction() {
  // A sanitizer's sigaction, or the C library's, or an interposer loaded
  // before it (san::next_definition).
  auto *next = reinterpret_cast<SigactionFn>(san::next_definition(
      "sigaction", reinterpret_cast<void *>(__interceptor_sigaction)));
  return next ? next : &::__sigaction;
}

// The handler each signal's program asked for, while the kernel holds the
// trampoline for it. Written by sigaction() before the kernel sees the
// trampoline, read by the trampoline: no lock (sigaction is
// async-signal-safe and may be called from a handler).
struct Installed {
  std::atomic<void *> fn{nullptr};
  std::atomic<int> flags{0};
};
Installed g_installed[NSIG];

std::atomic<void (*)(bool)> g_handled_hook{nullptr};

// The signal the runtime keeps for itself (reserve_signal), or 0, and the
// disposition the program last asked for it.
std::atomic<int> g_reserved{0};
struct sigaction g_reserved_wish;

// The alternate stack this thread mapped, unmapped when the thread exits.
struct AltStack {
  void *base = nullptr;
  bool checked = false;
  ~AltStack() {
    if (!base)
      return;
    stack_t off;
    memset(&off, 0, sizeof off);
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
    munmap(base, kPage + kAltStack);
  }
};
thread_local AltStack t_altstack;

void trampoline(int sig, siginfo_t *info, void *uctx) {
  // The interrupted code may be a task whose frame is half-built below a
  // limit check; the handler runs on the alternate stack with the limit
  // cleared, so its instrumented code neither checks against a stack it is
  // not on nor moves one. A handler that siglongjmps back into a task gets
  // the limit back from the landing hook after setjmp.
  uintptr_t limit = read_limit();
  write_limit(0);
  san::SignalScope scope;
  int saved_errno = errno;
  // The handler's pinned locals get an area of their own (core/pin.h):
  // the interrupted code may be changing the thread's.
  Thread &th = __copystack_thread;
  const SignalPins pins = enter_signal_pins(th);
  Installed &in = g_installed[sig];
  void *fn = in.fn.load(std::memory_order_acquire);
  int flags = in.flags.load(std::memory_order_relaxed);
  if (flags & SA_SIGINFO)
    reinterpret_cast<void (*)(int, siginfo_t *, void *)>(fn)(sig, info, uctx);
  else
    reinterpret_cast<void (*)(int)>(fn)(sig);
  if (auto hook = g_handled_hook.load(std::memory_order_acquire))
    hook((flags & SA_RESTART) != 0);
  leave_signal_pins(th, pins);
  errno = saved_errno;
  write_limit(limit);
}

bool is_handler(const struct sigaction *act) {
  if (act->sa_flags & SA_SIGINFO)
    return true;
  return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

void *handler_of(const struct sigaction *act) {
  return (act->sa_flags & SA_SIGINFO)
             ? reinterpret_cast<void *>(act->sa_sigaction)
             : reinterpret_cast<void *>(act->sa_handler);
}

int interposed_sigaction(int sig, const struct sigaction *act,
                         struct sigaction *old) {
  if (sig <= 0 || sig >= NSIG)
    return system_sigaction(sig, act, old);
  if (sig == g_reserved.load(std::memory_order_acquire)) {
    struct sigaction prev = g_reserved_wish;
    if (act) {
      g_reserved_wish = *act;
      g_installed[sig].flags.store(act->sa_flags, std::memory_order_relaxed);
      g_installed[sig].fn.store(is_handler(act) ? handler_of(act) : nullptr,
                                std::memory_order_release);
    }
    if (old)
      *old = prev;
    return 0;
  }
  // What the program last asked for, in case the kernel reports the
  // trampoline as the old disposition.
  void *prev_fn = g_installed[sig].fn.load(std::memory_order_acquire);
  int prev_flags = g_installed[sig].flags.load(std::memory_order_relaxed);
  int rc;
  if (act && is_handler(act)) {
    struct sigaction mine = *act;
    g_installed[sig].flags.store(act->sa_flags, std::memory_order_relaxed);
    g_installed[sig].fn.store(handler_of(act), std::memory_order_release);
    mine.sa_sigaction = trampoline;
    mine.sa_flags |= SA_SIGINFO | SA_ONSTACK;
    rc = system_sigaction(sig, &mine, old);
  } else {
    rc = system_sigaction(sig, act, old);
  }
  if (rc == 0 && old && (old->sa_flags & SA_SIGINFO) &&
      old->sa_sigaction == trampoline) {
    old->sa_flags = prev_flags;
    if (prev_flags & SA_SIGINFO)
      old->sa_sigaction =
          reinterpret_cast<void (*)(int, siginfo_t *, void *)>(prev_fn);
    else
      old->sa_handler = reinterpret_cast<void (*)(int)>(prev_fn);
  }
  return rc;
}

// signal() with glibc's (BSD) semantics: restartable, and the handler
// stays installed.
sighandler_t interposed_signal(int sig, sighandler_t handler) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART;
  sigemptyset(&act.sa_mask);
  sigaddset(&act.sa_mask, sig);
  if (interposed_sigaction(sig, &act, &old) < 0)
    return SIG_ERR;
  return old.sa_handler;
}

} // namespace

void on_handled_signal(void (*hook)(bool restart)) {
  g_handled_hook.store(hook, std::memory_order_release);
}

int system_sigaction(int sig, const struct sigaction *act,
                     struct sigaction *old) {
  // No function-local static: its guard is __cxa_guard_acquire, which
  // TSan intercepts, and TSan's own start-up installs its handlers through
  // this function (the shared runtime interposes sigaction) before its
  // interceptors can run. Two threads resolving at once get the same.
  static std::atomic<SigactionFn> g_fn{nullptr};
  SigactionFn fn = g_fn.load(std::memory_order_acquire);
  if (!fn) {
    fn = resolve_sigaction();
    g_fn.store(fn, std::memory_order_release);
  }
  return fn(sig, act, old);
}

void reserve_signal(int sig, void (*handler)(int, siginfo_t *, void *)) {
  struct sigaction cur;
  if (interposed_sigaction(sig, nullptr, &cur) != 0)
    return;
  // What the program installed before: kept for forward_signal.
  g_reserved_wish = cur;
  if (is_handler(&cur) &&
      !g_installed[sig].fn.load(std::memory_order_acquire)) {
    g_installed[sig].flags.store(cur.sa_flags, std::memory_order_relaxed);
    g_installed[sig].fn.store(handler_of(&cur), std::memory_order_release);
  } else if (!is_handler(&cur)) {
    g_installed[sig].fn.store(nullptr, std::memory_order_release);
  }
  struct sigaction mine;
  memset(&mine, 0, sizeof mine);
  mine.sa_sigaction = handler;
  mine.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigfillset(&mine.sa_mask);
  if (system_sigaction(sig, &mine, nullptr) == 0)
    g_reserved.store(sig, std::memory_order_release);
}

void forward_signal(int sig, siginfo_t *info, void *uctx) {
  if (g_installed[sig].fn.load(std::memory_order_acquire))
    trampoline(sig, info, uctx);
}

void prepare_signal_stack() {
  AltStack &a = t_altstack;
  if (a.checked)
    return;
  a.checked = true;
  stack_t cur;
  if (sigaltstack(nullptr, &cur) == 0 && !(cur.ss_flags & SS_DISABLE))
    return; // the thread has its own
  // A guard page below, so that a handler overrunning the alternate stack
  // faults instead of writing over whatever is mapped beneath it.
  void *p = mmap(nullptr, kPage + kAltStack, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    fatal("cannot map a %zu-byte alternate signal stack", kAltStack);
  mprotect(p, kPage, PROT_NONE);
  stack_t ss;
  ss.ss_sp = static_cast<char *>(p) + kPage;
  ss.ss_size = kAltStack;
  ss.ss_flags = 0;
  if (sigaltstack(&ss, nullptr) != 0)
    fatal("sigaltstack failed: %s", strerror(errno));
  a.base = p;
}

} // namespace copystack_rt

// The program's sigaction() and signal() (and bsd_signal(), the same) come
// here. Not under a sanitizer, which interposes them itself.
#ifndef COPYSTACK_NO_INTERPOSERS
extern "C" {
__attribute__((visibility("default"))) int
sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  return copystack_rt::interposed_sigaction(sig, act, old);
}
__attribute__((visibility("default"))) sighandler_t signal(int sig,
                                                           sighandler_t h) {
  return copystack_rt::interposed_signal(sig, h);
}
__attribute__((visibility("default"))) sighandler_t bsd_signal(int sig,
                                                               sighandler_t h) {
  return copystack_rt::interposed_signal(sig, h);
}
}
#endif
