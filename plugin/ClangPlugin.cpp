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
#include "TargetCheck.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"

namespace {

class CopyStackAction : public clang::PluginASTAction {
protected:
  std::unique_ptr<clang::ASTConsumer>
  CreateASTConsumer(clang::CompilerInstance &CI, llvm::StringRef) override {
    // Before any code is generated: an unsupported target or -fsplit-stack
    // is an error here, not a backend crash or a wrong object later.
    std::string Why = copystack::unsupportedTarget(CI.getTarget().getTriple());
    if (Why.empty() && CI.getCodeGenOpts().EnableSegmentedStacks)
      Why = copystack::splitStackConflict();
    if (!Why.empty()) {
      clang::DiagnosticsEngine &D = CI.getDiagnostics();
      D.Report(D.getCustomDiagID(clang::DiagnosticsEngine::Error, "%0"))
          << Why;
      return std::make_unique<clang::ASTConsumer>();
    }
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
