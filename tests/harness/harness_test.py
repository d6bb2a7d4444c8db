#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""harness_test.py --scc SCC --scvm SCVM --work DIR [--modules DIR]

`scvm serve harness` (docs/serve-harness.md) against the Go harness's
contract (notes/mock-protocols.md section 8): the exact frames of a turn
to every subscriber, field order included; the 400s of POST /prompt; a
prompt while busy; a cancel; heartbeats; CORS; 404/405; a model error; a
prompt past the script; byte-identical streams on two runs; and, with
--modules, the `eventsource` npm package (the WHATWG EventSource for Node)
as a subscriber.  Exit 0, or 1 listing every failure."""
import json
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import sse_util  # noqa: E402
from testlib import expect, failures  # noqa: E402
args = {}
i = 1
while i < len(sys.argv):
    args[sys.argv[i].lstrip("-")] = sys.argv[i + 1]
    i += 2
SCC, SCVM, WORK = args["scc"], args["scvm"], os.path.abspath(args["work"])
os.makedirs(WORK, exist_ok=True)


def compile_(name):
    out = os.path.join(WORK, name + ".scb")
    subprocess.run([SCC, "-o", out, os.path.join(HERE, "scenarios", name + ".yaml")], check=True)
    return out


def Server(*extra):
    return sse_util.Server(SCVM, "harness", *extra)


def request(port, method, path, body=b""):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"%s %s HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
              % (method.encode(), path.encode(), len(body), body))
    data = b""
    while True:
        c = s.recv(65536)
        if not c:
            break
        data += c
    s.close()
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    hdr = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    return int(lines[0].split()[1]), hdr, rest


class Sub(sse_util.Stream):
    """A raw subscriber of GET /events."""

    def __init__(self, port):
        super().__init__(port, "/events")
        # subscribed once ": connected" has come: a prompt posted before
        # that would be missed on a busy machine (the server keeps no history)
        end = time.time() + 60
        while time.time() < end and ": connected" not in self.frames(0.05):
            pass

    def events(self, timeout=0.0):
        return [json.loads(f[6:]) for f in self.frames(timeout) if f.startswith("data: ")]


def turn_frames(sub):
    return [f for f in sub.frames() if f.startswith("data: ")]


def main():
    basic, paced, error = compile_("harness_basic"), compile_("harness_paced"), compile_("harness_error")
    idle = lambda ev: ev[-1] == {"type": "status", "timestamp": ev[-1].get("timestamp"), "state": "idle"}

    # ---- one turn, to two subscribers, frame by frame ----
    srv = Server("--speed", "0", "--heartbeat", "100000", basic)
    a, b = Sub(srv.port), Sub(srv.port)
    expect(a.frames(1.0)[:1] == [": connected"] and b.frames(1.0)[:1] == [": connected"], "': connected' first")
    head = a.head.decode()
    for want in ("HTTP/1.1 200 OK", "Content-Type: text/event-stream", "Cache-Control: no-cache",
                 "Access-Control-Allow-Origin: *", "Transfer-Encoding: chunked"):
        expect(want in head, "/events head lacks %r:\n%s" % (want, head))
    code, hdr, body = request(srv.port, "POST", "/prompt", b'{"content": "list the files"}')
    expect(code == 200 and body == b"" and hdr.get("access-control-allow-origin") == "*", "POST /prompt: %d %r" % (code, body))
    a.until(idle)
    b.until(idle)
    want = [
        '{"type":"user","timestamp":0,"content":"list the files"}',
        '{"type":"status","timestamp":0,"state":"thinking"}',
        '{"type":"reasoning","timestamp":0,"content":"I should look"}',
        '{"type":"text","timestamp":0,"content":"Looking."}',
        '{"type":"status","timestamp":0,"state":"running_tool","message":"list_dir"}',
        '{"type":"tool_call","timestamp":0,"id":"toolu_01","name":"list_dir","input":{"path":"."}}',
        '{"type":"tool_result","timestamp":0,"id":"toolu_01","result":"README.md","isError":false}',
        '{"type":"status","timestamp":0,"state":"thinking"}',
        '{"type":"status","timestamp":0,"state":"running_tool","message":"read"}',
        '{"type":"tool_call","timestamp":0,"id":"toolu_scvm_1","name":"read","input":{"path":"missing.txt"}}',
        '{"type":"tool_result","timestamp":0,"id":"toolu_scvm_1","result":"no such file","isError":true}',
        '{"type":"status","timestamp":0,"state":"thinking"}',
        '{"type":"status","timestamp":0,"state":"running_tool","message":"agentEdits"}',
        '{"type":"tool_call","timestamp":0,"id":"toolu_scvm_2","name":"agentEdits","input":{"path":"README.md","linesAdded":1,"linesRemoved":0}}',
        '{"type":"tool_result","timestamp":0,"id":"toolu_scvm_2","result":"","isError":false}',
        '{"type":"status","timestamp":0,"state":"thinking"}',
        '{"type":"text","timestamp":0,"content":"There is a README."}',
        '{"type":"status","timestamp":0,"state":"idle"}',
    ]
    got_a, got_b = turn_frames(a), turn_frames(b)
    expect(got_a == ["data: " + w for w in want], "turn 1 frames:\n%s" % "\n".join(got_a))
    expect(got_a == got_b, "the two subscribers differ")
    # the second turn (its clock: 2 s into the scenario), then one past the script
    request(srv.port, "POST", "/prompt", b'{"content": "thanks"}')
    ev = a.until(lambda ev: len(ev) > len(want) and idle(ev))
    expect([(e["type"], e.get("content"), e["timestamp"]) for e in ev[len(want):]] ==
           [("user", "thanks", 2), ("status", None, 2), ("text", "You're welcome.", 2), ("status", None, 2)],
           "turn 2: %s" % ev[len(want):])
    request(srv.port, "POST", "/prompt", b'{"content": "more"}')
    ev = a.until(lambda ev: ev[-1].get("state") == "error")
    expect(ev[-1]["message"] == "scvm: scenario 'harness_basic' has no turn 3", "past the script: %s" % ev[-3:])
    # bad requests, CORS, 404/405
    for body, msg in ((b"not json", b"invalid request body\n"), (b"{}", b"content is required\n"),
                      (b'{"content": ""}', b"content is required\n"), (b'{"content": 3}', b"invalid request body\n")):
        code, hdr, got = request(srv.port, "POST", "/prompt", body)
        expect(code == 400 and got == msg and hdr.get("content-type") == "text/plain; charset=utf-8",
               "POST /prompt %r: %d %r" % (body, code, got))
    code, hdr, _ = request(srv.port, "OPTIONS", "/prompt")
    expect(code == 200 and hdr.get("access-control-allow-methods") == "GET, POST, OPTIONS", "OPTIONS: %d %s" % (code, hdr))
    expect(request(srv.port, "GET", "/prompt")[0] == 405, "GET /prompt")
    expect(request(srv.port, "GET", "/nope")[0] == 404, "GET /nope")
    expect(request(srv.port, "POST", "/cancel")[0] == 200, "POST /cancel when idle")
    n_before = len(a.events(0.3))
    expect(n_before == len(a.events(0.3)), "a cancel when idle sends nothing")
    code, log = srv.stop()
    expect(code == 0 and "summary:" in log, "exit %s: %s" % (code, log))  # None: SIGTERM did not stop it

    # an edit of a long path: its tool_call input is whole JSON (it was built in
    # 1 KiB, so a path this long cut it short: the frame was not JSON)
    long_path = "/".join(["folder%03d" % k for k in range(150)]) + "/file.txt"
    yml = os.path.join(WORK, "harness_longpath.yaml")
    with open(yml, "w") as f:
        f.write("name: harness_longpath\ntimeline:\n  - userInputs:\n      - relativeTime: 0\n"
                "        input: 'edit'\n  - agentEdits: { path: '%s', linesAdded: 2, linesRemoved: 3 }\n"
                "  - llmResponse:\n      - assistant:\n          - [10, 'Done.']\n" % long_path)
    longpath = os.path.join(WORK, "harness_longpath.scb")
    subprocess.run([SCC, "-o", longpath, yml], check=True)
    srv = Server("--speed", "0", "--heartbeat", "100000", longpath)
    a = Sub(srv.port)
    request(srv.port, "POST", "/prompt", b'{"content": "edit"}')
    frames, end = [], time.time() + 60
    while time.time() < end and not any('"state":"idle"' in f for f in frames):
        frames = [f[6:] for f in a.frames(0.2) if f.startswith("data: ")]
    calls = [f for f in frames if '"name":"agentEdits"' in f]
    try:
        got = json.loads(calls[0])["input"] if calls else None
    except ValueError:
        got = None
    expect(got == {"path": long_path, "linesAdded": 2, "linesRemoved": 3},
           "a %d-byte path's edit: %s" % (len(long_path), calls[0][-120:] if calls else frames[-3:]))
    srv.stop()

    # ---- busy, cancel, heartbeat ----
    srv = Server("--speed", "1", "--heartbeat", "200", paced)
    a = Sub(srv.port)
    request(srv.port, "POST", "/prompt", b'{"content": "take your time"}')
    a.until(lambda ev: any(e.get("content") == "first" for e in ev))
    request(srv.port, "POST", "/prompt", b'{"content": "again"}')
    ev = a.until(lambda ev: ev[-1].get("state") == "error")
    expect([(e["type"], e.get("state"), e.get("message")) for e in ev[-3:]] ==
           [("user", None, None), ("status", "thinking", None),
            ("status", "error", "another prompt is already in progress")], "busy: %s" % ev[-3:])
    request(srv.port, "POST", "/cancel")
    ev = a.until(lambda ev: ev[-1].get("message") == "context canceled")
    time.sleep(1.6)
    ev = a.events(0.2)
    expect(ev[-1] == {"type": "status", "timestamp": 0, "state": "error", "message": "context canceled"} and
           not any(e.get("content") == "late" for e in ev), "cancel: %s" % ev[-3:])
    expect(": heartbeat" in a.frames(), "no heartbeat in 2 s at --heartbeat 200")
    srv.stop()

    # ---- a model error ends the turn ----
    srv = Server("--speed", "0", error)
    a = Sub(srv.port)
    request(srv.port, "POST", "/prompt", b'{"content": "fail please"}')
    ev = a.until(lambda ev: ev[-1].get("state") == "error")
    expect(ev[-1]["message"] == "Overloaded" and [e["type"] for e in ev] == ["user", "status", "status"],
           "model error: %s" % ev)
    srv.stop()

    # ---- a model error followed by text is retried: no error event ----
    srv = Server("--speed", "0", compile_("harness_retry"))
    a = Sub(srv.port)
    request(srv.port, "POST", "/prompt", b'{"content": "try again"}')
    ev = a.until(idle)
    expect([(e["type"], e.get("state"), e.get("content")) for e in ev] ==
           [("user", None, "try again"), ("status", "thinking", None), ("text", None, "second time lucky"),
            ("status", "idle", None)], "retried error: %s" % ev)
    srv.stop()

    # ---- the same run twice: the same bytes ----
    streams = []
    for _ in range(2):
        srv = Server("--speed", "0", "--heartbeat", "100000", basic)
        a = Sub(srv.port)
        request(srv.port, "POST", "/prompt", b'{"content": "list the files"}')
        a.until(idle)
        streams.append(a.body)
        srv.stop()
    expect(streams[0] == streams[1], "two runs differ")

    # ---- the eventsource npm package as the subscriber ----
    mods = args.get("modules")
    if mods:
        if not os.path.isdir(os.path.join(mods, "eventsource")):
            print("SKIP: eventsource is not installed")
            return 77
        srv = Server("--speed", "0", basic)
        es = subprocess.Popen(["node", os.path.join(HERE, "es_client.mjs"), mods,
                               "http://127.0.0.1:%d/events" % srv.port, "18"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        opened = es.stderr.readline()   # "open" once subscribed ("" if node died)
        request(srv.port, "POST", "/prompt", b'{"content": "list the files"}')
        out, err = es.communicate(timeout=60)
        err = opened + err
        got = json.loads(out) if out.strip() else None
        expect(got is not None and [json.dumps(e, separators=(",", ":")) for e in got["events"]] == want,
               "eventsource got %s\n%s" % (out[-1500:], err[-500:]))
        srv.stop()
    return 0


rc = main()
if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
sys.exit(rc)
