// config.cc: reads the COPYSTACK_* environment variables (config.h).
#include "split_stack_notes.h"
#include "config.h"
#include "fatal.h"

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

static Config *load() {
  static Config c;
  c.stress = env_flag("COPYSTACK_STRESS");
  c.verify = env_flag("COPYSTACK_VERIFY");
  if (const char *v = getenv("COPYSTACK_VERIFY"))
    c.verify_scan = strcmp(v, "scan") == 0;
  c.trace = env_flag("COPYSTACK_TRACE");
  c.max_stack.store(COPYSTACK_DEFAULT_MAX_STACK);
  c.start_stack = COPYSTACK_MIN_STACK;
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

} // namespace copystack_rt
