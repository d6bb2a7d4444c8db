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
