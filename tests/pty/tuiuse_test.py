#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tui-use scenarios, compiled by scc and played by `scvm run -t pty`
against real programs (cat, bash, python3, less), end to end: screen
contents, exit codes, run.json and the other artifacts; plus the examples
in docs/tui-use.md, and tmux as a second terminal emulator.

usage: tuiuse_test.py SCC SCVM WORKDIR DOCS_DIR

Nothing measures time: waits are event-driven with generous deadlines.
"""
import json
import os
import re
import shutil
import subprocess
import sys

from ptycase import case, finish, local_env, run, setup

SCC, SCVM, WORK, DOCS = sys.argv[1:5]
setup(WORK)
PY = os.path.realpath(shutil.which('python3') or '/usr/bin/python3')


def policy(*exes, **kw):
    p = {
        'policy_version': 4, 'sandbox': 'none', 'sandbox_unsafe_ack': True,
        'network': 'disabled', 'network_unsafe_ack': True,
        'fs': {'allowed_read': [], 'allowed_write': [], 'working_dir': None},
        'exec': {'allowed_executables': list(exes), 'allow_shell': False},
        'env': {'allowlist': ['PATH', 'HOME'], 'set': {'TERM': 'xterm-256color', 'LANG': 'C.UTF-8'},
                'inherit': True},
        'budgets': {'max_runtime_ms': 120000, 'max_steps': 100, 'max_output_bytes': 8388608,
                    'max_snapshot_bytes': 2097152, 'max_wait_ms': 60000},
    }
    p.update(kw)
    return p


N = [0]


def step(action, payload=None, asserts=(), timeout_ms=30000, retries=0, name=None):
    N[0] += 1
    s = {'id': '00000000-0000-4000-8000-%012d' % N[0], 'name': name or action,
         'action': {'type': action, 'payload': payload or {}},
         'assert': [{'type': t, 'payload': p} for t, p in asserts],
         'timeout_ms': timeout_ms, 'retries': retries}
    return s


def wait(cond, payload=None, **kw):
    return step('wait', {'condition': {'type': cond, 'payload': payload or {}}}, **kw)


def scenario(name, command, args, steps, rows=24, cols=80, pol=None, cwd=None):
    run_ = {'command': command, 'args': args, 'initial_size': {'rows': rows, 'cols': cols},
            'policy': pol if pol is not None else policy(command)}
    if cwd:
        run_['cwd'] = cwd
    return {'scenario_version': 1, 'metadata': {'name': name, 'description': None}, 'run': run_, 'steps': steps}


def compile_(d, name, sc):
    path = os.path.join(d, name)
    with open(path, 'w') as f:
        json.dump(sc, f, indent=2)
    st, out, err = run([SCC, name], d)
    assert st == 0, 'scc %s: %s' % (name, err)
    return os.path.splitext(name)[0] + '.scb'


def play(d, scb, *opts):
    return run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--artifacts', 'art'] + list(opts) + [scb], d)


def events(out):
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def run_json(d):
    return json.load(open(os.path.join(d, 'art', 'run.json')))


@case
def cat_text_and_lines(d):
    sc = scenario('cat', '/bin/cat', [], [
        step('text', {'text': 'hello tui\n'}, asserts=[('screen_contains', {'text': 'hello tui'}),
                                                       ('line_equals', {'line': 0, 'text': 'hello tui'}),
                                                       ('line_starts_with', {'line': 1, 'text': 'hello'}),
                                                       ('line_ends_with', {'line': 1, 'text': ' tui'}),
                                                       ('cursor_at', {'row': 2, 'col': 0})]),
        step('key', {'key': 'Ctrl+D'}),
        wait('process_exited', asserts=[('exit_code', {'code': 0})]),
    ])
    scb = compile_(d, 'cat.json', sc)
    st, out, err = play(d, scb)
    assert st == 0, (st, err)
    r = run_json(d)
    assert r['status'] == 'passed', r
    assert [s['status'] for s in r['steps']] == ['passed'] * 3, r['steps']
    assert len(r['steps'][0]['assertions']) == 5
    assert r['exit_status']['exit_code'] == 0, r['exit_status']
    for f in ('transcript.log', 'events.jsonl', 'checksums.json', 'policy.json', 'scenario.json'):
        assert os.path.exists(os.path.join(d, 'art', f)), f
    snaps = os.listdir(os.path.join(d, 'art', 'snapshots'))
    assert snaps and all(re.match(r'^\d{6}\.json$', s) for s in snaps), snaps
    assert 'spawn' in [e['kind'] for e in events(out)]


@case
def bash_exit_code(d):
    sc = scenario('bash', '/bin/bash', ['--norc', '--noprofile', '-i'], [
        wait('screen_matches', {'pattern': r'(?m)^\$$'}, name='prompt'),
        step('text', {'text': 'echo $((6*7))\n'}, asserts=[('screen_contains', {'text': '42'})]),
        step('text', {'text': 'exit 3\n'}),
        wait('process_exited', asserts=[('exit_code', {'code': 3})]),
    ])
    sc['run']['policy']['env']['set']['PS1'] = '$ '
    scb = compile_(d, 'bash.json', sc)
    st, out, err = play(d, scb)
    assert st == 0, (st, err)
    assert run_json(d)['exit_status']['exit_code'] == 3


@case
def bash_wrong_exit_code_fails(d):
    sc = scenario('bash', '/bin/bash', ['--norc', '--noprofile'], [
        step('text', {'text': 'exit 4\n'}),
        wait('process_exited', asserts=[('exit_code', {'code': 0})]),
    ])
    scb = compile_(d, 'bash.json', sc)
    st, out, err = play(d, scb)
    assert st == 5, (st, err)
    r = run_json(d)
    assert r['status'] == 'failed' and r['error']['code'] == 'E_ASSERTION_FAILED', r
    a = r['steps'][1]['assertions'][0]
    assert a['passed'] is False and 'exit code is 4' in a['message'], a


KEYS_PY = r'''
import os, sys, termios, tty
fd = sys.stdin.fileno()
tty.setraw(fd)
sys.stdout.write("\x1b[?1h" if "app" in sys.argv else "")
sys.stdout.write("ready\r\n"); sys.stdout.flush()
while True:
    b = os.read(fd, 64)
    if b == b"q":
        break
    sys.stdout.write("got " + b.hex() + "\r\n"); sys.stdout.flush()
'''


@case
def python_cursor_key_modes(d):
    """Keys are encoded for the mode the program set: DECCKM off sends
    CSI A, DECCKM on (CSI ? 1 h) sends SS3 A."""
    open(os.path.join(d, 'keys.py'), 'w').write(KEYS_PY)
    for mode, want in (('normal', '1b5b41'), ('app', '1b4f41')):
        sc = scenario('keys-' + mode, PY, [os.path.join(d, 'keys.py'), mode], [
            wait('screen_contains', {'text': 'ready'}),
            step('key', {'key': 'Up'}, asserts=[('screen_contains', {'text': 'got ' + want})]),
            step('key', {'key': 'Ctrl+A'}, asserts=[('screen_contains', {'text': 'got 01'})]),
            step('key', {'key': 'q'}),
            wait('process_exited', asserts=[('exit_code', {'code': 0})]),
        ])
        scb = compile_(d, 'keys-%s.json' % mode, sc)
        st, out, err = play(d, scb)
        assert st == 0, (mode, st, err)


# os.write, not sys.stdout: the SIGWINCH handler may run while the main
# code is inside a buffered write, and Python refuses that reentry.
RESIZE_PY = r'''
import os, signal, sys, time
def show(*_):
    c, r = os.get_terminal_size()
    os.write(1, b"size %dx%d\r\n" % (c, r))
signal.signal(signal.SIGWINCH, show)
show()
sys.stdin.readline()
'''


@case
def python_resize(d):
    open(os.path.join(d, 'resize.py'), 'w').write(RESIZE_PY)
    sc = scenario('resize', PY, [os.path.join(d, 'resize.py')], [
        wait('screen_contains', {'text': 'size 80x24'}),
        # the program answers SIGWINCH when it gets to it: wait for that
        # (a check right after the action races it on a loaded machine)
        step('resize', {'rows': 12, 'cols': 40}),
        wait('screen_contains', {'text': 'size 40x12'}, asserts=[('screen_contains', {'text': 'size 40x12'})]),
        step('text', {'text': '\n'}),
        wait('process_exited'),
    ])
    scb = compile_(d, 'resize.json', sc)
    st, out, err = play(d, scb)
    assert st == 0, (st, err)
    assert any(e['kind'] == 'resize' for e in events(out))


@case
def retry_rechecks_never_retypes(d):
    sc = scenario('retry', '/bin/cat', [], [
        step('text', {'text': 'retype-me\n'}, asserts=[('screen_contains', {'text': 'never there'})],
             timeout_ms=300, retries=2),
    ])
    scb = compile_(d, 'retry.json', sc)
    st, out, err = play(d, scb)
    assert st == 5, (st, err)
    t = open(os.path.join(d, 'art', 'transcript.log'), 'rb').read()
    # typed once: the echo and cat's copy, never a third time
    assert t.count(b'retype-me') == 2, t
    s = run_json(d)['steps'][0]
    assert s['status'] == 'failed' and s['attempts'] == 3, s


@case
def wait_timeout_is_e_timeout(d):
    sc = scenario('timeout', '/bin/cat', [], [
        wait('screen_contains', {'text': 'nothing'}, timeout_ms=200),
    ])
    scb = compile_(d, 'timeout.json', sc)
    st, out, err = play(d, scb)
    assert st == 4, (st, err)
    assert run_json(d)['error']['code'] == 'E_TIMEOUT'


@case
def not_on_allowlist_is_refused_before_spawn(d):
    sc = scenario('denied', '/bin/cat', [], [step('text', {'text': 'x'})], pol=policy('/bin/echo'))
    scb = compile_(d, 'denied.json', sc)
    st, out, err = play(d, scb)
    assert st == 2, (st, err)
    assert 'spawn' not in [e['kind'] for e in events(out)], out
    assert 'allowed_executables' in err or 'allowed_executables' in json.dumps(run_json(d)), err


@case
def policy_file_reference(d):
    with open(os.path.join(d, 'policy.json'), 'w') as f:
        json.dump(policy('/bin/cat'), f)
    sc = scenario('ref', '/bin/cat', [], [
        step('text', {'text': 'via file\n'}, asserts=[('screen_contains', {'text': 'via file'})]),
        step('terminate', {}),
        wait('process_exited'),
    ], pol={'path': os.path.join(d, 'policy.json')})
    scb = compile_(d, 'ref.json', sc)
    st, out, err = play(d, scb)
    assert st == 0, (st, err)
    assert json.load(open(os.path.join(d, 'art', 'policy.json')))['exec']['allowed_executables'] == ['/bin/cat']


@case
def yaml_input(d):
    text = '''scenario_version: 1
metadata: {name: yaml-cat}
run:
  command: /bin/cat
  args: []
  initial_size: {rows: 5, cols: 30}
  policy: %s
steps:
  - id: 3f1c2a9e-0b6d-4c1e-9a57-2d8f0e4b7c11
    name: type
    action: {type: text, payload: {text: "from yaml\\n"}}
    assert: [{type: screen_contains, payload: {text: from yaml}}]
    timeout_ms: 30000
    retries: 0
''' % json.dumps(policy('/bin/cat'))
    open(os.path.join(d, 's.yaml'), 'w').write(text)
    st, out, err = run([SCC, 's.yaml'], d)
    assert st == 0, err
    st, out, err = play(d, 's.scb')
    assert st == 0, (st, err)


@case
def less_full_screen(d):
    less = shutil.which('less')
    if not less:
        print('skip less_full_screen: less is not installed (scripts/setup-deps.sh)')
        return
    with open(os.path.join(d, 'text.txt'), 'w') as f:
        for i in range(1, 101):
            f.write('line %d\n' % i)
    sc = scenario('less', less, [os.path.join(d, 'text.txt')], [
        wait('screen_contains', {'text': 'line 9'}, asserts=[('line_equals', {'line': 0, 'text': 'line 1'}),
                                                          ('alternate_screen', {'on': True})]),
        step('key', {'key': 'Space'}, asserts=[('line_equals', {'line': 0, 'text': 'line 10'}),
                                               ('not_contains', {'text': 'line 9\n'})]),
        step('text', {'text': '/line 57\n'}, asserts=[('line_equals', {'line': 0, 'text': 'line 57'})]),
        step('key', {'key': 'g'}, asserts=[('line_equals', {'line': 0, 'text': 'line 1'})]),
        step('key', {'key': 'q'}),
        wait('process_exited', asserts=[('exit_code', {'code': 0})]),
    ], rows=10, cols=40)
    sc['run']['policy']['env']['set']['LESS'] = ''
    sc['run']['policy']['env']['set']['LESSHISTFILE'] = '-'
    scb = compile_(d, 'less.json', sc)
    st, out, err = play(d, scb)
    assert st == 0, (st, err)


@case
def compile_errors_are_positioned(d):
    sc = scenario('bad', '/bin/cat', [], [
        step('key', {'key': 'Hyper+Q'}),
        wait('screen_matches', {'pattern': '(unclosed'}),
        step('resize', {'rows': 0, 'cols': 80}),
    ])
    path = os.path.join(d, 'bad.json')
    with open(path, 'w') as f:
        json.dump(sc, f, indent=2)
    st, out, err = run([SCC, '--check', '--color=never', 'bad.json'], d)
    assert st == 1, (st, err)
    got = [l for l in err.splitlines() if ': error: ' in l]
    assert len(got) == 3, err
    assert re.search(r"^bad\.json:\d+:\d+: error: unknown key name 'Hyper\+Q'", got[0]), got
    assert 'invalid pattern' in got[1] and "'rows'" in got[2], got


@case
def terminal_name_names_screenshot_folders(d):
    """Scenario-Format: the Terminal-Config name is the terminalProfileId
    (goldens/<scenario>/<name>/screenshots/ and <artifacts>/<scenario>/<name>/screenshots/)."""
    with open(os.path.join(d, 'term.json'), 'w') as f:
        json.dump({'name': 'narrow-term', 'width': 30, 'height': 6}, f)
    with open(os.path.join(d, 'named.yaml'), 'w') as f:
        f.write('name: named\nterminalRef: term.json\nah:\n  cmd: /bin/cat\ntimeline:\n'
                '  - userInputs:\n      - relativeTime: 0\n        input: hi\n'
                '  - assert:\n      text:\n        contains: [hi]\n  - screenshot: shot\n')
    st, out, err = run([SCC, 'named.yaml'], d)
    assert st == 0, err
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--update-goldens', '--artifacts', 'art', 'named.scb'], d)
    assert st == 0, (st, err)
    assert os.path.exists(os.path.join(d, 'goldens', 'named', 'narrow-term', 'screenshots', 'shot.golden')), \
        os.listdir(d)
    assert os.path.exists(os.path.join(d, 'art', 'named', 'narrow-term', 'screenshots', 'shot.golden'))
    st, out, err = run([SCVM, 'run', '-t', 'pty', 'named.scb'], d)
    assert st == 0, (st, err)
    assert '"result":"match"' in out, out


@case
def type_delay_types_every_character(d):
    """--type-delay writes a text one character at a time, the delay apart.
    What the writer does is read from the cast's input events (their times
    are scvm's); the program must get every byte, however its reads group
    them (on a busy machine it may read two characters at once: checking
    its reads made this test fail in CI)."""
    open(os.path.join(d, 'keys.py'), 'w').write(KEYS_PY)
    sc = scenario('typed', PY, [os.path.join(d, 'keys.py'), 'normal'], [
        wait('screen_contains', {'text': 'ready'}),
        step('text', {'text': 'ab\u00e9'}, asserts=[('screen_contains', {'text': 'got '})]),
        wait('screen_contains', {'text': 'c3a9'}),
        step('key', {'key': 'q'}),
        wait('process_exited'),
    ])
    scb = compile_(d, 'typed.json', sc)
    st, out, err = play(d, scb, '--type-delay', '20', '--cast', 'typed.cast')
    assert st == 0, (st, err)
    with open(os.path.join(d, 'typed.cast'), encoding='utf-8') as f:
        lines = f.read().splitlines()[1:]
    inputs = [json.loads(l) for l in lines if json.loads(l)[1] == 'i']
    typed = [e for e in inputs if e[2] in ('a', 'b', '\u00e9')]
    assert [e[2] for e in typed] == ['a', 'b', '\u00e9'], inputs
    gaps = [round((typed[k + 1][0] - typed[k][0]) * 1000) for k in range(2)]
    assert all(g >= 19 for g in gaps), gaps      # (the cast's times are rounded)
    screen = open(os.path.join(d, 'typed.cast'), encoding='utf-8').read()
    got = ''.join(re.findall(r'got ([0-9a-f]+)', ''.join(json.loads(l)[2] for l in lines if json.loads(l)[1] == 'o')))
    assert got == '6162c3a9', (got, screen[-500:])


# ---- tmux as a second terminal emulator: the same program at the same size
# ---- must leave the same text screen in both (trailing spaces trimmed).

def tmux_screen(d, argv, keys, rows, cols):
    sock = os.path.join(d, 'tmux.sock')
    env = dict(os.environ, TERM='xterm-256color', LANG='C.UTF-8')
    env.pop('TMUX', None)
    tm = ['tmux', '-S', sock, '-f', '/dev/null']
    subprocess.run(tm + ['new-session', '-d', '-x', str(cols), '-y', str(rows), '--'] + argv,
                   check=True, env=env, timeout=60)
    try:
        for text, until in keys:
            if text is not None:
                subprocess.run(tm + ['send-keys', '-l', text] if not text.startswith('@') else
                               tm + ['send-keys', text[1:]], check=True, timeout=60)
            # Event-driven enough: tmux's wait-for is not tied to output, so
            # poll capture-pane until the expected text shows (60 s bound).
            for _ in range(6000):
                cap = subprocess.run(tm + ['capture-pane', '-p'], capture_output=True, text=True,
                                     timeout=60).stdout
                if until in cap:
                    break
                subprocess.run(['sleep', '0.01'])
            else:
                raise AssertionError('tmux never showed %r' % until)
        cap = subprocess.run(tm + ['capture-pane', '-p'], capture_output=True, text=True, timeout=60).stdout
    finally:
        subprocess.run(tm + ['kill-server'], capture_output=True, timeout=60)
    lines = [l.rstrip() for l in cap.split('\n')][:rows]
    return lines + [''] * (rows - len(lines))


@case
def differential_against_tmux(d):
    if not shutil.which('tmux'):
        print('skip differential_against_tmux: tmux is not installed (scripts/setup-deps.sh)')
        return
    with open(os.path.join(d, 'text.txt'), 'w') as f:
        for i in range(1, 200):
            f.write('%d: %s\n' % (i, 'word ' * (i % 11)))
    less = shutil.which('less')
    # A program that draws and then waits, so both emulators see it alive.
    draw = ('import sys; sys.stdout.write("a\\tb\\r\\n\\033[1mbold\\033[0m\\r\\nwide \\u65e5\\u672c end\\r\\n'
            '\\033[5;10Hat 5,10\\033[2;30Hx\\033[K\\033[8;1Hdone"); sys.stdout.flush(); sys.stdin.read()')
    progs = [('python3', [PY, '-c', draw], [(None, 'done')], 10, 40)]
    if less:
        progs.append(('less', [less, os.path.join(d, 'text.txt')], [(None, '9: '), ('@Space', '18: '),
                                                                     ('/78', '/78'), ('@Enter', '78: word')], 12, 50))
    for name, argv, keys, rows, cols in progs:
        theirs = tmux_screen(d, argv, keys, rows, cols)
        steps = [wait('screen_contains', {'text': keys[0][1]})]
        for text, until in keys[1:]:
            if text.startswith('@'):
                steps.append(step('key', {'key': text[1:]}, asserts=[('screen_contains', {'text': until})]))
            else:
                steps.append(step('text', {'text': text}, asserts=[('screen_contains', {'text': until})]))
        steps.append(wait('screen_stable', {'ms': 300}))
        sc = scenario('diff-' + name, argv[0], argv[1:], steps, rows=rows, cols=cols)
        sc['run']['policy']['env']['set'].update({'LESS': '', 'LESSHISTFILE': '-'})
        scb = compile_(d, name + '.json', sc)
        st, out, err = play(d, scb)
        assert st == 0, (name, st, err)
        snaps = sorted(os.listdir(os.path.join(d, 'art', 'snapshots')))
        # the last step's snapshot (the one after it is taken once the
        # program has been ended, when less has left the alternate screen)
        ours = json.load(open(os.path.join(d, 'art', 'snapshots', snaps[-2])))['lines']
        ours = [l.rstrip() for l in ours]
        assert ours == theirs, '%s differs:\nours:   %r\ntmux:   %r' % (name, ours, theirs)


# ---- the examples in docs/tui-use.md run as written ----

FENCE = re.compile(r'^```json tuiuse=(\S+) exit=(\d+)\n(.*?)^```', re.S | re.M)


@case
def docs_examples(d):
    text = open(os.path.join(DOCS, 'tui-use.md'), encoding='utf-8').read()
    found = FENCE.findall(text)
    assert found, 'no examples in docs/tui-use.md'
    for name, want, body in found:
        with open(os.path.join(d, name + '.json'), 'w') as f:
            f.write(body)
        st, out, err = run([SCC, name + '.json'], d)
        assert st == 0, (name, err)
        st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', name + '.scb'], d)
        assert st == int(want), (name, st, want, err)



@case
def run_policy_file_and_flags(d):
    """--policy FILE's fields replace the scenario's; the flags set one field each (docs/driver.md)."""
    cat = os.path.realpath('/bin/cat')
    sc = scenario('polcat', '/bin/cat', [], [
        step('text', {'text': 'hi\n'}, asserts=[('screen_contains', {'text': 'hi'})])])
    scb = compile_(d, 'polcat.json', sc)

    def explain(*opts):
        st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--explain-policy', '--json'] +
                           list(opts) + [scb], d)
        return st, json.loads(out)
    st, e = explain()
    assert st == 0 and e['policy']['sandbox'] == 'none' and e['policy']['exec']['allowed_executables'] == ['/bin/cat'], e
    # the file's exec replaces the scenario's whole: cat is no longer allowed
    with open(os.path.join(d, 'over.json'), 'w') as f:
        json.dump({'exec': {'allowed_executables': ['/bin/echo']}}, f)
    st, e = explain('--policy', 'over.json')
    assert st == 2 and e['error']['code'] == 'E_POLICY_DENIED' and 'allowed_executables' in e['error']['message'], e
    # a field the file does not name stays the scenario's
    with open(os.path.join(d, 'budget.json'), 'w') as f:
        json.dump({'budgets': {'max_wait_ms': 1234}}, f)
    st, e = explain('--policy', 'budget.json')
    # the file's budget replaces the scenario's; the others are the enforced defaults (the effective
    # policy has every field of the data model's Policy)
    assert st == 0 and e['policy']['budgets'] == {'max_wait_ms': 1234, 'max_runtime_ms': 60000, 'max_steps': 10000,
                                                  'max_output_bytes': 8388608, 'max_snapshot_bytes': 2097152} \
        and e['policy']['sandbox'] == 'none', e
    # flags after the file: --enable-network needs its acknowledgement
    st, e = explain('--enable-network')
    assert st == 0, e      # the scenario's network_unsafe_ack is true already
    with open(os.path.join(d, 'strict.json'), 'w') as f:
        json.dump({'network_unsafe_ack': False, 'sandbox': 'seatbelt', 'sandbox_unsafe_ack': False}, f)
    st, e = explain('--policy', 'strict.json', '--enable-network')
    assert st == 2 and 'network_unsafe_ack' in e['error']['message'], e
    st, e = explain('--policy', 'strict.json', '--no-sandbox')
    assert st == 2 and 'sandbox_unsafe_ack' in e['error']['message'], e
    st, e = explain('--policy', 'strict.json', '--no-sandbox', '--ack-unsafe-sandbox')
    assert st == 0 and e['policy']['sandbox'] == 'none' and e['policy']['network_unsafe_ack'] is True, e
    with open(os.path.join(d, 'v3.json'), 'w') as f:
        json.dump({'policy_version': 3}, f)
    st, e = explain('--policy', 'v3.json')
    assert st == 8 and e['error']['code'] == 'E_PROTOCOL_VERSION_MISMATCH', e
    with open(os.path.join(d, 'bad.json'), 'w') as f:
        f.write('[1]')
    st, e = explain('--policy', 'bad.json')
    assert st == 9 and e['error']['code'] == 'E_PROTOCOL', e
    st, out, err = play(d, scb, '--policy', 'missing.json')
    assert st == 10 and 'cannot read' in err, (st, err)
    # a played run: the effective policy is what policy.json and run.json record
    st, out, err = play(d, scb, '--policy', 'budget.json')
    assert st == 0, err
    pj = json.load(open(os.path.join(d, 'art', 'policy.json')))
    assert pj['budgets']['max_wait_ms'] == 1234 and pj['budgets']['max_steps'] == 10000 and run_json(d)['policy'] == pj, pj
    # a scenario without a policy: the file is the policy
    with open(os.path.join(d, 'plain.yaml'), 'w') as f:
        f.write('name: plain\ntimeline:\n  - screenshot: shot\n')
    st, out, err = run([SCC, 'plain.yaml'], d)
    assert st == 0, err
    for exe, want in (('/bin/echo', 2), (cat, 0)):
        with open(os.path.join(d, 'whole.json'), 'w') as f:
            json.dump(policy(exe), f)
        st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--explain-policy', '--json', '--policy',
                            'whole.json', 'plain.scb', '--', cat], d)
        e = json.loads(out)
        assert st == want and (want or e['policy']['exec']['allowed_executables'] == [cat]), (st, out, err)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--explain-policy', '--json', '--policy',
                        'over.json', 'plain.scb', '--', cat], d)
    assert st == 8, (st, out)     # the file is the whole policy: it needs its policy_version
    # the policy options are the PTY target's
    st, out, err = run([SCVM, 'run', '--policy', 'over.json', scb], d)
    assert st == 2 and 'needs --target pty' in err, (st, err)


@case
def data_model_exit_for_a_scenario_that_does_not_parse(d):
    """--data-model-exit: 7 (E_TERMINAL_PARSE) for a scenario that does not
    parse (a source with errors, a broken .scb), 10 for one not there; a
    source that compiles plays (scvm compiles it: docs/scvm.md)."""
    with open(os.path.join(d, 'source.json'), 'w') as f:
        json.dump(scenario('src', '/bin/cat', [], [step('text', {'text': 'x'})]), f)
    with open(os.path.join(d, 'broken.json'), 'w') as f:
        f.write('{"scenario_version": 1, "run": ')
    with open(os.path.join(d, 'junk.scb'), 'wb') as f:
        f.write(b'\x19\x93\r\n\x1a\n' + b'\0' * 64)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', 'source.json'], d)
    assert st == 0, ('source.json', st, err)
    for name, msg, own in (('broken.json', 'error', 1), ('junk.scb', 'rejected', 4)):
        st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', name], d)
        assert st == 7 and msg in err, (name, st, err)
        st, out, err = run([SCVM, 'run', '-t', 'pty', name], d)
        assert st == own, (name, st)       # scvm's own table without the option
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', 'missing.scb'], d)
    assert st == 10 and 'cannot read' in err, (st, err)


def replay_scenario(d, rules=None):
    """cat FILE: what it shows depends on the file, so a replay can differ."""
    pol = policy('/bin/cat')
    if rules is not None:
        pol['replay'] = {'strict': False, 'normalization_rules': rules}
    with open(os.path.join(d, 'data.txt'), 'w') as f:
        f.write('one 1\n')
    sc = scenario('replayed', '/bin/cat', ['data.txt'], [
        wait('process_exited', asserts=[('line_matches', {'line': 0, 'pattern': '^one [0-9]$'})])], rows=4, cols=20,
        pol=pol, cwd=d)
    scb = compile_(d, 'replayed.json', sc)
    st, out, err = play(d, scb)
    assert st == 0, err
    return os.path.join(d, 'art')


def replay(d, *args):
    return run([SCVM] + list(args), d)


@case
def replay_passes_and_reports(d):
    art = replay_scenario(d)
    assert os.path.exists(os.path.join(art, 'scenario.scb'))
    st, out, err = replay(d, 'replay', 'art')
    assert st == 0 and out.startswith('replay: passed: art/replay-'), (st, out, err)
    rid = run_json(d)['run_id']
    sub = os.path.join(art, 'replay-' + rid)
    summary = json.load(open(os.path.join(sub, 'replay.json')))
    assert summary['status'] == 'passed' and summary['source'] == 'default' and summary['strict'] is False, summary
    assert summary['filters'] == ['snapshot_id', 'run_id', 'run_timestamps', 'step_timestamps',
                                  'observation_timestamp', 'session_id', 'events'] and summary['mismatch'] is None, summary
    assert not os.path.exists(os.path.join(sub, 'diff.json'))
    norm = json.load(open(os.path.join(sub, 'normalization.json')))
    assert norm['source'] == 'default' and norm['filters'] == summary['filters'], norm
    st, out, err = replay(d, 'replay', '--json', '--require-events', '--require-checksums', '--artifacts', 'art')
    j = json.loads(out)
    assert st == 0 and j['protocol_version'] == 2 and j['status'] == 'passed', (st, out)
    st, out, err = replay(d, 'replay-report', '--json', 'art')
    j = json.loads(out)
    assert st == 0 and j['status'] == 'passed' and j['protocol_version'] == 2, (st, out)
    st, out, err = replay(d, 'replay-report', 'art')
    assert st == 0 and out.startswith('replay: passed'), out
    # strict compares the ids too: a new run has a new run_id
    st, out, err = replay(d, 'replay', '--strict', 'art')
    assert st == 11 and 'first difference (run): run.json: $.run_id: recorded' in out, (st, out)
    st, out, err = replay(d, 'replay', '--normalize', 'snapshot_id', '--normalize', 'run_timestamps', 'art')
    assert st == 11 and '$.run_id' in out, (st, out)
    st, out, err = replay(d, 'replay', '--normalize', 'all', 'art')
    assert st == 0, (st, out)


@case
def replay_finds_the_first_difference(d):
    art = replay_scenario(d)
    with open(os.path.join(d, 'data.txt'), 'w') as f:
        f.write('one 7\n')         # the step still passes; the screen differs
    st, out, err = replay(d, 'replay', 'art')
    assert st == 11, (st, out, err)
    assert ('first difference (run): run.json: $.final_observation.screen.lines[0]: recorded "one 1", '
            'replayed "one 7"') in out, out
    st, out, err = replay(d, 'replay-report', 'art')
    assert st == 11 and 'first difference: run.json: $.final_observation.screen.lines[0]' in out, (st, out)
    sub = os.path.join(art, 'replay-' + run_json(d)['run_id'])
    diff = json.load(open(os.path.join(sub, 'diff.json')))
    assert diff['code'] == 'E_REPLAY_MISMATCH' and diff['context'] == {'kind': 'run', 'index': None}, diff
    summary = json.load(open(os.path.join(sub, 'replay.json')))
    assert summary['status'] == 'failed' and summary['mismatch'] == {'kind': 'run', 'index': None}, summary
    with open(os.path.join(d, 'data.txt'), 'w') as f:
        f.write('two 2\n')         # now the step fails: the status is the first difference
    st, out, err = replay(d, 'replay', 'art')
    assert st == 11 and 'run.json: $.status: recorded "passed", replayed "failed"' in out, out


@case
def replay_rules_from_the_policy(d):
    rules = [{'target': 'snapshot_lines', 'pattern': 'one [0-9]', 'replace': 'one N'},
             {'target': 'transcript', 'pattern': 'one [0-9]', 'replace': 'one N'}]
    art = replay_scenario(d, rules)
    norm = json.load(open(os.path.join(art, 'normalization.json')))
    assert norm['source'] == 'policy' and norm['rules'] == rules, norm
    with open(os.path.join(d, 'data.txt'), 'w') as f:
        f.write('one 7\n')
    st, out, err = replay(d, 'replay', '--json', 'art')
    j = json.loads(out)
    assert st == 0 and j['rules'] == rules and j['source'] == 'policy', out
    st, out, err = replay(d, 'replay', '--normalize', 'all', 'art')
    assert st == 0, out
    st, out, err = replay(d, 'replay', '--strict', 'art')
    assert st == 11, out
    summary = json.load(open(os.path.join(art, 'replay-' + run_json(d)['run_id'], 'replay.json')))
    assert summary['rules'] == [] and summary['strict'] is True and summary['source'] == 'cli', summary
    # only the rules' targets: with the transcript rule gone, the transcript differs
    pol = json.load(open(os.path.join(art, 'normalization.json')))
    pol['rules'] = rules[:1]
    with open(os.path.join(art, 'normalization.json'), 'w') as f:
        json.dump(pol, f)
    os.remove(os.path.join(art, 'checksums.json'))
    st, out, err = replay(d, 'replay', 'art')
    assert st == 11 and 'first difference (transcript): transcript.log: line 1' in out, out


@case
def replay_checks_the_recording(d):
    art = replay_scenario(d)
    snap = os.path.join(art, 'snapshots', '000001.json')
    with open(snap) as f:
        s = f.read()
    with open(snap, 'w') as f:
        f.write(s.replace('one 1', 'one 9'))
    st, out, err = replay(d, 'replay', 'art')
    assert st == 11 and 'first difference (checksum): snapshots/000001.json: changed since it was recorded' in out, out
    os.remove(os.path.join(art, 'events.jsonl'))
    st, out, err = replay(d, 'replay', '--require-events', 'art')
    assert st == 11 and '(missing_events)' in out, out
    os.remove(os.path.join(art, 'checksums.json'))
    st, out, err = replay(d, 'replay', '--require-checksums', 'art')
    assert st == 11 and '(missing_checksums)' in out, out
    # errors before anything is played
    for args, code, words in [
            (['replay', 'nothing-here'], 10, 'run.json: missing'),
            (['replay', '--normalize', 'colour', 'art'], 12, 'unknown normalization filter'),
            (['replay', '--strict', '--normalize', 'all', 'art'], 12, 'choose one'),
            (['replay'], 12, 'one artifacts folder'),
            (['replay', '--frobnicate', 'art'], 12, 'unknown option'),
            (['replay-report', 'nothing-here'], 10, 'no replay'),
    ]:
        st, out, err = replay(d, *args)
        assert st == code and words in err, (args, st, err)
    os.makedirs(os.path.join(d, 'old'))
    with open(os.path.join(d, 'old', 'run.json'), 'w') as f:
        f.write('{}')
    st, out, err = replay(d, 'replay', '--json', 'old')
    assert st == 10 and json.loads(out)['error']['code'] == 'E_IO' and 'scenario.scb' in err, (st, out, err)


@case
def run_json_prints_the_run_result(d):
    """run -t pty --json: the RunResult on stdout, as the data model's run --json."""
    sc = scenario('jsoncat', '/bin/cat', [], [
        step('text', {'text': 'hi\n'}, asserts=[('screen_contains', {'text': 'oranges'})], timeout_ms=200)])
    scb = compile_(d, 'jsoncat.json', sc)
    # a TMPDIR of its own: /tmp is shared with the tests running beside
    # this one, whose scvm-run-* folders come and go
    tmp = os.path.join(d, 'tmp')
    os.mkdir(tmp)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--json', scb], d,
                       env=dict(local_env(), TMPDIR=tmp))
    rr = json.loads(out)
    assert st == 5 and len(out.splitlines()) == 1, (st, out)
    assert rr['protocol_version'] == 2 and rr['run_result_version'] == 1 and rr['status'] == 'failed', rr
    assert rr['error']['code'] == 'E_ASSERTION_FAILED' and rr['final_observation']['screen']['lines'][0] == 'hi', rr
    assert os.listdir(tmp) == [], 'temporary folder left: %s' % os.listdir(tmp)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--json', '--artifacts', 'a2', scb], d)
    assert st == 1 and json.loads(out) == json.load(open(os.path.join(d, 'a2', 'run.json'))), (st, out)

if __name__ == '__main__':
    finish()
