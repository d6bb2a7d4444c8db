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

# file: the source's path from the repository's root with --source-dir
# (the git work tree the folder is in; else the folder joined, as given)
def toplevel(d):
    d = os.path.realpath(d)
    while d != "/":
        if os.path.exists(os.path.join(d, ".git")):
            return d
        d = os.path.dirname(d)
    return None


top = toplevel(stdlib)
p = subprocess.run([scvm, "run", "--allow-skipped", "--source-dir", stdlib, "--junit", out, "-o", os.devnull, pack],
                   capture_output=True, text=True)
cases = [c for suite in JUnitXml.fromfile(out) for c in suite]
prefix = os.path.relpath(os.path.realpath(stdlib), top) + "/" if top else stdlib + "/"
files = [c._elem.get("file") for c in cases]
check(p.returncode == 0 and files and all(f.startswith(prefix) and os.path.exists(os.path.join(top or "/", f))
                                          for f in files),
      "--source-dir: file from the repository's root (%s...): %s" % (prefix, files[:2]))
check(not any(c.system_out for c in cases), "the simulation writes no <system-out>")

# a folder of sources run directly (scvm compiles them): file is each
# source's path from the repository's root, no option needed
src_xml = os.path.join(work, "sources.xml")
p = subprocess.run([scvm, "run", "--allow-skipped", "--junit", src_xml, "-o", os.devnull, stdlib],
                   capture_output=True, text=True, env=dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "cache")))
cases = [c for suite in JUnitXml.fromfile(src_xml) for c in suite] if os.path.exists(src_xml) else []
files = [c._elem.get("file") for c in cases]
check(p.returncode == 0 and files and all(f.startswith(prefix) and f.endswith(".yaml") and
                                          os.path.exists(os.path.join(top or "/", f)) for f in files),
      "sources run directly: file from the repository's root (%s...): %s %s" % (prefix, files[:2], p.stderr[-300:]))

# <system-out> on the PTY target: the transcript's tail and a failure's diff
scn = os.path.join(work, "shot.yaml")
with open(scn, "w") as f:
    f.write("name: shot\nah:\n  cmd: /bin/bash\n  flags: [--norc, --noprofile, -i]\n  env: {PS1: '$ '}\n"
            "timeline:\n  - assert:\n      text:\n        contains: ['$']\n"
            "  - userInputs:\n      - [10, 'echo -e \"\\e[1mbold\\e[0m tail-of-the-transcript\"']\n"
            "  - assert:\n      text:\n        contains: ['bold tail-of-the-transcript']\n"
            "  - screenshot: s\n  - userInputs:\n      - [10, 'exit']\n")
shot = os.path.join(work, "shot.scp")
subprocess.run([scc, "--pack", "-o", shot, scn], check=True)
env = dict(os.environ, CI="0")
pty_xml = os.path.join(work, "pty.xml")
argv = [scvm, "run", "-t", "pty", "--source-dir", work, "--artifacts", os.path.join(work, "art"), "--junit", pty_xml,
        "-o", os.devnull, shot]
p = subprocess.run(argv, capture_output=True, text=True, env=env)
golden = os.path.join(work, "goldens", "shot", "80x24", "screenshots", "s.golden")
check(p.returncode == 0 and os.path.exists(golden), "the golden written beside the source (--source-dir): %d %s"
      % (p.returncode, p.stderr[-300:]))
c = [c for suite in JUnitXml.fromfile(pty_xml) for c in suite][0]
so = c.system_out or ""
check("bold tail-of-the-transcript" in so and "\x1b" not in so and "diagnostics" not in so,
      "a pass: <system-out> holds the transcript's tail as text: %r" % so[-300:])
g = open(golden).read().replace("tail-of-the-transcript", "tail-of-the-TRANSCRIPT")
with open(golden, "w") as f:
    f.write(g)
p = subprocess.run(argv, capture_output=True, text=True, env=env)
c = [c for suite in JUnitXml.fromfile(pty_xml) for c in suite][0]
so = c.system_out or ""
check(p.returncode == 1 and any(isinstance(r, Failure) for r in c.result), "a golden mismatch is a <failure>")
check("bold tail-of-the-transcript" in so and "diagnostics:" in so and "TRANSCRIPT" in so,
      "a failure: <system-out> holds the transcript's tail and the diff: %r" % so[-600:])
sys.exit(1 if fails else 0)
