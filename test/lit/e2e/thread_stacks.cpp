// Every thread a program creates gets a copyable stack, as main does:
// pthread_create's start routine, std::thread's and std::async's callables
// run as tasks bound to their threads. Recursion far deeper than the
// thread's own stack (64 KiB here) grows the task's stack; thread-locals,
// blocking on a channel, pthread_exit (with its cleanup handlers and
// destructors) and cancellation in a blocking read keep working.
// COPYSTACK_THREADS=0 keeps start routines on the threads' own stacks.
// RUN: %cxx %s -o %t -lpthread
// RUN: %run %t | FileCheck %s
// RUN: env COPYSTACK_THREADS=0 %run %t | FileCheck %s --check-prefix=OFF
#include "Inputs/check.h"
#include <cstring>
#include <future>
#include <pthread.h>
#include <thread>
#include <unistd.h>

namespace {

__attribute__((noinline)) long deep(long n) {
  char pad[160];
  std::memset(pad, static_cast<int>(n), sizeof pad);
  CS_KEEP(pad);
  if (n == 0)
    return 0;
  return deep(n - 1) + (pad[7] & 1);
}

bool in_task() {
  copystack_stack_info i;
  return copystack_current_stack(&i) == 0;
}

pthread_t small_thread(void *(*fn)(void *), void *arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t t;
  REQUIRE(pthread_create(&t, &attr, fn, arg) == 0);
  pthread_attr_destroy(&attr);
  return t;
}

void *c_thread(void *arg) {
  bool task = in_task();
  // 3,000 frames of ~200 bytes: far beyond the 64 KiB the thread has.
  long r = task ? deep(3000) : 1500;
  std::printf("pthread: in a task %s, result %ld\n", task ? "yes" : "no", r);
  return reinterpret_cast<void *>(r + 1);
}

thread_local int tls_value = 5;

copystack_chan *chan;
void *receiver(void *) {
  long v = 0;
  if (in_task()) // the thread waits while its task is parked
    copystack_chan_recv(chan, &v);
  std::printf("received on a thread: %ld\n", v);
  return nullptr;
}

struct Announce {
  const char *what;
  ~Announce() { std::printf("destructor: %s\n", what); }
};
void handler(void *arg) {
  std::printf("cleanup handler: %s\n", static_cast<const char *>(arg));
}

void *exits_deep(void *) {
  Announce a{"in the exiting thread"};
  pthread_cleanup_push(handler, const_cast<char *>("registered in the thread"));
  deep(in_task() ? 1000 : 10);
  pthread_exit(reinterpret_cast<void *>(42));
  pthread_cleanup_pop(0);
  return nullptr;
}

int fds[2];
void *cancelled(void *) {
  Announce a{"in the cancelled thread"};
  char buf[8];
  deep(in_task() ? 1000 : 10);
  if (read(fds[0], buf, 1) < 0) // a cancellation point: blocks until then
    std::printf("read failed\n");
  return nullptr;
}

} // namespace

int main() {
  void *res = nullptr;
  pthread_join(small_thread(c_thread, nullptr), &res);
  std::printf("joined with %ld\n", reinterpret_cast<long>(res));

  std::thread st([] {
    ++tls_value;
    std::printf("std::thread: in a task %s, tls %d\n",
                in_task() ? "yes" : "no", tls_value);
  });
  st.join();
  auto f = std::async(std::launch::async, [] { return in_task(); });
  std::printf("std::async: in a task %s\n", f.get() ? "yes" : "no");

  chan = copystack_chan_make(sizeof(long), 1);
  pthread_t r = small_thread(receiver, nullptr);
  long v = 7;
  copystack_chan_send(chan, &v);
  pthread_join(r, nullptr);

  pthread_join(small_thread(exits_deep, nullptr), &res);
  std::printf("pthread_exit with %ld\n", reinterpret_cast<long>(res));

  REQUIRE(pipe(fds) == 0);
  pthread_t c = small_thread(cancelled, nullptr);
  usleep(50000);
  pthread_cancel(c);
  pthread_join(c, &res);
  std::printf("cancelled: %s\n", res == PTHREAD_CANCELED ? "yes" : "no");
  return 0;
}
// CHECK: pthread: in a task yes, result 1500
// CHECK-NEXT: joined with 1501
// CHECK-NEXT: std::thread: in a task yes, tls 6
// CHECK-NEXT: std::async: in a task yes
// CHECK-NEXT: received on a thread: 7
// CHECK-NEXT: cleanup handler: registered in the thread
// CHECK-NEXT: destructor: in the exiting thread
// CHECK-NEXT: pthread_exit with 42
// CHECK-NEXT: destructor: in the cancelled thread
// CHECK-NEXT: cancelled: yes
// OFF: pthread: in a task no
// OFF: std::thread: in a task no
// OFF: std::async: in a task no
// OFF: pthread_exit with 42
// OFF: cancelled: yes
