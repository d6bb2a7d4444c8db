#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""yao_spec.py SCC SPEC_DIR - issue 33 item 5: the Yao specification's own
test files (yao-agent-test-v2.md's examples, copied verbatim into SPEC_DIR)
load as written.

  - each file, pretty-printed over many lines with `//` comment lines, is
    detected as Yao by its content (no --dialect) and compiles (exit 0),
    with the ops the specification's case says: static `turns` one input
    and its checks per turn, a dynamic case (simulator + checkpoints) no
    input of its own (its simulator makes every one), the `assertions`,
    checkpoint `assertion`, tool_called `name`, regex `pattern` and script
    `use: "scripts:..."` spellings taken as the specification writes them;
  - Yao's loader differs (one case a line, `assert`): -Wyao-ignored says so;
  - every case compacted to one line, alone in its file and all together,
    compiles to the same ops (a lone static or dynamic case is not taken
    for an Agent Harbor playbook or a Scenario-Format file).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import failures, expect as check, json_objects as objects  # noqa: E402

SCC, SPEC = sys.argv[1:3]

# file: (cases, USER_INPUTs, EVALs, words the listing must hold)
WANT = {
    'options.jsonl': (1, 1, 0, ['"options":{"connector":"openai-gpt4","skip":{"history":true},'
                                '"metadata":{"scenario":"edge-case"}}']),
    'single_turn.jsonl': (1, 1, 1, ['"type":"contains","scope":"case","value":"Hi"']),
    'static.jsonl': (1, 3, 3, ['"name":"Expense Reimbursement - Happy Path"', '"scope":"turn","value":"submitted"',
                               '"type":"tool_called","scope":"turn","value":"create_expense"']),
    'dynamic.jsonl': (1, 0, 3, ['"T002" "dynamic" {"input":null', '"max_turns":10', '"timeout_ms":120000',
                                '"id":"call_create"']),
    'static_vs_dynamic.jsonl': (2, 3, 6, ['"expense-static" "standard"', '"expense-dynamic" "dynamic"']),
    'attachments.jsonl': (1, 2, 0, ['{"attachments":[{"type":"image","source":"file://./tests/fixtures/receipt.jpg"}]}']),
    'assertions.jsonl': (4, 4, 10, ['"pattern":"order-\\\\d+"', '"value_type","scope":"case","value":"number",'
                                   '"path":"$.count"', '"script":"tests.validate-expense","options":{"metadata"',
                                   '"use":"agents:workers.test.validator"']),
    'checkpoints.jsonl': (2, 0, 5, ['"after":["ask_type"]', '"after":["call_create"]', '"type":"agent"']),
}


def scc(*a, cwd=None):
    return subprocess.run([SCC, *a], capture_output=True, text=True, cwd=cwd, timeout=60)


def ops(path):
    p = scc('-l', path)
    rows = [re.sub(r'\s+\[\d+:\d+\]$', '', l.split(None, 2)[2]) for l in p.stdout.splitlines() if l.strip()]
    return p.returncode, rows, p.stderr


check(sorted(WANT) == sorted(f for f in os.listdir(SPEC) if f.endswith('.jsonl')),
      'the spec examples are %s' % sorted(os.listdir(SPEC)))
with tempfile.TemporaryDirectory() as tmp:
    for name, (n_case, n_in, n_eval, words) in sorted(WANT.items()):
        path = os.path.join(SPEC, name)
        src = open(path).read()
        check(src.count('\n') > 5, '%s: not pretty-printed' % name)
        rc, rows, err = ops(path)
        check(rc == 0, '%s: scc -l exit %d: %s' % (name, rc, err))
        kinds = [r.split()[1] for r in rows]
        got = (kinds.count('CASE'), kinds.count('USER_INPUT'), kinds.count('EVAL'))
        check(got == (n_case, n_in, n_eval), '%s: CASE/USER_INPUT/EVAL %s, want %s' % (name, got, (n_case, n_in, n_eval)))
        listing = '\n'.join(rows)
        for w in words:
            check(w in listing, '%s: listing lacks %s:\n%s' % (name, w, listing))
        check("Yao's loader reads one case per line" in err and '[-Wyao-ignored]' in err,
              '%s: no warning that Yao reads one case a line: %s' % (name, err))
        p = scc('--check', '--dialect=yao', '-Wno-yao-ignored', '-Wno-empty-case', path)
        check(p.returncode == 0 and not p.stderr, '%s: -Wno-yao-ignored: %s' % (name, p.stderr))
        # compacted: each case alone on one line, and all on one line each
        objs = objects(src)
        check(len(objs) == n_case, '%s: %d objects' % (name, len(objs)))
        one = [json.dumps(o) for o in objs]
        whole = os.path.join(tmp, 'all-' + name)
        open(whole, 'w').write('\n'.join(one) + '\n')
        rc2, rows2, err2 = ops(whole)
        check(rc2 == 0 and rows2 == rows, '%s compacted: exit %d, same ops %s: %s' % (name, rc2, rows2 == rows, err2))
        check("one case per line" not in err2, '%s compacted: warned of several lines: %s' % (name, err2))
        for k, line in enumerate(one):
            lone = os.path.join(tmp, 'case%d-%s' % (k, name))
            open(lone, 'w').write(line + '\n')
            rc3, rows3, err3 = ops(lone)
            check(rc3 == 0 and 'CASE' in rows3[0], '%s case %d alone: exit %d %s' % (name, k, rc3, err3))
    # the static and the dynamic case alone, as YAML documents
    for text in ('id: T1\nturns:\n  - input: Hello\n    assertions: [{type: contains, value: Hi}]\n',
                 'id: T2\nsimulator: {use: sim}\ncheckpoints:\n  - {id: a, assertion: {type: contains, value: x}}\n'):
        y = os.path.join(tmp, 'case.yaml')
        open(y, 'w').write(text)
        rc, rows, err = ops(y)
        # taken for a Yao case (not a playbook, not a scenario without a
        # timeline), which is JSON: said at its first line
        check(rc == 1 and ":1:1: error: expected a JSON object ('{')" in err, 'a case as YAML: %s' % err)
print('%d spec files: %s' % (len(WANT), 'FAILED' if failures else 'ok'))
sys.exit(1 if failures else 0)
