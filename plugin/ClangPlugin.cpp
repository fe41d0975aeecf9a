//===- ClangPlugin.cpp - copystack as a clang plugin (-fplugin=) ---------===//
//
// clang -fplugin=CopyStack.so loads this library; the action below runs
// before the main action and adds the copystack passes to code generation
// through CodeGenOptions::PassBuilderCallbacks. The same library also
// answers -fpass-plugin= (PassPlugin.cpp); passing both is harmless, the
// pass marks a module it has instrumented and runs once.
//
//===----------------------------------------------------------------------===//
#include "CopyStack.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"

namespace {

class CopyStackAction : public clang::PluginASTAction {
protected:
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef) override {
    CI.getCodeGenOpts().PassBuilderCallbacks.push_back(
        [](llvm::PassBuilder &PB) { copystack::registerPasses(PB); });
    return std::make_unique<clang::ASTConsumer>();
  }

  bool ParseArgs(const clang::CompilerInstance &,
                 const std::vector<std::string> &) override {
    return true;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static clang::FrontendPluginRegistry::Add<CopyStackAction>
    X("copystack", "run the program on copyable stacks");
