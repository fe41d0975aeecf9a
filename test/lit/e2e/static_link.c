// -static and -static-pie executables link libcopystack_static.a, whose
// interposers the drivers reach with -Wl,--wrap= (there is no dynamic
// symbol table to interpose through, runtime/src/platform/interpose.h),
// and behave as a dynamic executable does: tasks grow their stacks, a
// pthread_create start routine runs as a task and grows past its thread's
// 64 KiB, a blocking read parks, closing the descriptor wakes its reader
// (the close interposer), an O_NONBLOCK set with fcntl is seen (the fcntl
// interposer), and a deadlock's dump names the functions and lines.
// ThreadSanitizer's runtime cannot be linked statically (it needs _DYNAMIC).
// UNSUPPORTED: tsan
// RUN: %cc -static %s -o %t.static
// RUN: %run %t.static | FileCheck %s
// RUN: %exits 2 %run %t.static deadlock 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: %cc -static-pie %s -o %t.pie
// RUN: %run %t.pie | FileCheck %s
// RUN: %exits 2 %run %t.pie deadlock 2>&1 | FileCheck %s --check-prefix=DUMP
#include "Inputs/net.h"
#include <pthread.h>
#include <string.h>
#include <sys/auxv.h>

static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static long results[8];

static void grow(void *arg) {
  long i = (long)arg;
  results[i] = cs_burn(400 + 100 * (int)i);
  copystack_waitgroup_done(&wg);
}

static void *thread_main(void *arg) {
  copystack_stack_info info;
  int in_task = copystack_current_stack(&info) == 0;
  // ~3,000 frames of ~160 bytes: far beyond the thread's 64 KiB.
  long r = in_task ? cs_burn(3000) : -1;
  *(long *)arg = r;
  return in_task ? arg : NULL;
}

static int sv[2];
static void reader(void *arg) {
  (void)arg;
  char c;
  errno = 0;
  ssize_t r = read(sv[0], &c, 1);
  printf("read after close: %zd %s\n", r, errno == EBADF ? "EBADF" : "?");
  copystack_waitgroup_done(&wg);
}

static copystack_chan *never;
__attribute__((noinline)) static void receive_forever(void *arg) {
  (void)arg;
  long v;
  copystack_chan_recv(never, &v);
}

int main(int argc, char **argv) {
  // No program interpreter: the kernel started the executable itself.
  printf("interpreter: %s\n", getauxval(AT_BASE) == 0 ? "none" : "ld.so");
  if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
    never = copystack_chan_make(sizeof(long), 0);
    copystack_go(receive_forever, NULL);
    long v;
    copystack_chan_recv(never, &v);
    return 0;
  }

  copystack_waitgroup_add(&wg, 8);
  for (long i = 0; i < 8; i++)
    copystack_go(grow, (void *)i);
  copystack_waitgroup_wait(&wg);
  int same = 1;
  for (int i = 0; i < 8; i++)
    same &= results[i] == cs_burn(400 + 100 * i);
  printf("tasks: %s, stacks grew: %s\n", same ? "ok" : "WRONG",
         cs_growths() > 0 ? "yes" : "no");

  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t t;
  long r = 0;
  void *ret = NULL;
  REQUIRE(pthread_create(&t, &attr, thread_main, &r) == 0);
  REQUIRE(pthread_join(t, &ret) == 0);
  printf("pthread: in a task %s, result %s\n", ret == &r ? "yes" : "no",
         r == cs_burn(3000) ? "ok" : "WRONG");

  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  copystack_waitgroup_add(&wg, 1);
  copystack_go(reader, NULL);
  copystack_sleep_ns(20000000); // the reader waits now
  close(sv[0]);
  copystack_waitgroup_wait(&wg);

  close(sv[1]);

  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  int fl = fcntl(sv[0], F_GETFL);
  REQUIRE(fcntl(sv[0], F_SETFL, fl | O_NONBLOCK) == 0);
  char c;
  errno = 0;
  ssize_t n = read(sv[0], &c, 1);
  printf("non-blocking read: %zd %s\n", n, errno == EAGAIN ? "EAGAIN" : "?");
  close(sv[0]);
  close(sv[1]);
  return 0;
}
// CHECK: interpreter: none
// CHECK-NEXT: tasks: ok, stacks grew: yes
// CHECK-NEXT: pthread: in a task yes, result ok
// CHECK-NEXT: read after close: -1 EBADF
// CHECK-NEXT: non-blocking read: -1 EAGAIN

// DUMP: fatal error: all tasks are asleep - deadlock!
// DUMP-DAG: #{{[0-9]+}} receive_forever at {{.*}}static_link.c:{{[0-9]+}}
// DUMP-DAG: created by main at {{.*}}static_link.c:{{[0-9]+}}
// DUMP-DAG: #{{[0-9]+}} main at {{.*}}static_link.c:{{[0-9]+}}
