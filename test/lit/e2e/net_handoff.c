// Calls the poller does not drive behave as before: a regular file is read
// in place (its worker blocks, as in any foreign call), and a thread's own
// task, which has its thread to itself, blocks the thread in read as a
// plain thread would, getting data another thread writes.
// RUN: %cc -pthread %s -o %t && %run %t %t | FileCheck %s
#include "Inputs/net.h"
#include <pthread.h>

static int sv[2];

static void *thread_reader(void *arg) {
  (void)arg;
  char c = 0;
  ssize_t r = read(sv[0], &c, 1);
  printf("thread's read: %zd '%c'\n", r, c);
  return NULL;
}

int main(int argc, char **argv) {
  REQUIRE(argc == 2);
  int fd = open(argv[1], O_RDONLY);
  REQUIRE(fd >= 0);
  char elf[4];
  printf("file read: %zd %.3s\n", read(fd, elf, 4), elf + 1);
  close(fd);
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
  pthread_t t;
  REQUIRE(pthread_create(&t, NULL, thread_reader, NULL) == 0);
  copystack_sleep_ns(20000000);
  REQUIRE(write(sv[1], "t", 1) == 1);
  pthread_join(t, NULL);
  return 0;
}
// CHECK: file read: 4 ELF
// CHECK: thread's read: 1 't'
