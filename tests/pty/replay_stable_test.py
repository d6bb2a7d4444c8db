#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Replays of a deterministic program are stable (docs/driver.md, "Replay";
docs/tui-use.md, "Steps, timeouts and retries"): a python3 REPL session of
5 steps, and a variant whose 4th step is a resize, each recorded once with
--artifacts and replayed 10 times (20 replays, two at a time: the load
only helps to find a race); every replay exits 0.  Then a real change (the
file the last step prints) makes a replay fail with exit 11.

Each step ends as soon as its assertions hold; what the snapshot catches
depends on the step settling first (a result is printed before the prompt).

usage: replay_stable_test.py SCC SCVM WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

from ptycase import case, finish, run, setup

SCC, SCVM, WORK = sys.argv[1:4]
setup(WORK)
REPLAYS = 10    # per recording


def python3():
    for c in ('/usr/bin/python3', shutil.which('python3') or ''):
        if c and os.path.exists(c):
            real = os.path.realpath(c)
            # a pyenv shim is a shell script: the real interpreter is what runs
            if open(real, 'rb').read(4) == b'\x7fELF':
                return real
    return None


PY = python3()


def step(i, action, payload, asserts=()):
    return {'id': '00000000-0000-4000-8000-%012d' % i, 'name': 'step %d' % i,
            'action': {'type': action, 'payload': payload},
            'assert': [{'type': t, 'payload': p} for t, p in asserts], 'timeout_ms': 30000, 'retries': 0}


def repl_scenario(d, resize):
    steps = [
        step(1, 'wait', {'condition': {'type': 'screen_contains', 'payload': {'text': '>>>'}}}),
        step(2, 'text', {'text': '1+1\n'}, [('screen_contains', {'text': '2'})]),
        step(3, 'text', {'text': 'print("hello " * 3)\n'}, [('screen_contains', {'text': 'hello hello'})]),
        step(4, 'resize', {'rows': 12, 'cols': 50}) if resize else
        step(4, 'text', {'text': '[i*i for i in range(8)]\n'}, [('screen_contains', {'text': '49'})]),
        step(5, 'text', {'text': 'print(open("data.txt").read().upper())\n'}, [('screen_contains', {'text': 'VALUE'})]),
    ]
    pol = {'policy_version': 4, 'sandbox': 'none', 'sandbox_unsafe_ack': True, 'network_unsafe_ack': True,
           'exec': {'allowed_executables': [PY]},
           'env': {'allowlist': ['PATH'], 'inherit': True,
                   'set': {'TERM': 'xterm-256color', 'LANG': 'C.UTF-8', 'PYTHONSTARTUP': '',
                           'PYTHON_BASIC_REPL': '1'}}}
    return {'scenario_version': 1, 'metadata': {'name': 'repl-resize' if resize else 'repl'},
            'run': {'command': PY, 'args': ['-q', '-i'], 'cwd': d, 'initial_size': {'rows': 10, 'cols': 40},
                    'policy': pol},
            'steps': steps}


def record(d, name, resize):
    with open(os.path.join(d, name + '.json'), 'w') as f:
        json.dump(repl_scenario(d, resize), f, indent=1)
    st, out, err = run([SCC, name + '.json'], d)
    assert st == 0, err
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--artifacts', 'rec-' + name,
                        name + '.scb'], d)
    assert st == 0, (st, err)
    return 'rec-' + name


@case
def replays_of_a_repl_are_stable(d):
    assert PY, 'no python3 executable'
    with open(os.path.join(d, 'data.txt'), 'w') as f:
        f.write('value 1')
    recs = [record(d, 'repl', False), record(d, 'repl_resize', True)]
    failed = []
    for i in range(REPLAYS):
        procs = [(r, subprocess.Popen([SCVM, 'replay', r], cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
                 for r in recs]
        for r, p in procs:
            out, err = p.communicate(timeout=120)
            if p.returncode != 0:
                failed.append('%s #%d: exit %d: %s' % (r, i + 1, p.returncode, out.decode(errors='replace')[:400]))
    assert not failed, '%d of %d replays failed:\n%s' % (len(failed), REPLAYS * len(recs), '\n'.join(failed))
    # a real change is still found
    with open(os.path.join(d, 'data.txt'), 'w') as f:
        f.write('value 2')
    for r in recs:
        st, out, err = run([SCVM, 'replay', r], d)
        assert st == 11 and 'VALUE 2' in out, (r, st, out, err)


finish()
