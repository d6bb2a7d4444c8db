#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""docs/bytecode.md section 10 shows the file and the payload that
`formats_roundtrip --hex` prints: every hex line of both (address and
bytes) must be in the document, as a line of its own beginning with them,
and the file's size must be the one the text gives.

usage: doc_hex.py FORMATS_ROUNDTRIP BYTECODE_MD"""
import re
import subprocess
import sys


def main():
    exe, md = sys.argv[1:3]
    out = subprocess.run([exe, "--hex"], capture_output=True, text=True, check=True).stdout
    doc = open(md, encoding="utf-8").read()
    doc_lines = doc.splitlines()
    bad = []
    size = re.search(r"^file \((\d+) bytes\):$", out, re.M)
    if not size or f"The file ({size.group(1)} bytes;" not in doc:
        bad.append(f"the text does not give the file's size ({size.group(1) if size else '?'} bytes)")
    for part in out.split("listing:")[0].split("payload (")[0:2]:
        hex_lines = [l for l in part.splitlines() if re.match(r"^[0-9a-f]{4}: ", l)]
        at = 0
        for h in hex_lines:
            found = next((i for i in range(at, len(doc_lines))
                          if doc_lines[i] == h or doc_lines[i].startswith(h + "  ")), None)
            if found is None:
                bad.append(f"missing or out of order: {h}")
            else:
                at = found + 1
        if not hex_lines:
            bad.append("formats_roundtrip --hex printed no hex lines")
    for b in bad:
        print(f"{md}: {b}")
    print(f"doc_hex: {'ok' if not bad else str(len(bad)) + ' problem(s)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
