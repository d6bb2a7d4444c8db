#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`scvm run -t aut`: an ElizaOS code step and an ACP agent leave nothing
running, however the run ends.

usage: aut_leftovers.py SCC SCVM WORKDIR

The code step starts a daemon (`setsid -f sleep M`, M a marker no other
process has); the agent under test is `sh -c 'sleep M & exec scvm serve
acp ...'`, so its tree carries the marker too.  After scvm has exited, no
process may carry it: on a passing run, a failing one, a code step past
its budget, SIGTERM, SIGINT and SIGHUP to scvm during the code step, and
SIGKILL of scvm (the trees die with it); with the PID namespace and with
SCVM_PIDNS=0 (the subreaper fallback)."""
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lt_util import kill_all, leftovers, marker, wait_for  # noqa: E402

SCC, SCVM, WORK = (os.path.abspath(a) for a in sys.argv[1:4])

AGENT = """name: lt_agent
timeline:
  - userInputs:
      - [0, 'hello']
  - llmResponse:
      - assistant:
          - [0, 'hi there']
"""

SCENARIO = """name: 'lt {name}'
description: 'a code step that starts a daemon'
environment:
  type: local
run:
  - name: talk
    input: 'hello'
    evaluations:
      - type: string_contains
        value: 'hi'
  - name: code
    code: '{code}'
    evaluations:
      - type: regex_match
        pattern: '{pattern}'
judgment:
  strategy: all_pass
"""

DAEMON = "setsid -f sleep {m} </dev/null >/dev/null 2>&1; (sleep {m} &); touch started; "
CASES = {
    # name: (code after the daemon, pattern, extra args, signal, wanted exit status)
    "pass": ("echo done", "done", [], None, 0),
    "fail": ("echo done", "nothing like it", [], None, 1),
    "timeout": ("exec sleep 60", "x", ["--turn-timeout", "500"], None, 1),
    "sigterm": ("exec sleep 60", "x", [], signal.SIGTERM, 143),
    "sigint": ("exec sleep 60", "x", [], signal.SIGINT, 130),
    "sighup": ("exec sleep 60", "x", [], signal.SIGHUP, 129),
    "sigkill": ("exec sleep 60", "x", [], signal.SIGKILL, -9),
}


def run_case(name, mode, env, agent_scb):
    code, pattern, extra, sig, want = CASES[name]
    m = marker()
    d = os.path.join(WORK, f"{name}-{mode}")
    shutil.rmtree(d, ignore_errors=True)
    ws = os.path.join(d, "ws")
    os.makedirs(ws)
    y = os.path.join(d, "s.scenario.yaml")
    with open(y, "w") as f:
        f.write(SCENARIO.format(name=name, code=DAEMON.format(m=m) + code, pattern=pattern))
    scb = os.path.join(d, "s.scb")
    subprocess.run([SCC, "-o", scb, y], check=True)
    agent = f"sleep {m} & exec {SCVM} serve acp --speed 0 {agent_scb}"
    p = subprocess.Popen([SCVM, "run", "-t", "aut", "--via", "acp", "--workspace", ws, *extra, scb, "--",
                          "sh", "-c", agent], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if sig is not None:
        wait_for(lambda: os.path.exists(os.path.join(ws, "started")), f"{name}: the code step to start")
        wait_for(lambda: len([x for x in leftovers(m) if x[1].startswith("sleep")]) >= 2,
                 f"{name}: the daemons to start")
        p.send_signal(sig)
    out, err = p.communicate(timeout=120)
    problems = []
    if p.returncode != want:
        problems.append(f"exit {p.returncode}, wanted {want}: {err.decode(errors='replace')[-600:]}")
    left = leftovers(m)
    if left and sig == signal.SIGKILL:
        try:    # the kernel ends the trees right after scvm (the death signal)
            wait_for(lambda: not leftovers(m), "the trees to die with scvm", timeout=10)
        except AssertionError:
            pass
        left = leftovers(m)
    if left:
        problems.append(f"{len(left)} processes left: {left}")
        kill_all(left)
    return problems


SLOW_AGENT = """name: lt_slow_agent
timeline:
  - userInputs:
      - [0, 'hello']
  - llmResponse:
      - assistant:
          - [60000, 'hi, a minute later']
"""


def agent_killed(mode, env, sig):
    """A signal to scvm while the ACP agent is thinking: the agent, and
    what it started, end with scvm (SIGKILL: through init's death)."""
    m = marker()
    d = os.path.join(WORK, f"agent-{signal.Signals(sig).name}-{mode}")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    ay = os.path.join(d, "slow.yaml")
    with open(ay, "w") as f:
        f.write(SLOW_AGENT)
    agent_scb = os.path.join(d, "slow.scb")
    subprocess.run([SCC, "-o", agent_scb, ay], check=True)
    y = os.path.join(d, "s.scenario.yaml")
    with open(y, "w") as f:
        f.write("name: 'lt agent'\ndescription: 'a slow agent'\nenvironment:\n  type: local\nrun:\n"
                "  - name: talk\n    input: 'hello'\n    evaluations:\n      - type: string_contains\n"
                "        value: 'hi'\njudgment:\n  strategy: all_pass\n")
    scb = os.path.join(d, "s.scb")
    subprocess.run([SCC, "-o", scb, y], check=True)
    agent = f"sleep {m} & exec {SCVM} serve acp --speed 1 {agent_scb}"
    p = subprocess.Popen([SCVM, "run", "-t", "aut", "--via", "acp", "--workspace", d, scb, "--", "sh", "-c", agent],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    # the agent: its background sleep (the marker) and scvm serve acp
    # itself (its scenario's path, which no other command line has)
    def agent_procs():
        return [x for x in leftovers(m) if x[1].startswith("sleep")] + \
               [x for x in leftovers(agent_scb) if x[1].startswith(SCVM + " serve acp")]
    wait_for(lambda: len(agent_procs()) >= 2, "the agent to start")
    p.send_signal(sig)
    p.communicate(timeout=120)
    try:
        wait_for(lambda: not agent_procs(), "the agent to end with scvm", timeout=10)
        return []
    except AssertionError:
        left = agent_procs()
        kill_all(left)
        return [f"left running: {left}"]


def main():
    os.makedirs(WORK, exist_ok=True)
    ay = os.path.join(WORK, "agent.yaml")
    with open(ay, "w") as f:
        f.write(AGENT)
    agent_scb = os.path.join(WORK, "agent.scb")
    subprocess.run([SCC, "-o", agent_scb, ay], check=True)
    modes = [("ns", dict(os.environ)), ("subreaper", dict(os.environ, SCVM_PIDNS="0"))]
    fails = []
    for mode, env in modes:
        for name in CASES:
            pr = run_case(name, mode, env, agent_scb)
            fails += [f"{name} ({mode}): {x}" for x in pr]
            print(f"{name} ({mode}): {pr if pr else 'ok'}", flush=True)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pr = agent_killed(mode, env, sig)
            fails += [f"agent {signal.Signals(sig).name} ({mode}): {x}" for x in pr]
            print(f"agent {signal.Signals(sig).name} ({mode}): {pr if pr else 'ok'}", flush=True)
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
