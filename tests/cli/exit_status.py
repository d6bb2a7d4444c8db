#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""exit_status.py - one table of exit statuses (common/status.h).

usage: exit_status.py SCC SCVM DOCS_DIR

The table in docs/exit-status.md must be, row for row, the one `scc --help`,
`scvm --help` and `scvm serve --help` print (both are generated from
common/status.h), and each program must exit with the documented number in a
case that produces it.  Exit 0 when all agree, 1 otherwise.
"""
import os
import re
import subprocess
import sys
import tempfile

failures = []


def check(what, cond):
    if not cond:
        failures.append(what)
        print("FAIL", what)


def help_table(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    tail = out[out.index("exit status"):]
    return [(int(n), t) for n, t in re.findall(r"^  (\d)  (.+)$", tail, re.M)]


def main():
    scc, scvm, docs = sys.argv[1:4]
    text = open(os.path.join(docs, "exit-status.md"), encoding="utf-8").read()
    doc = [(int(n), t.strip()) for n, t in re.findall(r"^\| (\d) \| (.+) \|$", text, re.M)]
    check("docs/exit-status.md has the six statuses 0-5", [n for n, _ in doc] == list(range(6)))
    for cmd in ([scc, "--help"], [scvm, "--help"], [scvm, "serve", "--help"]):
        got = help_table(cmd)
        check("%s prints the documented table (got %r)" % (" ".join(cmd[1:]), got), got == doc)

    with tempfile.TemporaryDirectory() as tmp:
        def status(*argv, **kw):
            return subprocess.run(list(argv), cwd=tmp, capture_output=True, timeout=30, **kw).returncode

        with open(os.path.join(tmp, "ok.yaml"), "w") as f:
            f.write("name: ok\ntimeline:\n  - llmResponse:\n      - assistant:\n          - [80, \"hi\"]\n")
        with open(os.path.join(tmp, "bad.yaml"), "w") as f:
            f.write("name: bad\ntimeline: 3\n")
        with open(os.path.join(tmp, "garbage.scb"), "wb") as f:
            f.write(b"not bytecode at all")
        # Larger than any valid pack: rejected (SIZE) by every command that reads it.
        with open(os.path.join(tmp, "huge.scb"), "wb") as f:
            f.truncate(1100 << 20)

        check("scc ok -> 0", status(scc, "ok.yaml") == 0)
        check("scc error -> 1", status(scc, "--check", "bad.yaml") == 1)
        check("scc unknown option -> 2", status(scc, "--frobnicate") == 2)
        check("scc unreadable -> 3", status(scc, "missing.yaml") == 3)
        check("scvm run ok -> 0", status(scvm, "run", "ok.scb") == 0)
        check("scvm unknown command -> 2", status(scvm, "frobnicate") == 2)
        check("scvm run unreadable -> 3", status(scvm, "run", "missing.scb") == 3)
        check("scvm serve unreadable -> 3", status(scvm, "serve", "llm", "missing.scb") == 3)
        for cmd in (["run"], ["verify"], ["info"], ["dis"], ["ls"], ["serve", "llm"]):
            check("scvm %s garbage -> 4" % cmd[0], status(scvm, *cmd, "garbage.scb") == 4)
            check("scvm %s oversize -> 4" % cmd[0], status(scvm, *cmd, "huge.scb") == 4)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
