/*
 * net_bench.c: sockets from tasks, written as plain blocking C (read, write,
 * accept, connect), for scripts/bench-net beside bench/go/net. Built with
 * copystack-cc: main is a task, and every blocking call parks its task on
 * the network poller.
 *
 *   net_bench echo N ROUNDS   N client tasks connect to N server tasks
 *                             over loopback and echo ROUNDS 64-byte
 *                             messages each, all at once
 *   net_bench idle N          N connections echo one message, then all
 *                             2N tasks wait in read: resident memory per
 *                             connection (both ends, both tasks), and
 *                             again after two collections (which compact
 *                             the parked tasks)
 *   net_bench serve           an HTTP-style keep-alive server on a free
 *                             loopback port (printed first), answering
 *                             each "...\r\n\r\n" request with a fixed
 *                             response, until killed; bench/go/net's
 *                             "load" drives it
 *
 * The last line is key=value pairs. TCP_NODELAY is set on every connection,
 * as Go's net package does. Threads: the peak of /proc/self/status,
 * sampled every millisecond by a thread of its own (not counted), which
 * sees the spare threads the worker hand-off starts and ends.
 */
#define _GNU_SOURCE
#include <copystack/copystack.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { kMsg = 64 };

static int g_port;

static void die(const char *what) {
  perror(what);
  exit(1);
}

/* Kilobytes from a /proc/self/status line ("VmRSS:", "VmHWM:"), or the
 * thread count for "Threads:". */
static long status_field(const char *name) {
  FILE *f = fopen("/proc/self/status", "r");
  if (!f)
    return 0;
  char line[256];
  long v = 0;
  size_t len = strlen(name);
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, name, len)) {
      v = atol(line + len);
      break;
    }
  fclose(f);
  return v;
}

static volatile long g_peak_threads;

/* The sampler runs on its own thread's stack, not as a task (nosplit), and
 * sleeps with the C library's nanosleep. */
__attribute__((annotate("copystack_nosplit"))) static void *
sample_threads(void *arg) {
  (void)arg;
  struct timespec ms = {0, 1000000};
  for (;;) {
    long n = status_field("Threads:") - 1; /* not this one */
    if (n > g_peak_threads)
      g_peak_threads = n;
    nanosleep(&ms, NULL);
  }
  return NULL;
}

static void no_delay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int listen_loopback(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    die("socket");
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0)
    die("bind");
  if (listen(fd, 4096) != 0) /* Go's: net.core.somaxconn */
    die("listen");
  socklen_t len = sizeof a;
  getsockname(fd, (struct sockaddr *)&a, &len);
  g_port = ntohs(a.sin_port);
  return fd;
}

static int dial(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    die("socket");
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(g_port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
    die("connect");
  no_delay(fd);
  return fd;
}

static void read_full(int fd, char *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r <= 0)
      die("read");
    got += (size_t)r;
  }
}

/* ---- echo and idle --------------------------------------------------------- */

static void echo_server(void *arg) {
  int fd = (int)(long)arg;
  char buf[kMsg];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    if (write(fd, buf, (size_t)n) != n)
      break;
  close(fd);
}

static void acceptor(void *arg) {
  int lfd = (int)(long)arg;
  for (;;) {
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
      die("accept");
    no_delay(fd);
    copystack_go(echo_server, (void *)(long)fd);
  }
}

static int g_rounds;
static copystack_waitgroup g_done = COPYSTACK_WAITGROUP_INIT;
static copystack_waitgroup g_first = COPYSTACK_WAITGROUP_INIT;

static void echo_client(void *arg) {
  int fd = dial();
  char out[kMsg], in[kMsg];
  memset(out, (int)(long)arg, sizeof out);
  for (int r = 0; r < g_rounds; r++) {
    if (write(fd, out, sizeof out) != sizeof out)
      die("write");
    read_full(fd, in, sizeof in);
  }
  close(fd);
  copystack_waitgroup_done(&g_done);
}

/* One round trip, then a read that waits until the program ends, as its
 * server task's does. */
static void idle_client(void *arg) {
  int fd = dial();
  char out[kMsg], in[kMsg];
  memset(out, (int)(long)arg, sizeof out);
  if (write(fd, out, sizeof out) != sizeof out)
    die("write");
  read_full(fd, in, sizeof in);
  copystack_waitgroup_done(&g_first);
  if (read(fd, in, sizeof in) >= 0)
    die("idle read ended");
}

static double ms_since(uint64_t t0) { return (copystack_now_ns() - t0) / 1e6; }

static int echo(int n, int rounds) {
  g_rounds = rounds;
  int lfd = listen_loopback();
  long rss0 = status_field("VmRSS:");
  copystack_go(acceptor, (void *)(long)lfd);
  uint64_t t0 = copystack_now_ns();
  copystack_waitgroup_add(&g_done, n);
  for (long i = 0; i < n; i++)
    copystack_go(echo_client, (void *)i);
  copystack_waitgroup_wait(&g_done);
  double wall = ms_since(t0);
  long hwm = status_field("VmHWM:");
  printf("conns=%d rounds=%d wall_ms=%.1f threads=%ld rss_per_conn=%.0f\n", n,
         rounds, wall, g_peak_threads, (hwm - rss0) * 1024.0 / n);
  return 0;
}

static int idle(int n) {
  int lfd = listen_loopback();
  long rss0 = status_field("VmRSS:");
  copystack_go(acceptor, (void *)(long)lfd);
  copystack_waitgroup_add(&g_first, n);
  for (long i = 0; i < n; i++)
    copystack_go(idle_client, (void *)i);
  copystack_waitgroup_wait(&g_first);
  copystack_sleep_ns(100000000); /* every task waits in read now */
  long rss = status_field("VmRSS:");
  /* Two collections: the second compacts the tasks parked across the
   * first (COPYSTACK_COMPACT=0: it does not). */
  copystack_collect();
  copystack_collect();
  long rss_idle = status_field("VmRSS:");
  printf("conns=%d tasks=%llu rss_per_conn=%.0f rss_idle_per_conn=%.0f "
         "threads=%ld\n",
         n, (unsigned long long)copystack_num_tasks(),
         (rss - rss0) * 1024.0 / n, (rss_idle - rss0) * 1024.0 / n,
         g_peak_threads);
  return 0; /* exit(): the tasks still wait */
}

/* ---- serve ---------------------------------------------------------------- */

static const char kResponse[] = "HTTP/1.1 200 OK\r\n"
                                "Content-Type: text/plain\r\n"
                                "Content-Length: 13\r\n"
                                "\r\n"
                                "Hello, world!";

static void http_conn(void *arg) {
  int fd = (int)(long)arg;
  char buf[4096];
  size_t have = 0;
  for (;;) {
    ssize_t n = read(fd, buf + have, sizeof buf - have);
    if (n <= 0)
      break;
    have += (size_t)n;
    size_t start = 0;
    char *end;
    while ((end = memmem(buf + start, have - start, "\r\n\r\n", 4))) {
      if (write(fd, kResponse, sizeof kResponse - 1) !=
          (ssize_t)(sizeof kResponse - 1))
        goto out;
      start = (size_t)(end + 4 - buf);
    }
    memmove(buf, buf + start, have - start);
    have -= start;
    if (have == sizeof buf)
      break; /* not a request this server knows */
  }
out:
  close(fd);
}

static int serve(void) {
  int lfd = listen_loopback();
  printf("port=%d\n", g_port);
  fflush(stdout);
  for (;;) {
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
      die("accept");
    no_delay(fd);
    copystack_go(http_conn, (void *)(long)fd);
  }
}

int main(int argc, char **argv) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) { /* as Go 1.19 does */
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  /* The thread sampler only where threads are reported: in serve it would
   * take CPU time from the server, which the load test pins to one CPU. */
  pthread_t sampler;
  if (argc == 4 && !strcmp(argv[1], "echo")) {
    pthread_create(&sampler, NULL, sample_threads, NULL);
    return echo(atoi(argv[2]), atoi(argv[3]));
  }
  if (argc == 3 && !strcmp(argv[1], "idle")) {
    pthread_create(&sampler, NULL, sample_threads, NULL);
    return idle(atoi(argv[2]));
  }
  if (argc == 2 && !strcmp(argv[1], "serve"))
    return serve();
  fprintf(stderr, "usage: net_bench echo N ROUNDS | idle N | serve\n");
  return 2;
}
