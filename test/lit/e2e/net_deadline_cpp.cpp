// The C++ deadline API: copystack::set_read_deadline ends a pending recv
// with ETIMEDOUT, and copystack::wait_fd waits for readiness or its own
// deadline, on std::chrono::steady_clock.
// RUN: %cxx %s -o %t && %run %t | FileCheck %s
#include <copystack/copystack.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

int main() {
  using namespace std::chrono;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
    return 1;
  auto start = steady_clock::now();
  copystack::set_read_deadline(sv[0], start + milliseconds(30));
  char c;
  errno = 0;
  ssize_t r = recv(sv[0], &c, 1, 0);
  std::printf("recv: %zd %s, at the deadline: %s\n", r,
              errno == ETIMEDOUT ? "ETIMEDOUT" : "?",
              steady_clock::now() - start >= milliseconds(30) ? "yes" : "NO");
  copystack::set_read_deadline(sv[0], copystack::deadline());
  copystack::go([fd = sv[1]] {
    copystack::sleep_for(milliseconds(10));
    if (write(fd, "+", 1) != 1)
      std::abort();
  });
  std::printf("wait_fd: %s\n",
              copystack::wait_fd(sv[0], POLLIN) == POLLIN ? "POLLIN" : "?");
  std::printf("wait_fd writable by then: %d\n",
              copystack::wait_fd(sv[0], POLLOUT,
                                 steady_clock::now() + seconds(1)) == POLLOUT);
  return 0;
}
// CHECK: recv: -1 ETIMEDOUT, at the deadline: yes
// CHECK: wait_fd: POLLIN
// CHECK: wait_fd writable by then: 1
