# Cross-building copystack's runtime for AArch64 Linux on an x86-64 host
# with clang-19 and Debian's cross sysroot (libc6-dev-arm64-cross,
# libstdc++-12-dev-arm64-cross, binutils-aarch64-linux-gnu): scripts/build
# configures build-aarch64/ with this file when they are present. The
# plugin is the host's (COPYSTACK_HOST_BUILD); only the runtime is built.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER clang-19)
set(CMAKE_CXX_COMPILER clang++-19)
set(CMAKE_ASM_COMPILER clang-19)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_ASM_COMPILER_TARGET aarch64-linux-gnu)
# Debian's cross packages live under /usr/aarch64-linux-gnu, where clang
# looks for --target=aarch64-linux-gnu by itself; lld or the cross ld.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE NEVER)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static;-L;/usr/aarch64-linux-gnu)
