#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One `scvm run` over a pack touches its memory in huge pages.

Counts page faults, not time: the minor faults of `scvm run --count` over
packs of 250 and 1,000 generated scenarios (getrusage of the child).  A
pack's content, index tables and verified programs live in one block that
is advised for transparent huge pages (sc_alloc_big), so each further
scenario costs a fraction of a fault: 0.16 here, 0.34 under ASan (its
shadow memory), against 0.91 before, a fault per 4 KiB written (13-14 us
each on the virtual machines of docs/performance.md, "One scvm run over a
pack").  Where the kernel has no transparent huge pages (or they are
"never") the test is skipped: nothing can be asked of it there.

usage: pack_faults.py SCC SCVM WORKDIR
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import failures, fresh, say  # noqa: E402

SCC, SCVM, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
PER_SCENARIO_MAX = 0.5
THP = "/sys/kernel/mm/transparent_hugepage/enabled"


def make(n):
    """A pack of n scenarios of four 200-byte assistant messages each."""
    d = os.path.join(WORK, "s%d" % n)
    os.makedirs(d)
    for i in range(n):
        with open(os.path.join(d, "s%06d.yaml" % i), "w") as f:
            f.write("name: s%06d\ntimeline:\n" % i)
            for k in range(4):
                f.write("  - llmResponse:\n      - assistant:\n          - relativeTime: %d\n"
                        "            content: \"%s %d %d\"\n" % (10 + k, "word " * 40, i, k))
    out = d + ".scp"
    r = subprocess.run([SCC, "--pack", "-o", out, d + "/"], capture_output=True, text=True)
    say(r.returncode == 0, "scc --pack of %d scenarios exits 0" % n + ("" if r.returncode == 0 else ": " + r.stderr[-2000:]))
    return out


def faults(pack):
    """The fewest minor faults of three runs (the same work each time)."""
    env = dict(os.environ)
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
    best = None
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            fd = os.open(os.devnull, os.O_RDWR)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execve(SCVM, [SCVM, "run", "--count", pack], env)
        _, status, ru = os.wait4(pid, 0)
        say(os.waitstatus_to_exitcode(status) == 0, "scvm run --count %s exits 0" % os.path.basename(pack))
        best = ru.ru_minflt if best is None else min(best, ru.ru_minflt)
    return best


def main():
    try:
        with open(THP) as f:
            mode = f.read()
    except OSError:
        mode = ""
    if "[always]" not in mode and "[madvise]" not in mode:
        print("skip: no transparent huge pages here (%s: %s)" % (THP, mode.strip() or "absent"))
        return 77
    fresh(WORK)
    small, large = make(250), make(1000)
    if failures:
        return 1
    a, b = faults(small), faults(large)
    per = (b - a) / 750
    print("minor faults: 250 scenarios %d, 1,000 scenarios %d: %.2f a further scenario" % (a, b, per))
    say(per <= PER_SCENARIO_MAX, "each further scenario costs at most %.1f page faults (%.2f)" % (PER_SCENARIO_MAX, per))
    if not failures:
        shutil.rmtree(WORK, ignore_errors=True)
    return 1 if failures else 0


sys.exit(main())
