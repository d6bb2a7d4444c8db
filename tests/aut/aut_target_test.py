#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""aut_target_test.py SCC SCVM WORK - `scvm run -t aut` (docs/aut.md): a
compiled Yao suite and a compiled ElizaOS scenario played against agents
that `scvm serve llm` (HTTP) and `scvm serve acp` (ACP on stdio) script.

  - Yao over HTTP: a case that passes, one whose tool check fails, one
    whose validator verdict is not on the tape (skipped, with the key and
    the request to record it under), one whose text check fails; exit 1 and
    the totals; the missing verdict recorded with `scvm tape add` from the
    event's own request, and the rerun passes that case;
  - each case its own conversation (the server sees one session per case);
  - ElizaOS over ACP: string_contains case-insensitively, trajectory by the
    agent's own tool call, file_exists in --workspace, llm_judge from the
    tape; a code step run with its language in the workspace, its output
    judged;
  - dialogues: a Yao dynamic case (checkpoints with `after`, in order) and
    an ElizaOS conversation (turn and final checks, ended by the user's
    satisfaction) play their simulated user from the tape: skipped with
    the request when it lacks the reply, played to a pass once
    `scvm tape add` records it; a simulator claiming the goal too early
    fails the case, as in Yao;
  - usage and input errors: no agent (2), --tape without -t aut (2), a
    tape that cannot be read (3) or is malformed (4), an agent that cannot
    be reached (the case errs, exit 1).
"""
import json
import os
import re
import shutil
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import failures, say as expect  # noqa: E402

SCC, SCVM, WORK = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)


def write(name, text):
    p = os.path.join(WORK, name)
    open(p, 'w').write(text)
    return p


def scc(*a):
    subprocess.run([SCC, *a], check=True, cwd=WORK)


def scvm(*a, env=None):
    return subprocess.run([SCVM, *a], capture_output=True, text=True, cwd=WORK, timeout=120, env=env)


def events(out):
    return [json.loads(l) for l in out.splitlines() if l.startswith('{')]


# ---------- Yao over HTTP ----------
write('cases.jsonl', '\n'.join([
    '{"id": "greet", "input": "Hello", "assert": {"type": "regex", "value": "(?i)(hi|hello)"}}',
    '{"id": "total", "input": "What did I spend?", "assert": [{"type": "json_path", "path": "$.total", "value": 40},'
    ' {"type": "tool_called", "value": "expenses"}]}',
    '{"id": "polite", "input": "Be nice", "assert": {"type": "agent", "use": "agents:judge", "value": "is it polite?"}}',
    '{"id": "wrong", "input": "Say bye", "assert": {"type": "contains", "value": "goodbye"}}']) + '\n')
agents = []
for name, prompt, answer, extra in (
        ('greet_agent', 'Hello', 'Hi there!', ''),
        ('total_agent', 'What did I spend?', '{"total": 40}',
         "  - agentActions:\n      - readFile:\n          path: 'expenses.csv'\n          result: 'x'\n"
         "          status: 'ok'\n"),
        ('polite_agent', 'Be nice', 'Of course, thank you!', ''),
        ('bye_agent', 'Say bye', 'See you.', '')):
    agents.append(write(name + '.yaml', "name: %s\ntimeline:\n  - userInputs:\n      - [0, '%s']\n"
                        "  - llmResponse:\n      - assistant:\n          - [0, '%s']\n%s" % (name, prompt, answer, extra)))
scc('-o', 'cases.scb', 'cases.jsonl')
scc('--pack', '-o', 'agents.scp', *agents)
# --loop: the second run's conversations start over, as a live agent's would
srv = subprocess.Popen([SCVM, 'serve', 'llm', '--listen', '127.0.0.1:0', '--speed', '0', '--loop', 'agents.scp'], cwd=WORK,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
url = srv.stdout.readline().strip().split('listening on ')[-1] + '/v1'
try:
    p = scvm('run', '-t', 'aut', '--agent-url', url, 'cases.scb')
    ev = events(p.stdout)
    res = {e['id']: e for e in ev if e['kind'] == 'case_result'}
    expect(p.returncode == 1 and p.stderr.endswith('1 passed, 2 failed, 1 skipped\n'), 'exit 1 and the totals: %r'
           % p.stderr[-200:])
    expect([res[k]['verdict'] for k in ('greet', 'total', 'polite', 'wrong')] ==
           ['passed', 'failed', 'skipped', 'failed'], 'the four verdicts: %s' % res)
    expect('tool expenses was not called' in res['total']['why'] and res['total']['why'].startswith('line 2:'),
           'the failed check names its line: %s' % res['total'])
    turns = [e for e in ev if e['kind'] == 'turn']
    expect(turns[1]['actions'] == [{'name': 'readFile', 'input': '{"path":"expenses.csv"}'}],
           'the agent\'s tool call is the turn\'s action: %s' % turns[1])
    skipped = [e for e in ev if e['kind'] == 'check' and e['verdict'] == 'skipped']
    expect(len(skipped) == 1 and skipped[0]['tape_kind'] == 'yao_validator' and len(skipped[0]['tape_key']) == 64,
           'the skipped check names the tape entry it needs: %s' % skipped)
    expect('\u25ba [total] What did I spend?' in p.stderr and 'FAILED' in p.stderr and
           p.stderr.count('\n\u274c TESTS FAILED\n') == 1, "Yao's console report: %r" % p.stderr[:300])
    # the reports: Yao's result records, JUnit; --fail-fast; --dry-run
    p = scvm('run', '-t', 'aut', '--agent-url', url, '--results', 'res.jsonl', '--junit', 'j.xml', '--run-json',
             'run.json', 'cases.scb')
    rj = json.load(open(os.path.join(WORK, 'run.json')))
    expect(rj['status'] == 'failed' and rj['via'] == 'http' and rj['summary']['total'] == 4 and
           [c['id'] for c in rj['cases']] == ['greet', 'total', 'polite', 'wrong'] and rj['cases'][0]['status'] ==
           'passed', 'run.json: %s' % {k: rj[k] for k in ('status', 'via', 'summary')})
    recs = [json.loads(l) for l in open(os.path.join(WORK, 'res.jsonl'))]
    expect([r['type'] for r in recs] == ['start', 'result', 'result', 'result', 'result', 'summary'] and
           recs[0]['total_cases'] == 4 and [r['status'] for r in recs[1:5]] == ['passed', 'failed', 'skipped', 'failed']
           and recs[1]['output'] == 'Hi there!' and recs[5]['passed'] == 1 and recs[5]['failed'] == 2 and
           recs[5]['skipped'] == 1, 'the result records: %s' % recs)
    jx = open(os.path.join(WORK, 'j.xml')).read()
    expect('tests="4" failures="2" errors="0" skipped="1"' in jx and jx.count('<testcase ') == 4 and
           '<failure message="line 4: the response does not contain' in jx, 'JUnit: %s' % jx[:300])
    p = scvm('run', '-t', 'aut', '--agent-url', url, '--fail-fast', 'cases.scb')
    res = [e['verdict'] for e in events(p.stdout) if e['kind'] == 'case_result']
    expect(res == ['passed', 'failed', 'skipped', 'skipped'] and 'earlier case failed (--fail-fast)' in p.stderr,
           '--fail-fast: %s' % res)
    p = scvm('run', '-t', 'aut', '--dry-run', 'cases.scb')
    ev = events(p.stdout)
    expect(p.returncode == 0 and len([e for e in ev if e['kind'] == 'check']) == 5 and
           all(e['verdict'] == 'skipped' for e in ev if e['kind'] == 'case_result') and
           '--dry-run: 4 cases listed, none run' in p.stderr, '--dry-run lists without an agent: %s' % p.stderr[-200:])
    # -j: each case in a process of its own, the output in case order as
    # one at a time gives it (times aside); --fail-fast the same; --shard
    # splits the suite's cases; --parallel is Yao's name for -j
    def norm(out):
        return [{k: v for k, v in e.items() if k not in ('at_ms', 'ms', 'duration_ms')} for e in events(out)]

    def console(err):
        return re.sub(r'\(\d+ms\)', '(-ms)', err)
    one = scvm('run', '-t', 'aut', '--agent-url', url, '--results', 'r1.jsonl', '--junit', 'j1.xml', 'cases.scb')
    par = scvm('run', '-t', 'aut', '--agent-url', url, '-j', '4', '--results', 'r4.jsonl', '--junit', 'j4.xml',
               'cases.scb')
    expect(par.returncode == one.returncode == 1 and norm(par.stdout) == norm(one.stdout) and
           len(norm(one.stdout)) > 8 and console(par.stderr) == console(one.stderr),
           '-j 4 gives the events and the console report of one at a time: %r' % par.stderr[-300:])

    def recs(name):
        def timeless(r):    # durations, the records' and their turns', differ run to run
            r = {k: v for k, v in r.items() if k != 'duration_ms'}
            if 'turns' in r:
                r['turns'] = [{k: v for k, v in t.items() if k != 'duration_ms'} for t in r['turns']]
            return r
        return [timeless(json.loads(l)) for l in open(os.path.join(WORK, name))]

    def junit(name):
        return re.sub(r'time="[0-9.]+"', '', open(os.path.join(WORK, name)).read())
    expect(recs('r4.jsonl') == recs('r1.jsonl') and junit('j4.xml') == junit('j1.xml'),
           '-j 4: the same result records and JUnit')
    p = scvm('run', '-t', 'aut', '--agent-url', url, '--parallel', '3', '--fail-fast', 'cases.scb')
    res = [e['verdict'] for e in events(p.stdout) if e['kind'] == 'case_result']
    expect(res == ['passed', 'failed', 'skipped', 'skipped'] and p.stderr.endswith('1 passed, 1 failed, 2 skipped\n'),
           '--parallel 3 --fail-fast: the cases after the failure are skipped, as one at a time: %s' % res)
    shards = []
    for i in (1, 2):
        p = scvm('run', '-t', 'aut', '--agent-url', url, '-j', '2', '--shard', '%d/2' % i, 'cases.scb')
        ev = events(p.stdout)
        shards.append([e['id'] for e in ev if e['kind'] == 'case_result'])
        expect(ev and ev[0]['kind'] == 'scenario' and [e['kind'] for e in ev].count('scenario') == 1,
               'shard %d/2 starts with the scenario\'s header: %s' % (i, ev[:1]))
    expect(shards == [['greet', 'polite'], ['total', 'wrong']], '--shard I/2 takes every other case: %s' % shards)
    p = scvm('run', '-t', 'aut', '--agent-url', url, '--shard', '1/2', '--timings', 'j1.xml', 'cases.scb')
    expect(p.returncode == 2 and '--timings' in p.stderr, '--timings is refused for -t aut: %s' % p.stderr)
    # record the verdict under the event's own request, then play again
    tape = os.path.join(WORK, 'verdicts.tape.jsonl')
    r = scvm('tape', 'add', tape, 'yao_validator', skipped[0]['tape_request'], '{"passed":true,"reason":"polite"}')
    expect(r.returncode == 0 and r.stdout.split()[0] == skipped[0]['tape_key'], 'tape add: %s %s' % (r.stdout,
                                                                                                   r.stderr))
    p = scvm('run', '-t', 'aut', '--agent-url', url, '--tape', tape, 'cases.scb')
    res = {e['id']: e for e in events(p.stdout) if e['kind'] == 'case_result'}
    expect(res.get('polite', {}).get('verdict') == 'passed' and p.stderr.endswith('2 passed, 2 failed, 0 skipped\n'),
           'with the verdict on the tape the case passes: %s' % p.stderr[-200:])
    # recording: the verdict the tape lacks asked once of a live judge (a
    # second scvm serve llm playing one), written into a new tape, then
    # replayed without the judge
    verdict = '{"passed": true, "reason": "polite enough"}'
    write('judge.yaml', "name: judge\ntimeline:\n  - userInputs:\n      - [0, '%s']\n  - llmResponse:\n"
          "      - assistant:\n          - [0, '%s']\n" % (skipped[0]['tape_request'].replace("'", "''"), verdict))
    scc('-o', 'judge.scb', 'judge.yaml')
    jsrv = subprocess.Popen([SCVM, 'serve', 'llm', '--listen', '127.0.0.1:0', '--speed', '0', 'judge.scb'], cwd=WORK,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    jurl = jsrv.stdout.readline().strip().split('listening on ')[-1] + '/v1'
    rec = os.path.join(WORK, 'recorded.tape.jsonl')
    try:
        p = scvm('run', '-t', 'aut', '--agent-url', url, '--record', '--judge-url', jurl, '--tape', rec, 'cases.scb')
    finally:
        jsrv.terminate()
        jsrv.communicate(timeout=10)
    res = {e['id']: e for e in events(p.stdout) if e['kind'] == 'case_result'}
    lines = open(rec).read().splitlines() if os.path.exists(rec) else []
    expect(res.get('polite', {}).get('verdict') == 'passed' and len(lines) == 2 and
           json.loads(lines[1])['reply'] == {'passed': True, 'reason': 'polite enough'} and
           'now holds 1 entry' in p.stderr, 'recorded: the judge asked once, its verdict on the new tape: %s %s'
           % (lines, p.stderr[-300:]))
    p = scvm('run', '-t', 'aut', '--agent-url', url, '--tape', rec, 'cases.scb')
    res = {e['id']: e for e in events(p.stdout) if e['kind'] == 'case_result'}
    expect(res.get('polite', {}).get('verdict') == 'passed', 'replayed from the recorded tape, no judge: %s' % res)
    # recording with -j: each case's process records into its own copy; the
    # new entries are merged into the one tape
    jsrv = subprocess.Popen([SCVM, 'serve', 'llm', '--listen', '127.0.0.1:0', '--speed', '0', 'judge.scb'], cwd=WORK,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    jurl = jsrv.stdout.readline().strip().split('listening on ')[-1] + '/v1'
    rec2 = os.path.join(WORK, 'recorded-j.tape.jsonl')
    try:
        p = scvm('run', '-t', 'aut', '--agent-url', url, '-j', '4', '--record', '--judge-url', jurl, '--tape', rec2,
                 'cases.scb')
    finally:
        jsrv.terminate()
        jsrv.communicate(timeout=10)
    expect(os.path.exists(rec2) and open(rec2).read() == open(rec).read() and 'now holds 1 entry' in p.stderr,
           'recorded with -j 4: the same tape: %s' % p.stderr[-300:])
    r = scvm('run', '-t', 'aut', '--agent-url', url, '--record', '--tape', rec, 'cases.scb')
    expect(r.returncode == 2 and 'all three' in r.stderr, '--record without --judge-url: %s' % r.stderr[:200])
finally:
    srv.terminate()
    _, log = srv.communicate(timeout=10)
sessions = sorted({l.split("session '")[1].split("'")[0] for l in log.splitlines() if "session '" in l})
expect(sessions == ['cases/greet', 'cases/polite', 'cases/total', 'cases/wrong'],
       'one conversation per case: %s' % sessions)

# ---------- ElizaOS over ACP ----------
write('triage.scenario.yaml', """name: 'Triages an issue'
description: 'The agent reads issue 42 and says what to do'
environment:
  type: local
setup:
  virtual_fs:
    notes.txt: 'triage rules: crashes are P1'
    sub/dir/more.txt: 'x'
run:
  - name: triage
    input: 'What should we do about issue 42?'
    evaluations:
      - type: string_contains
        value: 'p1'
      - type: trajectory_contains_action
        action: get_github_issue
      - type: file_exists
        path: notes.txt
      - type: llm_judge
        prompt: 'Did the agent prioritise the crash?'
        expected: 'yes'
  - name: check-notes
    lang: python3
    code: 'print(open("notes.txt").read())'
    evaluations:
      - type: regex_match
        pattern: 'P[0-9]'
judgment:
  strategy: all_pass
""")
write('triage_agent.yaml', """name: triage_agent
timeline:
  - userInputs:
      - [0, 'What should we do about issue 42?']
  - llmResponse:
      - assistant:
          - [0, 'It crashes on start: make it P1.']
  - agentToolUse:
      toolName: GET_GITHUB_ISSUE
      args: {number: 42}
      result: 'Crash on start'
      status: ok
""")
scc('-o', 'triage.scb', 'triage.scenario.yaml')
scc('-o', 'triage_agent.scb', 'triage_agent.yaml')
ws = os.path.join(WORK, 'ws')
os.makedirs(ws)
write('ws/notes.txt', 'triage rules: crashes are P1\n')
judge = json.dumps({"expected": "yes", "prompt": "Did the agent prioritise the crash?",
                    "response": "It crashes on start: make it P1."})
etape = os.path.join(WORK, 'judge.tape.jsonl')
scvm('tape', 'add', etape, 'llm_judge', judge, '{"overall_success":true,"confidence":0.9}')
p = scvm('run', '-t', 'aut', '--via', 'acp', '--workspace', ws, '--tape', etape, 'triage.scb', '--',
         SCVM, 'serve', 'acp', '--speed', '0', os.path.join(WORK, 'triage_agent.scb'))
ev = events(p.stdout)
checks = [(e['type'], e['verdict']) for e in ev if e['kind'] == 'check']
expect(checks == [('contains', 'passed'), ('trajectory_contains_action', 'passed'), ('file_exists', 'passed'),
                  ('llm_judge', 'passed'), ('regex', 'passed')], 'ElizaOS over ACP: every check: %s %s' % (checks,
                                                                                                      p.stderr))
res = {e['id']: e for e in ev if e['kind'] == 'case_result'}
code = [e for e in ev if e['kind'] == 'code']
expect(res.get('check-notes', {}).get('verdict') == 'passed' and code and code[0]['exit_code'] == 0 and
       code[0]['output'] == 'triage rules: crashes are P1\n\n', 'the code step runs python3 -c in the workspace, its '
       'output judged: %s %s' % (res.get('check-notes'), code))
expect(p.returncode == 0 and p.stderr.endswith('2 passed, 0 failed, 0 skipped\n'), 'exit 0: %s' % p.stderr[-300:])
expect(p.stderr.startswith('\u25b6\ufe0f RUNNING SCENARIO: Triages an issue\n\u2705 PASS: ') and
       'SCENARIO STATUS: \u2705 PASS\n' in p.stderr, "ElizaOS's console report: %r" % p.stderr[:400])

# virtual_fs: without --workspace the files are written into a fresh folder
# the checks (and the agent) work in, removed afterwards
# (a TMPDIR of its own: /tmp is shared with the tests running beside this
# one, whose scvm-aut-* folders come and go)
vtmp = os.path.join(WORK, 'vfs-tmp')
shutil.rmtree(vtmp, ignore_errors=True)
os.mkdir(vtmp)
p = scvm('run', '-t', 'aut', '--via', 'acp', '--tape', etape, 'triage.scb', '--',
         SCVM, 'serve', 'acp', '--speed', '0', os.path.join(WORK, 'triage_agent.scb'),
         env=dict(os.environ, TMPDIR=vtmp))
checks = [(e['type'], e['verdict']) for e in events(p.stdout) if e['kind'] == 'check']
expect(('file_exists', 'passed') in checks and p.returncode == 0, 'virtual_fs is the workspace: %s' % checks)
expect(os.listdir(vtmp) == [], 'and it is gone afterwards: %s' % os.listdir(vtmp))

# virtual_fs paths go through the one workspace path policy (scn_path_resolve):
# 'x/./y.txt' and 'a//b.txt' are inside the workspace and written as x/y.txt and
# a/b.txt (the pack-path rule aut used before refused them as "leaving the
# workspace"); '../escape.txt' is refused with the same words as before
def vfs_scenario(name, files):
    write(name + '.scenario.yaml', """name: '%s'
description: 'virtual_fs paths'
environment:
  type: local
setup:
  virtual_fs:
%s
run:
  - name: look
    input: 'What should we do about issue 42?'
    evaluations:
      - type: file_exists
        path: x/y.txt
      - type: file_exists
        path: a/b.txt
judgment:
  strategy: all_pass
""" % (name, ''.join("    '%s': 'hi'\n" % f for f in files)))
    scc('-o', name + '.scb', name + '.scenario.yaml')
    return scvm('run', '-t', 'aut', '--via', 'acp', name + '.scb', '--',
                SCVM, 'serve', 'acp', '--speed', '0', os.path.join(WORK, 'triage_agent.scb'))
p = vfs_scenario('vfs_plain', ['x/./y.txt', 'a//b.txt'])
checks = [(e['type'], e['verdict']) for e in events(p.stdout) if e['kind'] == 'check']
expect(checks == [('file_exists', 'passed'), ('file_exists', 'passed')] and p.returncode == 0,
       'virtual_fs x/./y.txt and a//b.txt are written plainly: %s %s' % (checks, p.stderr[-300:]))
p = vfs_scenario('vfs_escape', ['x/y.txt', 'a/b.txt', '../escape.txt'])
expect(p.returncode != 0 and "virtual_fs path '../escape.txt' refused: it leaves the workspace" in p.stderr,
       'virtual_fs ../escape.txt is refused: %d %s' % (p.returncode, p.stderr[-300:]))

# judgment any_pass: one evaluation passing is enough (ElizaOS's rule)
write('anypass.scenario.yaml', """name: 'Any will do'
description: 'one of two'
environment:
  type: local
setup:
  mocks:
    - service: github
      method: getIssue
      response: {title: 'crash'}
run:
  - name: triage
    input: 'What should we do about issue 42?'
    evaluations:
      - type: string_contains
        value: 'P1'
      - type: string_contains
        value: 'never said'
judgment:
  strategy: any_pass
""")
scc('-o', 'anypass.scb', 'anypass.scenario.yaml')
p = scvm('run', '-t', 'aut', '--via', 'acp', 'anypass.scb', '--',
         SCVM, 'serve', 'acp', '--speed', '0', os.path.join(WORK, 'triage_agent.scb'))
expect(p.returncode == 0 and 'SCENARIO STATUS: \u2705 PASS' in p.stderr and '\u274c FAIL: ' in p.stderr,
       'any_pass: one of two passes the scenario, exit 0: %s' % p.stderr[-300:])
expect('scvm: aut: Any will do: its 1 setup.mocks are not applied' in p.stderr,
       'the mocks that cannot apply are said to be left out: %s' % p.stderr[:300])
write('anypass2.scenario.yaml', open(os.path.join(WORK, 'anypass.scenario.yaml')).read().replace("'P1'", "'P7'"))
scc('-o', 'anypass2.scb', 'anypass2.scenario.yaml')
p = scvm('run', '-t', 'aut', '--via', 'acp', 'anypass2.scb', '--',
         SCVM, 'serve', 'acp', '--speed', '0', os.path.join(WORK, 'triage_agent.scb'))
expect(p.returncode == 1 and 'SCENARIO STATUS: \u274c FAIL' in p.stderr, 'any_pass: none passes, exit 1')

# ---------- dialogues: the simulated user's messages from the tape ----------
write('dyn.jsonl', '{"id": "order", "input": "I want a coffee", "simulator": {"use": "tests.simulator-agent", '
      '"options": {"metadata": {"persona": "in a hurry", "goal": "a medium latte"}}}, "checkpoints": [{"id": "size", '
      '"assert": {"type": "regex", "value": "(?i)size"}}, {"id": "confirm", "after": ["size"], "assert": '
      '{"type": "contains", "value": "confirm"}}], "max_turns": 4}\n')
write('chat.scenario.yaml', """name: 'Late order'
description: 'a customer whose order is late'
environment:
  type: local
run:
  - name: chat
    input: 'My order is late'
    evaluations:
      - type: string_contains
        value: 'do you want a refund'
    conversation:
      max_turns: 3
      user_simulator:
        persona: 'an annoyed customer'
        objective: 'get a refund'
      termination_conditions:
        - type: user_expresses_satisfaction
      turn_evaluations:
        - type: string_contains
          value: 'sorry'
      final_evaluations:
        - type: conversation_length
          min_turns: 2
        - type: user_satisfaction
          measurement_method: keyword_analysis
          indicators:
            positive: ['refund']
judgment:
  strategy: all_pass
""")
def two_turns(name, u1, a1, u2, a2):
    return write(name + '.yaml', "name: %s\ntimeline:\n  - userInputs:\n      - [0, '%s']\n  - llmResponse:\n"
                 "      - assistant:\n          - [0, '%s']\n  - userInputs:\n      - [10, '%s']\n"
                 "  - llmResponse:\n      - assistant:\n          - [0, '%s']\n" % (name, u1, a1, u2, a2))
scc('-o', 'dyn.scb', 'dyn.jsonl')
scc('-o', 'chat.scb', 'chat.scenario.yaml')
scc('--pack', '-o', 'talkers.scp',
    two_turns('barista', 'I want a coffee', 'What size?', 'Medium please', 'Medium latte, please confirm.'),
    two_turns('support', 'My order is late', 'Sorry about that. Do you want a refund?', 'Yes, a refund please',
              'Sorry again: your refund is resolved.'))
def talk(*args):
    """scvm run -t aut against a fresh server (a scripted agent answers the
    same conversation the same way only from its start)."""
    srv = subprocess.Popen([SCVM, 'serve', 'llm', '--listen', '127.0.0.1:0', '--speed', '0', 'talkers.scp'],
                           cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    turl = srv.stdout.readline().strip().split('listening on ')[-1] + '/v1'
    try:
        return scvm('run', '-t', 'aut', '--agent-url', turl, *args)
    finally:
        srv.terminate()
        srv.communicate(timeout=10)


dtape = os.path.join(WORK, 'users.tape.jsonl')
for scb, kind, reply, name in (('dyn.scb', 'yao_simulator', '{"message":"Medium please","goal_achieved":false}',
                                'Yao dynamic'),
                               ('chat.scb', 'user_simulator', '{"message":"Yes, a refund please"}',
                                'ElizaOS conversation')):
    p = talk('--tape', dtape if os.path.exists(dtape) else etape, scb)
    ev = events(p.stdout)
    sim = [e for e in ev if e['kind'] == 'simulator']
    res = [e for e in ev if e['kind'] == 'case_result']
    expect(len(sim) == 1 and sim[0]['verdict'] == 'skipped' and sim[0]['tape_kind'] == kind and
           res[-1]['verdict'] == 'skipped', '%s without the user\'s reply on the tape: skipped, with its key: %s'
           % (name, sim))
    if not sim:
        continue
    req = json.loads(sim[0]['tape_request'])
    expect(req['turn_number'] == 2 and req['conversation'][0]['content'] ==
           ('I want a coffee' if kind[0] == 'y' else 'My order is late'), 'the request: %s' % req)
    scvm('tape', 'add', dtape, kind, sim[0]['tape_request'], reply)
    p = talk('--tape', dtape, scb)
    ev = events(p.stdout)
    res = [e for e in ev if e['kind'] == 'case_result']
    turns = [e['input'] for e in ev if e['kind'] == 'turn']
    expect(res and res[-1]['verdict'] == 'passed' and len(turns) == 2 and p.returncode == 0,
           '%s with the reply on the tape: two turns, passed: %s %s' % (name, turns, res))
    checks = [(e.get('id') or e['type'], e['verdict']) for e in ev if e['kind'] == 'check']
    if kind[0] == 'y':
        expect(checks == [('size', 'passed'), ('confirm', 'passed')], 'the checkpoints, in order: %s' % checks)
    else:
        expect(checks == [('contains', 'passed'), ('contains', 'passed'), ('conversation_length', 'passed'),
                          ('user_satisfaction', 'passed'), ('contains', 'passed')],
               'turn checks each turn, the step\'s and the final ones once; ended by satisfaction: %s' % checks)
        tr = res[-1].get('transcript', '')
        expect(tr == 'Turn 1:\nUser: My order is late\nAgent: Sorry about that. Do you want a refund?\n\nTurn 2:\n'
                     'User: Yes, a refund please\nAgent: Sorry again: your refund is resolved.\n',
               "the step's evaluations judge the transcript, as ElizaOS's do (the first reply's words pass): %r" % tr)
        expect('\U0001f4ac CONVERSATION (chat):\nTurn 1:\nUser: My order is late\n' in p.stderr,
               'the console shows the conversation, as ElizaOS\'s summary does: %s' % p.stderr[:300])
# written in the scenario instead (scc's `script` and `verdict` extensions):
# no tape at all
write('dyn_inline.jsonl', '{"id": "order", "input": "I want a coffee", "simulator": {"use": "tests.simulator-agent", '
      '"script": ["Medium please"]}, "checkpoints": [{"id": "size", "assert": {"type": "regex", "value": "(?i)size"}}, '
      '{"id": "confirm", "after": ["size"], "assert": {"type": "contains", "value": "confirm"}}], "max_turns": 4}\n'
      '{"id": "judged", "input": "I want a coffee", "assert": {"type": "agent", "use": "agents:judge", '
      '"value": "asks the size", "verdict": {"passed": false, "reason": "written in"}}}\n')
write('chat_inline.scenario.yaml', open(os.path.join(WORK, 'chat.scenario.yaml')).read().replace(
    "        objective: 'get a refund'\n", "        objective: 'get a refund'\n        script: ['Yes, a refund please']\n")
    .replace("        - type: conversation_length\n", "        - type: llm_judge\n          prompt: 'Was it solved?'\n"
             "          expected: 'yes'\n          verdict: 'yes'\n        - type: conversation_length\n"))
scc('-o', 'dyn_inline.scb', 'dyn_inline.jsonl')
scc('-o', 'chat_inline.scb', 'chat_inline.scenario.yaml')
p = talk('dyn_inline.scb')
res = {e['id']: e for e in events(p.stdout) if e['kind'] == 'case_result'}
sims = [e for e in events(p.stdout) if e['kind'] == 'simulator']
expect(res.get('order', {}).get('verdict') == 'passed' and sims and sims[0].get('from') == 'script' and
       res.get('judged', {}).get('verdict') == 'failed' and 'written in' in res['judged']['why'],
       'Yao: the simulator script and the validator verdict written in, no tape: %s' % res)
p = talk('chat_inline.scb')
checks = [(e['type'], e['verdict']) for e in events(p.stdout) if e['kind'] == 'check']
expect(p.returncode == 0 and ('llm_judge', 'passed') in checks and len([c for c in checks if c[0] == 'contains']) == 3
       and ('user_satisfaction', 'passed') in checks,
       'ElizaOS: the user script and the judge verdict written in, no tape: %s %s' % (checks, p.stderr[-200:]))

# a Yao simulator that claims the goal before the checkpoints are reached
bad = os.path.join(WORK, 'eager.tape.jsonl')
p = talk('--tape', etape, 'dyn.scb')
req = [e for e in events(p.stdout) if e['kind'] == 'simulator'][0]['tape_request']
scvm('tape', 'add', bad, 'yao_simulator', req, '{"message":"done","goal_achieved":true}')
p = talk('--tape', bad, 'dyn.scb')
res = [e for e in events(p.stdout) if e['kind'] == 'case_result']
expect(res and res[-1]['verdict'] == 'failed' and 'goal achieved but not all required' in res[-1]['why'],
       'goal achieved too early fails, as Yao: %s' % res)

# ---------- errors ----------
r = scvm('run', '-t', 'aut', 'cases.scb')
expect(r.returncode == 2 and 'where is the agent' in r.stderr, 'no agent: %s' % r.stderr[:200])
r = scvm('run', '-t', 'aut', '--agent-url', url, '--report', 'rep', 'cases.scb')
expect(r.returncode == 2 and '--results, --run-json and --junit' in r.stderr, '--report with -t aut: %s' % r.stderr[:200])
r = scvm('run', '--tape', etape, 'cases.scb')
expect(r.returncode == 2 and 'needs --target aut' in r.stderr, '--tape without -t aut: %s' % r.stderr[:200])
r = scvm('run', '-t', 'aut', '--agent-url', url, '--tape', 'nope.jsonl', 'cases.scb')
expect(r.returncode == 3 and 'cannot read' in r.stderr, 'a missing tape: %s' % r.stderr[:200])
write('bad.tape.jsonl', '{"tape_version":9}\n')
r = scvm('run', '-t', 'aut', '--agent-url', url, '--tape', 'bad.tape.jsonl', 'cases.scb')
expect(r.returncode == 4 and 'bad.tape.jsonl:1:' in r.stderr, 'a malformed tape: %s' % r.stderr[:200])
r = scvm('run', '-t', 'aut', '--agent-url', url, 'cases.scb')      # the server is gone now
res = [e for e in events(r.stdout) if e['kind'] == 'case_result']
expect(r.returncode == 1 and all(e['verdict'] == 'error' and 'E_AUT_START' in e['why'] for e in res) and len(res) == 4,
       'an agent that cannot be reached: every case errs: %s' % res[:1])

# a Yao case's own timeout bounds its turns: Yao's "timeout" status
write('slow.jsonl', '{"id": "slow", "input": "Hello", "assert": {"type": "contains", "value": "hi"}, "timeout": "1s"}\n')
scc('-o', 'slow.scb', 'slow.jsonl')
import time
t0 = time.time()
p = scvm('run', '-t', 'aut', '--via', 'pty', '--results', 'slow.jsonl.res', 'slow.scb', '--', 'sh', '-c', 'read x; sleep 100')
took = time.time() - t0
recs = [json.loads(l) for l in open(os.path.join(WORK, 'slow.jsonl.res'))] if os.path.exists(os.path.join(WORK, 'slow.jsonl.res')) else []
expect(p.returncode == 1 and took < 10 and len(recs) == 3 and recs[1]['status'] == 'timeout' and
       "the case's timeout (1000 ms) ran out" in recs[1]['error'] and recs[2]['timeouts'] == 1,
       "a case's timeout ends it as Yao's timeout, in %.1f s: %s" % (took, recs[1:2]))

# a signal with -j: the cases' processes and their agents end, exit 128+15
import signal
import time
marker = '977.%d' % os.getpid()
p = subprocess.Popen([SCVM, 'run', '-t', 'aut', '-j', '2', '--via', 'pty', 'cases.scb', '--', 'sh', '-c',
                      'read x; exec sleep "$0"', marker], cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True)
deadline = time.time() + 20
while time.time() < deadline and subprocess.run(['pgrep', '-f', 'sleep ' + marker],
                                               capture_output=True).stdout.count(b'\n') < 2:
    time.sleep(0.1)
started = subprocess.run(['pgrep', '-f', 'sleep ' + marker], capture_output=True).stdout.count(b'\n')
t0 = time.time()
p.send_signal(signal.SIGTERM)
out, err = p.communicate(timeout=30)
time.sleep(0.3)
left = subprocess.run(['pgrep', '-f', 'sleep ' + marker], capture_output=True).stdout
expect(started == 2 and p.returncode == 143 and time.time() - t0 < 10 and not left,
       'SIGTERM under -j 2: two agents were running, exit %d after %.1f s, none left: %r %r' %
       (p.returncode, time.time() - t0, left, err[-300:]))

if failures:
    print('%d failure(s)' % len(failures))
    sys.exit(1)
print('ElizaOS and Yao suites play against agents over HTTP and ACP, judged, with tapes')
