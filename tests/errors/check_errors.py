#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Expected-diagnostics tests, clox style: each .yaml under this folder
ends with the exact diagnostics scc must print for it, one per line:

    # expect: 6:14: error: think relativeTime 1500 is earlier than ...
    # expect: 6:14: note: think times are offsets from ...

Optional `# scc-args: -D x=1` lines pass arguments.  A file with an
`error:` expectation must make `scc --check` exit 1, any other 0.  A
.jsonl file (JSON Lines cannot hold comments) keeps its expectations in
NAME.expect, in the same form.  `# json-warnings: N` checks that
--diagnostics-format=json reports N warnings (all of them, where the text
output shows the first few of a repeated one and a count).
usage: check_errors.py SCC DIR
"""
import os
import subprocess
import sys


def main():
    scc, folder = sys.argv[1], sys.argv[2]
    passed = failed = 0
    for name in sorted(os.listdir(folder)):
        if not name.endswith((".yaml", ".yml", ".json", ".jsonl")):
            continue
        path = os.path.join(folder, name)
        with open(path + ".expect" if name.endswith(".jsonl") else path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
        expect = [l[len("# expect: "):] for l in lines if l.startswith("# expect: ")]
        args = []
        for l in lines:
            if l.startswith("# scc-args: "):
                args += l[len("# scc-args: "):].split()
        p = subprocess.run([scc, "--check", "--color=never"] + args + [name], cwd=folder,
                           capture_output=True, text=True, timeout=30)
        got = [l[len(name) + 1:] if l.startswith(name + ":") else l for l in p.stderr.splitlines()]
        want_rc = 1 if any(": error: " in e for e in expect) else 0
        problems = []
        if got != expect:
            problems.append("diagnostics differ:\n    want: " + "\n          ".join(expect) +
                            "\n    got:  " + "\n          ".join(got))
        if p.returncode != want_rc:
            problems.append("exit status %d, want %d" % (p.returncode, want_rc))
        jw = [int(l.split(":", 1)[1]) for l in lines if l.startswith("# json-warnings:")]
        if jw:
            pj = subprocess.run([scc, "--check", "--diagnostics-format=json"] + args + [name], cwd=folder,
                                capture_output=True, text=True, timeout=30)
            n = sum(1 for l in pj.stderr.splitlines() if '"severity":"warning"' in l)
            if n != jw[0]:
                problems.append("%d warnings in the JSON output, want %d" % (n, jw[0]))
        if problems:
            failed += 1
            print("FAIL %s: %s" % (name, "; ".join(problems)))
        else:
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
