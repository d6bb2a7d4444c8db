#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The fast YAML reader against libyaml over every YAML file we have.

    yaml_fast_diff.py YAML_FAST_DIFF SOURCE_DIR WORK_DIR

Runs yaml_fast_diff (tests/compiler/yaml_fast_diff.c) over the fixtures of
tests/compiler/yaml_fast (one file per construct the reader reads: it must
read every one of them), the repository's
tests/, stdlib-scenarios/ and docs/ (the ```yaml blocks of the Markdown
files too, written out one file each), the files bench/gen.py generates, and
the shared corpus beside the repository (../shared/corpus) when it is there.
"""
import os
import re
import shutil
import subprocess
import sys


def main():
    prog, src, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    md = os.path.join(work, "docs-md")
    os.makedirs(md)
    n = 0
    for dp, dn, fn in os.walk(os.path.join(src, "docs")):
        dn.sort()
        for f in sorted(fn):
            if not f.endswith(".md"):
                continue
            text = open(os.path.join(dp, f), encoding="utf-8").read()
            for m in re.finditer(r"^```ya?ml\n(.*?)^```", text, re.S | re.M):
                n += 1
                with open(os.path.join(md, f"{f[:-3]}-{n:03d}.yaml"), "w", encoding="utf-8") as o:
                    o.write(m.group(1))
    gen = os.path.join(work, "gen")
    r = subprocess.run([sys.executable, os.path.join(src, "bench", "gen.py"), "set", "--dir", gen],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"bench/gen.py failed: {r.stderr}")
    args = [prog,
            "--group", "fixtures (tests/compiler/yaml_fast, all read fast)", "--min-fast", "100",
            os.path.join(src, "tests", "compiler", "yaml_fast"),
            "--group", "repository (tests, stdlib-scenarios, docs)",
            os.path.join(src, "tests"), os.path.join(src, "stdlib-scenarios"), os.path.join(src, "docs"),
            "--group", "docs/*.md yaml blocks", md,
            "--group", "bench/gen.py sizes", os.path.join(gen, "sizes"),
            "--group", "bench/gen.py 1,000 small", os.path.join(gen, "pack")]
    corpus = os.path.normpath(os.path.join(src, "..", "shared", "corpus"))
    if os.path.isdir(corpus):
        args += ["--group", "shared corpus", corpus]
    else:
        print(f"{corpus} is absent: the corpus part is skipped")
    r = subprocess.run(args)
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(r.returncode)


if __name__ == "__main__":
    main()
