//===- Attributes.cpp - attributes of instrumented code -----------------===//
#include "Attributes.h"
#include "ArgLayout.h"
#include "Names.h"
#include "Policy.h"
#include "target/Target.h"

#include "copystack/abi.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <climits>
#include <string>

using namespace llvm;

#define DEBUG_TYPE "copystack"

namespace copystack {

enum class Prologue { Llvm, Own };

static cl::opt<Prologue> PrologueOpt(
    "copystack-prologue", cl::Hidden, cl::init(Prologue::Own),
    cl::desc("Which stack check an instrumented function gets"),
    cl::values(clEnumValN(Prologue::Llvm, "llvm",
                          "LLVM's split-stack prologue in every function "
                          "that calls"),
               clEnumValN(Prologue::Own, "own",
                          "the pass's own check (the default), which leaves "
                          "LLVM free to shrink-wrap the frame, only where a "
                          "callee does not check, and LLVM's stack probe "
                          "for big frames (copystack/abi.h, "
                          "COPYSTACK_OWN_CHECK)")));

static cl::opt<bool> ElideChecks(
    "copystack-elide-checks", cl::Hidden, cl::init(true),
    cl::desc("Under the own prologue, leave the check out of a function "
             "with a small frame whose every call goes to a function of "
             "the module that checks (docs/abi.md)"));

STATISTIC(NumElidedChecks, "Own checks left out: every callee checks");

// Intrinsics the x86-64 backend never turns into a call. The others may
// become one (llvm.memcpy of a large or variable size, llvm.pow, llvm.fma
// without FMA, llvm.floor without SSE4.1...), and a call to a routine the
// program defines itself may be instrumented (a libc, freestanding code:
// its own memset has a check and can move the stack with the caller's
// frame on the walk).
static bool neverACall(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::dbg_declare:
  case Intrinsic::dbg_value:
  case Intrinsic::dbg_label:
  case Intrinsic::dbg_assign:
  case Intrinsic::assume:
  case Intrinsic::expect:
  case Intrinsic::expect_with_probability:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::invariant_start:
  case Intrinsic::invariant_end:
  case Intrinsic::launder_invariant_group:
  case Intrinsic::strip_invariant_group:
  case Intrinsic::objectsize:
  case Intrinsic::is_constant:
  case Intrinsic::prefetch:
  case Intrinsic::ctpop:
  case Intrinsic::ctlz:
  case Intrinsic::cttz:
  case Intrinsic::bswap:
  case Intrinsic::bitreverse:
  case Intrinsic::fshl:
  case Intrinsic::fshr:
  case Intrinsic::abs:
  case Intrinsic::smax:
  case Intrinsic::smin:
  case Intrinsic::umax:
  case Intrinsic::umin:
  case Intrinsic::sadd_with_overflow:
  case Intrinsic::uadd_with_overflow:
  case Intrinsic::ssub_with_overflow:
  case Intrinsic::usub_with_overflow:
  case Intrinsic::sadd_sat:
  case Intrinsic::uadd_sat:
  case Intrinsic::ssub_sat:
  case Intrinsic::usub_sat:
  case Intrinsic::fabs:
  case Intrinsic::copysign:
  case Intrinsic::memcpy_inline:
  case Intrinsic::memset_inline:
    return true;
  default:
    return false;
  }
}

// Instructions the backend may lower to a call into a runtime routine the
// program could define itself: arithmetic on types wider than the
// machine's (128-bit division, conversions between floating point and
// 128-bit integers, anything on fp128), frem (fmod), and atomics wider
// than 8 bytes (libatomic).
static bool mayBecomeCall(const Instruction &I) {
  auto Quad = [](const Type *T) {
    T = T->getScalarType();
    return T->isFP128Ty() || T->isPPC_FP128Ty();
  };
  auto Wide = [&](Type *T) {
    return Quad(T) || (T->getScalarType()->isIntegerTy() &&
                       T->getScalarType()->getIntegerBitWidth() > 64);
  };
  switch (I.getOpcode()) {
  case Instruction::FRem:
    return true;
  case Instruction::UDiv:
  case Instruction::SDiv:
  case Instruction::URem:
  case Instruction::SRem:
  case Instruction::FPToSI:
  case Instruction::FPToUI:
  case Instruction::SIToFP:
  case Instruction::UIToFP:
  case Instruction::FPTrunc:
  case Instruction::FPExt:
    return Wide(I.getType()) || Wide(I.getOperand(0)->getType());
  case Instruction::AtomicRMW:
  case Instruction::AtomicCmpXchg:
    return true; // 16-byte ones are libcalls without cx16; keep it simple
  case Instruction::Load:
    return cast<LoadInst>(I).isAtomic() && Wide(I.getType());
  case Instruction::Store:
    return cast<StoreInst>(I).isAtomic() &&
           Wide(I.getOperand(0)->getType());
  default:
    return hasValueOfType(I, Quad);
  }
}

bool hasValueOfType(const Instruction &I,
                    function_ref<bool(const Type *)> Pred) {
  if (Pred(I.getType()))
    return true;
  for (const Value *Op : I.operands())
    if (Pred(Op->getType()))
      return true;
  return false;
}

// No call in the function once the passes are done (loop polls, foreign
// calls and the sanitizers' hooks are calls by then), nor one the backend
// may add: only intrinsics of the list above, none of the instructions
// above, and no entry or exit hooks (-pg, -finstrument-functions), which
// are added after this pass. A leaf's own loop polls (LoopPolls.h) do not
// count: a task they park is not moved until it resumes there.
static bool hasEntryOrExitHooks(const Function &F) {
  for (const char *Hook :
       {"instrument-function-entry", "instrument-function-entry-inlined",
        "instrument-function-exit", "instrument-function-exit-inlined"})
    if (F.hasFnAttribute(Hook))
      return true;
  return false;
}

bool makesNoCalls(const Function &F) {
  if (hasEntryOrExitHooks(F))
    return false;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      if (const auto *CB = dyn_cast<CallBase>(&I)) {
        if (CB->hasMetadata(names::LeafPollMD))
          continue;
        const Function *Callee = CB->getCalledFunction();
        if (!Callee || !neverACall(Callee->getIntrinsicID()))
          return false;
      } else if (mayBecomeCall(I)) {
        return false;
      }
    }
  return true;
}

// A call LLVM sees as one: of a function that is no intrinsic, or through
// a pointer (not an inline asm). The backend then keeps the stack aligned
// for calls and uses no red zone.
static bool makesCallOfItsOwn(const Function &F) {
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (const auto *CB = dyn_cast<CallBase>(&I)) {
        if (CB->isInlineAsm() || CB->hasMetadata(names::LeafPollMD))
          continue;
        const Function *Callee = CB->getCalledFunction();
        if (!Callee || !Callee->isIntrinsic())
          return true;
      }
  return false;
}

namespace {
// A scalar an argument holds, carried through the check after the frame:
// the argument, where in it (no indices: the argument itself), its type
// and its register class.
struct Carried {
  Argument *Arg;
  SmallVector<unsigned, 2> Path;
  int Piece; // of an integer wider than 64 bits: bits 64 * Piece and up
  Type *Ty;
  const char *Class;
};
} // namespace

// The scalars of an argument of type Ty at Path that the target carries,
// aggregates element by element, up to its limit per register class.
// Whole stays true while every scalar of A so far is carried.
static void collectCarried(const Target &T, Argument &A, Type *Ty,
                           SmallVectorImpl<unsigned> &Path,
                           SmallVectorImpl<Carried> &Out, unsigned &Gpr,
                           unsigned &Vec, bool &Whole) {
  if (auto *AT = dyn_cast<ArrayType>(Ty)) {
    for (unsigned I = 0, N = AT->getNumElements(); I < N; ++I) {
      Path.push_back(I);
      collectCarried(T, A, AT->getElementType(), Path, Out, Gpr, Vec,
                     Whole);
      Path.pop_back();
    }
    return;
  }
  if (auto *ST = dyn_cast<StructType>(Ty)) {
    for (unsigned I = 0, N = ST->getNumElements(); I < N; ++I) {
      Path.push_back(I);
      collectCarried(T, A, ST->getElementType(I), Path, Out, Gpr, Vec,
                     Whole);
      Path.pop_back();
    }
    return;
  }
  // An i128 (AAPCS64: two general registers) goes as 64-bit pieces.
  Type *I64 = Type::getInt64Ty(Ty->getContext());
  unsigned Bits = Ty->isIntegerTy() ? Ty->getIntegerBitWidth() : 0;
  bool Split = Bits > 64 && Bits % 64 == 0 && T.checkCarries(I64);
  for (int Piece = 0; Piece < (Split ? int(Bits / 64) : 1); ++Piece) {
    Type *PieceTy = Split ? I64 : Ty;
    const char *Class = T.checkCarries(PieceTy);
    unsigned &N = Class && Class[0] == 'r' ? Gpr : Vec;
    if (!Class || N >= T.checkCarriesAtMost()) {
      Whole = false;
      return;
    }
    ++N;
    Out.push_back({&A, SmallVector<unsigned, 2>(Path.begin(), Path.end()),
                   Split ? Piece : -1, PieceTy, Class});
  }
}

// The own prologue's check (copystack/abi.h, COPYSTACK_OWN_CHECK): one asm
// at the start of the entry block, the compare, its branch and the call of
// __morestack together, so that LLVM sees no call and may still shrink-wrap
// the frame past it; the runtime reads from the unwind tables at the call
// whether the frame was set up before it. The target builds the asm
// (target/Target.h): the registers it keeps are __morestack's.
//
// Where the check runs after the frame is set up (AArch64), nothing may be
// written to the frame before it but the callee-saved registers at its
// top: a frame bigger than the room left reaches below the stack there,
// and the runtime reads that part as never written (place_block). Yet a
// register allocator spills a value where it is defined, and the
// arguments are defined at the entry, before the check: -O0's allocator
// spills every one that lives across a call, to a slot at the frame's
// bottom. So the arguments pass through the check, as the asm's operands
// tied to its results, and the function uses the results: defined after
// the check, they are spilled after it (checkCarries: scalars of up to 64
// bits in general registers, floating-point and vectors of up to 128 bits
// in vector registers, aggregates element by element, 20 of each class).
static void insertOwnCheck(Function &F) {
  LLVMContext &Ctx = F.getContext();
  const Target &T = Target::of(*F.getParent());
  InlineAsm *Check = T.ownCheck(F, computeArgLayout(F).StackBytes);
  // The check belongs at its function's entry: inlined (by LTO, after
  // this pass) it would stand in the middle of another function's frame,
  // which the runtime would take for one nothing has been written to.
  F.removeFnAttr(Attribute::AlwaysInline);
  F.addFnAttr(Attribute::NoInline);
  BasicBlock &Entry = F.getEntryBlock();
  IRBuilder<> B(&Entry, Entry.getFirstNonPHIOrDbgOrAlloca());
  if (DISubprogram *SP = F.getSubprogram())
    B.SetCurrentDebugLocation(
        DILocation::get(Ctx, SP->getScopeLine(), 0, SP));

  SmallVector<Carried, 8> Carry;
  SmallPtrSet<Argument *, 8> Whole; // every scalar of it carried
  if (!T.probesLargeFrames()) {
    unsigned Gpr = 0, Vec = 0;
    for (Argument &A : F.args()) {
      if (A.use_empty() || A.hasSwiftErrorAttr())
        continue;
      SmallVector<unsigned, 2> Path;
      bool All = true;
      collectCarried(T, A, A.getType(), Path, Carry, Gpr, Vec, All);
      if (All)
        Whole.insert(&A);
    }
  }
  if (Carry.empty()) {
    B.CreateCall(Check);
    return;
  }

  SmallPtrSet<Instruction *, 16> Made;
  SmallVector<Type *, 8> Tys;
  SmallVector<Value *, 8> Ins;
  std::string Outs, Tied;
  auto Track = [&](Value *V) {
    if (auto *I = dyn_cast<Instruction>(V))
      Made.insert(I);
    return V;
  };
  // The scalar at C's place in its argument, as the argument came.
  auto ScalarOf = [&](const Carried &C) {
    return C.Path.empty() ? static_cast<Value *>(C.Arg)
                          : Track(B.CreateExtractValue(C.Arg, C.Path));
  };
  for (unsigned I = 0; I < Carry.size(); ++I) {
    const Carried &C = Carry[I];
    Value *V = ScalarOf(C);
    if (C.Piece >= 0)
      V = Track(B.CreateTrunc(
          Track(B.CreateLShr(V, uint64_t(64) * C.Piece)), C.Ty));
    Tys.push_back(C.Ty);
    Ins.push_back(V);
    Outs += std::string("=") + C.Class + ",";
    Tied += std::to_string(I) + ",";
  }
  Type *RetTy = Tys.size() == 1 ? Tys[0] : StructType::get(Ctx, Tys);
  SmallVector<Type *, 8> InTys(Tys.begin(), Tys.end());
  InlineAsm *Carrying = InlineAsm::get(
      FunctionType::get(RetTy, InTys, false), Check->getAsmString(),
      Outs + Tied + Check->getConstraintString(), /*hasSideEffects=*/true);
  auto *Call = cast<CallInst>(Track(B.CreateCall(Carrying, Ins)));

  // Each argument again, from the check's results: a scalar is its
  // result; a wide integer, its pieces put together; an aggregate, itself
  // with its carried elements replaced.
  MapVector<Argument *, Value *> Again;
  for (unsigned I = 0; I < Carry.size();) {
    const Carried &C = Carry[I];
    auto Result = [&](unsigned K) {
      return Tys.size() == 1 ? static_cast<Value *>(Call)
                             : Track(B.CreateExtractValue(Call, K));
    };
    Value *R;
    if (C.Piece < 0) {
      R = Result(I++);
    } else {
      // The pieces carried replace their bits of the scalar as it came
      // (of nothing, when they are all of it: then the argument as it came
      // is used no more, and lives across nothing).
      Type *Wide = C.Path.empty()
                       ? C.Arg->getType()
                       : ExtractValueInst::getIndexedType(C.Arg->getType(),
                                                          C.Path);
      R = Whole.count(C.Arg) ? ConstantInt::get(Wide, 0) : ScalarOf(C);
      for (; I < Carry.size() && Carry[I].Arg == C.Arg &&
             Carry[I].Path == C.Path && Carry[I].Piece >= 0;
           ++I) {
        uint64_t Shift = uint64_t(64) * Carry[I].Piece;
        APInt Keep = ~APInt::getBitsSet(Wide->getIntegerBitWidth(), Shift,
                                        Shift + 64);
        Value *Piece =
            Track(B.CreateShl(Track(B.CreateZExt(Result(I), Wide)), Shift));
        if (!Whole.count(C.Arg))
          R = Track(B.CreateAnd(R, ConstantInt::get(Wide, Keep)));
        R = Track(B.CreateOr(R, Piece));
      }
    }
    if (C.Path.empty()) {
      Again[C.Arg] = R;
      continue;
    }
    Value *&Agg = Again[C.Arg];
    if (!Agg)
      Agg = Whole.count(C.Arg) ? static_cast<Value *>(PoisonValue::get(
                                     C.Arg->getType()))
                               : C.Arg;
    Agg = Track(B.CreateInsertValue(Agg, R, C.Path));
  }
  for (auto &[A, V] : Again)
    A->replaceUsesWithIf(V, [&](Use &U) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      return !I || !Made.count(I);
    });
}

// The bytes of F's static locals, or UINT64_MAX when one is dynamic or of
// no fixed size.
static uint64_t localBytes(const Function &F) {
  const DataLayout &DL = F.getDataLayout();
  uint64_t Sum = 0;
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      if (const auto *AI = dyn_cast<AllocaInst>(&I)) {
        std::optional<TypeSize> Size = AI->getAllocationSize(DL);
        if (!AI->isStaticAlloca() || !Size || Size->isScalable())
          return UINT64_MAX;
        Sum += Size->getFixedValue();
      }
  return Sum;
}

// Whether F's static locals, or any dynamic one, may take more than Bytes.
static bool localBytesAbove(const Function &F, uint64_t Bytes) {
  return localBytes(F) > Bytes;
}

// The registers a value takes: general (integers, pointers) or vector
// (floating point, vectors), by 64 and 128 bits.
static void registersOf(Type *T, const DataLayout &DL, unsigned &Gpr,
                        unsigned &Vec) {
  Gpr = Vec = 0;
  if (T->isVoidTy() || T->isTokenTy() || T->isMetadataTy() || T->isLabelTy())
    return;
  TypeSize Bits = DL.getTypeSizeInBits(T);
  if (Bits.isScalable()) {
    Vec = 1;
    return;
  }
  uint64_t B = std::max<uint64_t>(Bits.getFixedValue(), 1);
  if (T->isFPOrFPVectorTy() || T->isVectorTy())
    Vec = unsigned((B + 127) / 128);
  else
    Gpr = unsigned((B + 63) / 64);
}

// The most general and vector registers a function's SSA values hold at
// one point: a liveness over its blocks (a phi's operands live out of its
// predecessor, its result in at its block's start), then a walk of each
// block from its end.
// Gives up (UINT_MAX) on a function too big to analyse cheaply.
static void maxLiveRegisters(const Function &F, unsigned &MaxGpr,
                             unsigned &MaxVec) {
  const DataLayout &DL = F.getDataLayout();
  DenseMap<const Value *, unsigned> Index;
  SmallVector<unsigned, 64> Gprs, Vecs;
  auto Number = [&](const Value *V) {
    // A local's address is the frame's base plus a constant: rebuilt where
    // used, never spilled.
    if (isa<AllocaInst>(V))
      return;
    unsigned G, W;
    registersOf(V->getType(), DL, G, W);
    if (!G && !W)
      return;
    Index[V] = Gprs.size();
    Gprs.push_back(G);
    Vecs.push_back(W);
  };
  for (const Argument &A : F.args())
    Number(&A);
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB)
      Number(&I);
  const unsigned N = Gprs.size();
  if (uint64_t(N) * F.size() > (uint64_t(1) << 26)) {
    MaxGpr = MaxVec = UINT_MAX;
    return;
  }
  auto Idx = [&](const Value *V) -> int {
    auto It = Index.find(V);
    return It == Index.end() ? -1 : int(It->second);
  };
  DenseMap<const BasicBlock *, BitVector> In, Out;
  for (const BasicBlock &BB : F) {
    In[&BB] = BitVector(N);
    Out[&BB] = BitVector(N);
  }
  // Live in: the block's non-phi uses not defined above them in it, and
  // its phis' results; live out: the successors' live in less their phis'
  // results, plus the phis' operands from this block.
  auto LiveIn = [&](const BasicBlock &BB, const BitVector &LiveOut) {
    BitVector L = LiveOut;
    for (const Instruction &I : reverse(BB)) {
      if (int D = Idx(&I); D >= 0)
        L.reset(D);
      if (isa<PHINode>(I))
        continue;
      for (const Use &U : I.operands())
        if (int O = Idx(U.get()); O >= 0)
          L.set(O);
    }
    return L;
  };
  // A worklist from the last block up: a block is looked at again when a
  // successor's live-in set grew. (A successor's live-in set never holds
  // its own phis' results: LiveIn takes them as defined at its start.)
  SmallVector<const BasicBlock *, 32> Work;
  SmallPtrSet<const BasicBlock *, 32> Queued;
  for (const BasicBlock &BB : F) {
    Work.push_back(&BB);
    Queued.insert(&BB);
  }
  while (!Work.empty()) {
    const BasicBlock *BB = Work.pop_back_val();
    Queued.erase(BB);
    BitVector NewOut(N);
    for (const BasicBlock *S : successors(BB)) {
      NewOut |= In[S];
      for (const PHINode &P : S->phis())
        if (int O = Idx(P.getIncomingValueForBlock(BB)); O >= 0)
          NewOut.set(O);
    }
    BitVector NewIn = LiveIn(*BB, NewOut);
    Out[BB] = std::move(NewOut);
    if (NewIn != In[BB]) {
      In[BB] = std::move(NewIn);
      for (const BasicBlock *P : predecessors(BB))
        if (Queued.insert(P).second)
          Work.push_back(P);
    }
  }
  MaxGpr = MaxVec = 0;
  for (const BasicBlock &BB : F) {
    BitVector L = Out[&BB];
    unsigned G = 0, W = 0;
    for (unsigned I : L.set_bits()) {
      G += Gprs[I];
      W += Vecs[I];
    }
    auto Add = [&](int O) {
      if (O >= 0 && !L.test(O)) {
        L.set(O);
        G += Gprs[O];
        W += Vecs[O];
      }
    };
    for (const Instruction &I : reverse(BB)) {
      MaxGpr = std::max(MaxGpr, G);
      MaxVec = std::max(MaxVec, W);
      if (int D = Idx(&I); D >= 0 && L.test(D)) {
        L.reset(D);
        G -= Gprs[D];
        W -= Vecs[D];
      }
      if (isa<PHINode>(I)) {
        if (int D = Idx(&I); D >= 0)
          Add(D); // live at the block's start
        continue;
      }
      for (const Use &U : I.operands())
        Add(Idx(U.get()));
    }
    MaxGpr = std::max(MaxGpr, G);
    MaxVec = std::max(MaxVec, W);
  }
}

// Whether a leaf's frame may outgrow the budget of a frame without a check
// (AArch64, where no stack probe sizes it): its locals, and the spills its
// register pressure may need, are more than COPYSTACK_PROBE_FRAME bytes.
// The backend's spills are not known here: optimized code is taken to
// spill what its most values live at once exceed of the registers
// (kLeafGprs general, kLeafVecs vector: AArch64 has 31 and 32, less the
// platform, frame and scratch registers and a margin for the temporaries
// instruction selection makes); -O0's allocator gives every value used
// outside its block a slot of its own, and the larger of the two counts.
static bool leafMayOutgrowBudget(const Function &F) {
  const uint64_t Locals = localBytes(F);
  if (Locals > COPYSTACK_PROBE_FRAME)
    return true;
  const DataLayout &DL = F.getDataLayout();
  uint64_t Spills = 0;
  unsigned MaxGpr, MaxVec;
  maxLiveRegisters(F, MaxGpr, MaxVec);
  if (MaxGpr > kLeafGprs)
    Spills += 8 * uint64_t(MaxGpr - kLeafGprs);
  if (MaxVec > kLeafVecs)
    Spills += 16 * uint64_t(MaxVec - kLeafVecs);
  if (F.hasOptNone()) {
    uint64_t Slots = 0;
    for (const BasicBlock &BB : F)
      for (const Instruction &I : BB) {
        unsigned G, W;
        registersOf(I.getType(), DL, G, W);
        if ((!G && !W) || isa<AllocaInst>(I))
          continue;
        bool Out = any_of(I.users(), [&](const User *U) {
          const auto *UI = cast<Instruction>(U);
          return UI->getParent() != &BB || isa<PHINode>(UI);
        });
        if (Out)
          Slots += 8 * uint64_t(G) + 16 * uint64_t(W);
      }
    Spills = std::max(Spills, Slots);
  }
  return Locals + Spills > COPYSTACK_PROBE_FRAME;
}

bool setAttributes(Function &F, bool HasLocals) {
  bool WantsOwnCheck = false;
  // A variadic shim has no prologue check (LLVM refuses one): its frame
  // fits the guard band's budget, and the body it calls checks at once.
  const Target &T = Target::of(*F.getParent());
  if (!F.hasFnAttribute(names::VarargShimAttr)) {
    if (!T.hasLlvmSplitStack()) {
      // AArch64 (target/AArch64.h): the own check is the only one, made
      // after the frame is set up, so exact whatever the frame's size. A
      // function that calls, or may call, gets it; so does a leaf whose
      // locals and likely spills may not fit the guard band's budget below
      // its caller's (leafMayOutgrowBudget).
      if (!makesNoCalls(F) || leafMayOutgrowBudget(F))
        WantsOwnCheck = true;
      // -fstack-clash-protection's probes store into each page of a big
      // frame before the check runs: below a task's stack, that is a
      // neighbour's memory. The check sizes every frame exactly; the
      // probes go (docs/limitations.md).
      F.removeFnAttr("probe-stack");
      F.removeFnAttr("stack-probe-size");
    } else if (PrologueOpt == Prologue::Own) {
      // A frame too big for the guard band's budget is checked by LLVM's
      // stack probe, before it is taken; any other needs a check only
      // where the function calls something: a leaf's frame fits the
      // budget below its caller's.
      //
      // The check's call of __morestack is in its asm, unseen by LLVM: it
      // holds the stack aligned and keeps no red zone only in a function
      // that makes some call of its own. One whose only calls are what the
      // backend may or may not make a call (makesNoCalls) gets LLVM's
      // prologue instead, which checks before the frame.
      F.addFnAttr("probe-stack", COPYSTACK_SYM_STACK_PROBE);
      F.addFnAttr("stack-probe-size", std::to_string(COPYSTACK_PROBE_FRAME));
      if (makesCallOfItsOwn(F))
        WantsOwnCheck = true; // placeOwnChecks, once every function is done
      else if (!makesNoCalls(F))
        F.addFnAttr("split-stack");
    } else {
      F.addFnAttr("split-stack");
    }
  }
  // The runtime walks frames from call sites by the unwind tables' CFA
  // rules (runtime core/frame_info.h), %rbp-based or %rsp-based: a frame
  // pointer is needed only where the frame map describes locals, at
  // offsets from %rbp. Those keep it, and so does every function the user
  // compiled with frame pointers (-fno-omit-frame-pointer: profilers,
  // sanitizers' fast unwinders). A function that calls nothing is never
  // walked while a stack moves (it has no call site and nothing that parks
  // but its own loop polls, where a stack stays put: sched/preempt.h), so
  // it keeps none whatever its locals: a leaf that needs no stack then has
  // no frame and no prologue check at all (LLVM checks only frames of
  // nonzero size), and one that spills keeps the check. A function that
  // calls anything (makesNoCalls: what the backend may turn into a call
  // counts) has a nonzero frame or a tail call, and so a check.
  StringRef Asked = F.getFnAttribute("frame-pointer").getValueAsString();
  bool Keep = !makesNoCalls(F) &&
              (HasLocals || Asked == "all" || Asked == "non-leaf");
  F.addFnAttr("frame-pointer", Keep ? "all" : "none");
  // Locals sit at fixed %rbp offsets only in frames LLVM does not realign:
  // over-aligned locals are pinned, and AVX spills use unaligned moves. A
  // frame whose map describes no locals may be realigned: a vector argument
  // aligned to 32 or 64 bytes that a call passes in memory (a function
  // compiled for AVX by a target attribute) is stored there with aligned
  // moves (test/lit/e2e/vector_args_wide.c).
  if (HasLocals)
    F.addFnAttr("no-realign-stack");
  F.setUWTableKind(UWTableKind::Async);
  // Prefix data sits right before the entry; keep the entry aligned.
  if (!F.getAlign() || F.getAlign()->value() < 16)
    F.setAlignment(Align(16));
  return WantsOwnCheck;
}

// Whether F, which makes calls, may go without the own check: every call
// LLVM sees is a direct call of a function in Checked (which has the check
// and binds to the definition here, or to another object's copy of the
// same dispatch stub: no interposition), no instruction may become a call
// of something else (nor may a stack protector's failure), and no local
// is dynamic (a variable alloca is no part of the frame the probe sees).
// Small locals only: the frame must stay under the probe size F then gets
// (COPYSTACK_ELIDED_PROBE), or the probe's call costs more than the check
// it replaces; spills are not known here, the locals' bytes are the
// estimate.
static bool mayGoUnchecked(const Function &F,
                           const SmallPtrSetImpl<const Function *> &Checked) {
  if (hasEntryOrExitHooks(F) || F.hasFnAttribute(names::DispatchStubAttr) ||
      F.hasFnAttribute(names::GeneratedAttr) || F.hasPrologueData() ||
      F.callsFunctionThatReturnsTwice() ||
      F.hasFnAttribute(Attribute::StackProtect) ||
      F.hasFnAttribute(Attribute::StackProtectStrong) ||
      F.hasFnAttribute(Attribute::StackProtectReq))
    return false;
  if (localBytesAbove(F, COPYSTACK_ELIDED_LOCALS))
    return false;
  const DataLayout &DL = F.getDataLayout();
  // A vector wider than 16 bytes may be spilled to a slot the prologue
  // aligns the frame for, beyond the size the probe compares.
  auto WideVector = [&](const Type *T) {
    return T->isVectorTy() && DL.getTypeSizeInBits(const_cast<Type *>(T))
                                      .getKnownMinValue() > 128;
  };
  for (const BasicBlock &BB : F)
    for (const Instruction &I : BB) {
      if (hasValueOfType(I, WideVector))
        return false;
      if (isa<AllocaInst>(I))
        continue; // counted above
      const auto *CB = dyn_cast<CallBase>(&I);
      if (!CB) {
        if (mayBecomeCall(I))
          return false;
        continue;
      }
      if (CB->isInlineAsm() || CB->hasMetadata(names::LeafPollMD))
        continue;
      const Function *Callee = CB->getCalledFunction();
      if (Callee && Callee->isIntrinsic()) {
        // The frame map's llvm.localescape is no call; nor is a memset or
        // memcpy of a few constant bytes (the map's zeroing of a local).
        Intrinsic::ID ID = Callee->getIntrinsicID();
        if (const auto *MI = dyn_cast<MemIntrinsic>(CB)) {
          const auto *Len = dyn_cast<ConstantInt>(MI->getLength());
          if (!Len || Len->getZExtValue() > COPYSTACK_ELIDED_LOCALS)
            return false;
        } else if (ID != Intrinsic::localescape && !neverACall(ID)) {
          return false;
        }
        continue;
      }
      // A dispatch stub is weak, one per program of the same code: each
      // checks at its entry.
      if (!Callee || Callee == &F || !Checked.count(Callee) ||
          !(Callee->isDSOLocal() || Callee->hasLocalLinkage()) ||
          (Callee->isInterposable() &&
           !Callee->hasFnAttribute(names::DispatchStubAttr)) ||
          isa<CallBrInst>(CB) ||
          CB->getFunctionType() != Callee->getFunctionType())
        return false;
    }
  return true;
}

void placeOwnChecks(ArrayRef<Function *> Wanting) {
  // The guard band's budget allows, below a stack pointer a check let
  // through, one checked function's frame and one unchecked one's before
  // the next check (docs/abi.md, "The guard band's budget"). A function
  // all of whose calls go to functions that check at their entry may be
  // that unchecked frame when its frame is small (COPYSTACK_ELIDED_FRAME,
  // the probe beyond it) and none of its callees is unchecked too:
  // chosen greedily in the module's order, each choice keeping its
  // callees checked. Such a function is noinline, as a checked one: LTO,
  // after this pass, would otherwise put its calls in a leaf's frame.
  SmallPtrSet<const Function *, 32> Checked(Wanting.begin(), Wanting.end());
  SmallPtrSet<const Function *, 32> Elided, MustCheck;
  // A variadic shim is an unchecked frame already: the body it calls
  // checks (docs/abi.md).
  for (const Function *F : Wanting)
    for (const User *U : F->users())
      if (const auto *CB = dyn_cast<CallBase>(U))
        if (CB->getCalledFunction() == F &&
            CB->getFunction()->hasFnAttribute(names::VarargShimAttr))
          MustCheck.insert(F);
  // Leaving a check out relies on LLVM's probe for the frame that then
  // goes unchecked (target/Target.h, probesLargeFrames).
  if (ElideChecks && !Wanting.empty() &&
      Target::of(*Wanting.front()->getParent()).probesLargeFrames())
    for (Function *F : Wanting) {
      if (MustCheck.count(F) || !mayGoUnchecked(*F, Checked))
        continue;
      SmallPtrSet<const Function *, 8> Callees;
      for (const BasicBlock &BB : *F)
        for (const Instruction &I : BB)
          if (const auto *CB = dyn_cast<CallBase>(&I))
            if (const Function *G = CB->getCalledFunction())
              Callees.insert(G);
      if (llvm::any_of(Callees,
                       [&](const Function *G) { return Elided.count(G); }))
        continue;
      Elided.insert(F);
      MustCheck.insert(Callees.begin(), Callees.end());
    }
  for (Function *F : Wanting) {
    if (!Elided.count(F)) {
      insertOwnCheck(*F);
      continue;
    }
    ++NumElidedChecks;
    F->addFnAttr("stack-probe-size", std::to_string(COPYSTACK_ELIDED_PROBE));
    F->removeFnAttr(Attribute::AlwaysInline);
    F->addFnAttr(Attribute::NoInline);
  }
}

// The first call through a lazily bound PLT entry runs the dynamic linker's
// resolver on the caller's stack, with an XSAVE area far larger than the
// guard band. Bind every callee of instrumented code at load time instead:
// calls through the GOT (what -fno-plt does), libcalls the backend emits
// included. That covers definitions a shared library's own code calls
// through its PLT because they may be interposed.
void bindEagerly(Module &M) {
  for (Function &F : M)
    if (!F.isIntrinsic() && !F.isDSOLocal() && !F.hasLocalLinkage())
      F.addFnAttr(Attribute::NonLazyBind);
  M.setRtLibUseGOT();
}

// Instrumented code linked without the runtime fails on __copystack_*
// symbols whose names do not say what is missing. Refer to one more, which
// only the runtime defines (abi.h, COPYSTACK_RUNTIME_SYMBOL), so that the
// linker's error names the cure. One word of relocated data per object;
// nothing runs.
void referenceRuntime(Module &M) {
  LLVMContext &C = M.getContext();
  Constant *Runtime =
      M.getOrInsertGlobal(COPYSTACK_RUNTIME_SYMBOL, Type::getInt8Ty(C));
  auto *Ref = new GlobalVariable(M, PointerType::get(C, 0), /*isConstant=*/true,
                                 GlobalValue::InternalLinkage, Runtime,
                                 "__copystack_runtime_reference");
  appendToCompilerUsed(M, {Ref});
}

// __attribute__((annotate("copystack_nosplit"))) keeps a function off
// copyable stacks: clang records it in llvm.global.annotations.
void readAnnotations(Module &M) {
  GlobalVariable *GV = M.getGlobalVariable("llvm.global.annotations");
  if (!GV || !GV->hasInitializer())
    return;
  auto *Array = dyn_cast<ConstantArray>(GV->getInitializer());
  if (!Array)
    return;
  for (Value *Op : Array->operands()) {
    auto *Entry = dyn_cast<ConstantStruct>(Op);
    if (!Entry || Entry->getNumOperands() < 2)
      continue;
    auto *F = dyn_cast<Function>(Entry->getOperand(0)->stripPointerCasts());
    auto *Str =
        dyn_cast<GlobalVariable>(Entry->getOperand(1)->stripPointerCasts());
    if (!F || !Str || !Str->hasInitializer())
      continue;
    auto *Data = dyn_cast<ConstantDataArray>(Str->getInitializer());
    if (Data && Data->isCString() && Data->getAsCString() == "copystack_nosplit")
      F->addFnAttr(names::NoSplitAttr);
  }
}

} // namespace copystack
