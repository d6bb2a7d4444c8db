#!/usr/bin/env python3
"""sandbox_test.py - the Linux sandbox for tui-use policies (docs/pty.md,
"Sandbox"), against a real probe program (tests/pty/sbx_probe.c).

usage: sandbox_test.py SCC SCVM SBX_PROBE WORKDIR

Each case compiles a tui-use scenario whose program is the probe, plays
it with `scvm run -t pty`, and reads what the probe printed (artifacts'
transcript): a write outside fs.allowed_write, a TCP connect to a
listener this test holds open on loopback, an exec of a program not in
exec.allowed_executables, each directly and from a grandchild, must be
refused, while their allowed counterparts succeed, so the cases can fail.
Then the fail-closed path (the kernel without a piece, simulated with the
documented SCVM_SANDBOX_DISABLE hook), the acknowledgement, and
--explain-policy.
"""
import json
import os
import socket
import sys

from ptycase import case, finish, run, setup

SCC, SCVM, PROBE, WORK = sys.argv[1:5]
PROBE = os.path.realpath(PROBE)
setup(WORK)
ECHO = os.path.realpath('/usr/bin/echo')
TRUE = os.path.realpath('/usr/bin/true')

LISTENER = socket.socket()
LISTENER.bind(('127.0.0.1', 0))
LISTENER.listen(64)
PORT = str(LISTENER.getsockname()[1])


def policy(d, **kw):
    os.makedirs(os.path.join(d, 'out'), exist_ok=True)
    p = {'policy_version': 4, 'sandbox': 'seatbelt', 'network': 'disabled',
         'fs': {'allowed_read': [d], 'allowed_write': [os.path.join(d, 'out')]},
         'fs_write_unsafe_ack': True,
         'exec': {'allowed_executables': [PROBE, ECHO], 'allow_shell': False},
         'env': {'allowlist': ['PATH'], 'set': {}, 'inherit': True}}
    p.update(kw)
    return p


def scenario(d, args, pol):
    return {'scenario_version': 1, 'metadata': {'name': 'sandbox', 'description': None},
            'run': {'command': PROBE, 'args': args, 'initial_size': {'rows': 40, 'cols': 120}, 'policy': pol},
            'steps': [{'id': '00000000-0000-4000-8000-000000000001', 'name': 'probe',
                       'action': {'type': 'wait', 'payload': {'condition': {
                           'type': 'screen_contains', 'payload': {'text': 'probe done'}}}},
                       'assert': [], 'timeout_ms': 20000, 'retries': 0}]}


def compile_(d, sc):
    with open(os.path.join(d, 'sbx.json'), 'w') as f:
        json.dump(sc, f, indent=1)
    st, out, err = run([SCC, '-Wno-tui-use-compat', 'sbx.json'], d)
    assert st == 0, err
    return 'sbx.scb'


def play(d, scb, *opts, env=None):
    e = {k: v for k, v in os.environ.items() if k != 'CI'}
    e.update(env or {})
    return run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--artifacts', 'art'] + list(opts) + [scb], d,
               env=e)


def probe_lines(d):
    with open(os.path.join(d, 'art', 'transcript.log'), 'rb') as f:
        text = f.read().decode('utf-8', 'replace').replace('\r', '')
    return [l for l in text.split('\n') if l]


def attempts(d):
    out = os.path.join(d, 'out')
    os.makedirs(out, exist_ok=True)
    return ['write', out + '/allowed', '--', 'write', d + '/outside', '--',
            'connect', PORT, '--',
            'exec', TRUE, '--', 'exec', ECHO, 'echo-ran', '--',
            'child', 'write', out + '/allowed2', '--', 'child', 'write', d + '/outside2', '--',
            'child', 'connect', PORT, '--',
            'child', 'exec', TRUE, '--', 'child', 'exec', ECHO, 'echo-ran-2', '--',
            'ptrace', '--', 'read', '/root/.profile', '--', 'read', d + '/sbx.json']


def refused(line):
    return line.endswith(': EACCES') or line.endswith(': EPERM') or line.endswith(': ENETUNREACH')


@case
def writes_connects_and_execs_are_refused_also_from_a_grandchild(d):
    scb = compile_(d, scenario(d, attempts(d), policy(d)))
    st, out, err = play(d, scb)
    assert st == 0, (st, err)
    got = probe_lines(d)
    want_ok = ['write %s/out/allowed: ok' % d, 'exec %s: ok' % ECHO, 'echo-ran',
               'grandchild write %s/out/allowed2: ok' % d, 'grandchild exec %s: ok' % ECHO, 'echo-ran-2',
               'read %s/sbx.json: ok' % d]
    for w in want_ok:
        assert w in got, 'missing %r in %r' % (w, got)
    want_refused = ['write %s/outside' % d, 'connect %s' % PORT, 'exec %s' % TRUE,
                    'grandchild write %s/outside2' % d, 'grandchild connect %s' % PORT,
                    'grandchild exec %s' % TRUE, 'ptrace', 'read /root/.profile']
    for w in want_refused:
        line = [l for l in got if l.startswith(w + ':')]
        assert line and refused(line[0]), 'not refused: %r in %r' % (w, got)
    assert not os.path.exists(d + '/outside') and not os.path.exists(d + '/outside2')
    assert os.path.exists(d + '/out/allowed') and os.path.exists(d + '/out/allowed2')
    # the temporary folder went with the session
    with open(os.path.join(d, 'art', 'run.json')) as f:
        assert json.load(f)['status'] == 'passed'


@case
def network_enabled_connects(d):
    pol = policy(d, network='enabled', network_unsafe_ack=True)
    scb = compile_(d, scenario(d, ['connect', PORT, '--', 'child', 'connect', PORT], pol))
    st, out, err = play(d, scb)
    assert st == 0, (st, err)
    got = probe_lines(d)
    assert 'connect %s: ok' % PORT in got and 'grandchild connect %s: ok' % PORT in got, got
    # enabling the network needs the acknowledgement
    pol = policy(d, network='enabled')
    scb = compile_(d, scenario(d, ['connect', PORT], pol))
    st, out, err = play(d, scb)
    assert st == 2 and 'network_unsafe_ack' in err, (st, err)


@case
def a_missing_kernel_piece_fails_closed(d):
    scb = compile_(d, scenario(d, attempts(d), policy(d)))
    for piece in ('landlock', 'netns', 'userns', 'seccomp'):
        st, out, err = play(d, scb, env={'SCVM_SANDBOX_DISABLE': piece})
        assert st == 3, (piece, st, err)
        assert 'E_SANDBOX_UNAVAILABLE' in err, err
        assert not os.path.exists(os.path.join(d, 'outside')), 'the program ran'
    # with network enabled a network namespace is not needed
    scb2 = compile_(d, scenario(d, ['connect', PORT], policy(d, network='enabled', network_unsafe_ack=True)))
    st, out, err = play(d, scb2, env={'SCVM_SANDBOX_DISABLE': 'netns'})
    assert st == 0, (st, err)


@case
def the_acknowledgement_runs_with_what_there_is_and_says_so(d):
    scb = compile_(d, scenario(d, attempts(d), policy(d, sandbox_unsafe_ack=True)))
    env = {'SCVM_SANDBOX_DISABLE': 'landlock'}
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', scb], d,
                       env=dict(os.environ, **env))
    assert st == 0 and 'NOT ENFORCED (sandbox_unsafe_ack): the kernel lacks Landlock' in out, (st, out, err)
    st, out, err = play(d, scb, env=env)
    assert st == 0, (st, err)
    got = probe_lines(d)
    # without Landlock the write goes through; seccomp and the network
    # namespace still hold
    assert 'write %s/outside: ok' % d in got, got
    assert [l for l in got if l.startswith('ptrace:') and refused(l)], got
    assert [l for l in got if l.startswith('connect %s:' % PORT) and refused(l)], got


@case
def explain_policy(d):
    scb = compile_(d, scenario(d, attempts(d), policy(d)))
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', scb], d)
    assert st == 0, (st, err)
    assert out.startswith('allowed: %s\nsandbox: linux' % PROBE), out
    for want in ('namespaces: pid, mount, user, network', 'fs.allowed_write', 'exec.allowed_executables',
                 'the ELF interpreter of an allowed executable', 'seccomp: refused (EPERM): ptrace',
                 'no_new_privs', 'rlimits: no core dumps'):
        assert want in out, (want, out)
    assert not os.path.exists(os.path.join(d, 'art')) and not os.path.exists(d + '/outside'), 'it ran'
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', '--json', scb], d)
    j = json.loads(out)
    assert st == 0 and j['allowed'] is True and j['enforced']['network_namespace'] is True, out
    paths = {p['path']: p for p in j['enforced']['paths']}
    assert paths[PROBE]['access'] == 'read,execute' and 'write' in paths[os.path.join(d, 'out')]['access'], paths
    # a refused policy: the reason, the data model's status, nothing run
    bad = policy(d)
    bad['exec']['allowed_executables'] = [ECHO]
    scb = compile_(d, scenario(d, attempts(d), bad))
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', '--data-model-exit', '--json', scb], d)
    j = json.loads(out)
    assert st == 2 and j['allowed'] is False and j['error']['code'] == 'E_POLICY_DENIED', (st, out)


@case
def an_allowed_path_that_does_not_exist_is_refused(d):
    pol = policy(d)
    pol['fs']['allowed_read'] = [d + '/no/such/folder']
    scb = compile_(d, scenario(d, ['read', d], pol))
    st, out, err = play(d, scb)
    assert st == 2 and 'E_POLICY_DENIED' in err and 'no/such/folder' in err, (st, err)


finish()
