#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""acp_test.py MODE --scc SCC --scvm SCVM --work DIR [--modules DIR] [--corpus DIR]

Drives `scvm serve acp` (docs/serve-acp.md) with real clients:

  sdk2, sdk1  the official ACP SDK (2.4.0's app API, 1.9.0's
              ClientSideConnection; tests/acp/acp_client.mjs) through the
              scenarios in tests/acp/scenarios: every message validated
              against the SDK's schemas, every check the agent makes
              passing with a faithful client and failing, with its
              message, with a wrong one; session/load history; pack
              selection by name and by prompt
  stdlib      the SDK client through every ACP-facing scenario of
              stdlib-scenarios/ (an acp section, or ACP ops), answering
              what the script expects: no failed check
  corpus      the SDK client through the ACP fixtures of the shared corpus
              (mock-agent-acp/scenarios): the ones scc compiles play with
              no failed check; the ones it rejects are rejected with the
              spec's reason
  raw         raw JSON-RPC: malformed and out-of-order input gets the right
              JSON-RPC errors, never a crash or a hang; pacing; EOF and
              signals end it cleanly

Exits 0, 1 with every failure listed, or 77 (skip) for the SDK modes when
the npm packages are missing (tests/npm_setup.py exited 77)."""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
args = {"mode": sys.argv[1]}
i = 2
while i < len(sys.argv):
    args[sys.argv[i].lstrip("-")] = sys.argv[i + 1]
    i += 2
SCC, SCVM, WORK = args["scc"], args["scvm"], os.path.abspath(args["work"])
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def expect(cond, msg):
    if not cond:
        fail(msg)
    return cond


def fresh(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def compile_(name, ws=None, pack=None, extra=()):
    """Compiles scenarios/NAME.yaml (@WS@ = ws) into WORK; returns the .scb."""
    src = open(os.path.join(HERE, "scenarios", name + ".yaml")).read()
    y = os.path.join(WORK, name + ".yaml")
    with open(y, "w") as f:
        f.write(src.replace("@WS@", ws or "/nonexistent"))
    out = os.path.join(WORK, name + ".scb")
    r = subprocess.run([SCC, "-o", out, *extra, y], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("scc %s failed: %s" % (name, r.stderr))
    return out


def client(serve_args, cwd, *opts, sdk="2", timeout=120):
    cmd = ["node", os.path.join(HERE, "acp_client.mjs"), "--modules", args["modules"], "--cwd", cwd,
           "--sdk", sdk, *opts, "--", SCVM, "serve", "acp", *serve_args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0 or not r.stdout.strip():
        fail("acp_client exited %d: %s" % (r.returncode, r.stderr[-2000:]))
        return None
    out = json.loads(r.stdout)
    expect(not out["invalid"], "messages that fail the SDK's schema: %s" % json.dumps(out["invalid"])[:2000])
    expect(not [e for e in out["sdkErrors"] if "Error handling" in e or "Invalid" in e],
           "the SDK reported bad messages: %s" % out["sdkErrors"])
    expect(not out["errors"], "client errors: %s" % out["errors"])
    return out


def kinds(out):
    return [u["sessionUpdate"] for u in out["updates"]]


def methods(out):
    return [c["method"] for c in out["calls"]]


def summary_ok(out, passed=None, failed=0):
    err = out["stderr"]
    expect(out["exit"] and out["exit"]["code"] == (1 if failed else 0),
           "exit %s, expected %d; log:\n%s" % (out["exit"], 1 if failed else 0, err))
    if passed is not None:
        expect("checks: %d passed, %d failed" % (passed, failed) in err,
               "expected %d passed, %d failed checks; log:\n%s" % (passed, failed, err))


# ---------------------------------------------------------------- sdk modes

def mode_sdk2():
    ws = fresh("ws-full")
    scb = compile_("acp_full", ws)
    out = client(["--speed", "0", scb], ws)
    if out:
        summary_ok(out, passed=12)
        expect([t.get("stopReason") for t in out["turns"]] == ["end_turn", "cancelled"],
               "stop reasons %s" % out["turns"])
        expect(out["turns"][0]["result"].get("usage", {}).get("totalTokens") == 7, "usage (unstable) %s" % out["turns"])
        init = out["initialize"]
        expect(init["agentInfo"] == {"name": "mock-agent", "version": "1.0"}, "agentInfo %s" % init)
        expect(out["session"]["_meta"]["trace"] == "full", "sessionStart _meta in session/new: %s" % out["session"])
        caps = init["agentCapabilities"]
        expect(caps["loadSession"] is True and caps["promptCapabilities"]["image"] is True and
               caps["mcpCapabilities"]["http"] is True, "capabilities %s" % caps)
        k = kinds(out)
        for want in ("agent_thought_chunk", "agent_message_chunk", "plan", "tool_call", "tool_call_update",
                     "current_mode_update"):
            expect(want in k, "no %s update in %s" % (want, k))
        img = [u for u in out["updates"] if isinstance(u.get("content"), dict) and u["content"]["type"] == "image"]
        expect(len(img) == 1 and img[0]["content"]["mimeType"] == "image/png", "image block %s" % img)
        term = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call" and u.get("toolCallId") == "make-hello"]
        expect(term and term[0]["kind"] == "execute" and term[0]["content"][0]["type"] == "terminal",
               "runCmd tool_call with terminal content %s" % term)
        done = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call_update" and u.get("toolCallId") == "make-hello"]
        expect(done and done[0]["status"] == "completed" and done[0]["rawOutput"]["output"] == "made\n",
               "runCmd result %s" % done)
        edit = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call" and u.get("kind") == "edit"]
        expect(edit and edit[0]["content"][0]["type"] == "diff" and edit[0]["content"][0]["oldText"] == "hi\n",
               "edit diff %s" % edit)
        expect(methods(out) == ["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release",
                                "fs/read_text_file", "fs/write_text_file", "fs/read_text_file",
                                "fs/write_text_file", "fs/read_text_file", "fs/write_text_file", "fs/read_text_file",
                                "session/request_permission"], "client calls %s" % methods(out))
        expect(open(os.path.join(ws, "notes.md")).read() == "one\nthree\n", "notes.md after writeFile and editFile")
        upd = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call_update" and
               u.get("rawOutput", {}).get("output") == "one\nthree\n"]
        expect(upd and upd[0]["status"] == "completed", "readFile through the client: %s" % upd)
        expect(open(os.path.join(ws, "hello.txt")).read() ==
               "scvm agentEdits hello.txt +1/2\nscvm agentEdits hello.txt +2/2\n", "hello.txt after the edit")
        expect(not any("never sent" in json.dumps(u) for u in out["updates"]), "a cancelled turn went on")

    # session/load: the history before sessionStart, then the live turns
    ws = fresh("ws-load")
    scb = compile_("acp_full", ws)
    out = client(["--speed", "0", scb], ws, "--load", "full-1")
    if out:
        summary_ok(out, passed=12)
        hist = out["updates"][:out["history"]]
        expect([u["sessionUpdate"] for u in hist] == ["user_message_chunk", "agent_message_chunk", "tool_call",
                                                      "tool_call_update"], "history %s" % hist)
        expect(hist[0]["content"]["text"] == "what is in the repo?" and hist[2]["kind"] == "read" and
               hist[3]["status"] == "completed", "history content %s" % hist)
    # an unknown session id is refused (the reference does not check it)
    r = raw_session(scb, [init_msg(0), {"jsonrpc": "2.0", "id": 1, "method": "session/load",
                                         "params": {"sessionId": "nope", "cwd": ws, "mcpServers": []}}])
    expect(r[1].get("error", {}).get("code") == -32002, "session/load of an unknown id: %s" % r[1])

    # every kind of check fails with its message when the client answers wrongly
    ws = fresh("ws-checks")
    with open(os.path.join(ws, "data.txt"), "w") as f:
        f.write("other content\n")
    scb = compile_("acp_checks", ws)
    out = client(["--speed", "0", "--client-timeout", "5000", scb], ws, "--permission", "reject")
    if out:
        err = out["stderr"]
        summary_ok(out, passed=0, failed=6)
        for want in ("fs/read_text_file '%s/data.txt': the content differs from expectedContent:\n--- expected\n"
                     "+++ actual\n-expected content\n+other content" % ws,
                     "runCmd: the output differs from the scenario's result:",
                     "runCmd: the scenario expects status 'error', the command ended with exit code 0",
                     "runCmd 'sleep 30': the command ran past its timeout and was killed",
                     "editFile: the scenario expects status 'ok', the client's file operation ended with an error; "
                     "output:\nold_string not found in %s/data.txt" % ws,
                     "session/request_permission: the scenario expects selected 'allow', the client answered "
                     "selected 'deny'"):
            expect(want in err, "log lacks %r:\n%s" % (want, err))
        expect("terminal/kill" in methods(out), "no terminal/kill for the timeout: %s" % methods(out))
    # ... and passes with a faithful client (the file as scripted; the
    # command results and the edit are the script's own mistakes, so they
    # still fail)
    with open(os.path.join(ws, "data.txt"), "w") as f:
        f.write("expected content\n")
    out = client(["--speed", "0", scb], ws, "--permission", "allow")
    if out:
        summary_ok(out, passed=2, failed=4)
    # a client that skips the script's own calls: set_mode, set_model and the cancel
    ws = fresh("ws-noscript")
    scb = compile_("acp_full", ws)
    out = client(["--speed", "0", "--client-timeout", "300", scb], ws, "--no-script")
    if out:
        err = out["stderr"]
        for want in ("expects the client to cancel the prompt (session/cancel) here",
                     "expects session/set_mode 'code', which the client never sent",
                     "expects session/set_model 'big', which the client never sent"):
            expect(want in err, "log lacks %r:\n%s" % (want, err))
        expect(out["exit"]["code"] == 1, "exit %s" % out["exit"])
        expect(any("never sent: the prompt was cancelled" in json.dumps(u) for u in out["updates"]),
               "without the cancel the turn plays on")

    # packs: chosen by _meta scvm.scenario, else by the first prompt's distance
    ws = fresh("ws-pack")
    for n in ("acp_basic", "acp_other"):
        compile_(n, ws)
    pack = os.path.join(WORK, "acp.scp")
    r = subprocess.run([SCC, "--pack", "-o", pack, os.path.join(WORK, "acp_basic.yaml"),
                        os.path.join(WORK, "acp_other.yaml")], capture_output=True, text=True)
    expect(r.returncode == 0, "scc --pack: %s" % r.stderr)
    out = client(["--speed", "0", pack], ws, "--no-script", "--prompt", "deploy the service to prod")
    if out:
        expect("scenario 'acp_other' (prompt distance 7)" in out["stderr"], "prompt choice: %s" % out["stderr"])
        expect([u.get("content", {}).get("text") for u in out["updates"]] == ["deploying to staging"],
               "updates %s" % out["updates"])
    out = client(["--speed", "0", pack], ws, "--scenario", "acp_basic")
    if out:
        summary_ok(out, passed=4)
        expect(out["session"]["_meta"]["scvm.scenario"] == "acp_basic", "session %s" % out["session"])
    out = client(["--speed", "0", "--scenario", "acp_other", pack], ws)
    if out:
        summary_ok(out)
        expect(out["session"]["_meta"]["scvm.scenario"] == "acp_other", "--scenario: %s" % out["session"])


def mode_passthrough():
    """--passthrough PROGRAM: the client runs `PROGRAM show-sandbox-execution
    CMD --id ID` in its terminal (the spec's passthrough mode; Agent
    Harbor's PROGRAM is `ah`, which this test cannot have: a stand-in
    recorder runs the command and marks its output, so what comes back is
    seen to be the client's program's, not scvm's)."""
    ws = fresh("ws-passthrough")
    ah = os.path.join(WORK, "fake-ah")
    if os.path.exists(os.path.join(WORK, "recorded.log")):
        os.remove(os.path.join(WORK, "recorded.log"))
    with open(ah, "w") as f:
        f.write('#!/bin/sh\n'
                '# a stand-in for `ah show-sandbox-execution CMD --id ID`\n'
                '[ "$1" = show-sandbox-execution ] && [ "$3" = --id ] && [ $# -eq 4 ] || { echo "usage: $*" >&2; exit 64; }\n'
                'printf "%s\\t%s\\n" "$4" "$2" >> "LOG"\n'
                'echo "[recorder: $4]"\n'
                'exec sh -c "$2"\n'.replace("LOG", os.path.join(WORK, "recorded.log")))
    os.chmod(ah, 0o755)
    scb = compile_("acp_passthrough", ws)
    out = client(["--speed", "0", "--passthrough", ah, scb], ws)
    if out:
        summary_ok(out, passed=2)
        creates = [c for c in out["calls"] if c["method"] == "terminal/create"]
        expect([(c["command"], c["args"]) for c in creates] ==
               [(ah, ["show-sandbox-execution", "echo built > out.txt && cat out.txt", "--id", "build-1"]),
                (ah, ["show-sandbox-execution", "echo failing; exit 3", "--id", "scvm-call-1"])],
               "terminal/create %s" % creates)
        expect(methods(out) == ["terminal/create", "terminal/wait_for_exit", "terminal/output", "terminal/release"] * 2,
               "client calls %s" % methods(out))
        term = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call" and u.get("toolCallId") == "build-1"]
        expect(term and term[0]["content"][0]["type"] == "terminal", "the terminal in the tool_call %s" % term)
        done = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call_update" and "rawOutput" in u]
        expect([(u["status"], u["rawOutput"]) for u in done] ==
               [("completed", {"output": "[recorder: build-1]\nbuilt\n", "exitCode": 0}),
                ("failed", {"output": "[recorder: scvm-call-1]\nfailing\n", "exitCode": 3})],
               "results %s" % done)
        expect(open(os.path.join(WORK, "recorded.log")).read() ==
               "build-1\techo built > out.txt && cat out.txt\nscvm-call-1\techo failing; exit 3\n",
               "what the recorder ran")
        expect(open(os.path.join(ws, "out.txt")).read() == "built\n", "the command ran in the session's cwd")
    # a passthrough program the client cannot run: the commands' checks fail
    out = client(["--speed", "0", "--passthrough", os.path.join(WORK, "no-such-ah"), scb], ws)
    if out:
        summary_ok(out, passed=0, failed=2)
        expect("runCmd: the scenario expects status 'ok', the command ended with exit code 127" in out["stderr"],
               out["stderr"])
    # without it, the same scenario runs `sh -c CMD` in the terminal
    out = client(["--speed", "0", scb], ws)
    if out:
        summary_ok(out, passed=2)
        creates = [c for c in out["calls"] if c["method"] == "terminal/create"]
        expect([c["command"] for c in creates] == ["sh", "sh"], "terminal/create %s" % creates)


def mode_sdk1():
    ws = fresh("ws-v1")
    scb = compile_("acp_basic", ws)
    out = client(["--speed", "0", scb], ws, sdk="1")
    if out:
        summary_ok(out, passed=4)
        k = kinds(out)
        expect(k.count("tool_call") == 4 and "plan" in k and "current_mode_update" in k, "updates %s" % k)
        expect(k[0] == "available_commands_update" and
               out["updates"][0]["availableCommands"] == [{"name": "compact", "description": "a command the scenario runs"}],
               "available commands %s" % out["updates"][:1])
        grep = [u for u in out["updates"] if u.get("kind") == "search"]
        expect(grep and grep[0]["title"] == "grep TODO", "grep tool_call %s" % grep)
        upd = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call_update" and u.get("rawOutput", {}).get("output") == "README.md:1: TODO"]
        expect(upd and upd[0]["status"] == "completed", "grep result %s" % upd)
        expect(open(os.path.join(ws, "README.md")).read() == "tidy\nscvm agentEdits README.md +1/1\n", "README.md")


# ---------------------------------------------------------------- stdlib

ACP_OPS = ("INITIALIZE", "SESSION_START", "FILE_READS", "PERMISSION", "SET_MODE", "SET_MODEL")


def dis_ops(scb):
    """(op, operands text) of every op in `scvm dis --no-lines`."""
    r = subprocess.run([SCVM, "dis", "--no-lines", scb], capture_output=True, text=True, check=True)
    ops = []
    for line in r.stdout.splitlines():
        parts = line.split(None, 4)
        if len(parts) >= 4 and parts[0].isdigit():
            ops.append((parts[3], parts[4] if len(parts) > 4 else ""))
    return ops


def expected_outcome(k):
    """What a faithful client answers to a scripted permission request."""
    if isinstance(k.get("decision"), dict):
        d = k["decision"]
        return {"outcome": d["outcome"], **({"optionId": d["optionId"]} if "optionId" in d else {})}
    g = k.get("granted")
    if g is None:
        return {"outcome": "selected", "optionId": k["options"][0]["id"]}
    want = "allow" if g else "reject"
    opts = [o for o in k["options"] if o["kind"] == want + "_once"] or \
           [o for o in k["options"] if o["kind"].startswith(want)]
    return {"outcome": "selected", "optionId": opts[0]["id"]}


def mode_stdlib():
    """A fully simulated client, faithful to each script: it advertises the
    script's clientCapabilities, answers permissions as scripted, runs
    terminals as scripted (the result's text, exit 0 for ok), and its
    workspace holds what the script assumes is there (a file readFile
    reads, the old_string editFile replaces, the lines agentEdits removes,
    agentFileReads' contents)."""
    root = os.path.join(os.path.dirname(os.path.dirname(HERE)), "stdlib-scenarios")
    ran = 0
    for f in sorted(os.listdir(root)):
        if not f.endswith(".yaml"):
            continue
        scb = os.path.join(WORK, f[:-5] + ".scp")
        r = subprocess.run([SCC, "--pack", "-o", scb, os.path.join(root, f)], capture_output=True, text=True)
        if not expect(r.returncode == 0, "%s: %s" % (f, r.stderr)):
            continue
        ops = dis_ops(scb)
        src = open(os.path.join(root, f)).read()
        if not any(o in ACP_OPS for o, _ in ops) and "\nacp:" not in src:
            continue
        ws = fresh("ws-" + f[:-5])
        files, perms, terms, caps = {}, [], [], None
        seeds = {}
        tool = None
        for op, rest in ops:
            if op == "INITIALIZE":
                caps = json.loads(rest).get("request", {}).get("clientCapabilities")
            elif op == "PERMISSION":
                perms.append(expected_outcome(json.loads(rest)))
            elif op == "FILE_READS":
                for fr in json.loads(rest):
                    files[fr["path"]] = fr.get("expectedContent", "")
            elif op == "FILE_EDIT":
                path, add, rm = rest.rsplit(" ", 2)
                if int(rm):
                    seeds.setdefault(json.loads(path), "".join("line %d\n" % k for k in range(1, int(rm) + 1)))
            elif op == "TOOL_START":
                name, rest2 = rest.split(" ", 1)
                args = json.loads(rest2[:rest2.rindex("}") + 1]) if rest2.startswith("{") else {}
                tool = (json.loads(name), args)
                if tool[0] == "editFile" and "old_string" in args:
                    seeds.setdefault(args["path"], args["old_string"] + "\n")
            elif op == "TOOL_RESULT" and tool:
                name, status, out = json.loads("[" + ",".join(rest.split(" ", 2)[:2]) + "]") + [rest.split(" ", 2)[2]]
                out = json.loads(out)
                text = out if isinstance(out, str) else (out or {}).get("exact", (out or {}).get("contains", "")) \
                    if isinstance(out, dict) else ""
                if tool[0] == "readFile":
                    seeds.setdefault(tool[1]["path"], text)
                if tool[0] == "runCmd":
                    terms.append({"output": text, "exitCode": 0 if status in ("ok", "success") else 1})
                tool = None
        for rel, content in seeds.items():
            full = os.path.join(ws, rel)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w") as fh:
                fh.write(content)
        for p, c in list(files.items()):
            if p.startswith(ws + "/"):
                with open(p, "w") as fh:
                    fh.write(c)
                del files[p]
        fsmap, answers = os.path.join(WORK, f + ".fs.json"), os.path.join(WORK, f + ".answers.json")
        json.dump(files, open(fsmap, "w"))
        json.dump({"permissions": perms, "terminals": terms}, open(answers, "w"))
        extra = ["--client-caps", json.dumps(caps)] if caps else []
        out = client(["--speed", "0", scb], ws, "--fs", fsmap, "--answers", answers, *extra)
        ran += 1
        if not out:
            continue
        expect(out["exit"] and out["exit"]["code"] == 0, "%s: exit %s\n%s" % (f, out["exit"], out["stderr"]))
        expect(out["turns"] and all("stopReason" in t for t in out["turns"]), "%s: turns %s" % (f, out["turns"]))
        print("%s: %d turns, %d updates, %d client calls; %s" % (
            f, len(out["turns"]), len(out["updates"]), len(out["calls"]),
            [l for l in out["stderr"].splitlines() if "checks:" in l][0].split("summary: ")[1]))
    expect(ran >= 8, "only %d ACP-facing stdlib scenarios found" % ran)


# ---------------------------------------------------------------- corpus

def seed(ws):
    """The repository acp_realistic_session edits (a file of 4 lines it
    removes), which the fixture assumes and does not carry."""
    os.makedirs(os.path.join(ws, "services/payments"))
    with open(os.path.join(ws, "services/payments/retry.ts"), "w") as f:
        f.write("".join("line %d\n" % k for k in range(1, 5)))


def mode_corpus():
    root = os.path.join(args["corpus"], "agent-harbor/tests/tools/mock-agent-acp/scenarios")
    if not os.path.isdir(root):
        print("SKIP: no corpus at", root)
        sys.exit(77)
    names = sorted(f[:-5] for f in os.listdir(root) if f.endswith(".yaml"))
    expect(len(names) == 7, "expected the 7 ACP fixtures, found %s" % names)
    for n in names:
        out_scb = os.path.join(WORK, "corpus-" + n + ".scb")
        r = subprocess.run([SCC, "-o", out_scb, os.path.join(root, n + ".yaml")], capture_output=True, text=True)
        if r.returncode != 0:
            # the spec: a sessionStart needs acp.capabilities.loadSession (the reference rejects them too)
            expect("the timeline has a sessionStart but acp.capabilities.loadSession is false" in r.stderr,
                   "%s: scc rejected it for another reason: %s" % (n, r.stderr))
            print("%s: rejected by scc as the spec says" % n)
            continue
        ws = fresh("ws-corpus-" + n)
        seed(ws)
        out = client(["--speed", "0", out_scb], ws, "--no-terminal")
        if not out:
            continue
        expect(out["exit"] and out["exit"]["code"] == 0 and "0 failed" in out["stderr"],
               "%s: %s" % (n, out["stderr"]))
        expect(all(t.get("stopReason") == "end_turn" for t in out["turns"]) and out["turns"],
               "%s: turns %s" % (n, out["turns"]))
        expect(len(out["updates"]) > 0, "%s: no updates" % n)
        sid = (out["session"] or {}).get("sessionId")
        if out["initialize"]["agentCapabilities"].get("loadSession"):
            ws2 = fresh("ws-corpus-load-" + n)
            seed(ws2)
            again = client(["--speed", "0", out_scb], ws2, "--no-terminal", "--load", sid)
            if again:
                expect(again["exit"]["code"] == 0 and again["history"] > 0,
                       "%s: session/load %s: history %s; %s" % (n, sid, again.get("history"), again["stderr"]))
        print("%s: %d turns, %d updates, %d client calls" % (n, len(out["turns"]), len(out["updates"]),
                                                             len(out["calls"])))


# ---------------------------------------------------------------- raw JSON-RPC

def init_msg(i):
    return {"jsonrpc": "2.0", "id": i, "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}}}


class Agent:
    def __init__(self, *serve_args):
        self.p = subprocess.Popen([SCVM, "serve", "acp", *serve_args], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""

    def send(self, m):
        self.p.stdin.write(m if isinstance(m, bytes) else (json.dumps(m) + "\n").encode())
        self.p.stdin.flush()

    def recv(self, timeout=10):
        end = time.time() + timeout
        while b"\n" not in self.buf:
            left = end - time.time()
            if left <= 0 or not select.select([self.p.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def until(self, pred, timeout=10):
        seen = []
        while True:
            m = self.recv(timeout)
            if m is None:
                return None, seen
            seen.append(m)
            if pred(m):
                return m, seen

    def close(self, timeout=10):
        self.p.stdin.close()
        try:
            self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("scvm serve acp did not exit after stdin closed")
        return self.p.returncode, self.p.stderr.read().decode()


def raw_session(scb, msgs, *serve_args):
    a = Agent("--speed", "0", *serve_args, scb)
    res = []
    for m in msgs:
        a.send(m)
        res.append(a.recv())
    a.close()
    return res


def mode_raw():
    ws = fresh("ws-raw")
    scb = compile_("acp_basic", ws)
    err = lambda m: (m or {}).get("error", {}).get("code")
    a = Agent("--speed", "0", scb)
    cases = [
        (b"this is not json\n", -32700, None),
        (b"[1, 2]\n", -32600, None),
        (b"\xff\xfe{\n", -32700, None),
        ({"jsonrpc": "2.0", "id": 0, "method": "session/new", "params": {"cwd": ws, "mcpServers": []}}, -32600, 0),
        (init_msg(0), None, 0),
        ({"jsonrpc": "2.0", "id": "abc", "method": "foo/bar", "params": {}}, -32601, "abc"),
        ({"id": 5, "method": "session/new", "params": {"cwd": ws, "mcpServers": []}}, -32600, 5),
        ({"jsonrpc": "2.0", "id": 6, "method": "session/new", "params": [1]}, -32602, 6),
        ({"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": {"cwd": "rel", "mcpServers": []}}, -32602, 7),
        ({"jsonrpc": "2.0", "id": 8, "method": "session/new",
          "params": {"cwd": ws, "mcpServers": [{"type": "http", "name": "m", "url": "http://x", "headers": []}]}},
         -32602, 8),
        ({"jsonrpc": "2.0", "id": 9, "method": "session/prompt",
          "params": {"sessionId": "none", "prompt": [{"type": "text", "text": "x"}]}}, -32602, 9),
        ({"jsonrpc": "2.0", "id": 10, "method": "session/load",
          "params": {"sessionId": "x", "cwd": ws, "mcpServers": []}}, -32601, 10),
        ({"jsonrpc": "2.0", "id": 11, "method": "session/set_model", "params": {"sessionId": "x", "modelId": "m"}},
         -32601, 11),
        ({"jsonrpc": "2.0", "id": 12, "method": "authenticate", "params": {"methodId": "nope"}}, -32602, 12),
    ]
    for msg, code, rid in cases:
        a.send(msg)
        m = a.recv()
        expect(m is not None and err(m) == code and m.get("id") == rid,
               "%r: expected error %s id %r, got %r" % (msg if isinstance(msg, dict) else msg[:20], code, rid, m))
    # a notification of an unknown method and a response nobody awaits: no answer
    a.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 3}})
    a.send({"jsonrpc": "2.0", "id": 99, "result": {}})
    a.send({"jsonrpc": "2.0", "id": 13, "method": "session/new", "params": {"cwd": ws, "mcpServers": []}})
    m = a.recv()
    expect(m and m.get("id") == 13 and m["result"]["sessionId"] == "scvm-session-1", "session/new: %r" % m)
    sid = m["result"]["sessionId"]
    m = a.recv()
    expect(m and m["params"]["update"]["sessionUpdate"] == "available_commands_update", "after session/new: %r" % m)
    a.send({"jsonrpc": "2.0", "id": 14, "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}})
    m = a.recv()
    expect(err(m) == -32602 and "promptCapabilities" in m["error"]["message"], "image prompt: %r" % m)
    a.send({"jsonrpc": "2.0", "id": 15, "method": "session/set_mode", "params": {"sessionId": sid, "modeId": "nope"}})
    expect(err(a.recv()) == -32602, "unknown mode")
    # a prompt: the client calls arrive while it runs; a second prompt meanwhile is refused
    a.send({"jsonrpc": "2.0", "id": 16, "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "tidy the readme"}]}})
    a.send({"jsonrpc": "2.0", "id": 17, "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "again"}]}})
    m, seen = a.until(lambda m: m.get("id") == 17)
    expect(err(m) == -32600, "a second prompt during one: %r" % m)
    # no terminal, no write: the edit is shown and skipped; the permission is asked; answer it
    perm = [x for x in seen if x.get("method") == "session/request_permission"]
    m = perm[0] if perm else a.until(lambda m: m.get("method") == "session/request_permission")[0]
    expect(m is not None, "no permission request: %r" % seen)
    a.send({"jsonrpc": "2.0", "id": m["id"], "result": {"outcome": {"outcome": "selected", "optionId": "ok"}}})
    m, seen3 = a.until(lambda m: m.get("id") == 16)
    expect(m and m.get("result", {}).get("stopReason") == "end_turn", "prompt answer %r" % m)
    a.send({"jsonrpc": "2.0", "id": 18, "method": "session/set_mode", "params": {"sessionId": sid, "modeId": "architect"}})
    m, _ = a.until(lambda m: m.get("id") == 18)
    expect(m and m.get("result") == {}, "set_mode %r" % m)
    # a prompt past the script's turns
    a.send({"jsonrpc": "2.0", "id": 19, "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "more"}]}})
    m, _ = a.until(lambda m: m.get("id") == 19)
    expect(err(m) == -32603 and "no turn 2" in m["error"]["message"], "prompt past the end %r" % m)
    code, log = a.close()
    expect(code == 1 and "prompt 2: the scenario has 1 turn" in log and "checks: 2 passed, 1 failed, 1 skipped" in log,
           "exit %s log:\n%s" % (code, log))

    # an unanswered client call fails after --client-timeout, and the turn goes on
    a = Agent("--speed", "0", "--client-timeout", "300", scb)
    a.send(init_msg(0))
    a.recv()
    a.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": ws, "mcpServers": []}})
    a.recv()
    a.send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
            "params": {"sessionId": "scvm-session-1", "prompt": [{"type": "text", "text": "x"}]}})
    m, seen = a.until(lambda m: m.get("id") == 2)
    expect(m and m["result"]["stopReason"] == "end_turn", "the turn ends after the timeout: %r" % m)
    code, log = a.close()
    expect(code == 1 and "session/request_permission: no answer within 300 ms" in log, "timeout log:\n%s" % log)

    # answers that come after their timeout, to a session loaded again
    # since: logged, never used (the session they were for is gone)
    fscb = compile_("acp_full", ws)
    a = Agent("--speed", "0", "--client-timeout", "200", fscb)
    a.send(init_msg(0))
    a.recv()
    load = {"jsonrpc": "2.0", "id": 1, "method": "session/load",
            "params": {"sessionId": "full-1", "cwd": ws, "mcpServers": []}}
    a.send(load)
    a.until(lambda m: "method" not in m and m.get("id") == 1)
    a.send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
            "params": {"sessionId": "full-1", "prompt": [{"type": "text", "text": "make hello"}]}})
    m, seen = a.until(lambda m: "method" not in m and m.get("id") == 2)
    calls = [x["id"] for x in seen if "method" in x and "id" in x]
    expect(m and m["result"]["stopReason"] == "end_turn" and len(calls) >= 2, "unanswered turn: %r" % seen[-3:])
    load["id"] = 3
    a.send(load)
    a.until(lambda m: "method" not in m and m.get("id") == 3)
    for c in calls:
        a.send({"jsonrpc": "2.0", "id": c, "result": {"content": "late"}})
    a.send({"jsonrpc": "2.0", "id": 4, "method": "session/set_mode", "params": {"sessionId": "full-1", "modeId": "code"}})
    m, _ = a.until(lambda m: "method" not in m and m.get("id") == 4)
    expect(m and m.get("result") == {}, "alive after late answers: %r" % m)
    code, log = a.close()
    expect(code == 1 and "the answer to id %d came after the call was given up" % calls[0] in log, "late answers:\n%s" % log)

    # pacing: the reply 400 ms after the prompt at speed 1, 200 ms at 0.5
    pscb = compile_("acp_paced", ws)
    for speed, lo in (("1", 0.39), ("0.5", 0.19)):
        a = Agent("--speed", speed, pscb)
        a.send(init_msg(0))
        a.recv()
        a.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": ws, "mcpServers": []}})
        a.recv()
        t0 = time.time()
        a.send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
                "params": {"sessionId": "scvm-session-1", "prompt": [{"type": "text", "text": "wait for it"}]}})
        m = a.recv()
        dt = time.time() - t0
        expect(m and m.get("method") == "session/update" and dt >= lo,
               "speed %s: the reply after %.3f s (scripted %.2f s)" % (speed, dt, lo))
        # cancel: the turn stops at once with stopReason cancelled
        a.close()

    # EOF in the middle of a prompt: exit 1, no hang; SIGTERM: summary, no hang
    a = Agent(pscb)
    a.send(init_msg(0))
    a.recv()
    a.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": ws, "mcpServers": []}})
    a.recv()
    a.send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
            "params": {"sessionId": "scvm-session-1", "prompt": [{"type": "text", "text": "wait for it"}]}})
    a.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "scvm-session-1"}})
    m, _ = a.until(lambda m: m.get("id") == 2)
    expect(m and m["result"]["stopReason"] == "cancelled", "cancel: %r" % m)
    code, log = a.close()
    expect(code == 0, "after a cancel: exit %s\n%s" % (code, log))
    a = Agent(pscb)
    a.send(init_msg(0))
    a.recv()
    a.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": ws, "mcpServers": []}})
    a.recv()
    a.send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt",
            "params": {"sessionId": "scvm-session-1", "prompt": [{"type": "text", "text": "wait for it"}]}})
    code, log = a.close()
    expect(code == 1 and "closed the connection during prompt 1" in log, "EOF mid-prompt: %s\n%s" % (code, log))
    a = Agent(pscb)
    a.send(init_msg(0))
    a.recv()
    t0 = time.time()
    a.p.send_signal(signal.SIGTERM)
    try:
        a.p.wait(5)
    except subprocess.TimeoutExpired:
        a.p.kill()
        fail("SIGTERM did not stop scvm serve acp")
    log = a.p.stderr.read().decode()
    expect(a.p.returncode == 0 and "summary: ok" in log, "SIGTERM: exit %s\n%s" % (a.p.returncode, log))
    # usage errors
    for bad, want in ((["--listen", "127.0.0.1:1", scb], "--listen is an option of serve llm, harness or rest"),
                      (["--client-timeout", "0", scb], "invalid --client-timeout"),
                      ([], "no input file"), (["--scenario", "nope", scb], "no scenario named 'nope'")):
        r = subprocess.run([SCVM, "serve", "acp", *bad], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        expect(r.returncode == 2 and want in r.stderr, "serve acp %s: %d %s" % (bad, r.returncode, r.stderr))
    r = subprocess.run([SCVM, "serve", "acp", os.path.join(WORK, "nope.scb")], capture_output=True, text=True)
    expect(r.returncode == 3, "a missing input: %d" % r.returncode)


os.makedirs(WORK, exist_ok=True)
if args["mode"] in ("sdk2", "sdk1", "corpus", "stdlib", "passthrough"):
    if not os.path.isdir(os.path.join(args.get("modules", ""), "acp-sdk-2")):
        print("SKIP: the ACP SDK is not installed (tests/npm_setup.py)")
        sys.exit(77)
{"sdk2": mode_sdk2, "sdk1": mode_sdk1, "corpus": mode_corpus, "stdlib": mode_stdlib, "raw": mode_raw,
 "passthrough": mode_passthrough}[args["mode"]]()
if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
print("ok")
