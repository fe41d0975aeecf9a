// bench_common.hpp: what the C++ benchmarks measure the same way.
#ifndef COPYSTACK_BENCH_COMMON_HPP
#define COPYSTACK_BENCH_COMMON_HPP

#include <cstdio>
#include <unistd.h>

// The process's resident set now, in bytes (/proc/self/statm).
inline double rss_bytes() {
  long pages = 0, resident = 0;
  if (FILE *f = fopen("/proc/self/statm", "r")) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
      resident = 0;
    fclose(f);
  }
  return double(resident) * double(sysconf(_SC_PAGESIZE));
}

#endif
