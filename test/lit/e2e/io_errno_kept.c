// A file call that succeeds leaves errno as the caller left it, however
// the runtime made it: a write the file system cannot vouch for (made in
// place after a refused RWF_NOWAIT probe), a read from the page cache, a
// read that missed it (made on an I/O thread while the task parked, after
// a probe that said EAGAIN), fsync. And pread and pwrite at a negative
// offset fail with EINVAL, as the C library's do, where the probe's
// vectored call would take -1 for the file position.
// RUN: %cc %s -o %t
// RUN: %run %t %t.data | FileCheck %s
#define _GNU_SOURCE
#include "Inputs/check.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kSize = 256 << 10 };

static const char *path;

static void check_kept(const char *what, long got, long want) {
  printf("%s: %s, errno %s\n", what, got == want ? "ok" : "WRONG",
         errno == ENOTTY ? "kept" : strerror(errno));
}

static void body(void *arg) {
  (void)arg;
  char *buf = malloc(kSize);
  REQUIRE(buf);
  memset(buf, 'c', kSize);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  errno = ENOTTY;
  check_kept("write 4 KiB", write(fd, buf, 4096), 4096);
  errno = ENOTTY;
  check_kept("pwrite 256 KiB", pwrite(fd, buf, kSize, 0), kSize);
  errno = ENOTTY;
  check_kept("pwrite again", pwrite(fd, buf, 4096, 4096), 4096);
  errno = ENOTTY;
  check_kept("fsync", fsync(fd), 0);
  errno = ENOTTY;
  check_kept("pread cached", pread(fd, buf, kSize, 0), kSize);
  // Out of the page cache (the pages are clean after fsync): the read
  // waits, on an I/O thread where RWF_NOWAIT says so.
  REQUIRE(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0);
  errno = ENOTTY;
  check_kept("pread uncached", pread(fd, buf, kSize, 0), kSize);
  errno = 0;
  long r = pread(fd, buf, 16, -1);
  printf("pread at -1: %ld %s\n", r, errno == EINVAL ? "EINVAL" : "?");
  errno = 0;
  r = pwrite(fd, buf, 16, -1);
  printf("pwrite at -1: %ld %s\n", r, errno == EINVAL ? "EINVAL" : "?");
  close(fd);
  unlink(path);
  free(buf);
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  path = argv[1];
  body(NULL);
  return 0;
}
// CHECK: write 4 KiB: ok, errno kept
// CHECK-NEXT: pwrite 256 KiB: ok, errno kept
// CHECK-NEXT: pwrite again: ok, errno kept
// CHECK-NEXT: fsync: ok, errno kept
// CHECK-NEXT: pread cached: ok, errno kept
// CHECK-NEXT: pread uncached: ok, errno kept
// CHECK-NEXT: pread at -1: -1 EINVAL
// CHECK-NEXT: pwrite at -1: -1 EINVAL
