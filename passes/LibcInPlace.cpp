//===- LibcInPlace.cpp - libc calls in place when there is room ----------===//
#include "LibcInPlace.h"
#include "Names.h"
#include "target/Target.h"

#include "copystack/abi.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <cerrno>

using namespace llvm;

namespace copystack {

namespace {

enum class Sig { PtrI64, VoidPtr, PtrI64I64, PtrPtrI64, I32Ptr, I64PtrPtr,
                 PtrPtrPtr, PtrPtr, VoidBoolPtrPtrPtr, I64PtrI64I64,
                 VoidPtrI64, PtrPtrPtrI64, VoidPtrPtr, PtrPtrI64I64PtrI64,
                 PtrPtrI64I64I64I8, VoidPtrI64I8, VoidPtrI64I64 };

// What runs in place: the call itself, or something equivalent that
// glibc's or libstdc++'s own definition does.
enum class Rewrite {
  Same,         // the same call
  TryLock,      // pthread_mutex_trylock; the call itself when held
  NewAsMalloc,  // malloc(n ? n : 1); the call itself when that is null
  DeleteAsFree, // free(p)
  Fast,         // the runtime's fast path; the call itself when it says no
};

struct InPlaceFn {
  const char *Name;
  Sig Signature;
  int Group;
  Rewrite How;
};

// The functions, by name and C signature (copystack/abi.h).
constexpr InPlaceFn Functions[] = {
#define COPYSTACK_ENTRY(G, N, S, H)                                            \
  {N, Sig::S, COPYSTACK_IN_PLACE_##G, Rewrite::H},
    COPYSTACK_IN_PLACE_FUNCTIONS(COPYSTACK_ENTRY)
#undef COPYSTACK_ENTRY
};

FunctionType *typeOf(Sig S, LLVMContext &C) {
  Type *Ptr = PointerType::get(C, 0), *I64 = Type::getInt64Ty(C);
  Type *I32 = Type::getInt32Ty(C), *Void = Type::getVoidTy(C);
  Type *I1 = Type::getInt1Ty(C), *I8 = Type::getInt8Ty(C);
  switch (S) {
  case Sig::PtrI64:
    return FunctionType::get(Ptr, {I64}, false);
  case Sig::VoidPtr:
    return FunctionType::get(Void, {Ptr}, false);
  case Sig::PtrI64I64:
    return FunctionType::get(Ptr, {I64, I64}, false);
  case Sig::PtrPtrI64:
    return FunctionType::get(Ptr, {Ptr, I64}, false);
  case Sig::I32Ptr:
    return FunctionType::get(I32, {Ptr}, false);
  case Sig::I64PtrPtr:
    return FunctionType::get(I64, {Ptr, Ptr}, false);
  case Sig::PtrPtrPtr:
    return FunctionType::get(Ptr, {Ptr, Ptr}, false);
  case Sig::PtrPtr:
    return FunctionType::get(Ptr, {Ptr}, false);
  case Sig::VoidBoolPtrPtrPtr:
    return FunctionType::get(Void, {I1, Ptr, Ptr, Ptr}, false);
  case Sig::I64PtrI64I64:
    return FunctionType::get(I64, {Ptr, I64, I64}, false);
  case Sig::VoidPtrI64:
    return FunctionType::get(Void, {Ptr, I64}, false);
  case Sig::PtrPtrPtrI64:
    return FunctionType::get(Ptr, {Ptr, Ptr, I64}, false);
  case Sig::VoidPtrPtr:
    return FunctionType::get(Void, {Ptr, Ptr}, false);
  case Sig::PtrPtrI64I64PtrI64:
    return FunctionType::get(Ptr, {Ptr, I64, I64, Ptr, I64}, false);
  case Sig::PtrPtrI64I64I64I8:
    return FunctionType::get(Ptr, {Ptr, I64, I64, I64, I8}, false);
  case Sig::VoidPtrI64I8:
    return FunctionType::get(Void, {Ptr, I64, I8}, false);
  case Sig::VoidPtrI64I64:
    return FunctionType::get(Void, {Ptr, I64, I64}, false);
  }
  return nullptr;
}

const InPlaceFn *lookup(StringRef Name, const Function &G) {
  for (const InPlaceFn &E : Functions)
    if (Name == E.Name &&
        G.getFunctionType() == typeOf(E.Signature, G.getContext()))
      return &E;
  return nullptr;
}

const InPlaceFn *lookup(const Function &G) { return lookup(G.getName(), G); }

/// The runtime's wrapper of a call that parks (BlockingCalls.cpp) for a
/// function called in place by a try first: pthread_mutex_lock, whose
/// wrapper parks the task when the mutex is held. The wrapper is then the
/// call made after all, a call of instrumented code.
const InPlaceFn *lookupParking(const Function &G) {
  StringRef Name = G.getName();
  if (!Name.consume_front(names::BlockingPrefix))
    return nullptr;
  const InPlaceFn *E = lookup(Name, G);
  return E && E->How == Rewrite::TryLock ? E : nullptr;
}

} // namespace

unsigned callLibcInPlace(Function &F, const Policy &P) {
  SmallVector<std::pair<CallBase *, const InPlaceFn *>, 8> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (auto *G = dyn_cast<Function>(CB->getCalledOperand()))
          if (!isa<CallBrInst>(CB) && G->isDeclaration() &&
              CB->getFunctionType() == G->getFunctionType() &&
              !CB->isMustTailCall() && !CB->hasOperandBundles()) {
            CallKind K = P.classify(*CB);
            if (K == CallKind::Dispatch)
              if (const InPlaceFn *E = lookup(*G))
                Work.push_back({CB, E});
            if (K == CallKind::Direct)
              if (const InPlaceFn *E = lookupParking(*G))
                Work.push_back({CB, E});
          }
  if (Work.empty())
    return 0;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
  Type *Ptr = PointerType::get(C, 0);
  auto *Flags = cast<GlobalVariable>(
      M.getOrInsertGlobal(COPYSTACK_LIBC_IN_PLACE_SYMBOL, I32));
  // The room test, where the call is, every time: rsp - ROOM >= limit,
  // unsigned. Off task stacks the limit is 0 and it holds; in stress and
  // verify modes (limit ~0) and while a preemption is requested (limit -2)
  // it fails and the call is foreign. (rsp - limit >= ROOM, signed, would
  // wrap to rsp + 1 there and pass with only the guard band to spare.) An
  // asm goto: the stack pointer and the limit word are nothing plain IR
  // can read, and an asm that returned them took five instructions. A
  // failed test tells the runtime (abi.h, COPYSTACK_ROOM_LIMIT: a stack
  // that keeps failing grows), by a call inside the asm, so that the
  // backend sees no call: a function whose other calls are tail calls
  // keeps no frame for it. The call pushes below the stack pointer: no red
  // zone. It goes through the GOT, never through a lazily bound PLT entry
  // (Attributes.h, bindEagerly). The target builds it (target/Target.h).
  InlineAsm *RoomTest = Target::of(M).inPlaceRoomTest(C);
  for (auto [CB, E] : Work) {
    IRBuilder<> B(CB);
    B.SetCurrentDebugLocation(CB->getDebugLoc());
    Value *Bits = B.CreateLoad(I32, Flags, "libc.in.place");
    Value *On = B.CreateICmpNE(B.CreateAnd(Bits, B.getInt32(E->Group)),
                               B.getInt32(0), "in.place.on");
    // Head: the test. Slow: the call as it was (an invoke keeps its
    // landing pad). Fast: the call in place. Join: the two results meet.
    BasicBlock *Head = CB->getParent();
    BasicBlock *Slow = Head->splitBasicBlock(CB, "libc.call");
    BasicBlock *Join;
    if (auto *II = dyn_cast<InvokeInst>(CB)) {
      BasicBlock *Normal = II->getNormalDest();
      Join = BasicBlock::Create(C, "libc.join", &F, Normal);
      BranchInst::Create(Normal, Join);
      Normal->replacePhiUsesWith(Slow, Join);
      II->setNormalDest(Join);
    } else {
      Join = Slow->splitBasicBlock(CB->getNextNode(), "libc.join");
    }
    BasicBlock *Fast = BasicBlock::Create(C, "libc.in.place", &F, Slow);
    Head->getTerminator()->eraseFromParent();
    // The tree and hash leaves and the string members' fast paths use no
    // stack (COPYSTACK_IN_PLACE_NO_ROOM): the group's bit alone. The
    // others test the room after the bit.
    // The room test jumps to the call in place, and falls through to the
    // foreign call after telling the runtime.
    BasicBlock *Room = Fast;
    if (!(E->Group & COPYSTACK_IN_PLACE_NO_ROOM)) {
      Room = BasicBlock::Create(C, "libc.room", &F, Fast);
      CallBrInst::Create(RoomTest, Slow, {Fast}, {}, "", Room)
          ->setDebugLoc(CB->getDebugLoc());
      F.addFnAttr(Attribute::NoRedZone);
    }
    BranchInst::Create(Room, Slow, On, Head)
        ->setMetadata(LLVMContext::MD_prof,
                      MDBuilder(C).createLikelyBranchWeights());
    IRBuilder<> FB(Fast);
    FB.SetCurrentDebugLocation(CB->getDebugLoc());
    CallInst *InPlace;
    Value *Retry = nullptr; // true: make the call itself after all
    switch (E->How) {
    case Rewrite::Same: {
      // A call even where the original is an invoke: none of these
      // functions throws (glibc's C functions, libstdc++'s leaves).
      SmallVector<Value *, 4> Args(CB->args());
      InPlace = FB.CreateCall(CB->getFunctionType(), CB->getCalledOperand(),
                              Args);
      InPlace->setAttributes(CB->getAttributes());
      InPlace->setCallingConv(CB->getCallingConv());
      // The same arguments: a call that could be a tail call still can
      // (an allocator wrapper that ends in realloc or free jumps to it).
      if (auto *CI = dyn_cast<CallInst>(CB))
        InPlace->setTailCallKind(CI->getTailCallKind());
      break;
    }
    case Rewrite::TryLock: {
      FunctionCallee Try = M.getOrInsertFunction("pthread_mutex_trylock",
                                                 CB->getFunctionType());
      InPlace = FB.CreateCall(Try, {CB->getArgOperand(0)}, "trylock");
      // Held: the lock itself, the runtime's wrapper that parks the task
      // (or, where the call was not redirected, the foreign call, which
      // the monitor sees).
      Retry = FB.CreateICmpEQ(InPlace, FB.getInt32(EBUSY));
      break;
    }
    case Rewrite::NewAsMalloc: {
      FunctionCallee Malloc = M.getOrInsertFunction(
          "malloc", FunctionType::get(Ptr, {I64}, false));
      Value *N = CB->getArgOperand(0);
      Value *Size = FB.CreateSelect(FB.CreateICmpEQ(N, FB.getInt64(0)),
                                    FB.getInt64(1), N);
      InPlace = FB.CreateCall(Malloc, {Size}, "new.malloc");
      // Null: the call itself runs the new handler or throws.
      Retry = FB.CreateIsNull(InPlace);
      break;
    }
    case Rewrite::Fast: {
      // The runtime's copy of the member's paths that neither allocate
      // nor throw, same arguments; it returns the string (what the members
      // that return one return) or null: then the call itself.
      SmallVector<Value *, 5> Args(CB->args());
      FunctionCallee Fn = M.getOrInsertFunction(
          (Twine(COPYSTACK_SYM_STRING_FAST) + E->Name).str(),
          FunctionType::get(Ptr, CB->getFunctionType()->params(), false));
      InPlace = FB.CreateCall(Fn, Args, "fast");
      // The arguments' attributes (the char's extension) as the call had
      // them; not its result's, which is another type for the void ones.
      InPlace->setAttributes(
          CB->getAttributes().removeFnAttributes(C).removeAttributesAtIndex(
              C, AttributeList::ReturnIndex));
      Retry = FB.CreateIsNull(InPlace);
      break;
    }
    case Rewrite::DeleteAsFree: {
      FunctionCallee Free = M.getOrInsertFunction(
          "free", FunctionType::get(Type::getVoidTy(C), {Ptr}, false));
      InPlace = FB.CreateCall(Free, {CB->getArgOperand(0)});
      break;
    }
    }
    InPlace->setDoesNotThrow();
    InPlace->setMetadata(names::InPlaceCallMD, MDNode::get(C, {}));
    if (Retry)
      FB.CreateCondBr(Retry, Slow, Join);
    else
      FB.CreateBr(Join);
    if (!CB->getType()->isVoidTy()) {
      PHINode *Phi = PHINode::Create(CB->getType(), 2, "", Join->begin());
      CB->replaceAllUsesWith(Phi);
      Phi->addIncoming(InPlace, Fast);
      Phi->addIncoming(CB, Slow);
    }
  }
  return Work.size();
}

} // namespace copystack
