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
# are in the switch frame at its saved stack pointer (runtime/src/core/
# copy.h, SwitchFrame). Both layouts must match what is read here.

import struct

import gdb
from gdb.FrameDecorator import FrameDecorator

_DEBUG_INFO_VERSION = 2
_STATES = {1: "suspended", 2: "running", 3: "moving"}
# SwitchFrame: r15 r14 r13 r12 rbx rbp, then the return address.
_SWITCH_REGS = ("r15", "r14", "r13", "r12", "rbx", "rbp")
_SWITCH_BYTES = 56


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
    """Task address -> gdb thread running it, for live processes."""
    running = {}
    selected = gdb.selected_thread()
    if selected is None:
        return running
    frame = gdb.selected_frame()
    try:
        for thread in gdb.selected_inferior().threads():
            thread.switch()
            try:
                base = int(gdb.parse_and_eval(
                    "(unsigned long)&__copystack_thread"))
            except gdb.error:
                continue
            task = _u64(base + layout.thread_task)
            if task:
                running[task] = thread
    finally:
        selected.switch()
        frame.select()
    return running


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
        ret = _u64(_u64(task + layout.task_sp) + 48)
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
            pass
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
        again: gdb cannot unwind them. In a live process the runtime walks
        them (by the unwind tables' rules, as its task dump does); in a
        core file, where gdb cannot call it, their frame-pointer chain is
        walked here (functions without a frame pointer are missing)."""
        sp = _u64(task + layout.task_sp)
        used = _compacted_used(layout, task)
        hi = _u64(task + layout.task_stack_hi)
        lo = hi - used
        shift = sp - lo
        gdb.write("task %d is compacted: %d bytes of frames wait in a heap "
                  "block until it runs\n" % (_u64(task + layout.task_id), used))
        try:
            n = int(gdb.parse_and_eval(
                "__copystack_debug_frames((const void *)%d)" % task))
            base = int(gdb.parse_and_eval(
                "(unsigned long)&__copystack_debug_pcs"))
            pcs = [_u64(base + 8 * i) for i in range(n)]
        except gdb.error:
            pcs = None
        if pcs is not None:
            for n, pc in enumerate(pcs):
                gdb.write("#%-3d %#018x in %s\n" % (n, pc, _symbol(pc)))
            return
        pc = _u64(sp + 48)
        fp = _u64(sp + 40)
        end = int(gdb.parse_and_eval(
            "(unsigned long)&__copystack_task_return"))
        n = 0
        while pc and pc != end and n < 10000:
            gdb.write("#%-3d %#018x in %s\n" % (n, pc, _symbol(pc)))
            n += 1
            if fp < lo or fp + 16 > hi or fp & 7:
                break
            pc = _u64(fp + shift + 8)
            up = _u64(fp + shift)
            if up <= fp:
                break
            fp = up

    @staticmethod
    def _backtrace_suspended(layout, task, rest):
        if _u8(task + layout.task_compacted):
            CopystackTask._backtrace_compacted(layout, task)
            return
        sp = _u64(task + layout.task_sp)
        frame = [_u64(sp + 8 * i) for i in range(7)]
        gdb.execute("frame 0", to_string=True)
        saved = {r: int(gdb.parse_and_eval("$" + r))
                 for r in _SWITCH_REGS + ("rsp", "rip")}
        try:
            for reg, value in zip(_SWITCH_REGS, frame):
                gdb.execute("set $%s = %d" % (reg, value))
            gdb.execute("set $rsp = %d" % (sp + _SWITCH_BYTES))
            gdb.execute("set $rip = %d" % frame[6])
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
