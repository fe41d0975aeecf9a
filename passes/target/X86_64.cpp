//===- X86_64.cpp - the pass's x86-64 machine code -----------------------===//
#include "target/X86_64.h"
#include "Names.h"

#include "copystack/abi.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"

#include <string>

using namespace llvm;

namespace copystack {

// Clang gives every x86 asm statement the clobbers ~{dirflag},~{fpsr} and
// ~{flags}; asm built in IR has only what its constraints say. Without
// ~{flags}, the backend takes the asm to keep EFLAGS and may test a
// compare's flags after it: a `subq` or `addq` in the asm then decides the
// branch instead (a silent wrong path: test/lit/e2e/libc_in_place_
// interposed.c). Every inline asm below is built here.
static InlineAsm *x86Asm(FunctionType *Ty, const Twine &Text,
                         StringRef Constraints) {
  std::string C = Constraints.str();
  if (!C.empty())
    C += ",";
  C += "~{dirflag},~{fpsr},~{flags}";
  return InlineAsm::get(Ty, Text.str(), C, /*hasSideEffects=*/true);
}

static FunctionType *voidFn(LLVMContext &C) {
  return FunctionType::get(Type::getVoidTy(C), false);
}

// The asm keeps every register __morestack keeps (the general ones, xmm0-7
// whole: morestack.S keeps their upper bits too); the runtime's own code
// may use the other vector registers and the AVX-512 masks, which LLVM
// must then not hold values in across the check.
InlineAsm *X86_64Target::ownCheck(Function &F, uint64_t StackArgBytes) const {
  static_assert(COPYSTACK_TCB_LIMIT == 0x70 && COPYSTACK_OWN_CHECK == ~0ull,
                "the check's instructions below");
  std::string Clobbers = "~{r10},~{r11}";
  unsigned Vectors = 16;
  const bool Avx512 =
      F.getFnAttribute("target-features").getValueAsString().contains(
          "+avx512f");
  if (Avx512)
    Vectors = 32;
  for (unsigned R = 8; R < Vectors; ++R)
    Clobbers += ",~{xmm" + std::to_string(R) + "}";
  // The runtime's AVX-512 code may use the mask registers.
  for (unsigned R = 0; Avx512 && R < 8; ++R)
    Clobbers += ",~{k" + std::to_string(R) + "}";
  // And the x87 register stack must be empty, as at a call: a task
  // preempted at the check lets others run on the thread, whose x87 code
  // would find the value there and push over it (a long double argument
  // loaded before the check made a dispatch stub's result wrong).
  Clobbers += ",~{st}";
  for (unsigned R = 1; R < 8; ++R)
    Clobbers += ",~{st(" + std::to_string(R) + ")}";
  return x86Asm(voidFn(F.getContext()),
                "cmpq %fs:0x70, %rsp\n\tja 1f\n\tmovq $$-1, %r10\n\tmovl $$" +
                    Twine(StackArgBytes) +
                    ", %r11d\n\tcallq " COPYSTACK_SYM_MORESTACK
                    "\n\tretq\n1:",
                Clobbers);
}

// rsp - ROOM >= limit, unsigned (LibcInPlace.cpp says why). The call pushes
// below the stack pointer: no red zone. It clobbers %r11 and the flags
// only, and goes through the GOT, never through a lazily bound PLT entry
// (Attributes.h, bindEagerly).
InlineAsm *X86_64Target::inPlaceRoomTest(LLVMContext &C) const {
  static_assert(COPYSTACK_TCB_LIMIT == 0x70, "the room test below");
  return x86Asm(voidFn(C),
                "leaq -" + Twine(COPYSTACK_IN_PLACE_ROOM) +
                    "(%rsp), %r11\n\tcmpq %fs:0x70, %r11\n\tjae ${0:l}\n\t"
                    "call *" +
                    Twine(names::NoRoom) + "@GOTPCREL(%rip)",
                "!i,~{r11}");
}

// The stub keeps every general register but %r11, and the function has no
// value in the others (LoopPolls.cpp, hasVectorValues); through the GOT.
InlineAsm *X86_64Target::leafPoll(LLVMContext &C) const {
  static_assert(COPYSTACK_TCB_LIMIT == 0x70 && COPYSTACK_PREEMPT_LIMIT == -2,
                "the poll's instructions below");
  return x86Asm(voidFn(C),
                "cmpq $$-2, %fs:0x70\n\tjne 1f\n\tcall *" +
                    Twine(names::Preempt) + "@GOTPCREL(%rip)\n1:",
                "~{r11},~{memory},~{xmm0},~{xmm1},~{xmm2},~{xmm3},~{xmm4},"
                "~{xmm5},~{xmm6},~{xmm7},~{xmm8},~{xmm9},~{xmm10},~{xmm11},"
                "~{xmm12},~{xmm13},~{xmm14},~{xmm15}");
}

// One instruction with its branch. A volatile load of the word, which is
// what plain IR can say, is a load and a compare (the backend folds no
// volatile load into the compare), and a non-volatile one could be
// hoisted out of the loop.
InlineAsm *X86_64Target::pollBranch(LLVMContext &C) const {
  static_assert(COPYSTACK_TCB_LIMIT == 0x70 && COPYSTACK_PREEMPT_LIMIT == -2,
                "the poll's instruction below");
  return x86Asm(voidFn(C), "cmpq $$-2, %fs:0x70\n\tje ${0:l}", "!i");
}

// The variable's offset from the thread pointer, as a pointer in the %fs
// address space (X86's 257): each access of a field is one instruction
// relative to the thread it runs on (llvm.threadlocal.address would be
// merged across calls).
Value *X86_64Target::threadBlock(IRBuilder<> &B) const {
  LLVMContext &C = B.getContext();
  InlineAsm *IA = x86Asm(FunctionType::get(Type::getInt64Ty(C), false),
                         "movq " COPYSTACK_THREAD_SYMBOL "@gottpoff(%rip), $0",
                         "=r");
  return B.CreateIntToPtr(B.CreateCall(IA, {}, "cs.thread.tpoff"),
                          PointerType::get(C, 257), "cs.thread");
}

} // namespace copystack
