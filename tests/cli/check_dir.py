#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_dir.py SCC STDLIB WORK - `scc --check DIR` chooses files as
`scc --pack DIR` does, by one rule (docs/check.md, "Which files"): the
project's own stdlib-scenarios/ passes (its terminal configs are data a
scenario references), while a .json in the folder that no scenario
references is still checked as a scenario; a Yao .jsonl below a DIR is a
scenario; CI workflows, package.json, JSON Schemas and the like are skipped
with a note; --exclude and .sccignore leave out what they match; two
scenarios of one name are an error of --check, located, as --pack
refuses them."""
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
check(p.returncode == 1 and "stray.json:1:1:" in p.stderr and "t.json:1" not in p.stderr,
      "a referenced .json is data, a stray one is checked: exit %d %s" % (p.returncode, p.stderr[-400:]))

# ---- one rule for both ----
proj = os.path.join(WORK, "proj")
for d in ("ci", "drafts", "sub", "vendor/lib"):
    os.makedirs(os.path.join(proj, d))
scen = "name: %s\ntimeline:\n  - userInputs:\n      - [10, \"x\"]\n  - assert:\n      text:\n        contains: [x]\n"
files = {
    "a.yaml": scen % "alpha",
    "sub/b.yaml": scen % "beta",
    "ci/build.yml": "name: build\non:\n  push:\njobs:\n  b:\n    runs-on: ubuntu-latest\n",
    "compose.yaml": "services:\n  db:\n    image: postgres\n",
    "package.json": '{"name": "x", "version": "1.0.0", "scripts": {"test": "x"}}\n',
    "schema.json": '{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}\n',
    "cases.jsonl": '{"id": "t1", "input": "Hello", "assert": {"type": "contains", "value": "Hi"}}\n',
    "drafts/wip.yaml": "broken: [\n",
    "vendor/lib/x.yaml": "also: [broken\n",
    ".sccignore": "# work in progress\ndrafts/\n",
}
for name, text in files.items():
    with open(os.path.join(proj, name), "w") as f:
        f.write(text)
p = subprocess.run([SCC, "--check", "--exclude", "vendor", proj], capture_output=True, text=True)
notes = sorted(l for l in p.stderr.splitlines() if l.startswith("scc: note:"))
check(p.returncode == 0 and notes == sorted("scc: note: %s/%s: skipped: %s, not a scenario" % (proj, f, w) for f, w in (
    ("ci/build.yml", "a GitHub Actions workflow"), ("compose.yaml", "a Compose file"),
    ("package.json", "a package.json"), ("schema.json", "a JSON Schema"))) and len(p.stderr.splitlines()) == 4,
      "--check DIR: data files skipped with a note, drafts/ (.sccignore) and vendor (--exclude) left out: %d %s"
      % (p.returncode, p.stderr[-600:]))
p = subprocess.run([SCC, "--check", proj], capture_output=True, text=True)
check(p.returncode == 1 and "vendor/lib/x.yaml:1:" in p.stderr and "drafts" not in p.stderr,
      "without --exclude vendor/ is checked, drafts/ still ignored: %d %s" % (p.returncode, p.stderr[-300:]))
pack = os.path.join(WORK, "p.scp")
p = subprocess.run([SCC, "--pack", "-o", pack, "--exclude", "vendor/", proj], capture_output=True, text=True)
check(p.returncode == 0, "--pack DIR takes the same files: %d %s" % (p.returncode, p.stderr[-300:]))
ls = subprocess.run([os.path.join(os.path.dirname(SCC), "scvm"), "ls", "--json", pack], capture_output=True, text=True)
import json
names = sorted(json.loads(l)["name"] for l in ls.stdout.splitlines())
check(names == ["alpha", "beta", "cases"], "the pack holds the scenarios, the Yao file among them: %s" % names)
p = subprocess.run([SCC, "--check", "--exclude=vendor", os.path.join(proj, "ci", "build.yml")], capture_output=True, text=True)
check(p.returncode == 1 and "build.yml:" in p.stderr, "a data file named on the command line is compiled: %d" % p.returncode)
# two scenarios of one name: --pack refuses, --check says where
with open(os.path.join(proj, "sub", "b.yaml"), "w") as f:
    f.write("# the same name\n" + scen % "alpha")
p = subprocess.run([SCC, "--check", "--exclude", "vendor", proj], capture_output=True, text=True)
check(p.returncode == 1 and "%s/sub/b.yaml:2:1: error: a second scenario named 'alpha'" % proj in p.stderr and
      "%s/a.yaml:1:1: note: the first scenario named 'alpha'" % proj in p.stderr,
      "--check: a second scenario of one name: %d %s" % (p.returncode, p.stderr[-400:]))
p = subprocess.run([SCC, "--pack", "-o", pack, "--exclude", "vendor", proj], capture_output=True, text=True)
check(p.returncode != 0 and "alpha" in p.stderr, "--pack refuses it too: %d %s" % (p.returncode, p.stderr[-200:]))
sys.exit(1 if fails else 0)
