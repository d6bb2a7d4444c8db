#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""shard_timings.py SCC SCVM WORK - `scvm run --shard I/N --timings JUNIT`
and `scvm report --merge` (docs/ci.md): the shards of the stdlib pack balanced by the durations of a
full run's JUnit report are exactly the longest-first assignment (each
scenario to the least loaded shard), their loads beat round robin's, the
four shards together are the full run (`scvm report --merge` makes the
four JUnit reports the full run's report, byte for byte), and bad timings
files and overlapping shards are refused."""
import os
import re
import shutil
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import expect, failures  # noqa: E402

scc, scvm, work = sys.argv[1:4]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib-scenarios")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def run(*a):
    return subprocess.run([scvm, *a], capture_output=True, text=True)


pack = os.path.join(work, "std.scp")
subprocess.run([scc, "--pack", "-o", pack, root], check=True, capture_output=True)
full = os.path.join(work, "full.xml")
expect(run("run", "--allow-skipped", "--junit", full, pack).returncode == 0, "the full run")
text = open(full).read()
# a testcase: its wall time, and the scheduled time (a property) that --timings
# uses when longer (a simulation takes no wall time)
CASE = r'(<testcase [^>]*name="([^"]*)"[^>]*time="([0-9.]+)">.*?scheduled_time" value="([0-9.]+)".*?</testcase>)'
cases = [(c, n, max(float(t), float(st))) for c, n, t, st in re.findall(CASE, text, re.S)]
expect(len(cases) > 8, "a full report: %d testcases" % len(cases))
w = [t for _, _, t in cases]
untimed = lambda x: re.sub(r' time="[0-9.]+"', '', x)

# what the balanced split must be: longest first (ties: pack order), each to the least loaded (ties: lowest)
order = sorted(range(len(w)), key=lambda i: (-w[i], i))
load, shard = [0.0] * 4, {}
for i in order:
    b = min(range(4), key=lambda j: (load[j], j))
    load[b] += w[i]
    shard[i] = b
merged = []
for k in range(4):
    out = os.path.join(work, "s%d.xml" % (k + 1))
    r = run("run", "--allow-skipped", "--junit", out, "--shard", "%d/4" % (k + 1), "--timings", full, pack)
    expect(r.returncode == 0, "shard %d: %s" % (k + 1, r.stderr))
    got = [(c, n) for c, n, _, _ in re.findall(CASE, open(out).read(), re.S)]
    expect([n for _, n in got] == [cases[i][1] for i in range(len(w)) if shard[i] == k],
           "shard %d holds %s" % (k + 1, [n for _, n in got]))
    merged += [line for line, _ in got]
rr = []
for k in range(4):
    r = run("run", "--allow-skipped", "--junit", os.path.join(work, "rr.xml"), "--shard", "%d/4" % (k + 1), pack)
    rr.append(sum(max(float(t), float(st)) for _, _, t, st in
                  re.findall(CASE, open(os.path.join(work, "rr.xml")).read(), re.S)))
expect(max(load) <= max(rr), "balanced %s, round robin %s" % (load, rr))
print("longest shard: %.2f s balanced, %.2f s round robin" % (max(load), max(rr)))
pos = {untimed(line): k for k, (line, _, _) in enumerate(cases)}
expect(sorted(map(untimed, merged), key=lambda l: pos.get(l, -1)) == [untimed(c[0]) for c in cases],
       "the shards together are not the full run")
# scvm report --merge: the four reports are the single run's report, byte for
# byte but for the wall times
out = os.path.join(work, "merged.xml")
r = run("report", "--merge", "-o", out, *[os.path.join(work, "s%d.xml" % (k + 1)) for k in (2, 0, 3, 1)])
expect(r.returncode == 0 and untimed(open(out).read()) == untimed(text), "report --merge: %d %s" % (r.returncode, r.stderr))
r = run("report", "--merge", "-o", out, os.path.join(work, "s1.xml"), os.path.join(work, "s1.xml"))
expect(r.returncode == 2 and "the shards overlap" in r.stderr, "overlapping shards: %d %s" % (r.returncode, r.stderr))

# refusals
bad = os.path.join(work, "bad.xml")
with open(bad, "w") as f:
    f.write("<html>no report</html>\n")
r = run("run", "--shard", "1/2", "--timings", bad, pack)
expect(r.returncode == 2 and "no <testcase> elements" in r.stderr, "a file that is no report: %d %s" % (r.returncode, r.stderr))
r = run("report", "--merge", "-o", os.path.join(work, "m.xml"), bad)
expect(r.returncode == 2 and "not a JUnit XML report" in r.stderr, "report --merge of no report: %d" % r.returncode)
r = run("run", "--timings", full, pack)
expect(r.returncode == 2 and "needs --shard" in r.stderr, "--timings without --shard: %d" % r.returncode)
r = run("run", "--shard", "1/2", "--timings", os.path.join(work, "missing.xml"), pack)
expect(r.returncode == 3, "a missing timings file: %d" % r.returncode)
# a scenario the report does not name counts as the mean of the others
part = os.path.join(work, "part.xml")
with open(part, "w") as f:
    f.write(text.replace(cases[0][0], ""))
r = run("ls", "--shard", "1/4", "--timings", part, pack)
expect(r.returncode == 0, "a partial report: %s" % r.stderr)
sys.exit(1 if failures else 0)
