#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""color.py SCC SCVM ROOT WORK - one colour rule for scc and scvm agent
(common/color.h, docs/check.md "Colour"), on a real terminal (script(1))
and off one: NO_COLOR set and not empty turns colour off (an empty one does
not), TERM=dumb turns it off, FORCE_COLOR / CLICOLOR_FORCE force it (also
into a pipe; "0" does not), --color=always|never beat the environment.
Exit 0, or 1 listing each case that differs."""
import os
import shlex
import subprocess
import sys

scc, scvm, root, work = map(os.path.abspath, sys.argv[1:5])
os.makedirs(work, exist_ok=True)
bad = os.path.join(work, "bad.yaml")
open(bad, "w").write("name: bad\ntimeline:\n  - userInputs:\n      - input: hi\n        relativeTime: -1\n")
scb = os.path.join(work, "fix.scb")
subprocess.run([scc, "-o", scb, os.path.join(root, "tests", "mockagent", "fix_typo.yaml")], check=True)
ws = os.path.join(work, "ws")
failures = []

CLEAN = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE", "TERM")}
CLEAN["TERM"] = "xterm"


def colored(cmd, env, tty):
    e = dict(CLEAN, **env)
    if tty:
        # script(1) gives the command a real terminal for stdout and stderr
        p = subprocess.run(["script", "-qec", " ".join(map(shlex.quote, cmd)), "/dev/null"], env=e,
                           capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        text = p.stdout
    else:
        p = subprocess.run(cmd, env=e, capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
        text = p.stdout + p.stderr
    return b"\x1b[" in text


CASES = [  # env, on a terminal?, extra options, colour expected
    ({}, True, [], True),
    ({}, False, [], False),
    ({"NO_COLOR": "1"}, True, [], False),
    ({"NO_COLOR": ""}, True, [], True),
    ({"TERM": "dumb"}, True, [], False),
    ({"FORCE_COLOR": "1"}, False, [], True),
    ({"CLICOLOR_FORCE": "1"}, False, [], True),
    ({"FORCE_COLOR": "0"}, True, [], False),
    ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False, [], True),
    ({"NO_COLOR": "1"}, True, ["--color=always"], True),
    ({"FORCE_COLOR": "1"}, False, ["--color=never"], False),
]
for env, tty, extra, want in CASES:
    for name, cmd in (("scc", [scc, "--check"] + extra + [bad]),
                      ("scvm agent", [scvm, "agent", "--speed", "0", "--cwd", ws] + extra + [scb])):
        if name == "scvm agent":
            subprocess.run(["rm", "-rf", ws])
            os.makedirs(ws)
        got = colored(cmd, env, tty)
        if got != want:
            failures.append("%s %s %s %s: colour %s, want %s" % (name, env, "on a terminal" if tty else "piped",
                                                                  extra, got, want))
            print("FAIL:", failures[-1])
print("color: %d cases, %d failures" % (len(CASES) * 2, len(failures)))
sys.exit(1 if failures else 0)
