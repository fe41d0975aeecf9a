// Tasks keep their order when a worker's queue overflows. 1,000 client
// tasks each wait in read() on a socket of their own; a thread feeds them
// (a byte to each one that is waiting, in turn, as a load generator's
// connections do); each then asks 4 server tasks through a shared channel
// and waits for the answer on a channel of its own, as a thread-per-
// connection server's connections wait on a work queue. One worker: the
// poller readies more tasks at once than the worker's queue holds (256),
// and the overflow goes to the global queue. Those tasks used to wait
// until the worker's own queue ran dry, which this load never lets
// happen: every client had a request wait tens of milliseconds, and the
// fewest rounds one got was 60-70% of the mean, and some request waited
// while 9,000-12,000 others were served (a server's p99 latency 4x Go's).
// Each client must now get at least 72% of the mean (77-88% in every
// variant, also with two copies running at once; under Go, 90%); the
// worst wait, printed on stderr, is 3,700-7,400 requests.
// RUN: %cc -pthread %s -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t | FileCheck %s
#include "Inputs/check.h"
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

enum { kClients = 1000, kServers = 4, kRounds = 100 * kClients };

static copystack_chan *requests;
static copystack_chan *answers[kClients];
// Socket pairs: a pipe waits on the poller only where preadv2 honours
// RWF_NOWAIT (sched/io.cc; not under qemu-user).
static int socks[kClients][2];
static int waiting[kClients]; // the client waits in read() for its byte
static long served[kClients];
static long total;
static long sent_at[kClients]; // total when the feeder wrote its byte
static long worst;             // the most requests served while one waited
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static void server(void *arg) {
  (void)arg;
  int id;
  while (copystack_chan_recv(requests, &id)) {
    // The work of a request: enough that the worker, not the feeder, is
    // the bottleneck, so that the poller readies clients in batches.
    uint64_t until = copystack_now_ns() + 5000;
    while (copystack_now_ns() < until)
      ;
    int one = 1;
    copystack_chan_send(answers[id], &one);
  }
}

static void client(void *arg) {
  int id = (int)(intptr_t)arg;
  for (;;) {
    char c;
    __atomic_store_n(&waiting[id], 1, __ATOMIC_RELEASE);
    REQUIRE(read(socks[id][0], &c, 1) == 1);
    if (c == 'q')
      break;
    int answer;
    copystack_chan_send(requests, &id);
    copystack_chan_recv(answers[id], &answer);
    __atomic_store_n(&served[id], served[id] + 1, __ATOMIC_RELAXED);
    long passed = __atomic_fetch_add(&total, 1, __ATOMIC_RELAXED) -
                  __atomic_load_n(&sent_at[id], __ATOMIC_RELAXED);
    long seen = __atomic_load_n(&worst, __ATOMIC_RELAXED);
    while (passed > seen && !__atomic_compare_exchange_n(
                                &worst, &seen, passed, 0, __ATOMIC_RELAXED,
                                __ATOMIC_RELAXED))
      ;

  }
  copystack_waitgroup_done(&wg);
}

// The load: a byte to every client that waits, round after round, until
// kRounds requests have been served.
static void *feeder(void *arg) {
  (void)arg;
  while (__atomic_load_n(&total, __ATOMIC_RELAXED) < kRounds)
    for (int i = 0; i < kClients; ++i)
      if (__atomic_exchange_n(&waiting[i], 0, __ATOMIC_ACQ_REL)) {
        __atomic_store_n(&sent_at[i], __atomic_load_n(&total, __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
        REQUIRE(write(socks[i][1], "r", 1) == 1);
      }
  return NULL;
}

int main(void) {
  requests = copystack_chan_make(sizeof(int), kClients);
  for (int i = 0; i < kServers; ++i)
    copystack_go(server, NULL);
  copystack_waitgroup_add(&wg, kClients);
  for (int i = 0; i < kClients; ++i) {
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, socks[i]) == 0);
    answers[i] = copystack_chan_make(sizeof(int), 1);
    copystack_go(client, (void *)(intptr_t)i);
  }
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, feeder, NULL) == 0);
  REQUIRE(pthread_join(t, NULL) == 0);
  for (int i = 0; i < kClients; ++i)
    REQUIRE(write(socks[i][1], "q", 1) == 1);
  copystack_waitgroup_wait(&wg);
  long sum = 0, least = served[0];
  for (int i = 0; i < kClients; ++i) {
    sum += served[i];
    if (served[i] < least)
      least = served[i];
  }
  long mean = sum / kClients;
  printf("rounds >= %d: %s; fewest for one client: %s\n", kRounds,
         sum >= kRounds ? "yes" : "no",
         least * 100 >= mean * 72 ? "at least 72% of the mean" : "starved");
  fprintf(stderr, "fewest %ld, mean %ld, worst wait %ld requests\n", least,
          mean, worst);
  return 0;
}
// CHECK: rounds >= 100000: yes; fewest for one client: at least 72% of the mean
