#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sandbox_test.py - the Linux sandbox for tui-use policies (docs/pty.md,
"Sandbox"), against a real probe program (tests/pty/sbx_probe.c).

usage: sandbox_test.py SCC SCVM SBX_PROBE WORKDIR

Each case compiles a tui-use scenario whose program is the probe, plays
it with `scvm run -t pty`, and reads what the probe printed (artifacts'
transcript): a write outside fs.allowed_write, a TCP connect to a
listener this test holds open on loopback, an exec of a program not in
exec.allowed_executables, each directly and from a grandchild, must be
refused, while their allowed counterparts succeed, so the cases can fail.
Then, as an attacker would: another terminal (a pty this test opens, with
a secret typed into it), UNIX sockets this test listens on (stream,
datagram, abstract), and the dynamic loader run directly to start a
program the allow-list does not name; each must be out of reach.  Then
the fail-closed path (the kernel without a piece, simulated with the
documented SCVM_SANDBOX_DISABLE hook), the acknowledgement, and
--explain-policy.
"""
import json
import os
import pty
import shutil
import socket
import struct
import subprocess
import sys
import tempfile

from ptycase import case, finish, local_env, reachable_by_others, run, setup

SCC, SCVM, PROBE, WORK = sys.argv[1:5]
PROBE = os.path.realpath(PROBE)
setup(WORK)
ECHO = os.path.realpath('/usr/bin/echo')
TRUE = os.path.realpath('/usr/bin/true')
ID = os.path.realpath('/usr/bin/id')


def elf_interp(path):
    """PT_INTERP of a 64-bit ELF file (the dynamic loader), resolved."""
    with open(path, 'rb') as f:
        b = f.read()
    phoff, = struct.unpack_from('<Q', b, 32)
    phentsize, phnum = struct.unpack_from('<HH', b, 54)
    for i in range(phnum):
        typ, _, off, _, _, filesz = struct.unpack_from('<IIQQQQ', b, phoff + i * phentsize)
        if typ == 3:
            return os.path.realpath(b[off:off + filesz].rstrip(b'\0').decode())
    raise AssertionError('%s has no ELF interpreter' % path)


LOADER = elf_interp(PROBE)

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
    e = local_env()   # no CI system's variable: the cases choose CI mode
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
    return line.endswith((': EACCES', ': EPERM', ': ENETUNREACH', ': EROFS'))


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


def drain(fd):
    os.set_blocking(fd, False)
    got = b''
    try:
        while True:
            b = os.read(fd, 4096)
            if not b:
                break
            got += b
    except (BlockingIOError, OSError):
        pass
    return got


@case
def other_terminals_are_out_of_reach(d):
    # another terminal, as a user's or another session's, with a secret
    # typed into it and waiting to be read
    m, sl = pty.openpty()
    name = os.ttyname(sl)
    os.write(m, b'my-secret-password\n')
    args = ['tty', name, '--', 'child', 'tty', name, '--', 'ls', '/dev/pts', '--', 'tty', '/dev/tty', '--',
            'openpty']
    scb = compile_(d, scenario(d, args, policy(d)))
    st, out, err = play(d, scb)
    assert st == 0, (st, err)
    got = probe_lines(d)
    assert not [l for l in got if 'my-secret-password' in l], 'the secret was read: %r' % got
    assert b'sbx-was-here' not in drain(m), 'the program wrote into another terminal'
    # nothing else is even visible: the sandbox's devpts holds its own only;
    # its own terminal and one it makes still work
    assert 'ls /dev/pts: 0 ptmx' in got, got
    assert [l for l in got if l.startswith('tty /dev/tty: ok')], got
    assert 'openpty: ok' in got, got
    # without a user namespace (acknowledged) Landlock alone keeps the
    # program to its own terminal
    os.write(m, b'my-secret-password\n')
    scb = compile_(d, scenario(d, args, policy(d, sandbox_unsafe_ack=True)))
    st, out, err = play(d, scb, env={'SCVM_SANDBOX_DISABLE': 'userns'})
    assert st == 0, (st, err)
    got = probe_lines(d)
    assert not [l for l in got if 'my-secret-password' in l], 'the secret was read: %r' % got
    assert b'sbx-was-here' not in drain(m), 'the program wrote into another terminal'
    for w in ('tty %s' % name, 'grandchild tty %s' % name, 'ls /dev/pts', 'openpty'):
        line = [l for l in got if l.startswith(w + ':')]
        assert line and refused(line[0]), 'not refused: %r in %r' % (w, got)
    assert [l for l in got if l.startswith('tty /dev/tty: ok')], got
    os.close(m)
    os.close(sl)


def unix_listeners():
    """A stream, a datagram and an abstract stream listener outside the
    sandbox; (folder, stream path, dgram path, abstract name, sockets)."""
    sd = tempfile.mkdtemp(prefix='scvm-sbx-sock-')
    st = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    st.bind(os.path.join(sd, 'stream.sock'))
    st.listen(8)
    dg = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dg.bind(os.path.join(sd, 'dgram.sock'))
    ab = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    name = 'scvm-sbx-test-%d' % os.getpid()
    ab.bind('\0' + name)
    ab.listen(8)
    for s in (st, dg, ab):
        s.setblocking(False)
    return sd, os.path.join(sd, 'stream.sock'), os.path.join(sd, 'dgram.sock'), '@' + name, (st, dg, ab)


def pending(s):
    try:
        if s.type == socket.SOCK_DGRAM:
            return s.recv(64)
        c, _ = s.accept()
        c.close()
        return b'connection'
    except BlockingIOError:
        return None


@case
def unix_sockets_are_refused_with_the_network_disabled(d):
    sd, stream, dgram, abstract, socks = unix_listeners()
    try:
        args = ['uconnect', stream, '--', 'usend', dgram, '--', 'upair', dgram, '--', 'uconnect', abstract, '--',
                'child', 'uconnect', stream, '--', 'child', 'usend', dgram]
        scb = compile_(d, scenario(d, args, policy(d)))
        st, out, err = play(d, scb)
        assert st == 0, (st, err)
        got = probe_lines(d)
        for w in ('uconnect ' + stream, 'usend ' + dgram, 'upair ' + dgram, 'uconnect ' + abstract,
                  'grandchild uconnect ' + stream, 'grandchild usend ' + dgram):
            line = [l for l in got if l.startswith(w + ':')]
            assert line and refused(line[0]), 'not refused: %r in %r' % (w, got)
        for s in socks:
            assert pending(s) is None, 'something reached a listener outside: %r' % got
        # network: enabled (acknowledged) is what lets them through
        pol = policy(d, network='enabled', network_unsafe_ack=True)
        scb = compile_(d, scenario(d, ['uconnect', stream, '--', 'usend', dgram], pol))
        st, out, err = play(d, scb)
        assert st == 0, (st, err)
        got = probe_lines(d)
        assert 'uconnect %s: ok' % stream in got and 'usend %s: ok' % dgram in got, got
        assert pending(socks[0]) == b'connection' and pending(socks[1]) == b'sbx-dgram', got
    finally:
        for s in socks:
            s.close()
        shutil.rmtree(sd, ignore_errors=True)


@case
def the_dynamic_loader_cannot_run_other_programs(d):
    # first an attempt to drop the rules (binfmt_misc's status and register
    # files), then the loader
    bm = '/proc/sys/fs/binfmt_misc/'
    args = ['write', bm + 'status', '--', 'write', bm + 'register', '--', 'write', bm + 'scvm-loader-0', '--',
            'exec', LOADER, ID, '--', 'child', 'exec', LOADER, ID, '--', 'exec', LOADER, ECHO, 'via-loader', '--',
            'exec', ECHO, 'echo-ran']
    scb = compile_(d, scenario(d, args, policy(d)))
    st, out, err = play(d, scb)
    assert st == 0, (st, err)
    got = probe_lines(d)
    assert not [l for l in got if l.startswith('uid=')], 'the loader ran id: %r' % got
    assert 'via-loader' not in got, got
    for w in ('write %sstatus' % bm, 'write %sregister' % bm, 'write %sscvm-loader-0' % bm,
              'exec ' + LOADER, 'grandchild exec ' + LOADER):
        line = [l for l in got if l.startswith(w + ':')]
        assert line and refused(line[0]), 'not refused: %r in %r' % (w, got)
    # as the interpreter of an allowed executable it still serves
    assert 'echo-ran' in got, got
    # an allow-list that names the loader gets what it asked for
    pol = policy(d)
    pol['exec']['allowed_executables'].append(LOADER)
    scb = compile_(d, scenario(d, ['exec', LOADER, ID], pol))
    st, out, err = play(d, scb)
    assert st == 0, (st, err)
    assert [l for l in probe_lines(d) if l.startswith('uid=')], probe_lines(d)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', scb], d)
    assert st == 0 and 'dynamic loader: %s is in exec.allowed_executables' % LOADER in out, out


@case
def an_unprivileged_scvm_gets_the_same_sandbox(d):
    # as a user without privileges: no PID namespace for the session, and
    # user namespaces made by an unprivileged process (the mounts and
    # binfmt_misc rules need its root, the program its own uid back)
    if os.getuid() != 0:
        print('note: the suite runs unprivileged: every case above already is this one')
        return
    if not (reachable_by_others(SCVM) and reachable_by_others(d)):
        print('NOT RUN: %s or %s is in a folder user nobody cannot search (a 0700 checkout): '
              'this case needs a checkout others can reach' % (SCVM, d))
        return
    nobody = 65534
    sd, stream, dgram, abstract, socks = unix_listeners()
    try:
        for path in (sd, stream, dgram, d):
            os.chmod(path, 0o777)       # only the sandbox may stand in the way
        args = ['uconnect', stream, '--', 'usend', dgram, '--', 'exec', LOADER, ID, '--', 'exec', ECHO, 'echo-ran',
                '--', 'ls', '/dev/pts', '--', 'openpty', '--', 'write', d + '/outside']
        pol = policy(d)
        os.chmod(os.path.join(d, 'out'), 0o777)
        scb = compile_(d, scenario(d, args, pol))
        env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'), 'HOME': '/tmp'}
        cmd = [SCVM, 'run', '-t', 'pty', '--data-model-exit', '--artifacts', 'art', scb]
        p = subprocess.run(cmd, cwd=d, capture_output=True, timeout=180, env=env, user=nobody, group=nobody,
                           extra_groups=[])
        assert p.returncode == 0, (p.returncode, p.stderr.decode())
        got = probe_lines(d)
        for w in ('uconnect ' + stream, 'usend ' + dgram, 'exec ' + LOADER, 'write %s/outside' % d):
            line = [l for l in got if l.startswith(w + ':')]
            assert line and refused(line[0]), 'not refused: %r in %r' % (w, got)
        assert not [l for l in got if l.startswith('uid=')], got
        assert 'echo-ran' in got and 'ls /dev/pts: 0 ptmx' in got and 'openpty: ok' in got, got
        for s in socks:
            assert pending(s) is None, 'something reached a listener outside: %r' % got
        p = subprocess.run([SCVM, 'run', '-t', 'pty', '--explain-policy', '--json', scb], cwd=d, capture_output=True,
                           timeout=60, env=env, user=nobody, group=nobody, extra_groups=[])
        e = json.loads(p.stdout)['enforced']
        assert e['pid_namespace'] is False and e['user_namespace'] is True and e['not_enforced'] == '', e
        assert all(e[k]['enforced'] for k in ('terminals', 'unix_sockets', 'loader_exec')), e
    finally:
        for s in socks:
            s.close()
        shutil.rmtree(sd, ignore_errors=True)


@case
def a_missing_kernel_piece_fails_closed(d):
    scb = compile_(d, scenario(d, attempts(d), policy(d)))
    for piece in ('landlock', 'netns', 'userns', 'seccomp', 'binfmt'):
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
    # without binfmt_misc the loader runs anything, and the explanation says so
    env = {'SCVM_SANDBOX_DISABLE': 'binfmt'}
    scb = compile_(d, scenario(d, ['exec', LOADER, ID], policy(d, sandbox_unsafe_ack=True)))
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', scb], d, env=dict(os.environ, **env))
    assert st == 0, (st, err)
    assert 'dynamic loader: NOT ENFORCED: %s may be executed directly' % LOADER in out, out
    assert 'NOT ENFORCED (sandbox_unsafe_ack): the kernel lacks binfmt_misc' in out, out
    st, out, err = play(d, scb, env=env)
    assert st == 0 and [l for l in probe_lines(d) if l.startswith('uid=')], (st, err, probe_lines(d))
    # without seccomp nothing refuses UNIX sockets: said, not claimed
    env = {'SCVM_SANDBOX_DISABLE': 'seccomp'}
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', '--json', scb], d, env=dict(os.environ, **env))
    j = json.loads(out)['enforced']
    assert st == 0 and j['unix_sockets']['enforced'] is False and 'NOT ENFORCED' in j['unix_sockets']['what'], j
    assert j['seccomp'] is False and j['denied_syscalls'] == '', j


@case
def explain_policy(d):
    scb = compile_(d, scenario(d, attempts(d), policy(d)))
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', scb], d)
    assert st == 0, (st, err)
    assert out.startswith('allowed: %s\nsandbox: linux' % PROBE), out
    for want in ('namespaces: pid, mount, user, network', 'fs.allowed_write', 'exec.allowed_executables',
                 'the ELF interpreter of an allowed executable', 'seccomp: refused (EPERM): ptrace',
                 'no_new_privs', 'rlimits: no core dumps',
                 "terminals: a devpts of the sandbox's own", '(mount namespace)',
                 'unix sockets: refused: socket() only for inet, inet6 and netlink', '(seccomp)',
                 'dynamic loader: executing %s directly is refused (EACCES)' % LOADER,
                 "(binfmt_misc of the sandbox's user namespace)", 'not an exec: code an allowed program loads'):
        assert want in out, (want, out)
    assert 'NOT ENFORCED' not in out, out
    # without the session's PID namespace the explanation lists none
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', scb], d,
                       env=dict(os.environ, SCVM_PTY_PIDNS='0'))
    assert st == 0 and 'namespaces: mount, user, network\n' in out, out
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', '--json', scb], d,
                       env=dict(os.environ, SCVM_PTY_PIDNS='0'))
    assert st == 0 and json.loads(out)['enforced']['pid_namespace'] is False, out
    assert not os.path.exists(os.path.join(d, 'art')) and not os.path.exists(d + '/outside'), 'it ran'
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', '--json', scb], d)
    j = json.loads(out)
    assert st == 0 and j['allowed'] is True and j['enforced']['network_namespace'] is True, out
    paths = {p['path']: p for p in j['enforced']['paths']}
    assert paths[PROBE]['access'] == 'read,execute' and 'write' in paths[os.path.join(d, 'out')]['access'], paths
    e = j['enforced']
    assert e['binfmt_misc'] is True and e['not_enforced'] == '', e
    assert e['terminals']['enforced'] is True and e['terminals']['by'] == 'mount_namespace', e
    assert e['unix_sockets']['enforced'] is True and e['unix_sockets']['by'] == 'seccomp', e
    assert e['loader_exec']['enforced'] is True and e['loader_exec']['by'] == 'binfmt_misc', e
    assert 'io_uring_setup' in e['denied_syscalls'], e
    # network: enabled: UNIX sockets are not refused, and it says so
    scb2 = compile_(d, scenario(d, ['read', d], policy(d, network='enabled', network_unsafe_ack=True)))
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--explain-policy', '--json', scb2], d)
    u = json.loads(out)['enforced']['unix_sockets']
    assert st == 0 and u['enforced'] is False and u['what'].startswith('allowed (network: enabled)'), u
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
