// A program that defines its own strspn (built without copystack, and
// needing 256 KiB of stack) binds the name to other code than glibc's, so
// the runtime clears the string-scan group (libc_in_place.cc) and the call
// must stay a foreign call, on the thread's stack, even from a task whose
// stack has room for glibc's. Before the pass declared that its inline asm
// (the stack-room read) clobbers the flags, the compiler tested the
// group's bit before the asm and branched on the flags after it: the bit
// was ignored, and the call ran in place and overflowed the task stack.
// RUN: %host_cc -fno-builtin -c %S/Inputs/deep_strspn.c -o %t.o
// RUN: %cc %s %t.o -o %t
// RUN: %run %t | FileCheck %s
#include "Inputs/check.h"
#include <string.h>

extern int copystack_libc_flags asm("__copystack_libc_in_place");
static copystack_chan *done;
static const char *volatile text = "aaab", *volatile set = "a"; // not folded

static void scan(void *arg) {
  (void)arg;
  // 64 KiB of stack: room for glibc's strspn in place, not for this one.
  size_t r = strspn(text, set);
  printf("strspn: %zu\n", r);
  char c = 1;
  copystack_chan_send(done, &c);
}

int main(void) {
  printf("scan group in place: %s\n",
         copystack_libc_flags & COPYSTACK_IN_PLACE_SCAN ? "yes" : "no");
  done = copystack_chan_make(1, 0);
  copystack_go_sized(scan, 0, 64 * 1024);
  char c;
  copystack_chan_recv(done, &c);
  return 0;
}
// CHECK: scan group in place: no
// CHECK: strspn: 1003
