// Built without the plugin: a library's producer that pushes to a queue
// under a std::mutex and notifies a std::condition_variable (its lock,
// unlock and notify reach the runtime's interposers).
#include <condition_variable>
#include <mutex>
#include <queue>

void plain_push(std::mutex &mu, std::condition_variable &cv,
                std::queue<int> &q, int value) {
  {
    std::lock_guard<std::mutex> g(mu);
    q.push(value);
  }
  cv.notify_one();
}
