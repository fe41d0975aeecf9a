//===- Sanitizers.cpp - copystack beside clang's sanitizers ---------------===//
#include "Sanitizers.h"

#include "copystack/abi.h"

#include "llvm/IR/Attributes.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Metadata.h"

using namespace llvm;

namespace copystack {

SanitizerCall classifySanitizerCall(StringRef Name) {
  // The checks ASan and TSan put in every function (__asan_report_store4,
  // __asan_stack_malloc_2, __tsan_read8, __tsan_func_entry...) run on the
  // stack they are called from, as on any thread: the runtime keeps
  // headroom below every task stack for them, ASan's reports included.
  if (Name.starts_with("__asan_") || Name.starts_with("__tsan_") ||
      Name == "__sanitizer_ptr_cmp" || Name == "__sanitizer_ptr_sub")
    return SanitizerCall::InPlace;
  // UBSan's handlers print a report, and UBSan alone gets no headroom:
  // task stacks keep the sizes of a program without it.
  if (Name.starts_with("__ubsan_") || Name.starts_with("__sanitizer_") ||
      Name.starts_with("__lsan_"))
    return SanitizerCall::Foreign;
  return SanitizerCall::None;
}

bool isSanitizerCheck(const CallBase &CB) {
  const auto *F = dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
  if (!F)
    return false;
  StringRef N = F->getName();
  // Not __tsan_acquire/__tsan_release and the mutex annotations: those
  // name synchronization objects by address.
  for (StringRef Prefix :
       {"__ubsan_handle_", "__tsan_read", "__tsan_write", "__tsan_unaligned_",
        "__tsan_volatile_", "__tsan_atomic", "__tsan_vptr_", "__asan_load",
        "__asan_store", "__asan_report_", "__asan_exp_"})
    if (N.starts_with(Prefix))
      return true;
  return false;
}

bool isTsanAccessCheck(const CallBase &CB) {
  const auto *F = dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
  if (!F)
    return false;
  StringRef N = F->getName();
  return N.starts_with("__tsan_read") || N.starts_with("__tsan_write") ||
         N.starts_with("__tsan_unaligned_") || N.starts_with("__tsan_volatile_");
}

bool sanitizerCheckWrites(const CallBase &CB) {
  const auto *F = dyn_cast<Function>(CB.getCalledOperand()->stripPointerCasts());
  if (!F)
    return true;
  StringRef N = F->getName();
  return N.starts_with("__tsan_atomic") && !N.ends_with("_load");
}

void describeSanitizerMemFunction(Function &F) {
  StringRef N = F.getName();
  if (!N.consume_front("__tsan_") && !N.consume_front("__asan_"))
    return;
  bool Copy = N == "memcpy" || N == "memmove";
  if ((!Copy && N != "memset") || F.arg_size() != 3 ||
      !F.getArg(0)->getType()->isPointerTy())
    return;
  F.addParamAttr(0, Attribute::NoCapture);
  if (Copy && F.getArg(1)->getType()->isPointerTy()) {
    F.addParamAttr(1, Attribute::NoCapture);
    F.addParamAttr(1, Attribute::ReadOnly);
  }
}

StringRef whyUnsupportedSanitizer(StringRef Name) {
  if (Name == "memory" || Name == "kernel-memory")
    return "MemorySanitizer shadows every byte of every stack, and copystack "
           "does not move that shadow when it copies a stack";
  if (Name == "hwaddress" || Name == "kernel-hwaddress" ||
      Name == "memtag" || Name == "memtag-stack")
    return "it tags stack memory and the pointers to it, and copystack does "
           "not retag a stack it copies";
  if (Name == "safe-stack")
    return "SafeStack moves locals to a per-thread unsafe stack, which tasks "
           "that move between threads cannot share";
  if (Name == "dataflow")
    return "DataFlowSanitizer labels every byte of every stack, and copystack "
           "does not move the labels when it copies a stack";
  if (Name == "numerical")
    return "NumericalStabilitySanitizer shadows every floating-point value "
           "in memory, stacks included, and copystack does not move that "
           "shadow when it copies a stack";
  if (Name == "shadow-call-stack")
    return "the shadow call stack is one per thread, and tasks move between "
           "threads";
  if (Name == "kernel-address")
    return "it instruments the Linux kernel, which copystack does not run in";
  return "";
}

std::string unsupportedSanitizer(const Module &M) {
  static const struct {
    Attribute::AttrKind Kind;
    const char *Name;
  } ByAttribute[] = {
      {Attribute::SanitizeMemory, "memory"},
      {Attribute::SanitizeHWAddress, "hwaddress"},
      {Attribute::SanitizeMemTag, "memtag"},
      {Attribute::SafeStack, "safe-stack"},
      {Attribute::SanitizeNumericalStability, "numerical"},
      {Attribute::ShadowCallStack, "shadow-call-stack"},
  };
  auto Message = [](StringRef Name) {
    return ("copystack: -fsanitize=" + Name + " is not supported: " +
            whyUnsupportedSanitizer(Name))
        .str();
  };
  for (const Function &F : M)
    for (const auto &A : ByAttribute)
      if (F.hasFnAttribute(A.Kind))
        return Message(A.Name);
  // DataFlowSanitizer marks no function; its instrumentation passes labels
  // through these thread-locals.
  if (M.getNamedValue("__dfsan_arg_tls") || M.getNamedValue("__dfsan_retval_tls"))
    return Message("dataflow");
  return "";
}

// x86 KCFI never embeds these two values, whose bytes would read as ENDBR64
// or ENDBR32 (X86AsmPrinter.cpp's MaskKCFIType, which the checks at the call
// sites apply too).
static uint32_t maskKCFIType(uint32_t Value) {
  for (uint32_t Invalid : {0xFA1E0FF3u, 0xFB1E0FF3u})
    if (Value == Invalid || Value == 0u - Invalid)
      return Value + 1;
  return Value;
}

Constant *sanitizerWord(Function &F) {
  LLVMContext &C = F.getContext();
  Type *I8 = Type::getInt8Ty(C), *I32 = Type::getInt32Ty(C);
  // -fsanitize=function: the callers' check reads the signature at entry - 8
  // and the type hash at entry - 4 (AsmPrinter emits both from this
  // metadata, after the prefix data).
  if (MDNode *MD = F.getMetadata(LLVMContext::MD_func_sanitize)) {
    auto *Sig = mdconst::extract<Constant>(MD->getOperand(0));
    auto *Hash = mdconst::extract<Constant>(MD->getOperand(1));
    F.setMetadata(LLVMContext::MD_func_sanitize, nullptr);
    return ConstantStruct::getAnon(C, {Sig, Hash}, /*Packed=*/true);
  }
  // -fsanitize=kcfi: x86 callers compare the 4 bytes at entry - 4 with the
  // type hash; the backend would emit them as the immediate of a
  // "movl $hash, %eax" ending at the entry, and so does this.
  if (MDNode *MD = F.getMetadata(LLVMContext::MD_kcfi_type)) {
    auto *Hash = mdconst::extract<ConstantInt>(MD->getOperand(0));
    F.setMetadata(LLVMContext::MD_kcfi_type, nullptr);
    uint32_t Masked = maskKCFIType(static_cast<uint32_t>(Hash->getZExtValue()));
    Constant *Int3 = ConstantInt::get(I8, 0xcc);
    return ConstantStruct::getAnon(
        C,
        {ConstantArray::get(ArrayType::get(I8, 3), {Int3, Int3, Int3}),
         ConstantInt::get(I8, 0xb8), ConstantInt::get(I32, Masked)},
        /*Packed=*/true);
  }
  return ConstantInt::get(Type::getInt64Ty(C), COPYSTACK_PREFIX_FILLER);
}

} // namespace copystack
