//===- FrameMaps.cpp - the per-function frame map and magic prefix -------===//
#include "FrameMaps.h"
#include "ArgLayout.h"
#include "Names.h"
#include "Sanitizers.h"
#include "StackObjects.h"
#include "VaListSlots.h"
#include "VarargShims.h"

#include "copystack/abi.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/TargetParser/Triple.h"

#include <cstddef>

using namespace llvm;

namespace copystack {

// The LLVM types below mirror the C structs of abi.h field by field.
static_assert(sizeof(copystack_object) == 16, "copystack_object layout");
static_assert(offsetof(copystack_object, kind) == 12, "copystack_object.kind");
static_assert(sizeof(copystack_frame_map) == 40, "copystack_frame_map layout");
static_assert(offsetof(copystack_frame_map, name) == 8 &&
                  offsetof(copystack_frame_map, resolve) == 12 &&
                  offsetof(copystack_frame_map, objects) == 16 &&
                  offsetof(copystack_frame_map, bitmaps) == 20 &&
                  offsetof(copystack_frame_map, nobjects) == 24,
              "copystack_frame_map fields");
// emitPrefix's packed { i32, i32, i64, <8 bytes> }.
static_assert(sizeof(copystack_prefix) == COPYSTACK_PREFIX_BYTES &&
                  offsetof(copystack_prefix, map_offset) == 0 &&
                  offsetof(copystack_prefix, version) == 4 &&
                  offsetof(copystack_prefix, magic) == 8 &&
                  offsetof(copystack_prefix, sanitizer) == 16 &&
                  COPYSTACK_MAGIC_OFFSET == COPYSTACK_PREFIX_BYTES - 8,
              "copystack_prefix layout");

namespace {

struct Object {
  int64_t Offset = 0;   // argument objects only; escaped ones are resolved
  uint64_t Size = 0;
  WordLayout Layout;
  uint16_t Flags = 0;
  bool JmpBufRef = false;
  bool VaListRef = false;
};

StructType *objectType(LLVMContext &C) {
  Type *I32 = Type::getInt32Ty(C), *I16 = Type::getInt16Ty(C);
  return StructType::get(C, {I32, I32, I32, I16, I16});
}

// Ten i32: version, flags, four self-relative offsets (name, resolve,
// objects, bitmaps), nobjects, nescaped, gpr_mask, stack_arg_bytes.
enum MapField { kMapName = 2, kMapResolve, kMapObjects, kMapBitmaps };
StructType *mapType(LLVMContext &C) {
  Type *I32 = Type::getInt32Ty(C);
  return StructType::get(C, SmallVector<Type *, 10>(10, I32));
}

class Emitter {
public:
  Emitter(Function &F, FrameMapStats &Stats)
      : F(F), M(*F.getParent()), C(F.getContext()), DL(M.getDataLayout()),
        Stats(Stats) {}

  void run() {
    collectAllocas();
    Stats.Locals = Escaped.size();
    collectArguments();
    collectOutgoing();
    Function *Resolve = emitEscapeAndResolver();
    GlobalVariable *Map = emitMap(Resolve);
    emitPrefix(Map);
  }

private:
  Function &F;
  Module &M;
  LLVMContext &C;
  const DataLayout &DL;
  FrameMapStats &Stats;
  SmallVector<AllocaInst *, 16> Escaped;
  SmallVector<Object, 16> Objects; // escaped first, in Escaped order
  ArgLayout Args;

  void collectAllocas() {
    for (Instruction &I : F.getEntryBlock()) {
      auto *AI = dyn_cast<AllocaInst>(&I);
      if (!AI || !AI->isStaticAlloca())
        continue;
      std::optional<TypeSize> Size = AI->getAllocationSize(DL);
      if (!Size || Size->isScalable() || Size->getFixedValue() == 0)
        continue;
      Object O;
      O.Size = Size->getFixedValue();
      O.Layout = describeStackObject(DL, AI, AI->getAllocatedType(), O.Size);
      O.Flags = COPYSTACK_OBJF_ESCAPED;
      O.JmpBufRef = AI->getMetadata(names::JmpBufMD) != nullptr;
      O.VaListRef = AI->getMetadata(names::VaListRefMD) != nullptr;
      if (AI->getMetadata(names::ShimVaListMD))
        O.Flags |= COPYSTACK_OBJF_REG_SAVE_AREA;
      // Words are read at 8-byte steps from the object's start; a pointer
      // copied into a byte buffer sits at an 8-aligned address only if the
      // buffer itself is 8-aligned.
      if (O.Layout.any() && AI->getAlign().value() < WordSize)
        AI->setAlignment(Align(WordSize));
      Escaped.push_back(AI);
      Objects.push_back(std::move(O));
    }
    for (unsigned I = 0; I < Escaped.size(); ++I)
      zeroStackObject(DL, Escaped[I], Objects[I].Size);
  }

  void collectArguments() {
    Args = computeArgLayout(F);
    for (StackArgObject &SA : Args.StackObjects) {
      Object O;
      O.Offset = 16 + static_cast<int64_t>(SA.Offset);
      O.Size = SA.Size;
      O.Layout = SA.Layout;
      if (SA.ByVal)
        addUseLayout(DL, SA.Arg, SA.Size, O.Layout);
      O.Flags = COPYSTACK_OBJF_ARGUMENT;
      Objects.push_back(std::move(O));
    }
  }

  // Variadic arguments this function passes on the stack: the callee (a
  // shim) cannot describe them, the caller knows their types.
  void collectOutgoing() {
    WordLayout L;
    uint64_t Bytes = 0;
    bool All = false;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB) {
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB || CB->isInlineAsm() || !CB->getFunctionType()->isVarArg())
          continue;
        if (auto *G = CB->getCalledFunction())
          if (G->isIntrinsic())
            continue;
        ArgLayout Call = computeCallLayout(*CB);
        Bytes = std::max(Bytes, Call.StackBytes);
        All |= Call.Conservative;
        for (StackArgObject &SA : Call.StackObjects) {
          SA.Layout.Pointers.resize(wordsFor(SA.Size));
          for (unsigned W : SA.Layout.Pointers.set_bits()) {
            uint64_t Word = SA.Offset / WordSize + W;
            if (Word >= L.Pointers.size())
              L.Pointers.resize(Word + 1);
            L.Pointers.set(Word);
          }
        }
      }
    if (!Bytes || (!All && L.Pointers.none()))
      return;
    Object O;
    O.Offset = 0;
    O.Size = alignTo(Bytes, WordSize);
    O.Layout = L;
    O.Layout.Pointers.resize(wordsFor(O.Size));
    if (All)
      O.Layout.Pointers.set();
    O.Flags = COPYSTACK_OBJF_OUTGOING;
    Objects.push_back(std::move(O));
  }

  // On AArch64, llvm.localrecover's offsets are from the function's local
  // address register (AArch64RegisterInfo::getLocalAddressRegister): the
  // stack pointer after the prologue, which is the stack pointer at every
  // call (the call frames are reserved), unless the function has
  // variable-sized objects; then the frame pointer, or, when the frame is
  // also realigned, a base register the runtime cannot find: refused.
  bool spOffsets() const {
    if (!Triple(M.getTargetTriple()).isAArch64())
      return false;
    bool Dynamic = false, OverAligned = false;
    for (const Instruction &I : instructions(F))
      if (const auto *AI = dyn_cast<AllocaInst>(&I)) {
        Dynamic |= !AI->isStaticAlloca();
        OverAligned |= AI->getAlign().value() > 16;
      }
    if (Dynamic && OverAligned)
      M.getContext().diagnose(DiagnosticInfoUnsupported(
          F,
          "copystack (AArch64): '" + F.getName() +
              "' has both variable-sized locals and locals aligned to more "
              "than 16 bytes, whose offsets LLVM gives from a base register: "
              "not supported yet",
          DiagnosticLocation(F.getSubprogram())));
    return !Dynamic;
  }

  Function *emitEscapeAndResolver() {
    if (Escaped.empty())
      return nullptr;
    // llvm.localescape must be in the entry block, after the allocas.
    BasicBlock &Entry = F.getEntryBlock();
    IRBuilder<> B(&Entry, Entry.getFirstNonPHIOrDbgOrAlloca());
    SmallVector<Value *, 16> EscapedValues(Escaped.begin(), Escaped.end());
    B.CreateCall(Intrinsic::getDeclaration(&M, Intrinsic::localescape),
                 EscapedValues);

    Type *Ptr = PointerType::get(C, 0);
    auto *FT = FunctionType::get(Type::getVoidTy(C), {Ptr}, false);
    Function *R = Function::Create(FT, GlobalValue::InternalLinkage,
                                   F.getName() + ".copystack.resolve", M);
    R->addFnAttr(names::GeneratedAttr);
    R->addFnAttr(Attribute::NoUnwind);
    R->addFnAttr(Attribute::NoInline);
    IRBuilder<> RB(BasicBlock::Create(C, "entry", R));
    Function *Recover =
        Intrinsic::getDeclaration(&M, Intrinsic::localrecover);
    Value *Null = ConstantPointerNull::get(PointerType::get(C, 0));
    for (unsigned I = 0, E = Escaped.size(); I != E; ++I) {
      Value *P = RB.CreateCall(Recover, {&F, Null, RB.getInt32(I)});
      Value *Off = RB.CreatePtrToInt(P, RB.getInt32Ty());
      RB.CreateStore(Off, RB.CreateConstGEP1_32(RB.getInt32Ty(),
                                                R->getArg(0), I));
    }
    RB.CreateRetVoid();
    return R;
  }

  GlobalVariable *emitMap(Function *Resolve) {
    Type *I16 = Type::getInt16Ty(C), *I32 = Type::getInt32Ty(C);
    Type *I64 = Type::getInt64Ty(C);
    SmallVector<Constant *, 16> ObjConsts;
    SmallVector<uint64_t, 16> Bitmaps;
    for (Object &O : Objects) {
      uint16_t Kind;
      uint32_t BitmapIndex = 0;
      BitVector &P = O.Layout.Pointers;
      P.resize(wordsFor(O.Size));
      ++Stats.Objects;
      if (O.JmpBufRef) {
        Kind = COPYSTACK_OBJ_JMPBUF_REF;
        ++Stats.PointerWords;
      } else if (O.VaListRef) {
        Kind = COPYSTACK_OBJ_VALIST_REF;
        ++Stats.PointerWords;
      } else if (P.none()) {
        Kind = COPYSTACK_OBJ_NO_POINTERS;
      } else if (P.all()) {
        Kind = COPYSTACK_OBJ_ALL_WORDS;
        ++Stats.ConservativeObjects;
        Stats.PointerWords += P.size();
      } else {
        Kind = COPYSTACK_OBJ_BITMAP;
        BitmapIndex = Bitmaps.size();
        for (unsigned W = 0; W < P.size(); W += 64) {
          uint64_t Bits = 0;
          for (unsigned B = 0; B < 64 && W + B < P.size(); ++B)
            if (P.test(W + B))
              Bits |= uint64_t(1) << B;
          Bitmaps.push_back(Bits);
        }
        Stats.PointerWords += P.count();
      }
      ObjConsts.push_back(ConstantStruct::get(
          objectType(C),
          {ConstantInt::get(I32, static_cast<uint64_t>(O.Offset)),
           ConstantInt::get(I32, O.Size), ConstantInt::get(I32, BitmapIndex),
           ConstantInt::get(I16, Kind), ConstantInt::get(I16, O.Flags)}));
    }

    std::string Base = F.getName().str() + ".copystack";
    // Everything the map refers to is read-only and referred to by
    // self-relative offsets: no dynamic relocation, nothing written at run
    // time (abi.h).
    GlobalVariable *ObjectsGV = nullptr;
    if (!ObjConsts.empty()) {
      auto *AT = ArrayType::get(objectType(C), ObjConsts.size());
      ObjectsGV = new GlobalVariable(M, AT, /*isConstant=*/true,
                                     GlobalValue::PrivateLinkage,
                                     ConstantArray::get(AT, ObjConsts),
                                     Base + ".objects");
    }
    GlobalVariable *BitmapsGV = nullptr;
    if (!Bitmaps.empty()) {
      auto *AT = ArrayType::get(I64, Bitmaps.size());
      SmallVector<Constant *, 8> Words;
      for (uint64_t W : Bitmaps)
        Words.push_back(ConstantInt::get(I64, W));
      BitmapsGV = new GlobalVariable(M, AT, /*isConstant=*/true,
                                     GlobalValue::PrivateLinkage,
                                     ConstantArray::get(AT, Words),
                                     Base + ".bitmaps");
    }
    Constant *Name = ConstantDataArray::getString(C, F.getName());
    auto *NameGV = new GlobalVariable(M, Name->getType(), /*isConstant=*/true,
                                      GlobalValue::PrivateLinkage, Name,
                                      Base + ".name");
    NameGV->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);

    uint32_t Flags = 0;
    if (Args.Conservative)
      Flags |= COPYSTACK_MAPF_ARGS_CONSERVATIVE;
    if (Args.VectorPointers)
      Flags |= COPYSTACK_MAPF_VECTOR_ARGS;
    if (spOffsets())
      Flags |= COPYSTACK_MAPF_SP_OFFSETS;
    auto *Map = new GlobalVariable(M, mapType(C), /*isConstant=*/true,
                                   GlobalValue::InternalLinkage,
                                   /*Initializer=*/nullptr, Base + ".map");
    Map->setAlignment(Align(4));
    // Target - &Map.Field, as the assembler's ".long target - .".
    auto Rel = [&](GlobalObject *Target, unsigned Field) -> Constant * {
      if (!Target)
        return ConstantInt::get(I32, 0);
      Constant *FieldAddr = ConstantExpr::getInBoundsGetElementPtr(
          mapType(C), Map,
          ArrayRef<Constant *>{ConstantInt::get(I32, 0),
                               ConstantInt::get(I32, Field)});
      return ConstantExpr::getTrunc(
          ConstantExpr::getSub(ConstantExpr::getPtrToInt(Target, I64),
                               ConstantExpr::getPtrToInt(FieldAddr, I64)),
          I32);
    };
    Map->setInitializer(ConstantStruct::get(
        mapType(C),
        {ConstantInt::get(I32, COPYSTACK_ABI_VERSION),
         ConstantInt::get(I32, Flags), Rel(NameGV, kMapName),
         Rel(Resolve, kMapResolve), Rel(ObjectsGV, kMapObjects),
         Rel(BitmapsGV, kMapBitmaps), ConstantInt::get(I32, Objects.size()),
         ConstantInt::get(I32, Escaped.size()),
         ConstantInt::get(I32, Args.GPRPointerMask),
         ConstantInt::get(I32, Args.StackBytes)}));
    // A function in a COMDAT group (an inline function, a template, a
    // dispatch stub) may be one of many copies the linker keeps one of:
    // its map goes with it.
    if (Comdat *CD = F.getComdat()) {
      for (GlobalObject *GO : {static_cast<GlobalObject *>(ObjectsGV),
                               static_cast<GlobalObject *>(BitmapsGV),
                               static_cast<GlobalObject *>(Resolve),
                               static_cast<GlobalObject *>(NameGV),
                               static_cast<GlobalObject *>(Map)})
        if (GO)
          GO->setComdat(CD);
    }
    return Map;
  }

  void emitPrefix(GlobalVariable *Map) {
    Type *I32 = Type::getInt32Ty(C), *I64 = Type::getInt64Ty(C);
    Constant *Rel = ConstantExpr::getTrunc(
        ConstantExpr::getSub(ConstantExpr::getPtrToInt(Map, I64),
                             ConstantExpr::getPtrToInt(&F, I64)),
        I32);
    F.setPrefixData(ConstantStruct::getAnon(
        C,
        {Rel, ConstantInt::get(I32, COPYSTACK_ABI_VERSION),
         ConstantInt::get(I64, COPYSTACK_MAGIC), sanitizerWord(F)},
        /*Packed=*/true));
  }
};

} // namespace

void emitFrameMap(Function &F, FrameMapStats &Stats) {
  Emitter(F, Stats).run();
}

} // namespace copystack
