#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""driver_test.py SCVM WORK DOCS_DIR [SCC] - `scvm driver --stdio --json` and
`scvm exec` (docs/driver.md) as a script driving a terminal program would use
them: less and vim driven through the NDJSON protocol, observations checked,
every error code of the protocol, the policy flags and their refusals, a clean
end on EOF with nothing left running, exec's RunResult and exit statuses, and
every example block of docs/driver.md."""
import json
import os
import re
import select
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptycase import case, finish, run, setup  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import fnv1a64  # noqa: E402

SCVM, WORK, DOCS = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
SCC = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 else None
setup(WORK)
PV = 2


def which(name):
    for d in os.environ.get('PATH', '/usr/bin:/bin').split(':'):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return os.path.realpath(p)
    return None


class Driver:
    """A client of the protocol: one request line out, one response line in."""

    def __init__(self, args, cwd, env=None):
        self.p = subprocess.Popen([SCVM, 'driver', '--stdio', '--json'] + args, cwd=cwd, env=env,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b''
        self.n = 0

    def line(self, timeout=30):
        deadline = time.monotonic() + timeout
        while b'\n' not in self.buf:
            left = deadline - time.monotonic()
            assert left > 0, 'no response within %ss' % timeout
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if r:
                chunk = os.read(self.p.stdout.fileno(), 65536)
                if not chunk:
                    raise AssertionError('driver closed stdout; stderr: %s' % self.p.stderr.read().decode())
                self.buf += chunk
        ln, self.buf = self.buf.split(b'\n', 1)
        return json.loads(ln)

    def raw(self, text):
        self.p.stdin.write(text.encode())
        self.p.stdin.flush()
        return self.line()

    def req(self, typ, payload=None, timeout_ms=None, **extra):
        self.n += 1
        r = {'protocol_version': PV, 'request_id': str(self.n), 'action': {'type': typ}}
        if payload is not None:
            r['action']['payload'] = payload
        if timeout_ms is not None:
            r['timeout_ms'] = timeout_ms
        r.update(extra)
        resp = self.raw(json.dumps(r) + '\n')
        assert resp['protocol_version'] == PV, resp
        assert resp['request_id'] == str(self.n), resp
        assert resp['action_metrics']['sequence'] >= 1, resp
        return resp

    def ok(self, typ, payload=None, **kw):
        r = self.req(typ, payload, **kw)
        assert r['status'] == 'ok', r
        obs = r['observation']
        assert obs['protocol_version'] == PV and obs['screen']['snapshot_version'] == 1, obs
        return r

    def wait(self, ctype, timeout_ms=8000, **payload):
        return self.ok('wait', {'condition': {'type': ctype, 'payload': payload}}, timeout_ms=timeout_ms)

    def close(self, timeout=30):
        """EOF on stdin: the last line is the RunResult, the status 0."""
        self.p.stdin.close()
        rr = self.line(timeout)
        rest = self.p.stdout.read()
        rc = self.p.wait(timeout)
        assert rest == b'', rest
        return rc, rr


def policy_file(d, **kw):
    pol = {'policy_version': 4, 'sandbox': 'seatbelt', 'network': 'disabled',
           'fs': {'allowed_read': [d], 'allowed_write': []},
           'exec': {'allowed_executables': [], 'allow_shell': False},
           'env': {'allowlist': ['PATH', 'HOME', 'LANG'], 'inherit': True}}
    for k, v in kw.items():
        pol[k] = v
    path = os.path.join(d, 'policy.json')
    with open(path, 'w') as f:
        json.dump(pol, f)
    return path


def lines(resp):
    return resp['observation']['screen']['lines']


LESS = which('less')
VIM = which('vim.tiny') or which('vim')


@case
def less_pages_and_searches(d):
    if not LESS:
        print('skip: less not installed')
        return
    with open(os.path.join(d, 'numbers.txt'), 'w') as f:
        f.write(''.join('line %03d\n' % i for i in range(1, 301)))
    pol = policy_file(d, exec={'allowed_executables': [LESS]})
    drv = Driver(['--policy', pol, '--rows', '12', '--cols', '50', '--', LESS, 'numbers.txt'], cwd=d)
    r = drv.wait('screen_contains', text='line 011')
    assert lines(r)[0] == 'line 001', lines(r)
    assert r['observation']['screen']['rows'] == 12 and r['observation']['screen']['cols'] == 50
    assert r['observation']['screen']['alternate_screen'] is True, r
    assert 'line 001' in r['observation']['transcript_delta'], r
    r = drv.ok('key', {'key': 'Space'})
    r = drv.wait('line_equals', line=0, text='line 012')
    assert lines(r)[10] == 'line 022', lines(r)
    drv.ok('text', {'text': '/line 250\n'})
    r = drv.wait('line_equals', line=0, text='line 250')
    # the transcript delta holds only what came since the last observation
    assert 'line 001' not in r['observation']['transcript_delta']
    r = drv.ok('resize', {'rows': 8, 'cols': 40})
    r = drv.wait('screen_matches', pattern='line 25[0-9]')
    assert r['observation']['screen']['rows'] == 8 and len(lines(r)) == 8, r
    drv.ok('key', {'key': 'q'})
    r = drv.wait('process_exited')
    assert r['observation']['screen']['alternate_screen'] is False, r
    r = drv.req('key', {'key': 'q'})
    assert r['status'] == 'error' and r['error']['code'] == 'E_PROCESS_EXIT', r
    rc, rr = drv.close()
    assert rc == 0, rc
    assert rr['status'] == 'passed' and rr['exit_status'] == {
        'success': True, 'exit_code': 0, 'signal': None, 'terminated_by_harness': False}, rr
    assert rr['protocol_version'] == PV and rr['run_result_version'] == 1, rr
    assert rr['policy']['exec']['allowed_executables'] == [LESS], rr


@case
def vim_edits_a_file(d):
    if not VIM:
        print('skip: vim not installed')
        return
    pol = policy_file(d, exec={'allowed_executables': [VIM]}, fs={'allowed_read': [d], 'allowed_write': [d]})
    # allowed_write needs the acknowledgement: refused without it ...
    code, out, err = run([SCVM, 'driver', '--stdio', '--json', '--policy', pol, '--', VIM, '-u', 'NONE'], cwd=d)
    assert code == 2, (code, out, err)
    e = json.loads(out)
    assert e['error']['code'] == 'E_POLICY_DENIED' and 'fs_write_unsafe_ack' in e['error']['message'], e
    # ... and given with --ack-unsafe-write
    drv = Driver(['--policy', pol, '--ack-unsafe-write', '--rows', '10', '--cols', '60', '--',
                  VIM, '-u', 'NONE', '-i', 'NONE', '-N', 'notes.txt'], cwd=d)
    r = drv.wait('screen_contains', text='notes.txt')
    drv.ok('key', {'key': 'i'})
    drv.ok('text', {'text': 'hello from the driver\nsecond line'})
    r = drv.wait('line_equals', line=1, text='second line')
    assert lines(r)[0] == 'hello from the driver', lines(r)
    assert r['observation']['screen']['cursor'] == {'row': 1, 'col': 11, 'visible': True}, r
    drv.ok('key', {'key': 'Escape'})
    drv.ok('key', {'key': 'Up'})        # in the cursor-key mode vim set
    drv.ok('text', {'text': ':wq\n'})
    r = drv.wait('exit_code', code=0)
    rc, rr = drv.close()
    assert rc == 0 and rr['exit_status']['exit_code'] == 0, rr
    with open(os.path.join(d, 'notes.txt')) as f:
        assert f.read() == 'hello from the driver\nsecond line\n'


@case
def protocol_errors_keep_the_session(d):
    cat = which('cat')
    drv = Driver(['--no-sandbox', '--ack-unsafe-sandbox', '--rows', '5', '--cols', '30', '--', cat], cwd=d)
    r = drv.raw('this is not json\n')
    assert r['status'] == 'error' and r['error']['code'] == 'E_PROTOCOL' and r['request_id'] is None, r
    r = drv.raw('{"request_id":"a","action":{"type":"observe"}}\n')
    assert r['error']['code'] == 'E_PROTOCOL' and 'protocol_version' in r['error']['message'], r
    assert r['request_id'] == 'a', r
    r = drv.raw('{"protocol_version":1,"request_id":7,"action":{"type":"observe"}}\n')
    assert r['error']['code'] == 'E_PROTOCOL_VERSION_MISMATCH' and r['request_id'] == 7, r
    # a request_id JSON cannot echo (1e999 reads as infinity) comes back as null: the
    # response was `"request_id":inf`, not JSON (issue 34 item 5, jsonw's jw_f64)
    drv.p.stdin.write(b'{"protocol_version":2,"request_id":1e999,"action":{"type":"observe"}}\n')
    drv.p.stdin.flush()
    r = drv.line()
    assert r['status'] == 'ok' and r['request_id'] is None, r
    r = drv.raw('{"protocol_version":2,"request_id":0.5,"action":{"type":"observe"}}\n')
    assert r['request_id'] == 0.5, r
    r = drv.raw('[1,2]\n')
    assert r['error']['code'] == 'E_PROTOCOL', r
    r = drv.raw('\n   \n{"protocol_version":2,"action":{"type":"observe"}}\n')   # blank lines are skipped
    assert r['status'] == 'ok', r
    for typ, payload, code, words in [
            ('dance', {}, 'E_PROTOCOL', 'unknown action type'),
            ('key', {'key': 'Hyper+Q'}, 'E_PROTOCOL', 'unknown key'),
            ('key', {}, 'E_PROTOCOL', "needs 'key'"),
            ('text', {'text': 5}, 'E_PROTOCOL', "needs 'text'"),
            ('resize', {'rows': 0, 'cols': 10}, 'E_PROTOCOL', '1-500'),
            ('resize', {'rows': 10, 'cols': 501}, 'E_PROTOCOL', '1-500'),
            ('wait', {}, 'E_PROTOCOL', "needs a 'condition'"),
            ('wait', {'condition': {'type': 'screen_sparkles'}}, 'E_PROTOCOL', 'unknown condition type'),
            ('wait', {'condition': {'type': 'screen_matches', 'payload': {'pattern': '(('}}}, 'E_PROTOCOL',
             'invalid pattern'),
            ('wait', {'condition': {'type': 'cursor_at', 'payload': {'row': 1}}}, 'E_PROTOCOL', "'row' and 'col'")]:
        r = drv.req(typ, payload)
        assert r['status'] == 'error' and r['error']['code'] == code and words in r['error']['message'], (typ, r)
    r = drv.req('observe', [1])
    assert r['error']['code'] == 'E_PROTOCOL', r
    r = drv.req('observe', None, timeout_ms=-5)
    assert r['error']['code'] == 'E_PROTOCOL', r
    # a wait that times out says why and carries the screen
    drv.ok('text', {'text': 'apples\n'})
    r = drv.req('wait', {'condition': {'type': 'screen_contains', 'payload': {'text': 'oranges'}}}, timeout_ms=300)
    assert r['status'] == 'error' and r['error']['code'] == 'E_TIMEOUT', r
    assert 'does not contain "oranges"' in r['error']['message'], r
    assert lines(r)[:2] == ['apples', 'apples'], r
    # a line far longer than any request is refused, and the session goes on
    r = drv.raw('{"x":"' + 'y' * (1 << 21) + '"}\n')
    assert r['error']['code'] == 'E_PROTOCOL' and '1 MiB' in r['error']['message'], r
    r = drv.ok('observe')
    assert lines(r)[:2] == ['apples', 'apples'], r
    rc, rr = drv.close()
    assert rc == 0 and rr['exit_status']['terminated_by_harness'] is True, rr


def alive_with(argv0, marker):
    """Processes running argv0 with the argument marker."""
    n = 0
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                if f.read().split(b'\0')[:2] == [argv0.encode(), marker.encode()]:
                    n += 1
        except OSError:
            pass
    return n


@case
def eof_ends_the_session_and_everything_in_it(d):
    sleep = which('sleep')
    marker = '4242.%d' % os.getpid()
    drv = Driver(['--no-sandbox', '--ack-unsafe-sandbox', '--', sleep, marker], cwd=d)
    r = drv.ok('observe')
    assert alive_with(sleep, marker) >= 1
    rc, rr = drv.close()
    assert rc == 0, rc
    assert rr['exit_status']['terminated_by_harness'] is True and rr['exit_status']['signal'] == 15, rr
    assert {'type': 'exit', 'details': {'signal': 15, 'terminated_by_harness': True}} in \
        rr['final_observation']['events'], rr
    assert alive_with(sleep, marker) == 0, 'the program outlived its session'
    # a terminate request ends it before EOF, with the exit status
    drv = Driver(['--no-sandbox', '--ack-unsafe-sandbox', '--', sleep, marker], cwd=d)
    r = drv.ok('terminate')
    assert r['exit_status']['terminated_by_harness'] is True, r
    assert alive_with(sleep, marker) == 0
    r = drv.req('text', {'text': 'x'})
    assert r['error']['code'] == 'E_PROCESS_EXIT', r
    rc, rr = drv.close()
    assert rc == 0 and rr['status'] == 'passed', rr


@case
def policy_flags_and_refusals(d):
    cat = which('cat')
    sh = which('sh')

    def refused(args, code, status, words):
        c, out, err = run([SCVM, 'driver', '--stdio', '--json'] + args, cwd=d, timeout=60)
        assert c == status, (args, c, out, err)
        e = json.loads(out)
        assert e['protocol_version'] == PV and e['status'] == 'error', e
        assert e['error']['code'] == code and words in e['error']['message'], (args, e)
        assert code in err, err
    refused(['--no-sandbox', '--', cat], 'E_POLICY_DENIED', 2, 'sandbox_unsafe_ack')
    refused(['--enable-network', '--', cat], 'E_POLICY_DENIED', 2, 'network_unsafe_ack')
    refused(['--', sh, '-c', 'echo hi'], 'E_POLICY_DENIED', 2, 'allow_shell')
    refused(['--policy', policy_file(d), '--', cat], 'E_POLICY_DENIED', 2, 'allowed_executables')
    refused(['--policy', policy_file(d, fs={'allowed_read': ['/']}), '--', cat], 'E_POLICY_DENIED', 2,
            'system root')
    refused(['--policy', policy_file(d, policy_version=3), '--', cat], 'E_PROTOCOL_VERSION_MISMATCH', 8,
            'policy_version')
    refused(['--policy', os.path.join(d, 'missing.json'), '--', cat], 'E_IO', 10, 'cannot read')
    with open(os.path.join(d, 'bad.json'), 'w') as f:
        f.write('{"policy_version": 4,')
    refused(['--policy', os.path.join(d, 'bad.json'), '--', cat], 'E_PROTOCOL', 9, 'not a JSON policy')
    refused(['--', '/nonexistent/program'], 'E_POLICY_DENIED', 2, 'not found')
    refused(['--'], 'E_CLI_INVALID_ARG', 12, 'no program')
    refused(['--rows', '5', 'stray', '--', cat], 'E_CLI_INVALID_ARG', 12, "after '--'")
    c, out, err = run([SCVM, 'driver', '--stdio', '--frobnicate', '--', cat], cwd=d)
    assert c == 12 and 'unknown option' in err, (c, err)
    c, out, err = run([SCVM, 'driver', '--rows', '0', '--stdio', '--json', '--', cat], cwd=d)
    assert c == 12 and 'invalid --rows' in err, (c, err)
    c, out, err = run([SCVM, 'driver', '--json', '--', cat], cwd=d)
    assert c == 12 and json.loads(out)['error']['code'] == 'E_CLI_INVALID_ARG', (c, out)
    # --explain-policy: the effective policy and the sandbox plan, nothing run
    c, out, err = run([SCVM, 'driver', '--stdio', '--json', '--explain-policy', '--', cat], cwd=d)
    e = json.loads(out)
    assert c == 0 and e['allowed'] is True and e['protocol_version'] == PV, (c, out, err)
    # one line, as `scvm run -t pty --explain-policy --json` (the sandbox's plan ended
    # with a newline inside the object: the answer was two lines)
    assert out.count('\n') == 1 and out.endswith('}\n'), out[-200:]
    assert e['policy']['sandbox'] == 'seatbelt' and e['policy']['network'] == 'disabled', e
    assert e['policy']['exec']['allowed_executables'] == [cat] and e['command'] == cat, e
    c, out, err = run([SCVM, 'exec', '--json', '--explain-policy', '--no-sandbox', '--ack-unsafe-sandbox',
                       '--', cat], cwd=d)
    e = json.loads(out)
    assert c == 0 and e['policy']['sandbox'] == 'none' and e['policy']['network_unsafe_ack'] is True, e
    assert e['enforced'] == {'sandbox': 'none'}, e
    c, out, err = run([SCVM, 'exec', '--json', '--explain-policy', '--no-sandbox', '--', cat], cwd=d)
    e = json.loads(out)
    assert c == 2 and e['allowed'] is False and e['error']['code'] == 'E_POLICY_DENIED', e
    # a flag wins over the file: the file's sandbox, the flag's "none"
    pol = policy_file(d, exec={'allowed_executables': [cat]})
    c, out, err = run([SCVM, 'exec', '--json', '--explain-policy', '--policy', pol, '--no-sandbox',
                       '--ack-unsafe-sandbox', '--enable-network', '--', cat], cwd=d)
    e = json.loads(out)
    assert c == 0 and e['policy']['sandbox'] == 'none' and e['policy']['network'] == 'enabled', e
    assert e['policy']['fs']['allowed_read'] == [d], e


@case
def sandbox_holds_in_the_driver(d):
    """The default policy reads nothing beyond the system baseline."""
    cat = which('cat')
    secret = os.path.join(d, 'secret.txt')
    with open(secret, 'w') as f:
        f.write('the secret\n')
    c, out, err = run([SCVM, 'exec', '--json', '--', cat, secret], cwd=d, timeout=60)
    if c == 3:
        print('skip: the kernel has no sandbox here (%s)' % json.loads(out)['error']['message'])
        return
    rr = json.loads(out)
    assert c == 6 and rr['exit_status']['exit_code'] == 1, (c, out)
    assert 'the secret' not in json.dumps(rr['final_observation']), rr
    assert 'Permission denied' in rr['final_observation']['transcript_delta'], rr
    c, out, err = run([SCVM, 'exec', '--json', '--policy', policy_file(d, exec={'allowed_executables': [cat]}),
                       '--', cat, secret], cwd=d, timeout=60)
    rr = json.loads(out)
    assert c == 0 and rr['final_observation']['screen']['lines'][0] == 'the secret', rr


@case
def exec_runs_once(d):
    echo, false, sleep = which('echo'), which('false'), which('sleep')
    ns = ['--no-sandbox', '--ack-unsafe-sandbox']
    c, out, err = run([SCVM, 'exec', '--json'] + ns + ['--rows', '4', '--cols', '20', '--', echo, 'hello', 'world'],
                      cwd=d)
    assert c == 0, (c, out, err)
    rr = json.loads(out)
    assert rr['status'] == 'passed' and rr['protocol_version'] == PV and rr['run_result_version'] == 1, rr
    assert rr['command'] == echo and rr['args'] == ['hello', 'world'] and rr['cwd'] == d, rr
    assert rr['final_observation']['screen']['lines'] == ['hello world', '', '', ''], rr
    assert rr['final_observation']['transcript_delta'] == 'hello world\r\n', rr
    assert rr['exit_status'] == {'success': True, 'exit_code': 0, 'signal': None,
                                 'terminated_by_harness': False}, rr
    assert 'error' not in rr and rr['ended_at_ms'] >= rr['started_at_ms'], rr
    c, out, err = run([SCVM, 'exec'] + ns + ['--rows', '3', '--', echo, 'plain'], cwd=d)
    assert c == 0 and out == 'plain\n', (c, out)   # trailing empty lines left out
    c, out, err = run([SCVM, 'exec', '--json'] + ns + ['--', false], cwd=d)
    rr = json.loads(out)
    assert c == 6 and rr['status'] == 'failed' and rr['error']['code'] == 'E_PROCESS_EXIT', rr
    assert rr['exit_status']['exit_code'] == 1, rr
    pol = policy_file(d, sandbox='none', sandbox_unsafe_ack=True, network_unsafe_ack=True,
                      exec={'allowed_executables': [sleep]}, budgets={'max_runtime_ms': 300})
    c, out, err = run([SCVM, 'exec', '--json', '--policy', pol, '--', sleep, '30'], cwd=d)
    rr = json.loads(out)
    assert c == 4 and rr['error']['code'] == 'E_TIMEOUT' and 'max_runtime_ms' in rr['error']['message'], rr
    assert rr['exit_status']['terminated_by_harness'] is True, rr
    c, out, err = run([SCVM, 'exec', '--json', '--cwd', '/', '--'] + ns[:0] + ['/nonexistent'], cwd=d)
    assert c == 2, (c, out)



@case
def sandbox_unavailable_fails_closed(d):
    """A kernel without a piece the default policy needs: E_SANDBOX_UNAVAILABLE (3), nothing started;
    SCVM_SANDBOX_DISABLE is the documented test hook (docs/pty.md)."""
    cat = which('cat')
    env = dict(os.environ, SCVM_SANDBOX_DISABLE='landlock')
    for cmd in (['driver', '--stdio', '--json'], ['exec', '--json']):
        p = subprocess.run([SCVM] + cmd + ['--', cat], cwd=d, env=env, capture_output=True, timeout=60)
        e = json.loads(p.stdout)
        assert p.returncode == 3 and e['error']['code'] == 'E_SANDBOX_UNAVAILABLE', (cmd, p.returncode, p.stdout)
        assert 'landlock' in e['error']['message'].lower(), e
    # the acknowledgement runs with the pieces there are
    p = subprocess.run([SCVM, 'exec', '--json', '--ack-unsafe-sandbox', '--', which('true')], cwd=d, env=env,
                       capture_output=True, timeout=60)
    assert p.returncode == 0 and json.loads(p.stdout)['status'] == 'passed', (p.returncode, p.stdout, p.stderr)


@case
def observe_sees_the_screen_of_now(d):
    """Output that came while the client was away is in the next observation."""
    py = which('python3')
    if not py:
        print('skip: python3 not installed')
        return
    drv = Driver(['--no-sandbox', '--ack-unsafe-sandbox', '--rows', '4', '--cols', '30', '--', py, '-c',
                  'import time; time.sleep(0.4); print("late news"); time.sleep(30)'], cwd=d)
    r = drv.ok('observe')
    assert 'late news' not in lines(r), r
    time.sleep(1.5)
    r = drv.ok('observe')
    assert lines(r)[0] == 'late news', r
    drv.close()
    # a wait that cannot hold any more says so at once
    drv = Driver(['--no-sandbox', '--ack-unsafe-sandbox', '--', which('true')], cwd=d)
    drv.wait('process_exited')
    t0 = time.monotonic()
    r = drv.req('wait', {'condition': {'type': 'screen_contains', 'payload': {'text': 'never'}}}, timeout_ms=8000)
    assert r['error']['code'] == 'E_TIMEOUT' and 'the program has exited' in r['error']['message'], r
    assert time.monotonic() - t0 < 6, 'waited out its time for a program that is gone'
    rc, rr = drv.close()
    assert rc == 0 and rr['exit_status']['exit_code'] == 0, rr


@case
def a_client_that_stops_reading(d):
    """stdout closed under the driver: it ends the session, exits 10 (E_IO), leaves nothing running."""
    sleep = which('sleep')
    marker = '4343.%d' % os.getpid()
    p = subprocess.Popen([SCVM, 'driver', '--stdio', '--json', '--no-sandbox', '--ack-unsafe-sandbox', '--', sleep,
                          marker], cwd=d, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()
    try:
        p.stdin.write(b'{"protocol_version":2,"action":{"type":"observe"}}\n')
        p.stdin.flush()
    except BrokenPipeError:
        pass
    rc = p.wait(30)
    assert rc == 10, (rc, p.stderr.read())
    assert alive_with(sleep, marker) == 0


@case
def hostile_requests_get_one_answer_each(d):
    """Random bytes and ill-typed requests (a fixed seed): one response per line, never a crash."""
    import random
    rnd = random.Random(20)
    vals = [None, True, 0, -1, 1e300, 'x', '', [], {}, [1, 'a'], {'type': 'x'}, 'Ctrl+', '\u0000', 'A' * 5000]
    lines_ = []
    for i in range(300):
        k = rnd.randrange(4)
        if k == 0:
            b = bytes(rnd.randrange(1, 256) for _ in range(rnd.randrange(1, 200))).replace(b'\n', b' ')
            lines_.append(b.decode('latin-1'))
        else:
            typ = rnd.choice(['key', 'text', 'resize', 'wait', 'observe', 'terminate', 'dance', 5, None])
            if typ == 'terminate':
                typ = 'observe'     # keep the program for the other lines
            pl = {rnd.choice(['key', 'text', 'rows', 'cols', 'condition', 'zz']): rnd.choice(vals) for _ in range(2)}
            if typ == 'wait' and rnd.random() < 0.5:
                pl = {'condition': {'type': rnd.choice(['screen_contains', 'cursor_at', 'line_equals', 'nope', 3]),
                                    'payload': {rnd.choice(['text', 'row', 'col', 'line', 'pattern']): rnd.choice(vals)
                                                for _ in range(3)}}}
            req = {'protocol_version': rnd.choice([2, 2, 2, 1, '2', None]), 'request_id': i,
                   'action': {'type': typ, 'payload': rnd.choice([pl, pl, None, [], 'x'])},
                   'timeout_ms': rnd.choice([None, 0, 50, -1, 'soon', 700000])}
            lines_.append(json.dumps(req))
    cat = which('cat')
    drv = Driver(['--no-sandbox', '--ack-unsafe-sandbox', '--rows', '5', '--cols', '20', '--', cat], cwd=d)
    for ln in lines_:
        drv.p.stdin.write(ln.encode('latin-1', 'replace') + b'\n')
        drv.p.stdin.flush()
        r = drv.line(60)
        assert r['protocol_version'] == PV and r['status'] in ('ok', 'error'), r
        if r['status'] == 'error':
            assert r['error']['code'] in ('E_PROTOCOL', 'E_PROTOCOL_VERSION_MISMATCH', 'E_TIMEOUT',
                                          'E_PROCESS_EXIT'), r
    rc, rr = drv.close()
    assert rc == 0 and rr['run_result_version'] == 1, rr


def check_artifacts(art, rr):
    """The data model's artifacts of one session, consistent with each other and with the RunResult printed."""
    assert json.load(open(os.path.join(art, 'run.json'))) == rr
    sums = json.load(open(os.path.join(art, 'checksums.json')))
    on_disk = set(os.path.relpath(os.path.join(r, f), art) for r, _, fs in os.walk(art) for f in fs)
    assert set(sums) == on_disk - {'checksums.json'}, (sums, on_disk)
    for rel, want in sums.items():
        assert fnv1a64(open(os.path.join(art, rel), 'rb').read()) == want, rel
    obs = [json.loads(l) for l in open(os.path.join(art, 'events.jsonl'))]
    snaps = sorted(os.listdir(os.path.join(art, 'snapshots')))
    assert len(obs) == len(snaps) and obs[-1] == rr['final_observation'], (len(obs), snaps)
    for o, f in zip(obs, snaps):
        assert json.load(open(os.path.join(art, 'snapshots', f))) == o['screen'], f
    assert json.load(open(os.path.join(art, 'policy.json'))) == rr['policy']
    assert json.load(open(os.path.join(art, 'normalization.json')))['source'] == 'default'
    return obs


@case
def artifacts_of_exec_and_driver(d):
    echo, cat = which('echo'), which('cat')
    ns = ['--no-sandbox', '--ack-unsafe-sandbox', '--rows', '3', '--cols', '20']
    c, out, err = run([SCVM, 'exec', '--json', '--artifacts', 'ex'] + ns + ['--', echo, 'kept'], cwd=d)
    assert c == 0, (c, err)
    check_artifacts(os.path.join(d, 'ex'), json.loads(out))
    assert open(os.path.join(d, 'ex', 'transcript.log'), 'rb').read() == b'kept\r\n'
    drv = Driver(['--artifacts', 'dr'] + ns + ['--', cat], cwd=d)
    drv.ok('text', {'text': 'one\n'})
    drv.wait('line_equals', line=1, text='one')
    drv.raw('garbage\n')
    drv.ok('key', {'key': 'Ctrl+D'})
    drv.wait('process_exited')
    rc, rr = drv.close()
    assert rc == 0, rc
    obs = check_artifacts(os.path.join(d, 'dr'), rr)
    assert len(obs) == 5, len(obs)          # four answered actions and the end
    acts = [json.loads(l) for l in open(os.path.join(d, 'dr', 'driver-actions.jsonl'))]
    assert [a['action']['type'] for a in acts] == ['text', 'wait', 'key', 'wait'], acts
    assert open(os.path.join(d, 'dr', 'transcript.log'), 'rb').read() == b'one\r\none\r\n'
    # a folder that cannot be written: E_IO, after the session ended cleanly
    with open(os.path.join(d, 'file'), 'w') as f:
        f.write('x')
    c, out, err = run([SCVM, 'exec', '--json', '--artifacts', 'file/sub'] + ns + ['--', echo, 'x'], cwd=d)
    assert c == 10 and 'cannot write' in err, (c, err)

# ---- the examples of docs/driver.md ----

def subset(want, got, path='$'):
    """want is a part of got: objects by key, lists and scalars equal."""
    if isinstance(want, dict):
        assert isinstance(got, dict), '%s: expected an object, got %r' % (path, got)
        for k, v in want.items():
            assert k in got, '%s: no key %r in %r' % (path, k, got)
            subset(v, got[k], path + '.' + k)
    else:
        assert want == got, '%s: expected %r, got %r' % (path, want, got)


def doc_blocks():
    with open(os.path.join(DOCS, 'driver.md')) as f:
        text = f.read()
    files = re.findall(r'```json file=(\S+)\n(.*?)```', text, re.S)
    return files, re.findall(r'```console driver=(\S+)\n(.*?)```', text, re.S)


def play_block(name, body, d):
    """Each `$` line is a command; the `>` lines after it its input, the `<`
    lines each expected JSON line, other lines its expected text, `exit N`
    its status (0 when not given)."""
    cmds = []
    for ln in body.splitlines():
        if ln.startswith('$ '):
            cmds.append({'argv': ln[2:].split(), 'send': [], 'expect': [], 'text': [], 'status': 0})
        elif ln.startswith('> '):
            cmds[-1]['send'].append(ln[2:])
        elif ln.startswith('< '):
            cmds[-1]['expect'].append(json.loads(ln[2:]))
        elif ln.startswith('exit '):
            cmds[-1]['status'] = int(ln[5:])
        elif ln.strip():
            cmds[-1]['text'].append(ln)
    assert cmds, name
    for c in cmds:
        prog = {'scvm': SCVM, 'scc': SCC}[c['argv'][0]]
        assert prog, '%s: needs scc' % name
        p = subprocess.run([prog] + c['argv'][1:], cwd=d, input=''.join(s + '\n' for s in c['send']).encode(),
                           capture_output=True, timeout=120)
        got = p.stdout.decode().splitlines()
        assert p.returncode == c['status'], (name, c['argv'], p.returncode, p.stderr.decode())
        if c['expect']:
            assert len(got) == len(c['expect']), (name, got)
            for w, g in zip(c['expect'], got):
                subset(w, json.loads(g), name)
        else:
            assert got == c['text'], (name, got)


@case
def docs_examples(d):
    files, blocks = doc_blocks()
    assert len(blocks) >= 4, 'docs/driver.md lost its examples'
    for fname, text in files:
        with open(os.path.join(d, fname), 'w') as f:
            f.write(text)
    for name, body in blocks:
        play_block(name, body, d)


finish()
