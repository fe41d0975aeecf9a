/* How many threads the process has now (/proc/self/task): C and C++. */
#ifndef COPYSTACK_TEST_THREAD_COUNT_H
#define COPYSTACK_TEST_THREAD_COUNT_H

#include <dirent.h>

static inline int cs_thread_count(void) {
  int n = 0;
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  while ((e = readdir(d)))
    n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

#endif
