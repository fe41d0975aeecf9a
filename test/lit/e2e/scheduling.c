// The scheduler's promises: a task blocked in a long foreign call does not
// stall the tasks queued behind it (even with one worker); tasks migrate
// between workers and their stacks and pointers to locals come along;
// idle workers sleep instead of spinning.
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t blocking | FileCheck %s --check-prefix=BLOCK
// RUN: env COPYSTACK_WORKERS=4 %run %t migrate | FileCheck %s --check-prefix=MIGRATE
// RUN: env COPYSTACK_WORKERS=2 %run %t idle | FileCheck %s --check-prefix=IDLE
#include "Inputs/check.h"
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// Shared between tasks on two threads: an atomic, relaxed.
static int other_done;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void blocker(void *arg) {
  (void)arg;
  // Foreign calls that block this worker, 10 ms each, for up to 10 s: the
  // other task must finish meanwhile, on another thread. (A raw system
  // call: usleep would park the task, net_sleep_parks.c.)
  struct timespec ten_ms = {0, 10000000};
  for (int i = 0; i < 1000 && !__atomic_load_n(&other_done, __ATOMIC_RELAXED);
       i++)
    syscall(SYS_nanosleep, &ten_ms, NULL);
  printf("other task finished while blocked: %s\n",
         __atomic_load_n(&other_done, __ATOMIC_RELAXED) ? "yes" : "NO");
  copystack_waitgroup_done(&wg);
}

static void other(void *arg) {
  (void)arg;
  for (int i = 0; i < 100; i++) {
    cs_burn(i);
    copystack_yield();
  }
  __atomic_store_n(&other_done, 1, __ATOMIC_RELAXED);
  copystack_waitgroup_done(&wg);
}

static int threads_seen[64];
static volatile int bad_local, bad_tls, bad_errno;
// Each thread writes only its own identity into its own copy: a task that
// kept the address of a previous thread's copy (or a previous thread's
// identity) across a yield would write another thread's.
static __thread long tls_owner;

static void migrant(void *arg) {
  long id = (long)arg;
  int local = (int)id * 3;
  volatile int *p = &local;
  pthread_t seen[4];
  int nseen = 0;
  for (int i = 0; i < 300; i++) {
    pthread_t self = pthread_self();
    int known = 0;
    for (int k = 0; k < nseen; k++)
      known |= pthread_equal(seen[k], self);
    if (!known && nseen < 4)
      seen[nseen++] = self;
    cs_burn((int)(id + i) % 50);
    if (tls_owner && tls_owner != (long)pthread_self())
      bad_tls = 1;
    tls_owner = (long)pthread_self();
    errno = (int)id;
    // A yield goes back to this worker's queue: a task moves only when
    // another worker steals it, which an even load may never need (1 run in
    // about 15 saw no task move). A sleep's wake-up goes to a shared
    // queue, which every worker serves.
    if (i % 100 == 50)
      copystack_sleep_ns(1000000);
    else
      copystack_yield();
    if (*p != (int)id * 3)
      bad_local = 1;
    if (tls_owner && tls_owner != (long)pthread_self())
      bad_tls = 1;
    errno = 0;
    if (close(-1) == 0 || errno != EBADF) // set on this thread, read here
      bad_errno = 1;
  }
  threads_seen[id] = nseen;
  copystack_waitgroup_done(&wg);
}

static double cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void short_task(void *arg) {
  (void)arg;
  cs_burn(100);
  copystack_waitgroup_done(&wg);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  if (!strcmp(argv[1], "blocking")) {
    copystack_waitgroup_add(&wg, 2);
    copystack_go(blocker, 0);
    copystack_sleep_ns(20000000); // the blocker is in usleep now
    copystack_go(other, 0);
    copystack_waitgroup_wait(&wg);
  } else if (!strcmp(argv[1], "migrate")) {
    copystack_waitgroup_add(&wg, 64);
    for (long i = 0; i < 64; i++)
      copystack_go(migrant, (void *)i);
    copystack_waitgroup_wait(&wg);
    int moved = 0;
    for (int i = 0; i < 64; i++)
      moved += threads_seen[i] > 1;
    printf("tasks that ran on more than one worker: %s\n",
           moved > 0 ? "some" : "NONE");
    printf("locals intact: %s\n", bad_local ? "NO" : "yes");
    printf("thread-locals and errno follow the thread: %s\n",
           bad_tls || bad_errno ? "NO" : "yes");
  } else if (!strcmp(argv[1], "idle")) {
    copystack_waitgroup_add(&wg, 100);
    for (int i = 0; i < 100; i++)
      copystack_go(short_task, 0);
    copystack_waitgroup_wait(&wg);
    copystack_sleep_ns(50000000); // let the workers go idle
    double before = cpu_ms();
    copystack_sleep_ns(300000000);
    double used = cpu_ms() - before;
    // Spinning workers would burn about 600 ms of CPU in these 300 ms.
    printf("CPU while idle: %s\n", used < 30 ? "little" : "TOO MUCH");
    if (used >= 30)
      fprintf(stderr, "%.1f ms of CPU in 300 ms idle\n", used);
  }
  return 0;
}
// BLOCK: other task finished while blocked: yes
// MIGRATE: tasks that ran on more than one worker: some
// MIGRATE: locals intact: yes
// MIGRATE: thread-locals and errno follow the thread: yes
// IDLE: CPU while idle: little
