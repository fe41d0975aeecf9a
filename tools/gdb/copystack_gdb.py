# copystack_gdb.py: gdb commands for copystack tasks (Go's runtime-gdb.py).
#
#   copystack tasks          every task: id, state, stack, copies, where
#   copystack task ID bt     the backtrace of task ID (a parked or runnable
#                            task's frames; a running one's thread)
#
# The runtime embeds this file in a .debug_gdb_scripts section, so gdb loads
# it with the program when auto-loading is allowed for it (gdb says how when
# it is not: add-auto-load-safe-path); or: source path/to/copystack_gdb.py.
#
# It finds the tasks through __copystack_debug_info (runtime/src/sched/
# task.cc), which needs no debug information; a suspended task's registers
# are in the switch frame at its saved stack pointer (runtime/src/arch/
# <arch>/frames.h, SwitchFrame, and switch.S). Both layouts must match
# what is read here, for x86-64 and AArch64 (_Arch).

import struct

import gdb
from gdb.FrameDecorator import FrameDecorator

_DEBUG_INFO_VERSION = 2
_STATES = {1: "suspended", 2: "running", 3: "moving", 4: "lost in fork"}


class _Arch:
    """What differs between x86-64 and AArch64: the switch frame's layout
    (the registers it keeps, by offset; the frame pointer's and the
    return address's offsets; its size), the registers' names, and the
    DWARF numbers of the frame pointer, the stack pointer and the return
    address."""

    def __init__(self, name):
        self.aarch64 = name.startswith("aarch64")
        if self.aarch64:
            # FPCR, FPSR, errno (16 bytes), d8-d15, x19-x28, x29, x30.
            self.switch_regs = tuple(
                ("x%d" % (19 + i), 80 + 8 * i) for i in range(10)) + (
                ("x29", 160),)
            self.switch_fp, self.switch_ret, self.switch_bytes = 160, 168, 176
            self.sp, self.pc, self.lr = "sp", "pc", "x30"
            self.dw_fp, self.dw_sp, self.dw_ra = 29, 31, 30
        else:
            # MXCSR, the x87 control word, errno (16 bytes), r15 r14 r13
            # r12 rbx rbp, the return address.
            self.switch_regs = tuple(
                (r, 16 + 8 * i)
                for i, r in enumerate(("r15", "r14", "r13", "r12", "rbx",
                                       "rbp")))
            self.switch_fp, self.switch_ret, self.switch_bytes = 56, 64, 72
            self.sp, self.pc, self.lr = "rsp", "rip", None
            self.dw_fp, self.dw_sp, self.dw_ra = 6, 7, 16


def _arch():
    try:
        name = gdb.selected_inferior().architecture().name()
    except (gdb.error, AttributeError):
        name = gdb.execute("show architecture", to_string=True)
        name = "aarch64" if "aarch64" in name else "i386:x86-64"
    return _Arch(name)


def _read(addr, size):
    return bytes(gdb.selected_inferior().read_memory(addr, size))


def _u64(addr):
    return struct.unpack("<Q", _read(addr, 8))[0]


def _u32(addr):
    return struct.unpack("<I", _read(addr, 4))[0]


def _u8(addr):
    return _read(addr, 1)[0]


class _Layout:
    """__copystack_debug_info, decoded."""

    FIELDS = ("version", "task_size", "slab_tasks", "chunk_slabs",
              "first_chunk", "chunk_n", "chunk_next", "task_state",
              "task_id", "task_sp", "task_stack_lo", "task_stack_hi",
              "task_copies", "task_runner", "task_wait_queued",
              "task_wait_obj", "task_select", "thread_task",
              "task_compacted")

    def __init__(self):
        try:
            addr = int(gdb.parse_and_eval(
                "(unsigned long)&__copystack_debug_info"))
        except gdb.error:
            raise gdb.GdbError("no copystack runtime in this program")
        raw = _read(addr, 4 * 4 + 8 + 4 * 15)
        values = struct.unpack("<4IQ15I", raw)
        for name, value in zip(self.FIELDS, values):
            setattr(self, name, value)
        if self.version != _DEBUG_INFO_VERSION:
            raise gdb.GdbError(
                "copystack_gdb.py reads task layout version %d, the program "
                "has %d" % (_DEBUG_INFO_VERSION, self.version))


def _tasks(layout):
    """Every live task structure's address."""
    chunk = layout.first_chunk
    while chunk:
        nslabs = _u32(chunk + layout.chunk_n)
        for i in range(nslabs):
            slab = _u64(chunk + 8 * i)
            for k in range(layout.slab_tasks):
                task = slab + k * layout.task_size
                if _u8(task + layout.task_state) != 0:
                    yield task
        chunk = _u64(chunk + layout.chunk_next)


def _running_threads(layout):
    """Task address -> gdb thread running it, for live processes: by the
    thread's __copystack_thread, or where gdb cannot reach thread-local
    storage (qemu-user's gdb stub) by the first of the thread's frames
    whose stack pointer is on a running task's stack."""
    running = {}
    selected = gdb.selected_thread()
    if selected is None:
        return running
    frame = gdb.selected_frame()
    stacks = None
    try:
        for thread in gdb.selected_inferior().threads():
            thread.switch()
            try:
                base = int(gdb.parse_and_eval(
                    "(unsigned long)&__copystack_thread"))
                task = _u64(base + layout.thread_task)
            except gdb.error:
                if stacks is None:
                    stacks = [(t, _u64(t + layout.task_stack_lo),
                               _u64(t + layout.task_stack_hi))
                              for t in _tasks(layout)
                              if _u8(t + layout.task_state) == 2]
                task = _task_on_frames(stacks)
            if task:
                running[task] = thread
    finally:
        selected.switch()
        frame.select()
    return running


def _task_on_frames(stacks):
    """The task whose stack holds the selected thread's stack pointer in
    one of its first frames (a task in a foreign call is found past the
    trampoline), or 0."""
    if not stacks:
        return 0
    sp_name = _arch().sp
    try:
        f = gdb.newest_frame()
        for _ in range(64):
            if f is None:
                break
            sp = int(f.read_register(sp_name))
            for task, lo, hi in stacks:
                if lo <= sp < hi:
                    return task
            f = f.older()
    except gdb.error:
        pass
    return 0


def _describe(layout, task, running):
    state = _STATES.get(_u8(task + layout.task_state), "?")
    if task in running:
        where = "running on thread %d" % running[task].num
        state = "running"
    elif state == "suspended":
        if _u64(task + layout.task_select):
            where = "parked in select"
        elif _u8(task + layout.task_wait_queued):
            where = "parked on %#x" % _u64(task + layout.task_wait_obj)
        else:
            where = "runnable or sleeping"
        ret = _u64(_u64(task + layout.task_sp) + _arch().switch_ret)
        where += ", in " + _symbol(ret)
    else:
        where = ""
    lo = _u64(task + layout.task_stack_lo)
    hi = _u64(task + layout.task_stack_hi)
    if _u8(task + layout.task_compacted):
        state = "compacted"
        where += " (%d B of frames kept)" % _compacted_used(layout, task)
    bound = " bound" if _u64(task + layout.task_runner) else ""
    return "%-6d %-10s %7d B %5d  %s%s" % (
        _u64(task + layout.task_id), state, hi - lo,
        _u32(task + layout.task_copies), where, bound)


def _compacted_used(layout, task):
    """The bytes of frames a compacted task keeps: its block's header, the
    word below the switch frame (runtime/src/core/copy.h)."""
    return _u64(_u64(task + layout.task_sp) - 8)


def _symbol(pc):
    block = gdb.current_progspace().block_for_pc(pc)
    while block is not None and block.function is None:
        block = block.superblock
    if block is not None:
        return str(block.function.print_name)
    name = gdb.execute("info symbol %#x" % pc, to_string=True).split(" in ")
    return name[0].strip()


# ---- the unwind tables' CFA rules, read from the inferior's memory ----------
#
# The same reader as the runtime's (runtime/src/core/eh_frame.cc): the FDE
# for a pc through its object's .eh_frame_hdr search table, then the CIE's
# and FDE's call frame instructions up to the pc, keeping where the CFA is
# (the stack or frame pointer plus an offset), and where the frame pointer
# and the return address were saved (x86-64's CIE saves the return address
# below the CFA; on AArch64 it is in x30 until the function saves it).
# Only memory is read.


class _Bytes:
    """A cursor over bytes read from the inferior at addr."""

    def __init__(self, addr, data):
        self.addr, self.data, self.i = addr, data, 0

    def more(self):
        return self.i < len(self.data)

    def here(self):
        return self.addr + self.i

    def u8(self):
        self.i += 1
        return self.data[self.i - 1]

    def fixed(self, fmt):
        size = struct.calcsize(fmt)
        v = struct.unpack_from(fmt, self.data, self.i)[0]
        self.i += size
        return v

    def _leb(self):
        """A LEB128 value's bits, and the last byte and the bits' count."""
        v = shift = 0
        while True:
            b = self.u8()
            v |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                return v, b, shift

    def uleb(self):
        return self._leb()[0]

    def sleb(self):
        v, b, shift = self._leb()
        return v - (1 << shift) if b & 0x40 else v

    def encoded(self, enc, datarel=0):
        """A DW_EH_PE-encoded value, or None (omitted or unsupported)."""
        if enc == 0xff:
            return None
        here = self.here()
        fmt = {0x00: "<Q", 0x02: "<H", 0x03: "<I", 0x04: "<Q", 0x0a: "<h",
               0x0b: "<i", 0x0c: "<q"}.get(enc & 0x0f)
        if fmt:
            v = self.fixed(fmt)
        elif enc & 0x0f == 0x01:
            v = self.uleb()
        elif enc & 0x0f == 0x09:
            v = self.sleb()
        else:
            return None
        if enc & 0x70 == 0x10:
            v += here
        elif enc & 0x70 == 0x30:
            v += datarel
        elif enc & 0x70:
            return None
        return None if enc & 0x80 else v & 0xffffffffffffffff


class _UnwindTables:
    """The loaded objects' .eh_frame_hdr sections, from `info files`."""

    _LINE = None

    def __init__(self):
        import re
        if _UnwindTables._LINE is None:
            _UnwindTables._LINE = re.compile(
                r"^\s*0x([0-9a-f]+) - 0x([0-9a-f]+) is (\S+)(?: in (.*))?$")
        text = {}
        hdr = {}
        for line in gdb.execute("info files", to_string=True).splitlines():
            m = _UnwindTables._LINE.match(line)
            if not m:
                continue
            lo, hi, name, obj = (int(m.group(1), 16), int(m.group(2), 16),
                                 m.group(3), m.group(4) or "")
            if name == ".text":
                text.setdefault(obj, []).append((lo, hi))
            elif name == ".eh_frame_hdr":
                hdr[obj] = lo
        self.objects = [(lo, hi, hdr[obj]) for obj, ranges in text.items()
                        if obj in hdr for lo, hi in ranges]
        self.missing = []
        self.arch = _arch()

    def _find_fde(self, pc):
        for lo, hi, hdr in self.objects:
            if lo <= pc < hi:
                break
        else:
            return None
        head = _read(hdr, 4)
        if head[0] != 1 or head[3] != 0x3b:  # version 1, datarel sdata4
            return None
        r = _Bytes(hdr + 4, _read(hdr + 4, 16))
        r.encoded(head[1], hdr)
        count = r.encoded(head[2], hdr)
        if not count:
            return None
        table = hdr + 4 + r.i
        lo, hi = 0, count  # the last entry whose start is <= pc
        while hi - lo > 1:
            mid = (lo + hi) // 2
            start = struct.unpack("<i", _read(table + 8 * mid, 4))[0] + hdr
            if start <= pc:
                lo = mid
            else:
                hi = mid
        start, fde = struct.unpack("<ii", _read(table + 8 * lo, 8))
        return fde + hdr if start + hdr <= pc else None

    @staticmethod
    def _cie(addr):
        length = _u32(addr)
        if length == 0xffffffff or _u32(addr + 4) != 0:
            return None
        r = _Bytes(addr + 4, _read(addr + 4, length))
        r.fixed("<I")
        version = r.u8()
        aug = b""
        while True:
            c = r.u8()
            if not c:
                break
            aug += bytes([c])
        cie = {"code_align": r.uleb(), "data_align": r.sleb(),
               "fde_enc": 0, "aug_data": aug.startswith(b"z")}
        if version == 1:
            r.u8()
        else:
            r.uleb()
        if aug.startswith(b"z"):
            end = r.uleb() + r.i
            for a in aug[1:].decode():
                if a == "R":
                    cie["fde_enc"] = r.u8()
                elif a == "L":
                    r.u8()
                elif a == "P":
                    enc = r.u8()
                    if r.encoded(enc & 0x0f) is None:
                        return None
                elif a not in "SB":
                    return None
            r.i = end
        elif aug:
            return None
        cie["insns"] = _Bytes(r.here(), r.data[r.i:])
        return cie

    def cfa_rule(self, pc):
        """(register, offset, where the frame pointer was saved relative to
        the CFA or None, where the return address was or None) for the
        frame at pc, or None where this reader has no rule."""
        fde = self._find_fde(pc)
        if fde is None:
            return None
        length = _u32(fde)
        if length in (0, 0xffffffff):
            return None
        r = _Bytes(fde + 4, _read(fde + 4, length))
        cie = self._cie(fde + 4 - r.fixed("<I"))
        if cie is None:
            return None
        start = r.encoded(cie["fde_enc"])
        size = r.encoded(cie["fde_enc"] & 0x0f)
        if start is None or size is None or not start <= pc < start + size:
            return None
        if cie["aug_data"]:
            r.i += r.uleb()
        arch = self.arch
        init = {"reg": arch.dw_sp, "off": 8, "fp": None, "ra": None}
        state = self._run(cie["insns"], cie, start, pc, dict(init), init,
                          arch)
        if state is None:
            return None
        body = _Bytes(r.here(), r.data[r.i:])
        state = self._run(body, cie, start, pc, state, dict(state), arch)
        if state is None or state["reg"] not in (arch.dw_sp, arch.dw_fp):
            return None
        return state["reg"], state["off"], state["fp"], state["ra"]

    @staticmethod
    def _run(r, cie, loc, pc, st, init, arch):
        """The state at pc after the instructions of r, from st (init is
        what DW_CFA_restore goes back to); None where unsupported."""
        r = _Bytes(r.addr, r.data)
        saved = []
        data_align, code_align = cie["data_align"], cie["code_align"]
        kept = {arch.dw_fp: "fp", arch.dw_ra: "ra"}

        def save(reg, factored):
            if reg in kept:
                st[kept[reg]] = factored * data_align

        def forget(reg):
            if reg in kept:
                st[kept[reg]] = None

        def restore(reg):
            if reg in kept:
                st[kept[reg]] = init[kept[reg]]

        while r.more():
            op = r.u8()
            high, low = op & 0xc0, op & 0x3f
            delta = None
            if high == 0x40:
                delta = low
            elif high == 0x80:
                save(low, r.uleb())
            elif high == 0xc0:
                restore(low)
            elif op == 0x00:
                pass
            elif op == 0x01:
                to = r.encoded(cie["fde_enc"])
                if to is None:
                    return None
                if to > pc:
                    return st
                loc = to
            elif op in (0x02, 0x03, 0x04):
                delta = r.fixed({2: "<B", 3: "<H", 4: "<I"}[op])
            elif op == 0x05:
                reg = r.uleb()
                save(reg, r.uleb())
            elif op == 0x06:
                restore(r.uleb())
            elif op in (0x07, 0x08):
                forget(r.uleb())
            elif op == 0x09:
                forget(r.uleb())
                r.uleb()
            elif op == 0x0a:
                saved.append(dict(st))
            elif op == 0x0b:
                if not saved:
                    return None
                st = saved.pop()
            elif op == 0x0c:
                st["reg"] = r.uleb()
                st["off"] = r.uleb()
            elif op == 0x0d:
                st["reg"] = r.uleb()
            elif op == 0x0e:
                st["off"] = r.uleb()
            elif op in (0x10, 0x16):
                forget(r.uleb())
                r.i += r.uleb()
            elif op == 0x11:
                reg = r.uleb()
                save(reg, r.sleb())
            elif op == 0x12:
                st["reg"] = r.uleb()
                st["off"] = r.sleb() * data_align
            elif op == 0x13:
                st["off"] = r.sleb() * data_align
            elif op in (0x14, 0x15):
                forget(r.uleb())
                if op == 0x14:
                    r.uleb()
                else:
                    r.sleb()
            elif op == 0x2e:
                r.uleb()
            elif op == 0x2f:
                reg = r.uleb()
                save(reg, -r.uleb())
            else:
                return None  # a DWARF expression for the CFA, or unknown
            if delta is not None:
                loc += delta * code_align
                if loc > pc:
                    return st
        return st


def _walk(tables, pc, sp, fp, lo, hi, shift, end):
    """The return addresses of the frames from pc (its frame's stack and
    frame pointers there: sp, fp) up, inside [lo, hi), whose words are read
    at shift bytes from their addresses; as the runtime's dump walks them
    (runtime/src/sched/dump.cc): by the CFA rules at pc - 1, and where this
    reader has none, as a frame with a frame record (the caller's frame
    pointer, then the return address)."""
    pcs = []
    while pc and pc != end and len(pcs) < 10000:
        pcs.append(pc)
        rule = tables.cfa_rule(pc - 1)
        if rule is not None:
            reg, off, fp_at, ra_at = rule
            cfa = (sp if reg == tables.arch.dw_sp else fp) + off
            if ra_at is None:  # in a register: only an interrupted frame's
                break
            if not (lo <= cfa + ra_at < hi and not cfa & 7) or cfa <= sp:
                break
            if fp_at is not None:
                if not lo <= cfa + fp_at < hi or (cfa + fp_at) & 7:
                    break
                fp = _u64(cfa + fp_at + shift)
            pc, sp = _u64(cfa + ra_at + shift), cfa
            continue
        tables.missing.append(pc)
        if fp < lo or fp + 16 > hi or fp & 7 or fp + 16 <= sp:
            break
        pc, sp, fp = _u64(fp + 8 + shift), fp + 16, _u64(fp + shift)
    return pcs


class CopystackPrefix(gdb.Command):
    """copystack: commands for copystack tasks (copystack tasks,
copystack task ID bt)."""

    def __init__(self):
        super().__init__("copystack", gdb.COMMAND_STACK, prefix=True)


class CopystackTasks(gdb.Command):
    """List every copystack task: id, state, stack size, copies, and where
it is (the function a suspended task stopped in, or the thread running
it). A star marks the task of the selected thread."""

    def __init__(self):
        super().__init__("copystack tasks", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        layout = _Layout()
        running = _running_threads(layout)
        current = None
        try:
            base = int(gdb.parse_and_eval("(unsigned long)&__copystack_thread"))
            current = _u64(base + layout.thread_task)
        except gdb.error:
            selected = gdb.selected_thread()
            current = next((task for task, thread in running.items()
                            if thread == selected), None)
        gdb.write("  %-6s %-10s %9s %5s  %s\n" %
                  ("id", "state", "stack", "moves", "where"))
        for task in _tasks(layout):
            mark = "*" if task == current else " "
            gdb.write(mark + " " + _describe(layout, task, running) + "\n")


class CopystackTask(gdb.Command):
    """copystack task ID bt: the backtrace of task ID.

A suspended task's frames are shown by loading its saved registers into the
selected thread for the duration of the backtrace (a live process only); a
running task's by its thread."""

    def __init__(self):
        super().__init__("copystack task", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        words = arg.split()
        if len(words) < 2 or words[1] != "bt":
            raise gdb.GdbError("usage: copystack task ID bt [bt options]")
        want = int(words[0])
        layout = _Layout()
        running = _running_threads(layout)
        for task in _tasks(layout):
            if _u64(task + layout.task_id) != want:
                continue
            rest = " ".join(words[2:])
            if task in running:
                thread = running[task]
                gdb.write("task %d is running on thread %d\n" %
                          (want, thread.num))
                selected = gdb.selected_thread()
                thread.switch()
                try:
                    gdb.execute("bt " + rest)
                finally:
                    selected.switch()
                return
            self._backtrace_suspended(layout, task, rest)
            return
        raise gdb.GdbError("no task %d" % want)

    @staticmethod
    def _backtrace_compacted(layout, task):
        """A compacted task's frames are bytes in a heap block until it runs
        again: gdb cannot unwind them. They are walked here by the unwind
        tables' CFA rules, as the runtime's task dump walks them, reading
        the process's (or the core file's) memory only: no function of the
        program is called, so this works in a core file and where gdb
        cannot call functions at all (gdb 13 cannot write the registers of
        a CPU whose XSAVE area is larger than it knows, such as Intel's with
        AMX)."""
        sp = _u64(task + layout.task_sp)
        used = _compacted_used(layout, task)
        hi = _u64(task + layout.task_stack_hi)
        lo = hi - used
        shift = sp - lo
        gdb.write("task %d is compacted: %d bytes of frames wait in a heap "
                  "block until it runs\n" % (_u64(task + layout.task_id), used))
        end = int(gdb.parse_and_eval(
            "(unsigned long)&__copystack_task_return"))
        tables = _UnwindTables()
        arch = tables.arch
        pcs = _walk(tables, _u64(sp + arch.switch_ret),
                    lo + arch.switch_bytes, _u64(sp + arch.switch_fp),
                    lo, hi, shift, end)
        for n, pc in enumerate(pcs):
            gdb.write("#%-3d %#018x in %s\n" % (n, pc, _symbol(pc)))
        if tables.missing:
            gdb.write("(no unwind tables for %s: frames beyond taken as "
                      "frame-pointer frames)\n" % ", ".join(
                          "%#x" % pc for pc in tables.missing))

    @staticmethod
    def _backtrace_suspended(layout, task, rest):
        if _u8(task + layout.task_compacted):
            CopystackTask._backtrace_compacted(layout, task)
            return
        sp = _u64(task + layout.task_sp)
        arch = _arch()
        values = {reg: _u64(sp + off) for reg, off in arch.switch_regs}
        ret = _u64(sp + arch.switch_ret)
        values[arch.sp] = sp + arch.switch_bytes
        values[arch.pc] = ret
        if arch.lr:
            values[arch.lr] = ret
        gdb.execute("frame 0", to_string=True)
        saved = {r: int(gdb.parse_and_eval("$" + r)) for r in values}
        try:
            for reg, value in values.items():
                gdb.execute("set $%s = %d" % (reg, value))
            gdb.execute("bt " + rest)
        finally:
            for reg, value in saved.items():
                gdb.execute("set $%s = %d" % (reg, value))


class CopystackFrameFilter(object):
    def __init__(self):
        self.name = "copystack"
        self.priority = 100
        self.enabled = True
        gdb.frame_filters[self.name] = self

    def filter(self, frames):
        for frame in frames:
            if frame.inferior_frame().name() == "on_thread_stack":
                yield _CrossingFrame(frame)
            else:
                yield frame


class _CrossingFrame(FrameDecorator):
    """The frame where a backtrace crosses from a thread's stack back to a
    task's (runtime/src/arch/x86_64/switch.S, on_thread_stack): its CFI
    makes gdb take it for a signal frame, so that gdb goes on to frames at
    lower addresses; this names it."""

    def function(self):
        return "[copystack: foreign call, back to the task's stack]"


CopystackPrefix()
CopystackTasks()
CopystackTask()
CopystackFrameFilter()
