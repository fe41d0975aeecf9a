/* An instrumented library with a bounded queue of its own, under a pthread
 * mutex and two condition variables, and a total under a pthread rwlock:
 * its waits park the calling task through the runtime of the program that
 * loads it (one runtime serves every image). Built with copystack-cc
 * -shared. */
#include <pthread.h>

enum { kSlots = 4 };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int slots[kSlots];
static int head, len;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static long total;

void lib_put(int v) {
  pthread_mutex_lock(&mu);
  while (len == kSlots)
    pthread_cond_wait(&not_full, &mu);
  slots[(head + len) % kSlots] = v;
  ++len;
  pthread_cond_signal(&not_empty);
  pthread_mutex_unlock(&mu);
}

int lib_get(void) {
  pthread_mutex_lock(&mu);
  while (len == 0)
    pthread_cond_wait(&not_empty, &mu);
  int v = slots[head];
  head = (head + 1) % kSlots;
  --len;
  pthread_cond_signal(&not_full);
  pthread_mutex_unlock(&mu);
  pthread_rwlock_wrlock(&rw);
  total += v;
  pthread_rwlock_unlock(&rw);
  return v;
}

long lib_total(void) {
  pthread_rwlock_rdlock(&rw);
  long t = total;
  pthread_rwlock_unlock(&rw);
  return t;
}
