// thread_tasks.cc: every thread a program creates gets a copyable stack, as
// main does (gcc's -fsplit-stack grows every thread's stack; so does this).
//
// pthread_create is interposed: the executable defines it (the drivers link
// the runtime into every executable and export this symbol), so the
// program's calls and those of the libraries it loads (libstdc++'s
// std::thread, std::async) come here. A start routine compiled with the
// plugin runs as a task bound to the new thread (copystack_run's kind): it
// parks, grows and shrinks like any task, and its thread waits while it is
// parked. A start routine that is not instrumented (a library's, one
// marked copystack_nosplit) runs on the thread's own stack as before, and
// COPYSTACK_THREADS=0 turns the whole mechanism off.
//
// std::thread hands pthread_create libstdc++'s own start routine and a
// std::thread::_State whose virtual _M_run() calls the program's function.
// std::thread::_M_start_thread is interposed too, only to mark the
// pthread_create it makes: that one runs _M_run() as the task when it is
// instrumented, then deletes the state on the thread's stack, as
// libstdc++'s routine does (both are fixed by the Itanium C++ ABI: _M_run
// follows the two destructors in the vtable).
//
// pthread_exit and cancellation unwind the task's frames (its destructors
// and cleanup handlers run) and reach the task's first frame, where the
// unwinder finds no caller. glibc then jumps to the innermost cancellation
// buffer, which is the one the thread's start frame here registers before it
// runs the task: its handler puts the thread back (abandon_bound) and lets
// the unwinding go on to glibc's thread start.
#include "platform/split_stack_notes.h"
#include "platform/config.h"
#include "platform/fatal.h"
#include "platform/interpose.h"
#include "platform/sanitizers.h"
#include "core/frame_info.h"
#include "sched/pthread_sync.h"
#include "sched/scheduler.h"
#include "sched/task.h"

#include <cstdlib>
#include <dlfcn.h>
#include <pthread.h>

namespace copystack_rt {

namespace {

using CreateFn = int (*)(pthread_t *, const pthread_attr_t *,
                         void *(*)(void *), void *);

} // namespace
} // namespace copystack_rt

// AddressSanitizer's, ThreadSanitizer's or LeakSanitizer's, if linked in.
extern "C" __attribute__((weak)) int
__interceptor_pthread_create(pthread_t *, const pthread_attr_t *,
                             void *(*)(void *), void *);

namespace copystack_rt {
namespace {

} // namespace
} // namespace copystack_rt

// A static executable's: behind -Wl,--wrap= (platform/interpose.h).
CS_DECLARE_REAL(pthread_create, ::pthread_create)

namespace copystack_rt {
namespace {

CreateFn real_create() {
#ifdef COPYSTACK_STATIC_LINK
  // No sanitizer runtime supports a static link.
  return CS_REAL_OF(pthread_create);
#else
  // A sanitizer linked into the program defines pthread_create too, to
  // learn of every thread (san::next_definition: which of the two comes
  // first depends on whether the runtime is linked in or shared).
  static CreateFn next = reinterpret_cast<CreateFn>(san::next_definition(
      "pthread_create",
      reinterpret_cast<void *>(__interceptor_pthread_create)));
  if (!next)
    fatal("pthread_create: the C library's definition was not found: %s",
          dlerror());
  return next;
#endif
}

// Set while std::thread::_M_start_thread runs: its pthread_create call
// passes a std::thread::_State.
thread_local bool t_std_thread;

struct Start {
  void *(*fn)(void *); // the start routine (std::thread: _M_run)
  void *arg;
  void (*destroy)(void *); // std::thread: the state's deleting destructor
  uintptr_t site; // the pthread_create call, for the task dump
};

void *const *vtable_of(void *object) { return *static_cast<void ***>(object); }

struct Running {
  Start start;
  Task *task;
  BoundRun run;
};

void unwound(void *arg) {
  auto *r = static_cast<Running *>(arg);
  abandon_bound(r->task, r->run);
  if (r->start.destroy)
    r->start.destroy(r->start.arg);
  thread_ended();
}

void *thread_start(void *p) {
  Running r;
  r.start = *static_cast<Start *>(p);
  free(p);
  const Start &s = r.start;
  // The task keeps the entry function's return value (task.h).
  r.task = create_task_for(
      reinterpret_cast<void (*)(void *)>(reinterpret_cast<void (*)()>(s.fn)),
      s.arg);
  r.task->spawn_pc = s.site;
  void *result = nullptr;
  // Reached by glibc's jump when pthread_exit or a cancellation has unwound
  // the task's frames (see the top of this file).
  pthread_cleanup_push(unwound, &r);
  run_bound(r.task, r.run);
  result = reinterpret_cast<void *>(r.task->result);
  destroy_task(r.task);
  pthread_cleanup_pop(0);
  if (s.destroy)
    s.destroy(s.arg);
  thread_ended();
  return result;
}

} // namespace

} // namespace copystack_rt

// pthread_exit as instrumented code calls it (passes/BlockingCalls.cpp
// redirects the call, abi.h), past TSan's own under TSan
// (san::pthread_exit_for_task). A foreign call, on the thread's stack.
extern "C" __attribute__((visibility("default"), noreturn)) void
__copystack_blocking_pthread_exit(void *result) {
  copystack_rt::san::pthread_exit_for_task()(result);
  __builtin_unreachable();
}

// Not under a sanitizer, which interposes pthread_create itself.
#ifndef COPYSTACK_NO_INTERPOSERS
using namespace copystack_rt;

extern "C" __attribute__((visibility("default"))) int
CS_INTERPOSER(pthread_create)(pthread_t *thread, const pthread_attr_t *attr,
                              void *(*start)(void *), void *arg) {
  Start s{start, arg, nullptr,
          reinterpret_cast<uintptr_t>(__builtin_return_address(0))};
  if (t_std_thread) {
    t_std_thread = false;
    void *const *vt = vtable_of(arg);
    s.fn = reinterpret_cast<void *(*)(void *)>(vt[2]);
    s.destroy = reinterpret_cast<void (*)(void *)>(vt[1]);
  }
  if (!config().thread_tasks || !is_instrumented(reinterpret_cast<void *>(s.fn)))
    return real_create()(thread, attr, start, arg);
  auto *p = static_cast<Start *>(malloc(sizeof(Start)));
  if (!p)
    return EAGAIN;
  *p = s;
  int rc = real_create()(thread, attr, thread_start, p);
  if (rc != 0)
    free(p);
  return rc;
}

// void std::thread::_M_start_thread(std::unique_ptr<_State>, void (*)());
// the unique_ptr (not trivially copyable) is passed by reference.
#define CS_START_THREAD                                                        \
  _ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE
using StartThread = void (*)(void *, void *, void (*)());
extern "C" void CS_START_THREAD(void *, void *, void (*)());
CS_DECLARE_REAL(CS_START_THREAD, CS_START_THREAD)

extern "C" __attribute__((visibility("default"))) void
CS_INTERPOSER(CS_START_THREAD)(void *self, void *state, void (*depend)()) {
#ifdef COPYSTACK_STATIC_LINK
  StartThread next = CS_REAL_OF(CS_START_THREAD);
#else
  static StartThread next = reinterpret_cast<StartThread>(
      dlsym(RTLD_NEXT, CS_STRING(CS_START_THREAD)));
  if (!next)
    fatal("std::thread: libstdc++'s _M_start_thread was not found");
#endif
  t_std_thread = true;
  next(self, state, depend);
  t_std_thread = false;
}
#endif

