#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""abuse.py - `scvm serve llm` under hostile clients (docs/http.md, "Under
abuse").

usage: abuse.py SCC SCVM WORKDIR [SCALE]

While 1,000 connections are held open by clients that send nothing or one
header byte a second (slowloris), a normal client makes 500 requests over
6 s, on a keep-alive connection and on fresh ones, and must get every
answer, none of them stalled.  Meanwhile other clients send 100 MB bodies
(Content-Length and chunked, several at once), header floods (header lines
without end, one header line without end), malformed heads, requests they
abandon half-way (in the head, in a body, after a pipelined pair; FIN or
reset) and streaming requests they abandon mid-stream with a reset.  The
server must answer each with the documented status (431 floods and 413/503
bodies then closed), keep its peak memory (VmHWM) within the request-data
budget (64 MiB) plus 16 MiB, give back every descriptor once the clients
are gone, and exit 0 on SIGTERM (under the ASan build: no leak, no error).

"Stalled" is a property, not a speed: an event loop that a slow client
blocks holds the others until the 60 s head and idle timeouts, so no
answer may take longer than STALL (3 s, times SCALE: the ASan+UBSan build
passes 4).  That bound holds on a machine busy with other builds, where a
latency bar did not (issue 30: llm.abuse failed under load).  How fast the
normal client is served while under attack is a speed, measured by
bench/run.py (row "serve llm under abuse"): with ABUSE_BASELINE=1 this
script first times the same client alone and prints both p99s on a line
"p99 alone X ms, under abuse Y ms".  ABUSE_DEBUG=1 prints the slowest
requests.
"""
import multiprocessing
import os
import resource
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_util import Server, read_response, recv_all, request  # noqa: E402

SCC, SCVM, WORK = sys.argv[1:4]
SCALE = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
STALL = 3.0 * SCALE   # seconds: no answer may take longer (see above)
PACE = 0.012    # seconds between the normal client's requests
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


def cpu_s(pid):
    """The server's user + system CPU time so far, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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
    """The head promises 100 MB: the answer must come before the body,
    and more body after it must not matter."""
    s = srv.connect()
    s.settimeout(10)
    t0 = time.monotonic()
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: 104857600\r\n\r\n")
    try:
        st, _, _, _ = read_response(s)
    except Exception as e:  # noqa: BLE001
        st = repr(e)
    took = time.monotonic() - t0
    sent = 0
    chunk = b"x" * 65536
    try:
        while sent < (4 << 20):
            s.sendall(chunk)
            sent += len(chunk)
    except OSError:
        pass
    results.append(("content-length 100 MB", st, took))
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


def flood(srv, start, more):
    """Sends start, then more and more of the same until the server
    answers (or 10 MB); returns (status, whether the server then closed)."""
    s = srv.connect()
    s.settimeout(10)
    s.sendall(start)
    sent = 0
    try:
        while sent < (10 << 20):
            # poll, not select: with 1,000 sockets held the descriptor
            # may be 1,024 or more, which select() cannot take
            pl = select.poll()
            pl.register(s, select.POLLIN)
            if pl.poll(0):
                break
            s.sendall(more)
            sent += len(more)
    except OSError:
        pass
    try:
        st = read_response(s)[0]
        closed = recv_all(s, 1 << 20) == b""
    except Exception as e:  # noqa: BLE001
        st, closed = repr(e), False
    s.close()
    return st, closed


def header_floods(srv, results):
    lines = b"".join(b"X-F%d: v\r\n" % i for i in range(4096))
    results.append(("endless header fields", ) + flood(srv, b"GET /v1/models HTTP/1.1\r\nHost: x\r\n", lines))
    results.append(("an endless header field", ) + flood(srv, b"GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Huge: ",
                                                          b"h" * 65536))
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


def quitters(srv, results):
    """Requests abandoned before they are whole: in the head, in a body
    (Content-Length and chunked), after a pipelined pair, with a FIN or a
    reset; a few times each, spread over the measurement window."""
    body = chat("fast", False).encode()
    parts = [
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Le",
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 5000\r\n\r\n" + body[:20],
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n40\r\n" + body[:10],
        (b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nx-scenario-name: fast\r\n"
         b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body) * 2,
    ]
    n = 0
    for rnd in range(5):
        for i, p in enumerate(parts):
            for rst in (False, True):
                s = srv.connect()
                s.sendall(p)
                time.sleep(0.01)
                if rst:
                    reset(s)
                else:
                    s.close()
                n += 1
        time.sleep(0.5)
    results.append(("abandoned requests", n))


def attack_all(srv, q):
    results = []
    attackers = [threading.Thread(target=big_content_length, args=(srv, results)),
                 threading.Thread(target=header_floods, args=(srv, results)),
                 threading.Thread(target=vanishers, args=(srv, results, 20)),
                 threading.Thread(target=quitters, args=(srv, results))]
    attackers += [threading.Thread(target=big_chunked, args=(srv, results, "chunked 100 MB #%d" % i))
                  for i in range(6)]
    for t in attackers:
        t.start()
    for t in attackers:
        t.join(100)
    q.put(results)


def one_round(srv, pid, ctx, rnd):
    """The attackers and the normal client at once; checks everything but
    the p99, which it returns with the load average."""
    q = ctx.Queue()
    attack = ctx.Process(target=attack_all, args=(srv, q))
    attack.start()
    # the normal client: 250 requests on one keep-alive connection and
    # 250 on fresh connections, each timed from send to the last byte,
    # one every PACE seconds so that the window (about 6 s) overlaps the
    # slowloris drip (500 header bytes a second, each waking the loop)
    # and the attackers
    lat, bad, when = [], [], []
    keep = srv.connect()
    t_start = time.monotonic()
    cpu0 = cpu_s(pid)
    held_mid = 0
    for i in range(500):
        ahead = t_start + i * PACE - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
        if i == 250:
            held_mid = len(os.listdir("/proc/%d/fd" % pid))
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
        when.append((lat[-1], t0 - t_start, i))
        if st != 200 or b"ok" not in body:
            bad.append((i, st))
    keep.close()
    window = time.monotonic() - t_start
    cpu = cpu_s(pid) - cpu0
    load = os.getloadavg()[0]
    held = min(held_mid, len(os.listdir("/proc/%d/fd" % pid)))
    results = q.get(timeout=60)
    attack.join(30)

    if os.environ.get("ABUSE_DEBUG"):
        print("slowest:", ["%.1f ms at %.2f s (#%d)" % (a * 1e3, b, c) for a, b, c in sorted(when)[-8:]])
    lat.sort()
    p50, p99, worst = lat[len(lat) // 2], lat[int(len(lat) * 0.99) - 1], lat[-1]
    print("round %d: normal client: 500 requests in %.1f s, p50 %.2f ms, p99 %.2f ms, max %.2f ms; "
          "server CPU %.2f s; load average %.1f" % (rnd, window, p50 * 1e3, p99 * 1e3, worst * 1e3, cpu, load),
          flush=True)
    check("the 1,000 slow and idle connections were held all along (%d descriptors open)" % held,
          held >= 1000)
    check("every normal request answered 200 with the scripted text (%d bad: %r)" % (len(bad), bad[:5]),
          not bad)
    check("no normal request stalled: the slowest took %.0f ms, under %.0f s" % (worst * 1e3, STALL),
          worst < STALL)

    res = {r[0]: r for r in results}
    cl = res.get("content-length 100 MB", ("", 0, 0.0))
    check("100 MB with Content-Length: 413 before any of the body, not stalled (%r, %.1f ms)" % (cl[1], cl[2] * 1e3),
          cl[1] == 413 and cl[2] < STALL)
    chunked = [r for r in results if r[0].startswith("chunked")]
    # what the client managed to send after the answer was discarded
    # (drained), not held: the memory check tells
    check("100 MB chunked, six at once: 413 at the body limit or 503 at the budget (%r)"
          % [(r[1], r[2] >> 20) for r in chunked],
          len(chunked) == 6 and all(r[1] in (413, 503) for r in chunked))
    for what in ("endless header fields", "an endless header field"):
        r = res.get(what, (what, 0, False))
        check("%s: 431, then the connection closed (%r)" % (what, r), r[1] == 431 and r[2])
    check("a NUL in the head: 400 (%r)" % (res.get("a NUL in the head"),),
          res.get("a NUL in the head", (0, 0))[1] == 400)
    check("20 streams abandoned mid-stream with a reset (%r)" % (res.get("abandoned streams"),),
          res.get("abandoned streams", (0, 0))[1] == 20)
    check("40 requests abandoned in the head, in a body, after a pipelined pair (%r)"
          % (res.get("abandoned requests"),), res.get("abandoned requests", (0, 0))[1] == 40)
    return p99, load


def baseline(srv):
    """The normal client's p99 alone (bench/run.py's baseline): 500
    requests at the same pace, half keep-alive, half fresh connections."""
    lat = []
    keep = srv.connect()
    t_start = time.monotonic()
    for i in range(500):
        ahead = t_start + i * PACE - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
        t0 = time.monotonic()
        if i % 2 == 0:
            ask(keep)
        else:
            c = srv.connect()
            ask(c, stream=False)
            c.close()
        lat.append(time.monotonic() - t0)
    keep.close()
    lat.sort()
    return lat[int(len(lat) * 0.99) - 1]


def main():
    fast, slow = compile_scenarios()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 4096
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    # 1,000 held sockets, the attackers' and the client's, and the
    # server's own (it raises its limit to --max-connections + 64)
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft != resource.RLIM_INFINITY and soft < 1200:
        print("FAIL: RLIMIT_NOFILE is %d (hard %d); the test needs 1,200 descriptors" % (soft, hard))
        sys.exit(1)
    env = dict(os.environ)
    # ASan keeps freed memory in quarantine; keep it small so peak memory
    # means what the server holds (no effect on the normal build)
    env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":quarantine_size_mb=8"
    # the held connections must outlive every round: head and idle
    # timeouts (tested in http.unit and raw_http) well past the test
    srv = Server(SCVM, ["--quiet", "--loop", "--header-timeout", "60000", "--idle-timeout", "60000", fast, slow],
                 env=env)
    pid = srv.p.pid

    # warm up, then the baseline of memory and descriptors
    s = srv.connect()
    for _ in range(20):
        st, body = ask(s)
    s.close()
    time.sleep(0.2)
    alone = baseline(srv) if os.environ.get("ABUSE_BASELINE") else None
    base = vm_rss(pid)
    base_fds = len(os.listdir("/proc/%d/fd" % pid))

    idle = hold_idle(srv, 500)
    slow_socks = hold_slowloris(srv, 500)
    # the drip and the attackers run in processes of their own, so that
    # the normal client's timings are the server's, not this
    # interpreter's threads
    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event()
    dripper = ctx.Process(target=drip, args=(slow_socks, stop))
    dripper.start()
    # One round: the attackers once, and the normal client's 500 requests.
    p99, load = one_round(srv, pid, ctx, 1)
    if alone is not None:
        print("p99 alone %.3f ms, under abuse %.3f ms" % (alone * 1e3, p99 * 1e3), flush=True)
    stop.set()
    dripper.join(10)

    peak = vm_hwm(pid)
    grew = peak - base
    print("server memory: %.1f MiB at rest, peak %.1f MiB (+%.1f MiB)" % (
        base / 2**20, peak / 2**20, grew / 2**20), flush=True)
    # the budget counts buffer capacity, of which only what was written
    # is resident; the 16 MiB are the shared read buffer, answers and the
    # allocator's own (ASan's shadow and redzones: +63 MiB seen there)
    check("peak memory within the 64 MiB request-data budget plus 16 MiB (+%.1f MiB)" % (grew / 2**20),
          grew < (80 << 20))

    # still serving, after all of it
    for sk in idle + slow_socks:
        sk.close()
    s = srv.connect()
    st, body = ask(s)
    s.close()
    check("still serving afterwards (%r)" % (st,), st == 200 and b"ok" in body)
    # every connection is gone, so every descriptor must be given back
    # (a connection left behind would also be a leak under ASan)
    fds = 0
    for _ in range(40):
        fds = len(os.listdir("/proc/%d/fd" % pid))
        if fds <= base_fds:
            break
        time.sleep(0.1)
    check("descriptors back to the resting %d once the clients are gone (%d)" % (base_fds, fds),
          fds <= base_fds)
    rc, log = srv.stop()
    check("exit 0 on SIGTERM (got %r)%s" % (rc, "" if rc == 0 else ": " + log[-2000:]), rc == 0)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("all checks passed")


main()
