#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""npm_setup.py SRC DEST - installs the npm packages pinned by SRC's
package.json and package-lock.json into DEST/node_modules with `npm ci`
(or `npm install` with the same lock when npm ci refuses it),
once per lock file (a stamp holds the files' hash).  Install scripts are not
run.  Exits 77 (skip) when node or npm is missing or npm ci fails (no
registry): the tests that need the packages then skip too."""
import hashlib
import os
import shutil
import subprocess
import sys

src, dest = sys.argv[1], sys.argv[2]
os.makedirs(dest, exist_ok=True)
if not shutil.which("node") or not shutil.which("npm"):
    print("SKIP: node or npm is not installed")
    sys.exit(77)
lock = open(os.path.join(src, "package-lock.json"), "rb").read()
pkg = open(os.path.join(src, "package.json"), "rb").read()
digest = hashlib.sha256(lock + pkg).hexdigest()
stamp = os.path.join(dest, "node_modules", ".scvm-stamp")
if os.path.exists(stamp) and open(stamp).read() == digest:
    print("npm packages in %s are up to date" % dest)
    sys.exit(0)
for name, data in (("package.json", pkg), ("package-lock.json", lock)):
    with open(os.path.join(dest, name), "wb") as f:
        f.write(data)
r = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                   cwd=dest, timeout=280)
if r.returncode != 0:
    # npm ci refuses a lock that lacks optional platform packages which
    # were never published (@qwen-code/qwen-code's clipboard helper lists
    # such); npm install with the same lock installs the locked versions
    # and leaves those out, as npm ci would have on this platform.
    print("npm ci refused the lock; npm install with it")
    r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
                       cwd=dest, timeout=280)
if r.returncode != 0:
    print("SKIP: npm ci failed (is the npm registry reachable?)")
    sys.exit(77)
with open(stamp, "w") as f:
    f.write(digest)
print("installed the packages pinned in %s" % src)
