// cpu.cc: choosing the code variant (cpu.h).
#include "platform/cpu.h"

#include "platform/config.h"
#include "platform/fatal.h"

#include <cstring>

extern "C" {
unsigned char __copystack_vector_width = 0;
}

namespace copystack_rt {

namespace {
const char *const kNames[] = {"auto", "baseline", "avx2", "avx512f"};
} // namespace

const char *cpu_variant_name(CpuVariant v) {
  return kNames[static_cast<unsigned>(v)];
}

bool parse_cpu_variant(const char *s, CpuVariant *out) {
  for (unsigned i = 0; i < sizeof kNames / sizeof *kNames; ++i)
    if (strcasecmp(s, kNames[i]) == 0) {
      *out = static_cast<CpuVariant>(i);
      return true;
    }
  return false;
}

#if defined(__x86_64__)
bool cpu_supports(CpuVariant v) {
  // The compiler's CPU model checks the kernel's XCR0 too: a feature the
  // OS does not save across switches is reported absent.
  __builtin_cpu_init();
  switch (v) {
  case CpuVariant::kAvx512f: return __builtin_cpu_supports("avx512f");
  case CpuVariant::kAvx2: return __builtin_cpu_supports("avx2");
  default: return true;
  }
}

void set_vector_width() {
  __builtin_cpu_init();
  __copystack_vector_width =
      __builtin_cpu_supports("avx512f")
          ? (__builtin_cpu_supports("avx512bw") ? 3 : 2)
      : __builtin_cpu_supports("avx") ? 1
                                      : 0;
}
#else
// Elsewhere the baseline only (the copy vectorizes with the target's own
// vector unit), and no wide registers beyond what __morestack keeps.
bool cpu_supports(CpuVariant v) {
  return v == CpuVariant::kBaseline || v == CpuVariant::kAuto;
}

void set_vector_width() { __copystack_vector_width = 0; }
#endif

namespace {
// Before any task runs (the program's main is one: it starts after the
// constructors).
__attribute__((constructor)) void vector_width_at_start() {
  set_vector_width();
}
} // namespace

CpuVariant cpu_variant() {
  CpuVariant want = config().cpu;
  if (want == CpuVariant::kAuto) {
    if (cpu_supports(CpuVariant::kAvx512f))
      return CpuVariant::kAvx512f;
    return cpu_supports(CpuVariant::kAvx2) ? CpuVariant::kAvx2
                                           : CpuVariant::kBaseline;
  }
  if (!cpu_supports(want))
    fatal("COPYSTACK_CPU=%s: this CPU (or its kernel) does not support %s; "
          "use auto, baseline or a variant it has",
          cpu_variant_name(want), cpu_variant_name(want));
  return want;
}

} // namespace copystack_rt
