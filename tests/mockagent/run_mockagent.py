#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""run_mockagent.py - `scvm agent` end to end: one case of the scenarios in
tests/mockagent/ (compiled by the build's scc into FIXTURES), played in a
fresh work folder, checked for its exit status, transcript, diagnostics
and what it did to the folder.

usage: run_mockagent.py SCVM FIXTURES WORKDIR CASE

Each case is a function; it fails by raising AssertionError.  Exit 0 when
it passed, 1 when it failed.
"""
import json
import re
import os
import shutil
import signal
import subprocess
import sys
import time

SCVM, FIX, WORK, CASE = sys.argv[1:5]
CASES = {}


def case(name):
    def reg(fn):
        CASES[name] = fn
        return fn
    return reg


def agent(args, timeout=60, cwd=None):
    """scvm agent ARGS in WORK/w (made fresh unless it exists)."""
    p = subprocess.run([SCVM, 'agent'] + args, capture_output=True, timeout=timeout, cwd=cwd or WORK,
                       env=dict(os.environ, NO_COLOR=''))
    return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')


def scb(name):
    return os.path.join(FIX, name + '.scb')


def ws():
    w = os.path.join(WORK, 'w')
    os.makedirs(w, exist_ok=True)
    return w


def read(path):
    with open(path) as f:
        return f.read()


@case('pass')
def pass_():
    w = ws()
    st, out, err = agent(['--speed', '0', '--cwd', w, scb('pass')])
    assert st == 0, 'exit %d\n%s\n%s' % (st, out, err)
    assert read(os.path.join(w, 'src/notes.txt')) == \
        'one\nscvm agentEdits src/notes.txt +1/2\nscvm agentEdits src/notes.txt +2/2\n', read(os.path.join(w, 'src/notes.txt'))
    assert read(os.path.join(w, 'docs/new.md')) == '# title\n'
    # 7 tool results, 1 edit, 3 assert checks
    assert err == 'scvm agent: 7 tools, 1 edit, 11 checks: 11 passed, 0 failed\n', err
    # the transcript: thinking, the answer, each tool with its output, in order
    want = ['(thinking) Planning the change', 'I will create the file.',
            '> runCmd {"cmd":"mkdir -p src && printf \'one\\\\ntwo\\\\n\' > src/notes.txt && echo made"}',
            '  | made', '  = ok (exit 0)', '> readFile {"path":"src/notes.txt","offset":1,"limit":1}', '  | two',
            '> agentEdits src/notes.txt +2 -1', '  = ok (3 lines)', '  | src/notes.txt:2', '  | docs/new.md',
            '  | failing', '  = error (exit 4)', '> assert', '  = ok (3 passed, 0 failed, 0 skipped)', 'Done.']
    lines = out.splitlines()
    at = 0
    for w_ in want:
        assert w_ in lines[at:], 'transcript lacks %r after line %d:\n%s' % (w_, at, out)
        at = lines.index(w_, at) + 1
    assert '\033[' not in out, 'colour on a pipe'
    st2, out2, err2 = agent(['--speed', '0', '--cwd', ws2(), scb('pass')])
    assert (st2, out2, err2) == (st, out, err), 'a second run differs'


@case('relative_cwd')
def relative_cwd():
    """--cwd as a relative path (the README's form): sed and runCmd's cwd
    work below it."""
    os.makedirs(os.path.join(WORK, 'rel'), exist_ok=True)
    st, out, err = agent(['--speed', '0', '--cwd', 'rel', scb('relative_cwd')], cwd=WORK)
    assert st == 0 and err == 'scvm agent: 3 tools, 0 edits, 4 checks: 4 passed, 0 failed\n', \
        'exit %d\n%s\n%s' % (st, out, err)
    assert read(os.path.join(WORK, 'rel', 'src', 'a.py')) == 'x = 2\n'


def ws2():
    w = os.path.join(WORK, 'w2')
    os.makedirs(w, exist_ok=True)
    return w




@case('transcript')
def transcript():
    # the transcript is a golden: transcript.out beside this script
    golden = read(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'transcript.out'))
    st, out, err = agent(['--speed', '0', '--cwd', ws(), scb('transcript')])
    assert st == 0, 'exit %d\n%s' % (st, err)
    if out != golden:
        import difflib
        raise AssertionError('transcript differs from transcript.out:\n' + ''.join(
            difflib.unified_diff(golden.splitlines(True), out.splitlines(True), 'transcript.out', 'actual')))
    assert err == 'scvm agent: 2 tools, 0 edits, 2 checks: 2 passed, 0 failed\n', err
    # styles only when asked for (or on a terminal): the same text inside them
    st, out, err = agent(['--speed', '0', '--color', 'always', '--cwd', ws(), scb('transcript')])
    assert out.startswith('\033[2m(thinking) First line of the thought\033[0m\n'), repr(out[:80])
    assert re.sub('\033\\[[0-9;]*m', '', out) == golden, 'styled text differs'


@case('checkpoint_count')
def checkpoint_count():
    w = ws()
    log = os.path.join(WORK, 'checkpoints.log')
    st, out, err = agent(['--speed', '0', '--cwd', w, '--checkpoint-cmd', 'pwd >> %s' % log, scb('pass')])
    assert st == 0, 'exit %d\n%s' % (st, err)
    runs = read(log).splitlines()
    assert len(runs) == 8, '%d checkpoints for 7 tools and 1 edit' % len(runs)   # after each tool and edit
    assert set(runs) == {os.path.realpath(w)}, runs                              # in the work folder
    assert '19 checks: 19 passed' in err, err


@case('json')
def json_summary():
    st, out, err = agent(['--speed', '0', '--cwd', ws(), '--json', '--checkpoint-cmd', 'true', scb('fail_assert')])
    assert st == 1, st
    j = json.loads(out)
    assert (j['scenario'], j['status'], j['tools'], j['checkpoints'], j['checks'], j['passed'], j['failed']) == \
        ('ma_fail_assert', 1, 1, 1, 4, 3, 1), j
    assert j['failures'] == [{'line': 5, 'kind': 'assert', 'message': "assert: fs.exists 'never.txt': does not exist"}], j
    assert 'scvm agent: 1 tool, 0 edits, 4 checks: 3 passed, 1 failed' in err, err


@case('fail_result')
def fail_result():
    st, out, err = agent(['--speed', '0', '--cwd', ws(), scb('fail_result')])
    assert st == 1, st
    assert err == ("scvm: fail_result.yaml:4: runCmd: the result does not match the scenario's\n"
                   "--- expected\n+++ actual\n-TWO\n+two\n"
                   "scvm agent: 1 tool, 0 edits, 1 check: 0 passed, 1 failed\n"), err
    assert "  ! runCmd: the result does not match the scenario's" in out, out


@case('fail_status')
def fail_status():
    w = ws()
    st, out, err = agent(['--speed', '0', '--cwd', w, scb('fail_status')])
    assert st == 1, st
    assert ("scvm: fail_status.yaml:5: runCmd: the result does not match the scenario's\n"
            "status: expected ok, the tool's is error (exit 2)\nthe result was:\n  broken\n") in err, err
    assert ("scvm: fail_status.yaml:7: editFile: the result does not match the scenario's\n"
            "status: expected ok, the tool's is error\nthe result was:\n"
            "  editFile: 'a.txt': old_string not found in the file\n") in err, err
    assert 'scvm agent: 3 tools, 0 edits, 3 checks: 1 passed, 2 failed' in err, err
    assert read(os.path.join(w, 'a.txt')) == 'alpha\n'


@case('fail_assert')
def fail_assert():
    st, out, err = agent(['--speed', '0', '--cwd', ws(), scb('fail_assert')])
    assert st == 1, st
    assert "scvm: fail_assert.yaml:5: assert: fs.exists 'never.txt': does not exist\n" in err, err
    assert '  = error (1 passed, 1 failed, 0 skipped)' in out, out


@case('fail_checkpoint')
def fail_checkpoint():
    # the checkpoint fails once docs/new.md exists: after writeFile and every step after it
    st, out, err = agent(['--speed', '0', '--cwd', ws(), '--checkpoint-cmd', 'echo snap; test ! -e docs/new.md',
                          scb('pass')])
    assert st == 1, st
    assert "scvm: pass.yaml:17: checkpoint after writeFile failed (exit 1)\nsnap\n" in err, err
    assert "scvm: pass.yaml:19: checkpoint after agentEdits failed (exit 1)\n" in err, err
    assert 'scvm agent: 7 tools, 1 edit, 19 checks: 13 passed, 6 failed' in err, err


@case('fail_edit')
def fail_edit():
    st, out, err = agent(['--speed', '0', '--cwd', ws(), scb('fail_edit')])
    assert st == 1, st
    assert "scvm: fail_edit.yaml:5: agentEdits 'short.txt' removes 3 lines, but the file has 1\n" in err, err


@case('claude_code')
def claude_code():
    w = ws()
    st, out, err = agent(['--speed', '0', '--cwd', w, '--agent', 'claude-code', scb('claude_code')])
    assert st == 0, 'exit %d\n%s\n%s' % (st, out, err)
    assert read(os.path.join(w, 'notes.txt')) == 'hello world\n'
    assert '> runCmd {"cmd":"printf' in out and '> editFile {"path":"notes.txt"' in out, out
    assert 'scvm agent: 3 tools, 0 edits, 3 checks: 3 passed, 0 failed' in err, err


@case('unmapped_tool')
def unmapped_tool():
    w = ws()
    st, out, err = agent(['--speed', '0', '--cwd', w, scb('claude_code')])
    assert st == 2, st
    assert ("scvm: claude_code.yaml:8: the mock agent cannot execute tool 'Bash' (it executes runCmd, readFile, "
            "writeFile, editFile, grep, glob, listDir, find, sed, bashOutput, killShell, notebookEdit, webFetch, "
            "and plays task, webSearch, todoWrite, exitPlanMode, slashCommand); an agent's tool name needs "
            "--agent NAME") in err, err
    assert out == '' and os.listdir(w) == [], 'something ran'
    st, out, err = agent(['--speed', '0', '--cwd', w, '--agent', 'codex', scb('claude_code')])
    assert st == 2 and 'the profile does not map it either' in err, err


@case('unsupported_tool')
def unsupported_tool():
    w = ws()
    st, out, err = agent(['--speed', '0', '--cwd', w, scb('unsupported')])
    assert st == 2, st
    assert "scvm: unsupported.yaml:5: the mock agent cannot execute tool 'browseTheWeb'" in err, err
    assert not os.path.exists(os.path.join(w, 'ran.txt')), 'a tool ran before the refusal'


def left_running(marker):
    """The processes whose command line is `sleep MARKER`."""
    found = []
    for pid in os.listdir('/proc'):
        try:
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                if f.read().split(b'\0')[:2] == [b'sleep', marker.encode()]:
                    found.append(pid)
        except OSError:
            pass
    return found


@case('background')
def background():
    w = ws()
    st, out, err = agent(['--speed', '0', '--cwd', w, scb('background')])
    assert st == 0, 'exit %d\n%s\n%s' % (st, out, err)
    assert 'scvm agent: 14 tools, 0 edits, 14 checks: 14 passed, 0 failed' in err, err
    assert '> killShell {"shell_id":"bash_1"}\n  | killed shell bash_1\n  = ok\n' in out, out
    # the shells still running at the end (bash_3, its child and its
    # setsid -f daemon) went with the run
    assert left_running('6173') == [], 'left running: %s' % left_running('6173')


@case('notebook')
def notebook():
    w = ws()
    st, out, err = agent(['--speed', '0', '--cwd', w, scb('notebook')])
    assert st == 0, 'exit %d\n%s\n%s' % (st, out, err)
    nb = json.loads(read(os.path.join(w, 'nb.ipynb')))
    cells = nb['cells']
    assert [c.get('id') for c in cells] == ['cell-3', 'calc'], cells
    assert cells[0] == {'cell_type': 'markdown', 'id': 'cell-3', 'metadata': {}, 'source': ['Some words.']}, cells[0]
    # a replaced code cell loses its outputs and execution count, as in Jupyter
    assert cells[1] == {'cell_type': 'code', 'id': 'calc', 'metadata': {}, 'execution_count': None, 'outputs': [],
                        'source': ['x = 6 * 7\n', 'print(x)']}, cells[1]
    assert nb['nbformat'] == 4 and nb['nbformat_minor'] == 5, nb


def serve(folder):
    """A python http.server on 127.0.0.1 (a free port) serving folder."""
    import functools
    import http.server
    import threading
    h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=folder)
    h.log_message = lambda *a: None
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), h)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


@case('scripted')
def scripted():
    w = ws()
    site = os.path.join(WORK, 'site')
    os.makedirs(site)
    with open(os.path.join(site, 'page.txt'), 'w') as f:
        f.write('This page is served by the test.\n')
    with open(os.path.join(site, 'notes.json'), 'w') as f:
        f.write('{"ok": true}\n')
    srv = serve(site)
    try:
        # the scenario as data, with the server's port where it says PORT
        src = read(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'scripted.yaml'))
        y = os.path.join(WORK, 'scripted.yaml')
        with open(y, 'w') as f:
            f.write(src.replace('PORT', str(srv.server_address[1])))
        st, out, err = agent(['--speed', '0', '--cwd', w, y])
    finally:
        srv.shutdown()
    assert st == 0, 'exit %d\n%s\n%s' % (st, out, err)
    assert 'scvm agent: 9 tools, 0 edits, 9 checks: 9 passed, 0 failed' in err, err
    assert '  | The off-by-one is in src/a.py line 3\n  = ok (scripted)\n' in out, out
    assert '  | The user rejected the plan\n  = error (scripted)\n' in out, out
    assert '  | This page is served by the test.\n  = ok (HTTP 200, 33 bytes)\n' in out, out
    assert '= error (HTTP 404' in out, out
    # the compiled fixture names a port nothing listens on: the same
    # scenario fails, the scripted tools still pass
    st, out, err = agent(['--speed', '0', '--cwd', w, '--json', scb('scripted')])
    j = json.loads(out)
    assert st == 1 and [f['tool'] for f in j['failures']] == ['webFetch', 'webFetch'], out


@case('scripted_regex')
def scripted_regex():
    w = ws()
    st, out, err = agent(['--speed', '0', '--cwd', w, scb('scripted_regex')])
    assert st == 2, 'exit %d\n%s\n%s' % (st, out, err)
    assert ("scvm: scripted_regex.yaml:6: webSearch: the scenario's result is the tool's result, so it must be "
            "text, {exact} or {contains}, not {regex}") in err, err
    assert not os.path.exists(os.path.join(w, 'ran.txt')), 'a tool ran before the refusal'


@case('pack_selection')
def pack_selection():
    pack = os.path.join(FIX, 'two.scp')
    st, out, err = agent(['--speed', '0', '--cwd', ws(), pack])
    assert st == 2 and 'agent plays one scenario; ' in err and 'has 2 selected' in err, err
    st, out, err = agent(['--speed', '0', '--cwd', ws(), '--scenario', 'ma_pass', pack])
    assert st == 0, err
    st, out, err = agent(['--speed', '0', '--cwd', ws(), '--scenario', 'ma_pas', pack])
    assert st == 2 and "did you mean 'ma_pass'?" in err, err


@case('pacing')
def pacing():
    t0 = time.monotonic()
    st, out, err = agent(['--cwd', ws(), scb('pacing')])
    slow = time.monotonic() - t0
    t0 = time.monotonic()
    st2, out2, err2 = agent(['--speed', '0', '--cwd', ws(), scb('pacing')])
    fast = time.monotonic() - t0
    t0 = time.monotonic()
    st3, out3, err3 = agent(['--speed', '0.5', '--cwd', ws(), scb('pacing')])
    half = time.monotonic() - t0
    assert st == st2 == st3 == 0 and out == out2 == out3 == 'At last.\n', (out, out2, out3)
    assert slow >= 0.6, 'speed 1 took %.3f s for a 600 ms timeline' % slow
    assert half >= 0.3, 'speed 0.5 took %.3f s for a 300 ms timeline' % half
    assert fast < slow, 'speed 0 (%.3f s) was not faster than speed 1 (%.3f s)' % (fast, slow)


@case('sigterm')
def sigterm():
    w = ws()
    p = subprocess.Popen([SCVM, 'agent', '--speed', '0', '--cwd', w, scb('slow')], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    pidfile = os.path.join(w, 'sleeper.pid')
    deadline = time.monotonic() + 20
    while not (os.path.exists(pidfile) and read(pidfile).strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert os.path.exists(pidfile), 'the command did not start'
    sleeper = int(read(pidfile))
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=20)
    took = time.monotonic() - t0
    assert p.returncode == 143, 'exit %d: %s' % (p.returncode, err)
    assert took < 5, 'took %.1f s to stop' % took
    assert b'scvm: agent: interrupted by signal 15' in err, err
    # the command's pid is its PID namespace's ($$ there): find what is
    # left by its working folder instead
    left = []
    for d in os.listdir('/proc'):
        try:
            if d.isdigit() and os.path.realpath(os.readlink('/proc/%s/cwd' % d)) == os.path.realpath(w):
                left.append(d)
        except OSError:
            pass
    assert not left, 'the command (pid %d in its namespace) is still running: %s' % (sleeper, left)


@case('sigint_wait')
def sigint_wait():
    # a signal while the agent waits for an op's time ends the wait at once
    p = subprocess.Popen([SCVM, 'agent', '--cwd', ws(), scb('long_wait')], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    first = p.stdout.readline()
    assert first == b'Thinking it over.\n', first
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=20)
    took = time.monotonic() - t0
    assert p.returncode == 130, 'exit %d: %s' % (p.returncode, err)
    assert took < 3, 'took %.1f s to stop' % took
    assert out == b'', 'it went on after the signal: %r' % out
    assert err.endswith(b'scvm agent: 0 tools, 0 edits, 0 checks: 0 passed, 0 failed\n'), err


@case('bad_input')
def bad_input():
    garbage = os.path.join(WORK, 'garbage.scb')
    with open(garbage, 'wb') as f:
        f.write(b'\x89SCB\r\n\x1a\nthis is not a real scenario' * 3)
    st, out, err = agent(['--cwd', ws(), garbage])
    assert st == 4 and 'rejected' in err, (st, err)
    st, out, err = agent(['--cwd', os.path.join(WORK, 'missing'), scb('pass')])
    assert st == 2 and 'cannot work there' in err, (st, err)
    st, out, err = agent(['--color', 'sometimes', scb('pass')])
    assert st == 2 and "invalid --color 'sometimes'" in err, (st, err)
    st, out, err = agent(['--cwd', ws(), '--agent', 'no-such-agent', scb('pass')])
    assert st == 2, (st, err)
    st, out, err = agent([])
    assert st == 2 and 'agent: no input file' in err, (st, err)
    st, out, err = agent(['--cwd', ws(), os.path.join(WORK, 'nothere.scb')])
    assert st == 3, (st, err)
    # every truncation of a real file is refused, never crashes
    data = open(scb('pass'), 'rb').read()
    for k in range(0, len(data), 7):
        with open(garbage, 'wb') as f:
            f.write(data[:k])
        st, out, err = agent(['--speed', '0', '--cwd', ws(), garbage])
        assert st == 4, 'truncated at %d: exit %d %s' % (k, st, err)


@case('stdin_prompts')
def stdin_prompts():
    def play(data):
        w = os.path.join(WORK, 'w%d' % len(data))
        os.makedirs(w)
        p = subprocess.run([SCVM, 'agent', '--speed', '0', '--stdin-prompts', '--cwd', w, scb('fix_typo')],
                           input=data, capture_output=True, timeout=60, cwd=WORK)
        return p.returncode, p.stderr.decode()
    st, err = play(b'Create notes.txt, then fix its typo\r\n')
    assert st == 0 and '4 checks: 4 passed' in err, (st, err)
    st, err = play(b'Create notes.txt\n')
    assert st == 1 and ("scvm: fix_typo.yaml:5: userInputs: the prompt on the input is not the scenario's\n"
                        "expected:\n  Create notes.txt, then fix its typo\ngot:\n  Create notes.txt\n") in err, err
    st, err = play(b'')
    assert st == 1 and 'the input ended' in err, err


@case('pty_host')
def pty_host():
    # A terminal program launches the mock agent as its agent: scvm -t pty
    # runs `scvm agent` in a PTY, and the scripted answer is on its screen.
    w = ws()
    p = subprocess.run([SCVM, 'run', '-t', 'pty', '--artifacts', os.path.join(WORK, 'art'), scb('pty_host'), '--',
                        SCVM, 'agent', '--speed', '0.2', '--cwd', w, scb('fix_typo')],
                       capture_output=True, timeout=60, cwd=WORK)
    out, err = p.stdout.decode(), p.stderr.decode()
    assert p.returncode == 0, 'exit %d\n%s\n%s' % (p.returncode, out, err)
    asserts = [json.loads(l) for l in out.splitlines() if '"kind":"assert"' in l]
    assert asserts and all(a.get('passed') for a in asserts), out
    assert read(os.path.join(w, 'notes.txt')) == 'hello world\n'
    shots = os.path.join(WORK, 'art', 'transcript.log')
    if os.path.exists(shots):
        assert 'Done: notes.txt says hello world.' in read(shots)





@case('pty_prompt')
def pty_prompt():
    # The prompt typed into the terminal reaches the agent on its stdin; it
    # answers only after it, and says so on the screen.
    w = ws()
    art = os.path.join(WORK, 'art')
    p = subprocess.run([SCVM, 'run', '-t', 'pty', '--artifacts', art, scb('pty_prompt_host'), '--',
                        SCVM, 'agent', '--speed', '0', '--stdin-prompts', '--cwd', w, scb('fix_typo')],
                       capture_output=True, timeout=60, cwd=WORK)
    out, err = p.stdout.decode(), p.stderr.decode()
    assert p.returncode == 0, 'exit %d\n%s\n%s' % (p.returncode, out, err)
    screen = read(os.path.join(art, 'transcript.log'))
    prompt = screen.find('Create notes.txt, then fix its typo')
    answer = screen.find('I will create the file first.')
    assert 0 <= prompt < answer, 'the answer came before the prompt:\n' + screen
    assert '4 checks: 4 passed, 0 failed' in screen, screen

if CASE not in CASES:
    sys.exit('run_mockagent.py: no case %r (have: %s)' % (CASE, ', '.join(sorted(CASES))))
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
try:
    CASES[CASE]()
except AssertionError as e:
    print('FAIL %s: %s' % (CASE, e))
    sys.exit(1)
print('ok   %s' % CASE)
