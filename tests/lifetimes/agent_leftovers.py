#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`scvm agent`'s runCmd leaves nothing running, however the run ends.

usage: agent_leftovers.py SCC SCVM WORKDIR

Each case's command starts a daemon (`setsid -f sleep M`, M a marker no
other process has) that leaves the command's process group and session.
After scvm has exited, no process may carry the marker: on a passing run,
a failing one, a command's timeout, SIGTERM, SIGINT and SIGHUP to scvm, and
SIGKILL of scvm (the tree dies with it).  Each case runs with the PID
namespace (the default; as root) and with SCVM_PIDNS=0 (the subreaper
fallback), and as user nobody (the user namespace's way) where this runs as
root."""
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lt_util import kill_all, leftovers, marker, wait_for  # noqa: E402

SCC, SCVM, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
DAEMON = "setsid -f sleep {m} </dev/null >/dev/null 2>&1; (sleep {m} &) ; echo $$ > started"

CASES = {
    # name: (runCmd yaml, signal to scvm or None, expected exit status)
    "pass": ('{cmd: "%s; echo ok", result: ok}', None, 0),
    "fail": ('{cmd: "%s; exit 3"}', None, 1),
    "timeout": ('{cmd: "%s; exec sleep 60", timeout: 300, status: error}', None, 0),
    "sigterm": ('{cmd: "%s; exec sleep 60"}', signal.SIGTERM, 143),
    "sigint": ('{cmd: "%s; exec sleep 60"}', signal.SIGINT, 130),
    "sighup": ('{cmd: "%s; exec sleep 60"}', signal.SIGHUP, 129),
    "sigkill": ('{cmd: "%s; exec sleep 60"}', signal.SIGKILL, -9),
}


def run_case(name, mode, env, pre):
    yaml_cmd, sig, want = CASES[name]
    m = marker()
    d = os.path.join(WORK, f"{name}-{mode}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "w"))
    y = os.path.join(d, "s.yaml")
    with open(y, "w") as f:
        f.write("name: lt_%s\ntimeline:\n  - runCmd: %s\n" % (name, yaml_cmd % DAEMON.format(m=m)))
    scb = os.path.join(d, "s.scb")
    subprocess.run([SCC, "-o", scb, y], check=True)
    if pre:
        os.chmod(WORK, 0o777)
        for root, dirs, files in os.walk(d):
            os.chmod(root, 0o777)
            for f in files:
                os.chmod(os.path.join(root, f), 0o666)
    p = subprocess.Popen(pre + [SCVM, "agent", "--speed", "0", "--cwd", os.path.join(d, "w"), scb],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if sig is not None:
        wait_for(lambda: os.path.exists(os.path.join(d, "w", "started")), f"{name}: the command to start")
        wait_for(lambda: len([x for x in leftovers(m) if x[1].startswith("sleep")]) >= 2,
                 f"{name}: the daemons to start")
        p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    problems = []
    if p.returncode != want:
        problems.append(f"exit {p.returncode}, wanted {want}: {err.decode(errors='replace')[-600:]}")
    left = leftovers(m)
    if left and sig == signal.SIGKILL:
        # scvm cannot wait for its tree when killed: the kernel ends it
        # right after (the death signal), so give that a moment
        try:
            wait_for(lambda: not leftovers(m), "the tree to die with scvm", timeout=10)
        except AssertionError:
            pass
        left = leftovers(m)
    if left:
        problems.append(f"{len(left)} processes left: {left}")
        kill_all(left)
    return problems


def main():
    os.makedirs(WORK, exist_ok=True)
    modes = [("ns", dict(os.environ), []), ("subreaper", dict(os.environ, SCVM_PIDNS="0"), [])]
    def reachable(path):   # every folder on the way searchable by others (not a 0700 checkout)
        p = os.path.abspath(path)
        while p != "/" and os.stat(p).st_mode & 0o001:
            p = os.path.dirname(p)
        return p == "/"
    if os.geteuid() == 0 and shutil.which("setpriv") and not (reachable(SCVM) and reachable(WORK)):
        print("NOT RUN: the cases as user nobody: %s or %s is in a folder nobody cannot search "
              "(a 0700 checkout)" % (SCVM, WORK))
    elif os.geteuid() == 0 and shutil.which("setpriv"):
        modes.append(("nobody", dict(os.environ), ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]))
    fails = []
    for mode, env, pre in modes:
        for name in CASES:
            for pr in run_case(name, mode, env, pre):
                fails.append(f"{name} ({mode}): {pr}")
            print(f"{name} ({mode}): {'ok' if not any(f.startswith(name + ' (' + mode) for f in fails) else 'FAIL'}")
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
