// libstdc++'s red-black tree steps and string hash run in place on the task
// stack (they call nothing and use no stack), and the global operator new
// and delete run in place as what libstdc++'s own definitions do, malloc
// and free, when the stack has COPYSTACK_IN_PLACE_ROOM bytes to spare;
// otherwise, and when malloc fails (the new handler, bad_alloc), they stay
// foreign calls. A program that replaces operator new and delete (OWN_NEW)
// must see every allocation in its own definitions: the runtime turns the
// group off when any of the six names binds elsewhere, as it does when
// malloc is not glibc's (glibc's malloc-debug library, preloaded) and
// under TSan, whose interceptors bind them. Checked from inside the tree
// step and malloc with gdb (frame #1 is the task's function itself: in
// place), and by results from a roomy task, a cramped one and the main
// thread in every mode.
// RUN: %cxx %s -o %t
// RUN: %run %t | FileCheck %s --check-prefixes=RESULTS,%if tsan %{SANNEW%} %else %{PLAIN%}
// RUN: env LD_PRELOAD=libc_malloc_debug.so.0 %run %t | FileCheck %s --check-prefixes=RESULTS,%if tsan %{SANNEW%} %else %{PRELOADED%}
// TSan defines the six operators itself: no program may.
// RUN: %if !tsan %{ %cxx -DOWN_NEW %s -o %t.own %}
// RUN: %if !tsan %{ %run %t.own | FileCheck %s --check-prefixes=RESULTS,OWN %}
// A debugger's stop is a long time slice to the monitor, whose standing
// preemption request (limit -2) fails the room test and sends the call
// foreign: the gdb runs that expect it in place run without preemption.
// RUN: %if gdb && normal %{ env COPYSTACK_PREEMPT=0 gdb -batch -nx -ex "break main" -ex run -ex "break _ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_" -ex continue -ex "bt 2" -ex "delete 2" -ex "break before_big_alloc" -ex continue -ex "delete 3" -ex "break __libc_malloc if bytes == 77777" -ex continue -ex "bt 2" -ex kill %t 2>&1 | FileCheck %s --check-prefix=GDB %}
// In stress and verify modes the limit (~0) is above every stack pointer:
// the tree step, with no room test, is still in place; operator new is not.
// RUN: %if gdb && (stress || verify) %{ %run gdb -batch -nx -ex "break main" -ex run -ex "break _ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_" -ex continue -ex "bt 2" -ex "delete 2" -ex "break before_big_alloc" -ex continue -ex "delete 3" -ex "break __libc_malloc if bytes == 77777" -ex continue -ex "bt 3" -ex kill %t 2>&1 | FileCheck %s --check-prefix=GDB-FOREIGN %}
#include "Inputs/check.h"

#include <atomic>
#include <map>
#include <new>
#include <string>
#include <unordered_map>

extern "C" int copystack_libc_flags asm("__copystack_libc_in_place");

#ifdef OWN_NEW
static std::atomic<long> own_news, own_deletes;
void *operator new(std::size_t n) {
  own_news.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(n ? n : 1))
    return p;
  throw std::bad_alloc();
}
void *operator new[](std::size_t n) { return operator new(n); }
void operator delete(void *p) noexcept {
  if (p)
    own_deletes.fetch_add(1, std::memory_order_relaxed);
  std::free(p);
}
void operator delete[](void *p) noexcept { operator delete(p); }
void operator delete(void *p, std::size_t) noexcept { operator delete(p); }
void operator delete[](void *p, std::size_t) noexcept { operator delete(p); }
#endif

static char *volatile kept; // allocations the optimizer cannot elide
static volatile std::size_t huge = (std::size_t)1 << 62;

// Where gdb sets its malloc breakpoint: a breakpoint on every malloc from
// main on stops a thousand times first, minutes under a loaded CI.
extern "C" __attribute__((noinline)) void before_big_alloc() {
  asm volatile("");
}

__attribute__((noinline)) static long work(int n) {
  std::map<int, long> m;
  for (int i = 0; i < n; ++i)
    m[(i * 7919) % n] = i;
  long s = 0;
  for (auto &kv : m) // _Rb_tree_increment
    s += kv.first * kv.second;
  for (auto it = m.rbegin(); it != m.rend(); ++it) // _Rb_tree_decrement
    s ^= it->second;
  for (int i = 0; i < n; i += 3) // _Rb_tree_rebalance_for_erase
    m.erase(i);
  s += (long)m.size() * 1000000;
  std::unordered_map<std::string, long> h; // _Hash_bytes
  for (int i = 0; i < n; ++i)
    h["a key long enough for the heap " + std::to_string(i % 97)] += i;
  s += h["a key long enough for the heap 5"] + (long)h.size();
  before_big_alloc();
  kept = new char[77777];
  kept[76543] = (char)n;
  s += kept[76543];
  delete[] kept;
#if !__has_feature(thread_sanitizer)
  try { // malloc fails in place: the call itself throws
    kept = new char[huge];
    s = -1;
  } catch (const std::bad_alloc &) {
    s += 7;
  }
#else
  s += 7;
#endif
  return s;
}

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void roomy(void *) {
  printf("roomy: %ld\n", work(500));
  copystack_waitgroup_done(&wg);
}

// A fresh 2 KiB stack (learned and adaptive start sizes off): operator new
// and delete lack the room at first and are foreign calls.
static void cramped(void *) { printf("cramped: %ld\n", work(500)); }

int main() {
  printf("tree in place: %s\n",
         copystack_libc_flags & COPYSTACK_IN_PLACE_TREE ? "yes" : "no");
  printf("new in place: %s\n",
         copystack_libc_flags & COPYSTACK_IN_PLACE_NEW ? "yes" : "no");
  copystack_waitgroup_add(&wg, 1);
  copystack_go_sized(roomy, nullptr, 256 * 1024);
  copystack_waitgroup_wait(&wg);
  cs_fixed_start(2048);
  copystack_run(cramped, nullptr);
  printf("thread: %ld\n", work(500));
#ifdef OWN_NEW
  // Every allocation went through the program's own operator new.
  printf("own new: %s, own delete: %s\n", own_news > 3 * 500 ? "yes" : "no",
         own_deletes > 3 * 500 ? "yes" : "no");
#endif
  return 0;
}
// PLAIN: tree in place: yes
// PLAIN-NEXT: new in place: yes
// PRELOADED: tree in place: yes
// PRELOADED-NEXT: new in place: no
// SANNEW: tree in place: yes
// SANNEW-NEXT: new in place: no
// OWN: tree in place: yes
// OWN-NEXT: new in place: no
// RESULTS: roomy: [[R:[0-9]+]]
// RESULTS-NEXT: cramped: [[R]]
// RESULTS-NEXT: thread: [[R]]
// OWN-NEXT: own new: yes, own delete: yes
// GDB: #0 {{.*}}_Rb_tree_insert_and_rebalance
// GDB-NOT: signal handler called
// GDB: #0 {{.*}}malloc
// GDB-NEXT: #1 {{.*}}work
// GDB-FOREIGN: #0 {{.*}}_Rb_tree_insert_and_rebalance
// GDB-FOREIGN-NOT: signal handler called
// GDB-FOREIGN: #0 {{.*}}malloc
// GDB-FOREIGN-NEXT: #1 {{.*}}operator new
// GDB-FOREIGN-NEXT: #2 <signal handler called>
