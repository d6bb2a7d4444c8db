#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Data-driven front-end tests: every *.yaml under DIR is one case.

Expectations are comment lines in the case itself (clox style):
  # args: -D full --env "a=1,b"     arguments for scc_tree before the file
  # expect: 3:5: error: ...          one diagnostic line (file name stripped), in order
  # expect-json: {...}               the resolved tree, one line
  # expect-exit: 1                   optional; default 1 with an error expected, else 0
The output of scc_tree must equal the expect lines followed by the JSON
line, exactly.  Usage: run_cases.py SCC_TREE DIR [--update-hint]
"""
import os
import shlex
import subprocess
import sys


def load(path):
    args, expect, js, exit_code = [], [], [], None
    with open(path, "rb") as f:
        for raw in f.read().decode("utf-8", "replace").splitlines():
            line = raw.strip()
            if line.startswith("# args:"):
                args += shlex.split(line[len("# args:"):])
            elif line.startswith("# expect:"):
                expect.append(line[len("# expect:"):].strip())
            elif line.startswith("# expect-json:"):
                js.append(line[len("# expect-json:"):].strip())
            elif line.startswith("# expect-exit:"):
                exit_code = int(line[len("# expect-exit:"):])
    if exit_code is None:
        exit_code = 1 if any(": error: " in e for e in expect) else 0
    return args, expect + js, exit_code


def main():
    tool, folder = sys.argv[1], sys.argv[2]
    cases = sorted(n for n in os.listdir(folder) if n.endswith(".yaml"))
    if not cases:
        print(f"no cases in {folder}")
        return 1
    failed = 0
    for name in cases:
        args, want, want_exit = load(os.path.join(folder, name))
        if not want:
            print(f"FAIL {name}: no expectations written")
            failed += 1
            continue
        p = subprocess.run([tool] + args + [name], cwd=folder, capture_output=True, timeout=30)
        out = p.stdout.decode("utf-8", "replace").splitlines()
        got = [l[len(name) + 1:] if l.startswith(name + ":") else l for l in out]
        if got != want or p.returncode != want_exit:
            failed += 1
            print(f"FAIL {name} (exit {p.returncode}, expected {want_exit})")
            for w in want:
                if w not in got:
                    print(f"  missing:    {w}")
            for g in got:
                if g not in want:
                    print(f"  unexpected: {g}")
            if sorted(got) == sorted(want):
                print("  (same lines, different order)")
            if p.stderr:
                print("  stderr: " + p.stderr.decode("utf-8", "replace").strip())
        else:
            print(f"ok   {name}")
    print(f"{len(cases) - failed}/{len(cases)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
