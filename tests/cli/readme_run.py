#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""readme_run.py ROOT BIN WORK NODE_MODULES - the README's "Using it" block, run as
written in a fresh folder beside a copy of the sources it names
(stdlib-scenarios/, tests/mockagent/), with build/bin/ the build's
programs.  Every line must exit 0; a server line (run on a free port:
the README's own may be taken by a parallel run) must say where it
listens, answer (GET /health for serve llm, the harness's and REST API's
own endpoints), and stop on SIGTERM (serve llm, asked nothing, with its
documented INCOMPLETE, exit 1); serve acp, given no client, ends.  The
copied sources must be byte for byte as before: the README writes nothing
into them.  The real agent's line runs Claude Code as the suite installs
it (agents.npm_ci: NODE_MODULES), found as `claude` on PATH as a user's
install would be.  Skipped, and said so: the first line (the build this
test runs in).  Exit 0 or 1."""
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.request

root, bindir, work, node_modules = map(os.path.abspath, sys.argv[1:5])
fails = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)


readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
block = readme.split("## Using it", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
lines = [l for l in block.splitlines() if l.strip()]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "build"))
os.symlink(bindir, os.path.join(work, "build", "bin"))
shutil.copytree(os.path.join(root, "stdlib-scenarios"), os.path.join(work, "stdlib-scenarios"), symlinks=True)
shutil.copytree(os.path.join(root, "tests", "mockagent"), os.path.join(work, "tests", "mockagent"), symlinks=True)


def tree_hash(d):
    h = hashlib.sha256()
    for dp, dns, fns in sorted(os.walk(d)):
        dns.sort()
        for f in sorted(fns):
            p = os.path.join(dp, f)
            h.update(os.path.relpath(p, d).encode() + b"\0")
            if not os.path.islink(p):
                h.update(open(p, "rb").read())
    return h.hexdigest()


before = {d: tree_hash(os.path.join(work, d)) for d in ("stdlib-scenarios", "tests")}
# Claude Code on PATH as `claude`, as its npm install puts it there
agent_bin = os.path.join(work, "agent-bin")
os.makedirs(agent_bin)
os.symlink(os.path.join(node_modules, "@anthropic-ai", "claude-code-linux-" +
                        {"x86_64": "x64", "aarch64": "arm64"}.get(os.uname().machine, "x64"), "claude"),
           os.path.join(agent_bin, "claude"))
env = dict(os.environ, NO_COLOR="1", PATH=agent_bin + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
ran = 0
for line in lines:
    cmd = line.split("  #")[0].strip()
    if cmd.startswith("cmake "):
        print("skip " + cmd)
        continue
    ran += 1
    serve = re.search(r"scvm serve (llm|harness|rest) ", cmd)
    if not serve:
        p = subprocess.run(["bash", "-c", "set -e; " + cmd], cwd=work, env=env, capture_output=True, text=True,
                           timeout=300, stdin=subprocess.DEVNULL)
        check(p.returncode == 0, "%s -> %d %s" % (cmd, p.returncode, p.stderr[-300:]))
        continue
    # The README's port (or the server's default) may be taken by another
    # test run on this machine (parallel checkouts): the line runs as
    # written but on a free port the kernel picks, which it prints.
    if re.search(r"--listen \S+", cmd):
        cmd = re.sub(r"--listen (\S+):\d+", r"--listen \1:0", cmd)
    else:
        cmd = cmd.replace("scvm serve %s " % serve.group(1), "scvm serve %s --listen 127.0.0.1:0 " % serve.group(1), 1)
    p = subprocess.Popen(["bash", "-c", "exec " + cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    first = p.stdout.readline()
    m = re.match(r"listening on (http://\S+)", first)
    check(m is not None, "%s: %r" % (cmd, first))
    if m:
        path = {"llm": "/health", "harness": "/events", "rest": "/api/v1/sessions"}[serve.group(1)]
        try:
            with urllib.request.urlopen(m.group(1) + path, timeout=30) as r:
                check(r.status == 200, "%s: GET %s -> %d" % (cmd, path, r.status))
        except Exception as e:   # the SSE stream of /events: its head is the answer
            check(serve.group(1) == "harness" and "timed out" in str(e), "%s: GET %s: %s" % (cmd, path, e))
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    want = 1 if serve.group(1) == "llm" else 0
    check(p.returncode == want and (want == 0 or "summary: INCOMPLETE" in err),
          "%s: stopped on SIGTERM -> %d %s" % (cmd, p.returncode, err[-200:]))
check(ran >= 15, "README lines run: %d" % ran)
check(os.path.isdir(os.path.join(work, "out")), "the PTY run's artifacts are in out/")
after = {d: tree_hash(os.path.join(work, d)) for d in ("stdlib-scenarios", "tests")}
check(after == before, "nothing written into the sources")
sys.exit(1 if fails else 0)
