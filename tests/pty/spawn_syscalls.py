#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a spawn asks of the kernel: `scvm run -t pty` of a one-step
tui-use scenario under strace, its close(2) calls counted.

The init of every spawn (runtime/rt_proc.c) closes the descriptors the
program must not inherit.  It called close() on every number up to the
descriptor limit (20,000 calls on this machine's limit, 65,533 where the
limit is Docker's 1,048,576: 4.5 ms and about 15 ms a spawn) and left any
above 65,536 open; now close_range(2) does it in a call or two.  The count
does not depend on the limit, which is printed.

Then what a round trip asks (bench/run.py's PTY rows, docs/performance.md
"PTY round trips against expect"): 100 lines typed into `tr a-z A-Z`, each
waited for upper-cased, scvm's own process traced.  A trip reaps twice
(before typing, and before its check: one empty read of the exit pipe
each); the clock's waits, three a trip, reaped too (five empty reads a
trip), and every wait asked getpid(2) whose pipe the cancel pipe was.

usage: spawn_syscalls.py SCC SCVM WORKDIR
"""
import json
import os
import re
import resource
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import failures, fresh, say  # noqa: E402

SCC, SCVM, WORK = sys.argv[1:4]
CLOSE_MAX = 200        # today 28 (48 under ASan): the run's own files, pipes and the PTY's


def check(what, ok, detail=""):
    if not say(ok, what):
        print("  " + str(detail))


def trips(name, cmd, args, lines, want):
    """A tui-use scenario in WORK/NAME.json, compiled to NAME.scb: cmd
    args in a PTY, each line typed and want(line) waited for on the screen."""
    src, scb = os.path.join(WORK, name + ".json"), os.path.join(WORK, name + ".scb")
    with open(src, "w") as f:
        json.dump({"scenario_version": 1, "metadata": {"name": name},
                   "run": {"command": cmd, "args": args, "initial_size": {"rows": 24, "cols": 80},
                           "policy": {"policy_version": 4, "sandbox": "none", "sandbox_unsafe_ack": True,
                                      "network": "disabled", "network_unsafe_ack": True,
                                      "exec": {"allowed_executables": [cmd]}}},
                   "steps": [{"id": "00000000-0000-4000-8000-%012d" % (i + 1), "name": f"trip {i}",
                              "action": {"type": "text", "payload": {"text": line + "\n"}},
                              "assert": [{"type": "screen_contains", "payload": {"text": want(line)}}],
                              "timeout_ms": 10000, "retries": 0} for i, line in enumerate(lines)]}, f)
    r = subprocess.run([SCC, src, "-o", scb], capture_output=True, text=True)
    check(f"scc compiles the {name} scenario", r.returncode == 0, r.stderr)
    return scb


fresh(WORK)
scb = trips("one-trip", shutil.which("cat"), [], ["hello"], lambda line: line)
log = os.path.join(WORK, "strace.log")

limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
# LeakSanitizer cannot run under ptrace (the sanitizer build): the rest of
# ASan and UBSan still do
env = dict(os.environ, ASAN_OPTIONS=(os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":"))
r = subprocess.run(["strace", "-f", "-qq", "-e", "trace=close,close_range", "-o", log,
                    SCVM, "run", "-t", "pty", "-o", os.devnull, scb], capture_output=True, text=True, timeout=120,
                   env=env)
check("the run passes under strace", r.returncode == 0, r.stderr[-600:])
with open(log) as f:
    calls = f.read()
n_close = len(re.findall(r"\bclose\(", calls))
n_range = len(re.findall(r"\bclose_range\(", calls))
print(f"descriptor limit {limit}: {n_close} close, {n_range} close_range")
check(f"at most {CLOSE_MAX} close calls whatever the descriptor limit ({limit})", n_close <= CLOSE_MAX,
      f"{n_close} calls")
check("the spawn's init closes the rest with close_range", n_range >= 1, calls[-800:])

TRIPS = 100
scb = trips("trips", os.path.realpath(shutil.which("tr")), ["a-z", "A-Z"], [f"line{i}" for i in range(TRIPS)],
            str.upper)
log = os.path.join(WORK, "trips.log")
# scvm's process alone (no -f): not init's, not tr's
r = subprocess.run(["strace", "-qq", "-e", "trace=read,getpid", "-o", log,
                    SCVM, "run", "-t", "pty", "-o", os.devnull, scb], capture_output=True, text=True, timeout=300,
                   env=env)
check(f"{TRIPS} round trips pass under strace", r.returncode == 0, r.stderr[-600:])
with open(log) as f:
    calls = f.read()
empty = len(re.findall(r"^read\(.*= -1 EAGAIN", calls, re.M))
pids = len(re.findall(r"^getpid\(", calls, re.M))
print(f"{TRIPS} trips: {empty} empty reads, {pids} getpid")
check(f"at most two empty reads a trip (reaps), {2 * TRIPS + 10} in all", empty <= 2 * TRIPS + 10, f"{empty} reads")
check("no getpid a trip", pids <= 10, f"{pids} calls")
if failures:
    sys.exit(1)
print("spawn_syscalls: ok")
