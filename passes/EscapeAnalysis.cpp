//===- EscapeAnalysis.cpp - locals that cannot stay on a copyable stack --===//
#include "EscapeAnalysis.h"
#include "Sanitizers.h"
#include "TypeLayout.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/BuildLibCalls.h"

using namespace llvm;

namespace copystack {

namespace {

// The variadic arguments of these are read or written through, never kept.
bool isFormattedIO(StringRef Name) {
  static const char *const Names[] = {
      "printf",  "fprintf", "sprintf", "snprintf", "dprintf", "scanf",
      "fscanf",  "sscanf",  "syslog",  "__printf_chk", "__fprintf_chk",
      "__sprintf_chk", "__snprintf_chk", "__isoc99_scanf", "__isoc99_fscanf",
      "__isoc99_sscanf", "__isoc23_scanf", "__isoc23_fscanf",
      "__isoc23_sscanf"};
  for (const char *N : Names)
    if (Name == N)
      return true;
  return false;
}

// libc's va_list consumers read the list they are given (and their other
// pointer arguments) during the call and keep none of them.
bool isVaListConsumer(StringRef Name) {
  static const char *const Names[] = {
      "vprintf", "vfprintf", "vsprintf", "vsnprintf", "vdprintf", "vasprintf",
      "vscanf", "vfscanf", "vsscanf", "vsyslog", "verr", "verrx", "vwarn",
      "vwarnx", "__vprintf_chk", "__vfprintf_chk", "__vsprintf_chk",
      "__vsnprintf_chk", "__vdprintf_chk", "__vasprintf_chk",
      "__vsyslog_chk", "__isoc99_vscanf", "__isoc99_vfscanf",
      "__isoc99_vsscanf", "__isoc23_vscanf", "__isoc23_vfscanf",
      "__isoc23_vsscanf"};
  for (const char *N : Names)
    if (Name == N)
      return true;
  return false;
}

// Does libc only read or write through this argument during the call,
// keeping nothing: a printf-family variadic argument, or any argument of a
// va_list consumer?
bool isFormattedIOOperand(const CallBase &CB, const Use &U) {
  const Function *F = CB.getCalledFunction();
  if (!F || !F->isDeclaration() || !CB.isArgOperand(&U))
    return false;
  if (isVaListConsumer(F->getName()))
    return true;
  return F->isVarArg() && isFormattedIO(F->getName()) &&
         CB.getArgOperandNo(&U) >= F->getFunctionType()->getNumParams();
}

// A byval operand is copied into the callee's argument area by the call;
// the callee sees only its copy, never this address.
bool isByValOperand(const CallBase &CB, const Use &U) {
  return CB.isArgOperand(&U) && CB.isByValArgument(CB.getArgOperandNo(&U));
}

std::string calleeName(const CallBase &CB) {
  if (const Function *F =
          dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts()))
    return "'" + F->getName().str() + "'";
  return "an indirect call";
}

// Does an integer made from an address leave as a value? Comparisons and
// arithmetic that ends in comparisons are fine; memory, calls, returns and
// conversions back to pointers are not.
bool integerEscapes(const Value *Root) {
  return findInWalk(Root, [](const Value *V, auto Next) {
    for (const User *U : V->users()) {
      if (isa<ICmpInst>(U) || isa<BranchInst>(U) || isa<SwitchInst>(U))
        continue;
      // UBSan's alignment and overflow checks pass the address, as an
      // integer, to a handler that prints it.
      if (const auto *CB = dyn_cast<CallBase>(U))
        if (isSanitizerCheck(*CB))
          continue;
      if (isa<BinaryOperator>(U) || isa<TruncInst>(U) || isa<ZExtInst>(U) ||
          isa<SExtInst>(U) || isa<FreezeInst>(U) || isa<SelectInst>(U) ||
          isa<PHINode>(U)) {
        Next(U);
        continue;
      }
      return true;
    }
    return false;
  });
}

// va_start, va_copy and va_end read and write a va_list in place; va_arg
// reads it. None of them keeps the list's address.
bool isVaListAccess(const Instruction *I) {
  if (isa<VAArgInst>(I))
    return true;
  if (const auto *II = dyn_cast<IntrinsicInst>(I))
    switch (II->getIntrinsicID()) {
    case Intrinsic::vastart:
    case Intrinsic::vacopy:
    case Intrinsic::vaend:
      return true;
    default:
      break;
    }
  return false;
}

bool isAccessThrough(const Use &U) {
  const auto *I = cast<Instruction>(U.getUser());
  if (isVaListAccess(I))
    return true;
  if (isa<StoreInst>(I))
    return U.getOperandNo() == StoreInst::getPointerOperandIndex();
  if (isa<AtomicRMWInst>(I))
    return U.getOperandNo() == AtomicRMWInst::getPointerOperandIndex();
  if (isa<AtomicCmpXchgInst>(I))
    return U.getOperandNo() == AtomicCmpXchgInst::getPointerOperandIndex();
  return false;
}

// A use of an address that hands it to nobody, for both trackers below:
// accesses through it (LLVM counts volatile ones as captures, the access
// being observable), comparisons (LLVM counts those it cannot prove
// harmless: with null, for a pointer not known dereferenceable, as UBSan's
// checks do), inline asm operands (trusted not to be kept), the variadic
// operands of printf-family calls, byval operands, the sanitizers' checks,
// and an integer made of it that is only compared or reported.
bool handsNothingOut(const Use &U) {
  const auto *I = cast<Instruction>(U.getUser());
  if (isa<LoadInst>(I) || isa<ICmpInst>(I) || isAccessThrough(U))
    return true;
  if (const auto *CB = dyn_cast<CallBase>(I))
    return CB->isInlineAsm() || isFormattedIOOperand(*CB, U) ||
           isByValOperand(*CB, U) || isSanitizerCheck(*CB);
  if (const auto *PI = dyn_cast<PtrToIntInst>(I))
    return !integerEscapes(PI);
  return false;
}

class Tracker : public CaptureTracker {
public:
  explicit Tracker(const SmallPtrSetImpl<Value *> &Locals)
      : Locals(Locals) {}

  bool Captured = false;
  std::string Why;
  SmallVector<Value *, 2> StoredInto;

  void tooManyUses() override {
    capture("its address has too many uses to follow");
  }

  bool captured(const Use *U) override {
    auto *I = cast<Instruction>(U->getUser());
    if (handsNothingOut(*U))
      return false;
    if (auto *SI = dyn_cast<StoreInst>(I)) {
      if (U->getOperandNo() == 0) {
        auto *Dst = const_cast<Value *>(
            getUnderlyingObject(SI->getPointerOperand()));
        if (Locals.count(Dst)) {
          StoredInto.push_back(Dst);
          return false;
        }
      }
      return capture("its address is stored where no frame map can see it");
    }
    if (auto *CB = dyn_cast<CallBase>(I))
      return capture("its address is passed to " + calleeName(*CB) +
                     ", which may keep it");
    if (isa<PtrToIntInst>(I))
      return capture("its address is converted to an integer");
    if (isa<ReturnInst>(I))
      return capture("its address is returned");
    return capture(std::string("its address escapes through ") +
                   I->getOpcodeName());
  }

private:
  const SmallPtrSetImpl<Value *> &Locals;

  bool capture(std::string Reason) {
    Captured = true;
    Why = std::move(Reason);
    return true;
  }
};

// Strict capture: any store or capturing call counts. For values loaded
// out of a local, whose provenance the analysis does not follow.
class StrictTracker : public CaptureTracker {
public:
  bool Captured = false;
  void tooManyUses() override { Captured = true; }
  bool captured(const Use *U) override {
    if (handsNothingOut(*U))
      return false;
    Captured = true;
    return true;
  }
};

// Does local B hand out what it holds: is it passed to a call, copied from,
// or does a pointer loaded from it escape? Then the addresses stored in it
// escape with it.
bool leaksContents(Value *B) {
  return findInWalk(B, [](const Value *V, auto Next) {
    for (const Use &U : V->uses()) {
      const auto *I = cast<Instruction>(U.getUser());
      if (isa<GetElementPtrInst>(I) || isa<BitCastInst>(I) ||
          isa<AddrSpaceCastInst>(I) || isa<PHINode>(I) || isa<SelectInst>(I)) {
        Next(I);
        continue;
      }
      if (const auto *LI = dyn_cast<LoadInst>(I)) {
        if (!containsStackPointer(LI->getType()) && !mayCarryPointerBits(LI))
          continue;
        StrictTracker T;
        PointerMayBeCaptured(LI, &T);
        if (T.Captured)
          return true;
        continue;
      }
      if (isa<StoreInst>(I) || isa<ICmpInst>(I))
        continue;
      // The local's address as an integer that is only compared or
      // reported (UBSan's pointer-overflow checks) hands nothing out.
      if (const auto *PI = dyn_cast<PtrToIntInst>(I)) {
        if (!integerEscapes(PI))
          continue;
        return true;
      }
      if (const auto *II = dyn_cast<IntrinsicInst>(I)) {
        switch (II->getIntrinsicID()) {
        case Intrinsic::lifetime_start:
        case Intrinsic::lifetime_end:
        case Intrinsic::memset:
        case Intrinsic::memset_inline:
          continue;
        case Intrinsic::memcpy:
        case Intrinsic::memcpy_inline:
        case Intrinsic::memmove:
          if (U.getOperandNo() == 0)
            continue; // written, not read
          return true;
        default:
          return true;
        }
      }
      if (const auto *CB = dyn_cast<CallBase>(I))
        if (CB->isInlineAsm() || isSanitizerCheck(*CB))
          continue; // a sanitizer's check reads nothing out of the local
      return true;
    }
    return false;
  });
}

// Does the address of local B itself leave the frame? (A local that holds
// a pointer and is passed on hands the pointer with it.)
bool localEscapes(Value *B) {
  SmallPtrSet<Value *, 1> None;
  Tracker T(None);
  PointerMayBeCaptured(B, &T);
  return T.Captured;
}

bool bindsLocally(const Function &F) {
  return !F.isDeclaration() &&
         (F.hasLocalLinkage() || (F.hasExternalLinkage() && F.isDSOLocal()));
}

} // namespace

void inferCaptures(Module &M, const Policy &P) {
  TargetLibraryInfoImpl TLII{Triple(M.getTargetTriple())};
  TargetLibraryInfo TLI(TLII);
  for (Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic()) {
      inferNonMandatoryLibFuncAttrs(F, TLI);
      describeSanitizerMemFunction(F);
    }

  SmallVector<Argument *, 32> Assumed;
  for (Function &F : M) {
    if (!P.isInstrumented(F) || !bindsLocally(F))
      continue;
    for (Argument &A : F.args())
      if (A.getType()->isPointerTy() && !A.hasByValAttr() &&
          !A.hasNoCaptureAttr()) {
        A.addAttr(Attribute::NoCapture);
        Assumed.push_back(&A);
      }
  }
  // An argument is kept if it is captured as a local's address would be;
  // a store into a local is followed (at -O0 every argument is spilled to
  // one and reloaded for each use).
  DenseMap<Function *, SmallPtrSet<Value *, 16>> LocalsOf;
  for (Argument *A : Assumed) {
    auto &Locals = LocalsOf[A->getParent()];
    if (Locals.empty())
      for (Value *L : frameLocals(*A->getParent()))
        Locals.insert(L);
  }
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (Argument *A : Assumed) {
      if (!A->hasNoCaptureAttr())
        continue;
      Tracker T(LocalsOf[A->getParent()]);
      PointerMayBeCaptured(A, &T);
      bool Kept = T.Captured;
      for (Value *B : T.StoredInto)
        Kept = Kept || leaksContents(B) || localEscapes(B);
      if (Kept) {
        A->removeAttr(Attribute::NoCapture);
        Changed = true;
      }
    }
  }
}

SmallVector<Value *, 16> frameLocals(Function &F) {
  SmallVector<Value *, 16> Locals;
  for (Argument &A : F.args())
    if (A.hasByValAttr())
      Locals.push_back(&A);
  for (Instruction &I : F.getEntryBlock())
    if (auto *AI = dyn_cast<AllocaInst>(&I))
      if (AI->isStaticAlloca())
        Locals.push_back(AI);
  return Locals;
}

MapVector<Value *, std::string> findEscapingLocals(Function &F) {
  SmallVector<Value *, 16> Order = frameLocals(F);
  SmallPtrSet<Value *, 16> Locals(Order.begin(), Order.end());

  MapVector<Value *, std::string> Escaping;
  DenseMap<Value *, SmallVector<Value *, 2>> Into;
  for (Value *A : Order) {
    Tracker T(Locals);
    PointerMayBeCaptured(A, &T);
    if (T.Captured)
      Escaping[A] = T.Why;
    else if (!T.StoredInto.empty())
      Into[A] = T.StoredInto;
  }

  DenseMap<Value *, bool> Leaks;
  auto leaks = [&](Value *B) {
    auto It = Leaks.find(B);
    if (It != Leaks.end())
      return It->second;
    bool L = leaksContents(B);
    Leaks[B] = L;
    return L;
  };
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (auto &[A, Bs] : Into) {
      if (Escaping.count(A))
        continue;
      for (Value *B : Bs) {
        bool BEscapes = Escaping.count(B);
        if (BEscapes || leaks(B)) {
          Escaping[A] = "its address is stored in another local, which " +
                        std::string(BEscapes ? "leaves the stack itself"
                                             : "hands out what it holds");
          Changed = true;
          break;
        }
      }
    }
  }
  // Program order, for stable remarks and layouts.
  MapVector<Value *, std::string> Ordered;
  for (Value *A : Order) {
    auto It = Escaping.find(A);
    if (It != Escaping.end())
      Ordered[A] = It->second;
  }
  return Ordered;
}

} // namespace copystack
