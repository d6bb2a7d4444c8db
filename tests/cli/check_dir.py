#!/usr/bin/env python3
"""check_dir.py SCC STDLIB WORK - `scc --check DIR` chooses files as
`scc --pack DIR` does: the project's own stdlib-scenarios/ passes (its
terminal configs are data a scenario references), while a .json in the
folder that no scenario references is still checked as a scenario."""
import os
import shutil
import subprocess
import sys

SCC, STD, WORK = sys.argv[1:4]
fails = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg)
    if not cond:
        fails.append(msg)


p = subprocess.run([SCC, "--check", STD], capture_output=True, text=True)
check(p.returncode == 0 and "error" not in p.stderr, "scc --check stdlib-scenarios/: exit %d %s" % (p.returncode, p.stderr[-400:]))
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(os.path.join(WORK, "terminal"))
with open(os.path.join(WORK, "terminal", "t.json"), "w") as f:
    f.write('{"width": 80, "height": 24}')
with open(os.path.join(WORK, "stray.json"), "w") as f:
    f.write('{"width": 80}')
with open(os.path.join(WORK, "s.yaml"), "w") as f:
    f.write("name: s\nterminalRef: terminal/t.json\ntimeline:\n  - userInputs:\n      - [10, \"x\"]\n")
p = subprocess.run([SCC, "--check", WORK], capture_output=True, text=True)
check(p.returncode == 1 and "stray.json:1:1:" in p.stderr and "t.json" not in p.stderr,
      "a referenced .json is data, a stray one is checked: exit %d %s" % (p.returncode, p.stderr[-400:]))
sys.exit(1 if fails else 0)
