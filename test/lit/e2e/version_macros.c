// copystack.h brings the version macros; the drivers define __COPYSTACK__,
// so code can tell whether the plugin compiles it. The same header compiled
// without the plugin has the version and no __COPYSTACK__.
// REQUIRES: O2, normal
// RUN: %cc %s -o %t && %run %t | FileCheck %s -DVERSION=%cs_version --check-prefixes=CHECK,PLUGIN
// RUN: %plain_cc %s -o %t.plain && %t.plain | FileCheck %s -DVERSION=%cs_version --check-prefixes=CHECK,PLAIN
#include "Inputs/check.h"

#include <string.h>

#define STR2(x) #x
#define STR(x) STR2(x)

// CHECK: version [[VERSION]]
// PLUGIN: instrumented 1
// PLAIN: instrumented 0
int main(void) {
  REQUIRE(strcmp(COPYSTACK_VERSION_STRING,
                 STR(COPYSTACK_VERSION_MAJOR) "." STR(COPYSTACK_VERSION_MINOR) "." STR(
                     COPYSTACK_VERSION_PATCH)) == 0);
  REQUIRE(COPYSTACK_VERSION ==
          COPYSTACK_MAKE_VERSION(COPYSTACK_VERSION_MAJOR,
                                 COPYSTACK_VERSION_MINOR,
                                 COPYSTACK_VERSION_PATCH));
  printf("version %s\n", COPYSTACK_VERSION_STRING);
#if defined(__COPYSTACK__) && __COPYSTACK__ == 1
  printf("instrumented 1\n");
#else
  printf("instrumented 0\n");
#endif
  return 0;
}
