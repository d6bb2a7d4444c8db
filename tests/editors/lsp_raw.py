#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lsp_raw.py SCC WORKDIR - `scc --lsp` against what a broken or hostile
client sends, byte by byte (docs/editors.md, "What the server does with bad
input"): each malformed message gets its JSON-RPC error and the server
answers the next good one; it exits only on `exit` (status 0 after
shutdown, 1 without), or 1 when its input ends.  No crash, no hang: every
read has a deadline."""
import json
import os
import select
import subprocess
import sys
import time

scc, work = sys.argv[1], sys.argv[2]
os.makedirs(work, exist_ok=True)
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL:", what)


class Server:
    def __init__(self):
        self.p = subprocess.Popen([scc, "--lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.buf = b""

    def raw(self, b):
        self.p.stdin.write(b)
        self.p.stdin.flush()

    def send(self, o):
        b = json.dumps(o).encode()
        self.raw(b"Content-Length: %d\r\n\r\n" % len(b) + b)

    def recv(self, deadline=60):
        end = time.monotonic() + deadline
        while True:
            i = self.buf.find(b"\r\n\r\n")
            if i >= 0:
                n = int(self.buf[:i].split(b":")[1])
                if len(self.buf) >= i + 4 + n:
                    body = self.buf[i + 4:i + 4 + n]
                    self.buf = self.buf[i + 4 + n:]
                    return json.loads(body)
            left = end - time.monotonic()
            if left <= 0:
                raise SystemExit("FAIL: no answer within %d s" % deadline)
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if r:
                chunk = os.read(self.p.stdout.fileno(), 65536)
                if not chunk:
                    raise SystemExit("FAIL: the server closed its output (status %s)" % self.p.wait())
                self.buf += chunk

    def request(self, id, method, params=None):
        self.send({"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}})
        return self.recv()

    def wait(self):
        try:
            return self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            raise SystemExit("FAIL: the server did not exit")


def err_code(m):
    return m.get("error", {}).get("code")


s = Server()
# before initialize: a request is refused, a notification ignored
check(err_code(s.request(1, "shutdown")) == -32002, "a request before initialize: ServerNotInitialized")
s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": "file:///x.yaml", "text": "name: x\n"}}})
r = s.request(2, "initialize", {"capabilities": {}})
check("capabilities" in r.get("result", {}), "initialize after the ignored notification")
check(err_code(s.request(3, "initialize", {})) == -32600, "a second initialize is an invalid request")

# framing and JSON errors, each answered with id null, then a good request
def framed(body):
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


bad = [
    (framed(b"{not json"), -32700, "a body that is not JSON"),
    (b"Content-Type: x\r\n\r\n", -32700, "a header without Content-Length"),
    (b"Content-Length: twelve\r\n\r\n", -32700, "a Content-Length that is not a number"),
    (b"Content-Length: 99999999999999999999999\r\n\r\n", -32700, "a Content-Length past size_t"),
    (framed(b"[]"), -32600, "a batch"),
    (framed(b"5"), -32600, "a number"),
    (framed(b'{"jsonrpc":"2.0","id":{},"method":1}'), -32600, "an id that is an object"),
    (framed(b'{"jsonrpc":"2.0","id":7,"x":1}'), -32600, "a request without a method"),
]
for i, (b, code, what) in enumerate(bad):
    s.raw(b)
    m = s.recv()
    check(err_code(m) == code, "%s: error %s, got %s" % (what, code, m))
    check(m.get("id", "absent") in (None, 7), "%s: the id" % what)
    ok = s.request(100 + i, "scc/unknown")
    check(err_code(ok) == -32601 and ok.get("id") == 100 + i, "%s: the next request answered" % what)

# a header longer than 8 KB: dropped with an error; the stream goes on
s.raw(b"X-Padding: " + b"a" * 9000 + b"\r\n\r\n")
check(err_code(s.recv()) == -32700, "an 8 KB header")
check(s.request(200, "scc/unknown").get("id") == 200, "after the long header")

# a message declared larger than 64 MB is refused and its bytes skipped
big = 64 * 1024 * 1024 + 1
s.raw(b"Content-Length: %d\r\n\r\n" % big)
check(err_code(s.recv()) == -32700, "a 64 MB message is refused")
chunk = b" " * (1 << 20)
for _ in range(big // len(chunk)):
    s.raw(chunk)
s.raw(b" " * (big % len(chunk)))
check(s.request(201, "scc/unknown").get("id") == 201, "the skipped body does not desynchronise the stream")

# documents with odd contents: diagnostics, never a crash
cases = {
    "file:///nonexistent/dir/a.yaml": "name: x\ntimeline: [\n",
    "file:///tmp/%00x.yaml": "\x00\x01\x02",
    "untitled:Untitled-1": "- - - [[[{{{",
    "file:///tmp/u%C3%A9.yaml": "name: é\ntimeline:\n  - 𝒳: 1\n",
}
for uri, text in cases.items():
    s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}})
    m = s.recv()
    check(m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
          and len(m["params"]["diagnostics"]) >= 1, "diagnostics for %r" % uri)
# an incremental change whose range is past the end is clamped
s.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": "untitled:Untitled-1", "version": 2},
                   "contentChanges": [{"range": {"start": {"line": 99, "character": 99},
                                                 "end": {"line": 1000, "character": -1}}, "text": "x"},
                                      {"range": {"start": {"line": 0, "character": 0},
                                                 "end": {"line": 9, "character": 9}}, "text": "name: y\n"}]}})
m = s.recv()
check(m.get("method") == "textDocument/publishDiagnostics", "diagnostics after a clamped change")
# what the server ignores it says, as a window/logMessage warning
for msg, why in (({"jsonrpc": "2.0", "method": "textDocument/didChange",
                   "params": {"textDocument": {"uri": "untitled:never-opened", "version": 2},
                              "contentChanges": [{"text": "x"}]}}, "document that is not open"),
                 ({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {}}, "didOpen without"),
                 ({"jsonrpc": "2.0", "params": {}}, "notification without a method")):
    s.send(msg)
    m = s.recv()
    check(m.get("method") == "window/logMessage" and m["params"]["type"] == 2 and why in m["params"]["message"],
          "a logMessage for %s: %s" % (why, m))
# a code action without its params
check(err_code(s.request(300, "textDocument/codeAction", {})) == -32602, "codeAction without params")
for i, m in enumerate(("textDocument/completion", "textDocument/hover", "textDocument/definition")):
    check(err_code(s.request(310 + i, m, {"textDocument": {"uri": "untitled:Untitled-1"}})) == -32602,
          "%s without a position" % m)
    r = s.request(320 + i, m, {"textDocument": {"uri": "untitled:nope"}, "position": {"line": 5, "character": 99}})
    check("result" in r, "%s on a document that is not open: a result, not an error" % m)

# completion in the other dialects' schemas: an ElizaOS evaluation's type
# (the schema's if/then/else and per-type branches), a run step's keys
eliza = ("name: t\ndescription: d\nenvironment:\n  type: local\nrun:\n  - input: hi\n    evaluations:\n"
         "      - type: \n        value: x\njudgment:\n  strategy: all_pass\n")
euri = "file://" + os.path.join(os.path.abspath(work), "e.scenario.yaml")
s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": euri, "languageId": "yaml", "version": 1, "text": eliza}}})
s.recv()
for (line, ch), want in {(7, 14): {"llm_judge", "string_contains", "regex_match"}, (10, 12): {"all_pass", "any_pass"},
                         (5, 4): {"input", "evaluations", "conversation"}}.items():
    r = s.request(500 + line, "textDocument/completion",
                  {"textDocument": {"uri": euri}, "position": {"line": line, "character": ch}})
    got = {i["label"] for i in r.get("result", [])}
    check(want <= got, "ElizaOS completion at %d:%d: %s" % (line, ch, sorted(got)))

# completion inside a Scenario-Format event (the fields lower_*.c checks,
# from their shared lists): a tool use's fields and the mock agent's tool
# names, an assert's checks, a content block's types, a tool shorthand's
# arguments, an llmResponse element's kinds, a section's keys
sf = ("name: t\nserver:\n  \ntimeline:\n  - agentToolUse:\n      toolName: \n      \n"
      "  - assert:\n      \n  - llmResponse:\n      - assistant:\n          - relativeTime: 0\n"
      "            content:\n              type: \n      - \n  - editFile:\n      \n")
suri = "file://" + os.path.join(os.path.abspath(work), "sf.yaml")
s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": suri, "languageId": "yaml", "version": 1, "text": sf}}})
s.recv()
for (line, ch), want in {(2, 2): {"mode", "llmApiStyle", "coalesceThinkingWithToolUse"},
                         (5, 16): {"runCmd", "readFile", "webFetch", "bashOutput"},
                         (6, 6): {"args", "progress", "result", "toolExecution", "toolCallId"},
                         (8, 6): {"fs", "text", "json", "git"},
                         (13, 20): {"text", "image", "resource_link", "diff", "plan"},
                         (14, 8): {"think", "assistant", "error"},
                         (16, 6): {"path", "old_string", "new_string", "replace_all", "progress"}}.items():
    r = s.request(600 + line, "textDocument/completion",
                  {"textDocument": {"uri": suri}, "position": {"line": line, "character": ch}})
    got = {i["label"] for i in r.get("result", [])}
    check(want <= got, "Scenario-Format completion at %d:%d: %s" % (line, ch, sorted(got)))
# hover on an event's field: its description from the schema
r = s.request(620, "textDocument/hover", {"textDocument": {"uri": suri}, "position": {"line": 5, "character": 8}})
check("name" in json.dumps(r.get("result")), "hover on toolName: %s" % r.get("result"))

# shutdown: requests refused after it; exit then ends with 0
check(s.request(400, "shutdown").get("result", "absent") is None, "shutdown answers null")
check(err_code(s.request(401, "scc/unknown")) == -32600, "a request after shutdown")
s.send({"jsonrpc": "2.0", "method": "exit"})
check(s.wait() == 0, "exit after shutdown: status 0")

# exit without shutdown: 1; end of input without exit: 1
s = Server()
s.send({"jsonrpc": "2.0", "method": "exit"})
check(s.wait() == 1, "exit without shutdown: status 1")
s = Server()
s.request(1, "initialize", {})
s.p.stdin.close()
check(s.wait() == 1, "input ended without exit: status 1")

# scc --lsp takes no files
r = subprocess.run([scc, "--lsp", "a.yaml"], capture_output=True, text=True, timeout=60)
check(r.returncode == 2 and "--lsp takes no input files" in r.stderr, "scc --lsp FILE is a usage error")

if failures:
    print("%d check(s) failed" % failures)
    sys.exit(1)
print("lsp raw: ok")
