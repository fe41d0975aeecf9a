"""scripts/instruction_mix.py: where an instrumented build's extra
instructions go, for scripts/bench-overhead.

The plain and the copystack build of a program run the same input under
callgrind (--dump-instr=yes for the copystack build). Each instruction the
copystack binary executed is then classified by the shapes the pass and
LLVM emit (docs/abi.md), read from `objdump -d`:

  prologue checks   cmp %fs:0x70,%rsp; jbe (frames under 256 bytes), or
                    lea -N(%rsp),%r11; cmp %fs:0x70,%r11; jbe (larger ones);
                    under the own prologue cmp %fs:0x70,%rsp; ja, and for
                    a big frame mov $N,%eax; call __copystack_stack_probe
                    and the probe's own instructions
  loop polls        cmpq $-2,%fs:0x70 and its branch
  prefix tests      at a call through a pointer: movabs of the prefix magic,
                    cmp of it with the callee's prefix word, and the branch
  in-place tests    before a libc call in place: the test of the group's
                    flag (lea, testb, je) and of the room (lea -0x1000(%rsp),
                    cmp %fs:0x70, jae)
  runtime           instructions in the runtime's own functions (those
                    libcopystack.a defines): trampolines, dispatch stubs
                    into libc, in-place helpers, growth

and, outside the binary, the instructions the shared libraries (libc,
libstdc++, the dynamic linker) ran beyond the plain build's. What is left is
the program's own code running more instructions than plain for no single
inserted shape: frame pointers, callee-saved registers, the pinned locals'
blocks, code layout.
"""
import bisect
import collections
import os
import re
import subprocess

MAGIC = "$0x6b6174737970636b"  # COPYSTACK_PREFIX_MAGIC as objdump prints it
# The own prologue's probe of a big frame (copystack/abi.h), by both names.
PROBES = ("__copystack_stack_probe", "__copystack_probe")
CATEGORIES = ["prologue checks", "loop polls", "prefix tests",
              "in-place tests", "runtime"]


def parse_callgrind(path):
    """(per-object totals, {object: Counter(address -> Ir)}) of a callgrind
    output file written with --dump-instr=yes (positions: instr line), or
    without it (positions: line; no addresses)."""
    names = {}
    totals = collections.Counter()
    by_addr = collections.defaultdict(collections.Counter)
    obj = None
    instr = False
    last = 0
    after_calls = False
    with open(path) as f:
        for line in f:
            c = line[:1]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                if instr:
                    p = parts[0]
                    if p == "*":
                        a = last
                    elif p[0] in "+-":
                        d = int(p[1:], 0)
                        a = last + d if p[0] == "+" else last - d
                    else:
                        a = int(p, 0)
                    last = a
                if after_calls:  # a call's inclusive cost: not this line's
                    after_calls = False
                    continue
                col = 2 if instr else 1  # after the position columns
                cost = int(parts[col]) if len(parts) > col else 0
                totals[obj] += cost
                if instr:
                    by_addr[obj][a] += cost
            elif line.startswith("calls="):
                after_calls = True
            elif line.startswith(("ob=", "cob=")):
                m = re.match(r"c?ob=\((\d+)\)\s*(.*)", line)
                if m:
                    if m.group(2).strip():
                        names[m.group(1)] = m.group(2).strip()
                    if line.startswith("ob="):
                        obj = names.get(m.group(1))
                elif line.startswith("ob="):
                    obj = line[3:].strip()
            elif line.startswith("positions:"):
                instr = "instr" in line.split()
    return totals, by_addr


def disassemble(binary):
    """[(address, function, instruction text)] in address order."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary],
                         check=True, capture_output=True, text=True).stdout
    res = []
    func = None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            func = m.group(1)
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S.*)$", line)
        if m:
            res.append((int(m.group(1), 16), func, m.group(2).strip()))
    return res


def runtime_ranges(binary, runtime_archive):
    """Address ranges of the functions of binary that the runtime archive
    defines (by name; a program function's dispatch-stub alias is not one)."""
    defined = set()
    out = subprocess.run(["nm", "--defined-only", runtime_archive],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in "tTwW":
            defined.add(p[2])
    ranges = []
    out = subprocess.run(["nm", "-S", "--defined-only", binary],
                         check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW" and p[3] in defined:
            lo = int(p[0], 16)
            ranges.append((lo, lo + int(p[1], 16)))
    return ranges


def classify(insns, ranges):
    """{address: category} of the instructions that belong to an inserted
    shape or to the runtime."""
    cat = {}
    starts = sorted(ranges)
    los = [r[0] for r in starts]
    magic_regs = collections.defaultdict(set)  # function -> registers
    for a, fn, text in insns:
        if text.startswith("movabs") and MAGIC in text:
            magic_regs[fn].add(text.split(",")[-1])
    for i, (a, fn, text) in enumerate(insns):
        j = bisect.bisect_right(los, a) - 1
        if fn in PROBES:
            cat[a] = "prologue checks"
            continue
        if j >= 0 and starts[j][0] <= a < starts[j][1]:
            cat[a] = "runtime"
            continue
        nxt = insns[i + 1][0] if i + 1 < len(insns) else None
        prev = insns[i - 1][2] if i > 0 else ""
        if "%fs:0x70,%rsp" in text and text.startswith("cmp"):
            cat[a] = "prologue checks"
            if nxt is not None:
                cat[nxt] = "prologue checks"
        elif "$0xfffffffffffffffe,%fs:0x70" in text:
            cat[a] = "loop polls"
            if nxt is not None:
                cat[nxt] = "loop polls"
        elif text.startswith("cmp") and "%fs:0x70,%r11" in text:
            # The room test branches to its fast path on jae; LLVM's check
            # of a large frame to __morestack on jbe.
            k = ("in-place tests" if insns[i + 1][2].startswith("jae")
                 else "prologue checks")
            for b in (insns[i - 1][0], a, nxt):
                cat[b] = k
        elif text.startswith("call") and any(f"<{p}>" in text
                                             for p in PROBES):
            cat[a] = "prologue checks"
            if prev.startswith("mov") and prev.endswith(",%eax"):
                cat[insns[i - 1][0]] = "prologue checks"
        elif text.startswith("movabs") and MAGIC in text:
            cat[a] = "prefix tests"
        elif (text.startswith("cmp") and "-0x10(%" in text and
              text.split()[1].split(",")[0] in magic_regs.get(fn, ())):
            cat[a] = "prefix tests"
            if nxt is not None:
                cat[nxt] = "prefix tests"
        elif "<__copystack_libc_in_place>" in text and text.startswith("lea"):
            for b in insns[i:i + 3]:
                cat[b[0]] = "in-place tests"
    return cat


def breakdown(plain_out, cs_out, plain_binary, cs_binary, runtime_archive):
    """The copystack build's instructions beyond the plain build's, by
    category: {category: instructions}, with "libraries" (shared objects
    other than the binary) and "program code" (the rest)."""
    pt, _ = parse_callgrind(plain_out)
    ct, by_addr = parse_callgrind(cs_out)
    own = by_addr.get(os.path.realpath(cs_binary)) or by_addr.get(cs_binary)
    if own is None:
        raise RuntimeError("no per-instruction counts for %s in %s" %
                           (cs_binary, cs_out))
    cat = classify(disassemble(cs_binary),
                   runtime_ranges(cs_binary, runtime_archive))
    res = collections.Counter({k: 0 for k in CATEGORIES})
    for a, n in own.items():
        k = cat.get(a)
        if k:
            res[k] += n
    plain_own = pt.get(os.path.realpath(plain_binary), pt.get(plain_binary, 0))
    cs_own = sum(own.values())
    res["libraries"] = ((sum(ct.values()) - cs_own) -
                        (sum(pt.values()) - plain_own))
    res["program code"] = cs_own - plain_own - sum(res[k] for k in CATEGORIES)
    return dict(res), sum(pt.values()), sum(ct.values())


def main():
    import argparse
    ap = argparse.ArgumentParser(
        description="Lists, per function of an instrumented binary, the "
        "instructions of each inserted shape (static counts), or, with "
        "--profiles, the breakdown of two callgrind runs.")
    ap.add_argument("binary", help="the copystack build")
    ap.add_argument("--runtime", required=True,
                    help="libcopystack.a, whose functions count as runtime")
    ap.add_argument("--profiles", nargs=3,
                    metavar=("PLAIN_BINARY", "PLAIN_OUT", "COPYSTACK_OUT"),
                    help="callgrind outputs of the plain build and of this "
                    "one (--dump-instr=yes)")
    a = ap.parse_args()
    if a.profiles:
        mix, plain, _ = breakdown(a.profiles[1], a.profiles[2],
                                  a.profiles[0], a.binary, a.runtime)
        for k in CATEGORIES + ["libraries", "program code"]:
            print("%-16s %14d %8.2f%%" % (k, mix[k], 100.0 * mix[k] / plain))
        return
    insns = disassemble(a.binary)
    cat = classify(insns, runtime_ranges(a.binary, a.runtime))
    per = collections.defaultdict(collections.Counter)
    for addr, fn, _ in insns:
        k = cat.get(addr)
        if k and k != "runtime":
            per[fn][k] += 1
    for fn in sorted(per):
        print("%s: %s" % (fn, ", ".join(
            "%s %d" % (k, per[fn][k]) for k in CATEGORIES if per[fn][k])))


if __name__ == "__main__":
    main()
