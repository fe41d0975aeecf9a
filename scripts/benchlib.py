"""scripts/benchlib.py: what the scripts/bench-* commands share.

The machine a measurement was taken on and its load, medians and spread,
the Go peers' build, progress on stderr, and the JSON every benchmark
writes with --json (scripts/plots reads it). Not a command: the bench-*
scripts import it from their own directory.
"""
import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("COPYSTACK_BUILD_DIR", os.path.join(ROOT, "build"))


def progress(msg):
    """A progress line on stderr, stamped with the time since the start."""
    print("[%6.1fs] %s" % (time.monotonic() - _T0, msg), file=sys.stderr,
          flush=True)


_T0 = time.monotonic()


def loadavg():
    return [round(x, 2) for x in os.getloadavg()]


def machine():
    """Where and when: what every result records."""
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%d %H:%M UTC"),
        "cpus": os.cpu_count(),
        "cpu": model,
        "commit": commit,
        "load_start": loadavg(),
    }


def spread(values):
    """Median, min, max and the interquartile range of a list."""
    v = sorted(values)
    if len(v) >= 4:
        q = statistics.quantiles(v, n=4)
        iqr = [q[0], q[2]]
    else:
        iqr = [v[0], v[-1]]
    return {"median": statistics.median(v), "min": v[0], "max": v[-1],
            "iqr": iqr, "n": len(v)}


def geomean(values):
    return math.exp(sum(math.log(x) for x in values) / len(values))


def build_targets(*targets):
    subprocess.run(["cmake", "--build", BUILD, "--target", *targets],
                   check=True, stdout=subprocess.DEVNULL)


def go_binary(name):
    """Builds bench/go/NAME with Debian's golang-1.19; None without Go."""
    go = shutil.which("go") or "/usr/lib/go-1.19/bin/go"
    if not os.path.exists(go):
        return None
    out = os.path.join(BUILD, "bench", "go-" + name)
    env = dict(os.environ, GOFLAGS="-mod=mod",
               GOCACHE=os.path.join(BUILD, "go-cache"))
    subprocess.run([go, "build", "-o", out, "."], check=True, env=env,
                   cwd=os.path.join(ROOT, "bench", "go", name))
    return out


def clean_env(**extra):
    """The environment without copystack's switches (a COPYSTACK_STRESS=1
    left in a shell must not change a benchmark), plus extra."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("COPYSTACK_") or k == "COPYSTACK_BUILD_DIR"}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def check_load(limit=1.0):
    """Warns on stderr when the machine is busy: timings taken then are
    noise. Returns the 1-minute load."""
    load = os.getloadavg()[0]
    if load > limit:
        progress("warning: load average %.2f (> %.1f): times will be noisy; "
                 "instruction counts are not affected" % (load, limit))
    return load


def write_json(path, data):
    """--json PATH: '-' is stdout."""
    data.setdefault("machine", {})["load_end"] = loadavg()
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if path == "-":
        sys.__stdout__.write(text)
    else:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        progress("wrote %s" % path)


def fmt_spread(s, fmt="%.0f"):
    """'median [min-max]'."""
    return (fmt + " [" + fmt + "-" + fmt + "]") % (s["median"], s["min"],
                                                    s["max"])
