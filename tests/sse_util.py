# SPDX-License-Identifier: MIT
"""sse_util.py - what the tests of scvm's HTTP servers share
(tests/harness, tests/rest): starting a server on a free port and reading
a chunked Server-Sent Events answer as it arrives, on a raw socket, so the
tests see exactly the bytes the server sent."""
import select
import socket
import subprocess
import time


class Server:
    """`scvm serve KIND --listen 127.0.0.1:0 ARGS...`; port is the one it took."""

    def __init__(self, scvm, kind, *extra):
        self.p = subprocess.Popen([scvm, "serve", kind, "--listen", "127.0.0.1:0", *extra],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        if not line.startswith("listening on http://"):
            raise SystemExit("scvm serve %s did not start: %r %s" % (kind, line, self.p.stderr.read()))
        self.port = int(line.rsplit(":", 1)[1])

    def stop(self):
        """SIGTERM; (exit status, stderr), or (None, ...) when it did not stop in 10 s."""
        self.p.terminate()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return None, self.p.stderr.read()
        return self.p.returncode, self.p.stderr.read()


class Stream:
    """GET path (with the extra header lines) on a raw socket; body is the
    de-chunked answer so far, head its head."""

    def __init__(self, port, path, extra=b""):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n%s\r\n" % (path.encode(), extra))
        self.raw, self.body, self.head = b"", b"", None

    def pump(self, timeout):
        end = time.time() + timeout
        while time.time() < end:
            r, _, _ = select.select([self.s], [], [], max(0.0, end - time.time()))
            if not r:
                break
            c = self.s.recv(65536)
            if not c:
                break
            self.raw += c
        if self.head is None and b"\r\n\r\n" in self.raw:
            self.head, self.raw = self.raw.split(b"\r\n\r\n", 1)
        while self.head is not None:
            nl = self.raw.find(b"\r\n")
            if nl < 0:
                break
            size = int(self.raw[:nl], 16)
            if len(self.raw) < nl + 2 + size + 2:
                break
            self.body += self.raw[nl + 2:nl + 2 + size]
            self.raw = self.raw[nl + 4 + size:]

    def frames(self, timeout=0.0):
        """The events and comments so far, each as its text between blank lines."""
        self.pump(timeout)
        return [f for f in self.body.decode().split("\n\n") if f]

    def events(self, timeout=0.0):
        """The events so far, parsed; a subclass says how."""
        raise NotImplementedError

    def until(self, pred, timeout=60):
        """Reads until pred(events) holds or timeout seconds pass; the events.
        The deadline is generous on purpose: it costs nothing when pred holds,
        and a busy machine or the ASan build must not fail the test."""
        end = time.time() + timeout
        while time.time() < end:
            ev = self.events(0.05)
            if ev and pred(ev):
                return ev
        return self.events()

    def close(self):
        self.s.close()
