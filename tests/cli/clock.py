#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""clock.py SCC SCVM WORK - the two clocks (docs/timing.md, "Two clocks").

The spec clock is chosen by `clock: spec` in the file or --clock=spec (the
file wins), recorded in the bytecode's config and shown by `scc -l` and
`scvm info`; the reference clock leaves the bytecode as it was.  Exit 0 or 1.
"""
import json, os, shutil, subprocess, sys

SCC, SCVM, WORK = sys.argv[1:4]
D = os.path.join(WORK, "clock")
shutil.rmtree(D, ignore_errors=True)
os.makedirs(D)
fails = []


def check(c, msg):
    if not c:
        fails.append(msg)
        print("FAIL:", msg)


def run(*a):
    return subprocess.run([str(x) for x in a], cwd=D, capture_output=True, text=True, timeout=60)


BODY = """timeline:
  - llmResponse:
      - think:
          - [500, "first"]
          - [300, "then"]
  - userInputs:
      - [200, "typed while the agent thinks"]
  - baseTimeDelta: 1000
"""
open(os.path.join(D, "plain.yaml"), "w").write("name: plain\n" + BODY)
open(os.path.join(D, "spec.yaml"), "w").write("name: spec\nclock: spec\n" + BODY)
open(os.path.join(D, "ref.yaml"), "w").write("name: ref\nclock: reference\n" + BODY)

p = run(SCC, "-o", "plain.scb", "plain.yaml")
check(p.returncode == 1 and "earlier than the step before it" in p.stderr, "reference clock: a decreasing offset")
for args, src, want in ((["--clock=spec"], "plain.yaml", "spec"), ([], "spec.yaml", "spec"),
                        (["--clock=spec"], "ref.yaml", None), (["--clock=reference"], "spec.yaml", "spec")):
    out = src.replace(".yaml", ".scb")
    p = run(SCC, *args, "-o", out, src)
    if want is None:
        check(p.returncode == 1, "%s %s: the file's clock: reference wins over --clock=spec" % (args, src))
        continue
    check(p.returncode == 0, "%s %s: %s" % (args, src, p.stderr))
    info = json.loads(run(SCVM, "info", "--json", out).stdout)
    check(info["clock"] == want and info["config"].get("clock") == want, "%s %s: info %s" % (args, src, info))
    lst = run(SCC, *args, "-l", src).stdout
    check("; clock     spec\n" in lst, "%s %s: scc -l shows the clock" % (args, src))
    ev = [json.loads(l) for l in run(SCVM, "run", out).stdout.splitlines()]
    times = [(e["kind"], e["at_ms"]) for e in ev if e["kind"] in ("thinking", "user_input")]
    check(times == [("user_input", 200), ("thinking", 500), ("thinking", 800)], "%s %s: %s" % (args, src, times))
# the reference clock records nothing: bytecode as before
open(os.path.join(D, "r.yaml"), "w").write("name: r\ntimeline:\n  - llmResponse:\n      - assistant:\n          - [100, \"hi\"]\n")
run(SCC, "-o", "r1.scb", "r.yaml")
run(SCC, "--clock=reference", "-o", "r2.scb", "r.yaml")
check(open(os.path.join(D, "r1.scb"), "rb").read() == open(os.path.join(D, "r2.scb"), "rb").read(),
      "--clock=reference is the default: the same bytes")
check(json.loads(run(SCVM, "info", "--json", "r1.scb").stdout)["clock"] == "reference", "info says reference")
check("; clock" not in run(SCC, "-l", "r.yaml").stdout, "no clock line for the default")
p = run(SCC, "--clock=later", "r.yaml")
check(p.returncode == 2 and "invalid --clock 'later' (spec or reference)" in p.stderr, "bad --clock: %s" % p.stderr)
print("clock: %d failures" % len(fails))
sys.exit(1 if fails else 0)
