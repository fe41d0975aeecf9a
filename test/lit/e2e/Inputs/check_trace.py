"""Reads an execution trace (Chrome trace-event JSON, sched/trace.h) the
way a viewer does and prints what it found, for FileCheck: the tracks, the
slices per kind, the arrows, and the invariants a viewer relies on. Exits
1 with a message when the file breaks one.

    check_trace.py TRACE.json
"""
import collections
import json
import sys


def fail(msg):
    print("TRACE BROKEN:", msg)
    sys.exit(1)


def main():
    with open(sys.argv[1]) as f:
        doc = json.load(f)  # the whole file must parse
    events = doc["traceEvents"]
    other = doc["otherData"]
    print("producer", other["producer"].split()[0])
    print("dropped", "some" if other["dropped_events"] else "none")

    names = {}  # (pid, tid) -> track name
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
        if e["ph"] == "M" and e["name"] == "process_name":
            print("process", e["pid"], e["args"]["name"])
    threads = [n for (p, _), n in names.items() if p == 1]
    tasks = {t: n for (p, t), n in names.items() if p == 2}
    print("worker tracks", "yes" if any(n.startswith("worker ")
                                        for n in threads) else "no")
    print("runtime thread tracks", sorted({n.split(" (")[0] for n in threads
                                           if n.startswith("copystack-")}))
    print("thread tracks", len(threads), "shared by threads that came and went"
          if any("(threads " in n for n in threads) else "one thread each")
    if any(t == 0 for (p, t) in names if p == 1):
        fail("a thread track with tid 0 (viewers take it for the process)")

    slices = collections.defaultdict(list)  # (pid, tid) -> [(ts, end, name)]
    kinds = collections.Counter()
    for e in events:
        if e["ph"] != "X":
            continue
        key = (e["pid"], e["tid"])
        if key not in names:
            fail(f"a slice on a track without a name: {e}")
        if e["dur"] < 0:
            fail(f"a negative duration: {e}")
        slices[key].append((e["ts"], e["ts"] + e["dur"], e["name"]))
        if e["pid"] == 2:
            kinds[e["name"]] += 1
        elif not e["name"].startswith(("task ", "wake task", "spawn task")):
            kinds["thread: " + e["name"]] += 1
    for k in sorted(kinds):
        print("slice", k)

    # A task's running, runnable and waiting slices follow one another.
    for (pid, tid), ss in slices.items():
        if pid != 2:
            continue
        ss.sort()
        for a, b in zip(ss, ss[1:]):
            if b[0] < a[1] - 0.0015:  # the microseconds' third decimal
                fail(f"task {tid}: {a} overlaps {b}")

    # A worker's runs do not overlap either (one task at a time).
    for (pid, tid), ss in slices.items():
        if pid != 1:
            continue
        runs = sorted(s for s in ss if s[2].startswith("task "))
        for a, b in zip(runs, runs[1:]):
            if b[0] < a[1] - 0.0015:
                fail(f"thread {names[(pid, tid)]}: {a} overlaps {b}")

    # Every arrow has both ends; its end starts a slice of the task it
    # points at, and its start lies within a slice of its own track.
    starts, ends = {}, {}
    for e in events:
        if e["ph"] == "s":
            starts[e["id"]] = e
        elif e["ph"] == "f":
            ends[e["id"]] = e
    if set(starts) != set(ends):
        fail("an arrow without both ends")
    arrows = collections.Counter()
    for i, s in starts.items():
        f = ends[i]
        if f["pid"] != 2 or not any(abs(a - f["ts"]) < 0.0015
                                    for a, _, _ in slices[(2, f["tid"])]):
            fail(f"arrow {i} ends where no slice of task {f['tid']} starts")
        if not any(a - 0.0015 <= s["ts"] <= b + 0.0015
                   for a, b, _ in slices[(s["pid"], s["tid"])]):
            fail(f"arrow {i} starts outside every slice of its track: {s}")
        arrows[(s["name"], "from task" if s["pid"] == 2 else "from thread")] += 1
    for k in sorted(arrows):
        print("arrow", *k)

    grows = [e for e in events if e["ph"] == "i" and e["pid"] == 2]
    fns = sorted({e["args"]["function"] for e in grows
                  if e["name"].startswith("grow")})
    print("grow functions", fns)
    for e in grows:
        a = e["args"]
        if e["name"].startswith("grow") and not a["new"] > a["old"]:
            fail(f"a growth that did not grow: {e}")
        if e["name"].startswith("shrink") and not a["new"] < a["old"]:
            fail(f"a shrink that did not shrink: {e}")
    print("stack events", sorted({e["name"].split()[0] for e in grows}))
    print("tasks", len(tasks), "named",
          sum(1 for n in tasks.values() if "created by" in n))


main()
