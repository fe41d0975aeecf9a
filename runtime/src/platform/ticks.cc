// ticks.cc: the traces' and profiles' clock (ticks.h).
#include "platform/ticks.h"

#include "platform/once.h"

#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace copystack_rt {

std::atomic<bool> g_ticks_are_tsc{false};

namespace {

// The kernel's clocksource: "tsc" only when it found the counter
// invariant and synchronized across CPUs (it falls back to another when a
// check fails, and so do we).
bool kernel_clock_is_tsc() {
  int fd = open("/sys/devices/system/clocksource/clocksource0/"
                "current_clocksource",
                O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  char buf[16] = {};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  return n >= 3 && strncmp(buf, "tsc", 3) == 0 &&
         (n == 3 || buf[3] == '\n');
}

Once g_decided;

} // namespace

TickBase tick_base() {
  g_decided.call([] { g_ticks_are_tsc.store(kernel_clock_is_tsc()); });
  TickBase b;
  b.ns = now_ns();
  b.ticks = ticks();
  return b;
}

uint64_t ticks_to_ns(uint64_t t, const TickBase &from, const TickBase &to) {
  if (!g_ticks_are_tsc.load(std::memory_order_relaxed))
    return t > from.ns ? t - from.ns : 0;
  if (t <= from.ticks || to.ticks <= from.ticks)
    return 0;
  const double rate = static_cast<double>(to.ns - from.ns) /
                      static_cast<double>(to.ticks - from.ticks);
  return static_cast<uint64_t>(static_cast<double>(t - from.ticks) * rate);
}

} // namespace copystack_rt
