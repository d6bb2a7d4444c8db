# SPDX-License-Identifier: MIT
"""testlib.py - what the Python tests share (import it as sse_util is
imported: tests/ on sys.path).

    failures        the messages of the checks that failed; a test's main
                    exits 1 when it is not empty
    expect(c, m)    counts m as failed when c is false ("FAIL: m"); quiet
                    when it holds; returns c
    say(c, m)       the same, and prints "ok   m" when it holds ("FAIL m"
                    when not): for tests that list every check
    fresh(path)     an empty folder at path (what was there is removed)
    fnv1a64(data)   FNV-1a 64 of bytes as 16 hex digits: the checksum of
                    checksums.json (common/fnv1a.h)
    run(args, ...)  a command to its end: (status, stdout, stderr) as text
    json_objects(t) the JSON values of a stream (one per line, or spread
                    over lines; `//` lines skipped), as Yao files are read
"""
import json
import os
import shutil
import subprocess

failures = []


def expect(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg, flush=True)
    return cond


def say(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg, flush=True)
    if not cond:
        failures.append(msg)
    return cond


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h


def run(args, cwd=None, timeout=120, env=None):
    p = subprocess.run(args, cwd=cwd, capture_output=True, timeout=timeout, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def json_objects(text):
    """The JSON values of a stream, `//` lines skipped."""
    text = "\n".join("" if l.strip().startswith("//") else l for l in text.splitlines())
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        v, i = dec.raw_decode(text, i)
        out.append(v)
