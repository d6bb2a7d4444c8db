#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""run_sdk.py - one real-SDK test: start `scvm serve llm`, run a node script
against it (SCVM_URL in its environment), stop the server, check its exit
status and log.

usage: run_sdk.py --scvm SCVM --node-modules DIR [--status N] [--log-has RE]...
                  [--log-lacks RE]... SCRIPT.cjs -- SERVE-ARGS...
Exits 77 (skip) when node or the pinned npm packages are unavailable.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_util import Server, SKIP  # noqa: E402


def main():
    argv = sys.argv[1:]
    serve_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, serve_args = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser()
    ap.add_argument("--scvm", required=True)
    ap.add_argument("--node-modules", required=True)
    ap.add_argument("--status", type=int, default=0)
    ap.add_argument("--log-has", action="append", default=[])
    ap.add_argument("--log-lacks", action="append", default=[])
    ap.add_argument("script")
    a = ap.parse_args(argv)
    node = shutil.which("node")
    if not node:
        print("SKIP: node is not installed")
        return SKIP
    for pkg in ("openai", "@anthropic-ai/sdk", "@google/genai"):
        if not os.path.isfile(os.path.join(a.node_modules, pkg, "package.json")):
            print("SKIP: npm package %s is not installed in %s (npm ci failed?)" % (pkg, a.node_modules))
            return SKIP
    srv = Server(a.scvm, serve_args)
    env = dict(os.environ, SCVM_URL=srv.url, NODE_PATH=a.node_modules)
    try:
        r = subprocess.run([node, a.script], env=env, capture_output=True, timeout=90)
    except subprocess.TimeoutExpired:
        srv.stop()
        print("FAIL: %s timed out" % a.script)
        return 1
    status, log = srv.stop()
    out = r.stdout.decode("utf-8", "replace")
    sys.stdout.write(out)
    sys.stdout.write(r.stderr.decode("utf-8", "replace"))
    ok = True
    if r.returncode != 0:
        print("FAIL: %s exited %d" % (a.script, r.returncode))
        ok = False
    if status != a.status:
        print("FAIL: server exit status %d, expected %d" % (status, a.status))
        ok = False
    for pat in a.log_has:
        if not re.search(pat, log, re.M):
            print("FAIL: server log lacks /%s/" % pat)
            ok = False
    for pat in a.log_lacks:
        if re.search(pat, log, re.M):
            print("FAIL: server log has /%s/" % pat)
            ok = False
    if not ok:
        print("--- server log\n" + log)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
