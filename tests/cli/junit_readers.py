#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""junit_readers.py SCC SCVM STDLIB WORK - scvm's JUnit reports as the
dashboards read them (Jenkins, GitLab, Buildkite), through a real JUnit
reader (junitparser, Debian's python3-junitparser): --junit into a folder
that does not exist yet is created; every testcase's classname is the
dotted suite.scenario (a package and a class), its name the scenario; the
counts agree with the summary line.  Exit 0 or 1."""
import os
import shutil
import subprocess
import sys

try:
    from junitparser import JUnitXml, Failure, Error, Skipped
except ImportError:   # Debian's package, when ctest's Python is another one (pyenv)
    sys.path.append("/usr/lib/python3/dist-packages")
    from junitparser import JUnitXml, Failure, Error, Skipped

scc, scvm, stdlib, work = map(os.path.abspath, sys.argv[1:5])
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
fails = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)


pack = os.path.join(work, "std.scp")
subprocess.run([scc, "--pack", "-o", pack, stdlib], check=True, capture_output=True)
out = os.path.join(work, "reports", "ci", "junit.xml")   # reports/ci/ does not exist
p = subprocess.run([scvm, "run", "--allow-skipped", "--junit", out, "-o", os.path.join(work, "ev.jsonl"), pack],
                   capture_output=True, text=True)
check(p.returncode == 0 and os.path.exists(out), "--junit into new folders: exit %d %s" % (p.returncode, p.stderr[-200:]))
xml = JUnitXml.fromfile(out)
cases = [c for suite in xml for c in suite]
names = subprocess.run([scvm, "ls", pack], capture_output=True, text=True).stdout
check(len(cases) > 10, "a testcase per scenario: %d" % len(cases))
check(all(c.classname == "std." + c.name.replace(".", "_") for c in cases),
      "classname is suite.scenario: %s" % [(c.classname, c.name) for c in cases[:3]])
skipped = sum(1 for c in cases if any(isinstance(r, Skipped) for r in c.result))
passed = sum(1 for c in cases if not c.result)
check("%d passed, 0 failed, %d skipped" % (passed, skipped) in p.stderr, "the counts agree: %d/%d %r" % (
      passed, skipped, p.stderr[-120:]))
check(all(c.time >= 0 for c in cases) and all(not any(isinstance(r, (Failure, Error)) for r in c.result)
                                              for c in cases), "times and verdicts read")
sys.exit(1 if fails else 0)
