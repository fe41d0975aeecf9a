// Profiles across fork() (sched/profile.h): the child records nothing and
// writes no profile at its exit, so the files are the parent's alone; %p in
// COPYSTACK_PROFILE_OUT is the process id.
// RUN: %cc %s -o %t
// RUN: rm -f %t.pid.*
// RUN: env COPYSTACK_PROFILE_OUT=%t.pid.%%p %run %t 2>&1 | grep -c "profiles written" | FileCheck %s --check-prefix=ONCE
// RUN: ls %t.pid.*.growth.pb.gz | count 1
// RUN: %pprof -top %t %t.pid.*.tasks.pb.gz | FileCheck %s
// REQUIRES: go
// UNSUPPORTED: tsan
#include "Inputs/check.h"
#include <sys/wait.h>
#include <unistd.h>

// ONCE: 1
// CHECK: Type: tasks
// CHECK-NOT: spawn_in_child
// CHECK: {{^ +3 .* spawn_in_parent$}}
// CHECK-NOT: spawn_in_child

static copystack_chan *never;
static volatile int spawned;

static void receiver(void *arg) {
  (void)arg;
  long v;
  copystack_chan_recv(never, &v);
}

__attribute__((noinline)) static void spawn_in_parent(int n) {
  for (int i = 0; i < n; i++)
    copystack_go(receiver, NULL);
  spawned += n; // not a tail call: the site is this function
}

__attribute__((noinline)) static void spawn_in_child(int n) {
  for (int i = 0; i < n; i++)
    copystack_go(receiver, NULL);
  spawned += n;
}

int main(void) {
  never = copystack_chan_make(sizeof(long), 0);
  spawn_in_parent(3);
  fflush(stdout);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    spawn_in_child(5);
    copystack_sleep_ns(5000000);
    exit(0); // writes no profile: the parent's are the profiles
  }
  int status;
  REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
  copystack_sleep_ns(5000000); // the receivers park
  return 0;
}
