#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""raw_http.py - `scvm serve llm` over raw sockets: malformed requests get
proper 4xx answers and never hurt other clients; pacing, determinism,
routing, sessions, assertions, strict tools, exit statuses.

usage: raw_http.py SCVM SCB_DIR [TEST...]   (default: every test)
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_util import Server, read_response, recv_all, request  # noqa: E402

SCVM, DIR = sys.argv[1], sys.argv[2]
FAILS = []


def scb(name):
    return os.path.join(DIR, name + ".scb")


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("  FAIL: " + what)


def msg_body(text="hi", stream=False, **kw):
    b = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": text}], "stream": stream}
    b.update(kw)
    return json.dumps(b)


def sse_texts(body):
    """Text deltas of an Anthropic or OpenAI chat stream, in order."""
    out = []
    for line in body.decode().split("\n"):
        if line.startswith("data: {"):
            d = json.loads(line[6:])
            if d.get("type") == "content_block_delta" and d["delta"].get("type") == "text_delta":
                out.append(d["delta"]["text"])
            for ch in d.get("choices") or []:
                if ch.get("delta", {}).get("content"):
                    out.append(ch["delta"]["content"])
    return out


def raw_exchange(srv, data, expect_close=True):
    s = srv.connect()
    s.sendall(data)
    st, h, body, raw = read_response(s)
    closed = False
    if expect_close:
        s.settimeout(5)
        closed = recv_all(s) == b""
    s.close()
    return st, h, body, closed


def t_malformed():
    srv = Server(SCVM, ["--speed", "0", "--max-body", "1000", scb("route_alpha")])
    cases = [
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET / HTTP/1.1\nHost: x\n\n", 400),
        (b"GET /health HTTP/2.0\r\n\r\n", 505),
        (b"GET /health HTTP/1.1\r\nX: " + b"a" * 40000 + b"\r\n\r\n", 431),
        (b"POST /v1/messages HTTP/1.1\r\nContent-Length: 12x\r\n\r\n", 400),
        (b"POST /v1/messages HTTP/1.1\r\nContent-Length: 5000\r\n\r\n", 413),
        (b"POST /v1/messages HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
        (b"POST /v1/messages HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", 400),
        (b"POST /v1/messages HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400),
        (b"POST /v1/messages HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n", 413),
        (b"POST /v1/messages HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501),
        (b"POST /v1/messages HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501),
        (b"GET /health HTTP/1.1\r\n folded: x\r\n\r\n", 400),
        (b"GET /health HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
        (b"GET health HTTP/1.1\r\n\r\n", 400),
        (b"GET /health HTTP/1.1\r\nX: a\x01b\r\n\r\n", 400),
        (b"GET /health HTTP/1.1\r\nExpect: 200-ok\r\n\r\n", 417),
    ]
    for data, want in cases:
        st, h, body, closed = raw_exchange(srv, data)
        check(st == want, "%r -> %d, expected %d" % (data[:40], st, want))
        check(closed, "%r: connection closed after a malformed request" % data[:40])
        check(json.loads(body).get("error", {}).get("message"), "%r: an error body" % data[:40])
    # bad bodies keep the connection usable
    s = srv.connect()
    st, h, body, _ = request(s, "POST", "/v1/messages", "{not json")
    check(st == 400 and json.loads(body)["error"]["type"] == "invalid_request_error", "bad JSON -> 400 (%d)" % st)
    st, h, body, _ = request(s, "POST", "/v1/chat/completions", "[1,2]")
    check(st == 400, "a JSON array body -> 400")
    st, h, body, _ = request(s, "GET", "/v1/messages")
    check(st == 405 and h.get("allow") == "POST", "GET on a POST endpoint -> 405 with Allow")
    st, h, body, _ = request(s, "GET", "/nowhere")
    check(st == 404, "unknown path -> 404")
    st, h, body, _ = request(s, "GET", "/health")
    check(st == 200 and json.loads(body) == {"status": "ok"}, "health on the same connection")
    st, h, body, _ = request(s, "GET", "/v1/models")
    check(st == 200 and json.loads(body)["data"][0]["id"] == "scvm-mock", "models")
    st, h, body, _ = request(s, "POST", "/s/%zz/v1/messages", msg_body())
    check(st == 400, "malformed scenario name in the path -> 400")
    # a chunked request body, in pieces, with an extension and a trailer
    b = msg_body("Refactor the parser").encode()
    parts = [b[:7], b[7:40], b[40:]]
    chunked = b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\nX-Trailer: t\r\n\r\n"
    s.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked[:10])
    time.sleep(0.05)
    s.sendall(chunked[10:])
    st, h, body, _ = read_response(s)
    check(st == 200 and json.loads(body)["type"] == "message", "a chunked request body is answered (%d)" % st)
    st, h, body, _ = request(s, "GET", "/health")
    check(st == 200, "and the connection stays usable")
    s.close()
    status, log = srv.stop()
    # the one session asked for 1 of route_alpha's 2 responses: INCOMPLETE,
    # but malformed requests are not failures
    check(status == 1 and "summary: INCOMPLETE" in log and "FAILED" not in log,
          "malformed requests are not failures (exit %d)" % status)
    check("summary:" in log, "a summary")


def t_keepalive_pipelining_continue():
    srv = Server(SCVM, ["--speed", "0", scb("route_alpha")])
    s = srv.connect()
    b = msg_body("Refactor the parser")
    one = ("POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: p\r\nContent-Length: %d\r\n\r\n%s" % (len(b), b)).encode()
    s.sendall(one + one + b"GET /health HTTP/1.1\r\n\r\n")
    r1, r2, r3 = read_response(s), read_response(s), read_response(s)
    check(json.loads(r1[2])["content"][0]["text"] == "alpha answers", "pipelined request 1")
    check(json.loads(r2[2])["content"][0]["text"] == "alpha again", "pipelined request 2")
    check(r3[0] == 200, "pipelined request 3")
    s.close()
    s = srv.connect()
    s.sendall(("POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: c\r\nExpect: 100-continue\r\n"
               "Content-Length: %d\r\n\r\n" % len(b)).encode())
    s.settimeout(5)
    first = s.recv(100)
    check(first.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), "100 Continue before the body (%r)" % first[:30])
    s.sendall(b.encode())
    st, h, body, _ = read_response(s)
    check(st == 200, "answer after 100 Continue")
    s.close()
    s = srv.connect()
    s.sendall(("POST /v1/messages HTTP/1.0\r\nx-api-key: z\r\nContent-Length: %d\r\n\r\n%s" % (len(b), b)).encode())
    st, h, body, _ = read_response(s)
    check(st == 200 and h.get("connection") == "close" and recv_all(s) == b"", "HTTP/1.0 closes after the answer")
    s.close()
    srv.stop()


def t_slow_and_vanished_clients():
    srv = Server(SCVM, ["--speed", "1", "--timeout", "700", "--header-timeout", "700", scb("timing"),
                        scb("route_alpha")])
    slow = srv.connect()
    slow.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Len")   # and stalls
    partial = srv.connect()
    partial.sendall(b"POST /v1/messages HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"a\":")
    # a client that starts a paced stream and vanishes
    gone = srv.connect()
    gone.sendall(("POST /v1/messages HTTP/1.1\r\nx-scenario-name: timing\r\nx-api-key: gone\r\nContent-Length: %d\r\n\r\n%s"
                  % (len(msg_body(stream=True)), msg_body(stream=True))).encode())
    time.sleep(0.05)
    gone.close()
    t0 = time.time()
    s = srv.connect()
    st, h, body, _ = request(s, "GET", "/health")
    check(st == 200 and time.time() - t0 < 0.5, "a stalled client does not block others")
    s.close()
    # many connections at once
    socks = [srv.connect() for _ in range(150)]
    for c in socks:
        c.sendall(b"GET /health HTTP/1.1\r\n\r\n")
    good = sum(1 for c in socks if read_response(c)[0] == 200)
    check(good == 150, "150 concurrent connections answered (%d)" % good)
    for c in socks:
        c.close()
    slow.settimeout(3)
    t0 = time.time()
    got = recv_all(slow)
    check(got.startswith(b"HTTP/1.1 408 ") and time.time() - t0 < 2.5,
          "a head that stalls gets 408 after --header-timeout (%r)" % got[:40])
    partial.settimeout(3)
    check(recv_all(partial) == b"", "a stalled body is closed after --timeout")
    partial.close()
    slow.close()
    status, log = srv.stop()
    check(status == 0, "exit 0 (%d)" % status)
    check("request head not complete in time" in log and "closing a stalled connection" in log,
          "the log says why it closed each connection")


def t_max_connections():
    srv = Server(SCVM, ["--speed", "0", "--max-connections", "4", scb("route_alpha")])
    # four connections with a request in flight: each answered once, then
    # the head of a second one begun (so they cannot be closed for others)
    keep = [srv.connect() for _ in range(4)]
    for c in keep:
        c.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /health HTTP/1.1\r\n")
        check(read_response(c)[0] == 200, "a busy connection is served")
    extra = srv.connect()
    extra.settimeout(5)
    extra.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    st, h, body, _ = read_response(extra)
    check(st == 503 and h.get("retry-after") == "1", "over --max-connections, all busy -> 503 (%d)" % st)
    check(recv_all(extra) == b"", "then a close (not a reset)")
    extra.close()
    for c in keep:
        c.close()
    # the server has seen those four go once a new client is served again
    # (on a busy machine the silent ones below could otherwise arrive first)
    end = time.time() + 60
    while time.time() < end:
        probe = srv.connect()
        st = request(probe, "GET", "/health")[0]
        probe.close()
        if st == 200:
            break
    # four that never send a byte: the oldest is closed for a new client
    silent = [srv.connect() for _ in range(4)]
    s = srv.connect()
    check(request(s, "GET", "/health")[0] == 200, "served: an idle connection made room")
    s.close()
    silent[0].settimeout(5)
    check(recv_all(silent[0]) == b"", "the oldest silent connection was closed for it")
    for c in silent:
        c.close()
    status, log = srv.stop()
    check("closing a connection that sent nothing for a new one" in log, "the log says so")


def t_timing():
    srv = Server(SCVM, ["--speed", "0.5", scb("timing")])
    s = srv.connect()
    b = msg_body(stream=True)
    t0 = time.time()
    s.sendall(("POST /v1/messages HTTP/1.1\r\nx-api-key: t\r\nContent-Length: %d\r\n\r\n%s" % (len(b), b)).encode())
    arrivals, data = [], b""
    s.settimeout(5)
    while b"message_stop" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
        for word in (b"one ", b"two ", b"three"):
            if word in chunk:
                arrivals.append((word, time.time() - t0))
    s.close()
    want = {b"one ": 0.1, b"two ": 0.2, b"three": 0.3}
    check([w for w, _ in arrivals] == [b"one ", b"two ", b"three"], "deltas arrive one by one: %r" % arrivals)
    for w, t in arrivals:
        check(want[w] - 0.005 <= t <= want[w] + 0.15, "%r at %.3f s, scripted %.3f s at --speed 0.5" % (w, t, want[w]))
    srv.stop()
    srv = Server(SCVM, ["--speed", "0", scb("timing")])
    s = srv.connect()
    t0 = time.time()
    st, h, body, _ = request(s, "POST", "/v1/chat/completions", msg_body(stream=True))
    check(time.time() - t0 < 0.1, "--speed 0 sends at once")
    check(sse_texts(body) == ["one ", "two ", "three"], "chat stream texts %r" % sse_texts(body))
    check(body.rstrip().endswith(b"data: [DONE]"), "chat stream ends with [DONE]")
    check(h.get("content-type", "").startswith("text/event-stream") and h.get("transfer-encoding") == "chunked",
          "stream headers")
    s.close()
    srv.stop()


def t_deterministic():
    outs = []
    for _ in range(2):
        srv = Server(SCVM, ["--speed", "0", scb("sdk_agent")])
        got = b""
        for path in ("/v1/messages", "/v1/chat/completions", "/v1/responses"):
            s = srv.connect()
            for stream in (True, False):
                b = msg_body("Fix it", stream=stream, stream_options={"include_usage": True})
                st, h, body, raw = request(s, "POST", path, b, {"Authorization": "Bearer k-%s-%s" % (path, stream)})
                got += raw
            s.close()
        srv.stop()
        outs.append(got)
    check(outs[0] == outs[1], "two runs give byte-identical responses")
    check(b"toolu_01" in outs[0] and b"call_fixed_1" in outs[0], "ids in the output")


def t_routing_and_sessions():
    srv = Server(SCVM, ["--speed", "0", scb("route_alpha"), scb("route_beta")])
    s = srv.connect()

    def text(path, body, headers):
        st, h, b, _ = request(s, "POST", path, body, headers)
        if st != 200:
            return "status %d: %s" % (st, b[:200])
        d = json.loads(b)
        return d["content"][0]["text"] if "content" in d else d["choices"][0]["message"]["content"]

    check(text("/v1/messages", msg_body("Write the docs for our HTTP API"), {"x-api-key": "a"}) == "beta answers",
          "prompt routes to beta")
    check(text("/v1/messages", msg_body("tool results, unrelated"), {"x-api-key": "a"}) == "beta again",
          "the session stays bound to its scenario")
    check(text("/v1/messages", msg_body("Refactor parser functions"), {"x-api-key": "b"}) == "alpha answers",
          "another key, another session (alpha)")
    check(text("/v1/chat/completions", msg_body("x"), {"Authorization": "Bearer c", "x-scenario-prompt": "Write documentation"})
          == "beta answers", "x-scenario-prompt routes")
    check(text("/s/route_alpha/v1/chat/completions", msg_body("Write documentation for the HTTP API"),
               {"Authorization": "Bearer d"}) == "alpha answers", "the URL path names the scenario")
    check(text("/v1/messages", msg_body("x"), {"x-api-key": "d", "x-scenario-name": "route_beta"}) == "beta answers",
          "x-scenario-name names the scenario")
    check(text("/v1/messages", msg_body("x"), {"x-api-key": "d", "x-scenario-session": "other", "x-scenario-name": "route_beta"})
          == "beta answers", "x-scenario-session keys a new session")
    st, h, b, _ = request(s, "POST", "/v1/messages", msg_body("x"), {"x-scenario-name": "nope"})
    check(st == 404 and json.loads(b)["error"]["type"] == "not_found_error", "unknown scenario -> 404")
    st, h, b, _ = request(s, "POST", "/v1/messages", msg_body("x"), {"x-api-key": "a"})
    check(st == 400 and b"no more responses" in b and h.get("x-should-retry") == "false",
          "an exhausted session -> 400, not retried")
    s.close()
    status, log = srv.stop()
    # sessions b, c and d (and d's "other") asked for fewer than all
    check(status == 1 and "summary: INCOMPLETE: scenario 'route_alpha', session 'b': 1 of 2 responses served" in log
          and "summary: scenario 'route_beta', session 'a': 2 of 2 responses served" in log
          and log.rstrip().endswith("summary: INCOMPLETE"), "routing run: sessions left short: %d %s" % (status, log[-600:]))
    srv = Server(SCVM, ["--speed", "0", "--loop", "--quiet", scb("route_alpha")])
    s = srv.connect()
    got = [json.loads(request(s, "POST", "/v1/messages", msg_body("x"), {"x-api-key": "l"})[2])["content"][0]["text"]
           for _ in range(3)]
    check(got == ["alpha answers", "alpha again", "alpha answers"], "--loop starts over: %r" % got)
    s.close()
    # SIGHUP (a closed terminal) stops it as SIGTERM does: summary, exit 0
    status, log = srv.stop(signal.SIGHUP)
    check("POST" not in log, "--quiet: no request lines")
    check(status == 0 and "summary:" in log, "SIGHUP stops the server cleanly: %r %r" % (status, log[-300:]))


def t_pack():
    if not os.path.exists(os.path.join(DIR, "routes.scp")):
        print("  SKIP: no routes.scp (llm.scc.pack failed or packs are not built)")
        return
    srv = Server(SCVM, ["--speed", "0", os.path.join(DIR, "routes.scp")])
    s = srv.connect()
    for key, path, prompt, want in (("a", "/v1/messages", "Write docs for the HTTP API", "beta answers"),
                                    ("b", "/s/route_alpha/v1/messages", "Write docs for the HTTP API", "alpha answers"),
                                    ("c", "/v1/messages", "Refactor the parser module into functions", "alpha answers")):
        st, h, b, _ = request(s, "POST", path, msg_body(prompt), {"x-api-key": key})
        got = json.loads(b)["content"][0]["text"] if st == 200 else st
        check(got == want, "pack: %s %r -> %r, expected %r" % (path, prompt, got, want))
    s.close()
    status, log = srv.stop()
    check(status == 1 and log.rstrip().endswith("summary: INCOMPLETE"), "pack run: one response of each session: %d" % status)


def t_incomplete():
    """A mock that was not fully asked says so (issue 30, item 9): without
    --loop, a session short of its scenario's last response, or no session
    at all, ends the summary INCOMPLETE and the exit status is 1."""
    def serve(*opts, asks=0, key="k"):
        srv = Server(SCVM, ["--speed", "0"] + list(opts) + [scb("route_alpha")])
        s = srv.connect()
        # /health first: the server is serving (its signals caught) and
        # no scenario is asked by it
        check(request(s, "GET", "/health")[0] == 200, "health")
        for _ in range(asks):
            st, _, _, _ = request(s, "POST", "/v1/messages", msg_body("Refactor the parser"), {"x-api-key": key})
            check(st == 200, "asked: %d" % st)
        s.close()
        return srv.stop()
    status, log = serve(asks=1)
    check(status == 1 and "summary: INCOMPLETE: scenario 'route_alpha', session 'k': 1 of 2 responses served" in log
          and log.rstrip().endswith("summary: INCOMPLETE"), "1 of 2: %d %s" % (status, log[-400:]))
    status, log = serve()
    check(status == 1 and "summary: INCOMPLETE: no request reached a scenario" in log
          and log.rstrip().endswith("summary: INCOMPLETE"), "nothing asked: %d %s" % (status, log[-400:]))
    status, log = serve(asks=2)
    check(status == 0 and "INCOMPLETE" not in log and log.rstrip().endswith("summary: ok"), "2 of 2: %d %s" % (status, log[-400:]))
    status, log = serve("--loop", asks=1)
    check(status == 0 and log.rstrip().endswith("summary: ok"), "--loop: a script starts over, never short: %d" % status)


def t_asserts_and_strict_tools():
    with tempfile.TemporaryDirectory() as ws:
        srv = Server(SCVM, ["--speed", "0", "--workspace", ws, scb("checks")])
        s = srv.connect()
        check(request(s, "POST", "/v1/messages", msg_body("go"), {"x-api-key": "w"})[0] == 200, "response 1")
        open(os.path.join(ws, "out.txt"), "w").write("hi")
        open(os.path.join(ws, "data.json"), "w").write('{"a": [{"b": 1.0}]}')
        check(request(s, "POST", "/v1/messages", msg_body("go"), {"x-api-key": "w"})[0] == 200, "response 2")
        s.close()
        status, log = srv.stop()
        check(status == 0, "passing assertions: exit 0 (%d)" % status)
        check(re.search(r"assertions: 4 passed, 0 failed", log), "4 checks passed")
    with tempfile.TemporaryDirectory() as ws:
        open(os.path.join(ws, "data.json"), "w").write('{"a": [{"b": 2}]}')
        srv = Server(SCVM, ["--speed", "0", "--workspace", ws, scb("checks")])
        s = srv.connect()
        for _ in range(2):
            request(s, "POST", "/v1/chat/completions", msg_body("go"), {"Authorization": "Bearer f"})
        s.close()
        status, log = srv.stop(signal.SIGINT)
        check(status == 1, "failed assertions: exit 1 (%d)" % status)
        check("FAILED: fs.exists 'out.txt': does not exist" in log, "the log names the failed check")
        check(re.search(r"json.file 'data.json' at '/a/0': expected \{\"b\":1\}, found \{\"b\":2\}", log),
              "the log shows the JSON mismatch")
        check("summary: FAILED" in log, "the summary says FAILED")
    with tempfile.TemporaryDirectory() as ws:
        srv = Server(SCVM, ["--speed", "0", "--strict-tools", "--workspace", ws, scb("checks")])
        s = srv.connect()
        st, h, b, _ = request(s, "POST", "/v1/messages", msg_body("go"), {"x-api-key": "s"})
        check(st == 400 and b"strict tools" in b and b"write_file" in b, "strict tools: missing tool -> 400")
        tools = [{"name": "write_file", "input_schema": {"type": "object"}}]
        st, h, b, _ = request(s, "POST", "/v1/messages", msg_body("go", tools=tools), {"x-api-key": "s"})
        check(st == 200 and json.loads(b)["content"][1]["name"] == "write_file", "strict tools: defined -> 200")
        s.close()
        status, log = srv.stop()
        check(status == 1, "a strict-tools rejection fails the run (exit %d)" % status)


def t_cli():
    def run(args, want, text):
        r = subprocess.run([SCVM] + args, capture_output=True, timeout=20)
        err = r.stderr.decode()
        check(r.returncode == want, "%r -> exit %d, expected %d" % (args, r.returncode, want))
        check(text in err + r.stdout.decode(), "%r: output has %r (%r)" % (args, text, err[:200]))
        # one prefix per line: "scvm: serve llm: ...", never "scvm serve: serve: ..."
        for line in err.splitlines():
            check(not re.match(r"scvm( serve)?: (scvm|serve: serve)", line) and "serve: serve:" not in line,
                  "%r: doubled prefix: %r" % (args, line))
    run(["serve"], 2, "which server")
    run(["serve", "ftp", "x"], 2, "unknown server 'ftp'")
    run(["serve", "llm"], 2, "no input file")
    run(["serve", "llm", "--speed", "-1", scb("timing")], 2, "invalid speed")
    run(["serve", "llm", "--listen", "nope", scb("timing")], 2, "invalid --listen")
    run(["serve", "llm", "--bogus", scb("timing")], 2, "unknown option")
    run(["serve", "llm", os.path.join(DIR, "missing.scb")], 3, "cannot read")
    run(["serve", "llm", os.path.abspath(__file__)], 4, "rejected")
    run(["serve", "llm", scb("timing"), scb("timing")], 2, "same name")
    run(["serve", "llm", "--listen", "host.invalid:1", scb("timing")], 3, "cannot listen")
    run(["serve", "--help"], 0, "--strict-tools")
    # --listen takes names as people write them: localhost, and [::1]
    import urllib.request
    for listen, host in (("localhost:0", "localhost"), ("[::1]:0", "[::1]")):
        p = subprocess.Popen([SCVM, "serve", "llm", "--listen", listen, "--loop", scb("timing")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = p.stdout.readline().decode()
        m = re.match(r"listening on http://(127\.0\.0\.1|\[::1\]):(\d+)", line)
        check(m is not None, "--listen %s: %r" % (listen, line))
        if m:
            with urllib.request.urlopen("http://%s:%s/health" % (host, m.group(2)), timeout=20) as r:
                check(r.status == 200, "--listen %s: GET /health through %s: %d" % (listen, host, r.status))
        p.terminate()
        p.communicate(timeout=20)


def t_max_tokens():
    """_meta.response.stopReason: max_tokens, in each API's own words,
    streamed and whole."""
    srv = Server(SCVM, ["--speed", "0", "--loop", "--quiet", scb("limits")])
    s = srv.connect()
    prompt = [{"role": "user", "content": "Write a long essay"}]
    for stream in (True, False):
        st, h, b, _ = request(s, "POST", "/v1/chat/completions",
                              json.dumps({"model": "m", "stream": stream, "messages": prompt}), {"x-api-key": "c"})
        fin = [c["finish_reason"] for l in b.decode().split("\n") if l.startswith("data: {")
               for c in json.loads(l[6:]).get("choices", []) if c.get("finish_reason")] if stream else \
            [json.loads(b)["choices"][0]["finish_reason"]]
        check(st == 200 and fin == ["length"], "chat %s: finish_reason length (%r)" % (stream, fin))
        st, h, b, _ = request(s, "POST", "/v1/messages",
                              json.dumps({"model": "m", "max_tokens": 9, "stream": stream, "messages": prompt}),
                              {"x-api-key": "a"})
        if stream:
            deltas = [json.loads(l[6:]) for l in b.decode().split("\n") if l.startswith("data: {")]
            sr = [d["delta"]["stop_reason"] for d in deltas if d.get("type") == "message_delta"]
        else:
            sr = [json.loads(b)["stop_reason"]]
        check(st == 200 and sr == ["max_tokens"], "messages %s: stop_reason max_tokens (%r)" % (stream, sr))
        st, h, b, _ = request(s, "POST", "/v1/responses",
                              json.dumps({"model": "m", "stream": stream, "input": "Write a long essay"}),
                              {"x-api-key": "r"})
        if stream:
            evs = [json.loads(l[6:]) for l in b.decode().split("\n") if l.startswith("data: {")]
            last = evs[-1]
            ok = last["type"] == "response.incomplete" and last["response"]["status"] == "incomplete" and \
                last["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
        else:
            o = json.loads(b)
            ok = o["status"] == "incomplete" and o["incomplete_details"] == {"reason": "max_output_tokens"}
        check(st == 200 and ok, "responses %s: incomplete, max_output_tokens" % stream)
        path = "/v1beta/models/g:" + ("streamGenerateContent?alt=sse" if stream else "generateContent")
        st, h, b, _ = request(s, "POST", path, json.dumps({"contents": [{"parts": [{"text": "Write a long essay"}]}]}),
                              {"x-goog-api-key": "g"})
        chunks = [json.loads(l[6:]) for l in b.decode().split("\n") if l.startswith("data: {")] if stream \
            else [json.loads(b)]
        fr = [c["candidates"][0]["finishReason"] for c in chunks if "finishReason" in c["candidates"][0]]
        check(st == 200 and fr == ["MAX_TOKENS"], "gemini %s: finishReason MAX_TOKENS (%r)" % (stream, fr))
    s.close()
    status, log = srv.stop()
    check(status == 0, "limits run exits 0")


# One request per API and mode: (name, path, body, auth header name).
def api_requests(prompt):
    msgs = [{"role": "user", "content": prompt}]
    gem = {"contents": [{"role": "user", "parts": [{"text": prompt}]}],
           "generationConfig": {"thinkingConfig": {"includeThoughts": True}}}
    out = []
    for stream in (True, False):
        w = "stream" if stream else "whole"
        out += [("chat " + w, "/v1/chat/completions",
                 {"model": "m", "stream": stream, "messages": msgs, "stream_options": {"include_usage": True}},
                 "Authorization"),
                ("responses " + w, "/v1/responses", {"model": "m", "stream": stream, "input": prompt}, "Authorization"),
                ("messages " + w, "/v1/messages", {"model": "m", "max_tokens": 9, "stream": stream, "messages": msgs},
                 "x-api-key")]
    out += [("gemini sse", "/v1beta/models/g:streamGenerateContent?alt=sse", gem, "x-goog-api-key"),
            ("gemini array", "/v1beta/models/g:streamGenerateContent", gem, "x-goog-api-key"),
            ("gemini whole", "/v1beta/models/g:generateContent", gem, "x-goog-api-key")]
    return out


def send_raw(srv, path, body, hdr, key):
    """Sends one request on a new connection; returns the socket."""
    s = srv.connect()
    data = json.dumps(body).encode()
    value = "Bearer " + key if hdr == "Authorization" else key
    s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\n%s: %s\r\nContent-Type: application/json\r\n"
               "Content-Length: %d\r\n\r\n" % (path, hdr, value, len(data))).encode() + data)
    return s


def read_to_close(s):
    """Everything until the peer closes: (bytes, 'fin' or 'rst'; 'open'
    when it has not closed after 5 s)."""
    s.settimeout(5)
    data = b""
    while True:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            return data, "rst"
        except socket.timeout:
            return data, "open"
        if not b:
            return data, "fin"
        data += b


def dechunk(body):
    """The chunks of a chunked body that arrived whole, and whether the
    last chunk (0) was among them."""
    out, rest = b"", body
    while b"\r\n" in rest:
        size_line, after = rest.split(b"\r\n", 1)
        n = int(size_line, 16)
        if n == 0:
            return out, True
        if len(after) < n + 2:
            break
        out += after[:n]
        rest = after[n + 2:]
    return out, False


def up_to_refuse(srv, key):
    """Plays faults.scb's responses up to the refuse fault (Anthropic,
    whole): cut, the retry, reset, the retry, refuse."""
    body = json.dumps({"model": "m", "max_tokens": 9, "messages": [{"role": "user", "content": "go"}]})
    for closes in (True, False, True, False, True):
        s = srv.connect()
        if closes:
            s.sendall(("POST /v1/messages HTTP/1.1\r\nx-api-key: %s\r\nContent-Length: %d\r\n\r\n%s"
                       % (key, len(body), body)).encode())
            read_to_close(s)
        else:
            request(s, "POST", "/v1/messages", body, {"x-api-key": key})
        s.close()


def wait_accepting(srv, t0):
    """Connects until the server accepts again: (whether a connect() was
    refused first, seconds from t0 to the accept or None after 10 s)."""
    refused = False
    while time.time() - t0 < 10:
        try:
            srv.connect().close()
            return refused, time.time() - t0
        except ConnectionRefusedError:
            refused = True
            time.sleep(0.02)
    return refused, None


def t_faults():
    """_meta.response.fault, for every API and mode: cut (the answer
    starts and the connection closes before its end), reset (a RST before
    any byte), refuse (reset, and connect() is refused until the window
    ends); each answers one request and the next llmResponse is served."""
    srv = Server(SCVM, ["--speed", "0", scb("faults")])
    for name, path, body, hdr in api_requests("Survive the network"):
        key = "k-" + name.replace(" ", "-")
        stream, whole = "whole" not in name, "whole" in name
        # 1. cut
        s = send_raw(srv, path, body, hdr, key)
        raw, how = read_to_close(s)
        s.close()
        head, _, rest = raw.partition(b"\r\n\r\n")
        check(head.startswith(b"HTTP/1.1 200 "), "%s cut: the answer starts (%r)" % (name, raw[:40]))
        check(how == "fin", "%s cut: the connection is closed (%s)" % (name, how))
        if whole:
            m = re.search(rb"(?i)\r\ncontent-length: (\d+)", head)
            n = int(m.group(1)) if m else -1
            check(0 < len(rest) < n, "%s cut: part of the body (%d of %d bytes), then the close" % (name, len(rest), n))
        else:
            got, ended = dechunk(rest)
            check(not ended and not raw.endswith(b"0\r\n\r\n"), "%s cut: no last chunk" % name)
            check(b"The answer starts " in got and b"and is cut here" in got,
                  "%s cut: the scripted text arrives before the cut (%r)" % (name, got[-200:]))
            for end in (b"[DONE]", b"message_stop", b"message_delta", b"response.completed", b"output_text.done",
                        b'"finish_reason":"', b"finishReason", b'"choices":[]'):
                check(end not in got, "%s cut: %r is not sent" % (name, end))
            if name == "gemini array":
                check(not got.rstrip().endswith(b"]"), "gemini array cut: the array is not closed")
        # 2. the agent's retry gets the next response
        s = send_raw(srv, path, body, hdr, key)
        st, h, b, _ = read_response(s)
        s.close()
        check(st == 200 and b"after the cut" in b, "%s: the response after the cut (%d %r)" % (name, st, b[:80]))
        # 3. reset: nothing, then a RST
        s = send_raw(srv, path, body, hdr, key)
        raw, how = read_to_close(s)
        s.close()
        check(raw == b"" and how == "rst", "%s reset: a RST before any byte (%r, %s)" % (name, raw[:40], how))
        s = send_raw(srv, path, body, hdr, key)
        st, h, b, _ = read_response(s)
        s.close()
        check(st == 200 and b"after the reset" in b, "%s: the response after the reset (%d)" % (name, st))
        # 4. refuse: the request's connection is reset, new ones are refused for 200 ms (--speed 0)
        # (timed from before the request: the window opens after the server
        # has it, so no load on the machine can make it look shorter)
        t0 = time.time()
        s = send_raw(srv, path, body, hdr, key)
        raw, how = read_to_close(s)
        s.close()
        check(raw == b"" and how == "rst", "%s refuse: a RST before any byte (%r, %s)" % (name, raw[:40], how))
        refused, took = wait_accepting(srv, t0)
        check(refused, "%s refuse: a connect() in the window is refused" % name)
        check(took is not None and took >= 0.2, "%s refuse: accepted again after the window (%s s)" % (name, took))
        if took is None:
            continue
        s = send_raw(srv, path, body, hdr, key)
        st, h, b, _ = read_response(s)
        s.close()
        check(st == 200 and b"after the refusal" in b, "%s: the response after the refusal (%d)" % (name, st))
    status, log = srv.stop()
    check(status == 0, "faults run exits 0 (%d)" % status)
    check("summary: scripted faults: 9 cut, 9 reset, 9 refuse; 0 unknown" in log, "the summary counts the faults")
    check(re.search(r"-> reset: scenario 'faults' session 'k-chat-stream' response 3/6 \(fault: reset\)", log),
          "the log line says reset")
    check(log.count("listening again") == 9, "the log says when it listens again")

    # the window scales with --speed (refuseMs 600 at --speed 1): a lower bound only
    srv = Server(SCVM, ["--speed", "1", scb("faults"), scb("timing")])
    idle = srv.connect()
    check(request(idle, "GET", "/health")[0] == 200, "a keep-alive connection, idle")
    busy = send_raw(srv, "/s/timing/v1/messages", json.loads(msg_body(stream=True)), "x-api-key", "busy")
    up_to_refuse(srv, "slow")
    t0 = time.time()
    refused, took = wait_accepting(srv, t0)
    check(refused and took is not None and took >= 0.6 * 0.8,
          "refuseMs 600 at --speed 1: refused for at least 0.48 s (%s s)" % took)
    check(read_to_close(idle)[1] != "open", "a refusal closes idle keep-alive connections")
    idle.close()
    st, h, b, _ = read_response(busy)
    busy.close()
    check(st == 200 and b"message_stop" in b and sse_texts(b) == ["one ", "two ", "three"],
          "a stream in flight during a refusal is served whole")
    srv.stop()

    # the port taken during the window: the server says so and stops (5)
    srv = Server(SCVM, ["--speed", "0", scb("faults")])
    up_to_refuse(srv, "taken")
    thief = socket.socket()
    thief.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        thief.bind((srv.host, srv.port))
        thief.listen(1)
    except OSError as e:
        check(False, "the test could not take the port in the window: %s" % e)
    try:
        srv.p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass
    thief.close()
    status, log = srv.stop()
    check(status == 5 and "cannot listen again" in log and "summary:" in log,
          "a port taken during the window: a clean stop, exit 5 (%d, %r)" % (status, log[-300:]))

    # an unknown fault: 500, not retried, and the run fails
    srv = Server(SCVM, ["--speed", "0", scb("fault_unknown")])
    s = srv.connect()
    st, h, b, _ = request(s, "POST", "/v1/messages", msg_body("A typo in a fault"), {"x-api-key": "u"})
    check(st == 500 and h.get("x-should-retry") == "false" and b"unknown _meta.response.fault" in b and
          b"line 6" in b, "an unknown fault -> 500, not retried, with its line (%d %r)" % (st, b[:200]))
    s.close()
    status, log = srv.stop()
    check(status == 1 and "fault_unknown: response 1 (line 6): unknown _meta.response.fault" in log,
          "an unknown fault fails the run and is logged (%d)" % status)


def t_first_token():
    """A slow first token needs no fault: the first step's time is the
    time to first token.  At --speed 1 the head comes at once and the
    first text not before 0.8 x its scripted 200 ms (a lower bound only)."""
    srv = Server(SCVM, ["--speed", "1", scb("timing")])
    for name, path, body, hdr in api_requests("x"):
        if "whole" in name:
            continue
        t0 = time.time()
        s = send_raw(srv, path, body, hdr, "ft-" + name.replace(" ", "-"))
        s.settimeout(10)
        data, first = b"", None
        while first is None:
            b = s.recv(65536)
            if not b:
                break
            data += b
            if b"one " in data:
                first = time.time() - t0
        s.close()
        check(data.startswith(b"HTTP/1.1 200 "), "%s: a stream" % name)
        check(first is not None and first >= 0.2 * 0.8, "%s: first token at %s s, scripted 0.2 s" % (name, first))
    srv.stop()


def t_journal_and_json_log():
    """GET /__scvm/requests: every request with its body and what answered
    it; DELETE empties it; --log-format json: an object per request."""
    srv = Server(SCVM, ["--speed", "0", "--log-format", "json", scb("route_alpha"), scb("route_beta")])
    s = srv.connect()
    body = msg_body("Write the docs for our HTTP API")
    st, h, b, _ = request(s, "POST", "/v1/messages", body, {"x-api-key": "a"})
    check(st == 200, "a scripted answer: %d" % st)
    st, h, b, _ = request(s, "POST", "/v1/nothing", b"{}", {"x-api-key": "a"})
    check(st == 404, "an unknown endpoint: %d" % st)
    st, h, b, _ = request(s, "GET", "/__scvm/requests", b"", {})
    j = json.loads(b) if st == 200 else {}
    reqs = j.get("requests", [])
    check(st == 200 and [r["seq"] for r in reqs] == [1, 2] and j.get("dropped") == 0, "the journal: %d %r" % (st, b[:300]))
    if len(reqs) == 2:
        check(reqs[0]["method"] == "POST" and reqs[0]["target"] == "/v1/messages" and reqs[0]["status"] == 200 and
              json.loads(reqs[0]["body"]) == json.loads(body) and "scenario 'route_beta'" in reqs[0]["answer"] and
              "response 1/2" in reqs[0]["answer"], "the first entry: %r" % reqs[0])
        check(reqs[1]["status"] == 404 and reqs[1]["target"] == "/v1/nothing", "the second entry: %r" % reqs[1])
    st, h, b, _ = request(s, "DELETE", "/__scvm/requests", b"", {})
    check(st == 200 and json.loads(b) == {"cleared": 2}, "DELETE: %d %r" % (st, b))
    st, h, b, _ = request(s, "GET", "/__scvm/requests", b"", {})
    check(st == 200 and json.loads(b) == {"requests": [], "dropped": 0}, "emptied: %r" % b)
    st, h, b, _ = request(s, "PUT", "/__scvm/requests", b"", {})
    check(st == 405 and "GET, DELETE" in h.get("allow", ""), "PUT: %d %r" % (st, h))
    s.close()
    status, log = srv.stop()
    lines = [json.loads(l) for l in log.splitlines() if l.startswith("{")]
    reqlines = [l for l in lines if "target" in l]
    check(reqlines and reqlines[0]["method"] == "POST" and reqlines[0]["status"] == 200 and
          reqlines[0]["peer"].startswith("127.0.0.1:") and "route_beta" in reqlines[0]["answer"],
          "--log-format json: %r" % log[:400])


TESTS = {k[2:]: v for k, v in list(globals().items()) if k.startswith("t_")}


def main():
    names = sys.argv[3:] or list(TESTS)
    for n in names:
        print("== " + n)
        TESTS[n]()
    if FAILS:
        print("%d failures" % len(FAILS))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
