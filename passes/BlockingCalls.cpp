//===- BlockingCalls.cpp - blocking C library calls park the task ---------===//
#include "BlockingCalls.h"
#include "Names.h"

#include "llvm/IR/Instructions.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace copystack {

static cl::opt<bool> ParkBlockingCalls(
    "copystack-park-blocking-calls", cl::Hidden, cl::init(true),
    cl::desc("Call the runtime's wrappers of blocking C library calls, "
             "which park the task instead of blocking its thread"));

namespace {

struct BlockingCall {
  const char *Name;
  unsigned Params;
};

#define COPYSTACK_ENTRY(name, params) {#name, params},
const BlockingCall Calls[] = {COPYSTACK_BLOCKING_CALLS(COPYSTACK_ENTRY)};
#undef COPYSTACK_ENTRY

/// The blocking call F declares, if it is one: a declaration (a program that
/// defines its own read keeps it) of the C library's name and arity.
const BlockingCall *blockingCall(const Function &F) {
  if (!F.isDeclaration() || F.isVarArg())
    return nullptr;
  for (const BlockingCall &C : Calls)
    if (F.getName() == C.Name && F.arg_size() == C.Params)
      return &C;
  return nullptr;
}

} // namespace

unsigned redirectBlockingCalls(Module &M, const Policy &P) {
  if (!ParkBlockingCalls)
    return 0;
  unsigned Count = 0;
  for (Function &F : M) {
    if (!P.isInstrumented(F))
      continue;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB) {
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB || CB->isInlineAsm())
          continue;
        auto *Callee = dyn_cast<Function>(CB->getCalledOperand());
        if (!Callee || Callee->getFunctionType() != CB->getFunctionType())
          continue;
        const BlockingCall *C = blockingCall(*Callee);
        if (!C)
          continue;
        std::string Name = (names::BlockingPrefix + C->Name).str();
        Function *Wrapper = M.getFunction(Name);
        if (!Wrapper) {
          Wrapper = Function::Create(Callee->getFunctionType(),
                                     GlobalValue::ExternalLinkage, Name, M);
          Wrapper->setAttributes(Callee->getAttributes());
        }
        CB->setCalledOperand(Wrapper);
        ++Count;
      }
  }
  return Count;
}

} // namespace copystack
