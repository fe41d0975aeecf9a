// Calls no poller can wait for run on the runtime's I/O threads while the
// task parks (docs/tasks.md, "Blocking calls"; sched/io_pool.cc), and keep
// their results:
// - flock on a file another descriptor holds: the task parks, the one
//   worker goes on running a ticking task, and the monitor starts no
//   spare thread (the worker is not stuck: only an I/O thread waits); the
//   lock comes when the holder lets go.
// - Reads of a file whose pages were dropped from the cache (the read
//   that cannot be served without waiting goes to an I/O thread): read,
//   pread at an offset, readv scattered over three buffers; a large write
//   and pwrite; fsync and fdatasync. The bytes are checked.
// - getaddrinfo("localhost") from 50 tasks at once.
// Under qemu, where a system call takes a millisecond now and then, the
// monitor may well find a worker in one for two looks: the spare is not
// checked there.
// RUN: %cc %s -o %t
// RUN: env COPYSTACK_WORKERS=1 %run %t %t.data | FileCheck %s %if !qemu %{--check-prefixes=CHECK,NATIVE %}
// RUN: env COPYSTACK_WORKERS=2 %run %t %t.data | FileCheck %s %if !qemu %{--check-prefixes=CHECK,NATIVE %}
#define _GNU_SOURCE
#include "Inputs/check.h"
#include "Inputs/ticker.h"

#include <dirent.h>
#include <fcntl.h>
#include <netdb.h>
#include <string.h>
#include <sys/file.h>
#include <sys/uio.h>
#include <unistd.h>

// Threads other than the runtime's I/O threads ("copystack-io").
static int threads_but_io(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char p[64], name[32] = "";
    snprintf(p, sizeof p, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(p, "r");
    if (f) {
      if (!fgets(name, sizeof name, f))
        name[0] = 0;
      fclose(f);
    }
    n += strncmp(name, "copystack-io", 12) != 0;
  }
  closedir(d);
  return n;
}

static const char *path;
static copystack_waitgroup wg = COPYSTACK_WAITGROUP_INIT;

static int flock_result = -1;

static void locker(void *arg) {
  (void)arg;
  int fd = open(path, O_RDONLY);
  REQUIRE(fd >= 0);
  __atomic_store_n(&flock_result, flock(fd, LOCK_EX), // waits for main's
                   __ATOMIC_RELAXED);                   // lock
  flock(fd, LOCK_UN);
  close(fd);
  copystack_waitgroup_done(&wg);
}

static int resolved;

static void resolver(void *arg) {
  (void)arg;
  struct addrinfo hints, *res = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo("localhost", "80", &hints, &res) == 0 && res) {
    __atomic_fetch_add(&resolved, 1, __ATOMIC_RELAXED);
    freeaddrinfo(res);
  }
  copystack_waitgroup_done(&wg);
}

static unsigned char pattern(size_t i) { return (unsigned char)(i * 7 + 3); }

static void files(void *arg) {
  (void)arg;
  enum { kSize = 3 << 20 };
  unsigned char *data = malloc(kSize);
  REQUIRE(data);
  for (size_t i = 0; i < kSize; i++)
    data[i] = pattern(i);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, data, kSize) == kSize);
  REQUIRE(pwrite(fd, data, 4096, kSize) == 4096);
  int synced = fsync(fd) == 0 && fdatasync(fd) == 0;
  // Out of the page cache: the reads below must wait for the disk.
  REQUIRE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
  lseek(fd, 0, SEEK_SET);
  unsigned char *back = malloc(kSize);
  REQUIRE(back);
  int ok = read(fd, back, kSize) == kSize && memcmp(back, data, kSize) == 0;
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  unsigned char at[100];
  ok = ok && pread(fd, at, sizeof at, 1000000) == sizeof at &&
       memcmp(at, data + 1000000, sizeof at) == 0;
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  lseek(fd, 12345, SEEK_SET);
  unsigned char a[10], b[5000], c[20];
  struct iovec iov[3] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
  ok = ok && readv(fd, iov, 3) == sizeof a + sizeof b + sizeof c &&
       memcmp(a, data + 12345, sizeof a) == 0 &&
       memcmp(b, data + 12345 + sizeof a, sizeof b) == 0 &&
       memcmp(c, data + 12345 + sizeof a + sizeof b, sizeof c) == 0;
  // The end of the file: a short read, then 0.
  lseek(fd, kSize + 4000, SEEK_SET);
  ok = ok && read(fd, back, 1000) == 96 && read(fd, back, 1000) == 0;
  printf("files: %s, synced %d\n", ok ? "same bytes" : "DIFFERENT", synced);
  close(fd);
  free(data);
  free(back);
  copystack_waitgroup_done(&wg);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  path = argv[1];

  copystack_waitgroup_add(&wg, 1);
  copystack_go(files, 0);
  copystack_waitgroup_wait(&wg);

  // flock: main holds the lock through its own descriptor.
  int held = open(path, O_RDONLY);
  REQUIRE(held >= 0 && flock(held, LOCK_EX) == 0);
  copystack_waitgroup_add(&wg, 2);
  copystack_go(cs_ticker, &wg);
  copystack_sleep_ns(5000000); // the timer thread and the monitor run
  int before = threads_but_io();
  copystack_go(locker, 0);
  copystack_sleep_ns(5000000);
  long t0 = cs_ticks();
  copystack_sleep_ns(50000000);
  long t1 = cs_ticks();
  int during = threads_but_io();
  int waiting = __atomic_load_n(&flock_result, __ATOMIC_RELAXED) == -1;
  flock(held, LOCK_UN);
  close(held);
  cs_ticker_stop();
  copystack_waitgroup_wait(&wg);
  printf("flock: waited %d, got %d; others ran: %s; threads: %s\n", waiting,
         flock_result, t1 - t0 >= 10 ? "yes" : "NO",
         during == before ? "no spare" : "A SPARE");

  enum { kResolvers = 50 };
  copystack_waitgroup_add(&wg, kResolvers);
  for (int i = 0; i < kResolvers; i++)
    copystack_go(resolver, 0);
  copystack_waitgroup_wait(&wg);
  printf("getaddrinfo: %d resolved\n", resolved);
  unlink(path);
  return 0;
}
// CHECK: files: same bytes, synced 1
// CHECK: flock: waited 1, got 0; others ran: yes; threads:
// NATIVE-SAME: no spare
// CHECK: getaddrinfo: 50 resolved
