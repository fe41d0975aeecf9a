/*
 * copystack.h: the C API of the copystack runtime.
 *
 * A task runs on a copyable stack that starts at 2 KiB. When an instrumented
 * function's frame does not fit, the runtime moves the task to a stack twice
 * the size and rewrites every pointer into the old one; code built with the
 * copystack plugin needs no changes for this. This header is for the parts a
 * program may want to see or steer: running tasks, limits, and what stack
 * growth cost.
 */
#ifndef COPYSTACK_COPYSTACK_H
#define COPYSTACK_COPYSTACK_H

#include "copystack/version.h"

#include <stddef.h>
#include <stdint.h>

#include "abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Running code on a copyable stack --------------------------------- */

/* Runs fn(arg) as a task on a fresh copyable stack, bound to the calling
 * thread, and returns when it finishes. fn should be instrumented (compiled
 * with the plugin); anything it calls that is not runs on the thread's own
 * stack. The task may use every primitive below; the tasks it starts run on
 * the scheduler's workers. */
void copystack_run(void (*fn)(void *), void *arg);

/* Starts fn(arg) as a new task (Go's "go fn(arg)"). From anywhere: a task,
 * or an ordinary thread (which starts the scheduler). A null fn stops the
 * program with a message naming the call, as does a null handle (channel,
 * wait group, mutex, output structure) anywhere in this API; the exceptions
 * are copystack_chan_release(NULL), which does nothing (like free), the
 * length and capacity of a null channel, 0 (as Go's of a nil channel), and
 * a select case on a null channel, which never proceeds. */
void copystack_go(void (*fn)(void *), void *arg);

/* For copystack.hpp: a task that will call fn(closure), where closure is
 * COPYSTACK_CLOSURE_BYTES bytes (16-aligned) inside the task's own
 * structure. Fill them, then start the task with __copystack_go_commit. */
#define COPYSTACK_CLOSURE_BYTES 32
void *__copystack_go_prepare(void (*fn)(void *), void **closure);
void *__copystack_go_prepare_sized(void (*fn)(void *), void **closure,
                                   size_t stack_bytes);
void __copystack_go_commit(void *task);
/* The same, with the call site that started the task (for the task
 * dump's "created by"). */
void __copystack_go_commit_at(void *task, void *site);
/* For copystack.hpp: stops the program with the message what (a misuse the
 * C++ API detects: an empty callable, the close of a nil channel). */
__attribute__((noreturn)) void __copystack_misuse(const char *what);


/* Tasks that exist: started and not yet returned, main included (Go's
 * runtime.NumGoroutine). */
uint64_t copystack_num_tasks(void);

/* Worker threads that run tasks (Go's GOMAXPROCS): the number of CPUs by
 * default, or COPYSTACK_WORKERS. Returns the previous value (the count
 * that was in effect). The count is fixed once the scheduler has started
 * (the first task; with the drivers, before main): a different count then
 * stops the program with a message, the same count is accepted. */
int copystack_set_workers(int n);
int copystack_workers(void);

/* Runs a program's main as a task, as Go runs main.main: an ordinary task
 * that may run on any worker, with the calling (main) thread serving as one
 * of the workers. When main returns, the program exits with its result
 * (exit(): atexit handlers and static destructors run), whatever other
 * tasks are doing. Does not return unless main_fn is not instrumented (then
 * it is called directly). The link option -Wl,--wrap=main (added by the
 * copystack-cc and copystack-c++ drivers) routes main through this. */
int copystack_main(int (*main_fn)(int, char **, char **), int argc,
                   char **argv, char **envp);

/* Nonzero while the caller runs as a task on a copyable stack. */
int copystack_in_task(void);

/* ---- Channels, wait groups, mutexes, time ------------------------------ */
/* The blocking operations are inline functions: they park the calling task
 * from instrumented code (the task's own stack), which the runtime cannot do
 * from a call through the thread's stack. Calling them from code built
 * without the plugin is an error the runtime reports. */

typedef struct copystack_chan copystack_chan;

/* A channel of elements of elem_size bytes, copied with memcpy; capacity 0
 * is unbuffered. Channels are reference counted: _make returns one
 * reference, _release drops one. */
copystack_chan *copystack_chan_make(size_t elem_size, size_t capacity);
/* With element operations, for elements that cannot be copied bytewise:
 * move(dst, src) constructs *dst from *src and leaves *src destructible;
 * destroy(obj) ends an element's life (elements left in a released
 * channel). */
copystack_chan *copystack_chan_make_with(size_t elem_size, size_t capacity,
                                         void (*move)(void *dst, void *src),
                                         void (*destroy)(void *obj));
void copystack_chan_retain(copystack_chan *c);
void copystack_chan_release(copystack_chan *c);
/* Closing a closed channel stops the program with a message. */
void copystack_chan_close(copystack_chan *c);
size_t copystack_chan_len(copystack_chan *c);
size_t copystack_chan_cap(copystack_chan *c);

typedef struct copystack_waitgroup {
  uint64_t opaque[4];
} copystack_waitgroup;
#define COPYSTACK_WAITGROUP_INIT {{0, 0, 0, 0}}
/* A counter going below zero stops the program with a message. */
void copystack_waitgroup_add(copystack_waitgroup *wg, int64_t delta);
void copystack_waitgroup_done(copystack_waitgroup *wg);

typedef struct copystack_mutex {
  uint64_t opaque[4];
} copystack_mutex;
#define COPYSTACK_MUTEX_INIT {{0, 0, 0, 0}}
/* Unlocking an unlocked mutex stops the program with a message. */
void copystack_mutex_unlock(copystack_mutex *m);
int copystack_mutex_trylock(copystack_mutex *m);

/* Monotonic nanoseconds, the clock sleep and timers use. */
uint64_t copystack_now_ns(void);
/* A channel (element: uint64_t, the time it fired) that receives once,
 * ns nanoseconds from now (Go's time.After). */
copystack_chan *copystack_after(uint64_t ns);

/* ---- Descriptors and the network poller ------------------------------- */
/* Instrumented code that calls read, write, recv, send, accept, connect,
 * poll, select, sleep and their kin from a task parks the task instead of
 * blocking its worker thread: the runtime waits for the descriptor with
 * epoll (docs/tasks.md, "Blocking calls"). What follows is for code that
 * wants Go's deadlines, or that drives descriptors of its own. */

#define COPYSTACK_FD_READ 1
#define COPYSTACK_FD_WRITE 2

/* Go's SetReadDeadline and SetWriteDeadline: once copystack_now_ns() reaches
 * deadline_ns, blocking calls that tasks make on fd in the directions dirs
 * (COPYSTACK_FD_READ, COPYSTACK_FD_WRITE), pending and future, fail with
 * ETIMEDOUT (a write that wrote some bytes returns their count). 0 clears
 * the deadline; a time already past cancels the pending calls. Closing fd
 * clears it too. Returns 0, or -1 with errno EBADF. */
int copystack_fd_set_deadline(int fd, int dirs, uint64_t deadline_ns);

/* ---- Limits ------------------------------------------------------------ */

/* The largest stack one task may grow to; 1 GiB by default (Go's default on
 * 64-bit). Growing past it stops the program with a message that names the
 * limit and the function. Returns the previous value. Also COPYSTACK_MAX_STACK
 * in the environment (bytes, or with a K/M/G suffix). */
size_t copystack_set_max_stack(size_t bytes);
size_t copystack_max_stack(void);

/* ---- Stack lifecycle: shrinking, start sizes, memory back to the OS ---- */

/* A collection: halves the stack of every suspended task (parked or
 * runnable, having run) that uses under a quarter of it, when its frames and
 * the guard fit in the half; updates the adaptive start size; gives the
 * memory of free stacks back to the OS. Running tasks, and tasks that have
 * not started yet (a spawn hint's stack stays until the task runs), are left
 * alone. Also runs automatically (copystack_policy). See docs/stacks.md. */
void copystack_collect(void);

typedef struct copystack_policy {
  int shrink;             /* collections shrink stacks (default 1;
                             COPYSTACK_SHRINK=0) */
  int adaptive_start;     /* start size follows the average use seen at
                             collections, as Go 1.19 (default 1;
                             COPYSTACK_ADAPTIVE=0) */
  int learn_start;        /* start size learned per spawn site (default 1;
                             COPYSTACK_LEARN=0) */
  int release_memory;     /* free stack memory goes back to the OS at
                             collections (default 1; COPYSTACK_RELEASE=0) */
  uint64_t collect_interval_ms; /* automatic collections while stacks
                             change; 0: only copystack_collect and memory
                             pressure (default 1000; COPYSTACK_COLLECT_MS) */
  int compact_parked;     /* a task parked across a whole collection keeps
                             only its live bytes, in a heap block, and gets
                             a fresh stack when it wakes (default 1; off
                             under ASan, TSan and LeakSanitizer;
                             COPYSTACK_COMPACT=0) */
} copystack_policy;

void copystack_get_policy(copystack_policy *out);
void copystack_set_policy(const copystack_policy *policy);

/* The stack a task starts with: 2 KiB by default (COPYSTACK_START_STACK);
 * rounded up to a power of two. Returns the previous value. The adaptive
 * and learned sizes only ever start tasks bigger than this. */
size_t copystack_set_start_stack(size_t bytes);
size_t copystack_start_stack(void);

/* copystack_go with a hint: the task starts on a stack of at least
 * stack_bytes, for a task known to go deep (no growth on the way). */
void copystack_go_sized(void (*fn)(void *), void *arg, size_t stack_bytes);

/* ---- What stack growth costs ------------------------------------------ */

typedef struct copystack_stats {
  uint64_t tasks_created;
  uint64_t growths;        /* copies to a larger stack */
  uint64_t moves;          /* copies to a stack of the same size (stress) */
  uint64_t bytes_copied;   /* used bytes moved by all copies */
  uint64_t copy_ns;        /* time spent copying and relocating */
  uint64_t pointers_adjusted;
  /* Memory, like Go's runtime.MemStats: _inuse is held by live objects,
   * _sys was obtained from the OS (or the C heap) and not yet returned. */
  uint64_t stack_inuse;    /* bytes of stacks held by live tasks */
  uint64_t stack_sys;      /* bytes of stack memory obtained from the OS */
  uint64_t tasks_live;     /* tasks that exist (copystack_num_tasks) */
  uint64_t task_inuse;     /* bytes of the task structures of live tasks */
  uint64_t task_sys;       /* bytes of task structures allocated (slabs) */
  uint64_t pinned_sys;     /* bytes of pinned-area chunks (locals whose
                              address leaves the stack) */
  uint64_t chan_inuse;     /* bytes of channels and their buffers */
  uint64_t sys;            /* all of the runtime's memory: the _sys fields
                              plus chan_inuse and compacted_bytes */
  uint64_t shrinks;        /* stacks halved by collections */
  uint64_t collections;    /* collections run (copystack_collect, automatic) */
  uint64_t stack_released; /* stack bytes given back to the OS, not reused
                              since (not in stack_sys) */
  uint64_t start_stack;    /* the stack a task starts with now (before
                              per-site learning) */
  /* Compacted parked tasks (copystack_policy.compact_parked): */
  uint64_t tasks_compacted; /* tasks whose frames wait in a heap block now */
  uint64_t compacted_bytes; /* those blocks' bytes of frames (not in
                              stack_inuse; in sys) */
  uint64_t compactions;    /* stacks compacted, ever */
  uint64_t expansions;     /* compacted tasks given a stack again to run */
  uint64_t expand_ns;      /* time those expansions took */
  /* Tasks the monitor stopped after a time slice (or for a woken task): */
  uint64_t preemptions;    /* all of them */
  uint64_t preemptions_signal; /* those stopped by the signal, at any
                              instruction (COPYSTACK_PREEMPT_SIGNAL) */
} copystack_stats;

void copystack_get_stats(copystack_stats *out);

/* The current task's stack, for programs that want to look at themselves. */
typedef struct copystack_stack_info {
  uintptr_t lo, hi;        /* [lo, hi): the whole stack */
  uintptr_t sp;            /* the caller's stack pointer */
  size_t size;             /* hi - lo */
  uint64_t copies;         /* how many times this task's stack moved */
  size_t used;             /* hi - sp: the frames live, the caller's included */
  size_t room;             /* sp - (lo + the guard band): what the caller's
                              callees may use before the stack grows next */
  size_t max_size;         /* the largest this stack may grow to
                              (copystack_max_stack) */
  size_t remaining;        /* max_size - used: what the task may still use
                              before it stops with "maximum stack exceeded" */
} copystack_stack_info;

/* Returns 0 and fills *out when called from a task, -1 otherwise. */
int copystack_current_stack(copystack_stack_info *out);

/* Stack-depth checks. Interpreters and parsers (QuickJS, SpiderMonkey, Ruby)
 * remember a frame address at start-up and compare later frame addresses
 * with it to detect deep recursion. On a copyable stack those comparisons
 * are meaningless: the stack moves. copystack_stack_pointer() is what such
 * a check should read instead of __builtin_frame_address(0) or the address
 * of a local: an integer that falls by exactly the bytes the frames use as
 * the stack deepens, and that does not change when the stack moves (on a
 * task: a fixed high value minus the bytes in use; anywhere else: the stack
 * pointer itself). Values read on different tasks are not comparable, as
 * addresses on different threads' stacks are not.
 *
 *     uintptr_t sp = (uintptr_t)__builtin_frame_address(0);   // before
 *     uintptr_t sp = copystack_stack_pointer();               // after
 *
 * The compiler warns where code compares or stores stack addresses as
 * integers (docs/limitations.md, "Stack-depth checks"). */
#define COPYSTACK_VIRTUAL_STACK_TOP ((uintptr_t)1 << 62)

static inline __attribute__((always_inline)) uintptr_t
copystack_stack_pointer(void) {
  uintptr_t sp, th, task, lo, hi;
  /* The stack pointer, and from the calling thread's runtime state its
   * task and that task's stack; volatile: a task may resume on another
   * thread after any call. Read in the asm, where ThreadSanitizer does not
   * see the reads: the state is the thread's, and the tasks that run on it
   * in turn are not ordered by the switches. */
#if defined(__aarch64__)
  __asm__ volatile("mov %0, sp\n\t"
                   "mrs %1, tpidr_el0\n\t"
                   "adrp %2, :gottprel:" COPYSTACK_THREAD_SYMBOL "\n\t"
                   "ldr %2, [%2, :gottprel_lo12:" COPYSTACK_THREAD_SYMBOL "]\n\t"
                   "add %1, %1, %2\n\t"
                   "ldr %2, [%1, %5]\n\t"
                   "ldr %3, [%1, %6]\n\t"
                   "ldr %4, [%1, %7]"
                   : "=&r"(sp), "=&r"(th), "=&r"(task), "=&r"(lo), "=r"(hi)
                   : "i"(COPYSTACK_THREAD_TASK), "i"(COPYSTACK_THREAD_TASK_LO),
                     "i"(COPYSTACK_THREAD_TASK_HI));
#else
  __asm__ volatile("movq %%rsp, %0\n\t"
                   "movq " COPYSTACK_THREAD_SYMBOL "@gottpoff(%%rip), %1\n\t"
                   "addq %%fs:0, %1\n\t"
                   "movq %c5(%1), %2\n\t"
                   "movq %c6(%1), %3\n\t"
                   "movq %c7(%1), %4"
                   : "=&r"(sp), "=&r"(th), "=&r"(task), "=&r"(lo), "=r"(hi)
                   : "i"(COPYSTACK_THREAD_TASK), "i"(COPYSTACK_THREAD_TASK_LO),
                     "i"(COPYSTACK_THREAD_TASK_HI));
#endif
  (void)th;
  if (task && sp - lo < hi - lo)
    return COPYSTACK_VIRTUAL_STACK_TOP - (hi - sp);
  return sp;
}

/* One stack copy, as the growth hook and the trace see it. */
typedef struct copystack_growth_event {
  uint64_t task_id;
  uint64_t copy_number;    /* 1 for the task's first copy */
  size_t old_size, new_size;
  size_t used;             /* bytes of frames live: old hi - the asking
                              function's stack pointer at its check */
  size_t headroom;         /* what was left: that stack pointer - old lo */
  size_t frame;            /* the frame the function asked for */
  const char *function;    /* the asking function's symbol name */
  uint64_t ns;             /* time the copy took */
  int forced;              /* 1 when stress mode moved a stack that fit */
} copystack_growth_event;

typedef void (*copystack_growth_hook)(const copystack_growth_event *ev,
                                      void *data);

/* Calls hook(ev, data) after every copy, on the thread's own stack (the
 * hook may print). Returns the previous hook. NULL turns it off. The trace
 * switch COPYSTACK_TRACE=1 prints the same events to stderr. */
copystack_growth_hook copystack_set_growth_hook(copystack_growth_hook hook,
                                                void *data);

/* ---- Execution traces and profiles (docs/debugging.md) ---- */

/* Starts recording an execution trace, to be written to path as Chrome
 * trace-event JSON (for Perfetto and chrome://tracing) when
 * copystack_trace_stop() is called or the program exits: one track per
 * thread and per task, with runs, waits and their reasons, wake-ups and
 * spawns as arrows, stack growth and shrinking. Each thread keeps its
 * latest COPYSTACK_TRACE_BUFFER events; the file says how many were
 * dropped. COPYSTACK_TRACE_OUT=path traces a whole run. Returns 0, or
 * EBUSY when a trace is being recorded, EINVAL for an empty path. */
int copystack_trace_start(const char *path);
/* Stops the trace and writes its file. Returns 0, or an errno: EINVAL when
 * no trace is being recorded, or the error the file's writing met. */
int copystack_trace_stop(void);

/* Profiles in pprof's format (gzip-compressed protobuf), for
 * `go tool pprof -top PROGRAM FILE` and Google's pprof:
 *   COPYSTACK_PROFILE_GROWTH  stack growth by the call stack that asked:
 *                             copies and bytes copied;
 *   COPYSTACK_PROFILE_TASKS   live tasks by spawn site, labelled "state"
 *                             with what each waits for (a snapshot);
 *   COPYSTACK_PROFILE_BLOCK   time tasks spent parked, from the park to
 *                             the wake-up, by the call stack that parked,
 *                             labelled "wait" with the reason (Go's block
 *                             profile).
 * copystack_profile_start() starts recording growth and block profiles
 * (anew: what an earlier start recorded is forgotten; tasks need none),
 * copystack_profile_write() writes one profile (one bit) to path, as
 * recorded so far, and copystack_profile_stop() stops recording. Each
 * returns 0 or an errno (EINVAL for no or unknown bits, an empty path).
 * COPYSTACK_PROFILE_OUT=PREFIX records all three from the start and writes
 * PREFIX.growth.pb.gz, PREFIX.tasks.pb.gz and PREFIX.block.pb.gz at exit. */
#define COPYSTACK_PROFILE_GROWTH 1u
#define COPYSTACK_PROFILE_TASKS 2u
#define COPYSTACK_PROFILE_BLOCK 4u
int copystack_profile_start(unsigned which);
int copystack_profile_stop(unsigned which);
int copystack_profile_write(unsigned which, const char *path);

/* ---- The blocking half: inline, so that it runs on the task's stack ---- */

/* How a task waits: the runtime registers it (taking a lock it keeps), the
 * task parks with __copystack_park, and the runtime runs then(arg) on the
 * worker's own stack once the task's context is saved (releasing the lock).
 * Nothing here keeps a pointer into the task's stack: element buffers are
 * copied in and out (the parameters are noescape), and the waiter record
 * lives in the runtime's task structure. */
#if defined(__clang__)
#define COPYSTACK_NOESCAPE __attribute__((noescape))
#else
#define COPYSTACK_NOESCAPE
#endif

/* The runtime moves elements with the channel's move function, which may
 * leave an object pointing into itself (a short std::string does). The
 * parameters are noescape so that the buffer can stay on the task's stack;
 * the optimizer must still learn that the buffer's address may end up
 * inside it, or it folds "does this string point into itself" to false.
 * Handing the address to an empty asm says so, and costs nothing. */
#define COPYSTACK_OPAQUE(p) __asm__ volatile("" : : "r"(p) : "memory")

void __copystack_park(void (*then)(void *), void *arg);
void __copystack_unlock_after_park(void *lock);

/* Channel operations. _begin returns 1 when done, 0 when the channel is
 * closed (receive: *elem zeroed), or COPYSTACK_MUST_PARK (abi.h). */
int __copystack_chan_send_begin(copystack_chan *c,
                                COPYSTACK_NOESCAPE void *elem);
void __copystack_chan_send_end(void);
int __copystack_chan_recv_begin(copystack_chan *c,
                                COPYSTACK_NOESCAPE void *elem);
int __copystack_chan_recv_end(COPYSTACK_NOESCAPE void *elem);
void *__copystack_chan_lock_of(copystack_chan *c);

static inline void copystack_chan_send(copystack_chan *c, void *elem) {
  COPYSTACK_OPAQUE(elem);
  if (__copystack_chan_send_begin(c, elem) == COPYSTACK_MUST_PARK) {
    __copystack_park(__copystack_unlock_after_park,
                     __copystack_chan_lock_of(c));
    __copystack_chan_send_end();
  }
}

/* Returns 1 with a value, 0 when the channel is closed and drained (*elem is
 * then zeroed). */
static inline int copystack_chan_recv(copystack_chan *c, void *elem) {
  COPYSTACK_OPAQUE(elem);
  int r = __copystack_chan_recv_begin(c, elem);
  if (r == COPYSTACK_MUST_PARK) {
    __copystack_park(__copystack_unlock_after_park,
                     __copystack_chan_lock_of(c));
    r = __copystack_chan_recv_end(elem);
  }
  return r;
}

/* select: cases of sends and receives; the index of the case that
 * proceeded, or -1 when none could and block is 0 (the default case). A
 * receive case's ok tells whether it got a value (1) or found the channel
 * closed (0). A case with a null channel never proceeds. */
enum { COPYSTACK_SEND = 1, COPYSTACK_RECV = 2 };
typedef struct copystack_select_case {
  copystack_chan *chan;
  void *elem;
  int dir;
  int ok;
} copystack_select_case;

int __copystack_select_begin(COPYSTACK_NOESCAPE copystack_select_case *cases,
                             int n, int block);
void __copystack_select_unlock(void *unused);
int __copystack_select_end(COPYSTACK_NOESCAPE copystack_select_case *cases,
                           int n);

static inline int copystack_select(copystack_select_case *cases, int n,
                                   int block) {
  COPYSTACK_OPAQUE(cases);
  int r = __copystack_select_begin(cases, n, block);
  if (r == COPYSTACK_SELECT_MUST_PARK) {
    __copystack_park(__copystack_select_unlock, 0);
    r = __copystack_select_end(cases, n);
  }
  return r;
}

int __copystack_waitgroup_wait_begin(copystack_waitgroup *wg);
static inline void copystack_waitgroup_wait(copystack_waitgroup *wg) {
  if (__copystack_waitgroup_wait_begin(wg) == COPYSTACK_MUST_PARK)
    __copystack_park(__copystack_unlock_after_park, wg);
}

int __copystack_mutex_lock_begin(copystack_mutex *m);
static inline void copystack_mutex_lock(copystack_mutex *m) {
  if (__copystack_mutex_lock_begin(m) == COPYSTACK_MUST_PARK)
    __copystack_park(__copystack_unlock_after_park, m);
}

void __copystack_sleep_then(void *deadline);
void __copystack_yield_then(void *unused);

/* Lets other tasks run (Go's runtime.Gosched). */
static inline void copystack_yield(void) {
  __copystack_park(__copystack_yield_then, 0);
}

/* Parks the calling task for at least ns nanoseconds. */
static inline void copystack_sleep_ns(uint64_t ns) {
  uint64_t deadline = copystack_now_ns() + ns;
  __copystack_park(__copystack_sleep_then, (void *)(uintptr_t)deadline);
}

/* A blocking call made from instrumented code (runtime/src/sched/io.cc):
 * the runtime does what it can without blocking, and returns
 * COPYSTACK_MUST_PARK with a wait record in wait when the task must wait; the
 * task parks and calls again. The record is the runtime's; the call keeps
 * its progress there, never a pointer into the task's stack. */
typedef struct copystack_io_call {
  int32_t kind;     /* which call (COPYSTACK_IO_FD_WAIT, or the runtime's) */
  int32_t fd;
  void *p[4];       /* its pointer arguments */
  int64_t n[3];     /* its integer arguments */
  int64_t result;   /* what it returns */
  void *wait;       /* the runtime's wait record, once it has had to wait */
} copystack_io_call;

#define COPYSTACK_IO_FD_WAIT 1

int __copystack_io_begin(COPYSTACK_NOESCAPE copystack_io_call *call);
void __copystack_io_park_then(void *wait);

static inline int64_t __copystack_io_run(copystack_io_call *call) {
  COPYSTACK_OPAQUE(call);
  while (__copystack_io_begin(call) == COPYSTACK_MUST_PARK)
    __copystack_park(__copystack_io_park_then, call->wait);
  return call->result;
}

/* Parks the calling task until fd is ready for events (POLLIN, POLLOUT, as
 * poll(2)), or until copystack_now_ns() reaches deadline_ns (0: none).
 * Returns the poll(2) revents, 0 at the deadline, or -1 with errno: EBADF
 * when fd is closed meanwhile, ETIMEDOUT at fd's deadline
 * (copystack_fd_set_deadline). Signals do not interrupt it (Go's
 * behaviour). Outside a task it waits with poll(2). */
static inline int copystack_fd_wait(int fd, int events,
                                    uint64_t deadline_ns) {
  copystack_io_call call = {COPYSTACK_IO_FD_WAIT, fd, {0, 0, 0, 0},
                            {events, (int64_t)deadline_ns, 0}, 0, 0};
  return (int)__copystack_io_run(&call);
}

#ifdef __cplusplus
}
#endif

#endif /* COPYSTACK_COPYSTACK_H */
