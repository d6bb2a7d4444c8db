#!/usr/bin/env python3
"""abuse.py - `scvm serve llm` under hostile clients (docs/http.md, "Under
abuse").

usage: abuse.py SCC SCVM WORKDIR

While 1,000 connections are held open by clients that send nothing or one
header byte a second (slowloris), a normal client keeps asking, on a
keep-alive connection and on fresh ones, and must get every answer, with a
99th-percentile latency under 50 ms.  Meanwhile other clients send 100 MB
bodies (Content-Length and chunked, several at once), header floods (too
many fields, one huge field), malformed heads, and streaming requests they
abandon mid-stream with a reset.  The server must answer each with the
documented status, keep its peak memory within the request-data budget
(64 MiB) plus a margin, and exit 0 on SIGTERM (under the ASan build: no
leak, no error).  The latency bar is a property of the event loop that the
issue asks for, measured over 500 requests; it is not a speed benchmark.
"""
import multiprocessing
import os
import resource
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_util import Server, read_response, request  # noqa: E402

SCC, SCVM, WORK = sys.argv[1:4]
failures = []


def check(what, cond):
    if not cond:
        failures.append(what)
        print("FAIL", what, flush=True)
    else:
        print("ok  ", what, flush=True)


def vm_hwm(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def vm_rss(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def compile_scenarios():
    os.makedirs(WORK, exist_ok=True)
    srcs = {
        "fast": "name: fast\ntimeline:\n  - llmResponse:\n      - assistant:\n          - [0, 'ok']\n",
        "slow": "name: slow\ntimeline:\n  - llmResponse:\n      - assistant:\n"
                "          - [0, 'one ']\n          - [3000, 'two ']\n          - [6000, 'three']\n",
    }
    out = []
    for name, text in srcs.items():
        src = os.path.join(WORK, name + ".yaml")
        with open(src, "w") as f:
            f.write(text)
        scb = os.path.join(WORK, name + ".scb")
        subprocess.run([SCC, "-o", scb, src], check=True)
        out.append(scb)
    return out


def chat(model, stream):
    body = '{"model":"%s","stream":%s,"messages":[{"role":"user","content":"hi"}]}' % (
        model, "true" if stream else "false")
    return body


def ask(s, stream=True):
    st, h, body, raw = request(s, "POST", "/v1/chat/completions", chat("fast", stream),
                               {"x-scenario-name": "fast"})
    return st, body


# ---- the hostile clients -------------------------------------------------

def hold_idle(srv, n):
    socks = []
    for _ in range(n):
        socks.append(srv.connect())
    return socks


def hold_slowloris(srv, n):
    socks = []
    for i in range(n):
        s = srv.connect()
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Slow-%d: " % i)
        socks.append(s)
    return socks


def drip(socks, stop):
    """One header byte a second on each slowloris connection."""
    while not stop.wait(1.0):
        for s in socks:
            try:
                s.send(b"a")
            except OSError:
                pass


def reset(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def big_content_length(srv, results):
    s = srv.connect()
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: 104857600\r\n\r\n")
    sent = 0
    chunk = b"x" * 65536
    try:
        # the answer comes at once; keep sending a little to be hostile
        s.settimeout(10)
        while sent < (4 << 20):
            s.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    try:
        st, _, _, _ = read_response(s)
    except Exception as e:  # noqa: BLE001
        st = repr(e)
    results.append(("content-length 100 MB", st))
    s.close()


def big_chunked(srv, results, label):
    s = srv.connect()
    s.settimeout(20)
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"10000\r\n" + b"y" * 65536 + b"\r\n"
    sent = 0
    try:
        while sent < (100 << 20):
            s.sendall(chunk)
            sent += 65536
    except OSError:
        pass
    try:
        st, _, _, _ = read_response(s)
    except Exception as e:  # noqa: BLE001
        st = repr(e)
    results.append((label, st, sent))
    s.close()


def header_floods(srv, results):
    s = srv.connect()
    s.settimeout(10)
    head = b"GET /v1/models HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-F%d: v\r\n" % i for i in range(200))
    s.sendall(head + b"\r\n")
    results.append(("200 header fields", read_response(s)[0]))
    s.close()
    s = srv.connect()
    s.settimeout(10)
    try:
        s.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Huge: " + b"h" * (200 * 1024) + b"\r\n\r\n")
    except OSError:
        pass
    results.append(("a 200 KiB header field", read_response(s)[0]))
    s.close()
    s = srv.connect()
    s.settimeout(10)
    s.sendall(b"GET /v1/models HTTP/1.1\r\nHost: x\r\nBad\x00Header: v\r\n\r\n")
    results.append(("a NUL in the head", read_response(s)[0]))
    s.close()


def vanishers(srv, results, n):
    """Streaming answers abandoned after the first event, with a reset."""
    got = 0
    for i in range(n):
        s = srv.connect()
        s.settimeout(10)
        body = chat("slow", True).encode()
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nx-scenario-name: slow\r\n"
                  b"x-scenario-session: v%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
                  % (i, len(body)) + body)
        data = b""
        while b"one" not in data:
            b = s.recv(65536)
            if not b:
                break
            data += b
        got += b"one" in data
        reset(s)
    results.append(("abandoned streams", got))


def attack_all(srv, q):
    results = []
    attackers = [threading.Thread(target=big_content_length, args=(srv, results)),
                 threading.Thread(target=header_floods, args=(srv, results)),
                 threading.Thread(target=vanishers, args=(srv, results, 20))]
    attackers += [threading.Thread(target=big_chunked, args=(srv, results, "chunked 100 MB #%d" % i))
                  for i in range(6)]
    for t in attackers:
        t.start()
    for t in attackers:
        t.join(100)
    q.put(results)


def main():
    fast, slow = compile_scenarios()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    env = dict(os.environ)
    # ASan keeps freed memory in quarantine; keep it small so peak memory
    # means what the server holds (no effect on the normal build)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=8"
    srv = Server(SCVM, ["--quiet", "--loop", fast, slow], env=env)
    pid = srv.p.pid

    # warm up, then the baseline of memory
    s = srv.connect()
    for _ in range(20):
        st, body = ask(s)
    s.close()
    base = vm_rss(pid)

    idle = hold_idle(srv, 500)
    slow_socks = hold_slowloris(srv, 500)
    stop = threading.Event()
    dripper = threading.Thread(target=drip, args=(slow_socks, stop))
    dripper.start()

    # the attackers run in a process of their own, so that the normal
    # client's timings are the server's, not this interpreter's threads
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    attack = ctx.Process(target=attack_all, args=(srv, q))
    attack.start()
    # the normal client: 250 requests on one keep-alive connection and
    # 250 on fresh connections, each timed from send to the last byte
    lat, bad = [], []
    keep = srv.connect()
    for i in range(500):
        t0 = time.monotonic()
        try:
            if i % 2 == 0:
                st, body = ask(keep)
            else:
                c = srv.connect()
                st, body = ask(c, stream=False)
                c.close()
        except Exception as e:  # noqa: BLE001
            st, body = repr(e), b""
        lat.append(time.monotonic() - t0)
        if st != 200 or b"ok" not in body:
            bad.append((i, st))
    keep.close()
    held = len(os.listdir("/proc/%d/fd" % pid))
    results = q.get(timeout=120)
    attack.join(30)
    stop.set()
    dripper.join()

    lat.sort()
    p50, p99, worst = lat[len(lat) // 2], lat[int(len(lat) * 0.99) - 1], lat[-1]
    print("normal client: 500 requests, p50 %.2f ms, p99 %.2f ms, max %.2f ms" % (
        p50 * 1e3, p99 * 1e3, worst * 1e3), flush=True)
    check("the 1,000 slow and idle connections were held all along (%d descriptors open)" % held,
          held >= 1000)
    check("every normal request answered 200 with the scripted text (%d bad: %r)" % (len(bad), bad[:5]),
          not bad)
    check("normal client p99 under 50 ms with 1,000 slow or idle connections held (%.2f ms)" % (p99 * 1e3),
          p99 < 0.050)

    res = {r[0]: r for r in results}
    check("100 MB with Content-Length: 413 before the body is read (%r)" % (res.get("content-length 100 MB"),),
          res.get("content-length 100 MB", (0, 0))[1] == 413)
    chunked = [r for r in results if r[0].startswith("chunked")]
    sts = sorted(r[1] for r in chunked)
    # what the client managed to send after the answer was discarded
    # (drained), not held: the memory check below tells
    check("100 MB chunked, six at once: 413 at the body limit or 503 at the budget (%r)"
          % [(r[1], r[2] >> 20) for r in chunked],
          len(chunked) == 6 and all(r[1] in (413, 503) for r in chunked))
    for what in ("200 header fields", "a 200 KiB header field"):
        check("%s: 431 (%r)" % (what, res.get(what)), res.get(what, (0, 0))[1] == 431)
    check("a NUL in the head: 400 (%r)" % (res.get("a NUL in the head"),),
          res.get("a NUL in the head", (0, 0))[1] == 400)
    check("20 streams abandoned mid-stream with a reset (%r)" % (res.get("abandoned streams"),),
          res.get("abandoned streams", (0, 0))[1] == 20)

    peak = vm_hwm(pid)
    grew = peak - base
    print("server memory: %.1f MiB at rest, peak %.1f MiB (+%.1f MiB)" % (
        base / 2**20, peak / 2**20, grew / 2**20), flush=True)
    check("peak memory within the 64 MiB request-data budget plus 32 MiB (+%.1f MiB)" % (grew / 2**20),
          grew < (96 << 20))

    # still serving, after all of it
    for sk in idle + slow_socks:
        sk.close()
    s = srv.connect()
    st, body = ask(s)
    s.close()
    check("still serving afterwards (%r)" % (st,), st == 200 and b"ok" in body)
    rc, log = srv.stop()
    check("exit 0 on SIGTERM (got %r)%s" % (rc, "" if rc == 0 else ": " + log[-2000:]), rc == 0)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")


main()
