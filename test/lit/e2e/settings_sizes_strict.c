// Sizes in the environment are strict: a negative size, one that
// overflows, trailing garbage or an empty value stops the program with a
// message naming the variable and the accepted forms, instead of meaning
// "no limit" or silently becoming 2 KiB.
// RUN: %cc %s -o %t
// RUN: %exits 2 %run env COPYSTACK_MAX_STACK=-5 %t 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: %exits 2 %run env COPYSTACK_MAX_STACK=99999999999999999999 %t 2>&1 | FileCheck %s --check-prefix=BIG
// RUN: %exits 2 %run env COPYSTACK_MAX_STACK=18014398509481986K %t 2>&1 | FileCheck %s --check-prefix=WRAP
// RUN: %exits 2 %run env COPYSTACK_START_STACK=4x %t 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: %exits 2 %run env COPYSTACK_MAX_STACK= %t 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: %run env COPYSTACK_MAX_STACK=8MiB %t | FileCheck %s --check-prefix=OK
#include "Inputs/check.h"

int main(void) {
  printf("max %zu\n", copystack_max_stack());
  return 0;
}
// NEG: copystack: fatal: COPYSTACK_MAX_STACK=-5: expected a size of at least 2048 bytes: bytes, or a number with a K, M, G or T suffix (64K, 8M, 1G)
// NEG-NOT: max
// BIG: copystack: fatal: COPYSTACK_MAX_STACK=99999999999999999999: expected a size
// WRAP: copystack: fatal: COPYSTACK_MAX_STACK=18014398509481986K: expected a size
// GARBAGE: copystack: fatal: COPYSTACK_START_STACK=4x: expected a size from 2048 bytes to 1G
// EMPTY: copystack: fatal: COPYSTACK_MAX_STACK is set but empty: expected a size
// OK: max 8388608
