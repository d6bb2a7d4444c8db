#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`scvm exec` and `scvm driver` end the session on SIGTERM, SIGINT and
SIGHUP as on the end of input: the RunResult (status "interrupted",
error E_INTERRUPTED), the artifacts (run.json, checksums.json), the
sandbox's temporary folder removed, nothing left running, exit 128 + N.

usage: driver_signals.py SCVM WORKDIR

Before, each signal killed scvm outright: no RunResult, no artifacts, the
sandbox's folder left in TMPDIR (and, without a PID namespace, the
program's descendants)."""
import json
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lt_util import kill_all, leftovers, marker, wait_for  # noqa: E402

SCVM, WORK = (os.path.abspath(a) for a in sys.argv[1:3])
SIGS = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]


def run(cmd, sig):
    m = marker()
    d = os.path.join(WORK, f"{cmd}-{signal.Signals(sig).name}")
    shutil.rmtree(d, ignore_errors=True)
    tmp = os.path.join(d, "tmp")
    art = os.path.join(d, "art")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    args = [SCVM, cmd, "--json", "--artifacts", art]
    if cmd == "driver":
        args.append("--stdio")
    args += ["--", "/usr/bin/sleep", m]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         cwd=d)
    if cmd == "driver":
        # a response: the session runs and the driver waits for input
        p.stdin.write(b'{"protocol_version":2,"request_id":"1","action":{"type":"observe"}}\n')
        p.stdin.flush()
        first = p.stdout.readline()
        assert b'"status":"ok"' in first, first
    # the program itself (scvm's own command line carries the marker too)
    wait_for(lambda: [x for x in leftovers(m) if x[1].startswith("/usr/bin/sleep")], f"{cmd}: the program to start")
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    problems = []
    want = 128 + sig
    if p.returncode != want:
        problems.append(f"exit {p.returncode}, wanted {want}: {err.decode(errors='replace')[-400:]}")
    lines = out.decode(errors="replace").strip().splitlines()
    try:
        rr = json.loads(lines[-1])
        if rr.get("status") != "interrupted" or rr.get("error", {}).get("code") != "E_INTERRUPTED":
            problems.append(f"RunResult status {rr.get('status')}, error {rr.get('error')}")
    except (IndexError, ValueError):
        problems.append(f"no RunResult on stdout: {out[-300:]!r}")
    for f in ("run.json", "checksums.json", "events.jsonl", "transcript.log"):
        if not os.path.exists(os.path.join(art, f)):
            problems.append(f"no artifact {f}")
    if os.path.exists(os.path.join(art, "run.json")):
        with open(os.path.join(art, "run.json")) as fh:
            if json.load(fh).get("status") != "interrupted":
                problems.append("run.json: status is not 'interrupted'")
    if os.listdir(tmp):
        problems.append(f"left in TMPDIR: {os.listdir(tmp)}")
    left = leftovers(m)
    if left:
        problems.append(f"left running: {left}")
        kill_all(left)
    return problems


def killed(cmd, fallback):
    """SIGKILL of scvm: the program and what it detached die with it,
    with the PID namespace and without (SCVM_PTY_PIDNS=0: init is a
    subreaper that kills what it collected when scvm dies)."""
    m = marker()
    d = os.path.join(WORK, f"{cmd}-kill-{'fallback' if fallback else 'ns'}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    sh = os.path.realpath("/bin/sh")
    pol = os.path.join(d, "policy.json")
    with open(pol, "w") as f:
        json.dump({"policy_version": 4, "sandbox": "none", "sandbox_unsafe_ack": True, "network_unsafe_ack": True,
                   "exec": {"allowed_executables": [sh], "allow_shell": True}}, f)
    env = dict(os.environ)
    if fallback:
        env["SCVM_PTY_PIDNS"] = "0"
    args = [SCVM, cmd, "--json", "--policy", pol] + (["--stdio"] if cmd == "driver" else [])
    args += ["--", sh, "-c", f"setsid -f sleep {m} </dev/null >/dev/null 2>&1; (sleep {m} &); exec sleep {m}"]
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=d)
    wait_for(lambda: len([x for x in leftovers(m) if x[1].startswith("sleep")]) >= 3,
             f"{cmd}: the program and its daemons to start")
    p.kill()
    p.communicate(timeout=60)
    try:
        wait_for(lambda: not leftovers(m), "the session's processes to die with scvm", timeout=10)
        return []
    except AssertionError:
        left = leftovers(m)
        kill_all(left)
        return [f"left running after SIGKILL of scvm: {left}"]


def main():
    fails = []
    for cmd in ("exec", "driver"):
        for fallback in (False, True):
            pr = killed(cmd, fallback)
            print(f"{cmd} SIGKILL ({'subreaper' if fallback else 'namespace'}): {pr if pr else 'ok'}", flush=True)
            fails += pr
    for cmd in ("exec", "driver"):
        for sig in SIGS:
            pr = run(cmd, sig)
            print(f"{cmd} {signal.Signals(sig).name}: {pr if pr else 'ok'}", flush=True)
            fails += pr
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
