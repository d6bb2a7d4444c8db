#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""run_agent.py - a real coding agent (its npm package pinned in
tests/agents/package-lock.json) plays the scenario of docs/real-agents.md
(```yaml example=fix_typo```) through `scvm run -t agent`
(docs/real-agents.md), with its shipped profile.

usage: run_agent.py AGENT SCC SCVM NODE_MODULES WORK DOCS_DIR [--interactive] [--golden DIR [--update-goldens]] [--faults]
       AGENT: claude-code, codex, gemini-cli, qwen-code or opencode

The agent must run the scripted command, read the file and edit it, each in
its own tool names, the tool results must match the scenario's, the file
must hold what the edit made (the scenario's fs.contains), and the verdict
must be a pass: exit 0, run.json "passed" with every response served and
every result checked.  The user's HOME (a folder of the test) must stay
empty and the run must leave nothing in TMPDIR: the agent never reads or
writes the user's configuration and nothing of the run is left.
--interactive plays it in the agent's TUI and, with --golden, compares
the scenario's screenshot of the answer with the golden there (its masks
hide the clock and the turn's verb and duration; docs/golden-screens.md);
--update-goldens rewrites it, keeping the masks.
--faults plays the page's survive_faults instead (a stream cut, a reset,
a refusal): the agent must retry each and show the answer after them,
except Gemini CLI, which gives up on a cut stream (exit 1; it must retry
the reset and the refusal).
"""
import json
import os
import platform
import re
import shutil
import subprocess
import sys

AGENT, SCC, SCVM, NM, WORK, DOCS = sys.argv[1:7]
INTERACTIVE = "--interactive" in sys.argv
FAULTS = "--faults" in sys.argv
GOLDEN = sys.argv[sys.argv.index("--golden") + 1] if "--golden" in sys.argv else None
UPDATE = "--update-goldens" in sys.argv
ARCH = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


def agent_bin():
    """The agent's program as the tests install it (install scripts off:
    the native binary of the platform package where the wrapper needs its
    install script)."""
    if AGENT == "claude-code":
        return os.path.join(NM, "@anthropic-ai", "claude-code-linux-" + ARCH, "claude")
    if AGENT == "opencode":
        for pkg in ("opencode-linux-" + ARCH, "opencode-linux-%s-baseline" % ARCH):
            p = os.path.join(NM, pkg, "bin", "opencode")
            if os.path.exists(p):
                return p
        return os.path.join(NM, "opencode-linux-" + ARCH, "bin", "opencode")
    return os.path.join(NM, ".bin", {"codex": "codex", "gemini-cli": "gemini", "qwen-code": "qwen"}[AGENT])


def doc_example(name):
    text = open(os.path.join(DOCS, "real-agents.md"), encoding="utf-8").read()
    m = re.search(r"^```yaml example=%s\n(.*?)^```" % re.escape(name), text, re.S | re.M)
    if not m:
        raise SystemExit("FAIL: docs/real-agents.md has no example %s" % name)
    return m.group(1)


def play(scb, env, extra=()):
    cmd = [SCVM, "run", "-t", "agent", "--agent", AGENT, "--agent-bin", agent_bin(), "--speed", "0",
           "--turn-timeout", "120000"] + list(extra) + [scb]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)


def transcript_tail(arts):
    """What the agent showed last (its transcript's tail), for a failure."""
    try:
        with open(os.path.join(arts, "transcript.log"), "rb") as f:
            return "\n  the agent's transcript, its end:\n" + f.read()[-1500:].decode("utf-8", "replace")
    except OSError:
        return ""


def faults():
    """The survive_faults scenario: the agent retries each fault."""
    shutil.rmtree(WORK, ignore_errors=True)
    user_home, tmp = os.path.join(WORK, "user-home"), os.path.join(WORK, "tmp")
    for d in (user_home, tmp):
        os.makedirs(d)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": user_home, "TMPDIR": tmp, "LANG": "C.UTF-8"}
    body = doc_example("survive_faults")
    fails = []

    def check(what, ok, detail=""):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            fails.append(what)
            print("  " + detail[-4000:].replace("\n", "\n  "))

    def compiled(name, text):
        src, scb = os.path.join(WORK, name + ".yaml"), os.path.join(WORK, name + ".scb")
        with open(src, "w") as f:
            f.write(text)
        subprocess.run([SCC, "-o", scb, src], check=True)
        return scb

    arts = os.path.join(WORK, "artifacts")
    p = play(compiled("survive_faults", body), env, ["--artifacts", arts])
    if AGENT == "gemini-cli":
        check("Gemini CLI gives up on the cut stream: the run fails, the agent exited 1",
              p.returncode == 1 and "the agent exited with 1" in p.stderr and
              "waiting for its request for response 2 of 4" in p.stderr, p.stderr)
        # without the cut: the reset and the refusal are retried
        cut = body.index("  - llmResponse:")
        rest = body.index("  - llmResponse:", cut + 1)
        shutil.rmtree(arts, ignore_errors=True)
        p = play(compiled("survive_reset_refuse", body[:cut] + body[rest:]), env, ["--artifacts", arts])
    check("the agent retried every fault and showed the answer after them (exit %d)" % p.returncode,
          p.returncode == 0, p.stderr + transcript_tail(arts))
    check("nothing of the run is left, the user's HOME untouched",
          os.listdir(tmp) == [] and os.listdir(user_home) == [], str(os.listdir(tmp) + os.listdir(user_home)))
    print("%s faults: %s" % (AGENT, "all checks passed" if not fails else "%d failed" % len(fails)))
    return 1 if fails else 0


def main():
    exe = agent_bin()
    if FAULTS:
        if not os.path.exists(exe):
            print("FAIL: %s is missing (tests/agents npm ci failed?)" % exe)
            return 1
        return faults()
    if not os.path.exists(exe):
        print("FAIL: %s is missing (tests/agents npm ci failed?)" % exe)
        return 1
    shutil.rmtree(WORK, ignore_errors=True)
    user_home, tmp, art = (os.path.join(WORK, d) for d in ("user-home", "tmp", "art"))
    for d in (user_home, tmp):
        os.makedirs(d)
    src = os.path.join(WORK, "fix_typo.yaml")
    body = doc_example("fix_typo")
    if INTERACTIVE:
        # the answer on the agent's screen: a screen assert (it waits for
        # the answer), then a screenshot of it
        # (Claude Code: and its footer back at rest, the hints it shows once
        # idle, as its golden has them: a 100 ms settle caught the footer
        # mid-redraw on a busy machine)
        idle = ", '/effort', 'for agents'" if AGENT == "claude-code" else ""
        body += ("  - assert:\n      text:\n"
                 "        contains: ['Done: notes.txt says hello world.'%s]\n  - screenshot: answer\n" % idle)
    with open(src, "w") as f:
        f.write(body)
    scb = os.path.join(WORK, "fix_typo.scb")
    subprocess.run([SCC, "-o", scb, src], check=True)
    cmd = [SCVM, "run", "-t", "agent", "--agent", AGENT, "--agent-bin", exe, "--speed", "0",
           "--turn-timeout", "120000", "--artifacts", art, scb]
    if INTERACTIVE:
        cmd[4:4] = ["--interactive"]
        if GOLDEN:
            cmd[4:4] = ["--goldens", GOLDEN, "--update-goldens" if UPDATE else "--ci"]
    # Gemini CLI declares write_todos in some sessions only (docs/real-agents.md)
    if AGENT != "gemini-cli":
        cmd[4:4] = ["--strict-tools"]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": user_home, "TMPDIR": tmp, "LANG": "C.UTF-8"}
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    fails = []

    def check(what, ok):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            fails.append(what)

    check("scvm run -t agent exits 0 (got %d)" % p.returncode, p.returncode == 0)
    try:
        run = json.load(open(os.path.join(art, "run.json")))
    except (OSError, ValueError) as e:
        run = {}
        check("run.json is there (%s)" % e, False)
    ag = run.get("agent", {})
    check("run.json: passed (%s)" % run.get("status"), run.get("status") == "passed")
    check("every scripted response served (%s)" % ag.get("responses"),
          ag.get("responses") == {"scripted": 4, "served": 4})
    check("three tool results checked, none mismatched (%s)" % ag.get("tool_results"),
          ag.get("tool_results") == {"checked": 3, "mismatched": 0})
    check("the workspace assertion passed (%s)" % ag.get("assertions"),
          ag.get("assertions", {}).get("passed") == 1 and ag.get("assertions", {}).get("failed") == 0)
    events = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    checks = [e for e in events if e.get("event") == "tool_result_check"]
    check("tool results: runCmd, readFile, editFile, each passed (%s)"
          % [(e["tool"], e["passed"]) for e in checks],
          [(e["tool"], e["passed"]) for e in checks] == [("runCmd", True), ("readFile", True), ("editFile", True)])
    decl = [e for e in events if e.get("event") == "tools_declared"]
    check("the agent's declared tools are reported, as its profile has them (%s)"
          % ((decl[0].get("not_in_profile"), decl[0].get("missing")),) if decl else "no tools_declared event",
          bool(decl) and (AGENT == "gemini-cli" or (decl[0]["not_in_profile"] == [] and decl[0]["missing"] == [])))
    if not INTERACTIVE:
        check("the agent exited 0 by itself (%s)" % run.get("exit_status"),
              (run.get("exit_status") or {}).get("exit_code") == 0 and
              not (run.get("exit_status") or {}).get("terminated_by_harness"))
    else:
        # the scenario's two asserts: the file (the mock's) and the answer on the screen
        check("the scripted answer is on its screen",
              [e.get("passed") for e in events if e.get("kind") == "assert"] == [True, True])
        if GOLDEN:
            check("the screenshot matches its golden (%s)" % run.get("goldens"),
                  (run.get("goldens") or {}).get("updated" if UPDATE else "matched") == 1)
    if not INTERACTIVE:
        # agentEdits as the agent's own edit tool (the page's agent_edits)
        src = os.path.join(WORK, "agent_edits.yaml")
        with open(src, "w") as f:
            f.write(doc_example("agent_edits"))
        scb2 = os.path.join(WORK, "agent_edits.scb")
        subprocess.run([SCC, "-o", scb2, src], check=True)
        q = subprocess.run(cmd[:-1] + [scb2], capture_output=True, text=True, env=env, timeout=900)
        ev2 = [json.loads(l) for l in q.stdout.splitlines() if l.startswith("{")]
        edits = [e["passed"] for e in ev2 if e.get("event") == "tool_result_check" and e["tool"] == "agentEdits"]
        check("agentEdits: both edits made by the agent's own tool, the files as expected (exit %d, %s)"
              % (q.returncode, edits), q.returncode == 0 and edits == [True, True])
        if q.returncode:
            print(q.stderr[-3000:])
    check("the user's HOME was not touched (%s)" % os.listdir(user_home), os.listdir(user_home) == [])
    check("nothing of the run is left in TMPDIR (%s)" % os.listdir(tmp), os.listdir(tmp) == [])
    if fails:
        print("--- stderr\n" + p.stderr[-6000:])
        return 1
    print("%s: all checks passed" % AGENT)
    return 0


sys.exit(main())
