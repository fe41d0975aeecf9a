// Execution traces (sched/trace.h): COPYSTACK_TRACE_OUT traces a whole run
// of tasks that exchange values on channels, sleep, block in usleep (the
// poller's wait), take a contended mutex, grow their stacks and are
// collected; copystack_trace_start/stop trace a part of a run. The file is
// read back as a viewer would (Inputs/check_trace.py): JSON that parses,
// one track per thread and per task, slices that follow one another,
// arrows with both ends on slices, growth instants naming the function.
// A small buffer drops events and says so; a forked child writes nothing
// (which is why TSan does not run it: docs/limitations.md).
// RUN: %cc %s -o %t
// RUN: rm -f %t.json %t.part.json %t.child.json
// RUN: env COPYSTACK_TRACE_OUT=%t.json COPYSTACK_TRACE_BUFFER=1048576 %run %t %t.part.json 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: python3 %S/Inputs/check_trace.py %t.json | FileCheck %s
// RUN: python3 %S/Inputs/check_trace.py %t.part.json | FileCheck %s --check-prefix=PART
// RUN: env COPYSTACK_TRACE_OUT=%t.small.json COPYSTACK_TRACE_BUFFER=1024 %run %t 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: python3 %S/Inputs/check_trace.py %t.small.json | FileCheck %s --check-prefix=SMALLFILE
// RUN: env COPYSTACK_TRACE_BUFFER=100 %exits 2 %run %t 2>&1 | FileCheck %s --check-prefix=BADBUF
// RUN: %run %t mid %t.mid.json
// RUN: python3 %S/Inputs/check_trace.py %t.mid.json | FileCheck %s --check-prefix=MID
// RUN: env COPYSTACK_THREADS=0 %run %t threads %t.threads.json
// RUN: python3 %S/Inputs/check_trace.py %t.threads.json | FileCheck %s --check-prefix=THREADS
// RUN: rm -f %t.pid.*.json
// RUN: env COPYSTACK_TRACE_OUT=%t.pid.%%p.json %run %t quick
// RUN: ls %t.pid.*.json | FileCheck %s --check-prefix=PID
// UNSUPPORTED: tsan
#include "Inputs/check.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

// OUT-NOT: could not write
// OUT-DAG: ok
// OUT-DAG: copystack: trace of {{[0-9]+}} events (0 dropped{{.*}}) written to {{.*}}.json
// SMALL: copystack: trace of {{[0-9]+}} events ({{[1-9][0-9]*}} dropped: COPYSTACK_TRACE_BUFFER keeps more)
// SMALLFILE: dropped some
// BADBUF: COPYSTACK_TRACE_BUFFER=100: expected a number of events from 1024 to 2^24

// MID: dropped none
// MID: slice running
// MID: arrow spawn from task
// MID: tasks 13 named 12
// THREADS: thread tracks {{[1-9]}} shared by threads that came and went
// THREADS: tasks 101 named 100
// PID: {{.*}}.pid.{{[0-9]+}}.json

// CHECK: producer copystack
// CHECK: dropped none
// CHECK: process 1 threads
// CHECK: process 2 tasks
// CHECK: worker tracks yes
// CHECK: runtime thread tracks [{{.*}}'copystack-timer'{{.*}}]
// CHECK-DAG: slice IO wait
// CHECK-DAG: slice chan receive
// CHECK-DAG: slice chan send
// CHECK-DAG: slice mutex lock
// CHECK-DAG: slice sleep
// CHECK-DAG: slice runnable
// CHECK-DAG: slice running
// CHECK-DAG: slice wait group wait
// CHECK-DAG: slice thread: collect stacks
// CHECK-DAG: slice thread: poll
// CHECK: arrow spawn from task
// CHECK: arrow wake from task
// CHECK: arrow wake from thread
// CHECK: grow functions [{{.*}}'descend'{{.*}}]
// CHECK: stack events [{{.*}}'grow'{{.*}}]
// CHECK: tasks 209 named 208

// PART: dropped none
// PART: slice chan receive
// PART: tasks 3 named 2

static copystack_chan *ping, *pong;
static copystack_mutex lock = COPYSTACK_MUTEX_INIT;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;
static long shared;

__attribute__((noinline)) static long descend(int n) {
  char buf[200];
  memset(buf, n, sizeof buf);
  CS_KEEP(buf);
  return n ? descend(n - 1) + buf[3] : 0;
}

static void pinger(void *arg) {
  long rounds = (long)arg;
  for (long i = 0; i < rounds; i++) {
    long r;
    copystack_chan_send(ping, &i);
    copystack_chan_recv(pong, &r);
    REQUIRE(r == i);
  }
  REQUIRE(descend(60) >= 0); // about 13 KiB of frames: grows from 2 KiB
  copystack_waitgroup_done(&wg);
  long go;
  copystack_chan_recv(ping, &go); // parked on its grown stack (run_all)
}

static void ponger(void *arg) {
  long rounds = (long)arg, v;
  for (long i = 0; i < rounds; i++) {
    copystack_chan_recv(ping, &v);
    copystack_chan_send(pong, &v);
  }
  copystack_sleep_ns(2000000); // the timer wakes it
  usleep(2000);                // the poller's wait, or a timer's
  copystack_waitgroup_done(&wg);
}

static void locker(void *arg) {
  (void)arg;
  copystack_mutex_lock(&lock);
  shared++;
  copystack_sleep_ns(100000); // holds the lock: the others wait for it
  copystack_mutex_unlock(&lock);
  copystack_waitgroup_done(&wg);
}

static void run_all(long rounds, int lockers) {
  copystack_waitgroup_add(&wg, 2 + lockers);
  copystack_go(pinger, (void *)rounds);
  copystack_go(ponger, (void *)rounds);
  for (int i = 0; i < lockers; i++)
    copystack_go(locker, NULL);
  copystack_waitgroup_wait(&wg);
  copystack_collect(); // pinger's grown stack is idle now: shrunk
  long go = 0;
  copystack_chan_send(ping, &go);
}

// A read that waits on the poller, woken by a write: a poll that made a
// task runnable, whatever the load. The writer writes only after the
// reader has said it is about to read, and 20 ms later; three rounds, so
// that a reader the OS delays between its flag and its read in one round
// (the socket then not empty) still waits in another. A socket pair, not a
// pipe: a pipe waits on the poller only where preadv2 honours RWF_NOWAIT
// (sched/io.cc; not under qemu-user, where it is a blocking call).
static int sock_fds[2];
static _Atomic int reader_ready;

static void sock_reader(void *arg) {
  (void)arg;
  char c;
  reader_ready = 1;
  REQUIRE(read(sock_fds[0], &c, 1) == 1);
  copystack_waitgroup_done(&wg);
}

static void sock_writer(void *arg) {
  (void)arg;
  while (!reader_ready)
    copystack_sleep_ns(1000000);
  copystack_sleep_ns(20000000);
  REQUIRE(write(sock_fds[1], "x", 1) == 1);
  copystack_waitgroup_done(&wg);
}

// A plain thread (COPYSTACK_THREADS=0) that spawns a task and ends.
static void *spawner(void *arg) {
  copystack_go(locker, arg);
  return NULL;
}

int main(int argc, char **argv) {
  cs_fixed_start(0);
  ping = copystack_chan_make(sizeof(long), 0);
  pong = copystack_chan_make(sizeof(long), 0);
  if (argc > 2 && strcmp(argv[1], "mid") == 0) {
    // Traced from the middle of main's run, to the middle of another's.
    REQUIRE(copystack_trace_start(argv[2]) == 0);
    run_all(20, 10);
    REQUIRE(copystack_trace_stop() == 0);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "quick") == 0) {
    run_all(5, 2);
    return 0;
  }
  if (argc > 2 && strcmp(argv[1], "threads") == 0) {
    // 100 threads one after the other, each recording a spawn: their
    // rings are reused, not 100 buffers.
    REQUIRE(copystack_trace_start(argv[2]) == 0);
    copystack_waitgroup_add(&wg, 100);
    for (int i = 0; i < 100; i++) {
      pthread_t t;
      REQUIRE(pthread_create(&t, NULL, spawner, NULL) == 0);
      REQUIRE(pthread_join(t, NULL) == 0);
    }
    copystack_waitgroup_wait(&wg);
    REQUIRE(copystack_trace_stop() == 0);
    return 0;
  }
  run_all(1000, 200);
  REQUIRE(shared == 200);
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sock_fds) == 0);
  for (int round = 0; round < 3; round++) {
    reader_ready = 0;
    copystack_waitgroup_add(&wg, 2);
    copystack_go(sock_reader, NULL);
    copystack_go(sock_writer, NULL);
    copystack_waitgroup_wait(&wg);
  }

  // The API: a trace is already being recorded (COPYSTACK_TRACE_OUT).
  REQUIRE(copystack_trace_start("/tmp/never-written.json") == EBUSY);
  if (argc > 1) {
    // A part of a run, in a file of its own, then the whole run's again.
    REQUIRE(copystack_trace_stop() == 0);
    REQUIRE(copystack_trace_stop() == EINVAL);
    REQUIRE(copystack_trace_start("") == EINVAL);
    REQUIRE(copystack_trace_start(argv[1]) == 0);
    run_all(10, 0);
    REQUIRE(copystack_trace_stop() == 0);
    // A file that cannot be written: the error, and tracing stops.
    REQUIRE(copystack_trace_start("/nonexistent-dir/trace.json") == 0);
    REQUIRE(copystack_trace_stop() == ENOENT);
    REQUIRE(copystack_trace_stop() == EINVAL);
  }

  // A forked child traces nothing and writes nothing; the parent goes on.
  fflush(stdout);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    run_all(5, 0);
    REQUIRE(copystack_trace_stop() == EINVAL);
    exit(0); // its exit writes no trace either
  }
  int status;
  REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
          WEXITSTATUS(status) == 0);
  printf("ok\n");
  return 0;
}
