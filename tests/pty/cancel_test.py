# SPDX-License-Identifier: MIT
"""cancel_test.py - a cancelled run leaves nothing behind (docs/pty.md,
"Cancellation").

Usage: cancel_test.py SCC SCVM WORK

The program ignores SIGTERM, SIGHUP and SIGINT and starts a `setsid`
grandchild that ignores them too, plus a background child: the hardest
case for cleanup short of a program that escapes its namespace.  Fifty
sessions are cancelled with SIGTERM, SIGINT, SIGHUP and SIGKILL in turn;
after each, the test counts the processes that carry the session's tag
(survivors) and the zombies left to it (this process is a child
subreaper, so every orphan of the run comes here).  Both must be zero.
Packs (a process per scenario, -j 2) and the fallback without a PID
namespace (SCVM_PTY_PIDNS=0) are cancelled too.  Waits are bounded and
event-driven (polls of /proc with generous deadlines); nothing asserts on
time."""
import ctypes
import json
import os
import signal
import subprocess
import sys
import time

from ptycase import case, finish, local_env, setup

SCC, SCVM, WORK = sys.argv[1:4]
PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit('cannot become a child subreaper')
setup(WORK)

PROGRAM = r'''#!/bin/bash
# $1: the tag every process of this session carries as its argv[0]
# (ignored signals stay ignored across exec)
trap '' TERM HUP INT
setsid -f bash -c 'exec -a "$0" sleep 300' "$1" </dev/null >/dev/null 2>&1
(exec -a "$1" sleep 300) &
exec -a "$1" sleep 300
'''

SCENARIO = '''name: %s
timeline:
  - userInputs:
      - relativeTime: 60000
        input: never typed
'''


def tagged(tag):
    """pids (running or zombie) whose argv[0] is tag."""
    found = []
    for p in os.listdir('/proc'):
        if not p.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % p, 'rb') as f:
                argv0 = f.read().split(b'\0')[0]
        except OSError:
            continue
        if argv0 == tag.encode():
            found.append(int(p))
    return found


def children_of_ours(zombies_only=False):
    """Processes (zombies_only: zombies) whose parent is this process."""
    me, out = os.getpid(), []
    for p in os.listdir('/proc'):
        if not p.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % p) as f:
                st = f.read()
        except OSError:
            continue
        rest = st[st.rindex(')') + 2:].split()
        if int(rest[1]) == me and (rest[0] == 'Z' or not zombies_only):
            out.append(int(p))
    return out


def describe(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read()[:80]
    except OSError:
        return '%d (gone)' % pid


def reap_orphans():
    """Reaps what the kernel gave us (the subreaper's duty); how many."""
    n = 0
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return n
        if pid == 0:
            return n
        n += 1


def wait_for(pred, seconds, what):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if pred():
            return
        time.sleep(0.02)
    raise AssertionError('timed out waiting for ' + what)


def compile_(d, name):
    src = os.path.join(d, name + '.yaml')
    with open(src, 'w') as f:
        f.write(SCENARIO % name)
    scb = os.path.join(d, name + '.scb')
    subprocess.run([SCC, '-o', scb, src], check=True)
    return scb


def program(d):
    path = os.path.join(d, 'stubborn.sh')
    with open(path, 'w') as f:
        f.write(PROGRAM)
    os.chmod(path, 0o755)
    return path


def start(args, d, env_extra=None):
    env = local_env()
    env.update(env_extra or {})
    # its own session: the signal reaches scvm alone, as from CI or timeout
    return subprocess.Popen(args, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            start_new_session=True)


def kill_all(p, tag):
    """After a failure: nothing of the case may outlive it."""
    if p.poll() is None:
        p.kill()
        p.communicate()
    for pid in tagged(tag):
        os.kill(pid, signal.SIGKILL)
    reap_orphans()


def started(p, tag, n, what):
    """Waits until n processes carry tag; on failure kills the run."""
    try:
        wait_for(lambda: len(tagged(tag)) >= n, 30, what)
    except AssertionError:
        kill_all(p, tag)
        raise


def cancel_one(d, scb, prog, i, sig, env_extra=None):
    tag = 'scvm-cancel-%d-%d' % (os.getpid(), i)
    art = os.path.join(d, 'art%d' % i)
    p = start([SCVM, 'run', '-t', 'pty', '--artifacts', art, scb, '--', prog, tag], d, env_extra)
    # the program, its setsid grandchild, its background child
    started(p, tag, 3, 'session %d to start' % i)
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        kill_all(p, tag)
        raise AssertionError('session %d: scvm did not end after %s' % (i, signal.Signals(sig).name))
    out, err = out.decode(), err.decode()
    if sig == signal.SIGKILL:
        assert p.returncode == -signal.SIGKILL, (i, p.returncode)
    else:
        assert p.returncode == 128 + sig, 'session %d: exit %r, want %d: %s' % (i, p.returncode, 128 + sig, err)
        assert 'E_INTERRUPTED' in err, err
        ev = [json.loads(l) for l in out.splitlines() if l.strip()]
        errs = [e for e in ev if e['kind'] == 'error']
        assert errs and errs[-1]['code'] == 'E_INTERRUPTED', out[-500:]
        exits = [e for e in ev if e['kind'] == 'exit']
        assert exits and exits[0]['terminated_by_harness'] is True, exits
        with open(os.path.join(art, 'run.json')) as f:
            rj = json.load(f)
        assert rj['status'] == 'interrupted', rj['status']
        assert rj['error']['code'] == 'E_INTERRUPTED', rj['error']
        assert rj['error']['context']['exit_status'] == 128 + sig, rj['error']
    settled(p, tag, sig, 'session %d' % i)


def settled(p, tag, sig, what):
    """Zero survivors and zero zombies after the run.  On a catchable
    signal scvm reaped everything itself: nothing was left to us, not even
    a zombie.  After SIGKILL its init and its sessions' processes are
    orphans the kernel reparents to us (the subreaper); we reap them, and
    nothing of the run may remain running."""
    if sig != signal.SIGKILL:
        left = children_of_ours()
        assert not left, '%s: left to us: %r' % (what, [describe(x) for x in left])

    def gone():
        reap_orphans()
        return not tagged(tag) and not children_of_ours()
    try:
        wait_for(gone, 10, what + ' to leave nothing')
    except AssertionError:
        left = tagged(tag)
        kill_all(p, tag)
        raise AssertionError('%s (%s): %d survivor(s) %r, children %r' % (
            what, signal.Signals(sig).name, len(left), left, children_of_ours()))


@case
def fifty_cancelled_sessions(d):
    scb = compile_(d, 'stubborn')
    prog = program(d)
    sigs = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL]
    for i in range(50):
        cancel_one(d, scb, prog, i, sigs[i % 4])


@case
def without_a_pid_namespace_the_signals_still_clean_up(d):
    # SCVM_PTY_PIDNS=0: the fallback (process group, subreaper sweep,
    # PR_SET_PDEATHSIG); a catchable signal leaves nothing either
    scb = compile_(d, 'stubborn')
    prog = program(d)
    for i, sig in enumerate([signal.SIGTERM, signal.SIGINT, signal.SIGHUP]):
        cancel_one(d, scb, prog, 100 + i, sig, {'SCVM_PTY_PIDNS': '0'})


@case
def without_a_pid_namespace_sigkill_takes_everything(d):
    # the fallback's init is a child subreaper: SIGKILL of scvm gives it
    # its death signal, and it kills every process it collected (what the
    # program detached included) before it ends
    scb = compile_(d, 'stubborn')
    prog = program(d)
    tag = 'scvm-cancel-%d-fallback' % os.getpid()
    p = start([SCVM, 'run', '-t', 'pty', scb, '--', prog, tag], d, {'SCVM_PTY_PIDNS': '0'})
    started(p, tag, 3, 'the session to start')
    p.kill()
    p.communicate(timeout=60)
    try:
        wait_for(lambda: not tagged(tag), 10, 'every process of the session to end with scvm')
    finally:
        for pid in tagged(tag):
            os.kill(pid, signal.SIGKILL)
        wait_for(lambda: reap_orphans() >= 0 and not tagged(tag) and not children_of_ours(), 10,
                 'the rest to be killed and reaped')


@case
def a_cancelled_pack(d):
    prog = program(d)
    srcs = []
    for name in ('p1', 'p2', 'p3', 'p4'):
        src = os.path.join(d, name + '.yaml')
        with open(src, 'w') as f:
            f.write(SCENARIO % name)
        srcs.append(src)
    subprocess.run([SCC, '--pack', '-o', os.path.join(d, 'suite.scp')] + srcs, check=True)
    for i, sig in enumerate([signal.SIGTERM, signal.SIGINT, signal.SIGKILL]):
        tag = 'scvm-cancel-%d-pack%d' % (os.getpid(), i)
        junit = os.path.join(d, 'j%d.xml' % i)
        p = start([SCVM, 'run', '-t', 'pty', '-j', '2', '--junit', junit, 'suite.scp', '--', prog, tag], d)
        # two sessions at a time: both started
        started(p, tag, 6, 'two sessions to start')
        p.send_signal(sig)
        try:
            out, err = p.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            kill_all(p, tag)
            raise AssertionError('pack %d: scvm did not end' % i)
        err = err.decode()
        if sig == signal.SIGKILL:
            assert p.returncode == -signal.SIGKILL, p.returncode
        else:
            assert p.returncode == 128 + sig, (p.returncode, err)
            assert '0 passed, 2 failed, 2 skipped' in err, err
            with open(junit) as f:
                j = f.read()
            # the two errors' messages (their <system-out> repeats the diagnostic)
            assert j.count('<error message="interrupted by signal %d' % sig) == 2, j
            assert j.count('not run: the run was interrupted by a signal') == 2, j
        settled(p, tag, sig, 'pack %d' % i)

finish()
