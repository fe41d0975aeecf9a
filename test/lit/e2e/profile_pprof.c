// Profiles in pprof's format (sched/profile.h), read back by Go's pprof:
// stack growth by the call stack that asked (two call paths into one
// recursion, told apart), live tasks by spawn site with what each waits
// for, and time blocked by call stack and wait reason. COPYSTACK_PROFILE_OUT
// writes all three at exit; the API starts, writes and stops them.
// RUN: %cc %s -o %t
// RUN: rm -f %t.prof.*
// RUN: env COPYSTACK_PROFILE_OUT=%t.prof %run %t %t.api 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: %pprof -top -sample_index=copies %t %t.prof.growth.pb.gz | FileCheck %s --check-prefix=GROWTH
// RUN: %pprof -top -sample_index=copied %t.prof.growth.pb.gz | FileCheck %s --check-prefix=COPIED
// RUN: %pprof -top -focus=through_right %t %t.prof.growth.pb.gz | FileCheck %s --check-prefix=RIGHT
// RUN: %pprof -top %t %t.prof.tasks.pb.gz | FileCheck %s --check-prefix=TASKS
// RUN: %pprof -tags %t.prof.tasks.pb.gz | FileCheck %s --check-prefix=TASKTAGS
// RUN: %pprof -top -sample_index=contentions %t %t.prof.block.pb.gz | FileCheck %s --check-prefix=BLOCK
// RUN: %pprof -tags %t.prof.block.pb.gz | FileCheck %s --check-prefix=BLOCKTAGS
// RUN: %pprof -top -sample_index=copies %t %t.api.growth | FileCheck %s --check-prefix=API
// RUN: %pprof -top -sample_index=copies %t %t.api.growth2 | FileCheck %s --check-prefix=API
// REQUIRES: go
#include "Inputs/check.h"
#include <errno.h>
#include <string.h>

// OUT: ok
// OUT: profiles written: {{.*}}.prof.growth.pb.gz, {{.*}}.prof.tasks.pb.gz, {{.*}}.prof.block.pb.gz

// Each of the 20 growers grows from 2 KiB through descend, reached from
// through_left or through_right.
// GROWTH: Type: copies
// GROWTH-DAG: {{^ +[1-9][0-9]* +[0-9.]+% +[0-9.]+% +[0-9]+ +[0-9.]+% +}}descend
// GROWTH-DAG: {{^ +0 +0% +[0-9.]+% +[1-9][0-9]* +[0-9.]+% +}}through_left
// GROWTH-DAG: {{^ +0 +0% +[0-9.]+% +[1-9][0-9]* +[0-9.]+% +}}through_right
// GROWTH-DAG: grower
// COPIED: Type: copied
// COPIED: {{[0-9.]+[kM]B}} {{.*}}descend
// RIGHT: through_right
// RIGHT-NOT: through_left

// At exit: the 30 parked receivers spawned by spawn_receivers, the 40
// sleepers by spawn_sleepers, and main, which has no spawn site: it counts
// in the total, under no function (pprof leaves it out of -tags).
// TASKS: Type: tasks
// TASKS: of 71 total
// TASKS-DAG: {{^ +40 .* spawn_sleepers$}}
// TASKS-DAG: {{^ +30 .* spawn_receivers$}}
// TASKTAGS: state: Total 70
// TASKTAGS-DAG: 40.0 ({{.*}}): sleep
// TASKTAGS-DAG: 30.0 ({{.*}}): chan receive

// 50 lockers each waited for the mutex a holder kept for a sleep; main
// waited for them all.
// BLOCK: Type: contentions
// BLOCK-DAG: {{ [1-9][0-9]* +[0-9.]+% +}}locker{{$}}
// BLOCK-DAG: main
// BLOCKTAGS: wait: Total
// BLOCKTAGS-DAG: mutex lock
// BLOCKTAGS-DAG: wait group wait

// The API's growth profile: started after the first growers, only the
// later ones (through_right only); the second write after stop() is the
// same.
// API: Type: copies
// API-NOT: through_left
// API: through_right
// API-NOT: through_left

static copystack_mutex lock = COPYSTACK_MUTEX_INIT;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static copystack_chan *never;

__attribute__((noinline)) static long descend(int n) {
  char buf[200];
  memset(buf, n, sizeof buf);
  CS_KEEP(buf);
  return n ? descend(n - 1) + buf[3] : 0;
}
// Not tail calls: each stays on the stack below descend.
__attribute__((noinline)) static long through_left(void) {
  return descend(40) - 1;
}
__attribute__((noinline)) static long through_right(void) {
  return descend(40) + 1;
}

static void grower(void *arg) {
  long r = arg ? through_right() : through_left();
  REQUIRE(r >= 0);
  copystack_waitgroup_done(&wg);
}

static void grow_tasks(int n, int right_only) {
  copystack_waitgroup_add(&wg, n);
  for (int i = 0; i < n; i++)
    copystack_go(grower, (void *)(long)(right_only || i % 2));
  copystack_waitgroup_wait(&wg);
}

static void locker(void *arg) {
  (void)arg;
  copystack_mutex_lock(&lock);
  copystack_sleep_ns(200000); // the others wait for the lock meanwhile
  copystack_mutex_unlock(&lock);
  copystack_waitgroup_done(&wg);
}

static void receiver(void *arg) {
  (void)arg;
  long v;
  copystack_chan_recv(never, &v); // parked until the program ends
}

static void sleeper(void *arg) {
  (void)arg;
  copystack_sleep_ns(3600ull * 1000000000ull);
}

// The spawn site is the call's return address: the counter after the
// loop keeps the last call from being a tail call (whose site would be
// the caller's).
static volatile int spawned;

__attribute__((noinline)) static void spawn_receivers(int n) {
  for (int i = 0; i < n; i++)
    copystack_go(receiver, NULL);
  spawned += n;
}

__attribute__((noinline)) static void spawn_sleepers(int n) {
  for (int i = 0; i < n; i++)
    copystack_go(sleeper, NULL);
  spawned += n;
}

int main(int argc, char **argv) {
  cs_fixed_start(0);
  never = copystack_chan_make(sizeof(long), 0);
  grow_tasks(20, 0);

  copystack_waitgroup_add(&wg, 50);
  for (int i = 0; i < 50; i++)
    copystack_go(locker, NULL);
  copystack_waitgroup_wait(&wg);

  if (argc > 1) {
    char path[4096];
    REQUIRE(copystack_profile_start(0) == EINVAL);
    REQUIRE(copystack_profile_start(8) == EINVAL);
    REQUIRE(copystack_profile_write(COPYSTACK_PROFILE_GROWTH |
                                        COPYSTACK_PROFILE_BLOCK,
                                    "/tmp/x") == EINVAL);
    REQUIRE(copystack_profile_write(COPYSTACK_PROFILE_GROWTH, "") == EINVAL);
    REQUIRE(copystack_profile_write(COPYSTACK_PROFILE_TASKS,
                                    "/nonexistent-dir/p") == ENOENT);
    // Started anew: the growth recorded so far is forgotten.
    REQUIRE(copystack_profile_stop(COPYSTACK_PROFILE_GROWTH) == 0);
    REQUIRE(copystack_profile_start(COPYSTACK_PROFILE_GROWTH) == 0);
    grow_tasks(10, 1);
    snprintf(path, sizeof path, "%s.growth", argv[1]);
    REQUIRE(copystack_profile_write(COPYSTACK_PROFILE_GROWTH, path) == 0);
    REQUIRE(copystack_profile_stop(COPYSTACK_PROFILE_GROWTH) == 0);
    grow_tasks(10, 0); // not recorded
    snprintf(path, sizeof path, "%s.growth2", argv[1]);
    REQUIRE(copystack_profile_write(COPYSTACK_PROFILE_GROWTH, path) == 0);
    // The exit's growth profile has what was recorded since the last start.
    REQUIRE(copystack_profile_start(COPYSTACK_PROFILE_GROWTH) == 0);
    grow_tasks(4, 0);
  }

  spawn_receivers(30);
  spawn_sleepers(40);
  // Let them all park.
  copystack_sleep_ns(20000000);
  printf("ok\n");
  fflush(stdout);
  return 0;
}
