// Tasks are cheap: start 100,000 that block on a channel, count them,
// release them, and count again (the Go program of "Goroutines are cheap",
// in C++). The count is read only when what it counts has settled, so the
// three numbers are the same on every run. Then what the parked tasks
// cost, from the runtime's own accounting: on their 2 KiB stacks, and once
// two collections have compacted them to their live frames (Go has no
// such thing: docs/stacks.md, "Compacting parked tasks").
//
//   copystack-c++ -O2 demo/tasks.cpp -o tasks && ./tasks [N]
//
// N: how many tasks (100,000 unless given).
#include <copystack/copystack.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  const int workers = argc > 1 ? std::atoi(argv[1]) : 100'000;
  if (workers <= 0) {
    std::fprintf(stderr, "usage: %s [number of tasks]\n", argv[0]);
    return 2;
  }
  std::printf("tasks when main starts:    %6llu\n",
              (unsigned long long)copystack::num_tasks());

  copystack::Chan<char> release(0);
  copystack::WaitGroup started, finished;
  copystack_stats before = copystack::stats();
  started.add(workers);
  for (int i = 0; i < workers; ++i)
    finished.go([&started, release]() mutable {
      started.done(); // this task exists and is about to block
      release.recv();
    });
  started.wait(); // every worker has got as far as done()
  std::printf("tasks while workers block: %6llu\n",
              (unsigned long long)copystack::num_tasks());
  copystack_stats parked = copystack::stats();
  // The last workers to signal may still be on their way to the receive.
  copystack::sleep_for(std::chrono::milliseconds(50));
  copystack::collect(); // sees them parked
  copystack::collect(); // still parked: each keeps only its live frames
  copystack_stats idle = copystack::stats();

  release.close(); // one close wakes every receiver
  finished.wait();
  // wait() returns once every function has returned, not once every task
  // has gone, so wait for the count itself.
  while (copystack::num_tasks() > 1)
    copystack::yield();
  std::printf("tasks after release:       %6llu\n",
              (unsigned long long)copystack::num_tasks());

  auto per = [&](uint64_t a, uint64_t b) { return double(a - b) / workers; };
  std::printf("\nwhile parked, per task: %.0f B of stack, %.0f B of task "
              "structure, %.0f B obtained from the OS\n",
              per(parked.stack_inuse, before.stack_inuse),
              per(parked.task_inuse, before.task_inuse),
              per(parked.sys, before.sys));
  std::printf("after two collections: %llu tasks compacted, %.0f B of "
              "frames each; per task: %.0f B of stack, %.0f B obtained from "
              "the OS\n",
              (unsigned long long)idle.tasks_compacted,
              idle.tasks_compacted
                  ? double(idle.compacted_bytes) / idle.tasks_compacted
                  : 0.0,
              per(idle.stack_inuse, before.stack_inuse),
              per(idle.sys, before.sys));
  return 0;
}
