#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fake_test.py - `scvm run -t agent` (docs/real-agents.md) against a small
agent of ours (fake_agent.py, profile fake-agent.json), so every verdict,
diff and error of the orchestrator is checked fast and without npm: a pass
headless and interactive (a golden), a wrong tool result (the diff), exact
and regex expectations, a wrong status, a failed workspace assertion, the
agent's exit status, an agent that stops early, strict tools, refusals
before the start, `scvm agents`, `scvm serve llm --agent auto`; after each
run nothing is left in TMPDIR and the user's HOME is untouched.

usage: fake_test.py SCC SCVM WORK DOCS_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "llm"))
from serve_util import Server  # noqa: E402

SCC, SCVM, WORK, DOCS = sys.argv[1:5]
HERE = os.path.dirname(os.path.abspath(__file__))
PROFILE = os.path.join(HERE, "fake-agent.json")
AGENT = os.path.join(HERE, "fake_agent.py")
fails = []


def check(what, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
        if detail:
            print("  " + detail[-4000:].replace("\n", "\n  "))


def doc_example(name):
    text = open(os.path.join(DOCS, "real-agents.md"), encoding="utf-8").read()
    return re.search(r"^```yaml example=%s\n(.*?)^```" % re.escape(name), text, re.S | re.M).group(1)


def compile_(name, text):
    src = os.path.join(WORK, name + ".yaml")
    with open(src, "w") as f:
        f.write(text)
    scb = os.path.join(WORK, name + ".scb")
    p = subprocess.run([SCC, "-o", scb, src], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit("FAIL: scc %s: %s" % (name, p.stderr))
    return scb


USER_HOME = os.path.join(WORK, "user-home")
TMP = os.path.join(WORK, "tmp")


def run(scb, *extra, agent_args=(), profile=PROFILE):
    """scvm run -t agent; returns (status, events, stderr, run.json)."""
    art = os.path.join(WORK, "art")
    shutil.rmtree(art, ignore_errors=True)
    cmd = [SCVM, "run", "-t", "agent", "--agent", profile, "--agent-bin", AGENT, "--speed", "0",
           "--turn-timeout", "20000", "--artifacts", art] + list(extra) + [scb]
    if agent_args:
        cmd += ["--"] + list(agent_args)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": USER_HOME, "TMPDIR": TMP, "LANG": "C.UTF-8"}
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    events = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    try:
        rj = json.load(open(os.path.join(art, "run.json")))
    except (OSError, ValueError):
        rj = {}
    left = os.listdir(TMP) + os.listdir(USER_HOME)
    check("  ... and nothing is left in TMPDIR or the user's HOME (%s)" % left, not left)
    for x in os.listdir(TMP):
        shutil.rmtree(os.path.join(TMP, x), ignore_errors=True)
    return p.returncode, events, p.stderr, rj


def scenario(tool_use, after="", name="t"):
    return ("name: %s\ntimeline:\n  - userInputs:\n      - [0, 'go']\n  - llmResponse:\n"
            "      - assistant: [[10, 'Working.']]\n%s  - llmResponse:\n      - assistant: [[10, 'Done.']]\n%s"
            % (name, tool_use, after))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(USER_HOME)
    os.makedirs(TMP)

    # 1. the docs' scenario, headless: a pass, every part reported
    fix = compile_("fix_typo", doc_example("fix_typo"))
    junit = os.path.join(WORK, "junit.xml")
    st, ev, err, rj = run(fix, "--junit", junit)
    check("headless: the docs' scenario passes (exit %d)" % st, st == 0, err)
    ag = rj.get("agent", {})
    check("run.json agent: 4 of 4 responses, 3 results checked, 1 assertion (%s)" % ag,
          ag.get("responses") == {"scripted": 4, "served": 4} and ag.get("tool_results") ==
          {"checked": 3, "mismatched": 0} and ag.get("assertions") == {"passed": 1, "failed": 0} and
          ag.get("mode") == "headless" and ag.get("passed") is True)
    kinds = [e.get("event") for e in ev if e.get("kind") == "agent"]
    check("events: tools_declared, then a request and a result check per turn (%s)" % kinds,
          kinds == ["tools_declared", "llm_request", "tool_result_check", "llm_request", "tool_result_check",
                    "llm_request", "tool_result_check", "llm_request"])
    jx = open(junit).read() if os.path.exists(junit) else ""
    check("--junit: one passing testcase with the agent named", 'tests="1" failures="0" errors="0"' in jx and
          'name="fix_typo"' in jx and '<property name="agent" value="fake-agent headless"/>' in jx, jx)
    ui = [e for e in ev if e.get("kind") == "user_input"]
    check("the prompt went on the command line", ui and ui[0].get("on_command_line") is True)
    # ordering: a tool's result event comes after the agent's next request
    idx = [i for i, e in enumerate(ev) if e.get("kind") == "timeline" and e.get("event") == "tool_result"]
    req = [i for i, e in enumerate(ev) if e.get("event") == "llm_request"]
    check("each tool_result op waited for the agent's next request", len(idx) == 3 and
          all(any(r < i for r in req[1 + k:]) for k, i in enumerate(idx)))

    # 2. interactive, with a golden of the screen (written, then matched)
    tui = compile_("fix_tui", doc_example("fix_typo").replace("name: fix_typo", "name: fix_tui") +
                   "  - screenshot: answer\n  - assert:\n      text:\n        contains: ['Done: notes.txt']\n")
    gold = os.path.join(WORK, "goldens")
    st, ev, err, rj = run(tui, "--interactive", "--goldens", gold)
    check("interactive: passes and writes its golden (exit %d)" % st, st == 0 and
          os.path.exists(os.path.join(gold, "answer.golden")), err)
    golden = open(os.path.join(gold, "answer.golden")).read() if os.path.exists(os.path.join(gold, "answer.golden")) else ""
    check("the golden shows the typed prompt and the scripted answer",
          "fake> Create notes.txt, then fix its typo" in golden and "Done: notes.txt says hello world." in golden,
          golden)
    st, ev, err, rj = run(tui, "--interactive", "--goldens", gold, "--ci")
    check("interactive again: the screen matches the golden (%s)" % rj.get("goldens"),
          st == 0 and (rj.get("goldens") or {}).get("matched") == 1, err)
    check("interactive: the agent was asked to leave with its quit key",
          (rj.get("exit_status") or {}).get("terminated_by_harness") is False)

    # 2a. --report (docs/report.md): a suite of one, the agent's session on
    # its page as a recording, the screenshot matched, its artifacts where
    # --artifacts says (art/<scenario>/)
    rep = os.path.join(WORK, "report")
    st, ev, err, _ = run(tui, "--interactive", "--goldens", os.path.join(WORK, "suite-goldens"), "--report", rep)
    recs = json.load(open(os.path.join(rep, "report.json"))).get("runs", []) if os.path.exists(
        os.path.join(rep, "report.json")) else []
    check("--report: one passing record (exit %d, %s)" % (st, recs), st == 0 and len(recs) == 1 and
          recs[0].get("verdict") == "passed" and recs[0].get("screenshots") == 1,
          err)
    page = os.path.join(rep, "0000-fix_tui.html")
    html = open(page, encoding="utf-8").read() if os.path.exists(page) else ""
    check("--report: the page plays the session and shows the screenshot",
          'id="player"' in html and '<span class="result written">written</span>' in html and
          "Done:" in html and "llm_request" in html)
    check("--report: the artifacts are where --artifacts says",
          os.path.exists(os.path.join(WORK, "art", "fix_tui", "session.cast")) and
          os.path.exists(os.path.join(WORK, "art", "fix_tui", "run.json")))

    # 2b. the user's side between the agent's turns: a command and a patch
    # after the last response, checked in the workspace at the end; and
    # the session recorded as an asciicast
    patch = os.path.join(WORK, "user.patch")
    with open(patch, "w") as f:
        f.write("--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1,2 @@\n hello world\n+patched by the user\n")
    usr = compile_("user_side", doc_example("fix_typo").replace("name: fix_typo", "name: user_side") +
                   "  - userCommand:\n      cmd: 'echo by-the-user > user.txt'\n"
                   "  - userEdits:\n      patch: user.patch\n"
                   "  - assert:\n      fs:\n        contains: [{path: user.txt, text: by-the-user},"
                   " {path: notes.txt, text: \"hello world\\npatched by the user\\n\"}]\n")
    cast = os.path.join(WORK, "run.cast")
    st, ev, err, rj = run(usr, "--cast", cast)
    check("userCommand and userEdits after the agent's last turn, then checked (exit %d)" % st, st == 0 and
          rj.get("agent", {}).get("assertions") == {"passed": 3, "failed": 0}, err)
    head = open(cast).readline() if os.path.exists(cast) else ""
    check("--cast: an asciicast v2 of the agent's terminal", '"version": 2' in head or '"version":2' in head, head)

    # 3. a result that differs: the run fails, the diff says how
    bad = compile_("bad_result", scenario("  - agentToolUse:\n      toolName: runCmd\n      args: {cmd: 'echo hello'}\n"
                                          "      result: goodbye\n"))
    st, ev, err, rj = run(bad, "--junit", junit)
    check("a wrong result fails the run (exit %d)" % st, st == 1)
    jx = open(junit).read()
    check("--junit: a failure, saying why", 'failures="1"' in jx and '<failure message="' in jx and
          "tool results differ" in jx, jx)
    check("stderr: what differs, with the result", "tool results differ" in err and "does not contain:" in err and
          "goodbye" in err and "hello" in err, err)
    chk = [e for e in ev if e.get("event") == "tool_result_check"]
    check("the check event says why", chk and chk[0]["passed"] is False and "goodbye" in chk[0].get("message", ""))
    check("run.json: errored as an assertion, 1 mismatched", rj.get("status") == "failed" and
          rj.get("agent", {}).get("tool_results") == {"checked": 1, "mismatched": 1})

    # 4. exact and regex expectations
    ok = compile_("modes", scenario(
        "  - agentToolUse:\n      toolName: runCmd\n      args: {cmd: 'printf \"a\\\\nb\\\\n\"'}\n"
        "      result: {exact: \"a\\nb\"}\n  - llmResponse:\n      - assistant: [[1, 'again']]\n"
        "  - agentToolUse:\n      toolName: runCmd\n      args: {cmd: 'echo id=42'}\n      result: {regex: 'id=[0-9]+$'}\n"))
    st, ev, err, rj = run(ok)
    check("{exact} and {regex} results pass (exit %d)" % st, st == 0, err)
    ex = compile_("exact_bad", scenario("  - agentToolUse:\n      toolName: runCmd\n      args: {cmd: 'printf \"a\\\\nc\\\\n\"'}\n"
                                        "      result: {exact: \"a\\nb\"}\n"))
    st, ev, err, rj = run(ex)
    check("an {exact} mismatch shows a line diff", st == 1 and "--- expected" in err and "-b" in err and "+c" in err, err)

    # 5. the status: the agent reports an error, the scenario expects ok (and the reverse)
    stt = compile_("status", scenario("  - agentToolUse:\n      toolName: runCmd\n      args: {cmd: 'exit 3'}\n"))
    st, ev, err, rj = run(stt)
    check("a failing command where ok is expected fails the run", st == 1 and "status: expected ok" in err, err)
    stt2 = compile_("status_err", scenario("  - agentToolUse:\n      toolName: runCmd\n      args: {cmd: 'exit 3'}\n"
                                           "      status: error\n"))
    st, ev, err, rj = run(stt2)
    check("status: error expected and reported passes (exit %d)" % st, st == 0, err)

    # 6. a workspace assertion the agent's work does not satisfy
    fsb = compile_("fs_bad", scenario("  - agentToolUse:\n      toolName: writeFile\n      args: {path: a.txt, content: one}\n",
                                      "") .replace("  - llmResponse:\n      - assistant: [[10, 'Done.']]\n",
                                                   "  - assert:\n      fs:\n        contains: [{path: a.txt, text: two}]\n"
                                                   "  - llmResponse:\n      - assistant: [[10, 'Done.']]\n"))
    st, ev, err, rj = run(fsb)
    check("a failed fs.contains fails the run", st == 1 and "fs.contains 'a.txt': does not contain 'two'" in err and
          "1 workspace assertions failed" in err, err)

    # 7. the agent's exit status, and an agent that stops before the end
    st, ev, err, rj = run(fix, agent_args=["--exit", "3"])
    check("a headless agent exiting 3 fails the run (E_PROCESS_EXIT)", st == 1 and "E_PROCESS_EXIT" in err and
          "exited with 3" in err, err)
    early = compile_("early", "name: early\ntimeline:\n  - userInputs: [[0, 'go']]\n  - llmResponse:\n"
                              "      - assistant: [[1, 'one']]\n  - llmResponse:\n      - assistant: [[1, 'two']]\n")
    st, ev, err, rj = run(early)
    check("an agent that stops after 1 of 2 responses fails at once, saying so", st == 1 and
          "line 6: the agent did not get here" in err and "exited with 0" in err and
          "waiting for its request for response 2 of 2" in err and "1 of 2 responses served" in err, err)

    # 8. strict tools: a tool the profile does not declare
    st, ev, err, rj = run(fix, "--strict-tools", agent_args=["--extra-tool", "Teleport"])
    check("--strict-tools: an undeclared extra tool fails the run", st == 1 and "not in its profile: Teleport" in err,
          err)
    st, ev, err, rj = run(fix, agent_args=["--extra-tool", "Teleport"])
    d = [e for e in ev if e.get("event") == "tools_declared"]
    check("without --strict-tools it is reported only", st == 0 and d and d[0]["not_in_profile"] == ["Teleport"], err)

    # 9. refused before the agent starts (exit 2)
    ws = compile_("websearch", scenario("  - agentToolUse:\n      toolName: webSearch\n      args: {query: x}\n"))
    st, ev, err, rj = run(ws)
    check("a vocabulary tool the profile does not map: exit 2, the line named", st == 2 and
          "line 7: tool 'webSearch': profile 'fake-agent' does not map it" in err and not ev, err)
    two = compile_("two_prompts", "name: two\ntimeline:\n  - userInputs: [[0, 'a'], [5, 'b']]\n  - llmResponse:\n"
                                  "      - assistant: [[1, 'x']]\n")
    st, ev, err, rj = run(two)
    check("headless with two prompts: exit 2", st == 2 and "takes exactly one prompt" in err, err)
    p = subprocess.run([SCVM, "run", "-t", "agent", "--agent", "claude-code", fix], capture_output=True, text=True,
                       env={"PATH": "/nonexistent", "HOME": USER_HOME, "TMPDIR": TMP})
    check("the agent's program missing: exit 2, what to install", p.returncode == 2 and
          "'claude' is not on PATH: install @anthropic-ai/claude-code@2.1.331 from npm; or give its path with --agent-bin"
          in p.stderr, p.stderr)
    st, ev, err, rj = run(fix, profile="no-such-agent")
    check("an unknown profile: exit 2, the shipped ones named", st == 2 and "shipped: claude-code, codex" in err, err)
    badp = os.path.join(WORK, "bad.json")
    with open(badp, "w") as f:
        f.write('{"name": "b",\n "api": "anthropic",\n "command": x}\n')
    st, ev, err, rj = run(fix, profile=badp)
    check("a profile that is not JSON: exit 2 with file:line:col", st == 2 and badp + ":3:13: not valid JSON" in err,
          err)

    # 9b. agentEdits as the agent's edit tool (the page's agent_edits), and
    # one that removes more lines than the file has
    ed = compile_("agent_edits", doc_example("agent_edits"))
    st, ev, err, rj = run(ed)
    edits = [(e["tool"], e["passed"]) for e in ev if e.get("event") == "tool_result_check"]
    check("agentEdits: replaced and added lines, a new file, the line counts checked (%s)" % edits,
          st == 0 and edits == [("readFile", True), ("agentEdits", True), ("agentEdits", True)], err)
    big = compile_("edit_too_big", doc_example("agent_edits").replace("linesRemoved: 1", "linesRemoved: 7"))
    st, ev, err, rj = run(big)
    check("agentEdits removing 7 of 3 lines: the run fails, saying so", st == 1 and
          "agentEdits 'notes.txt' removes 7 lines, but the file has 3" in err, err)

    # 9c. a pack: one scenario chosen with --scenario, none chosen is refused
    pk = os.path.join(WORK, "two.scp")
    subprocess.run([SCC, "--pack", "-o", pk, os.path.join(WORK, "fix_typo.yaml"), os.path.join(WORK, "early.yaml")],
                   check=True, capture_output=True)
    # a pack: every scenario against a fresh agent, -j at a time, one
    # summary and one JUnit; artifacts per scenario
    for jobs in ("1", "2"):
        st, ev, err, rj = run(pk, "-j", jobs, "--junit", junit)
        jx = open(junit).read() if os.path.exists(junit) else ""
        art = os.path.join(WORK, "art")
        fx = json.load(open(os.path.join(art, "fix_typo", "run.json"))) if os.path.exists(
            os.path.join(art, "fix_typo", "run.json")) else {}
        check("a pack, -j %s: both played, one passes, one fails (exit %d); JUnit 2 cases, 1 failure" % (jobs, st),
              st == 1 and "1 passed, 1 failed" in err and 'tests="2" failures="1"' in jx and
              fx.get("agent", {}).get("responses") == {"scripted": 4, "served": 4}, err + jx)
    st, ev, err, rj = run(pk, "--scenario", "fix_typo")
    fx = json.load(open(os.path.join(WORK, "art", "fix_typo", "run.json")))
    check("a pack with --scenario: that scenario played (exit %d)" % st, st == 0 and
          fx.get("agent", {}).get("responses") == {"scripted": 4, "served": 4}, err)

    # 9d. SIGTERM while the agent runs: the run ends as interrupted (143),
    # the agent and the mock are gone, nothing is left
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": USER_HOME, "TMPDIR": TMP, "LANG": "C.UTF-8"}
    hang = compile_("hang", "name: hang\ntimeline:\n  - userInputs: [[0, 'go']]\n  - llmResponse:\n"
                            "      - assistant: [[1, 'x']]\n  - agentToolUse:\n      toolName: runCmd\n"
                            "      args: {cmd: 'sleep 600'}\n  - llmResponse:\n      - assistant: [[1, 'y']]\n")
    pr = subprocess.Popen([SCVM, "run", "-t", "agent", "--agent", PROFILE, "--agent-bin", AGENT, "--speed", "0",
                           "-o", os.devnull, hang], env=env, stderr=subprocess.PIPE, text=True)
    import signal as sg
    import time
    deadline = time.time() + 20
    while time.time() < deadline and not any(
            "sleep 600" in open("/proc/%s/cmdline" % d, "rb").read().replace(b"\0", b" ").decode(errors="replace")
            for d in os.listdir("/proc") if d.isdigit() and os.path.exists("/proc/%s/cmdline" % d)):
        time.sleep(0.1)
    pr.send_signal(sg.SIGTERM)
    try:
        err = pr.communicate(timeout=30)[1]
    except subprocess.TimeoutExpired:
        pr.kill()
        err = pr.communicate()[1]
    time.sleep(0.5)
    left = [d for d in os.listdir("/proc") if d.isdigit() and os.path.exists("/proc/%s/cmdline" % d) and
            "sleep 600" in open("/proc/%s/cmdline" % d, "rb").read().replace(b"\0", b" ").decode(errors="replace")]
    check("SIGTERM: exit 143, the agent's tool process gone, nothing left (%s)" % left,
          pr.returncode == 143 and not left and os.listdir(TMP) == [], err)

    # 10. scvm agents
    p = subprocess.run([SCVM, "agents", "list", "--json"], capture_output=True, text=True)
    names = [json.loads(l)["name"] for l in p.stdout.splitlines()]
    check("scvm agents list --json: the five shipped profiles (%s)" % names,
          p.returncode == 0 and names == ["claude-code", "codex", "gemini-cli", "qwen-code", "opencode"])
    # a user's file of a shipped name overrides it (SCVM_AGENT_PATH)
    over = os.path.join(WORK, "profiles")
    os.makedirs(over, exist_ok=True)
    mine = json.load(open(os.path.join(HERE, "..", "..", "runtime", "agent", "profiles", "codex.json")))
    mine["testedVersion"] = "9.9.9-mine"
    with open(os.path.join(over, "codex.json"), "w") as f:
        json.dump(mine, f)
    oenv = dict(os.environ, SCVM_AGENT_PATH="/nonexistent:" + over)
    p = subprocess.run([SCVM, "agents"], capture_output=True, text=True, env=oenv)
    line = [l for l in p.stdout.splitlines() if l.startswith("codex ")]
    check("SCVM_AGENT_PATH: a user's codex.json overrides the shipped one (%s)" % line,
          line and "@openai/codex@9.9.9-mine" in line[0] and line[0].endswith("(from %s/codex.json)" % over))
    p = subprocess.run([SCVM, "agents", "show", "codex"], capture_output=True, text=True)
    check("scvm agents show codex prints its JSON", p.returncode == 0 and json.loads(p.stdout)["api"] == "openai-responses")
    p = subprocess.run([SCVM, "agents", "map", "claude-code", "editFile",
                        '{"path":"a.txt","old_string":"x","new_string":"y"}', "--workspace", "/w"],
                       capture_output=True, text=True)
    check("scvm agents map (as docs/real-agents.md shows)", p.stdout ==
          '{"tool":"Edit","args":{"file_path":"/w/a.txt","old_string":"x","new_string":"y"}}\n', p.stdout + p.stderr)
    p = subprocess.run([SCVM, "agents", "unmap", "claude-code", "Edit",
                        '{"file_path":"/w/a.txt","old_string":"x","new_string":"y"}', "--workspace", "/w"],
                       capture_output=True, text=True)
    check("scvm agents unmap (as docs/real-agents.md shows)", p.stdout ==
          '{"tool":"editFile","args":{"path":"a.txt","old_string":"x","new_string":"y"}}\n', p.stdout + p.stderr)
    p = subprocess.run([SCVM, "agents", "map", "claude-code", "webSearch", "{}"], capture_output=True, text=True)
    check("scvm agents map of an unmapped tool: exit 1, said", p.returncode == 1 and "does not map" in p.stderr)

    p = subprocess.run([SCVM, "serve", "llm", "--listen", "127.0.0.1:0", "--agent", PROFILE, ws], capture_output=True,
                       text=True, timeout=30)
    check("serve llm --agent with a call the profile cannot map: exit 2 before listening", p.returncode == 2 and
          "listening" not in p.stdout and "does not map it" in p.stderr, p.stdout + p.stderr)

    # 11. scvm serve llm --agent auto: the session's profile detected from
    # the tools its request declares, the scripted runCmd sent as Bash
    srv = Server(SCVM, ["--speed", "0", "--agent", "auto", fix])
    decl = json.load(open(os.path.join(HERE, "..", "..", "runtime", "agent", "profiles", "claude-code.json")))["declares"]
    body = json.dumps({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "Create notes.txt"}],
                       "tools": [{"name": t, "input_schema": {"type": "object"}} for t in decl]}).encode()
    req = urllib.request.Request(srv.url + "/v1/messages", data=body, headers={"content-type": "application/json",
                                                                                "x-api-key": "k1"})
    ans = json.loads(urllib.request.urlopen(req, timeout=10).read())
    calls = [b for b in ans["content"] if b["type"] == "tool_use"]
    status, log = srv.stop()
    check("serve --agent auto: claude-code detected, runCmd sent as Bash {command}",
          "agent claude-code (100% of its tools match)" in log and calls and calls[0]["name"] == "Bash" and
          "command" in calls[0]["input"], log + json.dumps(ans))

    if fails:
        print("%d check(s) failed" % len(fails))
        return 1
    print("all checks passed")
    return 0


sys.exit(main())
