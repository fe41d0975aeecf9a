#!/usr/bin/env python3
"""A compile cache for the end-to-end suite's %cc and %cxx.

usage: compile_cache.py CACHE_DIR EXEC_ROOT DRIVER ARG...

The normal, verify and stress variants at one -O level (and the variants
that hold the runtime to a lower CPU level) build every program with the
same command and differ only in how they run it: the first variant to
compile a command stores its output, the others copy it. A command is
served from the cache only when its output cannot depend on which variant
ran it:

  - it writes exactly one file, named by "-o FILE" (not "-", not -oFILE),
    and nothing else (no -M*, -save-temps, -gsplit-dwarf, -ftime-trace,
    --coverage, -v, -###);
  - no argument but that output names the variant's directory (EXEC_ROOT):
    a library linked from there is named in the executable (DT_NEEDED) and
    an rpath into it is kept, so such a command always runs;
  - no argument is a relative path to an existing file (alone or as the
    value of -I, -L, -include and the like, or in -Wl,...), and no
    response file (@FILE) is named;
  - nothing else writes a file (-Xlinker, -Wl,-Map, -fstack-usage,
    -fsave-optimization-record are refused).

The key is the command (output path left out), the contents of every file
named on it, the environment a compile reads (COMPILE_ENV, COPYSTACK_*),
and CACHE_DIR, whose name lit.cfg.py derives from the
compiler, the plugin, the runtime, the drivers and every header the
programs include (lit.cfg.py: compile_cache_dir). Only a compile that exits
0 is stored; its stdout and stderr are stored with it and replayed. Any
other command runs the driver unchanged. COPYSTACK_TEST_CACHE=0 turns the
cache off.
"""
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

REFUSED_PREFIXES = ("-M", "-save-temps", "-gsplit-dwarf", "-ftime-trace",
                    "--coverage", "-fprofile", "-###", "-Wl,-Map",
                    "-Wl,--Map", "-Xlinker", "-fstack-usage",
                    "-fsave-optimization-record", "@")
# Options whose joined value is a path: a relative one is refused (it
# would be resolved in the variant's directory), a file's contents are
# keyed.
PATH_PREFIXES = ("-I", "-L", "-B", "-isystem", "-iquote", "-idirafter",
                 "-include", "-imacros", "--sysroot=")
REFUSED = {"-v", "-", "-E"}
# The environment a compile reads: the paths clang searches, and the
# drivers' own settings (COPYSTACK_CPU, which the avx2 and baseline
# variants set, chooses code at run time only).
COMPILE_ENV = {"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
               "LIBRARY_PATH", "COMPILER_PATH", "CCC_OVERRIDE_OPTIONS"}


def cache_key(driver, args, out_index, exec_root):
    """The key of a cacheable command, or None."""
    h = hashlib.sha256()
    h.update(os.path.realpath(driver).encode())
    for name in sorted(os.environ):
        if name in COMPILE_ENV or (name.startswith("COPYSTACK_") and
                                   name != "COPYSTACK_CPU"):
            h.update(f"\0{name}={os.environ[name]}".encode())
    for i, arg in enumerate(args):
        if i == out_index:
            h.update(b"\0<output>")
            continue
        if arg in REFUSED or arg.startswith(REFUSED_PREFIXES):
            return None
        if exec_root in arg:
            return None
        h.update(b"\0" + arg.encode())
        paths = [arg]
        if arg.startswith("-"):
            paths = [arg[len(p):] for p in PATH_PREFIXES
                     if arg.startswith(p) and len(arg) > len(p)][:1]
            if arg.startswith("-Wl,"):
                paths = [part.split("=", 1)[-1]
                         for part in arg[4:].split(",")]
        for path in paths:
            if not path or not os.path.exists(path):
                continue
            if not os.path.isabs(path):
                return None
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def output_index(args):
    """Where the one "-o FILE" output is, or None."""
    found = None
    for i, arg in enumerate(args):
        if arg == "-o":
            if found is not None or i + 1 >= len(args):
                return None
            found = i + 1
        elif arg.startswith("-o"):
            return None
    if found is None or args[found] == "-":
        return None
    return found


def run(driver, args):
    return subprocess.run([driver] + args, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)


def replay(proc_out, proc_err):
    sys.stdout.buffer.write(proc_out)
    sys.stdout.flush()
    sys.stderr.buffer.write(proc_err)
    sys.stderr.flush()


def main():
    cache_dir, exec_root, driver = sys.argv[1:4]
    args = sys.argv[4:]
    out = output_index(args)
    key = None
    if os.environ.get("COPYSTACK_TEST_CACHE", "1") != "0" and out is not None:
        key = cache_key(driver, args, out, exec_root)
    if key is None:
        os.execv(driver, [driver] + args)
    entry = os.path.join(cache_dir, key[:2], key)
    target = args[out]
    if os.path.isdir(entry):
        shutil.copyfile(os.path.join(entry, "out"), target)
        shutil.copymode(os.path.join(entry, "out"), target)
        with open(os.path.join(entry, "stdout"), "rb") as o, \
                open(os.path.join(entry, "stderr"), "rb") as e:
            replay(o.read(), e.read())
        return 0
    # A command that writes no output must not store a file an earlier
    # run left there.
    if os.path.lexists(target):
        os.unlink(target)
    proc = run(driver, args)
    replay(proc.stdout, proc.stderr)
    if proc.returncode != 0 or not os.path.isfile(target):
        return proc.returncode
    # Store: a directory filled under a temporary name, then renamed, so a
    # reader sees a whole entry or none; of two writers one rename wins.
    os.makedirs(os.path.dirname(entry), exist_ok=True)
    tmp = tempfile.mkdtemp(dir=os.path.dirname(entry))
    try:
        shutil.copyfile(target, os.path.join(tmp, "out"))
        shutil.copymode(target, os.path.join(tmp, "out"))
        with open(os.path.join(tmp, "stdout"), "wb") as f:
            f.write(proc.stdout)
        with open(os.path.join(tmp, "stderr"), "wb") as f:
            f.write(proc.stderr)
        os.rename(tmp, entry)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
