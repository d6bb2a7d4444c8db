#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Corpus test: every Scenario-Format file other projects wrote either
compiles, or is rejected with the file:line:col diagnostics written in
expected.tsv; every file the reference implementation accepts plays in
simulation exactly as the reference did (GOLDEN-playback.jsonl).

usage: check_corpus.py SCC SCVM CORPUS_DIR [--update]
Exits 77 (skipped) when the corpus folder is absent.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected.tsv")
SETS = ("agent-harbor", "agent-harbor-branches")

# Where we knowingly differ from the reference playback (docs/timing.md,
# "Where we differ from the reference"): (file, event index, field) ->
# (our value, the reference's value).  Anything else must match exactly.
DIVERGENCES = {
    # The spec puts `target:` beside `userInputs`; the reference's untagged
    # enum drops the key, so its events say null.
    ("agent-harbor/tests/tools/mock-agent/scenarios/interactive_scenario.yaml", 3, "target"): ("tui", None),
}


# Files the reference accepts and we reject on purpose (docs/dialects.md):
# they have no timeline, so the reference plays an empty scenario and a
# run of them passes without testing anything.
REJECTED_ON_PURPOSE = {
    "agent-harbor-branches/agent-abstractions/test_scenarios/basic_navigation.json":
        "'steps' of another TUI test format and no timeline",
}


def apply_divergences(rel, events, ref):
    """Returns the reference events with our documented divergences applied,
    after checking that the reference really has the value we say it has."""
    ref = [dict(e) for e in ref]
    for (f, idx, field), (ours, theirs) in DIVERGENCES.items():
        if f != rel:
            continue
        if idx >= len(ref) or ref[idx].get(field) != theirs:
            raise AssertionError("%s: divergence table is stale at event %d" % (rel, idx))
        ref[idx][field] = ours
    return ref


def corpus_files(corpus):
    out = []
    for s in SETS:
        root = os.path.join(corpus, s)
        for d, _, files in os.walk(root):
            for f in files:
                if f.endswith((".yaml", ".yml", ".json")):
                    out.append(os.path.relpath(os.path.join(d, f), corpus))
    return sorted(out)


def compile_file(scc, corpus, rel, out):
    p = subprocess.run([scc, "--diagnostics-format=json", "-o", out, rel],
                       cwd=corpus, capture_output=True, text=True, timeout=30)
    diags = [json.loads(l) for l in p.stderr.splitlines() if l.startswith("{")]
    errors = ["%d:%d: %s" % (d["line"], d["column"], d["message"])
              for d in diags if d["severity"] == "error"]
    return p.returncode, errors, p.stderr


def main():
    scc, scvm, corpus = sys.argv[1:4]
    update = "--update" in sys.argv
    if not os.path.isdir(os.path.join(corpus, "agent-harbor")):
        print("corpus not found at %s: skipped" % corpus)
        return 77
    golden = {}
    with open(os.path.join(corpus, "agent-harbor", "GOLDEN-playback.jsonl")) as f:
        for line in f:
            g = json.loads(line)
            golden[g["file"]] = g
    expected = {}
    if os.path.exists(EXPECTED) and not update:
        with open(EXPECTED) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                path, outcome, *errs = line.rstrip("\n").split("\t")
                expected[path] = (outcome, errs)
    failures = []
    rows = []
    passed = 0
    files = corpus_files(corpus)
    names = {}   # each accepted file's scenario name
    with tempfile.TemporaryDirectory() as tmp:
        for i, rel in enumerate(files):
            out = os.path.join(tmp, "%d.scb" % i)
            rc, errors, stderr = compile_file(scc, corpus, rel, out)
            outcome = "ok" if rc == 0 else "error"
            if rc not in (0, 1):
                failures.append("%s: scc exited %d (not 0 or 1):\n%s" % (rel, rc, stderr))
                continue
            if outcome == "error" and not errors:
                failures.append("%s: rejected without a positioned error:\n%s" % (rel, stderr))
            if outcome == "error" and any(e.startswith("0:0:") for e in errors):
                failures.append("%s: an error has no line:col:\n%s" % (rel, stderr))
            rows.append("\t".join([rel, outcome] + errors))
            if rc == 0:
                p = subprocess.run([scvm, "info", "--json", out], capture_output=True, text=True, timeout=30)
                names[rel] = json.loads(p.stdout)["name"] if p.returncode == 0 else None
            if not update:
                if rel not in expected:
                    failures.append("%s: not in expected.tsv (new corpus file?)" % rel)
                elif expected[rel] != (outcome, errors):
                    failures.append("%s: expected %s %s\n   got %s %s" % (
                        rel, expected[rel][0], expected[rel][1], outcome, errors))
            g = golden.get(rel)
            if g is not None and rel in REJECTED_ON_PURPOSE:
                if rc == 0:
                    failures.append("%s: should be rejected (%s)" % (rel, REJECTED_ON_PURPOSE[rel]))
                passed += rc != 0
                continue
            if g is not None:
                if rc != 0:
                    failures.append("%s: the reference accepts it; we reject it:\n%s" % (rel, stderr))
                    continue
                p = subprocess.run([scvm, "run", "--allow-skipped", out], capture_output=True, text=True, timeout=30)
                if p.returncode != 0:
                    failures.append("%s: scvm run exited %d: %s" % (rel, p.returncode, p.stderr))
                    continue
                # not_evaluated is scvm's word on each check the simulation
                # does not evaluate (docs/events.md); the reference says nothing
                events = [e for e in map(json.loads, p.stdout.splitlines()) if e["kind"] != "not_evaluated"]
                g = dict(g, events=apply_divergences(rel, events, g["events"]))
                if events != g["events"]:
                    diff = next((k for k in range(max(len(events), len(g["events"])))
                                 if k >= len(events) or k >= len(g["events"])
                                 or events[k] != g["events"][k]), None)
                    failures.append("%s: playback differs from the reference at event %s:\n  ours: %s\n  ref:  %s" % (
                        rel, diff,
                        json.dumps(events[diff]) if diff < len(events) else "(none)",
                        json.dumps(g["events"][diff]) if diff < len(g["events"]) else "(none)"))
                    continue
                p = subprocess.run([scvm, "info", "--json", out], capture_output=True, text=True, timeout=30)
                info = json.loads(p.stdout) if p.returncode == 0 else {}
                if info.get("name") != g["name"] or info.get("prompt") != g["effective_initial_prompt"]:
                    failures.append("%s: name/prompt %r/%r, reference %r/%r" % (
                        rel, info.get("name"), info.get("prompt"), g["name"], g["effective_initial_prompt"]))
                    continue
            passed += 1
    # The linter's view: one `scc --check` over the corpus folders (as a
    # pre-commit hook would run it) flags exactly the rejected files, and
    # checking only the others is clean (exit 0).
    if not update:
        p = subprocess.run([scc, "--check", "--diagnostics-format=json"] + list(SETS), cwd=corpus,
                           capture_output=True, text=True, timeout=60)
        flagged = {json.loads(l)["file"] for l in p.stderr.splitlines()
                   if l.startswith("{") and json.loads(l)["severity"] == "error"}
        rejected = {r for r, (o, _) in expected.items() if o == "error"}
        # and, as --pack would refuse them, each later scenario of a name an
        # earlier one has (the walk's order: the folders, each sorted)
        seen, dups = {}, set()
        for r in sorted(names, key=lambda r: (SETS.index(r.split("/")[0]) if r.split("/")[0] in SETS else 99, r)):
            if names[r] in seen:
                dups.add(r)
            seen.setdefault(names[r], r)
        rejected |= dups
        if flagged != rejected or p.returncode != (1 if rejected else 0):
            failures.append("scc --check over the corpus flags %s, expected %s (exit %d)" % (
                sorted(flagged ^ rejected), "the rejected set", p.returncode))
        else:
            passed += 1
        valid = sorted(r for r, (o, _) in expected.items() if o == "ok" and r not in dups)
        p = subprocess.run([scc, "--check"] + valid, cwd=corpus, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            failures.append("scc --check over the %d valid files exited %d:\n%s" % (len(valid), p.returncode, p.stderr))
        else:
            passed += 1
    missing = set(golden) - set(files)
    for m in sorted(missing):
        failures.append("%s: in GOLDEN-playback.jsonl but not found" % m)
    if update:
        with open(EXPECTED, "w") as f:
            f.write("# corpus file\toutcome\terrors (line:col: message), as scc reports them\n")
            f.write("\n".join(rows) + "\n")
        print("wrote %s (%d files)" % (EXPECTED, len(rows)))
        return 0
    stale = set(expected) - set(files)
    for s in sorted(stale):
        failures.append("%s: in expected.tsv but not in the corpus" % s)
    for f in failures:
        print("FAIL " + f)
    ok = sum(1 for r in rows if r.split("\t")[1] == "ok")
    print("corpus: %d files, %d compile, %d rejected, %d match the reference playback"
          % (len(files), ok, len(files) - ok, sum(1 for f in files if f in golden)))
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
