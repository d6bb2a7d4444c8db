#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No foreign file runs green: every scenario-like file of every dialect in
the shared corpus (Agent Harbor's Scenario-Format, tui-use, ElizaOS, Yao)
either is refused with a positioned error, or compiles to a scenario that
plays or checks something, or compiles with the -Wempty-scenario warning
that says it does not.  None compiles to an empty scenario silently, and
scc never exits other than 0 or 1.

usage: check_dialects.py SCC SCVM CORPUS_DIR
Exits 77 (skipped) when the corpus folder is absent.
"""
import json
import os
import subprocess
import sys
import tempfile

EXTS = (".yaml", ".yml", ".json", ".jsonl")
SKIP_NAMES = ("MANIFEST.tsv", "GOLDEN-playback.jsonl", "PROVENANCE.tsv")


def main():
    scc, scvm, corpus = sys.argv[1:4]
    if not os.path.isdir(corpus):
        print("corpus not found: %s (skipped)" % corpus)
        return 77
    failures, counts = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "x.scb")
        for top in sorted(os.listdir(corpus)):
            base = os.path.join(corpus, top)
            if not os.path.isdir(base):
                continue
            for dirpath, _, names in sorted(os.walk(base)):
                for n in sorted(names):
                    if not n.endswith(EXTS) or n in SKIP_NAMES:
                        continue
                    path = os.path.join(dirpath, n)
                    rel = os.path.relpath(path, corpus)
                    if os.path.exists(out):
                        os.unlink(out)
                    p = subprocess.run([scc, "--diagnostics-format=json", "-o", out, path],
                                       capture_output=True, text=True, timeout=60)
                    diags = [json.loads(l) for l in p.stderr.splitlines() if l.startswith("{")]
                    c = counts.setdefault(top, {"refused": 0, "plays": 0, "warned empty": 0})
                    if p.returncode == 1:
                        if not any(d["severity"] == "error" and d["line"] > 0 for d in diags):
                            failures.append("%s: refused without a positioned error:\n%s" % (rel, p.stderr))
                        c["refused"] += 1
                        continue
                    if p.returncode != 0:
                        failures.append("%s: scc exited %d:\n%s" % (rel, p.returncode, p.stderr))
                        continue
                    if any(d.get("flag") == "empty-scenario" for d in diags):
                        c["warned empty"] += 1
                        continue
                    # An op written in the file has its source line; what the
                    # compiler adds around the timeline (statuses, END) has 0.
                    d = subprocess.run([scvm, "dis", out], capture_output=True, text=True, timeout=30)
                    written = [l for l in d.stdout.splitlines()
                               if not l.startswith(";") and l.rstrip().endswith("]") and
                               not l.rstrip().endswith("[0:0]")]
                    if not written:
                        failures.append("%s: compiles to an empty scenario without a warning" % rel)
                        continue
                    c["plays"] += 1
    for f in failures:
        print("FAIL", f)
    for top, c in sorted(counts.items()):
        print("%-24s %3d refused, %3d play or check something, %3d warned empty" %
              (top, c["refused"], c["plays"], c["warned empty"]))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
