#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Damaged ElizaOS and Yao files never crash, hang or fail silently: every
truncation at a line boundary and a fixed, seeded set of byte mutations
(deletions, duplications, swaps, flips to structural characters) of the
seeds is compiled with `scc --check --diagnostics-format=json`; each must
exit 0 or 1 within the timeout, with no sanitizer report, and an exit 1
must carry an error with a position (an empty file: its whole-file error).  Run it under the ASan+UBSan build
too (docs/fuzzing.md).

usage: agent_mutations.py SCC SEED... [--count N]
"""
import json
import os
import random
import subprocess
import sys
import tempfile

STRUCT = b'{}[]:,"\'\n -#&*!|>\\'


def mutate(rng, data):
    if not data:
        return data
    i = rng.randrange(len(data))
    k = rng.randrange(5)
    if k == 0:
        return data[:i] + data[i + rng.randrange(1, 8):]
    if k == 1:
        j = min(len(data), i + rng.randrange(1, 40))
        return data[:j] + data[i:j] + data[j:]
    if k == 2:
        j = rng.randrange(len(data))
        b = bytearray(data)
        b[i], b[j] = b[j], b[i]
        return bytes(b)
    if k == 3:
        b = bytearray(data)
        b[i] = STRUCT[rng.randrange(len(STRUCT))]
        return bytes(b)
    b = bytearray(data)
    b[i] = rng.randrange(256)
    return bytes(b)


def main():
    args = sys.argv[1:]
    count = 150
    if "--count" in args:
        k = args.index("--count")
        count = int(args[k + 1])
        del args[k:k + 2]
    scc, seeds = args[0], args[1:]
    rng = random.Random(18)
    bad, n = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            data = open(seed, "rb").read()
            ext = os.path.splitext(seed)[1]
            cases = [data[:i] for i in range(len(data)) if i == 0 or data[i - 1:i] == b"\n"]
            cur = data
            for _ in range(count):
                cur = mutate(rng, cur if rng.random() < 0.7 else data)
                cases.append(cur)
            for c in cases:
                n += 1
                path = os.path.join(tmp, "m" + ext)
                with open(path, "wb") as f:
                    f.write(c)
                try:
                    p = subprocess.run([scc, "--check", "--diagnostics-format=json", path],
                                       capture_output=True, timeout=20)
                except subprocess.TimeoutExpired:
                    bad.append((seed, c, "timeout"))
                    continue
                err = p.stderr.decode("utf-8", "replace")
                if "Sanitizer" in err or "runtime error" in err or p.returncode not in (0, 1):
                    bad.append((seed, c, "exit %d: %s" % (p.returncode, err[-400:])))
                    continue
                diags = [json.loads(l) for l in err.splitlines() if l.startswith("{")]
                # an empty file has no position to give: its error is the whole file's (line 0)
                if p.returncode == 1 and c.strip() and not any(d["severity"] == "error" and d["line"] > 0
                                                               for d in diags):
                    bad.append((seed, c, "exit 1 without a positioned error: %s" % err[-300:]))
    for seed, c, why in bad[:10]:
        print("FAIL %s (%d bytes): %s\n  input: %r" % (os.path.basename(seed), len(c), why, c[:300]))
    print("%d inputs, %d problems" % (n, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
