// The symbol every instrumented object refers to, so that linking
// instrumented code without the runtime fails with an error naming the
// runtime (copystack/abi.h, COPYSTACK_RUNTIME_SYMBOL; the reference comes
// from passes/Attributes.cpp). Nothing reads it.
#include "copystack/abi.h"

extern "C" {
extern const char copystack_runtime_marker[] asm(COPYSTACK_RUNTIME_SYMBOL);
const char copystack_runtime_marker[] = "copystack runtime";
}
