//===- PassPlugin.cpp - copystack as an LLVM pass plugin -----------------===//
//
// The entry point opt and clang's -fpass-plugin= look for. Built into both
// CopyStack.so (the clang plugin) and CopyStackPasses.so (LLVM only: opt-19
// cannot load a library that references clang symbols).
//
//===----------------------------------------------------------------------===//
#include "CopyStack.h"
#include "copystack/version.h"

#include "llvm/Passes/PassPlugin.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "copystack", COPYSTACK_VERSION_STRING,
          [](llvm::PassBuilder &PB) { copystack::registerPasses(PB); }};
}
