#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generated YAML inputs that are awkward to keep as files: byte-order marks,
a large map, and timing/memory bounds for billion laughs.
Usage: gen_cases.py SCC_TREE"""
import os
import subprocess
import sys
import tempfile
import time

tool = sys.argv[1]
failed = 0


def case(name, data, want, max_seconds=None):
    global failed
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "in.yaml")
        with open(path, "wb") as f:
            f.write(data)
        t = time.monotonic()
        p = subprocess.run([tool, "--no-rules", "in.yaml"], cwd=d, capture_output=True, timeout=60)
        dt = time.monotonic() - t
    out = p.stdout.decode("utf-8", "replace")
    ok = want in out and (max_seconds is None or dt < max_seconds)
    print(("ok   " if ok else "FAIL ") + f"{name} ({dt:.2f}s)")
    if not ok:
        failed += 1
        print(f"  want: {want!r}\n  got:  {out[:400]!r}")


case("utf16le-bom", b"\xff\xfea\x00:\x00 \x001\x00", "in.yaml:1:1: error: UTF-16 input is not supported")
case("utf16be-bom", b"\xfe\xff\x00a\x00:", "in.yaml:1:1: error: UTF-16 input is not supported")
case("utf32le-bom", b"\xff\xfe\x00\x00a\x00\x00\x00", "in.yaml:1:1: error: UTF-32 input is not supported")
case("utf32be-bom", b"\x00\x00\xfe\xff\x00\x00\x00a", "in.yaml:1:1: error: UTF-32 input is not supported")
case("utf8-bom-ok", b"\xef\xbb\xbfa: 1\n", '{"a":1}')
case("surrogate", b"a: 1\nb: \xed\xa0\x80\n", "in.yaml:2:4: error: invalid UTF-8 (byte 0xed)")
case("overlong", b"a: \xc0\xaf\n", "in.yaml:1:4: error: invalid UTF-8 (byte 0xc0)")
case("truncated", b"a: x\xe2\x9c", "in.yaml:1:5: error: invalid UTF-8 (byte 0xe2)")
case("nul-byte", b"a: b\x00c\n", "in.yaml:1:5: error: control characters are not allowed")

big = b"".join(b"k%d: %d\n" % (i, i) for i in range(200000)) + b"k123456: dup\n"
case("large-map-dup", big, "in.yaml:200001:1: error: duplicate mapping key 'k123456'\n"
     "in.yaml:123457:1: note: first defined here", max_seconds=10)

# 30 levels of 30 aliases: 30^30 nodes if expanded.  Must fail fast.
lines = [b"l0: &l0 [" + b",".join([b"x"] * 30) + b"]"]
for i in range(1, 30):
    lines.append(b"l%d: &l%d [" % (i, i) + b",".join([b"*l%d" % (i - 1)] * 30) + b"]")
case("laughs-30x30", b"\n".join(lines) + b"\n", "error: alias expansion exceeds 1000000 nodes", max_seconds=5)

# Under the limit is accepted: 900 aliases of a 999-node sequence.
lines = [b"a: &a [" + b",".join([b"1"] * 998) + b"]", b"b: [" + b",".join([b"*a"] * 900) + b"]"]
case("expansion-under-limit", b"\n".join(lines) + b"\n", '{"a":[1,1', max_seconds=10)

# More than YAML_MAX_EXPANSION source nodes but no alias: accepted (only the
# nodes aliases add are limited).
big = b"- [" + b"]\n- [".join(b"1,2,3,4" for _ in range(250000)) + b"]\n"
case("many-nodes-no-alias", big, "[[1,2,3,4],[1,2,3,4]", max_seconds=20)

print("generated cases: " + ("all passed" if not failed else f"{failed} failed"))
sys.exit(1 if failed else 0)
