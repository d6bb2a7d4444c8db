#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scvm's runners take scenario sources and folders (issue 33 item 1;
docs/scvm.md, "Sources, not only compiled files").

The same events as scc's bytecode, -D resolved as scc resolves it, a folder
chosen by scc's rule, errors located with status 1, and the cache: made on
the first run, used on the second, a corrupt entry compiled again, a warning
never hidden by a hit, eight runs at once on an empty cache.

usage: sources.py SCC SCVM STDLIB WORKDIR
"""
import concurrent.futures
import glob
import os
import shutil
import signal
import subprocess
import sys

SCC, SCVM, STD, WORK = sys.argv[1:5]
fails = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what + ("" if ok else "\n  " + str(detail)[-2000:]))
    if not ok:
        fails.append(what)


def run(args, env=None, cwd=None):
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
cache = os.path.join(WORK, "cache")
env = dict(os.environ, XDG_CACHE_HOME=cache)
env.pop("AH_SCENARIO_DEFINES", None)
fix = os.path.join(STD, "bugfix_with_tests.yaml")
rules = os.path.join(STD, "rules_timeline_protocol.yaml")

# ---- the same events as the compiled file ----
scb = os.path.join(WORK, "fix.scb")
run([SCC, "-o", scb, fix])
a = run([SCVM, "run", "--allow-skipped", scb], env)
b = run([SCVM, "run", "--allow-skipped", fix], env)
check("scvm run FILE.yaml plays what scvm run FILE.scb plays, byte for byte",
      b.returncode == 0 and a.stdout == b.stdout and a.stdout, (a.returncode, b.returncode, b.stderr))
entries = glob.glob(os.path.join(cache, "scc", "*.scb"))
check("the first run leaves one cache entry under $XDG_CACHE_HOME/scc (%d)" % len(entries), len(entries) == 1)
c = run([SCVM, "run", "--allow-skipped", fix], env)
check("a second run (a cache hit) plays the same", c.returncode == 0 and c.stdout == a.stdout, c.stderr)
with open(entries[0], "r+b") as f:        # a torn entry: compiled again, not trusted
    f.truncate(40)
d = run([SCVM, "run", "--allow-skipped", fix], env)
check("a corrupt cache entry is compiled again", d.returncode == 0 and d.stdout == a.stdout, d.stderr)
check("... and written anew", os.path.getsize(entries[0]) > 40)

# ---- -D as scc resolves it ----
for defs in ([], ["-D", "protocol_version=2"], ["-D", "protocol_version=2", "-D", "env=staging"]):
    v = os.path.join(WORK, "v.scb")
    run([SCC, "-o", v] + defs + [rules])
    x = run([SCVM, "run", "--allow-skipped", v], env)
    y = run([SCVM, "run", "--allow-skipped"] + defs + [rules], env)
    check("scvm run %s FILE.yaml resolves the rules as scc %s does" % (" ".join(defs), " ".join(defs)),
          x.returncode == 0 and x.stdout == y.stdout and x.stdout, (y.returncode, y.stderr))
e2 = dict(env, AH_SCENARIO_DEFINES="protocol_version=2")
v2 = run([SCC, "-o", os.path.join(WORK, "v2.scb"), "-D", "protocol_version=2", rules])
x = run([SCVM, "run", "--allow-skipped", os.path.join(WORK, "v2.scb")], env)
y = run([SCVM, "run", "--allow-skipped", rules], e2)
check("AH_SCENARIO_DEFINES is read as scc reads it", y.returncode == 0 and x.stdout == y.stdout, y.stderr)
z = run([SCVM, "run", "--allow-skipped", "-D", "protocol_version=1", rules], e2)
x1 = run([SCVM, "run", "--allow-skipped", os.path.join(WORK, "v2.scb")], env)
check("-D wins over AH_SCENARIO_DEFINES", z.returncode == 0 and z.stdout != x1.stdout, z.stderr)

# ---- errors: located, status 1; a warning never hidden by the cache ----
bad = os.path.join(WORK, "bad.yaml")
with open(bad, "w") as f:
    f.write("name: bad\ntimeline:\n  - llmRespons:\n      - assistant: [[10, hi]]\n")
r = run([SCVM, "run", bad], env)
check("a scenario with an error: status 1 and file:line:col",
      r.returncode == 1 and "bad.yaml:3:5: error: unknown event 'llmRespons'" in r.stderr, (r.returncode, r.stderr))
warn = os.path.join(WORK, "warn.yaml")
with open(warn, "w") as f:
    f.write("name: warned\nfrobnicate: 1\ntimeline:\n  - llmResponse:\n      - assistant: [[10, hi]]\n")
w1, w2 = run([SCVM, "run", warn], env), run([SCVM, "run", warn], env)
check("a warning is shown on every run (such compilations are not cached)",
      w1.returncode == 0 and "warning" in w1.stderr and w1.stderr == w2.stderr, (w1.stderr, w2.stderr))

# ---- a folder: scc's rule ----
folder = os.path.join(WORK, "suite")
shutil.copytree(STD, folder)
with open(os.path.join(folder, ".sccignore"), "w") as f:
    f.write("pty_*\n")
pk = os.path.join(WORK, "suite.scp")
p = run([SCC, "--pack", "-o", pk, folder])
l1, l2 = run([SCVM, "ls", pk], env), run([SCVM, "ls", folder], env)
names = lambda out: sorted(l.split()[1] for l in out.splitlines()[1:] if l.strip())
check("scvm ls DIR lists what scc --pack DIR packs (.sccignore honoured, data skipped)",
      p.returncode == 0 and l2.returncode == 0 and names(l1.stdout) == names(l2.stdout) and names(l1.stdout)
      and not any(n.startswith("pty_") for n in names(l2.stdout)), (names(l1.stdout), names(l2.stdout), l2.stderr))
check("the folder's data files are skipped with a note", "skipped: a Terminal-Config" in l2.stderr, l2.stderr)
r = run([SCVM, "run", "--allow-skipped", "-j", "2", folder], env)
check("scvm run DIR plays the folder's scenarios", r.returncode == 0 and r.stdout, (r.returncode, r.stderr[-800:]))
empty = os.path.join(WORK, "empty")
os.makedirs(empty)
r = run([SCVM, "ls", empty], env)
check("an empty folder is a usage error", r.returncode == 2 and "no scenarios" in r.stderr, r.stderr)

# ---- eight runs at once on an empty cache ----
shutil.rmtree(cache)
with concurrent.futures.ThreadPoolExecutor(8) as ex:
    outs = list(ex.map(lambda _: run([SCVM, "run", "--allow-skipped", fix], env), range(8)))
check("eight runs at once share the cache: each plays the same",
      all(o.returncode == 0 and o.stdout == a.stdout for o in outs), [o.stderr for o in outs if o.returncode])
left = [n for n in os.listdir(os.path.join(cache, "scc")) if not n.endswith(".scb")]
check("no temporary file is left in the cache (%s)" % left, not left)

# ---- a server takes a source ----
s = subprocess.Popen([SCVM, "serve", "llm", "--listen", "127.0.0.1:0", fix], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True, env=env)
line = s.stdout.readline()
s.send_signal(signal.SIGTERM)
out, err = s.communicate(timeout=30)
check("scvm serve llm FILE.yaml serves it", "listening on http://127.0.0.1:" in line, line + err)

print("cli.sources: %s" % ("all checks passed" if not fails else "%d failed" % len(fails)))
sys.exit(1 if fails else 0)
