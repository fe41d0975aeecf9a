// Interpreters detect deep recursion by remembering a stack address at
// start-up and comparing later ones with it (QuickJS's
// js_check_stack_overflow). The compiler warns where a program stores a
// stack address as an integer or compares one with a remembered value; the
// same check written with copystack_stack_pointer() measures depth
// correctly however often the stack moves, and copystack_current_stack()
// reports the room left before the next growth and before the maximum.
// RUN: %cc -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: %cc %s -o %t
// RUN: %run %t | FileCheck %s
#include "Inputs/check.h"

struct runtime {
  uintptr_t stack_top, stack_limit;
  size_t stack_size;
};
struct runtime rt_old, rt_new; // visible: the stores stay at -O2

// The idiom as QuickJS writes it.
// WARN: warning: copystack: 'old_update_stack_top' stores a stack address as an integer in memory outside its frame
__attribute__((noinline)) static void old_update_stack_top(struct runtime *rt) {
  rt->stack_top = (uintptr_t)__builtin_frame_address(0);
  rt->stack_limit = rt->stack_top - rt->stack_size;
}
// WARN: warning: copystack: 'old_overflows' compares a stack address with a value loaded from memory
__attribute__((noinline)) static int old_overflows(struct runtime *rt) {
  return (uintptr_t)__builtin_frame_address(0) < rt->stack_limit;
}
// WARN-NOT: warning: copystack: 'new_

// The one-line change: copystack_stack_pointer() instead of the frame
// address.
__attribute__((noinline)) static void new_update_stack_top(struct runtime *rt) {
  rt->stack_top = copystack_stack_pointer();
  rt->stack_limit = rt->stack_top - rt->stack_size;
}
__attribute__((noinline)) static int new_overflows(struct runtime *rt) {
  return copystack_stack_pointer() < rt->stack_limit;
}

static size_t used_when_caught;
__attribute__((noinline)) static int recurse(int depth) {
  char frame[100];
  CS_KEEP(frame);
  if (new_overflows(&rt_new)) {
    copystack_stack_info i;
    REQUIRE(copystack_current_stack(&i) == 0);
    used_when_caught = i.used;
    return depth;
  }
  return recurse(depth + 1) + (frame[0] & 0);
}

int main(void) {
  rt_old.stack_size = rt_new.stack_size = 64 * 1024;
  old_update_stack_top(&rt_old);
  volatile int sink = old_overflows(&rt_old);
  (void)sink;
  new_update_stack_top(&rt_new);

  copystack_stack_info before;
  REQUIRE(copystack_current_stack(&before) == 0);
  unsigned long copies = cs_copies();
  int depth = recurse(0);
  REQUIRE(depth > 100);
  // Caught within a frame of the limit, measured from where main stood.
  size_t beyond = used_when_caught - before.used;
  printf("caught past the limit: %s\n",
         beyond >= rt_new.stack_size && beyond < rt_new.stack_size + 512
             ? "yes" : "no");
  printf("the stack moved on the way: %s\n", cs_copies() > copies ? "yes" : "no");

  copystack_stack_info i;
  REQUIRE(copystack_current_stack(&i) == 0);
  printf("used + room + guard = size: %s\n",
         i.used + i.room + 928 == i.size ? "yes" : "no");
  printf("remaining = max - used: %s\n",
         i.max_size == copystack_max_stack() &&
                 i.remaining == i.max_size - i.used ? "yes" : "no");
  return 0;
}
// CHECK: caught past the limit: yes
// CHECK: the stack moved on the way: yes
// CHECK: used + room + guard = size: yes
// CHECK: remaining = max - used: yes
