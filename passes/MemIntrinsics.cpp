//===- MemIntrinsics.cpp - -O0 memory intrinsics as calls ---------------===//
#include "MemIntrinsics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace copystack {

// FastISel inlines memcpy and memmove of constant sizes up to this (a
// memset intrinsic of any size it makes a call).
static constexpr uint64_t kInlineBytes = 32;

static FunctionCallee libcMemset(Module &M) {
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  Type *SizeTy = M.getDataLayout().getIntPtrType(C);
  return M.getOrInsertFunction(
      "memset",
      FunctionType::get(Ptr, {Ptr, Type::getInt32Ty(C), SizeTy}, false));
}

// Zeroing written out as stores: a store per word up to this many bytes,
// a loop of them beyond.
static constexpr uint64_t kStoreBytes = 64;

static bool definesMemset(const Module &M) {
  const Function *F = M.getFunction("memset");
  return F && !F->isDeclaration();
}

void zeroMemory(IRBuilder<> &B, Value *Dest, uint64_t Len, Align A) {
  Function &F = *B.GetInsertBlock()->getParent();
  Module &M = *F.getParent();
  // A module that defines memset must not have its functions call it for
  // zeroing the program never asked for (memset's own locals would recurse,
  // and a memset kept off copyable stacks would run on one): there, and for
  // small sizes at -O0 (FastISel makes a call of every memset intrinsic),
  // plain stores.
  const bool Own = definesMemset(M);
  if (!Own && !F.hasOptNone()) {
    B.CreateMemSet(Dest, B.getInt8(0), Len, A);
    return;
  }
  Type *SizeTy = M.getDataLayout().getIntPtrType(M.getContext());
  if (!Own && Len > kStoreBytes) {
    B.CreateCall(libcMemset(M),
                 {Dest, B.getInt32(0), ConstantInt::get(SizeTy, Len)});
    return;
  }
  Type *I64 = B.getInt64Ty();
  const uint64_t Words = Len / 8;
  if (Len <= kStoreBytes) {
    for (uint64_t W = 0; W < Words; ++W)
      B.CreateAlignedStore(ConstantInt::get(I64, 0),
                           B.CreateConstInBoundsGEP1_64(I64, Dest, W),
                           commonAlignment(A, W * 8));
  } else {
    Instruction *After = &*B.GetInsertPoint();
    auto [Body, Index] = SplitBlockAndInsertSimpleForLoop(
        ConstantInt::get(SizeTy, Words), After);
    IRBuilder<> LB(Body);
    LB.CreateAlignedStore(ConstantInt::get(I64, 0),
                          LB.CreateInBoundsGEP(I64, Dest, Index),
                          commonAlignment(A, 8));
    B.SetInsertPoint(After);
  }
  for (uint64_t I = Words * 8; I < Len; ++I)
    B.CreateAlignedStore(B.getInt8(0), B.CreateConstInBoundsGEP1_64(
                                           B.getInt8Ty(), Dest, I),
                         commonAlignment(A, I));
}

void memIntrinsicsToCalls(Function &F) {
  if (!F.hasOptNone())
    return;
  Module &M = *F.getParent();
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  Type *SizeTy = M.getDataLayout().getIntPtrType(C);
  SmallVector<MemIntrinsic *, 8> Work;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        auto *Len = dyn_cast<ConstantInt>(MI->getLength());
        if (!Len || Len->getZExtValue() > kInlineBytes)
          Work.push_back(MI);
      }
  for (MemIntrinsic *MI : Work) {
    IRBuilder<> B(MI);
    Value *Len = B.CreateZExtOrTrunc(MI->getLength(), SizeTy);
    if (auto *MS = dyn_cast<MemSetInst>(MI)) {
      B.CreateCall(libcMemset(M), {MS->getDest(),
                        B.CreateZExt(MS->getValue(), B.getInt32Ty()), Len});
    } else {
      auto *MT = cast<MemTransferInst>(MI);
      const char *Name = isa<MemMoveInst>(MT) ? "memmove" : "memcpy";
      FunctionCallee Fn = M.getOrInsertFunction(
          Name, FunctionType::get(Ptr, {Ptr, Ptr, SizeTy}, false));
      B.CreateCall(Fn, {MT->getDest(), MT->getSource(), Len});
    }
    MI->eraseFromParent();
  }
}

} // namespace copystack
