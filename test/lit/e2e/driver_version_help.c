// --version prints clang's version first (build systems read the compiler
// there), then copystack's; --help lists the drivers' own options, then
// clang's.
// REQUIRES: O2, normal
// RUN: %cc --version | FileCheck %s --check-prefix=VERSION -DVERSION=%cs_version
// RUN: %cxx --help | FileCheck %s --check-prefix=HELP
// VERSION: clang version 19.
// VERSION: copystack [[VERSION]] (plugin {{.*}}CopyStack.so, runtime {{.*}})
// HELP: usage: copystack-c++ [options] file...
// HELP: --copystack-no-main
// HELP: --copystack-shared
// HELP: OVERVIEW: clang LLVM compiler
int main(void) { return 0; }
