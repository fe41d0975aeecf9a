// test_maps.h: frame maps built at run time for the units. A map refers to
// its name, resolver, objects and bitmaps by self-relative offsets
// (copystack/abi.h), which need the map's own address.
#ifndef COPYSTACK_TEST_MAPS_H
#define COPYSTACK_TEST_MAPS_H
#include "copystack/abi.h"

#include <cstdint>

namespace copystack_test {

inline void set_rel(int32_t &field, const void *target) {
  field = target ? static_cast<int32_t>(reinterpret_cast<intptr_t>(target) -
                                        reinterpret_cast<intptr_t>(&field))
                 : 0;
}

struct MapSpec {
  const char *name;
  copystack_resolve_fn resolve;
  const copystack_object *objects;
  const uint64_t *bitmaps;
  uint32_t nobjects, nescaped, gpr_mask, stack_arg_bytes;
};

// Fills m in place (the offsets are from m's fields).
inline void fill_map(copystack_frame_map &m, const MapSpec &s) {
  m = copystack_frame_map{};
  m.version = COPYSTACK_ABI_VERSION;
  set_rel(m.name, s.name);
  set_rel(m.resolve, reinterpret_cast<const void *>(s.resolve));
  set_rel(m.objects, s.objects);
  set_rel(m.bitmaps, s.bitmaps);
  m.nobjects = s.nobjects;
  m.nescaped = s.nescaped;
  m.gpr_mask = s.gpr_mask;
  m.stack_arg_bytes = s.stack_arg_bytes;
}

} // namespace copystack_test

#endif
