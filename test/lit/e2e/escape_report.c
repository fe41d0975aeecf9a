// The escape report, Go's -gcflags=-m: each local that moves off the
// stack, by name and at its declaration (with -g, at every -O level), and
// why. Statistics are a separate remark (-Rpass=copystack-stats).
// REQUIRES: normal
// A struct of more than 16 bytes by value is the callee's copy on x86-64
// (byval), which the callee moves; on AArch64 it is passed by reference to
// a copy the caller makes, and the caller moves that.
// RUN: %cc --copystack-escapes -c %s -o %t.o 2>&1 | FileCheck %s --check-prefixes=CHECK,%if aarch64 %{A64%} %else %{X86%} --implicit-check-not="stack objects"
// RUN: %cc -Rpass=copystack-stats -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=STATS
void keep(void *);
struct big { long a, b, c, d, e, f, g; };

__attribute__((noinline)) long escapes(struct big t) {
  long kept = 1;
  keep(&kept);
  long stays = 2;
  long *p = &stays;
  keep(&t);
  return kept + *p;
}

long caller(long x) {
  struct big b = {x, x, x, x, x, x, x};
  return escapes(b);
}
// X86: escape_report.c:13:{{[0-9]+}}: remark: moved off the stack: t (its address is passed to 'keep', which may keep it)
// CHECK: escape_report.c:14:{{[0-9]+}}: remark: moved off the stack: kept (its address is passed to 'keep', which may keep it)
// CHECK-NOT: moved off the stack: stays
// A64: escape_report.c:22:{{[0-9]+}}: remark: moved off the stack: a 56-byte local of 'caller' (its address is passed to 'escapes', which may keep it)
// STATS: remark: 'escapes': {{[0-9]+}} stack objects
