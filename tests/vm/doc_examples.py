#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doc_examples.py - run every example in a Markdown file exactly as written.

usage: doc_examples.py DOC.md BINDIR     (run in the fixture directory)

The examples run in a fresh temporary directory holding copies of the
fixture directory's *.scb files, so files they create never leak between
runs.

An example is a ```console block: lines starting with "$ " are shell
commands (run with bash, BINDIR first on PATH, stderr merged into stdout);
the lines after a command, up to the next command or the end of the block,
are its expected output.  A line "..." stands for any number of lines.
Exit 0 when every example matches, 1 otherwise (with a report).
"""
import os
import re
import shutil
import tempfile
import subprocess
import sys


def matches(want, got):
    """Line lists; '...' in want matches any run of lines (lazily)."""
    if not want:
        return not got
    if want[0] == "...":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and want[0] == got[0] and matches(want[1:], got[1:])


def main():
    doc, bindir = sys.argv[1], sys.argv[2]
    text = open(doc, encoding="utf-8").read()
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""), LC_ALL="C")
    blocks = re.findall(r"^```console\n(.*?)^```", text, re.S | re.M)
    examples = []
    for b in blocks:
        for line in b.splitlines():
            if line.startswith("$ "):
                examples.append([line[2:], []])
            elif examples:
                examples[-1][1].append(line)
    if not examples:
        sys.exit("doc_examples.py: %s has no ```console examples" % doc)
    fails = 0
    work = tempfile.mkdtemp(prefix="scvm-doc-")
    for f in os.listdir("."):
        if f.endswith(".scb"):
            shutil.copy(f, work)
    for cmd, want in examples:
        p = subprocess.run(["bash", "-c", cmd], env=env, cwd=work, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=30)
        got = p.stdout.decode("utf-8", errors="replace").splitlines()
        if not matches(want, got):
            fails += 1
            print("FAIL: $ %s\n--- documented\n%s\n--- actual\n%s\n" % (cmd, "\n".join(want), "\n".join(got)))
    shutil.rmtree(work)
    print("%d examples, %d failed" % (len(examples), fails))
    sys.exit(1 if fails else 0)


main()
