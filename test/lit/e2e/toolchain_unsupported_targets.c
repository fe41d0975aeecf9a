// copystack compiles for x86-64 Linux, and for AArch64 Linux through the
// drivers (the port in progress, docs/porting.md: the aarch64 variants of
// this suite): -m32, -mx32 and other architectures stop with one clear
// error from the plugin, never a backend crash (riscv64, x32) or a
// silently wrong object (i386), and so does AArch64 through the plugin
// alone, without the port's experimental option the drivers pass.
// RUN: not %cc -m32 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=M32
// RUN: not %cc -mx32 -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=X32
// RUN: not %cc --target=riscv64-linux-gnu -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=RISCV
// RUN: not clang -fplugin=%cs_lib/CopyStack.so --target=aarch64-linux-gnu -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=ARM
// RUN: not %cc --target=x86_64-apple-darwin -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=DARWIN
// The same through -fpass-plugin alone:
// RUN: not clang -fpass-plugin=%cs_lib/CopyStack.so --target=riscv64-linux-gnu -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=RISCV
// REQUIRES: normal
int add_one(int x) { return x + 1; }
// M32: error: copystack supports x86-64 Linux only (this compilation targets i386-{{.*}}linux-gnu)
// X32: error: copystack supports x86-64 Linux only (this compilation targets x86_64-{{.*}}linux-gnux32)
// RISCV: error: copystack supports x86-64 Linux only (this compilation targets riscv64-{{.*}}linux-gnu)
// ARM: error: copystack supports x86-64 Linux only (this compilation targets aarch64-{{.*}}linux-gnu)
// DARWIN: error: copystack supports x86-64 Linux only (this compilation targets x86_64-apple-
// M32-NOT: PLEASE submit a bug report
