#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One set of `assert` scenarios, played on the PTY target and through the
mock LLM server: both must give the verdict written next to each case.

usage: assert_parity.py SCC SCVM WORKDIR

Both targets evaluate `assert` with runtime/scn_assert.c.  Until they did,
the cases marked "was" below got different verdicts: the LLM server took
absolute and '..' paths, the PTY target used lstat (a dangling link
existed), accepted the JSON pointer '/01' as an array index and a '~' that
is no RFC 6901 escape, and refused git.commit without repo.init.

Each case gets a fresh workspace (a few files, links and a git commit).
PTY: `scvm run -t pty X.scb -- /bin/cat` in the workspace (the root of a
run without repo.init is its working directory); the verdict is the exit
status (0 or 1) and the `assert` event's `passed`.  LLM: `scvm serve llm
--workspace WS`, one request, then SIGTERM; the assert after the last
response runs at shutdown; the verdict is the exit status and the
summary's counts.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'llm'))
from ptycase import case, finish, run, setup  # noqa: E402
from serve_util import Server, request  # noqa: E402

SCC, SCVM, WORK = sys.argv[1:4]
setup(WORK)


def workspace(d):
    ws = os.path.join(d, 'ws')
    os.makedirs(os.path.join(ws, 'sub'))
    with open(os.path.join(ws, 'here.txt'), 'w') as f:
        f.write('here\n')
    with open(os.path.join(ws, 'data.json'), 'w') as f:
        json.dump({'a': [10, 11], '~2': 'tilde', 'n': 1.0}, f)
    with open(os.path.join(d, 'outside.txt'), 'w') as f:
        f.write('outside the workspace\n')
    os.symlink('no-such-target', os.path.join(ws, 'dangling'))
    os.symlink(os.path.join(d, 'outside.txt'), os.path.join(ws, 'out-link'))
    os.symlink('here.txt', os.path.join(ws, 'in-link'))
    env = dict(os.environ, GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@x', GIT_COMMITTER_NAME='t',
               GIT_COMMITTER_EMAIL='t@x')
    for cmd in (['git', 'init', '-q'], ['git', 'add', '-A'], ['git', 'commit', '-q', '-m', 'agent wrote here.txt']):
        subprocess.run(cmd, cwd=ws, env=env, check=True, capture_output=True)
    return ws


def scenario(d, name, check):
    text = '''name: %s
timeline:
  - userInputs:
      - [0, 'go']
  - llmResponse:
      - assistant:
          - [10, 'done']
  - assert:
%s
''' % (name, '\n'.join('      ' + l for l in check.strip().split('\n')))
    with open(os.path.join(d, name + '.yaml'), 'w') as f:
        f.write(text)
    st, out, err = run([SCC, name + '.yaml'], d)
    assert st == 0, 'scc %s: %s' % (name, err)
    return os.path.join(d, name + '.scb')


def pty_verdict(scb, ws):
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb, '--', '/bin/cat'], ws)
    evs = [json.loads(l) for l in out.splitlines() if l.strip()]
    a = [e for e in evs if e['kind'] == 'assert']
    assert st in (0, 1), 'pty: exit %d: %s' % (st, err)
    assert len(a) == 1 and a[0]['passed'] == (st == 0), 'pty: exit %d, events %s' % (st, out)
    return st == 0, a[0].get('message', '')


def llm_verdict(scb, ws):
    srv = Server(SCVM, ['--speed', '0', '--workspace', ws, scb])
    s = srv.connect()
    body = json.dumps({'model': 'm', 'max_tokens': 10, 'messages': [{'role': 'user', 'content': 'go'}]})
    st = request(s, 'POST', '/v1/messages', body, {'x-api-key': 'k'})[0]
    s.close()
    status, log = srv.stop()
    assert st == 200, 'llm: response %d' % st
    m = re.search(r'assertions: (\d+) passed, (\d+) failed', log)
    assert m and status in (0, 1), 'llm: exit %d: %s' % (status, log)
    assert (int(m.group(2)) == 0) == (status == 0), 'llm: exit %d, %s' % (status, m.group(0))
    return status == 0, log


# (name, assert body, expected verdict; the comment says what changed)
CASES = [
    ('relative', "fs: {exists: [here.txt, sub], notExists: [gone.txt]}", True),
    ('absolute', "fs: {exists: ['%(ws)s/here.txt']}", False),          # was: llm passed
    ('dotdot', "fs: {exists: ['../outside.txt']}", False),             # was: llm passed
    ('dotdot_inside', "fs: {exists: ['sub/../here.txt']}", False),     # was: llm passed
    ('dangling_exists', "fs: {exists: [dangling]}", False),            # was: pty passed
    ('dangling_not_exists', "fs: {notExists: [dangling]}", True),      # was: pty failed
    ('link_inside', "fs: {exists: [in-link]}", True),
    ('link_outside', "fs: {exists: [out-link]}", False),               # was: llm passed
    ('pointer', "json: {file: {path: data.json, pointer: /a/1, equals: 11}}", True),
    ('pointer_01', "json: {file: {path: data.json, pointer: /a/01, equals: 11}}", False),  # was: pty passed
    ('pointer_bad_escape', "json: {file: {path: data.json, pointer: /~2, equals: tilde}}", False),  # was: pty passed
    ('pointer_escape', "json: {file: {path: data.json, pointer: /~02, equals: tilde}}", True),
    ('number', "json: {file: {path: data.json, pointer: /n, equals: 1}}", True),
    ('json_absolute', "json: {file: {path: '%(ws)s/data.json', pointer: '', equals: 0}}", False),
    ('git', "git: {commit: {messageContains: 'wrote here'}}", True),   # was: pty failed (no repo.init)
    ('git_mismatch', "git: {commit: {messageContains: 'nothing like it'}}", False),
]


def make_case(name, body, want):
    def fn(d):
        ws = workspace(d)
        scb = scenario(d, name, body % {'ws': ws})
        p, pmsg = pty_verdict(scb, ws)
        l, llog = llm_verdict(scb, ws)
        assert p == want, 'pty says %s, expected %s: %s' % (p, want, pmsg)
        assert l == want, 'llm says %s, expected %s: %s' % (l, want, llog)
    fn.__name__ = name
    case(fn)


for c in CASES:
    make_case(*c)
finish()
