#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scc's output file: written atomically when it is a regular file, written
in place (never replaced) when it is a FIFO or a device, refused when it is
a directory, and left untouched when the compilation fails.
usage: check_output.py SCC SCENARIO
"""
import os
import stat
import subprocess
import sys
import tempfile
import threading

MAGIC = b"\x89SCB\r\n\x1a\n"


def main():
    scc, scenario = sys.argv[1], os.path.abspath(sys.argv[2])
    failures, passed = [], 0

    def check(cond, what):
        nonlocal passed
        if cond:
            passed += 1
        else:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        # 1. A FIFO stays a FIFO and receives the bytecode (as /dev/null would stay a device).
        fifo = os.path.join(tmp, "out.fifo")
        os.mkfifo(fifo)
        got = {}

        def reader():
            with open(fifo, "rb") as f:
                got["data"] = f.read()
        t = threading.Thread(target=reader)
        t.start()
        p = subprocess.run([scc, "-o", fifo, scenario], capture_output=True, timeout=60)
        t.join(30)
        check(p.returncode == 0, "scc -o FIFO exited %d: %s" % (p.returncode, p.stderr))
        check(stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced by a regular file")
        check(got.get("data", b"").startswith(MAGIC), "the FIFO's reader did not receive the bytecode")
        # 2. A directory is refused with an I/O error (3).
        p = subprocess.run([scc, "-o", tmp, scenario], capture_output=True, text=True, timeout=60)
        check(p.returncode == 3 and "cannot write" in p.stderr, "scc -o DIR: exit %d %r" % (p.returncode, p.stderr))
        # 3. A failed compilation leaves an existing output as it was, and no temporary file.
        out = os.path.join(tmp, "x.scb")
        with open(out, "wb") as f:
            f.write(b"old contents")
        bad = os.path.join(tmp, "bad.yaml")
        with open(bad, "w") as f:
            f.write("name: bad\ntimeline:\n  - nope: 1\n")
        p = subprocess.run([scc, "-o", out, bad], capture_output=True, timeout=60)
        check(p.returncode == 1, "a broken scenario exited %d" % p.returncode)
        check(open(out, "rb").read() == b"old contents", "a failed compilation changed the output file")
        check(sorted(os.listdir(tmp)) == ["bad.yaml", "out.fifo", "x.scb"],
              "files left behind: %s" % sorted(os.listdir(tmp)))
        # 4. A regular file is replaced whole.
        p = subprocess.run([scc, "-o", out, scenario], capture_output=True, timeout=60)
        check(p.returncode == 0 and open(out, "rb").read().startswith(MAGIC), "regular output not written")
        # 5. A missing folder is an I/O error with nothing created.
        p = subprocess.run([scc, "-o", os.path.join(tmp, "no", "x.scb"), scenario], capture_output=True, timeout=60)
        check(p.returncode == 3 and not os.path.exists(os.path.join(tmp, "no")), "missing folder: exit %d" % p.returncode)
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
