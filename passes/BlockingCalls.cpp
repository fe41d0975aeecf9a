//===- BlockingCalls.cpp - blocking C library calls park the task ---------===//
#include "BlockingCalls.h"
#include "target/Target.h"
#include "Names.h"

#include "llvm/IR/IRBuilder.h"
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

/// syscall(SYS_futex, ...), with the target's number (target/Target.h):
/// what libstdc++'s atomic waits, semaphores, latches and barriers make,
/// inline in the program.
bool isFutexSyscall(const CallBase &CB, const Function &Callee) {
  return Callee.getName() == "syscall" && Callee.isDeclaration() &&
         Callee.isVarArg() && CB.arg_size() >= 3 &&
         isa<ConstantInt>(CB.getArgOperand(0)) &&
         cast<ConstantInt>(CB.getArgOperand(0))->getZExtValue() ==
             Target::of(*CB.getModule()).futexSyscall();
}

/// The runtime's futex wrapper (io_calls.c): long(uint32_t *uaddr, int op,
/// uint32_t val, const struct timespec *timeout, uint32_t *uaddr2,
/// uint32_t val3).
FunctionCallee futexWrapper(Module &M) {
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::getUnqual(C), *I32 = Type::getInt32Ty(C);
  auto *FT = FunctionType::get(Type::getInt64Ty(C),
                               {Ptr, I32, I32, Ptr, Ptr, I32}, false);
  return M.getOrInsertFunction((names::BlockingPrefix + "futex").str(), FT);
}

/// fcntl(fd, F_SETLKW or F_OFD_SETLKW, lock): the lock waits, which go to
/// the runtime's wrapper; every other command of the variadic fcntl stays
/// the C library's (through the runtime's interposer).
constexpr uint64_t FSetLkW = 7, FOfdSetLkW = 38;

bool isFcntlLockWait(const CallBase &CB, const Function &Callee) {
  StringRef N = Callee.getName();
  if ((N != "fcntl" && N != "fcntl64") || !Callee.isDeclaration() ||
      !Callee.isVarArg() || CB.arg_size() != 3)
    return false;
  auto *Cmd = dyn_cast<ConstantInt>(CB.getArgOperand(1));
  return Cmd &&
         (Cmd->getZExtValue() == FSetLkW || Cmd->getZExtValue() == FOfdSetLkW);
}

/// The runtime's wrapper of those (io_calls.c): int(int fd, int cmd,
/// struct flock *lock).
FunctionCallee fcntlLockWrapper(Module &M) {
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C);
  auto *FT = FunctionType::get(
      I32, {I32, I32, PointerType::getUnqual(C)}, false);
  return M.getOrInsertFunction((names::BlockingPrefix + "fcntl_lock").str(),
                               FT);
}

/// A variadic call's arguments from First on converted to the wrapper's
/// parameters; the ones the call leaves out are null or zero (for the
/// futex, the kernel ignores them for the operations that leave them out).
void rewriteCall(CallBase &CB, FunctionCallee Wrapper, unsigned First) {
  IRBuilder<> B(&CB);
  FunctionType *FT = Wrapper.getFunctionType();
  SmallVector<Value *, 6> Args;
  for (unsigned I = 0; I < FT->getNumParams(); ++I) {
    Type *T = FT->getParamType(I);
    Value *V =
        I + First < CB.arg_size() ? CB.getArgOperand(I + First) : nullptr;
    if (!V)
      V = Constant::getNullValue(T);
    else if (T->isPointerTy() && V->getType()->isIntegerTy())
      V = B.CreateIntToPtr(V, T);
    else if (T->isIntegerTy() && V->getType()->isPointerTy())
      V = B.CreateTrunc(B.CreatePtrToInt(V, B.getInt64Ty()), T);
    else if (T->isIntegerTy() && V->getType()->isIntegerTy())
      V = B.CreateZExtOrTrunc(V, T);
    Args.push_back(V);
  }
  CallInst *New = B.CreateCall(Wrapper, Args);
  New->setDebugLoc(CB.getDebugLoc());
  Value *R = New;
  if (CB.getType() != R->getType())
    R = CB.getType()->isVoidTy() ? nullptr
                                 : B.CreateSExtOrTrunc(R, CB.getType());
  if (R)
    CB.replaceAllUsesWith(R);
  CB.eraseFromParent();
}

} // namespace

unsigned redirectBlockingCalls(Module &M, const Policy &P) {
  if (!ParkBlockingCalls)
    return 0;
  unsigned Count = 0;
  SmallVector<CallBase *, 4> Futex, FcntlLocks;
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
        if (isa<CallInst>(CB) && isFutexSyscall(*CB, *Callee)) {
          Futex.push_back(CB);
          continue;
        }
        if (isa<CallInst>(CB) && isFcntlLockWait(*CB, *Callee)) {
          FcntlLocks.push_back(CB);
          continue;
        }
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
  if (!Futex.empty()) {
    FunctionCallee Wrapper = futexWrapper(M);
    for (CallBase *CB : Futex)
      rewriteCall(*CB, Wrapper, 1); // after the system call's number
    Count += Futex.size();
  }
  if (!FcntlLocks.empty()) {
    FunctionCallee Wrapper = fcntlLockWrapper(M);
    for (CallBase *CB : FcntlLocks)
      rewriteCall(*CB, Wrapper, 0);
    Count += FcntlLocks.size();
  }
  return Count;
}

} // namespace copystack
