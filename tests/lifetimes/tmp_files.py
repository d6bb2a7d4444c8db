#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Temporary files and the order of the artifacts.

usage: tmp_files.py SCC SCVM WORKDIR

- run.json is put in place last (it names the other files), after
  checksums.json, by `scvm run -t pty --artifacts` and `scvm exec
  --artifacts` (inotify: the order of the renames into the folder);
- checksums.json is written even when another artifact cannot be
  (transcript.log made a folder beforehand: exec exits E_IO, 10);
- SIGKILL of scvm at random moments leaves temporaries; the next run in
  the folder removes every one whose writer is dead, and keeps a live
  writer's (a planted file of a live process of ours);
- TMPDIR is honoured by the folders scvm makes for a pack's PTY run and
  for `run -t pty --json` (TMPDIR naming a file: the run says it cannot
  make its folder there; a fresh folder: used, and empty afterwards)."""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lt_util import Renames  # noqa: E402

SCC, SCVM, WORK = (os.path.abspath(a) for a in sys.argv[1:4])
fails = []


def expect(cond, msg):
    print(("ok: " if cond else "FAIL: ") + msg, flush=True)
    if not cond:
        fails.append(msg)


def fresh(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def temps(folder):
    return sorted(os.path.relpath(os.path.join(r, f), folder) for r, _, fs in os.walk(folder)
                  for f in fs if ".tmp." in f)


EXEC = [SCVM, "exec", "--json", "--no-sandbox", "--ack-unsafe-sandbox"]


def main():
    d = fresh("order")
    y = os.path.join(d, "tf.yaml")
    with open(y, "w") as f:
        f.write('name: tf\ntimeline:\n  - userInputs:\n      - [0, "hello"]\n')
    scb = os.path.join(d, "tf.scb")
    subprocess.run([SCC, "-o", scb, y], check=True)
    y2 = os.path.join(d, "tf2.yaml")
    with open(y2, "w") as f:
        f.write('name: tf2\ntimeline:\n  - userInputs:\n      - [0, "again"]\n')
    pack = os.path.join(d, "two.scp")
    subprocess.run([SCC, "--pack", "-o", pack, y, y2], check=True)

    # run.json last
    for what, args in (("run -t pty", [SCVM, "run", "-t", "pty", "--artifacts", "A", scb, "--", "/bin/cat"]),
                       ("exec", EXEC[:2] + ["--artifacts", "A"] + EXEC[2:] + ["--", "/bin/echo", "hi"])):
        art = os.path.join(d, "A")
        shutil.rmtree(art, ignore_errors=True)
        os.makedirs(art)
        w = Renames(art)
        p = subprocess.run(args, cwd=d, capture_output=True)
        names = w.names()
        expect(p.returncode == 0 and names[-2:] == ["checksums.json", "run.json"],
               f"{what}: run.json put in place last, checksums.json before it: {names} (exit {p.returncode})")

    # checksums.json always
    art = os.path.join(d, "B")
    os.makedirs(os.path.join(art, "transcript.log"))
    p = subprocess.run(EXEC[:2] + ["--artifacts", "B"] + EXEC[2:] + ["--", "/bin/echo", "hi"], cwd=d,
                       capture_output=True)
    sums = os.path.join(art, "checksums.json")
    listed = json.load(open(sums)) if os.path.exists(sums) else None
    expect(p.returncode == 10 and listed is not None and "events.jsonl" in listed and "run.json" in listed and
           "transcript.log" not in listed and os.path.exists(os.path.join(art, "run.json")),
           f"exec with an artifact it cannot write: E_IO, and checksums.json lists what is there: {listed} "
           f"(exit {p.returncode}) {p.stderr[-200:]!r}")

    # kill -9 at random moments, then a run that completes
    art = os.path.join(d, "K")
    os.makedirs(art)
    args = [SCVM, "run", "-t", "pty", "--artifacts", "K", scb, "--", "/bin/cat"]
    t0 = time.monotonic()
    subprocess.run(args, cwd=d, capture_output=True)
    took = time.monotonic() - t0
    rnd = random.Random(36)
    for _ in range(40):
        p = subprocess.Popen(args, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            p.wait(timeout=rnd.uniform(took / 2, took))   # the end: the artifacts
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            p.wait()
    left_by_kills = temps(art)
    # planted: a dead writer's temporary (a pid that has exited), and a
    # live writer's (a child of ours, alive through the run)
    ns = os.stat("/proc/self/ns/pid").st_ino
    dead = subprocess.Popen(["true"])
    dead.wait()
    live = subprocess.Popen(["sleep", "120"])
    for name in (f"run.json.tmp.{dead.pid}.{ns}.DeAd00", f"snapshots/000001.json.tmp.{dead.pid}.{ns}.DeAd01"):
        os.makedirs(os.path.dirname(os.path.join(art, name)), exist_ok=True)
        open(os.path.join(art, name), "w").close()
    alive = f"events.jsonl.tmp.{live.pid}.{ns}.LiVe00"
    open(os.path.join(art, alive), "w").close()
    p = subprocess.run(args, cwd=d, capture_output=True)
    after = temps(art)
    live.kill()
    live.wait()
    print(f"note: {len(left_by_kills)} temporaries after 40 kills", flush=True)
    expect(p.returncode == 0 and after == [alive],
           f"the next run removes every dead writer's temporary and keeps the live one's: {after}")

    # TMPDIR
    tmpd = fresh("tmpdir")
    afile = os.path.join(tmpd, "a-file")
    open(afile, "w").close()
    p = subprocess.run([SCVM, "run", "-t", "pty", "--json", scb, "--", "/bin/cat"], cwd=d, capture_output=True,
                       env=dict(os.environ, TMPDIR=afile))
    expect(p.returncode != 0 and afile.encode() in p.stderr,
           f"run -t pty --json with TMPDIR a file: cannot make its folder there: {p.returncode} {p.stderr[-200:]!r}")
    p = subprocess.run([SCVM, "run", "-t", "pty", "-j", "2", pack, "--", "/bin/cat"], cwd=d, capture_output=True,
                       env=dict(os.environ, TMPDIR=afile))
    expect(p.returncode != 0 and afile.encode() in p.stderr,
           f"a PTY run of two with TMPDIR a file: cannot make its folder there: {p.returncode} {p.stderr[-200:]!r}")
    sub = os.path.join(tmpd, "t")
    os.makedirs(sub)
    p = subprocess.run([SCVM, "run", "-t", "pty", "-j", "2", pack, "--", "/bin/cat"], cwd=d, capture_output=True,
                       env=dict(os.environ, TMPDIR=sub))
    expect(p.returncode == 0 and os.listdir(sub) == [], f"with TMPDIR a folder: ok, and nothing left in it: "
           f"{p.returncode} {os.listdir(sub)} {p.stderr[-200:]!r}")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
