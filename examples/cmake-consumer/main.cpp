// Sixteen tasks, each descending into libdeep until its 2 KiB stack has
// grown to about 512 KiB, report over a channel; main, itself a task,
// checks what they found and how often stacks grew. Exits 1 on a mismatch.
#include "deep.h"

#include <copystack/copystack.hpp>

#include <cstdio>

int main() {
  constexpr int tasks = 16;
  copystack::Chan<long> results(tasks);
  copystack::WaitGroup wg;
  for (int i = 1; i <= tasks; ++i)
    wg.go([i, results]() mutable { results.send(deep_sum(i * 100)); });
  wg.wait();

  long total = 0, expected = 0;
  for (int i = 1; i <= tasks; ++i) {
    total += results.recv().value();
    expected += deep_expected(i * 100);
  }
  copystack_stats s = copystack::stats();
  std::printf("copystack %s (find_package), main is a task: %d\n",
              COPYSTACK_VERSION_STRING, copystack_in_task());
  std::printf("%d tasks: total %ld, expected %ld\n", tasks, total, expected);
  std::printf("stack growths: %llu\n", (unsigned long long)s.growths);
  if (total != expected || s.growths == 0 || !copystack_in_task()) {
    std::printf("FAILED\n");
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
