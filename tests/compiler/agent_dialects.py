#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The ElizaOS and Yao front ends through scc and scvm, without the corpus:
detection and --dialect, every evaluation kept as an EVAL with its source
position, byte-identical output, packs mixing dialects, the 1.2 version
mark, what the simulation plays, and the PTY target refusing to pass a
program whose checks it cannot evaluate; ElizaOS matrices compiled into
packs (names, order, depfiles, -o, -l, --check, errors at their places).

usage: agent_dialects.py SCC SCVM FIXTURES_DIR
FIXTURES_DIR holds eliza_triage.yaml and yao_expense.jsonl (the worked
examples of docs/eliza.md and docs/yao.md).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def run(*cmd, cwd=None):
    return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=60)


def listing_ops(scc, path, *args):
    p = run(scc, "-l", *args, path)
    rows = []
    for l in p.stdout.splitlines():
        parts = l.split(None, 4)
        if len(parts) >= 4 and parts[0].isdigit():
            pos = l.rsplit("[", 1)[1].rstrip("]") if l.rstrip().endswith("]") else ""
            rows.append((parts[3], pos, l))
    return p.returncode, rows


def main():
    scc, scvm, fixtures = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        eliza = os.path.join(tmp, "triage.scenario.yaml")
        yao = os.path.join(tmp, "expense.jsonl")
        shutil.copy(os.path.join(fixtures, "eliza_triage.yaml"), eliza)
        shutil.copy(os.path.join(fixtures, "yao_expense.jsonl"), yao)

        # every evaluation is an EVAL at its own source line
        rc, rows = listing_ops(scc, eliza)
        check(rc == 0, "eliza: scc -l failed")
        ops = [r[0] for r in rows]
        check(ops == ["CASE", "USER_INPUT", "EVAL", "EVAL", "EVAL", "CASE", "EVAL", "EVAL", "END"],
              "eliza: ops %s" % ops)
        src = open(eliza).read().splitlines()
        for op, pos, line in rows:
            if op == "EVAL":
                ln = int(pos.split(":")[0])
                check(src[ln - 1].strip().startswith("- type:"), "eliza: EVAL position %s is not its evaluation" % pos)
        rc, rows = listing_ops(scc, yao)
        check(rc == 0, "yao: scc -l failed")
        check([r[0] for r in rows].count("EVAL") == 6 and [r[0] for r in rows].count("CASE") == 4,
              "yao: ops %s" % [r[0] for r in rows])
        ysrc = open(yao).read().splitlines()
        for op, pos, line in rows:
            if op == "EVAL":
                ln, col = (int(x) for x in pos.split(":"))
                check(ysrc[ln - 1][col - 1] == "{", "yao: EVAL position %s is not an assertion object" % pos)

        # static multi-turn (the documented form Yao never implemented):
        # one USER_INPUT per turn, its checks scoped to the turn, attachments
        # kept, and the named warning
        turns = os.path.join(tmp, "turns.jsonl")
        with open(turns, "w") as fh:
            fh.write('{"id": "t", "turns": [{"input": "I want to file an expense", "assertions": '
                     '[{"type": "contains", "value": "type"}]}, {"input": "Receipt attached", "attachments": '
                     '[{"type": "image", "source": "file://./receipt.jpg"}], "assert": {"type": "json_path", '
                     '"path": "$.amount", "value": 150}}]}\n{"id": "u", "input": "hi", "expected": "hello"}\n')
        p = run(scc, "-l", turns)
        check(p.returncode == 0, "turns: %s" % p.stderr)
        lines = [l for l in p.stdout.splitlines() if " USER_INPUT " in l or " EVAL " in l]
        check(len(lines) == 6 and '"scope":"turn"' in lines[1] and '"attachments":[' in lines[2] and
              '"type":"json_path"' in lines[3] and '"type":"equals","scope":"case","value":"hello"' in lines[5],
              "turns listing: %s" % lines)
        p = run(scc, "--check", turns)
        check("[-Wyao-ignored]" in p.stderr and "static 'turns'" in p.stderr, "turns warning: %s" % p.stderr)

        # detection and --dialect
        check(run(scc, "--check", "--dialect=eliza", eliza).returncode == 0, "--dialect=eliza refused its file")
        check(run(scc, "--check", "--dialect=yao", yao).returncode == 0, "--dialect=yao refused its file")
        p = run(scc, "--check", "--dialect=yao", eliza)
        check(p.returncode == 1 and ":1:1: error: expected a JSON object ('{')" in p.stderr,
              "--dialect=yao on YAML: %s" % p.stderr)
        p = run(scc, "--check", "--dialect=eliza", "--color=never", os.path.basename(yao), cwd=tmp)
        check(p.returncode == 1 and "expense.jsonl:" in p.stderr and ": error: " in p.stderr,
              "--dialect=eliza on JSON Lines: %s" % p.stderr)
        p = run(scc, "--check", "--dialect=elisa", eliza)
        check(p.returncode == 2 and "eliza or yao" in p.stderr, "--dialect=elisa: %s" % p.stderr)

        # deterministic, verified, marked 1.2
        for f in (eliza, yao):
            a, b = os.path.join(tmp, "a.scb"), os.path.join(tmp, "b.scb")
            check(run(scc, "-o", a, f).returncode == 0 and run(scc, "-o", b, f).returncode == 0, "%s: compile" % f)
            check(open(a, "rb").read() == open(b, "rb").read(), "%s: two compilations differ" % f)
            info = json.loads(run(scvm, "info", "--json", a).stdout)
            check(info.get("version") == "1.2", "%s: version %s" % (f, info.get("version")))
            check(run(scvm, "verify", a).returncode == 0, "%s: scvm verify" % f)

        # a pack mixing dialects with a Scenario-Format file stays loadable
        scenario = os.path.join(tmp, "plain.yaml")
        with open(scenario, "w") as fh:
            fh.write("name: plain\ntimeline:\n  - llmResponse:\n      - assistant: [[0, \"hi\"]]\n")
        pack = os.path.join(tmp, "suite.scp")
        p = run(scc, "--pack", "-o", pack, eliza, yao, scenario)
        check(p.returncode == 0, "pack: %s" % p.stderr)
        p = run(scvm, "ls", pack)
        check(p.returncode == 0 and "Triages a GitHub issue" in p.stdout and "expense" in p.stdout,
              "pack ls: %s" % p.stdout)

        # the simulation plays the ops as events, checks included
        e_scb = os.path.join(tmp, "e.scb")
        run(scc, "-o", e_scb, eliza)
        p = run(scvm, "run", e_scb)
        kinds = [json.loads(l)["kind"] for l in p.stdout.splitlines()]
        check(p.returncode == 1 and kinds.count("eval") == 5 and kinds.count("case") == 2 and
              kinds.count("user_input") == 1 and "not evaluated is not passed" in p.stderr,
              "sim events (unjudged: exit 1): %d %s" % (p.returncode, kinds))

        # the PTY target cannot evaluate the checks: it refuses, never passes
        p = run(scvm, "run", "-t", "pty", e_scb, "--", "/bin/cat")
        check(p.returncode != 0 and "does not run on the PTY target" in (p.stdout + p.stderr),
              "pty: exit %d: %s%s" % (p.returncode, p.stdout[-300:], p.stderr[-300:]))

    # ElizaOS matrices: a pack of the base scenario's variations
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base.scenario.yaml")
        with open(base, "w") as f:
            f.write("name: 'Base'\ndescription: 'd'\nenvironment:\n  type: local\nrun:\n  - name: greet\n"
                    "    input: 'Hello'\n    evaluations:\n      - type: string_contains\n        value: 'hi'\n"
                    "judgment:\n  strategy: all_pass\n")

        def matrix(name, body):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(body)
            return path
        m = matrix("m.matrix.yaml", "name: 'M'\nbase_scenario: 'base.scenario.yaml'\nruns_per_combination: 2\n"
                                    "matrix:\n  - parameter: 'run[0].input'\n    values: ['Hello', 'Hey']\n"
                                    "  - parameter: 'run[0].evaluations[0].value'\n    values: ['hi', 'yo', 'ho']\n")
        packs = []
        for out in ("m1.scp", "m2.scp"):
            p = run(scc, "--pack", "-MD", "-o", os.path.join(tmp, out), m)
            check(p.returncode == 0, "matrix pack: %s" % p.stderr)
            packs.append(open(os.path.join(tmp, out), "rb").read())
        check(packs[0] == packs[1], "matrix: two packs differ")
        names = [json.loads(l)["name"] for l in run(scvm, "ls", "--json", os.path.join(tmp, "m1.scp")).stdout.splitlines()]
        check(names == ["M@%d.%d" % (c, r) for c in range(1, 7) for r in (1, 2)], "matrix names: %s" % names)
        # M@4.1: combination 4 = input 'Hey' (first parameter, slowest), value 'hi'
        d = run(scvm, "dis", "--scenario", "M@4.1", os.path.join(tmp, "m1.scp")).stdout
        check('USER_INPUT    null "Hey"' in d and '"value":"hi"' in d, "matrix combination 4: %s" % d[-600:])
        dep = open(os.path.join(tmp, "m1.scp.d")).read()
        check("base.scenario.yaml" in dep and "m.matrix.yaml" in dep, "matrix depfile: %s" % dep)
        p = run(scvm, "run", "-t", "aut", "--dry-run", os.path.join(tmp, "m1.scp"))
        check(p.returncode == 0 and "12 cases listed" in p.stderr, "matrix pack dry run: %s" % p.stderr[-300:])
        p = run(scc, "-o", os.path.join(tmp, "m.scb"), m)
        check(p.returncode == 1 and "makes 12 scenarios: compile it into a pack" in p.stderr, "matrix -o: %s" % p.stderr)
        p = run(scc, "-l", m)
        check(p.returncode == 0 and p.stdout.count("CASE") == 12, "matrix -l lists every scenario")
        # one scenario: a .scb is fine
        one = matrix("one.matrix.yaml", "name: 'One'\nbase_scenario: 'base.scenario.yaml'\nmatrix:\n"
                                        "  - parameter: 'name'\n    values: ['Renamed']\n")
        p = run(scc, "-o", os.path.join(tmp, "one.scb"), one)
        check(p.returncode == 0, "a matrix of one scenario compiles to a .scb: %s" % p.stderr)
        # errors, at their positions
        bad = matrix("bad.matrix.yaml", "name: 'Bad'\nbase_scenario: 'base.scenario.yaml'\nmatrix:\n"
                                        "  - parameter: 'run[2].input'\n    values: ['x']\n"
                                        "  - parameter: 'run[0].nope'\n    values: ['x']\n"
                                        "  - parameter: 'run[0].input'\n    values: []\n"
                                        "  - parameter: 'run[0].input'\n    values: ['y']\n")
        p = run(scc, "--check", "--color=never", bad)
        check(p.returncode == 1 and "bad.matrix.yaml:4:16: error: parameter 'run[2].input' is not in the base" in p.stderr
              and "bad.matrix.yaml:6:16: error: parameter 'run[0].nope' is not in the base" in p.stderr
              and "bad.matrix.yaml:9:13: error: 'values' must be a list of at least one value" in p.stderr
              and "bad.matrix.yaml:10:16: error: parameter 'run[0].input' is varied twice" in p.stderr,
              "matrix errors: %s" % p.stderr)
        gone = matrix("gone.matrix.yaml", "name: 'Gone'\nbase_scenario: 'nope.yaml'\nmatrix:\n"
                                          "  - parameter: 'name'\n    values: ['x']\n")
        p = run(scc, "--pack", "-o", os.path.join(tmp, "g.scp"), gone)
        check(p.returncode == 1 and "gone.matrix.yaml:2:16: error: cannot read the base scenario '" in p.stderr
              and not os.path.exists(os.path.join(tmp, "g.scp")), "matrix without its base: %s" % p.stderr)
        typo = matrix("typo.matrix.yaml", "name: 'Typo'\nbase_scenario: 'base.scenario.yaml'\nmatrix:\n"
                                          "  - parameter: 'judgment.strategy'\n    values: ['any_pass', 'most']\n")
        p = run(scc, "--check", "--color=never", typo)
        check(p.returncode == 1 and p.stderr.count("error:") == 1 and
              "base.scenario.yaml:12:13: error: 'strategy' in judgment must be one of" in p.stderr and
              "note: in scenario 2 of this matrix ('Typo@2': judgment.strategy = most)" in p.stderr,
              "a value that breaks the scenario: %s" % p.stderr)

    for f in failures:
        print("FAIL", f)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
