// The demo's first seed experiment, run as shipped, in normal mode (the
// prologue's real compare): nine copies from 2 KiB to 1 MiB, every check
// fired within the 928-byte guard, the guard exact to the byte, and a
// pointer rewritten by every copy while an integer copy of it is not.
// REQUIRES: normal
// At -O0 on AArch64 each level of the demo's step is 32 bytes (it spills
// its argument), so the probe never stands exactly at the guard's edge.
// UNSUPPORTED: aarch64 && O0
// RUN: %cc %S/../../../demo/growth.c -o %t && %run %t | FileCheck %s
// CHECK: 9 copies from 2048 bytes to 1024 KiB
// CHECK: every row is at most 928
// CHECK: no copy;
// CHECK-NEXT: 16 bytes lower, with 928 left: copy. The guard is 928 bytes, to the byte.
// CHECK: stack copies during the descent: 9
// CHECK: (unchanged: true)
// CHECK: value read through the pointer:  42
