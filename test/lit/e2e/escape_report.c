// The escape report, Go's -gcflags=-m: each local that moves off the
// stack, by name and at its declaration (with -g, at every -O level), and
// why. Statistics are a separate remark (-Rpass=copystack-stats).
// REQUIRES: normal
// RUN: %cc --copystack-escapes -c %s -o %t.o 2>&1 | FileCheck %s --implicit-check-not="stack objects"
// RUN: %cc -Rpass=copystack-stats -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=STATS
void keep(void *);
struct big { long a, b, c, d, e, f, g; };

long escapes(struct big t) {
  long kept = 1;
  keep(&kept);
  long stays = 2;
  long *p = &stays;
  keep(&t);
  return kept + *p;
}
// CHECK: escape_report.c:10:{{[0-9]+}}: remark: moved off the stack: t (its address is passed to 'keep', which may keep it)
// CHECK: escape_report.c:11:{{[0-9]+}}: remark: moved off the stack: kept (its address is passed to 'keep', which may keep it)
// CHECK-NOT: moved off the stack: stays
// STATS: remark: 'escapes': {{[0-9]+}} stack objects
