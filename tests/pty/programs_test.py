#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The issue's full-screen programs on the PTY target, and the recordings in
asciinema.

usage: programs_test.py SCC SCVM WORKDIR REPLAY_DIR

- vim (vim.tiny or vim, -u NONE): inserts text with a wide character, moves
  with arrow keys in the cursor-key mode vim sets, writes the file, quits;
  the file on disk and the exit status are checked.
- htop (TERM and the size from the scenario): tree view, the search prompt,
  a resize redrawn at the new size (SIGWINCH), F10 quits with status 0.
- asciinema: `asciinema cat` (Debian's asciinema 2.2) must read a `--cast`
  recording of a live session and the committed recordings under
  REPLAY_DIR, exit 0 and print exactly their output events.  It opens
  /dev/tty, so it runs in a pseudo-terminal of its own, its stdout a file.

Programs come from scripts/setup-deps.sh; a missing one skips its case with
a message.  Waits are event-driven with generous deadlines; nothing here
measures time.
"""
import json
import os
import pty
import shutil
import sys

from ptycase import case, finish, run, setup

SCC, SCVM, WORK, REPLAY = sys.argv[1:5]
setup(WORK)


N = [0]


def step(action, payload=None, asserts=(), timeout_ms=60000):
    N[0] += 1
    return {'id': '00000000-0000-4000-8000-%012d' % N[0], 'name': action,
            'action': {'type': action, 'payload': payload or {}},
            'assert': [{'type': t, 'payload': p} for t, p in asserts],
            'timeout_ms': timeout_ms, 'retries': 0}


def wait(cond, payload=None, **kw):
    return step('wait', {'condition': {'type': cond, 'payload': payload or {}}}, **kw)


def scenario(name, command, args, steps, env, rows=24, cols=80, shell=False, cwd=None):
    pol = {'policy_version': 4, 'sandbox': 'none', 'sandbox_unsafe_ack': True,
           'network': 'disabled', 'network_unsafe_ack': True,
           'exec': {'allowed_executables': [command], 'allow_shell': shell},
           'env': {'allowlist': ['PATH'], 'inherit': True,
                   'set': dict({'TERM': 'xterm-256color', 'LANG': 'C.UTF-8'}, **env)},
           'budgets': {'max_runtime_ms': 170000, 'max_wait_ms': 60000}}
    r = {'command': command, 'args': args, 'initial_size': {'rows': rows, 'cols': cols}, 'policy': pol}
    if cwd:
        r['cwd'] = cwd
    return {'scenario_version': 1, 'metadata': {'name': name}, 'run': r, 'steps': steps}


def play(d, name, sc, *opts):
    with open(os.path.join(d, name + '.json'), 'w') as f:
        json.dump(sc, f, indent=1)
    st, out, err = run([SCC, name + '.json'], d)
    assert st == 0, 'scc: ' + err
    return run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--artifacts', 'art'] + list(opts)
               + [name + '.scb'], d)


@case
def vim_edit_and_write(d):
    vim = shutil.which('vim.tiny') or shutil.which('vim')
    if not vim:
        print('skip vim_edit_and_write: vim-tiny is not installed (scripts/setup-deps.sh)')
        return
    vim = os.path.realpath(vim)
    sc = scenario('vim', vim, ['-u', 'NONE', '-i', 'NONE', '-N', '-n', 'notes.txt'], [
        wait('screen_contains', {'text': 'notes.txt'}, asserts=[('alternate_screen', {'on': True})]),
        step('text', {'text': 'ifirst line\nsecond \u65e5\u672c line\nthird'},
             asserts=[('screen_contains', {'text': 'second \u65e5\u672c line'})]),
        step('key', {'key': 'Escape'}),
        # Up twice from the third line: vim turned on cursor-key application
        # mode, so libvterm sends SS3 A, which vim must understand.
        step('key', {'key': 'Up'}), step('key', {'key': 'Up'}),
        step('text', {'text': 'A!'}, asserts=[('line_equals', {'line': 0, 'text': 'first line!'})]),
        step('key', {'key': 'Escape'}),
        step('text', {'text': ':wq\n'}),
        wait('process_exited', asserts=[('exit_code', {'code': 0}), ('alternate_screen', {'on': False})]),
    ], {'HOME': d}, cwd=d)
    st, out, err = play(d, 'vim', sc)
    assert st == 0, (st, err)
    text = open(os.path.join(d, 'notes.txt'), encoding='utf-8').read()
    assert text == 'first line!\nsecond \u65e5\u672c line\nthird\n', repr(text)


@case
def htop_tree_search_resize(d):
    if not shutil.which('htop'):
        print('skip htop_tree_search_resize: htop is not installed (scripts/setup-deps.sh)')
        return
    # Only htop's own process (-p $$: the shell execs htop), so the screen
    # holds nothing of the machine's other processes.  HOME is the case's
    # folder: htop writes its settings there when it quits.
    sc = scenario('htop', '/bin/sh', ['-c', 'exec htop -p $$'], [
        wait('screen_contains', {'text': 'F10Quit'}, asserts=[('alternate_screen', {'on': True}),
                                                            ('screen_contains', {'text': 'htop -p'})]),
        step('key', {'key': 'F5'}, asserts=[('screen_contains', {'text': 'F5List'})]),
        step('key', {'key': 'F3'}, asserts=[('screen_contains', {'text': 'Search:'})]),
        step('text', {'text': 'htop'}, asserts=[('screen_contains', {'text': 'Search: htop'})]),
        step('key', {'key': 'Escape'}, asserts=[('screen_contains', {'text': 'F10Quit'})]),
        step('resize', {'rows': 30, 'cols': 100},
             asserts=[('line_contains', {'line': 29, 'text': 'F10Quit'})]),
        step('key', {'key': 'F10'}),
        wait('process_exited', asserts=[('exit_code', {'code': 0})]),
    ], {'HOME': d, 'XDG_CONFIG_HOME': os.path.join(d, 'config')}, shell=True, cwd=d)
    st, out, err = play(d, 'htop', sc)
    assert st == 0, (st, err)


def asciinema_cat(d, cast):
    """`asciinema cat CAST` with a terminal of its own; returns (status, stdout bytes)."""
    out_path = os.path.join(d, 'cat.out')
    with open(out_path, 'wb') as out:
        pid, master = pty.fork()
        if pid == 0:
            os.dup2(out.fileno(), 1)
            os.execvp('asciinema', ['asciinema', 'cat', cast])
    while True:
        try:
            if not os.read(master, 65536):
                break
        except OSError:
            break
    os.close(master)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), open(out_path, 'rb').read()


def cast_output(cast):
    lines = open(cast, encoding='utf-8').read().splitlines()
    hdr = json.loads(lines[0])
    assert hdr['version'] == 2, hdr
    return ''.join(e[2] for e in map(json.loads, lines[1:]) if e[1] == 'o').encode('utf-8')


@case
def asciinema_plays_recordings(d):
    if not shutil.which('asciinema'):
        print('skip asciinema_plays_recordings: asciinema is not installed (scripts/setup-deps.sh)')
        return
    # A live recording: colours, a wide character split across writes, a resize.
    prog = ('import sys, time\n'
            'w = sys.stdout.buffer\n'
            'w.write(b"\\x1b[1;31mred\\x1b[0m \\xe6\\x97"); w.flush(); time.sleep(0.05)\n'
            'w.write(b"\\xa5 done\\r\\n"); w.flush()\n'
            'sys.stdin.readline()\n')
    open(os.path.join(d, 'prog.py'), 'w').write(prog)
    py = os.path.realpath(shutil.which('python3') or '/usr/bin/python3')
    sc = scenario('cast', py, [os.path.join(d, 'prog.py')], [
        wait('screen_contains', {'text': 'red \u65e5 done'}),
        step('resize', {'rows': 20, 'cols': 60}),
        step('text', {'text': '\n'}),
        wait('process_exited'),
    ], {})
    st, out, err = play(d, 'cast', sc, '--cast', 'live.cast')
    assert st == 0, (st, err)
    casts = [os.path.join(d, 'live.cast')] + sorted(
        os.path.join(REPLAY, f) for f in os.listdir(REPLAY) if f.endswith('.cast'))
    for cast in casts:
        status, got = asciinema_cat(d, cast)
        assert status == 0, '%s: asciinema cat exited %d: %r' % (cast, status, got[-500:])
        want = cast_output(cast)
        assert got == want, '%s: asciinema cat printed %d bytes, the recording holds %d' % (
            cast, len(got), len(want))
    assert b'\x1b[1;31mred\x1b[0m \xe6\x97\xa5 done' in cast_output(casts[0])


if __name__ == '__main__':
    finish()
