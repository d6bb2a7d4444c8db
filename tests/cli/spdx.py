#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""spdx.py ROOT [--fix] - every source file we wrote says its license in
an SPDX-License-Identifier line within its first three lines: C and its
headers and .def tables, CMake, Python, shell, JavaScript, Meson, the
pkg-config and CMake package templates, the action and the hook list.
Data files (scenarios, goldens, corpora, JSON) are not source and carry
none.  --fix adds the line where it is missing (after a #! line).

The license is the one LICENSE names; the test also proves it can fail:
a copy of a C file without the line is reported.  Exit 0, or 1 listing
every file without it."""
import os
import re
import shutil
import sys
import tempfile

LICENSE = "MIT"
TAG = "SPDX-License-Identifier: "
# How a comment line is written, by file kind.
C_STYLE = {".c", ".h", ".def"}
SLASH_STYLE = {".cjs", ".mjs", ".js"}
HASH_STYLE = {".py", ".sh", ".cmake", ".in"}
HASH_NAMES = {"CMakeLists.txt", "meson.build", "action.yml", ".pre-commit-hooks.yaml"}
# Folders that are not ours or not source: build trees, npm installs, git.
SKIP_DIRS = {".git", "node_modules", "__pycache__"}


def comment_of(path):
    """The comment line for a source file, or None for a data file."""
    name = os.path.basename(path)
    ext = os.path.splitext(name)[1]
    if ext in C_STYLE:
        return "/* %s%s */" % (TAG, LICENSE)
    if ext in SLASH_STYLE:
        return "// %s%s" % (TAG, LICENSE)
    if ext in HASH_STYLE or name in HASH_NAMES:
        return "# %s%s" % (TAG, LICENSE)
    # Scripts without an extension (scripts/pre-commit, .ci/run): by their #! line.
    parts = path.split(os.sep)
    if "scripts" in parts or ".ci" in parts:
        try:
            with open(path, "rb") as f:
                if f.read(2) == b"#!":
                    return "# %s%s" % (TAG, LICENSE)
        except OSError:
            pass
    return None


def sources(root):
    for dp, dns, fns in os.walk(root):
        # A build folder (anything CMake configured) is not source.
        dns[:] = sorted(d for d in dns if d not in SKIP_DIRS
                        and not os.path.exists(os.path.join(dp, d, "CMakeCache.txt")))
        rel = os.path.relpath(dp, root)
        if rel.split(os.sep)[0].startswith("build"):
            continue
        for fn in sorted(fns):
            p = os.path.join(dp, fn)
            if os.path.isfile(p) and not os.path.islink(p):
                c = comment_of(p)
                if c:
                    yield p, c


def has_line(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        head = [f.readline() for _ in range(3)]
    return any(re.search(r"SPDX-License-Identifier: %s\b" % re.escape(LICENSE), l) for l in head)


def add_line(path, comment):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.startswith("#!"):
        first, _, rest = text.partition("\n")
        text = first + "\n" + comment + "\n" + rest
    else:
        text = comment + "\n" + text
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def missing(root):
    return [os.path.relpath(p, root) for p, _ in sources(root) if not has_line(p)]


def main():
    root = os.path.abspath(sys.argv[1])
    fix = "--fix" in sys.argv[2:]
    failures = []
    if fix:
        for p, c in sources(root):
            if not has_line(p):
                add_line(p, c)
                print("added:", os.path.relpath(p, root))
    n = sum(1 for _ in sources(root))
    for rel in missing(root):
        failures.append("no SPDX-License-Identifier: %s line in its first three lines: %s" % (LICENSE, rel))
    if n < 300:
        failures.append("only %d source files found under %s" % (n, root))
    # The check can fail: a C file and a script without the line are named.
    tmp = tempfile.mkdtemp(prefix="spdx-")
    try:
        os.makedirs(os.path.join(tmp, "scripts"))
        open(os.path.join(tmp, "a.c"), "w").write("/* a.c */\nint a;\n")
        open(os.path.join(tmp, "b.h"), "w").write("/* SPDX-License-Identifier: MIT */\n")
        open(os.path.join(tmp, "scripts", "run"), "w").write("#!/bin/sh\nexit 0\n")
        open(os.path.join(tmp, "data.yaml"), "w").write("timeline: []\n")
        got = missing(tmp)
        if got != ["a.c", os.path.join("scripts", "run")]:
            failures.append("the check itself: expected a.c and scripts/run reported, got %s" % got)
    finally:
        shutil.rmtree(tmp)
    # The license the lines name is the one LICENSE holds, and the package says it.
    lic = open(os.path.join(root, "LICENSE"), encoding="utf-8").read()
    if not lic.startswith("MIT License"):
        failures.append("LICENSE is not the MIT License")
    top = open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read()
    if not re.search(r'set\(SCC_LICENSE "%s"\)' % LICENSE, top):
        failures.append("CMakeLists.txt's package metadata does not name the license")
    for f in failures:
        print("FAIL:", f)
    print("spdx: %d source files, %d failures" % (n, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
