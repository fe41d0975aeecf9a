/* How many threads the process has now (/proc/self/task): C and C++. */
#ifndef COPYSTACK_TEST_THREAD_COUNT_H
#define COPYSTACK_TEST_THREAD_COUNT_H

#include <dirent.h>

/* Spare workers a test allows besides the threads it expects. The monitor
 * starts one for a worker that stays in one foreign call (a read, a
 * printf, an opendir) for two of its 1 ms ticks while tasks wait, and on
 * a loaded machine a worker the OS keeps off its CPU there, or that waits
 * in a page fault or an mmap for the memory map's lock (seen under TSan:
 * its allocator maps as the tasks run), looks just like one blocked in
 * the call: a busy CI machine made up to 4 at once. Blocking waits that
 * hold their workers take one per waiting task, hundreds or thousands in
 * the tests that use this. */
#define CS_LOAD_SPARES 12

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
