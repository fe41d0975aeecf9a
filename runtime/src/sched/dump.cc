// dump.cc: the task dump (dump.h).
#include "platform/split_stack_notes.h"
#include "sched/dump.h"
#include "core/copy.h"
#include "core/frame_info.h"
#include "platform/config.h"
#include "platform/demangle.h"
#include "platform/fatal.h"
#include "platform/sanitizers.h"
#include "platform/signals.h"
#include "platform/thread.h"
#include "sched/io_calls.h"
#include "sched/scheduler.h"
#include "sched/task.h"
#include "sched/task_frames.h"

#include <cerrno>
#include <cstdarg>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <spawn.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

namespace copystack_rt {

namespace {

// Distinct addresses symbolized per dump; beyond, frames show raw.
constexpr uint32_t kMaxAddrs = 8192;
// Bytes of symbolizer output kept.
constexpr size_t kTextBytes = 4 << 20;
// How long the symbolizer may take before the dump goes on without it.
constexpr int kSymbolizerSeconds = 10;

// Set in a signal handler: nothing that may allocate.
bool g_in_signal = false;

void out(const char *s, size_t n) { write_fd(2, s, n); }
void out(const char *s) { out(s, strlen(s)); }

__attribute__((format(printf, 1, 2))) void outf(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0)
    out(buf, static_cast<size_t>(n) < sizeof buf ? static_cast<size_t>(n)
                                                  : sizeof buf - 1);
}

void *map_bytes(size_t n) {
  void *p = mmap(nullptr, n, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

// ---- symbols ---------------------------------------------------------------------

// What one address is: lines of "function at file:line" (more than one
// when calls were inlined there, innermost first), or null.
struct Addr {
  uintptr_t pc;
  const char *text;
};

struct Symbols {
  Addr *table = nullptr; // open addressing, kMaxAddrs * 2 slots
  uint32_t n = 0;
  char *text = nullptr; // the symbolizer's output, parsed in place
};

Symbols g_syms;

uint32_t slot_of(uintptr_t pc) {
  return static_cast<uint32_t>((pc * 0x9e3779b97f4a7c15ull) >> 40) %
         (2 * kMaxAddrs);
}

Addr *find(uintptr_t pc, bool insert) {
  if (!g_syms.table)
    return nullptr;
  for (uint32_t i = slot_of(pc), k = 0; k < 2 * kMaxAddrs;
       ++k, i = (i + 1) % (2 * kMaxAddrs)) {
    Addr &a = g_syms.table[i];
    if (a.pc == pc)
      return &a;
    if (!a.pc) {
      if (!insert || g_syms.n >= kMaxAddrs)
        return nullptr;
      a.pc = pc;
      ++g_syms.n;
      return &a;
    }
  }
  return nullptr;
}

// The address to look up for a return address: the call before it.
uintptr_t lookup_pc(uintptr_t ret) { return ret - 1; }

const char *find_symbolizer(const Config *c) {
  const char *want = c ? c->symbolizer : "";
  if (strcmp(want, "0") == 0)
    return nullptr;
  if (*want)
    return access(want, X_OK) == 0 ? want : nullptr;
  static const char *const kCandidates[] = {
      "/usr/lib/llvm-19/bin/llvm-symbolizer", "/usr/bin/llvm-symbolizer-19",
      "/usr/bin/llvm-symbolizer"};
  for (const char *p : kCandidates)
    if (access(p, X_OK) == 0)
      return p;
  return nullptr;
}

// The executable's load bias when pc is in one of its segments: what a
// static executable (-static, -static-pie) has instead of dladdr, which
// knows only objects the dynamic linker loaded.
bool in_executable(uintptr_t pc, uintptr_t *bias) {
  struct Search {
    uintptr_t pc, bias;
    bool found;
  } s{pc, 0, false};
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *arg) {
        auto *s = static_cast<Search *>(arg);
        if (info->dlpi_name && info->dlpi_name[0])
          return 1; // the executable is the first object, with no name
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr) &ph = info->dlpi_phdr[i];
          uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && s->pc - lo < ph.p_memsz) {
            s->bias = info->dlpi_addr;
            s->found = true;
          }
        }
        return 1;
      },
      &s);
  *bias = s.bias;
  return s.found;
}

// The executable, for the symbolizer: a descriptor of it that the dump
// opens while the symbolizer runs (ExeFd, below), named through
// /proc/PID/fd. Not /proc/PID/exe: under qemu-user that is the emulator,
// while the program's own open of /proc/self/exe (which qemu answers)
// gives the program; natively the two are the same file.
int g_exe_fd = -1;

void executable_path(char *path, size_t len) {
  if (g_exe_fd >= 0)
    snprintf(path, len, "/proc/%d/fd/%d", static_cast<int>(getpid()),
             g_exe_fd);
  else
    snprintf(path, len, "/proc/%d/exe", static_cast<int>(getpid()));
}

// Raw system calls, as os_threads' in deadlock.cc: ThreadSanitizer would
// track the descriptor through the C library's calls.
struct ExeFd {
  ExeFd() {
    g_exe_fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD,
                                        "/proc/self/exe",
                                        O_RDONLY | O_CLOEXEC));
  }
  ~ExeFd() {
    if (g_exe_fd >= 0)
      syscall(SYS_close, g_exe_fd);
    g_exe_fd = -1;
  }
  ExeFd(const ExeFd &) = delete;
  ExeFd &operator=(const ExeFd &) = delete;
};

// The module and the offset llvm-symbolizer wants for pc.
bool module_of(uintptr_t pc, char *path, size_t len, uintptr_t *offset) {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(pc), &info) || !info.dli_fbase) {
    uintptr_t bias;
    if (!in_executable(pc, &bias))
      return false;
    executable_path(path, len);
    *offset = pc - bias; // an ET_EXEC's bias is 0
    return true;
  }
  static uintptr_t main_base = [] {
    Dl_info m;
    return dladdr(reinterpret_cast<void *>(getauxval(AT_ENTRY)), &m)
               ? reinterpret_cast<uintptr_t>(m.dli_fbase)
               : 0;
  }();
  auto base = reinterpret_cast<uintptr_t>(info.dli_fbase);
  if (base == main_base)
    executable_path(path, len);
  else if (info.dli_fname && info.dli_fname[0])
    snprintf(path, len, "%s", info.dli_fname);
  else
    return false;
  const auto *eh = reinterpret_cast<const Elf64_Ehdr *>(base);
  *offset = eh->e_type == ET_EXEC ? pc : pc - base;
  return true;
}

// Under TSan the symbolizer starts through posix_spawn (below), whose file
// actions allocate, and the dump may run in a signal handler (TSan reports
// an allocation there, and it could deadlock): the symbolizer's files and
// file actions are made when the quit handler is installed.
struct SpawnPlan {
  int in = -1, out = -1;
  posix_spawn_file_actions_t fa;
  bool ready = false;
};
SpawnPlan g_spawn;

void prepare_spawn() {
  SpawnPlan &p = g_spawn;
  if (p.ready)
    return;
  p.in = memfd_create("copystack-dump-in", MFD_CLOEXEC);
  p.out = memfd_create("copystack-dump-out", MFD_CLOEXEC);
  const bool actions = p.in >= 0 && p.out >= 0 &&
                       posix_spawn_file_actions_init(&p.fa) == 0;
  if (actions && posix_spawn_file_actions_adddup2(&p.fa, p.in, 0) == 0 &&
      posix_spawn_file_actions_adddup2(&p.fa, p.out, 1) == 0 &&
      posix_spawn_file_actions_addopen(&p.fa, 2, "/dev/null", O_WRONLY, 0) ==
          0) {
    p.ready = true;
    return;
  }
  // What was made goes back: the next dump outside a handler tries again.
  if (actions)
    posix_spawn_file_actions_destroy(&p.fa);
  if (p.in >= 0)
    close(p.in);
  if (p.out >= 0)
    close(p.out);
  p.in = p.out = -1;
}

// Runs the symbolizer once over every address in the table, and points
// each entry at its lines in the output.
void symbolize(const char *tool) {
  const ExeFd exe;
  int in, outfd;
  if (san::tsan()) {
    if (!g_in_signal)
      prepare_spawn();
    if (!g_spawn.ready)
      return;
    in = g_spawn.in;
    outfd = g_spawn.out;
    if (ftruncate(in, 0) != 0 || ftruncate(outfd, 0) != 0)
      return;
    lseek(in, 0, SEEK_SET);
  } else {
    in = memfd_create("copystack-dump-in", MFD_CLOEXEC);
    outfd = memfd_create("copystack-dump-out", MFD_CLOEXEC);
  }
  if (in < 0 || outfd < 0)
    return;
  // The order of the requests is the order of the table's used slots.
  for (uint32_t i = 0; i < 2 * kMaxAddrs; ++i) {
    const Addr &a = g_syms.table[i];
    if (!a.pc)
      continue;
    char path[512], line[640];
    uintptr_t off = 0;
    int n = module_of(a.pc, path, sizeof path, &off)
                ? snprintf(line, sizeof line, "\"%s\" %#lx\n", path,
                           static_cast<unsigned long>(off))
                : snprintf(line, sizeof line, "\"/\" 0x0\n");
    write_fd(in, line, static_cast<size_t>(n));
  }
  lseek(in, 0, SEEK_SET);
  const char *argv[] = {tool, "--inlines", "--demangle", "--functions=linkage",
                        nullptr};
  const char *envp[] = {nullptr};
  pid_t pid = -1;
  if (san::tsan()) {
    // TSan turns vfork into fork, which runs the atfork handlers (they take
    // the runtime's locks, one of which a deadlock report holds) and starts
    // its own threads in the child. posix_spawn clones without either.
    // (Files and file actions: prepare_spawn.)
    if (posix_spawn(&pid, tool, &g_spawn.fa, nullptr,
                    const_cast<char *const *>(argv),
                    const_cast<char *const *>(envp)) != 0)
      pid = -1;
  } else {
    // vfork: no atfork handlers (they take the scheduler's locks), nothing
    // copied, nothing allocated (the dump may run in a signal handler); the
    // child only redirects and executes.
    pid = vfork();
    if (pid == 0) {
      dup2(in, 0);
      dup2(outfd, 1);
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0)
        dup2(null, 2);
      execve(tool, const_cast<char *const *>(argv),
             const_cast<char *const *>(envp));
      _exit(127);
    }
  }
  if (pid < 0)
    return;
  int status = 0;
  for (int tries = 0;; ++tries) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR))
      break;
    if (tries >= kSymbolizerSeconds * 100) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return;
    }
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return;
  off_t size = lseek(outfd, 0, SEEK_END);
  if (size <= 0 || static_cast<size_t>(size) >= kTextBytes)
    return;
  g_syms.text = static_cast<char *>(map_bytes(kTextBytes));
  if (!g_syms.text || pread(outfd, g_syms.text, size, 0) != size)
    return;
  g_syms.text[size] = 0;
  // One block per request, in order: "function\nfile:line:column\n" pairs
  // (several when calls were inlined there), then an empty line.
  char *p = g_syms.text;
  for (uint32_t i = 0; i < 2 * kMaxAddrs && *p; ++i) {
    Addr &a = g_syms.table[i];
    if (!a.pc)
      continue;
    a.text = p;
    char *end = strstr(p, "\n\n");
    if (!end)
      break;
    end[1] = 0;
    p = end + 2;
  }
}

// One "function\nfile:line:column\n" pair of a block: the function and
// "file:line" (null when unknown). Returns the next pair, or null.
const char *next_pair(const char *p, const char **fn, int *fn_len,
                      const char **loc, int *loc_len) {
  const char *fn_end = strchr(p, '\n');
  if (!fn_end)
    return nullptr;
  const char *l = fn_end + 1;
  const char *l_end = strchr(l, '\n');
  if (!l_end)
    return nullptr;
  *fn = p;
  *fn_len = static_cast<int>(fn_end - p);
  if (*fn_len == 2 && p[0] == '?')
    *fn = nullptr;
  // A function's dispatch stub is an alias of it (docs/abi.md), which the
  // symbolizer may name instead: a static link leaves the hidden alias
  // global in the symbol table.
  static const char kDispatch[] = "__copystack_dispatch.";
  constexpr int kDispatchLen = sizeof kDispatch - 1;
  if (*fn && *fn_len > kDispatchLen &&
      strncmp(p, kDispatch, kDispatchLen) == 0) {
    *fn += kDispatchLen;
    *fn_len -= kDispatchLen;
  }
  // file:line:column -> file:line
  const char *cut = l_end;
  int colons = 0;
  for (const char *q = l; q < l_end; ++q)
    if (*q == ':') {
      ++colons;
      cut = q;
    }
  *loc = l[0] == '?' || colons < 2 ? nullptr : l;
  *loc_len = static_cast<int>(cut - l);
  // Line 0: compiler-made code (a prologue's call to __morestack).
  if (*loc && *loc_len >= 2 && l[*loc_len - 1] == '0' &&
      l[*loc_len - 2] == ':')
    *loc = nullptr;
  return l_end + 1;
}

// A frame the symbolizer did not name: the dynamic symbol or the frame
// map's name, and the module.
void print_raw(const char *prefix, uintptr_t pc) {
  char buf[512];
  const char *name = symbol_name(pc);
  if (!g_in_signal)
    name = demangle(name, buf, sizeof buf);
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(pc), &info) && info.dli_fname &&
      info.dli_fbase)
    outf("%s%s (%s+%#lx)\n", prefix, name, info.dli_fname,
         static_cast<unsigned long>(
             pc - reinterpret_cast<uintptr_t>(info.dli_fbase)));
  else
    outf("%s%s (%#lx)\n", prefix, name, static_cast<unsigned long>(pc));
}

// Prints the frame(s) at one return address: "#i function at file:line",
// one per function inlined there, innermost first.
void print_frame(int &index, uintptr_t ret) {
  uintptr_t pc = lookup_pc(ret);
  const Addr *a = find(pc, false);
  const char *fn, *loc;
  int fn_len, loc_len;
  if (a && a->text && next_pair(a->text, &fn, &fn_len, &loc, &loc_len) &&
      fn) {
    for (const char *p = a->text;
         p && *p && next_pair(p, &fn, &fn_len, &loc, &loc_len);
         p = next_pair(p, &fn, &fn_len, &loc, &loc_len)) {
      if (!fn)
        break;
      if (loc)
        outf("  #%d %.*s at %.*s\n", index++, fn_len, fn, loc_len, loc);
      else
        outf("  #%d %.*s\n", index++, fn_len, fn);
    }
    return;
  }
  char prefix[32];
  snprintf(prefix, sizeof prefix, "  #%d ", index++);
  print_raw(prefix, pc);
}

// "created by f at file:line": the outermost function at the spawn site
// (the go() of the C++ API is inlined into it).
void print_creator(uintptr_t spawn_pc) {
  if (!spawn_pc)
    return;
  uintptr_t pc = lookup_pc(spawn_pc);
  const Addr *a = find(pc, false);
  const char *fn = nullptr, *loc = nullptr;
  int fn_len = 0, loc_len = 0;
  if (a && a->text) {
    const char *f, *l;
    int fl, ll;
    for (const char *p = a->text; p && *p;) {
      p = next_pair(p, &f, &fl, &l, &ll);
      if (!p || !f)
        break;
      fn = f, fn_len = fl, loc = l, loc_len = ll;
    }
  }
  if (!fn) {
    print_raw("  created by ", pc);
    return;
  }
  if (loc)
    outf("  created by %.*s at %.*s\n", fn_len, fn, loc_len, loc);
  else
    outf("  created by %.*s\n", fn_len, fn);
}

const char *reason_name(uint8_t r) {
  switch (r) {
  case kWaitChanSend: return "chan send";
  case kWaitChanRecv: return "chan receive";
  case kWaitSelect: return "select";
  case kWaitSelectNoCases: return "select (no cases)";
  case kWaitWaitGroup: return "wait group wait";
  case kWaitMutex: return "mutex lock";
  case kWaitSleep: return "sleep";
  case kWaitExternal: return "IO wait";
  default: return "runnable";
  }
}

// The blocking call a task parked in (kWaitCall), as the dump names
// it: Go's "IO wait" and "sleep" where Go has them, else the call.
const char *call_name(uint8_t kind, char *buf, size_t len) {
  const bool pool = kind & kWaitOnIoThread;
  const char *name = nullptr;
  switch (kind & (kWaitOnIoThread - 1)) {
  case COPYSTACK_IO_SLEEP:
  case COPYSTACK_IO_USLEEP:
  case COPYSTACK_IO_NANOSLEEP:
  case COPYSTACK_IO_CLOCK_NANOSLEEP: return "sleep";
  case COPYSTACK_IO_FUTEX: return "futex wait";
  case COPYSTACK_IO_MUTEX_LOCK: return "pthread_mutex_lock";
  case COPYSTACK_IO_COND_WAIT: return "pthread_cond_wait";
  case COPYSTACK_IO_SEM_WAIT: return "sem_wait";
  case COPYSTACK_IO_RWLOCK: return "pthread_rwlock lock";
  case COPYSTACK_IO_BARRIER: return "pthread_barrier_wait";
  case COPYSTACK_IO_JOIN: return "pthread_join";
  case COPYSTACK_IO_READ: case COPYSTACK_IO_READV: name = "read"; break;
  case COPYSTACK_IO_WRITE: case COPYSTACK_IO_WRITEV: name = "write"; break;
  case COPYSTACK_IO_PREAD: name = "pread"; break;
  case COPYSTACK_IO_PWRITE: name = "pwrite"; break;
  case COPYSTACK_IO_FSYNC: name = "fsync"; break;
  case COPYSTACK_IO_FDATASYNC: name = "fdatasync"; break;
  case COPYSTACK_IO_FLOCK: name = "flock"; break;
  case COPYSTACK_IO_LOCKF: name = "lockf"; break;
  case COPYSTACK_IO_FCNTL_LOCK: name = "fcntl lock"; break;
  case COPYSTACK_IO_WAITPID: name = "waitpid"; break;
  case COPYSTACK_IO_WAITID: name = "waitid"; break;
  case COPYSTACK_IO_GETADDRINFO: name = "getaddrinfo"; break;
  default: break;
  }
  if (!pool || !name)
    return "IO wait";
  snprintf(buf, len, "%s, on an I/O thread", name);
  return buf;
}

void format_wait(const Task *t, char *buf, size_t len) {
  uint8_t r = t->wait_reason.load(std::memory_order_acquire);
  if (r == kWaitNone) {
    snprintf(buf, len, "runnable");
    return;
  }
  char call[64];
  const char *reason = r & kWaitCall ? call_name(r, call, sizeof call)
                                     : reason_name(r);
  uint32_t waited =
      coarse_ms() - t->wait_since.load(std::memory_order_relaxed);
  if (waited < 1000)
    snprintf(buf, len, "%s, %u ms", reason, waited);
  else if (waited < 120000)
    snprintf(buf, len, "%s, %u s", reason, waited / 1000);
  else
    snprintf(buf, len, "%s, %u minutes", reason, waited / 60000);
}

// ---- the dump ------------------------------------------------------------------

void gather(const TaskFrames &f, uintptr_t spawn_pc) {
  for (int i = 0; i < f.n; ++i)
    find(lookup_pc(f.pc[i]), true);
  if (spawn_pc)
    find(lookup_pc(spawn_pc), true);
}

void print_task(const Task *t, const char *state, const TaskFrames *f) {
  outf("\ntask %llu [%s]:\n", static_cast<unsigned long long>(t->id), state);
  if (f) {
    int index = 0;
    if (f->not_started) {
      char buf[512];
      const char *name = symbol_name(f->entry);
      if (!g_in_signal)
        name = demangle(name, buf, sizeof buf);
      outf("  (not started: will run %s)\n", name);
    }
    for (int i = 0; i < f->n; ++i)
      print_frame(index, f->pc[i]);
    if (f->more)
      outf("  ...%llu more frames...\n",
           static_cast<unsigned long long>(f->more));
  }
  print_creator(t->spawn_pc);
}

struct Dump {
  Task *current;
  bool collect; // pass 1: hold, gather addresses; pass 2: print
  // The tasks pass 1 held, in for_each_task's order (pass 2 meets them in
  // the same order).
  Task **held;
  size_t nheld, cap, cursor;
  uint32_t deadline_ms; // for holding a task another holder has
};

void visit(Task *t, void *arg) {
  auto *d = static_cast<Dump *>(arg);
  if (t == d->current)
    return;
  uint8_t state = t->state.load(std::memory_order_acquire);
  if (d->collect) {
    if (state == kFree)
      return;
    TaskFrames f;
    if (d->nheld < d->cap && hold_task_until(t, d->deadline_ms)) {
      d->held[d->nheld++] = t;
      walk_suspended(f, t);
    }
    gather(f, t->spawn_pc);
    return;
  }
  bool held = d->cursor < d->nheld && d->held[d->cursor] == t;
  if (held)
    ++d->cursor;
  else if (state == kFree)
    return;
  if (!held) {
    uintptr_t caller = 0;
    if (state == kRunning && in_foreign_call(t, &caller)) {
      // Its worker is blocked for as long as the call lasts: what
      // docs/tasks.md lists as blocking the worker shows here.
      char buf[512], what[640];
      const char *name = caller ? symbol_name(caller) : nullptr;
      if (name && !g_in_signal)
        name = demangle(name, buf, sizeof buf);
      snprintf(what, sizeof what,
               "running on another thread, in a foreign call%s%s",
               name ? " from " : "", name ? name : "");
      print_task(t, what, nullptr);
      return;
    }
    print_task(t,
               state == kRunning ? "running on another thread"
               : state == kLost
                   ? "lost in fork(): it was on another thread of the parent"
                   : "being moved",
               nullptr);
    return;
  }
  TaskFrames f;
  walk_suspended(f, t);
  char wait[96];
  format_wait(t, wait, sizeof wait);
  print_task(t, f.not_started ? "not started" : wait, &f);
}

} // namespace

void dump_tasks_for_fatal(int level, const FrameStart &at) {
  const Thread &th = __copystack_thread;
  // Room for 8M held tasks: address space, touched as used.
  constexpr size_t kHeldCap = size_t(8) << 20;
  Dump d{th.task, true,
         static_cast<Task **>(map_bytes(sizeof(Task *) * kHeldCap)), 0, 0,
         0, coarse_ms() + kObservePatienceMs};
  if (d.held)
    d.cap = kHeldCap;
  static TaskFrames current; // the dump runs once
  if (th.task)
    walk_current(current, th, at);
  g_syms.table =
      static_cast<Addr *>(map_bytes(sizeof(Addr) * 2 * kMaxAddrs));
  if (th.task)
    gather(current, th.task->spawn_pc);
  if (level >= kTracebackAll)
    for_each_task(visit, &d);
  if (const char *tool = find_symbolizer(config_if_loaded()))
    if (g_syms.table && g_syms.n)
      symbolize(tool);
  d.collect = false;
  if (th.task)
    print_task(th.task, "running", &current);
  if (level >= kTracebackAll)
    for_each_task(visit, &d);
  out("\n");
}

namespace {

void on_quit(int, siginfo_t *, void *uctx) {
  g_in_signal = true;
  san::SignalScope scope;
  const Thread &th = __copystack_thread;
  FrameStart at;
  // Interrupted on the task's own stack: start where it was.
  if (th.task && !th.foreign_sp)
    interrupted_start(uctx, th.task_lo, th.task_hi, &at);
  int level = traceback_level();
  die("SIGQUIT: quit\n", level < kTracebackAll && level > 0 ? kTracebackAll
                                                             : level,
      at);
}

} // namespace

void install_quit_handler() {
  install_terminate_handler();
  if (san::tsan())
    prepare_spawn();
  struct sigaction old;
  if (system_sigaction(SIGQUIT, nullptr, &old) != 0 ||
      (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
    return; // ignored, or the program's own handler
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_quit;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  system_sigaction(SIGQUIT, &sa, nullptr);
}

const char *wait_reason_name(uint8_t r, char *buf, size_t len) {
  if (r == kWaitNone)
    return "parked";
  return r & kWaitCall ? call_name(r, buf, len) : reason_name(r);
}

} // namespace copystack_rt
