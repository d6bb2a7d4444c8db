#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The zstd command lines the docs give as the recipe of scc's frames
(docs/bytecode.md section 3: a `.scb`'s frame; docs/pack.md section 2: a
solid pack's frame) are read from the docs and run with the zstd CLI on
what scc wrote: each must give the frame's bytes again.  The command
lines are taken from the docs, so the test fails when the docs and the
writer part.

usage: doc_zstd_cli.py SCC SRC_DIR WORK"""
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys

SCB_HEADER = 40     # docs/bytecode.md section 2
PACK_HEADER = 48    # docs/pack.md section 1
FRAME_ENTRY = 20


def recipe(md, prefix):
    """The first `zstd ...` command in backquotes in md that starts with prefix."""
    text = open(md, encoding="utf-8").read()
    m = re.search(r"`(" + re.escape(prefix) + r"[^`]*)`", text)
    if not m:
        raise SystemExit(f"FAIL: {md} gives no `{prefix}...` command line")
    return shlex.split(m.group(1))


def zstd(args, data, cwd):
    """zstd ARGS on data, as a file (from standard input zstd would not know
    its size, and the size picks its parameters and goes in the header)."""
    src, dst = os.path.join(cwd, "in.bin"), os.path.join(cwd, "out.bin")
    with open(src, "wb") as f:
        f.write(data)
    p = subprocess.run(["zstd", "-q", "-f"] + args + [src, "-o", dst], capture_output=True, cwd=cwd, timeout=60)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: zstd {' '.join(args)}: {p.stderr.decode(errors='replace').strip()}")
    with open(dst, "rb") as f:
        return f.read()


def main():
    scc, src, work = sys.argv[1:4]
    if not shutil.which("zstd"):
        raise SystemExit("FAIL: the zstd command is not installed (scripts/setup-deps.sh installs it)")
    os.makedirs(work, exist_ok=True)
    shutil.copy(os.path.join(src, "formats", "scb-dict-1.zdict"), work)   # the docs name it by file name
    bad = 0

    # .scb: docs/bytecode.md's recipe on the payloads of the stdlib scenarios
    scb_cmd = recipe(os.path.join(src, "docs", "bytecode.md"), "zstd -3 ")
    std = os.path.join(src, "stdlib-scenarios")
    yamls = sorted(f for f in os.listdir(std) if f.endswith(".yaml"))
    if len(yamls) < 5:
        raise SystemExit(f"FAIL: only {len(yamls)} stdlib scenarios")
    for y in yamls:
        out = os.path.join(work, y[:-5] + ".scb")
        subprocess.run([scc, "-o", out, os.path.join(std, y)], check=True, timeout=60,
                       capture_output=True)
        d = open(out, "rb").read()
        frame = d[SCB_HEADER:]
        payload = zstd(["-d", "-D", "scb-dict-1.zdict"], frame, work)
        again = zstd(scb_cmd[1:], payload, work)
        if again != frame:
            print(f"{y}: `{' '.join(scb_cmd)}` gives {len(again)} bytes, scc wrote {len(frame)}")
            bad += 1
    print(f"{len(yamls)} .scb frames checked against `{' '.join(scb_cmd)}`")

    # pack: docs/pack.md's recipe on the stdlib pack (the solid layout)
    pack_cmd = recipe(os.path.join(src, "docs", "pack.md"), "zstd -19 ")
    scp = os.path.join(work, "stdlib.scp")
    subprocess.run([scc, "--pack", std, "-o", scp], check=True, timeout=120, capture_output=True)
    d = open(scp, "rb").read()
    frames, dict_size = struct.unpack_from("<II", d, 40)
    if frames != 1 or dict_size != 0:
        raise SystemExit(f"FAIL: the stdlib pack is not one solid frame ({frames} frames, dictionary {dict_size})")
    csize, content = struct.unpack_from("<QQ", d, PACK_HEADER)
    frame = d[PACK_HEADER + FRAME_ENTRY:PACK_HEADER + FRAME_ENTRY + csize]
    plain = zstd(["-d"], frame, work)
    again = zstd(pack_cmd[1:], plain, work)
    if len(plain) != content or again != frame:
        print(f"stdlib pack: `{' '.join(pack_cmd)}` gives {len(again)} bytes, scc wrote {len(frame)}")
        bad += 1
    print(f"the stdlib pack's frame ({content} bytes of content) checked against `{' '.join(pack_cmd)}`")
    print(f"doc_zstd_cli: {'ok' if not bad else str(bad) + ' problem(s)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
