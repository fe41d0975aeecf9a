// pprof.h: profiles in pprof's format, for `go tool pprof` and pprof
// itself: a gzip-compressed perftools.profiles.Profile (google/pprof's
// proto/profile.proto), written without a protobuf library or zlib (the
// runtime gains no dependency; the gzip holds stored deflate blocks).
//
// The writer may run at program exit (an atexit handler): it allocates with
// malloc and realloc only, never throws, and reports a failed allocation as
// ENOMEM from write(). It keeps no global or thread-local state; its caller
// serializes the calls on one writer.
#ifndef COPYSTACK_PPROF_H
#define COPYSTACK_PPROF_H

#include <cstdint>

namespace copystack_rt {

// A sample value's meaning: {"copies", "count"}, {"bytes", "bytes"}.
struct PprofValueType {
  const char *type;
  const char *unit;
};

// Names a location's address (a return address already less one: inside
// its call instruction) for the profile: the function's name for display
// (demangled), its symbol name (mangled; may equal the name, or be null
// for the same), or false when unknown. The writer copies both before it
// calls again, so a namer may return a buffer of its own.
using PprofNamer = bool (*)(uintptr_t pc, const char **name,
                            const char **system_name);

// What a stack's first pc is. Every other pc is a return address.
enum class PprofLeaf : bool {
  kReturnAddress, // a frame's return address, as the rest
  kExactPc,       // the instruction itself (a signal context's pc)
};

class PprofWriter {
public:
  // types: the ntypes values of every sample (copied). period_type and
  // period: what one sample stands for (period_type.type null: none).
  PprofWriter(const PprofValueType *types, int ntypes,
              PprofValueType period_type, int64_t period);
  ~PprofWriter();
  PprofWriter(const PprofWriter &) = delete;
  PprofWriter &operator=(const PprofWriter &) = delete;

  // One sample: pcs innermost first (a zero pc is left out), values with
  // ntypes entries, and at most one string label (both strings copied).
  // Samples with the same stack and label may be added apart: pprof sums
  // them.
  void add(const uintptr_t *pcs, int npcs, const int64_t *values,
           PprofLeaf leaf = PprofLeaf::kReturnAddress,
           const char *label_key = nullptr, const char *label_value = nullptr);

  // When the profile was taken (nanoseconds since the epoch) and over how
  // long; informational.
  void set_times(int64_t time_nanos, int64_t duration_nanos);

  // The type pprof shows unless told (-sample_index): the last by default.
  void set_default_type(int index);

  // Names the locations (namer, then dladdr), reads the loaded objects'
  // mappings, encodes, and writes the file (created or truncated, 0644).
  // Returns 0 or an errno (ENOMEM when an allocation failed, here or in an
  // add). May be called again after more samples.
  int write(const char *path, PprofNamer namer);

private:
  struct State; // pprof.cc; null when even it could not be allocated
  State *s_;
};

} // namespace copystack_rt

#endif
