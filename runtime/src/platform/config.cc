// config.cc: reads the COPYSTACK_* environment variables (config.h).
#include "platform/split_stack_notes.h"
#include "platform/config.h"
#include "platform/fatal.h"

#include "copystack/abi.h"

#include <cstdlib>
#include <cstring>

namespace copystack_rt {

size_t parse_size(const char *text) {
  if (!text || !*text)
    return 0;
  char *end = nullptr;
  unsigned long long v = strtoull(text, &end, 10);
  if (end == text)
    return 0;
  switch (*end) {
  case 'k': case 'K': v <<= 10; ++end; break;
  case 'm': case 'M': v <<= 20; ++end; break;
  case 'g': case 'G': v <<= 30; ++end; break;
  default: break;
  }
  if (*end == 'i' || *end == 'B' || *end == 'b')
    ++end;
  if (*end == 'B')
    ++end;
  return *end ? 0 : static_cast<size_t>(v);
}

static bool env_flag(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0") != 0;
}

static bool env_default(const char *name, bool dflt) {
  const char *v = getenv(name);
  if (!v || !*v)
    return dflt;
  return strcmp(v, "0") != 0;
}

static Config *load() {
  static Config c;
  c.stress = env_flag("COPYSTACK_STRESS");
  c.verify = env_flag("COPYSTACK_VERIFY");
  if (const char *v = getenv("COPYSTACK_VERIFY"))
    c.verify_scan = strcmp(v, "scan") == 0;
  c.trace = env_flag("COPYSTACK_TRACE");
  c.max_stack.store(COPYSTACK_DEFAULT_MAX_STACK);
  c.start_stack.store(COPYSTACK_MIN_STACK);
  c.adaptive_start.store(COPYSTACK_MIN_STACK);
  if (const char *v = getenv("COPYSTACK_START_STACK")) {
    size_t n = parse_size(v);
    if (n < COPYSTACK_MIN_STACK || n > (size_t(1) << 30))
      fatal("COPYSTACK_START_STACK=%s is not a size from %d bytes to 1G", v,
            COPYSTACK_MIN_STACK);
    c.start_stack.store(n);
  }
  c.shrink.store(env_default("COPYSTACK_SHRINK", true));
  c.adaptive.store(env_default("COPYSTACK_ADAPTIVE", true));
  c.learn.store(env_default("COPYSTACK_LEARN", true));
  c.release.store(env_default("COPYSTACK_RELEASE", true));
  c.thread_tasks = env_default("COPYSTACK_THREADS", true);
  c.netpoll = env_default("COPYSTACK_NETPOLL", true);
  c.preempt = env_default("COPYSTACK_PREEMPT", true);
  if (const char *v = getenv("COPYSTACK_COLLECT_MS")) {
    char *end = nullptr;
    unsigned long long ms = strtoull(v, &end, 10);
    if (end == v || *end)
      fatal("COPYSTACK_COLLECT_MS=%s is not a number of milliseconds", v);
    c.collect_ms.store(ms);
  }
  if (const char *v = getenv("COPYSTACK_MAX_STACK")) {
    size_t n = parse_size(v);
    if (n < COPYSTACK_MIN_STACK)
      fatal("COPYSTACK_MAX_STACK=%s is not a size of at least %d bytes", v,
            COPYSTACK_MIN_STACK);
    c.max_stack.store(n);
  }
  return &c;
}

Config &config() {
  static Config *c = load();
  return *c;
}

size_t default_start_stack() {
  Config &c = config();
  size_t a = c.adaptive.load(std::memory_order_relaxed)
                 ? c.adaptive_start.load(std::memory_order_relaxed)
                 : 0;
  size_t s = c.start_stack.load(std::memory_order_relaxed);
  return a > s ? a : s;
}

} // namespace copystack_rt
