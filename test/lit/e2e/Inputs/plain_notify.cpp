// Built without the plugin: a library's code that notifies a waiting word
// (its futex wake goes through the C library's syscall(), which the
// runtime interposes).
#include <atomic>

void plain_store_and_notify(std::atomic<int> *word, int value) {
  word->store(value);
  word->notify_all();
}
