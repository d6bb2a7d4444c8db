#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""cli_check.py - run one scvm command and check what it did.

usage: cli_check.py [checks] -- SCVM ARGS...

Checks (all that are given must hold; exit 0 if so, 1 with a report if not):
  --status N             exit status is N (required)
  --stdout FILE          stdout equals FILE's bytes exactly
  --stdout-text TEXT     stdout equals TEXT plus a newline
  --stdout-empty         stdout is empty
  --stdout-has TEXT      stdout contains TEXT (repeatable)
  --stdout-json K=JSON   stdout is one JSON object whose key K equals JSON (repeatable)
  --stderr-text TEXT     stderr equals TEXT plus a newline
  --stderr-has TEXT      stderr contains TEXT (repeatable)
  --stderr-empty         stderr is empty
  --twice                run it again: stdout, stderr and status are identical
  --min-ms N             the run took at least N ms (never an upper bound)
  --absent PATH          PATH does not exist afterwards (removed before the run)
  --fresh PATH           remove PATH before the run
  --file PATH=FILE       afterwards PATH holds FILE's bytes exactly
  --keep PATH=TEXT       PATH holds TEXT before the run and is unchanged after
  --stdin FILE           feed FILE on stdin
  --stdout-to PATH       send stdout to PATH (e.g. /dev/full) instead of a pipe
"""
import json
import os
import subprocess
import sys
import time


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("cli_check.py: missing '--' before the command")
    sep = argv.index("--")
    opts, cmd = argv[:sep], argv[sep + 1:]
    checks = {"fresh": [], "has": [], "errhas": [], "json": [], "absent": [], "file": [], "keep": []}
    i = 0
    while i < len(opts):
        o = opts[i]
        flag = o in ("--stdout-empty", "--stderr-empty", "--twice")
        v = None if flag else opts[i + 1]
        i += 1 if flag else 2
        if o == "--status": checks["status"] = int(v)
        elif o == "--stdout": checks["stdout"] = open(v, "rb").read()
        elif o == "--stdout-text": checks["stdout"] = (v + "\n").encode()
        elif o == "--stdout-empty": checks["stdout"] = b""
        elif o == "--stdout-has": checks["has"].append(v.encode())
        elif o == "--stdout-json": checks["json"].append(v.split("=", 1))
        elif o == "--stderr-text": checks["stderr"] = (v + "\n").encode()
        elif o == "--stderr-has": checks["errhas"].append(v.encode())
        elif o == "--stderr-empty": checks["stderr"] = b""
        elif o == "--twice": checks["twice"] = True
        elif o == "--min-ms": checks["min_ms"] = float(v)
        elif o == "--absent": checks["absent"].append(v)
        elif o == "--fresh": checks["fresh"].append(v)
        elif o == "--file": checks["file"].append(v.split("=", 1))
        elif o == "--keep": checks["keep"].append(v.split("=", 1))
        elif o == "--stdin": checks["stdin"] = v
        elif o == "--stdout-to": checks["stdout_to"] = v
        else: sys.exit("cli_check.py: unknown option " + o)
    if "status" not in checks:
        sys.exit("cli_check.py: --status is required")

    for path, text in checks["keep"]:
        with open(path, "w") as f:
            f.write(text)
    for path in checks["absent"] + checks["fresh"]:
        if os.path.lexists(path):
            os.remove(path)

    def run():
        stdin = open(checks["stdin"], "rb") if "stdin" in checks else subprocess.DEVNULL
        t0 = time.monotonic()
        out = open(checks["stdout_to"], "wb") if "stdout_to" in checks else subprocess.PIPE
        p = subprocess.run(cmd, stdin=stdin, stdout=out, stderr=subprocess.PIPE, timeout=60)
        if p.stdout is None:
            p.stdout = b""
        return p, (time.monotonic() - t0) * 1000.0

    p, ms = run()
    fails = []
    if p.returncode != checks["status"]:
        fails.append("status %d, expected %d" % (p.returncode, checks["status"]))
    if "stdout" in checks and p.stdout != checks["stdout"]:
        fails.append("stdout differs:\n--- expected\n%r\n--- got\n%r" % (checks["stdout"], p.stdout))
    for h in checks["has"]:
        if h not in p.stdout:
            fails.append("stdout lacks %r" % h)
    if checks["json"]:
        try:
            obj = json.loads(p.stdout)
        except ValueError as e:
            obj = None
            fails.append("stdout is not JSON: %s" % e)
        for k, v in checks["json"]:
            if obj is not None and (k not in obj or obj[k] != json.loads(v)):
                fails.append("stdout JSON %s = %r, expected %s" % (k, obj.get(k, "<absent>"), v))
    if "stderr" in checks and p.stderr != checks["stderr"]:
        fails.append("stderr differs:\n--- expected\n%r\n--- got\n%r" % (checks["stderr"], p.stderr))
    for h in checks["errhas"]:
        if h not in p.stderr:
            fails.append("stderr lacks %r" % h)
    if "min_ms" in checks and ms < checks["min_ms"]:
        fails.append("returned after %.1f ms, expected at least %.1f" % (ms, checks["min_ms"]))
    if checks.get("twice"):
        q, _ = run()
        if (q.returncode, q.stdout, q.stderr) != (p.returncode, p.stdout, p.stderr):
            fails.append("second run differs")
    for path in checks["absent"]:
        if os.path.lexists(path):
            fails.append("%s exists" % path)
    for path, ref in checks["file"]:
        got = open(path, "rb").read() if os.path.exists(path) else None
        if got != open(ref, "rb").read():
            fails.append("%s differs from %s: %r" % (path, ref, got))
    for path, text in checks["keep"]:
        got = open(path).read() if os.path.exists(path) else None
        if got != text:
            fails.append("%s changed: %r" % (path, got))
    if fails:
        print("command:", " ".join(cmd))
        print("stderr:", p.stderr.decode(errors="replace"))
        for f in fails:
            print("FAIL:", f)
        sys.exit(1)


main()
