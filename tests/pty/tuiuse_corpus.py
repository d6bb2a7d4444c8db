#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tui-use corpus: every JSON/YAML file under the shared corpus's tui-use
folder (ptybox's spec examples, schemas, and blocks extracted from its docs)
compiled with `scc --dialect=tui-use`: it either compiles, or is rejected
with exactly the positioned errors written in tuiuse_corpus.tsv.

usage: tuiuse_corpus.py SCC CORPUS_DIR [--update]
Exits 77 (skipped) when CORPUS_DIR/tui-use is absent.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "tuiuse_corpus.tsv")


def outcome(scc, root, rel, out):
    p = subprocess.run([scc, "--dialect=tui-use", "--diagnostics-format=json", "-o", out, rel],
                       cwd=root, capture_output=True, text=True, timeout=60)
    diags = [json.loads(l) for l in p.stderr.splitlines() if l.startswith("{")]
    errors = ["%d:%d: %s" % (d["line"], d["column"], d["message"]) for d in diags if d["severity"] == "error"]
    if p.returncode == 0 and not errors:
        return ["ok"], None
    if p.returncode != 1 or not errors:
        return None, "exit %d, stderr: %s" % (p.returncode, p.stderr[-500:])
    for d in diags:
        if d["severity"] == "error" and d["line"] == 0:
            return None, "an error without a position: %s" % d["message"]
    return errors, None


def main():
    scc, corpus = sys.argv[1:3]
    update = "--update" in sys.argv
    root = os.path.join(corpus, "tui-use")
    if not os.path.isdir(root):
        print("skipped: %s is absent" % root)
        return 77
    files = sorted(os.path.relpath(os.path.join(d, f), root)
                   for d, _, fs in os.walk(root) for f in fs if f.endswith((".json", ".yaml", ".yml")))
    expected = {}
    if os.path.exists(EXPECTED):
        for line in open(EXPECTED, encoding="utf-8"):
            if line.startswith("#") or not line.strip():
                continue
            path, what = line.rstrip("\n").split("\t", 1)
            expected.setdefault(path, []).append(what)
    got, bad = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for i, rel in enumerate(files):
            res, why = outcome(scc, root, rel, os.path.join(tmp, "%d.scb" % i))
            if why:
                bad.append("%s: %s" % (rel, why))
                continue
            got[rel] = res
    if update:
        with open(EXPECTED, "w", encoding="utf-8") as f:
            f.write("# tui-use corpus: file <TAB> ok | line:col: error (one line per error); tuiuse_corpus.py --update\n")
            for rel in files:
                for what in got.get(rel, []):
                    f.write("%s\t%s\n" % (rel, what))
    else:
        for rel in files:
            if rel not in expected:
                bad.append("%s: not in tuiuse_corpus.tsv (run with --update)" % rel)
            elif rel in got and got[rel] != expected[rel]:
                bad.append("%s:\n  expected %s\n  got      %s" % (rel, expected[rel], got[rel]))
        for rel in expected:
            if rel not in files:
                bad.append("%s: listed but absent from the corpus" % rel)
    ok = sum(1 for r in got.values() if r == ["ok"])
    print("%d files: %d compile, %d rejected with positioned errors" % (len(files), ok, len(got) - ok))
    for b in bad:
        print("FAIL " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
