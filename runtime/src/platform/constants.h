// constants.h: numbers several layers of the runtime share.
#ifndef COPYSTACK_PLATFORM_CONSTANTS_H
#define COPYSTACK_PLATFORM_CONSTANTS_H

#include <cstddef>

namespace copystack_rt {

// The page size of x86-64 Linux: stacks, their guard pages and the
// alternate signal stacks are laid out in whole pages, the unit of mmap,
// mprotect and madvise.
constexpr size_t kPage = 4096;

} // namespace copystack_rt

#endif
