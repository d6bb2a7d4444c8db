#!/usr/bin/env python3
"""layers.py ROOT - the folders are layers (README, "Layout").

Every #include "X/..." in common/ formats/ compiler/ vm/ runtime/ tools/
lib/ must name a folder its own folder may use:

    common   <- formats <- compiler, vm, runtime <- tools, lib

with vm/ allowed runtime/ (the target interface it drives) and runtime/
allowed vm/ never, compiler/ never vm/ or runtime/.  A bare include
("name.h") must name a file in the including file's own folder.  Exit 0,
or 1 listing every include that crosses a layer the wrong way.
"""
import os, re, sys

ROOT = sys.argv[1]
ALLOWED = {
    "common": {"common"},
    "formats": {"common", "formats"},
    "compiler": {"common", "formats", "compiler"},
    "vm": {"common", "formats", "vm", "runtime"},
    "runtime": {"common", "formats", "runtime"},
    "tools": {"common", "formats", "compiler", "vm", "runtime", "tools"},
    "lib": {"common", "formats", "vm", "runtime", "lib"},
}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
bad, seen = [], 0
for top in ALLOWED:
    for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for inc in INC.findall(text):
                seen += 1
                if "/" not in inc:
                    if not os.path.exists(os.path.join(dirpath, inc)):
                        bad.append(f"{rel}: bare include \"{inc}\" is not in its folder")
                    continue
                folder = inc.split("/", 1)[0]
                if folder in ALLOWED and folder not in ALLOWED[top]:
                    bad.append(f"{rel}: {top}/ must not include \"{inc}\"")
for b in bad:
    print("FAIL:", b)
print(f"layers: {seen} includes checked, {len(bad)} crossing a layer the wrong way")
sys.exit(1 if bad or not seen else 0)
