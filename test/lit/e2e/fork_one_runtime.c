// One runtime per process, whatever the layout: an executable built with
// the drivers (its own runtime, or libcopystack.so with
// --copystack-shared), linked against an instrumented shared library and
// dlopen'ing another, forks 500 times in a row (100 in verify and stress
// mode; 2,000 and 500 with COPYSTACK_E2E_FULL=1: lit.cfg.py), then runs
// system(), popen() and posix_spawn(), while a task
// sleeps in 1 ms steps, another grows and shrinks, another waits on a pipe
// in the poller, and collections run every millisecond; then forks from a
// plain thread (COPYSTACK_THREADS=0: pthread_create makes a thread, not a
// task). Both libraries need libcopystack.so, whose copy of the runtime
// used to register fork handlers of its own: they took the locks the
// executable's handlers had just taken, and the first fork hung (found by
// pcre2's test suite, whose callouts run /bin/echo).
// Not under TSan, which stops a child of a multi-threaded process that
// starts threads (docs/debugging.md).
// UNSUPPORTED: tsan
// RUN: %cc -fPIC -shared %S/Inputs/deep_lib.c -o %t.lib.so
// RUN: %cc -fPIC -shared -DDEEP_LIB_PREFIX=dl_ %S/Inputs/deep_lib.c -o %t.dl.so
// RUN: %cc %s %t.lib.so -Wl,-rpath,%T -o %t -ldl
// RUN: env COPYSTACK_COLLECT_MS=1 %run %t %t.dl.so %{forks}0 | FileCheck %s -D#N=%{forks}0
// RUN: env COPYSTACK_THREADS=0 %run %t %t.dl.so 100 | FileCheck %s -D#N=100
// RUN: %cc --copystack-shared %s %t.lib.so -Wl,-rpath,%T -o %t.shared -ldl
// RUN: %run %t.shared %t.dl.so 100 | FileCheck %s -D#N=100
#include "Inputs/check.h"

#include <dlfcn.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
int lib_depth_sum(int depth, int *acc);

static volatile int stop;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void sleeper(void *arg) {
  (void)arg;
  while (!stop)
    copystack_sleep_ns(1000 * 1000);
  copystack_waitgroup_done(&wg);
}

static void grower(void *arg) {
  int (*dl_sum)(int, int *) = (int (*)(int, int *))arg;
  while (!stop) {
    int acc = 0;
    lib_depth_sum(500, &acc); // grows through the linked library's frames
    dl_sum(500, &acc);        // and the dlopen'ed one's
    copystack_sleep_ns(200 * 1000);
  }
  copystack_waitgroup_done(&wg);
}

static int fds[2];

static void reader(void *arg) {
  (void)arg;
  char c;
  REQUIRE(read(fds[0], &c, 1) == 1); // parked in the poller until the end
  copystack_waitgroup_done(&wg);
}

static int fork_n(int n) {
  int ok = 0;
  for (int i = 0; i < n; ++i) {
    pid_t pid = fork();
    if (pid == 0) {
      alarm(5);
      int acc = 0;
      _exit(lib_depth_sum(100, &acc) == 100 ? 3 : 4);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ok += WIFEXITED(status) && WEXITSTATUS(status) == 3;
  }
  return ok;
}

static void *plain_thread(void *arg) {
  return (void *)(long)fork_n((int)(long)arg);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 3);
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  REQUIRE(lib);
  void *dl_sum = dlsym(lib, "dl_lib_depth_sum");
  REQUIRE(dl_sum);
  int n = atoi(argv[2]);
  REQUIRE(pipe(fds) == 0);
  copystack_waitgroup_add(&wg, 3);
  copystack_go(sleeper, 0);
  copystack_go(grower, dl_sum);
  copystack_go(reader, 0);
  int ok = fork_n(n);
  printf("%d of %d children ran the library and exited\n", ok, n);
  pthread_t th;
  void *from_thread = 0;
  REQUIRE(pthread_create(&th, 0, plain_thread, (void *)20L) == 0);
  REQUIRE(pthread_join(th, &from_thread) == 0);
  printf("from a thread: %ld of 20\n", (long)from_thread);
  printf("system: %d\n", system("exit 5") >> 8);
  FILE *p = popen("echo from popen", "r");
  char line[64] = "";
  REQUIRE(p && fgets(line, sizeof line, p));
  printf("popen: %s", line);
  printf("pclose: %d\n", pclose(p));
  pid_t pid;
  char *args[] = {"sh", "-c", "exit 6", 0};
  REQUIRE(posix_spawn(&pid, "/bin/sh", 0, 0, args, environ) == 0);
  int status = 0;
  waitpid(pid, &status, 0);
  printf("posix_spawn: %d\n", WEXITSTATUS(status));
  stop = 1;
  REQUIRE(write(fds[1], "x", 1) == 1);
  copystack_waitgroup_wait(&wg);
  return 0;
}
// CHECK: [[#N]] of [[#N]] children ran the library and exited
// CHECK-NEXT: from a thread: 20 of 20
// CHECK-NEXT: system: 5
// CHECK-NEXT: popen: from popen
// CHECK-NEXT: pclose: 0
// CHECK-NEXT: posix_spawn: 6
