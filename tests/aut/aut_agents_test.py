#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""aut_agents_test.py SCC SCVM NODE_MODULES WORK - `scvm run -t aut --via pty
--agent claude-code` (docs/aut.md, "A real agent's TUI"): Claude Code, as
npm installs it at its pinned version, typed into in a PTY from its shipped
profile, talking to `scvm serve llm` (the model, one scenario per case by
the URL's {case}), judged by what it printed and what it did.

  - a Yao suite, -j 2: the case whose scripted answer holds the expected
    text passes, the one whose answer does not fails (exit 1); the reply is
    the rows the turn added to the screen, without the echo of the input;
  - an ElizaOS scenario: the model has Claude run a command (its Bash
    tool) that writes a file; file_exists finds it in the scenario's
    virtual_fs workspace, string_contains the final answer, and a code step
    after reads what it holds;
    exit 0; the mock's tool-result check agrees;
  - afterwards no Claude process and no HOME of ours is left;
  - usage errors: --agent without --model-url, --agent over ACP.
"""
import json
import os
import platform
import shutil
import subprocess
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import failures, say as expect  # noqa: E402

SCC, SCVM, NM, WORK = sys.argv[1:5]
ARCH = {'x86_64': 'x64', 'aarch64': 'arm64'}.get(platform.machine(), platform.machine())
BIN = os.path.join(NM, '@anthropic-ai', 'claude-code-linux-' + ARCH, 'claude')
shutil.rmtree(WORK, ignore_errors=True)
TMP = os.path.join(WORK, 'tmp')
os.makedirs(TMP)


def write(name, text):
    p = os.path.join(WORK, name)
    open(p, 'w').write(text)
    return p


def events(out):
    return [json.loads(l) for l in out.splitlines() if l.startswith('{')]


if not os.access(BIN, os.X_OK):
    print('FAIL: Claude Code is not installed at %s (agents.npm_ci installs it)' % BIN)
    sys.exit(1)
ENV = dict(os.environ, TMPDIR=TMP, LANG='C.UTF-8')

# the model: a scenario per case, named as the case
write('greet.yaml', "name: greet\ntimeline:\n  - userInputs:\n      - [0, 'Hello']\n  - llmResponse:\n"
      "      - assistant:\n          - [0, 'Hi there from the mock']\n")
write('bye.yaml', "name: bye\ntimeline:\n  - userInputs:\n      - [0, 'Say goodbye']\n  - llmResponse:\n"
      "      - assistant:\n          - [0, 'Farewell, see you']\n")
write('make-file.yaml', """name: make-file
timeline:
  - userInputs:
      - [0, 'Create hello.txt saying hi']
  - llmResponse:
      - assistant:
          - [0, 'I will create it.']
  - agentToolUse:
      toolName: runCmd
      args:
        cmd: "printf 'hi from claude\\\\n' > hello.txt && echo created"
      result: created
  - llmResponse:
      - assistant:
          - [0, 'Done: hello.txt is in place.']
""")
subprocess.run([SCC, '--pack', '-o', os.path.join(WORK, 'model.scp'), 'greet.yaml', 'bye.yaml', 'make-file.yaml'],
               check=True, cwd=WORK)
srv = subprocess.Popen([SCVM, 'serve', 'llm', '--listen', '127.0.0.1:0', '--speed', '0', '--agent', 'claude-code',
                        'model.scp'], cwd=WORK, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
url = srv.stdout.readline().strip().split('listening on ')[-1] + '/s/{case}'


def aut(*a):
    return subprocess.run([SCVM, 'run', '-t', 'aut', '--via', 'pty', '--agent', 'claude-code', '--agent-bin', BIN,
                           '--model-url', url, '--turn-timeout', '120000', *a], capture_output=True, text=True,
                          cwd=WORK, env=ENV, timeout=600)


try:
    # ---------- Yao ----------
    write('cases.jsonl', '{"id": "greet", "input": "Hello", "assert": {"type": "contains", "value": '
          '"Hi there from the mock"}}\n{"id": "bye", "input": "Say goodbye", "assert": {"type": "contains", '
          '"value": "goodbye"}}\n')
    subprocess.run([SCC, '-o', 'cases.scb', 'cases.jsonl'], check=True, cwd=WORK)
    os.makedirs(os.path.join(WORK, 'ws'))
    p = aut('-j', '2', '--workspace', 'ws', '--results', 'res.jsonl', 'cases.scb')
    ev = events(p.stdout)
    res = {e['id']: e['verdict'] for e in ev if e['kind'] == 'case_result'}
    turns = {e['input']: e for e in ev if e['kind'] == 'turn'}
    expect(p.returncode == 1 and res == {'greet': 'passed', 'bye': 'failed'},
           'Yao against Claude Code: the right answer passes, the wrong one fails: %s %s' % (res, p.stderr[-400:]))
    g = turns.get('Hello', {}).get('text', '')
    expect(g.startswith('\u25cf Hi there from the mock\n') and 'Hello' not in g,
           "the reply is the screen's new rows, the input's echo left out: %r" % g)
    expect('Farewell, see you' in turns.get('Say goodbye', {}).get('text', ''), 'each case reached its own '
           'scenario ({case} in the URL): %r' % turns.get('Say goodbye'))
    recs = [json.loads(l) for l in open(os.path.join(WORK, 'res.jsonl'))]
    expect([r['status'] for r in recs if r['type'] == 'result'] == ['passed', 'failed'],
           "Yao's result records: %s" % recs)

    # ---------- ElizaOS: a side effect judged ----------
    write('make.scenario.yaml', """name: 'Claude makes a file'
description: 'The agent runs a command that writes hello.txt'
environment:
  type: local
setup:
  virtual_fs:
    README.md: 'a workspace for the agent'
run:
  - name: make-file
    input: 'Create hello.txt saying hi'
    evaluations:
      - type: file_exists
        path: hello.txt
      - type: string_contains
        value: 'hello.txt is in place'
  - name: read-it
    code: 'cat hello.txt'
    evaluations:
      - type: string_contains
        value: 'hi from claude'
judgment:
  strategy: all_pass
""")
    subprocess.run([SCC, '-o', 'make.scb', 'make.scenario.yaml'], check=True, cwd=WORK)
    p = aut('make.scb')
    ev = events(p.stdout)
    checks = [(e['type'], e['verdict']) for e in ev if e['kind'] == 'check']
    expect(p.returncode == 0 and checks == [('file_exists', 'passed'), ('contains', 'passed'),
                                            ('contains', 'passed')] and 'SCENARIO STATUS: \u2705 PASS' in p.stderr,
           'ElizaOS: Claude ran the command, the file is judged in the workspace: %s %s' % (checks, p.stderr[-400:]))
finally:
    srv.terminate()
    _, log = srv.communicate(timeout=10)
expect('tool results: 1 checked, 0 mismatched' in log, "the mock checked Claude's tool result: %s" %
       [l for l in log.splitlines() if 'tool results' in l])


def ours():
    """Claude processes of this test: its binary, with this test's TMP in
    their environment (TMPDIR, or a HOME below it: another test may run the
    same binary meanwhile)."""
    pids = subprocess.run(['pgrep', '-f', BIN], capture_output=True, text=True).stdout.split()
    mine = []
    for pid in pids:
        try:
            with open('/proc/%s/environ' % pid, 'rb') as f:
                if TMP.encode() in f.read():
                    mine.append(pid)
        except OSError:
            pass            # gone meanwhile
    return mine


deadline = time.monotonic() + 10
while ours() and time.monotonic() < deadline:
    time.sleep(0.05)        # a process being reaped: its exit is not an event we can wait on here
left = ours()
expect(not left and os.listdir(TMP) == [], 'no Claude process and no HOME left: %r %s' % (left, os.listdir(TMP)))

# ---------- usage ----------
for args, what in ((['--via', 'pty', '--agent', 'claude-code'], '--agent without --model-url'),
                   (['--via', 'acp', '--agent', 'claude-code', '--model-url', 'http://127.0.0.1:9/'], '--agent over ACP'),
                   (['--model-url', 'http://127.0.0.1:9/', '--agent-url', 'http://127.0.0.1:9/v1'], '--model-url without --agent')):
    p = subprocess.run([SCVM, 'run', '-t', 'aut', *args, 'cases.scb'], capture_output=True, text=True, cwd=WORK)
    expect(p.returncode == 2 and '--model-url URL' in p.stderr, '%s: %s' % (what, p.stderr.strip()))
p = subprocess.run([SCVM, 'run', '-t', 'aut', '--agent', 'no-such-agent', '--model-url', 'http://127.0.0.1:9/',
                    'cases.scb'], capture_output=True, text=True, cwd=WORK)
expect(p.returncode == 2 and 'no-such-agent' in p.stderr, 'an unknown profile: %s' % p.stderr.strip())

if failures:
    print('%d failure(s)' % len(failures))
    sys.exit(1)
print('Claude Code in its TUI, played as the agent under test of a Yao suite and an ElizaOS scenario')
