#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ElizaOS and Yao corpora: every ElizaOS `.yaml` under CORPUS/eliza, or
every Yao `.jsonl` under CORPUS/yao, compiled with `scc --dialect=DIALECT`
(an ElizaOS `*.matrix.yaml` with --pack: its scenarios' ops are summed).
Each file's outcome is recorded in DIALECT_corpus.tsv next to this script:
either `ok`, with the number of cases (CASE ops) and checks (EVAL ops) the
listing holds and the warnings by name, or the exact positioned errors.
A compiled file is compiled twice and must be byte-identical.

usage: check_agent_corpus.py SCC SCVM CORPUS_DIR eliza|yao [--update]
Exits 77 (skipped) when CORPUS_DIR/DIALECT is absent.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXTS = {"eliza": (".yaml", ".yml"), "yao": (".jsonl",)}


def outcome(scc, scvm, root, rel, dialect, tmp):
    matrix = rel.endswith(".matrix.yaml")      # an ElizaOS matrix compiles to a pack of its scenarios
    out1, out2 = os.path.join(tmp, "a.scp" if matrix else "a.scb"), os.path.join(tmp, "b.scp" if matrix else "b.scb")
    for o in (out1, out2):
        if os.path.exists(o):
            os.unlink(o)
    cmd = [scc, "--dialect=" + dialect, "--diagnostics-format=json"] + (["--pack"] if matrix else [])
    p = subprocess.run(cmd + ["-o", out1, rel], cwd=root, capture_output=True, text=True, timeout=60)
    diags = [json.loads(l) for l in p.stderr.splitlines() if l.startswith("{")]
    errors = ["%d:%d: %s" % (d["line"], d["column"], d["message"]) for d in diags if d["severity"] == "error"]
    if p.returncode not in (0, 1):
        return None, "exit %d, stderr: %s" % (p.returncode, p.stderr[-500:])
    if p.returncode == 1:
        if not errors:
            return None, "exit 1 without an error"
        for d in diags:
            if d["severity"] == "error" and d["line"] == 0:
                return None, "an error without a position: %s" % d["message"]
        return errors, None
    if errors:
        return None, "exit 0 with errors"
    subprocess.run(cmd + ["-o", out2, rel], cwd=root, capture_output=True, timeout=60)
    with open(out1, "rb") as a, open(out2, "rb") as b:
        if a.read() != b.read():
            return None, "two compilations differ"
    names = [None]
    if matrix:
        ls = subprocess.run([scvm, "ls", "--json", out1], capture_output=True, text=True, timeout=30)
        names = [json.loads(l)["name"] for l in ls.stdout.splitlines() if l.startswith("{")]
    ops = collections.Counter()
    for name in names:
        d = subprocess.run([scvm, "dis"] + (["--scenario", name] if name else []) + [out1], capture_output=True,
                           text=True, timeout=30)
        if d.returncode != 0:
            return None, "scvm dis exit %d: %s" % (d.returncode, d.stderr)
        ops.update(l.split()[3] for l in d.stdout.splitlines() if not l.startswith(";") and len(l.split()) > 3)
    warns = collections.Counter(x.get("flag") or "?" for x in diags if x["severity"] == "warning")
    w = ", ".join("%s x%d" % (k, v) for k, v in sorted(warns.items()))
    return ["ok: %s%d cases, %d inputs, %d checks%s" % ("a matrix of %d scenarios: " % len(names) if matrix else "",
                                                        ops["CASE"], ops["USER_INPUT"], ops["EVAL"],
                                                        "; warnings " + w if w else "")], None


def main():
    scc, scvm, corpus, dialect = sys.argv[1:5]
    update = "--update" in sys.argv
    expected_path = os.path.join(HERE, "%s_corpus.tsv" % dialect)
    root = os.path.join(corpus, dialect)
    if not os.path.isdir(root):
        print("skipped: %s is absent" % root)
        return 77
    files = sorted(os.path.relpath(os.path.join(d, f), root)
                   for d, _, fs in os.walk(root) for f in fs if f.endswith(EXTS[dialect]))
    expected = {}
    if os.path.exists(expected_path):
        for line in open(expected_path, encoding="utf-8"):
            if line.startswith("#") or not line.strip():
                continue
            path, what = line.rstrip("\n").split("\t", 1)
            expected.setdefault(path, []).append(what)
    got, bad = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for rel in files:
            res, why = outcome(scc, scvm, root, rel, dialect, tmp)
            if why:
                bad.append("%s: %s" % (rel, why))
                continue
            got[rel] = res
    if update:
        with open(expected_path, "w", encoding="utf-8") as f:
            f.write("# %s corpus: file <TAB> ok: cases, inputs, checks; warnings | line:col: error "
                    "(one line per error); check_agent_corpus.py --update\n" % dialect)
            for rel in files:
                for what in got.get(rel, []):
                    f.write("%s\t%s\n" % (rel, what))
    else:
        for rel in files:
            if rel not in expected:
                bad.append("%s: not in %s_corpus.tsv (run with --update)" % (rel, dialect))
            elif rel in got and got[rel] != expected[rel]:
                bad.append("%s:\n  expected %s\n  got      %s" % (rel, expected[rel], got[rel]))
        for rel in expected:
            if rel not in files:
                bad.append("%s: listed but absent from the corpus" % rel)
    ok = sum(1 for r in got.values() if r[0].startswith("ok"))
    print("%s: %d files: %d compile, %d rejected with positioned errors" % (dialect, len(files), ok, len(got) - ok))
    for b in bad:
        print("FAIL " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
