#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ptybox's utility commands under their ptybox names (docs/tui-use.md,
"ptybox's commands"): completions, protocol-help [--json], run -t pty
--verbose, and trace [--artifacts] DIR -o FILE over the artifacts of a
scenario run, scvm driver, scvm exec and a replay.

usage: ptybox_cli_test.py SCC SCVM WORKDIR

Nothing measures time: every program ends by itself or on EOF.
"""
import json
import os
import re
import subprocess
import sys

from ptycase import case, finish, run, setup

SCC, SCVM, WORK = sys.argv[1:4]
setup(WORK)

POLICY = {'policy_version': 4, 'sandbox': 'none', 'sandbox_unsafe_ack': True, 'network': 'disabled',
          'network_unsafe_ack': True, 'exec': {'allowed_executables': ['/bin/cat'], 'allow_shell': False},
          'env': {'allowlist': ['PATH'], 'set': {'LANG': 'C.UTF-8'}, 'inherit': True}}


def scenario(steps):
    return {'scenario_version': 1, 'metadata': {'name': 'trace-me'},
            'run': {'command': '/bin/cat', 'args': [], 'initial_size': {'rows': 4, 'cols': 24}, 'policy': POLICY},
            'steps': steps}


def step(n, name, action, payload, asserts=()):
    return {'id': '00000000-0000-4000-8000-%012d' % n, 'name': name,
            'action': {'type': action, 'payload': payload},
            'assert': [{'type': t, 'payload': p} for t, p in asserts], 'timeout_ms': 20000, 'retries': 0}


STEPS = [
    step(1, 'type <b>&amp; "red"', 'text', {'text': '\x1b[31mred\x1b[0m <b>\n'},
         [('screen_contains', {'text': 'red <b>'})]),
    step(2, 'end', 'key', {'key': 'Ctrl+D'}),
    step(3, 'exits', 'wait', {'condition': {'type': 'process_exited', 'payload': {}}}, [('exit_code', {'code': 0})]),
]


def compiled(d, steps=STEPS):
    with open(os.path.join(d, 'sc.json'), 'w') as f:
        json.dump(scenario(steps), f)
    st, out, err = run([SCC, 'sc.json'], d)
    assert st == 0, err
    return 'sc.scb'


def trace(d, art, out='t.html', *more):
    st, o, err = run([SCVM, 'trace', art, '-o', out] + list(more), d)
    assert st == 0, (st, o, err)
    with open(os.path.join(d, out), encoding='utf-8') as f:
        return f.read()


def self_contained(html):
    assert html.startswith('<!DOCTYPE html>') and html.rstrip().endswith('</html>'), html[:80]
    # nothing fetched: no scripts, links, images or url() from elsewhere
    for bad in ('<script src', '<link', '<img', 'url(', 'http://', 'https://'):
        assert bad not in html, bad


@case
def completions_are_the_generated_scripts(d):
    for sh in ('bash', 'zsh', 'fish'):
        st, out, err = run([SCVM, 'completions', sh], d)
        st2, gen, err2 = run([SCVM, '--generate=' + sh], d)
        assert st == 0 and out == gen and len(out) > 500, (sh, st, err)
        # the new commands complete too
        assert 'protocol-help' in out and 'trace' in out and 'completions' in out, sh
    st, out, err = run([SCVM, 'completions', 'tcsh'], d)
    assert st == 2 and 'bash, zsh or fish' in err, (st, err)
    st, out, err = run([SCVM, 'completions'], d)
    assert st == 2, (st, err)


@case
def protocol_help_json_and_text(d):
    st, out, err = run([SCVM, 'protocol-help', '--json'], d)
    assert st == 0 and err == '', (st, err)
    j = json.loads(out)
    # ptybox's keys, and the values our driver speaks
    assert j['protocol_version'] == 2 and j['versions']['protocol'] == 2 and j['versions']['policy'] == 4, j
    for c in ('driver', 'exec', 'run', 'replay', 'trace', 'completions', 'protocol-help'):
        assert isinstance(j['commands'][c]['description'], str) and j['commands'][c]['usage'].startswith('scvm ' + c), c
    for a in ('key', 'text', 'resize', 'wait', 'terminate', 'observe'):
        assert isinstance(j['schemas']['Action']['types'][a], dict), a
    for c in ('screen_contains', 'screen_matches', 'cursor_at', 'process_exited'):
        assert isinstance(j['schemas']['Condition']['types'][c], dict), c
    assert 'transcript_delta' in j['schemas']['Observation']['fields'], j['schemas']['Observation']
    codes = j['error_codes']
    assert len(codes) == 12 and codes['E_POLICY_DENIED']['exit_code'] == 2 and codes['E_CLI_INVALID_ARG']['exit_code'] == 12
    assert all(isinstance(v['description'], str) and v['description'] for v in codes.values()), codes
    # every action the help lists is one the driver takes: an unknown one is E_PROTOCOL
    reqs = [{'protocol_version': 2, 'request_id': a, 'action': {'type': a, 'payload': {}}}
            for a in j['schemas']['Action']['types'] if a in ('observe', 'terminate')]
    reqs.append({'protocol_version': 2, 'request_id': 'x', 'action': {'type': 'nonesuch', 'payload': {}}})
    p = subprocess.run([SCVM, 'driver', '--stdio', '--json', '--no-sandbox', '--ack-unsafe-sandbox', '--', '/bin/cat'],
                       cwd=d, input=''.join(json.dumps(r) + '\n' for r in reqs).encode(), capture_output=True,
                       timeout=120)
    lines = [json.loads(l) for l in p.stdout.decode().splitlines()]
    assert [l['status'] for l in lines[:3]] == ['ok', 'ok', 'error'], lines
    # the text form
    st, out, err = run([SCVM, 'protocol-help'], d)
    assert st == 0 and 'Protocol version: 2' in out and 'ACTION TYPES' in out and 'driver' in out, out
    st, out, err = run([SCVM, 'protocol-help', 'extra'], d)
    assert st == 2, (st, err)


@case
def verbose_prints_a_line_per_step(d):
    scb = compiled(d)
    for flag in ('--verbose', '-v'):
        st, out, err = run([SCVM, 'run', '-t', 'pty', flag, scb], d)
        assert st == 0, (st, err)
        lines = [l for l in err.splitlines() if l.startswith('step ')]
        assert [re.sub(r'\(.*', '', l) for l in lines] == [
            'step 1: type <b>&amp; "red": passed ', 'step 2: end: passed ', 'step 3: exits: passed '], err
    # without it, nothing
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb], d)
    assert st == 0 and 'step 1' not in err, err
    # a failing step says why
    bad = compiled(d, [step(1, 'wrong', 'text', {'text': 'x\n'}, [('screen_contains', {'text': 'nope'})])])
    st, out, err = run([SCVM, 'run', '-t', 'pty', '-v', bad], d)
    assert st != 0 and re.search(r'step 1: wrong: failed \(1 attempt, \d+ ms\): ', err), err


@case
def trace_of_a_scenario_run(d):
    scb = compiled(d)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--cells', '--artifacts', 'art', scb], d)
    assert st == 0, err
    html = trace(d, 'art')
    self_contained(html)
    r = json.load(open(os.path.join(d, 'art', 'run.json')))
    assert r['run_id'] in html and 'class="result passed"' in html, html[:2000]
    # every step, escaped, and every snapshot drawn (one SVG each)
    assert 'type &lt;b&gt;&amp;amp; &quot;red&quot;' in html and '<b>&amp;' not in html, html
    assert '>end<' in html and '>exits<' in html and 'screen_contains' in html
    n = len(os.listdir(os.path.join(d, 'art', 'snapshots')))
    # one per step, then the final screen
    assert n == 4 and html.count('<svg') == n and 'Frames (4)' in html, (n, html.count('<svg'))
    assert '000003.json &#8212; exits</h3>' in html and '000004.json &#8212; final</h3>' in html
    # the red cells are drawn red, from the snapshot's cells
    assert html.count('fill="#cd0000" x="0 9 18">red<') == n, 'the red cells are not drawn red'
    # deterministic: the same artifacts, the same bytes; --artifacts spelling; default file name
    again = trace(d, 'art', 't2.html')
    assert again == html
    st, o, err = run([SCVM, 'trace', '--artifacts', 'art'], d)
    assert st == 0 and open(os.path.join(d, 'trace.html'), encoding='utf-8').read() == html, err


@case
def trace_of_driver_exec_and_replay(d):
    reqs = [{'protocol_version': 2, 'request_id': '1', 'action': {'type': 'text', 'payload': {'text': 'hello\n'}}},
            {'protocol_version': 2, 'request_id': '2', 'action': {'type': 'wait', 'payload': {
                'condition': {'type': 'screen_contains', 'payload': {'text': 'hello'}}}}, 'timeout_ms': 20000}]
    p = subprocess.run([SCVM, 'driver', '--stdio', '--json', '--no-sandbox', '--ack-unsafe-sandbox', '--artifacts',
                        'drv', '--', '/bin/cat'], cwd=d, input=''.join(json.dumps(r) + '\n' for r in reqs).encode(),
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    html = trace(d, 'drv', 'drv.html')
    self_contained(html)
    n = len(os.listdir(os.path.join(d, 'drv', 'snapshots')))
    assert n >= 2 and html.count('<svg') == n and 'hello' in html, n
    st, out, err = run([SCVM, 'exec', '--no-sandbox', '--ack-unsafe-sandbox', '--artifacts', 'ex', '--',
                        '/bin/echo', 'from exec'], d)
    assert st == 0, err
    html = trace(d, 'ex', 'ex.html')
    self_contained(html)
    assert 'from exec' in html and '/bin/echo' in html
    # a replay's folder: its verdict shows
    scb = compiled(d)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--artifacts', 'art', scb], d)
    assert st == 0, err
    st, out, err = run([SCVM, 'replay', 'art'], d)
    assert st == 0, (st, out, err)
    rep = [x for x in os.listdir(os.path.join(d, 'art')) if x.startswith('replay-')][0]
    html = trace(d, os.path.join('art', rep), 'rep.html')
    self_contained(html)
    assert '<th>replay</th><td><span class="result passed">passed</span>' in html, html


@case
def trace_refuses_a_folder_without_a_run(d):
    st, out, err = run([SCVM, 'trace', 'nowhere', '-o', 'x.html'], d)
    assert st == 10 and 'failed to read' in err and not os.path.exists(os.path.join(d, 'x.html')), (st, err)
    os.makedirs(os.path.join(d, 'bad'))
    with open(os.path.join(d, 'bad', 'run.json'), 'w') as f:
        f.write('{"run_id": ')
    st, out, err = run([SCVM, 'trace', 'bad'], d)
    assert st == 10 and 'not JSON' in err, (st, err)
    st, out, err = run([SCVM, 'trace'], d)
    assert st == 12, (st, err)


finish()
