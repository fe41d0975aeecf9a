// thread_server.cpp: a thread-per-connection server, written the way code
// for threads is written, for scripts/bench-threads beside bench/go/net's
// "queue-serve" and the same file built with plain clang++ -pthread.
//
// An acceptor starts one thread per connection. A connection's thread reads
// HTTP-style keep-alive requests ("...\r\n\r\n") with blocking read(), hands
// each one to a pool of kPool worker threads through a work queue guarded
// by a std::mutex and a std::condition_variable, waits on its connection's
// own std::condition_variable for the answer, and writes a fixed response
// with blocking write(). The workers hash the request (the answer).
//
// The one line that differs between the two builds is start_thread():
// std::thread(...).detach() on plain pthreads, copystack::go(...) under
// copystack-c++ (a std::thread there is an OS thread whose stack is a
// task's; a task is what makes a connection cost 2 KiB and no thread). The
// locks, condition variables and system calls are the same code: under
// copystack they park the task.
//
//   thread_server [POOL]   prints "port=N" on a free loopback port, then
//                          serves until killed
#include <arpa/inet.h>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#ifdef __COPYSTACK__
#include <copystack/copystack.hpp>
#endif

namespace {

template <class F> void start_thread(F &&f) {
#ifdef __COPYSTACK__
  copystack::go(std::forward<F>(f));
#else
  std::thread(std::forward<F>(f)).detach();
#endif
}

[[noreturn]] void die(const char *what) {
  perror(what);
  exit(1);
}

const char kResponse[] = "HTTP/1.1 200 OK\r\n"
                         "Content-Type: text/plain\r\n"
                         "Content-Length: 13\r\n"
                         "\r\n"
                         "Hello, world!";

// A connection's answer slot: its thread waits here for a worker.
struct Conn {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  uint64_t answer = 0;
};

struct Job {
  const char *req;
  size_t len;
  Conn *conn;
};

std::mutex g_queue_lock;
std::condition_variable g_queue_cv;
std::deque<Job> g_queue;
uint64_t g_answers; // under g_queue_lock: keeps the hash from being dropped

uint64_t fnv1a(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ull;
  return h;
}

void worker() {
  for (;;) {
    std::unique_lock<std::mutex> l(g_queue_lock);
    g_queue_cv.wait(l, [] { return !g_queue.empty(); });
    Job j = g_queue.front();
    g_queue.pop_front();
    g_answers += 1;
    l.unlock();
    uint64_t h = fnv1a(j.req, j.len);
    {
      std::lock_guard<std::mutex> g(j.conn->m);
      j.conn->answer = h;
      j.conn->done = true;
    }
    j.conn->cv.notify_one();
  }
}

// The answer to one request, from the pool.
uint64_t ask_pool(Conn &c, const char *req, size_t len) {
  {
    std::lock_guard<std::mutex> g(g_queue_lock);
    g_queue.push_back(Job{req, len, &c});
  }
  g_queue_cv.notify_one();
  std::unique_lock<std::mutex> l(c.m);
  c.cv.wait(l, [&] { return c.done; });
  c.done = false;
  return c.answer;
}

bool write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w <= 0)
      return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

void serve_conn(int fd) {
  Conn conn;
  char buf[4096];
  size_t have = 0;
  for (;;) {
    ssize_t n = read(fd, buf + have, sizeof buf - have);
    if (n <= 0)
      break;
    have += static_cast<size_t>(n);
    size_t start = 0;
    for (;;) {
      void *end = memmem(buf + start, have - start, "\r\n\r\n", 4);
      if (!end)
        break;
      size_t len = static_cast<size_t>(static_cast<char *>(end) - buf) + 4 -
                   start;
      ask_pool(conn, buf + start, len);
      if (!write_all(fd, kResponse, sizeof kResponse - 1)) {
        close(fd);
        return;
      }
      start += len;
    }
    memmove(buf, buf + start, have - start);
    have -= start;
    if (have == sizeof buf)
      break;
  }
  close(fd);
}

} // namespace

int main(int argc, char **argv) {
  int pool = argc > 1 ? atoi(argv[1]) : 4;
  rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (l < 0)
    die("socket");
  int one = 1;
  setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t alen = sizeof a;
  if (bind(l, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0 ||
      listen(l, 65535) != 0 ||
      getsockname(l, reinterpret_cast<sockaddr *>(&a), &alen) != 0)
    die("listen");
  printf("port=%d\n", ntohs(a.sin_port));
  fflush(stdout);
  for (int i = 0; i < pool; ++i)
    start_thread(worker);
  for (;;) {
    int fd = accept4(l, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0)
      die("accept");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    start_thread([fd] { serve_conn(fd); });
  }
}
