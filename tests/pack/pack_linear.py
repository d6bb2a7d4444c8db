#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scc --pack DIR is linear in the number of scenarios (issue 35 item 0).

Counts what the build asks of the kernel, not how long it takes: strace -c
over `scc --pack` of N and 4N small scenarios in one folder.  The folder is
listed a fixed number of times whatever N is (a listing per scenario made
5,000 scenarios take 30,008 getdents64 calls), and each further scenario
costs a bounded number of system calls.  The folders' times are set an hour
back, as a checked-out suite's are (a folder changed in the last two
seconds is listed afresh: compiler/embed.c).

usage: pack_linear.py SCC WORKDIR
"""
import os
import re
import shutil
import subprocess
import sys

SCC, WORK = sys.argv[1], sys.argv[2]
# today 14 (15 under ASan) and a readlink per component of the folder's
# path (a realpath of the folder per scenario): bounded, whatever N is.
# 18 before the pack compiled from the bytes its matrix check read (a read
# of each file less: open, fstat, two reads, close)
PER_SCENARIO_MAX = 17 + len(os.path.abspath(WORK).split(os.sep))
fails = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else "\n  " + str(detail)))
    if not ok:
        fails.append(what)


def make(n):
    d = os.path.join(WORK, "s%d" % n)
    os.makedirs(d)
    for i in range(n):
        with open(os.path.join(d, "s%06d.yaml" % i), "w") as f:
            f.write("name: s%06d\ntimeline:\n  - llmResponse:\n      - assistant:\n"
                    "          - relativeTime: 10\n            content: \"hello %d\"\n" % (i, i))
    # one scenario with goldens beside it: they are found in the kept listing
    with open(os.path.join(d, "s000001.golden.txt"), "w") as f:
        f.write("golden\n")
    old = os.stat(d).st_mtime - 3600
    os.utime(d, (old, old))
    return d


def syscalls(d, n):
    out, trace = os.path.join(WORK, "s%d.scp" % n), os.path.join(WORK, "s%d.strace" % n)
    # LeakSanitizer cannot run under ptrace: leaks are the other pack tests'
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    r = subprocess.run(["strace", "-f", "-c", "-o", trace, SCC, "--pack", "-o", out, d + "/"],
                       capture_output=True, text=True, env=env)
    check("scc --pack of %d scenarios exits 0" % n, r.returncode == 0, r.stderr[-2000:])
    counts = {}
    with open(trace) as f:
        for line in f:
            m = re.match(r"\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$", line)
            if m and m.group(2) != "total":
                counts[m.group(2)] = int(m.group(1))
    return counts, out


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
n1, n2 = 250, 1000
c1, p1 = syscalls(make(n1), n1)
c2, p2 = syscalls(make(n2), n2)
g1, g2 = c1.get("getdents64", 0), c2.get("getdents64", 0)
check("the folder is listed a fixed number of times (getdents64: %d for %d scenarios, %d for %d)" % (g1, n1, g2, n2),
      0 < g2 <= g1 + 4 and g2 <= 16, (c1, c2))
t1, t2 = sum(c1.values()), sum(c2.values())
per = (t2 - t1) / (n2 - n1)
check("each further scenario costs at most %d system calls (%.1f)" % (PER_SCENARIO_MAX, per),
      0 < per <= PER_SCENARIO_MAX, (c1, c2))
r = subprocess.run([os.path.join(os.path.dirname(SCC), "scvm"), "ls", p2], capture_output=True, text=True)
check("the pack holds every scenario (scvm ls: %d lines)" % len(r.stdout.splitlines()),
      r.returncode == 0 and sum(1 for l in r.stdout.splitlines() if re.search(r"\bs0\d{5}\b", l)) == n2, r.stdout[-500:] + r.stderr)
r = subprocess.run(["sh", "-c", 'cd "$1" && "$2" --pack -o dup.scp s%d/s000001.yaml s%d/s000001.yaml' % (n1, n2),
                    "sh", WORK, SCC], capture_output=True, text=True)
check("two scenarios with one name are still refused",
      r.returncode != 0 and "duplicate scenario name 's000001'" in r.stderr, r.stderr)
print("pack.linear: %s" % ("all checks passed" if not fails else "%d failed" % len(fails)))
sys.exit(1 if fails else 0)
