#!/usr/bin/env python3
"""claude_tui.py - Claude Code's interactive terminal UI, the real agent,
played by `scvm run -t pty` against `scvm serve llm` (docs/real-agents.md).

usage: claude_tui.py SCC SCVM NODE_MODULES WORK

The PTY scenario waits for Claude Code's prompt, types a request one
character at a time (the TUI takes a burst of text as a paste), and waits
for the scripted answer on the real screen ("● Hello from the scenario.").
Checks: the run passes with both screen asserts held, the server served
its one response; the PTY target's namespace leaves nothing running.
The screen is not compared with a committed golden: it shows the
workspace path and the time of day ("done 4:11 AM").
"""
import json
import os
import platform
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "llm"))
from serve_util import Server  # noqa: E402

SCC, SCVM, NM, WORK = sys.argv[1:5]
ARCH = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
CLAUDE = os.path.join(NM, "@anthropic-ai", "claude-code-linux-" + ARCH, "claude")
KEY = "sk-ant-scvm-test-0001"

MODEL = """name: hello
timeline:
  - llmResponse:
      - assistant:
          - [10, 'Hello from the scenario.']
"""

TUI = """name: claude_tui
terminalRef: 'terminal/xterm-100x30.json'
ah:
  cmd: '%(claude)s'
  env:
    ANTHROPIC_BASE_URL: '%(url)s'
    ANTHROPIC_API_KEY: '%(key)s'
    DISABLE_TELEMETRY: '1'
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1'
timeline:
  - assert:
      text:
        contains: ['Claude Code', '❯']
  - userInputs:
      - [100, 'Say hello']
  - assert:
      text:
        contains: ['❯ Say hello', '● Hello from the scenario.']
"""


def main():
    if not os.path.exists(CLAUDE):
        print("FAIL: %s is missing (tests/agents npm ci failed?)" % CLAUDE)
        return 1
    shutil.rmtree(WORK, ignore_errors=True)
    ws, home = os.path.join(WORK, "ws"), os.path.join(WORK, "home")
    os.makedirs(ws)
    os.makedirs(home)
    subprocess.run(["git", "init", "-q", ws], check=True)
    # past the onboarding: done, the key approved (its last 20 characters,
    # as Claude Code keeps it), the workspace trusted
    with open(os.path.join(home, ".claude.json"), "w") as f:
        json.dump({"hasCompletedOnboarding": True, "theme": "dark",
                   "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
                   "projects": {ws: {"hasTrustDialogAccepted": True}}}, f)
    src = os.path.join(WORK, "hello.yaml")
    with open(src, "w") as f:
        f.write(MODEL)
    subprocess.run([SCC, "-o", os.path.join(WORK, "hello.scb"), src], check=True)
    srv = Server(SCVM, ["--speed", "0", os.path.join(WORK, "hello.scb")])
    os.makedirs(os.path.join(WORK, "terminal"))
    with open(os.path.join(WORK, "terminal", "xterm-100x30.json"), "w") as f:
        f.write('{"name": "xterm-100x30", "width": 100, "height": 30}\n')
    tui = os.path.join(WORK, "claude_tui.yaml")
    with open(tui, "w") as f:
        f.write(TUI % {"claude": CLAUDE, "url": srv.url, "key": KEY})
    subprocess.run([SCC, "-o", os.path.join(WORK, "claude_tui.scb"), tui], check=True)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["HOME"] = home
    art = os.path.join(WORK, "art")
    try:
        r = subprocess.run([SCVM, "run", "-t", "pty", "--type-delay", "40", "--artifacts", art,
                            os.path.join(WORK, "claude_tui.scb")], cwd=ws, env=env, capture_output=True, timeout=180)
    finally:
        status, log = srv.stop()
    fails = []

    def check(what, ok):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            fails.append(what)

    err = r.stderr.decode(errors="replace")
    check("the PTY run passes (exit %d)" % r.returncode, r.returncode == 0)
    # the asserts wait on the real screen: the prompt, then the request and
    # the scripted answer together (the final screen is after Claude Code
    # left its alternate screen, so the events are the record)
    ev = [json.loads(l) for l in r.stdout.decode(errors="replace").splitlines() if l.startswith("{")]
    asserts = [e for e in ev if e["kind"] == "assert"]
    check("both screen asserts held (%r)" % asserts, len(asserts) == 2 and all(e["passed"] for e in asserts))
    with open(os.path.join(art, "run.json")) as f:
        check("run.json says passed", json.load(f)["status"] == "passed")
    check("the server served its one response and exited 0", status == 0 and "1 of 1 responses served" in log)
    if fails:
        print("--- scvm stderr\n" + err[-3000:] + "\n--- server log\n" + log)
        return 1
    print("claude code tui: all checks passed")
    return 0


sys.exit(main())
