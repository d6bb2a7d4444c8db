#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""record.py - records the output streams the differential test replays.

usage: record.py SCC SCVM [NAME...]

Each recording is a tui-use scenario played by `scvm run -t pty --cast`
against a real program (bash, less, vim, htop, python3) at 80x24; the
asciicast v2 file lands next to this script as NAME.cast and is committed
as test data.  tests/pty/differential.py replays the `o` events into our
screen (pty_replay) and into @xterm/headless and compares them at every
point where the program waited for input.  Re-record only when a program
changes what it prints; the recordings need not be reproducible.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCC, SCVM = sys.argv[1:3]
only = set(sys.argv[3:])

N = [0]


def step(action, payload=None, until=None, name=None):
    N[0] += 1
    s = {'id': '00000000-0000-4000-8000-%012d' % N[0], 'name': name or action,
         'action': {'type': action, 'payload': payload or {}}, 'timeout_ms': 30000, 'retries': 0}
    if until:
        s['assert'] = [{'type': 'screen_contains', 'payload': {'text': until}}]
    return s


def text(t, until=None):
    return step('text', {'text': t}, until)


def key(k, until=None):
    return step('key', {'key': k}, until)


def wait(t):
    return step('wait', {'condition': {'type': 'screen_contains', 'payload': {'text': t}}})


def cond(type_, **payload):
    return step('wait', {'condition': {'type': type_, 'payload': payload}})


def gone(t):
    return cond('not_contains', text=t)


def stable(ms=300):
    return step('wait', {'condition': {'type': 'screen_stable', 'payload': {'ms': ms}}})


def exited():
    return step('wait', {'condition': {'type': 'process_exited', 'payload': {}}})


def scenario(name, argv, steps, env, shell=False, cwd=None):
    cmd = os.path.realpath(shutil.which(argv[0]) or argv[0])
    pol = {'policy_version': 4, 'sandbox': 'none', 'sandbox_unsafe_ack': True,
           'network': 'disabled', 'network_unsafe_ack': True,
           'exec': {'allowed_executables': [cmd], 'allow_shell': shell},
           'env': {'allowlist': ['PATH'], 'inherit': True,
                   'set': dict({'TERM': 'xterm-256color', 'LANG': 'C.UTF-8'}, **env)},
           'budgets': {'max_runtime_ms': 120000, 'max_wait_ms': 60000}}
    return {'scenario_version': 1, 'metadata': {'name': name},
            'run': {'command': cmd, 'args': argv[1:], 'initial_size': {'rows': 24, 'cols': 80}, 'policy': pol,
                    'cwd': cwd},
            'steps': steps}


def recordings(work):
    home = os.path.join(work, 'home')
    os.makedirs(home, exist_ok=True)
    txt = os.path.join(work, 'text.txt')
    with open(txt, 'w') as f:
        for i in range(1, 301):
            f.write('%d: %s\x1b[1mbold\x1b[0m \x1b[31mred\x1b[0m %s\n' % (i, 'word ' * (i % 13), '\u65e5\u672c' * (i % 3)))
    py = '/usr/bin/python3' if os.path.exists('/usr/bin/python3') else 'python3'
    vim = shutil.which('vim') or shutil.which('vim.tiny') or 'vim'
    yield 'bash', scenario('bash', ['/bin/bash', '--norc', '--noprofile', '-i'], [
        wait('$'),
        text('echo hello world\n', 'hello world\n'),
        text("printf '\\e[1;32mgreen\\e[0m \\xe6\\x97\\xa5\\xe6\\x9c\\xac tab\\there\\n'\n", 'tab'),
        text('echo ' + 'abcdefghij' * 12 + '\n', 'ij\n$'),
        text('seq 1 40\n', '40\n$'),
        text('echo -n partial; sleep 0; echo " line"\n', 'partial line'),
        key('Ctrl+L'), cond('line_equals', line=0, text='$'),
        text('for i in 1 2 3; do echo "row $i"; done\n', 'row 3'),
        text('exit\n'), exited(),
    ], {'PS1': '$ ', 'HOME': home, 'HISTFILE': '/nonexistent/history'})
    yield 'less', scenario('less', ['less', '-R', 'text.txt'], [
        wait('10: '),
        key('Space', '30: '),
        text('/word word word word\n', 'word word word word'),
        key('n'), stable(),   # the screen_stable quiet time counts from the last change
        key('G', '300: '),
        key('g', '1: '),
        key('q'), exited(),
    ], {'LESS': '', 'LESSHISTFILE': '-', 'HOME': home}, cwd=work)
    yield 'vim', scenario('vim', [vim, '-u', 'NONE', '-i', 'NONE', '-N', '-n', 'edit.txt'], [
        wait('edit.txt'),
        text('ihello vim\n\u65e5\u672c\u8a9e wide text\nthird line', 'third line'), key('Escape'), gone('INSERT'),
        text(':set nu\n', '  1 hello'),
        text(':vsplit\n'), cond('screen_matches', pattern='edit.txt.*edit.txt'),
        text('ggdd'), gone('hello vim'),
        text('o' + 'long line ' * 10, 'long line long line'), key('Escape'), gone('INSERT'),
        text(':qa!\n'), exited(),
    ], {'HOME': home}, cwd=work)
    yield 'htop', scenario('htop', ['/bin/sh', '-c', 'exec htop -p $$'], [
        wait('Quit'),
        key('F5', 'F5List'),
        key('F3', 'Search:'),
        text('htop', 'Search: htop'),
        key('Escape', 'F3Search'),
        key('F10'), exited(),
    ], {'HOME': home}, shell=True)
    yield 'python3', scenario('python3', [py, '-q', '-i'], [
        wait('>>>'),
        text('print("hello " * 3)\n', 'hello hello hello'),
        text('for i in range(30): print(i, "x" * i)\n'),
        text('\n', '29 xxx'),
        text('print("\\x1b[7minverse\\x1b[0m \u00e9t\u00e9 \u4e2d\u6587")\n', 'inverse'),
        text('"a" * 200\n', "aaa'"),
        text('exit()\n'), exited(),
    ], {'HOME': home, 'PYTHONSTARTUP': ''})


def main():
    work = tempfile.mkdtemp(prefix='pty2-record-')
    try:
        for name, sc in recordings(work):
            if only and name not in only:
                continue
            src = os.path.join(work, name + '.json')
            with open(src, 'w') as f:
                json.dump(sc, f, indent=1)
            subprocess.run([SCC, '-o', os.path.join(work, name + '.scb'), src], check=True)
            cast = os.path.join(work, name + '.cast')
            p = subprocess.run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--cast', cast,
                                os.path.join(work, name + '.scb')], cwd=work, capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit('record.py: %s failed (%d):\n%s' % (name, p.returncode, p.stderr))
            # The temporary folder's name is not part of the test data.
            data = open(cast, encoding='utf-8').read().replace(work, '/tmp/rec')
            with open(os.path.join(HERE, name + '.cast'), 'w', encoding='utf-8') as f:
                f.write(data)
            print('recorded %s.cast (%d bytes)' % (name, len(data)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
