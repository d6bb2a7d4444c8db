# SPDX-License-Identifier: MIT
"""serve_util.py - start and stop `scvm serve llm` for the tests.

Server(scvm, args) starts the server on an ephemeral loopback port, waits
for its "listening on http://ADDR:PORT" line and stops it with SIGTERM
(stop() returns the exit status and the log).  Everything is bounded in
time: a server that does not start or stop is killed and the test fails.
"""
import atexit
import os
import re
import signal
import socket
import subprocess
import sys
import time

SKIP = 77
_RUNNING = []


@atexit.register
def _kill_leftovers():
    """A test that fails half-way must not leave its servers running."""
    for p in _RUNNING:
        if p.poll() is None:
            p.kill()
            p.wait()


class Server:
    def __init__(self, scvm, args, cwd=None, env=None):
        self.log_path = None
        cmd = [scvm, "serve", "llm", "--listen", "127.0.0.1:0"] + list(args)
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env)
        _RUNNING.append(self.p)
        line = self.p.stdout.readline().decode()
        m = re.match(r"listening on http://([0-9.]+):(\d+)", line)
        if not m:
            self.p.kill()
            out, err = self.p.communicate(timeout=10)
            raise SystemExit("FAIL: server did not start: %r %r" % (line, err.decode()))
        self.host, self.port = m.group(1), int(m.group(2))
        self.url = "http://%s:%d" % (self.host, self.port)

    def stop(self, sig=signal.SIGTERM):
        if self.p.poll() is None:
            self.p.send_signal(sig)
        try:
            out, err = self.p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, err = self.p.communicate()
            raise SystemExit("FAIL: server did not stop on SIGTERM")
        return self.p.returncode, err.decode("utf-8", "replace")

    def connect(self, timeout=10):
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s


def recv_all(s, limit=1 << 22):
    """Reads until the peer closes."""
    data = b""
    while len(data) < limit:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        data += b
    return data


class _Reader:
    """Buffered reads on a socket: bytes read past one response are kept
    for the next (pipelining)."""
    pending = {}

    def __init__(self, sock):
        self.sock = sock

    def recv(self, n):
        pre = _Reader.pending.pop(id(self.sock), b"")
        if pre:
            return pre
        return self.sock.recv(n)

    def unread(self, data):
        if data:
            _Reader.pending[id(self.sock)] = data + _Reader.pending.get(id(self.sock), b"")


def read_response(s):
    """Reads one HTTP response (Content-Length or chunked); returns
    (status, headers dict, body bytes, raw)."""
    r = _Reader(s)
    buf = b""
    while b"\r\n\r\n" not in buf:
        b = r.recv(65536)
        if not b:
            raise EOFError("connection closed in the head: %r" % buf)
        buf += b
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {}
    for l in lines[1:]:
        k, v = l.split(":", 1)
        hdrs[k.strip().lower()] = v.strip()
    if status == 100:
        r.unread(rest)
        return read_response(s)
    if "content-length" in hdrs:
        n = int(hdrs["content-length"])
        while len(rest) < n:
            b = r.recv(65536)
            if not b:
                raise EOFError("short body")
            rest += b
        r.unread(rest[n:])
        return status, hdrs, rest[:n], head + b"\r\n\r\n" + rest[:n]
    body = b""
    raw = b""
    while True:
        while b"\r\n" not in rest:
            b = r.recv(65536)
            if not b:
                raise EOFError("connection closed in a chunk")
            rest += b
        size_line, rest = rest.split(b"\r\n", 1)
        n = int(size_line, 16)
        while len(rest) < n + 2:
            b = r.recv(65536)
            if not b:
                raise EOFError("connection closed in a chunk")
            rest += b
        body += rest[:n]
        raw += size_line + b"\r\n" + rest[:n + 2]
        rest = rest[n + 2:]
        if n == 0:
            r.unread(rest)
            return status, hdrs, body, head + b"\r\n\r\n" + raw


def request(s, method, path, body=None, headers=None):
    headers = dict(headers or {})
    data = b""
    if body is not None:
        data = body if isinstance(body, bytes) else body.encode()
        headers.setdefault("Content-Type", "application/json")
        headers["Content-Length"] = str(len(data))
    h = "".join("%s: %s\r\n" % kv for kv in headers.items())
    s.sendall(("%s %s HTTP/1.1\r\nHost: x\r\n%s\r\n" % (method, path, h)).encode() + data)
    return read_response(s)
