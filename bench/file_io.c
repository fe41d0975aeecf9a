/*
 * file_io.c: what a file call costs a task, for scripts/bench-threads. The
 * same file is built with copystack-cc (main is a task: the calls go
 * through the runtime, which makes what cannot block in place and the rest
 * on its I/O threads) and with plain clang (the floor).
 *
 *   file_io DIR   on a file in DIR (removed at the end): pwrite of 4 KiB
 *                 and 128 KiB, pread of 4 KiB from the page cache, and
 *                 fdatasync after a 4 KiB pwrite; prints the median
 *                 microseconds per call over 7 bursts, as key=value pairs
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

enum { kBursts = 7 };

static int g_fd;
static char *g_buf;

static void check(long got, long want, const char *what) {
  if (got != want) {
    fprintf(stderr, "file_io: %s returned %ld, not %ld\n", what, got, want);
    exit(1);
  }
}

/* Median microseconds per call of `what` over kBursts bursts of n calls. */
static double measure(int what, size_t size, int n) {
  double per[kBursts];
  for (int b = 0; b < kBursts; ++b) {
    double t0 = now_us();
    for (int i = 0; i < n; ++i) {
      off_t at = (off_t)(i % 64) * (off_t)size;
      switch (what) {
      case 0:
        check(pwrite(g_fd, g_buf, size, at), (long)size, "pwrite");
        break;
      case 1:
        check(pread(g_fd, g_buf, size, at), (long)size, "pread");
        break;
      default:
        check(pwrite(g_fd, g_buf, size, at), (long)size, "pwrite");
        check(fdatasync(g_fd), 0, "fdatasync");
        break;
      }
    }
    per[b] = (now_us() - t0) / n;
  }
  qsort(per, kBursts, sizeof per[0], cmp);
  return per[kBursts / 2];
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: file_io DIR\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/file_io.%d", argv[1], (int)getpid());
  g_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (g_fd < 0) {
    perror(path);
    return 1;
  }
  g_buf = malloc(128 << 10);
  memset(g_buf, 'x', 128 << 10);
  double w4 = measure(0, 4096, 2000);
  double w128 = measure(0, 128 << 10, 200);
  double r4 = measure(1, 4096, 2000); /* written above: in the cache */
  double sync4 = measure(2, 4096, 50);
  close(g_fd);
  unlink(path);
  printf("pwrite_4k_us=%.2f pwrite_128k_us=%.2f pread_4k_us=%.2f "
         "fdatasync_us=%.1f\n",
         w4, w128, r4, sync4);
  return 0;
}
