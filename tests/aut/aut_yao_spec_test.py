#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""aut_yao_spec_test.py SCC SCVM SPEC_DIR WORK - issue 33 item 7: what the
Yao specification's own cases say reaches the agent and the report
(docs/yao.md, "What reaches the agent", "Results").

Cases from SPEC_DIR (tests/yao-spec, copied from yao-agent-test-v2.md)
played by `scvm run -t aut` against agents that `scvm serve llm` scripts;
its request journal (GET /__scvm/requests) says what each request carried:

  - the static case's `options` (connector, skip) in every request's body,
    as "options"; -c replaces the connector; a turn's options over the
    case's, key by key (metadata merged);
  - the options example's metadata as the request's "metadata";
  - the attachments example's turn: the user message a list of content
    parts, the text first, then the image part as written; the next turn
    plain text;
  - --results: per case `name`, `total_turns`, `turns[]` (input,
    input_source, output, tool_calls with args, awaiting_input and its
    reason, the turn's assertions with passed) and final_assertions;
  - the console: the case's name and turn count; with -v the turn tree;
  - the dynamic case (no input of its own): the simulator's first message
    is the first turn (input_source initial), the later ones simulated.
"""
import json
import os
import shutil
import subprocess
import sys
import urllib.request
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import failures, expect  # noqa: E402

SCC, SCVM, SPEC, WORK = sys.argv[1:5]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def write(name, text):
    p = os.path.join(WORK, name)
    open(p, 'w').write(text)
    return p


def run(*a, **kw):
    return subprocess.run(list(a), capture_output=True, text=True, cwd=WORK, timeout=120, **kw)


def agent(name, turns):
    """(user, answer, tool or None) a turn."""
    t = ''
    for i, (u, a, tool) in enumerate(turns):
        t += "  - userInputs:\n      - [%d, '%s']\n  - llmResponse:\n      - assistant:\n          - [0, '%s']\n" % (
            i * 10, u.replace("'", "''"), a.replace("'", "''"))
        if tool:
            t += ("  - agentToolUse:\n      toolName: '%s'\n      args:\n        amount: 3500\n"
                  "      result: 'ok'\n      status: 'ok'\n" % tool)
    return write(name + '.yaml', 'name: %s\ntimeline:\n%s' % (name, t))


for f in ('static.jsonl', 'attachments.jsonl', 'options.jsonl', 'dynamic.jsonl'):
    shutil.copy(os.path.join(SPEC, f), WORK)
    p = run(SCC, '-o', f.replace('.jsonl', '.scb'), f)
    expect(p.returncode == 0, 'scc %s: %s' % (f, p.stderr))

agents = [
    agent('expense', [('I want to submit an expense report', 'What type of expense would you like to submit?', None),
                      ('Business travel to Beijing, $3500', 'Creating it now.', 'create_expense'),
                      ('Yes, confirm', 'Expense submitted. Reference: EXP-2025-001', None)]),
    agent('receipt', [('I want to submit an expense with receipt', 'Got the receipt. How much was it?', None),
                      ('The amount is $150', 'Thanks, filed.', None)]),
    agent('hello', [('Hello', 'Hi!', None)]),
    agent('twice', [('one', 'uno', None), ('two', 'dos', None)]),
    agent('po', [('Submit $100,000 equipment purchase', 'This requires manager approval. Please provide PO number?',
                  None), ('PO-7731', 'Thanks, submitted.', None)]),
    agent('coverage', [('Hi, I need to file an expense', 'Sure: what type of expense is it?', None),
                       ('Travel, $3500', 'Filing it.', 'create_expense'),
                       ('Please confirm', 'Your expense is submitted.', None)]),
]
p = run(SCC, '--pack', '-o', 'agents.scp', *agents)
expect(p.returncode == 0, 'agents pack: %s' % p.stderr)
srv = subprocess.Popen([SCVM, 'serve', 'llm', '--listen', '127.0.0.1:0', '--speed', '0', '--loop', 'agents.scp'], cwd=WORK,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
base = srv.stdout.readline().strip().split('listening on ')[-1]
url = base + '/v1'


def journal():
    with urllib.request.urlopen(base + '/__scvm/requests', timeout=10) as r:
        reqs = json.loads(r.read())['requests']
    urllib.request.urlopen(urllib.request.Request(base + '/__scvm/requests', method='DELETE'), timeout=10).read()
    return [json.loads(q['body']) for q in reqs if q['method'] == 'POST']


try:
    # ---- the static case: options in every request, per-turn results, the console ----
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '--results', 'static.results.jsonl', '-v', 'static.scb')
    expect(p.returncode == 0, 'static case passes: %s' % p.stderr)
    bodies = journal()
    expect(len(bodies) == 3 and all(b.get('options') == {'connector': 'openai-gpt4', 'skip': {'history': True}}
                                    for b in bodies),
           'the case options reach the agent in each of its 3 requests: %s' % [b.get('options') for b in bodies])
    recs = [json.loads(l) for l in open(os.path.join(WORK, 'static.results.jsonl'))]
    res = [r for r in recs if r.get('type') == 'result']
    r = res[0] if res else {}
    turns = r.get('turns', [])
    expect(r.get('name') == 'Expense Reimbursement - Happy Path' and r.get('total_turns') == 3 and len(turns) == 3,
           'results: name and 3 turns: %s' % r)
    expect([t.get('input_source') for t in turns] == ['static'] * 3 and
           [t.get('turn') for t in turns] == [1, 2, 3], 'turn numbers and sources: %s' % turns)
    expect(turns and turns[0].get('awaiting_input') is True and turns[0].get('awaiting_reason') == 'content_is_question'
           and turns[2].get('awaiting_input') is False,
           'awaiting_input: the question awaits, the confirmation does not: %s' % [
               (t.get('awaiting_input'), t.get('awaiting_reason')) for t in turns])
    expect(len(turns) > 1 and turns[1].get('tool_calls') and turns[1]['tool_calls'][0]['name'] == 'create_expense' and
           turns[1]['tool_calls'][0]['args'] == {'amount': 3500}, 'tool_calls with args: %s' % turns[1:2])
    expect(all(len(t.get('assertions', [])) == 1 and t['assertions'][0]['passed'] is True for t in turns) and
           turns[0]['assertions'][0]['type'] == 'contains' and turns[0]['assertions'][0]['value'] == 'type of expense',
           'each turn its own assertion, passed: %s' % [t.get('assertions') for t in turns])
    expect('[T001] Expense Reimbursement - Happy Path (3 turns)' in p.stderr, 'console: the name: %s' % p.stderr)
    expect('\u251c\u2500 Turn 2: "Business travel to Beijing, $3500" \u2192 PASSED' in p.stderr and
           'Agent: [tool: create_expense]' in p.stderr and '\u2514\u2500 Result: passed' in p.stderr,
           '-v: the turn tree: %s' % p.stderr)
    p2 = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, 'static.scb')
    expect(p2.returncode == 0 and 'Turn 1' not in p2.stderr, 'without -v no tree: %s' % p2.stderr)
    journal()

    # ---- -c: the connector over the case's ----
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '-c', 'local-llama', 'static.scb')
    bodies = journal()
    expect(p.returncode == 0 and bodies and all(b['options']['connector'] == 'local-llama' and
                                                b['options']['skip'] == {'history': True} for b in bodies),
           '-c replaces the connector: %s %s' % ([b.get('options') for b in bodies], p.stderr))

    # ---- the options example: metadata as the request's metadata ----
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, 'options.scb')
    bodies = journal()
    expect(len(bodies) == 1 and bodies[0].get('metadata') == {'scenario': 'edge-case'} and
           bodies[0]['options']['skip'] == {'history': True}, 'options metadata: %s' % bodies)

    # ---- a turn's options over the case's, key by key, metadata merged ----
    write('perturn.jsonl', json.dumps({'id': 'per-turn', 'options': {'connector': 'a', 'metadata': {'x': 1, 'y': 2}},
                                       'turns': [{'input': 'one'},
                                                 {'input': 'two', 'options': {'connector': 'b',
                                                                              'metadata': {'y': 3}}}]}) + '\n')
    run(SCC, '-Wno-yao-ignored', '-Wno-empty-case', '-o', 'perturn.scb', 'perturn.jsonl')
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, 'perturn.scb')
    bodies = journal()
    expect(p.returncode == 0 and [b.get('options') for b in bodies] == [
        {'connector': 'a', 'metadata': {'x': 1, 'y': 2}}, {'connector': 'b', 'metadata': {'x': 1, 'y': 3}}] and
        bodies[1].get('metadata') == {'x': 1, 'y': 3},
        "turn options over the case's: %s %s" % ([b.get('options') for b in bodies], p.stderr))

    # ---- attachments: content parts on their turn only ----
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '--results', 'att.results.jsonl', 'attachments.scb')
    bodies = journal()
    expect(p.returncode == 0 and len(bodies) == 2, 'attachments case: %s %s' % (p.stderr, bodies))
    if len(bodies) == 2:
        first = bodies[0]['messages'][-1]
        expect(first['role'] == 'user' and first['content'] == [
            {'type': 'text', 'text': 'I want to submit an expense with receipt'},
            {'type': 'image', 'source': 'file://./tests/fixtures/receipt.jpg'}],
            'turn 1: the text and the attachment as content parts: %s' % first)
        expect(bodies[1]['messages'][-1] == {'role': 'user', 'content': 'The amount is $150'} and
               bodies[1]['messages'][0] == first, 'turn 2: plain text, turn 1 kept in the history: %s' % bodies[1])
    expect('Receipt Upload Flow (2 turns)' in p.stderr, 'console name: %s' % p.stderr)

    # ---- the dynamic case without input: its simulator's first message ----
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, 'dynamic.scb')
    ev = [json.loads(l) for l in p.stdout.splitlines() if l.startswith('{')]
    sims = [e for e in ev if e['kind'] == 'simulator']
    expect(sims and sims[0].get('turn') == 1 and sims[0].get('verdict') == 'skipped' and
           json.loads(sims[0]['tape_request'])['conversation'] == [] and not [e for e in ev if e['kind'] == 'turn'],
           'dynamic, no input: the simulator is asked for turn 1 first (not on the tape: skipped): %s' % ev)
    # the same case with its simulator's turns written in (scc's `script`)
    case = json.loads(json.dumps(json.load(open(os.path.join(SPEC, 'dynamic.jsonl')))))
    case['simulator']['script'] = ['Hi, I need to file an expense', 'Travel, $3500', 'Please confirm']
    write('dyn2.jsonl', json.dumps(case) + '\n')
    run(SCC, '-o', 'dyn2.scb', 'dyn2.jsonl')
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '--results', 'dyn.results.jsonl', '-v', 'dyn2.scb')
    res = [json.loads(l) for l in open(os.path.join(WORK, 'dyn.results.jsonl')) if '"result"' in l]
    turns = res[0]['turns'] if res else []
    expect(p.returncode == 0 and [t['input_source'] for t in turns] == ['initial', 'simulated', 'simulated'] and
           turns[0]['input'] == 'Hi, I need to file an expense' and res[0]['total_turns'] == 3,
           'dynamic: the first message from the simulator, then simulated turns: %s %s' % (turns, p.stderr))
    expect([[a['id'] for a in t['assertions']] for t in turns] == [['ask_type'], ['call_create'], ['confirm_submit']],
           'each checkpoint recorded at the turn it was reached: %s' % [t.get('assertions') for t in turns])
    expect('Turn 1: [Initial] "Hi, I need to file an expense"' in p.stderr and
           'Turn 2: [Simulated] "Travel, $3500"' in p.stderr, '-v: initial and simulated turns: %s' % p.stderr)
    journal()

    # ---- Yao's -i: a message is a case; generators cannot run here ----
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '--results', 'inline.jsonl', '-i', 'Hello')
    bodies = journal()
    expect(p.returncode == 0 and len(bodies) == 1 and bodies[0]['messages'][-1]['content'] == 'Hello' and
           '[inline] Hello' in p.stderr, '-i MESSAGE: one case: %s %s' % (p.stderr, bodies))
    for gen in ('agents:workers.test.generator?count=10', 'scripts:tests.generate'):
        p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '-i', gen)
        expect(p.returncode == 2 and 'generators cannot run here' in p.stderr, '-i %s: %s' % (gen, p.stderr))
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '-i', 'static.scb', '--timeout', '2m')
    expect(p.returncode == 0 and 'T001' in p.stderr, '-i FILE and --timeout 2m: %s' % p.stderr)
    # Yao's own form: -i the specification's file itself, compiled in memory
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '-i', 'static.jsonl')
    expect(p.returncode == 0 and '[T001] Expense Reimbursement - Happy Path (3 turns)' in p.stderr,
           '-i tests.jsonl as Yao takes it: %s' % p.stderr)
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '--timeout', 'soon', 'static.scb')
    expect(p.returncode == 2 and "invalid --timeout 'soon'" in p.stderr, '--timeout soon: %s' % p.stderr)
    journal()

    # ---- the agent awaits input and the case has none left ----
    # (a file each: each run its own conversation with the scripted agent)
    for k in ('skip', 'fail', 'human'):
        write('ask_%s.jsonl' % k, '{"id": "ask", "input": "Submit $100,000 equipment purchase"}\n')
        run(SCC, '-Wno-empty-case', '-o', 'ask_%s.scb' % k, 'ask_%s.jsonl' % k)
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', base + '/s/po/v1', '--on-missing-input=skip', 'ask_skip.scb')
    expect(p.returncode == 1 and 'SKIPPED' in p.stderr and 'no next turn defined' in p.stderr,
           '--on-missing-input=skip: %s' % p.stderr)
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', base + '/s/po/v1', '--on-missing-input=fail', 'ask_fail.scb')
    expect(p.returncode == 1 and 'FAILED' in p.stderr, '--on-missing-input=fail: %s' % p.stderr)
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', base + '/s/po/v1', '--interactive', '--on-missing-input=fail',
            '--results', 'human.jsonl', 'ask_human.scb', input='PO-7731\n')
    res = [json.loads(l) for l in open(os.path.join(WORK, 'human.jsonl')) if '"result"' in l]
    expect(p.returncode == 0 and res and [t['input_source'] for t in res[0]['turns']] == ['static', 'human'],
           '--interactive: the human answers the question: %s %s' % (p.stderr, res))
    write('inter.jsonl', '{"id": "h", "input": "Hello", "interactive": {"enabled": true}}\n')
    run(SCC, '-Wno-empty-case', '-Wno-yao-ignored', '-o', 'inter.scb', 'inter.jsonl')
    p = run(SCVM, 'run', '-t', 'aut', '--agent-url', url, '--skip-interactive', 'inter.scb')
    expect(p.returncode == 0 and 'SKIPPED' in p.stderr and '--skip-interactive' in p.stderr,
           '--skip-interactive: %s' % p.stderr)
finally:
    srv.terminate()
    srv.communicate(timeout=10)

if failures:
    print('%d failure(s)' % len(failures))
    sys.exit(1)
print("the specification's cases: options, metadata and attachments reach the agent; results per turn")
