# SPDX-License-Identifier: MIT
"""Shared by the lifetimes tests: a unique marker for the processes a test
starts, and the processes still carrying it after scvm has exited."""
import os
import random
import time


def marker():
    """A sleep duration no other process on the machine uses: `sleep M`
    carries it in its command line, wherever (whatever namespace) it runs."""
    return "7%d.%06d" % (random.randrange(100, 999), random.randrange(1000000))


def leftovers(mark):
    """pids of live processes (not zombies) whose command line has mark."""
    found = []
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{d}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if mark.encode() in cmd and state != b"Z":
            found.append((int(d), cmd.replace(b"\0", b" ").decode(errors="replace").strip()))
    return found


def wait_for(pred, what, timeout=60):
    """Waits until pred() holds (a file appears, a process starts): a
    bounded watch on an event the test cannot be told about otherwise."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.01)
    raise AssertionError("timed out waiting for " + what)


def kill_all(pids):
    for p, _ in pids:
        try:
            os.kill(p, 9)
        except OSError:
            pass


class Renames:
    """The names renamed into a folder, in order (inotify IN_MOVED_TO): the
    moment file_write_atomic puts each file in place."""

    IN_MOVED_TO = 0x80

    def __init__(self, folder):
        import ctypes
        import ctypes.util
        self.libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self.fd = self.libc.inotify_init1(0o4000)       # IN_NONBLOCK
        assert self.fd >= 0, "inotify_init1 failed"
        wd = self.libc.inotify_add_watch(self.fd, folder.encode(), self.IN_MOVED_TO)
        assert wd >= 0, "inotify_add_watch failed"

    def names(self):
        import struct
        out = b""
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            out += chunk
        os.close(self.fd)
        names, i = [], 0
        while i + 16 <= len(out):
            _wd, _mask, _cookie, n = struct.unpack_from("iIII", out, i)
            names.append(out[i + 16:i + 16 + n].rstrip(b"\0").decode())
            i += 16 + n
        return names
