#!/usr/bin/env python3
"""gdb for the suite's AArch64 variants under qemu-user (lit.cfg.py, %gdb).

usage: gdb_qemu.py QEMU GDB GDB-ARGS...

GDB-ARGS are what a test gives gdb: options (-batch, -nx, -iex CMD), -ex
commands, then PROG [CORE] or --args PROG ARGS... A command line with a
core file, or without "run", is gdb's alone. Otherwise the program starts
under QEMU's gdb stub (-g PORT: stopped at its first instruction, the
dynamic linker's), GDB connects to it ("target remote") once the port
listens, and "run" becomes "continue"; the program's output goes where
this script's does. QEMU_LD_PREFIX names the sysroot for both. The exit
status is GDB's; QEMU is stopped if GDB left it running.
"""
import os
import socket
import subprocess
import sys
import time


def listening(port):
    """Whether a socket listens on the TCP port (read from /proc, so that
    no probe takes the stub's one connection)."""
    want = ":%04X" % port
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                for line in f.readlines()[1:]:
                    fields = line.split()
                    if fields[1].endswith(want) and fields[3] == "0A":
                        return True
        except OSError:
            pass
    return False


def main():
    qemu, gdb, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    options, commands, positional, prog_args = [], [], [], []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--args":
            positional.append(args[i + 1])
            prog_args = args[i + 2:]
            break
        if a in ("-ex", "-iex"):
            (commands if a == "-ex" else options).extend([a, args[i + 1]])
            i += 2
            continue
        (options if a.startswith("-") else positional).append(a)
        i += 1
    sysroot = os.environ.get("QEMU_LD_PREFIX", "")
    if sysroot:
        options += ["-iex", "set sysroot " + sysroot]
    runs = [k for k in range(1, len(commands), 2) if commands[k] == "run"]
    if len(positional) != 1 or not runs:
        sys.exit(subprocess.call([gdb] + options + positional + commands))
    with socket.socket() as s:  # a free port
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    stub = subprocess.Popen([qemu, "-g", str(port)] + positional + prog_args)
    deadline = time.monotonic() + 60
    while not listening(port) and stub.poll() is None:
        if time.monotonic() > deadline:
            stub.kill()
            sys.exit("gdb_qemu.py: %s did not listen on port %d" % (qemu, port))
        time.sleep(0.05)
    for k in runs:
        commands[k] = "continue"
    status = subprocess.call([gdb] + options + positional +
                             ["-ex", "target remote 127.0.0.1:%d" % port] +
                             commands)
    try:
        stub.wait(timeout=10)
    except subprocess.TimeoutExpired:
        stub.kill()
        stub.wait()
    sys.exit(status)


if __name__ == "__main__":
    main()
