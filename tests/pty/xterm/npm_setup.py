#!/usr/bin/env python3
"""npm_setup.py DIR - installs the pinned @xterm/headless (package-lock.json
beside this script) into DIR/node_modules with `npm ci`, once per lock file
(a stamp holds the lock's hash).  Exits 77 (skip) when node or npm is
missing or npm ci fails (no registry): the differential test then skips."""
import hashlib
import os
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
dest = sys.argv[1]
os.makedirs(dest, exist_ok=True)
if not shutil.which("node") or not shutil.which("npm"):
    print("SKIP: node or npm is not installed")
    sys.exit(77)
lock = open(os.path.join(here, "package-lock.json"), "rb").read()
pkg = open(os.path.join(here, "package.json"), "rb").read()
digest = hashlib.sha256(lock + pkg).hexdigest()
stamp = os.path.join(dest, "node_modules", ".scvm-stamp")
if os.path.exists(stamp) and open(stamp).read() == digest:
    print("@xterm/headless is up to date")
    sys.exit(0)
for name, data in (("package.json", pkg), ("package-lock.json", lock)):
    with open(os.path.join(dest, name), "wb") as f:
        f.write(data)
r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                   cwd=dest, timeout=280)
if r.returncode != 0:
    print("SKIP: npm ci failed (is the npm registry reachable?)")
    sys.exit(77)
with open(stamp, "w") as f:
    f.write(digest)
print("installed the pinned @xterm/headless")
