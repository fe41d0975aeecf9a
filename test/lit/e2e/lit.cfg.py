# The end-to-end suite: C and C++ programs built with copystack-cc/-c++,
# run as tasks on 2 KiB stacks. One variant per optimisation level and mode:
#
#   normal   no setting: the prologue's real compare against the 928-byte
#            guard decides when the stack moves
#   verify   COPYSTACK_VERIFY=1: every check traps, old stacks are fenced,
#            so any word left pointing into an old stack faults by name
#   stress   COPYSTACK_STRESS=1 and COPYSTACK_VERIFY=1: the stack moves at
#            every instrumented call, and verify mode watches; with
#            COPYSTACK_VERIFY_REUSE=16, the stacks a task leaves are
#            poisoned and their addresses reused after 16 more instead of
#            fenced (the fences, a page-table update and a page fault per
#            move, made this variant 500 times slower than stress alone on
#            a virtual machine; the verify variant fences every one)
#   ubsan    normal mode, every program built with -fsanitize=undefined
#            and no recovery: undefined behaviour aborts the test
#   tsan     normal mode, every program built with -fsanitize=thread: a
#            report fails the test (halt_on_error)
#
# A variant may also hold the code chosen by the CPU to a lower level than
# the machine has (cs_cpu: avx2, baseline): the runtime's stack copy
# (COPYSTACK_CPU) and glibc's string functions (GLIBC_TUNABLES, which
# also change how much stack the libc calls made in place use). On a CPU
# without that level the variant is unsupported.
#
# The san_* programs choose their sanitizers themselves; they run in the
# six plain variants and are left out of the ubsan and tsan ones.
#
#   %cc, %cxx   the drivers, with this variant's -O level
#   %run        the environment of this variant
#   %cs_version copystack's version (project() in CMakeLists.txt)
#   %host_cc    plain clang, for host programs built without copystack
#   %cs_lib     the directory of libcopystack.so
#   %cs_bin     the directory of the drivers
#   %exits N    runs the rest of the line and fails unless its exit status
#               is N (fatal errors: 2)
#   REQUIRES: normal / verify / stress / O0 / O2 select variants; gdb and
#               clang-14 need those programs; x86_64 / aarch64 the
#               architecture the programs are built for (the aarch64
#               variants: docs/porting.md).
import os
import signal
import lit.formats

# A shell without job control starts background commands with SIGQUIT
# ignored, and the runtime then leaves SIGQUIT alone (docs/debugging.md):
# the programs that test the dump on SIGQUIT inherit its default here,
# wherever the suite was started from.
signal.signal(signal.SIGQUIT, signal.SIG_DFL)

config.name = f"copystack-e2e-{config.cs_opt}-{config.cs_mode}"
# Every variant builds with the own prologue (the pass's check and LLVM's
# stack probe, copystack/abi.h COPYSTACK_OWN_CHECK: the default) but those
# of cs_cpu "llvm", which keep LLVM's split-stack prologue
# (--copystack-prologue=llvm), on the CPU's own code. Every variant but
# TSan's is preempted by the signal alone, with no loop polls (the
# drivers' default: sched/preempt_signal.h); code built with TSan polls.
prologue = ""
aarch64 = config.cs_cpu == "aarch64"
if config.cs_mode != "tsan" and not aarch64:
    config.available_features.add("preempt-signal")


def aarch64_emulator():
    """The interpreter of the enabled binfmt_misc entry for AArch64 Linux
    programs (scripts/qemu-binfmt registers qemu-aarch64; the dynamic
    linker and libraries come from Debian's cross sysroot through
    QEMU_LD_PREFIX), or None."""
    magic = "7f454c460201010000000000000000000200b700"
    top = "/proc/sys/fs/binfmt_misc"
    try:
        names = os.listdir(top)
    except OSError:
        return None
    for name in names:
        try:
            with open(os.path.join(top, name)) as f:
                text = f.read()
        except OSError:
            continue
        if text.startswith("enabled") and f"magic {magic}" in text:
            for line in text.splitlines():
                if line.startswith("interpreter "):
                    return line.split(" ", 1)[1]
    return None


def aarch64_runs():
    """Whether this machine runs AArch64 Linux programs: natively, or
    through a binfmt_misc entry for them."""
    return os.uname().machine == "aarch64" or aarch64_emulator() is not None


target = ""
# The host build's lib: the plugin, whichever runtime the programs link.
host_lib = config.cs_lib
if aarch64:
    # The AArch64 port (docs/porting.md): the drivers build for it with
    # the cross-built runtime; gdb through qemu's gdb stub (below), no
    # valgrind for its programs, no x86 vector units. Its preemption by
    # signal runs the programs the list names (the preempt-signal
    # feature's tests are x86-64's).
    config.name += "-aarch64"
    target = " --target=aarch64-linux-gnu"
    config.available_features.add("aarch64")
    config.available_features.add("own-prologue")
    config.cs_lib = config.cs_aarch64_lib
    if not (os.path.exists(os.path.join(config.cs_lib, "libcopystack.a"))
            and aarch64_runs()):
        config.unsupported = True
    config.environment["QEMU_LD_PREFIX"] = "/usr/aarch64-linux-gnu"
    if os.uname().machine != "aarch64":
        config.available_features.add("qemu")
        # qemu-user keeps state for every page of the guest's mappings,
        # and verify mode reserves a 1 TiB arena it fences stacks across:
        # a stress + verify run of frame_near_stack_bottom.c took 7 GB and
        # 43 s with it, 0.9 GB and 6 s with 16 GiB (still millions of
        # fresh addresses before one comes back).
        config.environment["COPYSTACK_VERIFY_ARENA_GIB"] = "16"
else:
    config.available_features.add("x86_64")


def aarch64_sanitizer_dir():
    """The resource directory whose lib/linux has the AArch64 sanitizer
    runtimes: clang's own on an AArch64 machine (libclang-rt-19-dev), else
    the one scripts/cross-sanitizers made from the unpacked arm64 package
    (the cross sysroot has none); None if neither has them."""
    if os.uname().machine == "aarch64":
        import subprocess
        top = subprocess.run(
            [os.path.join(config.cs_llvm_bin, "clang"), "-print-resource-dir"],
            capture_output=True, text=True).stdout.strip()
    else:
        cache = os.environ.get("COPYSTACK_CACHE") or os.path.join(
            os.environ.get("XDG_CACHE_HOME")
            or os.path.join(os.environ.get("HOME", "/tmp"), ".cache"),
            "copystack")
        top = os.path.join(cache, "clang-rt-arm64", "resource-dir")
    lib = os.path.join(top, "lib", "linux", "libclang_rt.asan-aarch64.a")
    return top if os.path.exists(lib) else None


# The sanitizers the programs can be built and run with (the san_*
# programs): every one on x86-64. For AArch64, AddressSanitizer and UBSan
# when the runtimes are there (aarch64_sanitizer_dir); ThreadSanitizer and
# LeakSanitizer not under qemu-user, whose 47-bit address space TSan does
# not know ("unsupported VMA range") and under which LSan cannot stop the
# threads (it needs ptrace): a run there sets detect_leaks=0.
san_resource_dir = None
if not aarch64:
    for name in ("address", "undefined", "thread", "leak"):
        config.available_features.add("san-" + name)
else:
    san_resource_dir = aarch64_sanitizer_dir()
    if san_resource_dir:
        config.available_features.add("san-address")
        config.available_features.add("san-undefined")
        if os.uname().machine == "aarch64":
            config.available_features.add("san-thread")
            config.available_features.add("san-leak")
        else:
            target += f" -resource-dir={san_resource_dir}"
            config.environment["ASAN_OPTIONS"] = "detect_leaks=0"
if config.cs_cpu == "llvm":
    config.name += "-llvm"
    prologue = " --copystack-prologue=llvm"
    config.available_features.add("llvm-prologue")
else:
    config.available_features.add("own-prologue")
if config.cs_cpu not in ("auto", "llvm", "aarch64"):
    config.name += "-" + config.cs_cpu
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f
                      if line.startswith("flags")), [])
    # What the CPU has beyond the level asked for; only then does holding
    # the code to it run anything the plain variants did not.
    above = {"avx2": ["avx512f"], "baseline": ["avx2"]}[config.cs_cpu]
    if not any(flag in flags for flag in above):
        config.unsupported = True
    avx512 = ["AVX512F", "AVX512VL", "AVX512BW", "AVX512DQ", "AVX512CD"]
    avx = ["AVX2", "AVX", "FMA", "BMI1", "BMI2", "ERMS", "FSRM", "SSE4_1",
           "SSE4_2", "SSSE3"]
    off = avx512 + (avx if config.cs_cpu == "baseline" else [])
    config.environment["COPYSTACK_CPU"] = config.cs_cpu
    config.environment["GLIBC_TUNABLES"] = (
        "glibc.cpu.hwcaps=" + ",".join("-" + f for f in off))
# CI (scripts/test) runs every test at -O0 and -O2 in normal, verify and
# stress mode; at -O2 under UBSan and under TSan, with the CPU-selected
# code held to AVX2 and to the baseline, and with LLVM's prologue in
# stress mode (every check moves the stack, verify mode watching); and the
# AArch64 port's programs under qemu at -O2 in normal mode and at -O0 in
# stress mode. COPYSTACK_E2E_FULL=1 adds the variants below: -O0 under
# UBSan, LLVM's prologue at -O0 in stress mode and at -O2 in normal mode,
# AArch64 at -O0 in normal mode and at -O2 in stress mode.
full = os.environ.get("COPYSTACK_E2E_FULL", "0") == "1"
full_only = {("O0", "ubsan", "auto"), ("O0", "stress", "llvm"),
             ("O2", "normal", "llvm"), ("O0", "normal", "aarch64"),
             ("O2", "stress", "aarch64")}
if (config.cs_opt, config.cs_mode, config.cs_cpu) in full_only and not full:
    config.unsupported = True
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".c", ".cpp"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.cs_exec_root
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]


def cpu_held_share(cpu):
    """The tests a CPU-held variant leaves out in CI: the two variants run
    complementary halves of the suite (split by a hash of the file's name),
    so every test runs below the CPU's best level once and each level's
    code (the stack copy, glibc's string functions) runs under half the
    programs; both run every test that names a vector feature or drives a
    debugger, where the CPU level is the subject. COPYSTACK_E2E_FULL=1
    runs the whole suite in both."""
    import re
    import zlib
    keep = re.compile(r"AVX|avx|COPYSTACK_CPU|xsave|gdb|lldb")
    half = {"avx2": 0, "baseline": 1}[cpu]
    left = []
    for name in sorted(os.listdir(config.test_source_root)):
        if not name.endswith((".c", ".cpp")):
            continue
        if zlib.crc32(name.encode()) % 2 == half:
            continue
        with open(os.path.join(config.test_source_root, name),
                  errors="replace") as f:
            if keep.search(f.read()):
                continue
        left.append(name)
    return left


if config.cs_cpu in ("avx2", "baseline") and not full:
    config.excludes += cpu_held_share(config.cs_cpu)


def aarch64_left_out():
    """The programs the AArch64 port does not run yet: all but those
    Inputs/aarch64-tests.txt lists (a name a line, # comments), the
    programs it was brought up on and passes; in the stress variants, all
    but those marked "stress" there (COPYSTACK_E2E_FULL=1: every listed
    one); under qemu, all but those marked "native". docs/porting.md says
    what the others need."""
    listed = set()
    qemu = "qemu" in config.available_features
    all_stress = os.environ.get("COPYSTACK_E2E_FULL", "0") == "1"
    with open(os.path.join(config.test_source_root, "Inputs",
                           "aarch64-tests.txt")) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if not words or (qemu and "native" in words[1:]):
                continue
            if (config.cs_mode != "stress" or all_stress
                    or "stress" in words[1:]):
                listed.add(words[0])
    return [name for name in os.listdir(config.test_source_root)
            if name.endswith((".c", ".cpp")) and name not in listed]


# COPYSTACK_E2E_AARCH64_ALL=1 runs every program there (bringing the port
# further: which fail, and why).
if aarch64 and os.environ.get("COPYSTACK_E2E_AARCH64_ALL", "0") != "1":
    config.excludes += aarch64_left_out()

san_flags = {"ubsan": " -fsanitize=undefined -fno-sanitize-recover=all",
             "tsan": " -fsanitize=thread"}.get(config.cs_mode, "")
if san_flags:
    config.excludes += [f for f in os.listdir(config.test_source_root)
                        if f.startswith("san_")]


def compile_cache_dir():
    """The compile cache's directory for this toolchain (Inputs/
    compile_cache.py): named by a hash of what a compile's output depends
    on besides its command: the compiler, the drivers, the plugin and the
    runtime, the host's and the one linked (size and time of change),
    every header under copystack's include directories and the suite's
    Inputs (contents), and the
    system's packages (dpkg's status file). Directories of other hashes
    are removed: the cache holds one toolchain's outputs."""
    import hashlib
    import shutil
    h = hashlib.sha256()

    def stat(path):
        st = os.stat(path)
        h.update(f"{path}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())

    def tree(top, contents):
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames.sort()
            for name in sorted(filenames):
                path = os.path.join(dirpath, name)
                if not os.path.isfile(path):
                    continue
                if contents:
                    with open(path, "rb") as f:
                        h.update(path.encode() + b"\0" + f.read())
                else:
                    stat(path)

    stat(os.path.realpath(os.path.join(config.cs_llvm_bin, "clang")))
    if san_resource_dir:
        tree(os.path.join(san_resource_dir, "lib", "linux"), False)
    if os.path.exists("/var/lib/dpkg/status"):
        stat("/var/lib/dpkg/status")
    tree(config.cs_bin, False)
    for lib in sorted({host_lib, config.cs_lib}):
        tree(lib, False)
    for top in (config.cs_include, config.cs_generated_include,
                os.path.join(config.test_source_root, "Inputs")):
        tree(top, True)
    root = os.path.join(os.path.dirname(config.cs_exec_root),
                        "e2e-compile-cache")
    name = h.hexdigest()[:24]
    if os.path.isdir(root):
        for old in os.listdir(root):
            if old != name:
                shutil.rmtree(os.path.join(root, old), ignore_errors=True)
    return os.path.join(root, name)


# COPYSTACK_TEST_CACHE=0 turns the compile cache off (lit passes only the
# environment it is given).
if "COPYSTACK_TEST_CACHE" in os.environ:
    config.environment["COPYSTACK_TEST_CACHE"] = \
        os.environ["COPYSTACK_TEST_CACHE"]
# The drivers, through the compile cache: the variants at one -O level
# share what they build (Inputs/compile_cache.py). The sanitizer variants
# build with flags of their own, which no other variant shares.
opt = f"-{config.cs_opt} -g{target}"
cache = ""
if not san_flags and not config.unsupported:
    cache = (f"python3 {config.test_source_root}/Inputs/compile_cache.py "
             f"{compile_cache_dir()} {config.cs_exec_root} ")
config.substitutions.append(
    ("%cc", f"{cache}{config.cs_bin}/copystack-cc {opt}{san_flags}{prologue}"))
config.substitutions.append(
    ("%cxx", f"{cache}{config.cs_bin}/copystack-c++ {opt}{san_flags}{prologue}"))
# The same program built without copystack: its output is the reference.
clang = os.path.join(config.cs_llvm_bin, "clang")
plain = (f"{opt} -I{config.cs_include} -I{config.cs_generated_include} "
         f"-L{config.cs_lib} -Wl,-rpath,{config.cs_lib} -lcopystack")
config.substitutions.append(("%plain_cc", f"{clang} {plain}"))
# A host program that knows nothing of copystack: plain clang, no runtime.
config.substitutions.append(("%host_cc", f"{clang} {opt}"))
config.substitutions.append(("%cs_lib", config.cs_lib))
# Every instrumented frame covered by a check (frames_covered.c).
config.substitutions.append(
    ("%check_frames", os.path.join(config.test_source_root, "..", "..", "..",
                                   "scripts", "check-frames")))
config.substitutions.append(("%cs_bin", config.cs_bin))
config.substitutions.append(("%plain_cxx", f"{clang}++ {plain}"))
run = {"normal": "env",
       "verify": "env COPYSTACK_VERIFY=1",
       "stress": "env COPYSTACK_VERIFY=1 COPYSTACK_STRESS=1 "
                 "COPYSTACK_VERIFY_REUSE=16",
       "ubsan": "env UBSAN_OPTIONS=print_stacktrace=1",
       "tsan": "env TSAN_OPTIONS=halt_on_error=1"}[config.cs_mode]
config.substitutions.append(("%run", run))
# How many tasks the seed's counting programs start: 100,000, and a tenth
# of it in verify and stress mode, where each task's stack is fenced when
# it ends and, in stress mode, every call moves a stack (a mapping and a
# fence each): the tenth keeps the suite inside its time on a machine
# whose page-table updates are slow. The normal variants run the 100,000.
config.substitutions.append(
    ("%{tasks}", "10000" if config.cs_mode in ("verify", "stress")
     else "100000"))
# How many children the fork tests fork (fork_one_runtime.c ten times as
# many): each fork copies the page tables of every mapping, verify mode's
# fenced stacks' too, which made them the slowest tests of every variant.
# CI forks 50 (10 in verify and stress mode); COPYSTACK_E2E_FULL=1, 200
# (50).
slow_mode = config.cs_mode in ("verify", "stress")
forks = (50 if slow_mode else 200) if full else (10 if slow_mode else 50)
config.substitutions.append(("%{forks}", str(forks)))
config.substitutions.append(("%cs_version", config.cs_version))
config.substitutions.append(
    ("%exits", "sh " + os.path.join(config.test_source_root, "Inputs",
                                     "exit-status.sh")))
config.available_features.add(config.cs_mode)
# The vector units of this CPU, for programs built for them (cpu-avx2,
# cpu-avx512f).
with open("/proc/cpuinfo") as f:
    for flag in next((line.split(":", 1)[1].split() for line in f
                      if line.startswith("flags")), []):
        if flag in ("avx2", "avx512f") and not aarch64:
            config.available_features.add("cpu-" + flag)
import shutil
# gdb: the machine's own ("gdb"), or for AArch64 programs under qemu-user
# gdb-multiarch through qemu's gdb stub ("gdb-stub": %gdb only, through
# Inputs/gdb_qemu.py; the programs that run gdb themselves need "gdb").
gdb_qemu = None
if aarch64 and os.uname().machine != "aarch64":
    if shutil.which("gdb-multiarch") and aarch64_emulator():
        gdb_qemu = (f"python3 {config.test_source_root}/Inputs/gdb_qemu.py "
                    f"{aarch64_emulator()} gdb-multiarch")
        config.available_features.add("gdb-stub")
elif shutil.which("gdb"):
    config.available_features.add("gdb")
# valgrind and its tools (valgrind_runs.c; scripts/setup installs them).
if shutil.which("valgrind") and shutil.which("callgrind_annotate") and \
        not aarch64:
    config.available_features.add("valgrind")
# Go's pprof reads the profiles back (profile_pprof.c; scripts/setup
# installs golang-1.19).
go = shutil.which("go") or "/usr/lib/go-1.19/bin/go"
if os.path.exists(go):
    config.available_features.add("go")
    config.substitutions.append(("%pprof", f"{go} tool pprof"))
# gdb as the tests run it: the program's own script auto-loaded, and no
# function of the program called (gdb 13 cannot call one on CPUs whose
# XSAVE area it does not know, such as Intel's with AMX: what the gdb
# commands do must not depend on it).
config.substitutions.append(
    ("%gdb", (gdb_qemu or "gdb") + ' -batch -nx '
             '-iex "set auto-load safe-path /" '
             '-iex "set may-call-functions off"'))
# Another clang, for toolchain_other_clang.c (scripts/test-install installs
# clang-14 and runs that test; scripts/setup does not need it).
if shutil.which("clang-14"):
    config.available_features.add("clang-14")
config.available_features.add(config.cs_opt)
config.environment["PATH"] = os.pathsep.join(
    [config.cs_llvm_bin, config.environment.get("PATH", "")])
