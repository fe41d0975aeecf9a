// libstdc++'s std::string members that instrumented code calls most run in
// place on the task stack when the result fits the string's capacity
// (_M_append, _M_assign, _M_replace, _M_replace_aux, _M_construct(n, c),
// _M_erase, resize(n, c):
// the runtime's copy of those paths, abi.h COPYSTACK_IN_PLACE_STRING), and
// stay foreign calls where the string must grow, and for _M_replace where
// the new characters come from the string itself. Each member below runs
// both ways, at the local buffer's edge (15 and 16 characters) and on heap
// strings, on a task whose stack grows and moves under the strings (their
// data pointers point into their own frames), a roomy task and the main
// thread: the same text everywhere, in every mode. The group is off where
// the allocator is not glibc's (glibc's malloc-debug library, preloaded;
// TSan's interceptors); the results do not change. gdb sees the fast path
// called from the task's own function, and a string that grows reach
// libstdc++'s member through the foreign-call trampoline (frame #1, as
// glibc marks a signal handler's return).
// RUN: %cxx %s -o %t
// RUN: %run %t | FileCheck %s --check-prefixes=RESULTS,%if tsan %{OFF%} %else %{ON%}
// RUN: env LD_PRELOAD=libc_malloc_debug.so.0 %run %t | FileCheck %s --check-prefixes=RESULTS,OFF
// At -O0 clang does not instantiate the inline members of the extern
// template (append(const char *) and the rest are calls into libstdc++), so
// the members above are reached at -O2 only.
// RUN: %if gdb && normal && O2 %{ gdb -batch -nx -ex "break main" -ex run -ex "break '__copystack_fast._ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_appendEPKcm'" -ex continue -ex "bt 4" -ex "delete 2" -ex "break _ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_appendEPKcm" -ex continue -ex "bt 2" -ex kill %t 2>&1 | FileCheck %s --check-prefix=GDB %}
#include "Inputs/check.h"

#include <string>

extern "C" int copystack_libc_flags asm("__copystack_libc_in_place");

// Opaque to the optimizer, so that every call below is made.
template <typename T> static T opaque(T v) {
  __asm__ volatile("" : "+r"(v));
  return v;
}

static unsigned long sum;

static void show(const char *what, const std::string &s) {
  for (char c : s)
    sum = sum * 31 + (unsigned char)c;
  printf("%s [%zu] %s\n", what, s.size(), s.c_str());
}

__attribute__((noinline)) static void work(int depth) {
  char frame[256]; // the stack grows and moves between the steps below
  CS_KEEP(frame);
  if (depth > 0) {
    work(depth - 1);
    return;
  }
  // _M_construct(n, c): local (0, 1, 15 characters), heap (16: foreign).
  std::string c0(opaque(0), 'x'), c1(opaque(1), 'y'), c15(opaque(15), 'z'),
      c16(opaque(16), 'w');
  show("construct", c0 + "|" + c1 + "|" + c15 + "|" + c16);
  // _M_append: fits the local buffer, fills it, grows (foreign), fits the
  // heap capacity it grew to.
  std::string a = "ab";
  a.append(opaque("cdefgh"), 6);
  a.append(opaque("ijklmno"), 7); // 15: the local buffer full
  show("append local", a);
  a.append(opaque("p"), 1); // 16: grows
  a.reserve(200);
  for (int i = 0; i < 5; ++i)
    a.append(opaque("0123456789"), opaque(10));
  a.append(a.data() + 2, 3); // from itself: disjunct from the new end
  // The fast path's copies by size: 1-3, 4-7, 8-16 bytes, and longer.
  a.append(opaque("ABCDEFGHIJKLMNOP"), 16);
  a.append(opaque("qrstuvwxyzQRSTUVW"), 17);
  a.append(opaque("XY"), 2);
  a.append(opaque("Z1234"), 4);
  show("append heap", a);
  // _M_assign: fits, itself, needs more (foreign).
  std::string b = "short";
  std::string big(40, 'B');
  std::string t;
  t = b;
  show("assign local", t);
  t = opaque(&t) == &t ? t : b; // itself
  show("assign self", t);
  t = big;
  show("assign grows", t);
  t = b;
  show("assign back", t);
  // _M_replace: replace, insert, assign from a char *; from itself (not
  // disjunct: foreign); growing (foreign).
  std::string r = "hello, world";
  r.replace(opaque(7), 5, "there", 5);
  show("replace", r);
  r.insert(opaque(0), "well ");
  show("insert", r);
  r.replace(opaque(0), 4, r.data() + 6, 2); // from itself
  show("replace self", r);
  r.assign(opaque("a much longer string than the buffer had"));
  show("replace grows", r);
  r.assign("tiny");
  show("replace shrinks", r);
  // _M_replace_aux: append(n, c), insert(pos, n, c), assign(n, c).
  std::string x = "abc";
  x.append(opaque(3), '-');
  x.insert(opaque(1), 2, '+');
  show("replace_aux", x);
  x.append(opaque(30), '#'); // grows
  show("replace_aux grows", x);
  x.assign(opaque(5), 'q');
  show("assign n", x);
  // resize(n, c): longer within the local buffer, to its edge (15), past
  // it (16: grows, foreign), shorter, the same, longer within the heap
  // capacity it grew to; resize(n) fills with '\0'.
  std::string z = "abc";
  z.resize(opaque(14), '.');
  show("resize", z);
  z.resize(opaque(15), '!');
  show("resize local full", z);
  z.resize(opaque(16), '?'); // grows
  show("resize grows", z);
  z.resize(opaque(4), 'X');
  show("resize shorter", z);
  z.resize(opaque(4), 'Y');
  z.resize(opaque(20), '*');
  show("resize heap", z);
  z.resize(opaque(22));
  printf("resize zero-filled [%zu] %d %d\n", z.size(), z[20], z[21]);
  z.resize(0);
  show("resize empty", z);
  // _M_erase: erase(pos, n), erase(iterator), pop_back, to the end.
  std::string e = "0123456789abcdefghij";
  e.erase(opaque(3), 4);
  e.erase(e.begin() + opaque(1));
  e.pop_back();
  show("erase", e);
  e.erase(opaque(5));
  show("erase to end", e);
}

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void roomy(void *) {
  work(3);
  printf("roomy: %lu\n", sum);
  copystack_waitgroup_done(&wg);
}

// A fresh 2 KiB stack: work's frames grow and move it.
static void cramped(void *) {
  sum = 0;
  unsigned long before = cs_copies();
  work(12);
  printf("cramped: %lu\n", sum);
  REQUIRE(cs_copies() > before);
}

int main() {
  printf("string in place: %s\n",
         copystack_libc_flags & COPYSTACK_IN_PLACE_STRING ? "yes" : "no");
  copystack_waitgroup_add(&wg, 1);
  copystack_go_sized(roomy, nullptr, 256 * 1024);
  copystack_waitgroup_wait(&wg);
  cs_fixed_start(2048);
  copystack_run(cramped, nullptr);
  sum = 0;
  work(0);
  printf("thread: %lu\n", sum);
  return 0;
}
// ON: string in place: yes
// OFF: string in place: no
// RESULTS: construct [35] |y|zzzzzzzzzzzzzzz|wwwwwwwwwwwwwwww
// RESULTS-NEXT: append local [15] abcdefghijklmno
// RESULTS-NEXT: append heap [108] abcdefghijklmnop01234567890123456789012345678901234567890123456789cdeABCDEFGHIJKLMNOPqrstuvwxyzQRSTUVWXYZ123
// RESULTS-NEXT: assign local [5] short
// RESULTS-NEXT: assign self [5] short
// RESULTS-NEXT: assign grows [40] BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB
// RESULTS-NEXT: assign back [5] short
// RESULTS-NEXT: replace [12] hello, there
// RESULTS-NEXT: insert [17] well hello, there
// RESULTS-NEXT: replace self [15] el hello, there
// RESULTS-NEXT: replace grows [40] a much longer string than the buffer had
// RESULTS-NEXT: replace shrinks [4] tiny
// RESULTS-NEXT: replace_aux [8] a++bc---
// RESULTS-NEXT: replace_aux grows [38] a++bc---##############################
// RESULTS-NEXT: assign n [5] qqqqq
// RESULTS-NEXT: resize [14] abc...........
// RESULTS-NEXT: resize local full [15] abc...........!
// RESULTS-NEXT: resize grows [16] abc...........!?
// RESULTS-NEXT: resize shorter [4] abc.
// RESULTS-NEXT: resize heap [20] abc.****************
// RESULTS-NEXT: resize zero-filled [22] 0 0
// RESULTS-NEXT: resize empty [0]
// RESULTS-NEXT: erase [14] 02789abcdefghi
// RESULTS-NEXT: erase to end [5] 02789
// RESULTS-NEXT: roomy: [[R:[0-9]+]]
// RESULTS: cramped: [[R]]
// RESULTS: thread: [[R]]
// GDB: #0 {{.*}}__copystack_fast.{{.*}}_M_append
// GDB-NOT: signal handler called
// GDB: #{{[1-3]}} {{.*}}work
// GDB: #0 {{.*}}_M_append
// GDB-NEXT: #1 <signal handler called>
