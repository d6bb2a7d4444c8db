#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`scvm replay` killed while it replays: the run it started (another scvm)
and that run's program end with it.

usage: replay_killed.py SCC SCVM WORKDIR

A recording of a short session of `sleep M` (M a marker) whose
scenario.scb is then swapped for a 60-second one (its checksum updated),
replayed; SIGTERM or SIGKILL to the replaying scvm once the replayed
program runs;
afterwards no process may carry the marker.  Before, the replayed run was
a plain child: it went on, and its program with it."""
import os
import shutil
import json
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lt_util import kill_all, leftovers, marker, wait_for  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import fnv1a64  # noqa: E402

SCC, SCVM, WORK = (os.path.abspath(a) for a in sys.argv[1:4])


def main():
    fails = []
    for sig in (signal.SIGTERM, signal.SIGKILL):
        m = marker()
        d = os.path.join(WORK, signal.Signals(sig).name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        y = os.path.join(d, "s.yaml")
        with open(y, "w") as f:
            f.write("name: lt_replay\ntimeline:\n  - userInputs:\n      - relativeTime: 100\n        input: x\n")
        scb = os.path.join(d, "s.scb")
        subprocess.run([SCC, "-o", scb, y], check=True)
        rec = os.path.join(d, "rec")
        r = subprocess.run([SCVM, "run", "-t", "pty", "--artifacts", rec, scb, "--", "/usr/bin/sleep", m],
                           capture_output=True, cwd=d)
        assert r.returncode == 0 and not leftovers(m), (r.returncode, r.stderr[-300:])
        # the replay plays the recording's scenario.scb: a long one now
        y2 = os.path.join(d, "long.yaml")
        with open(y2, "w") as f:
            f.write("name: lt_replay\ntimeline:\n  - userInputs:\n      - relativeTime: 60000\n        input: x\n")
        subprocess.run([SCC, "-o", os.path.join(rec, "scenario.scb"), y2], check=True)
        sums = json.load(open(os.path.join(rec, "checksums.json")))
        sums["scenario.scb"] = fnv1a64(open(os.path.join(rec, "scenario.scb"), "rb").read())
        with open(os.path.join(rec, "checksums.json"), "w") as f:
            json.dump(sums, f)
        p = subprocess.Popen([SCVM, "replay", rec], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=d)
        wait_for(lambda: [x for x in leftovers(m) if x[1].startswith("/usr/bin/sleep")], "the replayed program")
        p.send_signal(sig)
        p.communicate(timeout=60)
        try:
            wait_for(lambda: not leftovers(m), "the replayed run to end with the replay", timeout=20)
            print(f"{signal.Signals(sig).name}: ok", flush=True)
        except AssertionError:
            left = leftovers(m)
            kill_all(left)
            fails.append(f"{signal.Signals(sig).name}: left running: {left}")
            print(fails[-1], flush=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
