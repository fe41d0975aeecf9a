// cpu.h: the code variants the runtime chooses by the CPU it runs on.
//
// The stack copy (core/relocate.cc) is built once per vector unit. The
// variant is the best this CPU and its kernel support, or the one
// COPYSTACK_CPU names, so that a test run can exercise every variant the
// machine can execute: a green run on a machine with AVX-512 then says
// the same of one without it.
#ifndef COPYSTACK_CPU_H
#define COPYSTACK_CPU_H

namespace copystack_rt {

enum class CpuVariant : unsigned char {
  kAuto,     // the best this CPU supports (a setting, never a result)
  kBaseline, // x86-64 as the runtime is built for it (SSE2)
  kAvx2,
  kAvx512f,
};

// The variant's name as COPYSTACK_CPU spells it ("auto", "baseline",
// "avx2", "avx512f"), and back (false for another word).
const char *cpu_variant_name(CpuVariant v);
bool parse_cpu_variant(const char *s, CpuVariant *out);

// Whether this CPU, and the kernel's saved state, support v.
bool cpu_supports(CpuVariant v);

// The variant in use: COPYSTACK_CPU's, or the best supported. A variant
// this CPU lacks is a fatal error naming it.
CpuVariant cpu_variant();

// How much of the vector argument registers __morestack and the stack
// probe keep beyond the block's xmm0-7 while the runtime runs (morestack.S):
// 0 nothing (no AVX), 1 ymm (AVX), 2 zmm and 16-bit masks (AVX-512F), 3 zmm
// and 64-bit masks (AVX-512BW), as this CPU and
// its kernel's saved state have them, whatever COPYSTACK_CPU says (it
// chooses the runtime's own code, not the program's). Set before main.
void set_vector_width();

} // namespace copystack_rt

extern "C" __attribute__((visibility("hidden"))) unsigned char
    __copystack_vector_width;

#endif
