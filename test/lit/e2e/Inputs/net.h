/* Helpers of the network poller's end-to-end tests (net_*.c). */
#ifndef COPYSTACK_TEST_NET_H
#define COPYSTACK_TEST_NET_H

#include "check.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* OS threads of the process now. */
static inline int cs_threads(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  REQUIRE(d);
  struct dirent *e;
  while ((e = readdir(d)))
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

/* A listening TCP socket on 127.0.0.1 (any port); *port gets the port. */
static inline int cs_listen(int *port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, (struct sockaddr *)&a, sizeof a) == 0);
  REQUIRE(listen(fd, 1024) == 0);
  socklen_t len = sizeof a;
  REQUIRE(getsockname(fd, (struct sockaddr *)&a, &len) == 0);
  *port = ntohs(a.sin_port);
  return fd;
}

/* A TCP connection to 127.0.0.1:port; -1 with errno when it fails. */
static inline int cs_connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

/* Reads exactly n bytes (blocking reads); 0 on success. */
static inline int cs_read_full(int fd, void *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, (char *)buf + got, n - got);
    if (r <= 0)
      return -1;
    got += (size_t)r;
  }
  return 0;
}

static inline uint64_t cs_ms_since(uint64_t start_ns) {
  return (copystack_now_ns() - start_ns) / 1000000;
}

#endif
