#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""readme_docs.py ROOT - the README's table of documentation lists every
page in docs/, and every page it lists exists.  Exit 0 or 1."""
import os, re, sys

root = sys.argv[1]
readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
linked = set(re.findall(r"\]\((docs/[A-Za-z0-9_.-]+\.md)\)", readme))
pages = {"docs/" + f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md")}
bad = ["not in the README: " + p for p in sorted(pages - linked)] + \
      ["linked but missing: " + p for p in sorted(linked - pages)]
for b in bad:
    print("FAIL", b)
print("readme_docs: %d pages, %d problems" % (len(pages), len(bad)))
sys.exit(1 if bad else 0)
