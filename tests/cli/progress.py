#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""progress.py SCC SCVM REPO WORK - the progress line (docs/scvm.md,
"Progress"): drawn on a terminal only, and never among the events.

stderr is the slave side of a real pseudo-terminal (stdout a file via -o):
  - a pack on the sim target: the bar after each scenario, `[###...] k/N
    name`, every k from 1 to N, then erased before the summary;
  - one PTY session (pty_python_repl, which takes over a second): the
    live line `[...] S s of T s NAME` redrawn while it runs, erased at the
    end, and the session's diagnostic (a new golden written) on a line of
    its own, never inside the bar;
  - none with --no-progress, with --quiet, with TERM=dumb, or when stderr is
    not a terminal.
"""
import os
import pty
import re
import select
import shutil
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import expect, failures  # noqa: E402

scc, scvm, repo, work = sys.argv[1:5]
stdlib = os.path.join(repo, 'stdlib-scenarios')
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def on_tty(args, env=None):
    """Runs scvm with stderr on a PTY; returns (status, what the terminal got)."""
    master, slave = pty.openpty()
    e = dict(os.environ, TERM='xterm')
    # the PTY session writes its goldens here; CI mode (as on the CI machine) would refuse that
    for v in ('CI', 'JENKINS_URL', 'GITLAB_CI', 'GITHUB_ACTIONS', 'BUILDKITE', 'CIRCLECI', 'TF_BUILD', 'TEAMCITY_VERSION'):
        e.pop(v, None)
    e.update(env or {})
    p = subprocess.Popen([scvm] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                         cwd=work, env=e)
    os.close(slave)
    got = b''
    while True:
        r, _, _ = select.select([master], [], [], 120)
        if not r:
            break
        try:
            b = os.read(master, 65536)
        except OSError:
            break
        if not b:
            break
        got += b
    os.close(master)
    return p.wait(timeout=60), got.decode('utf-8', 'replace')


pack = os.path.join(work, 'std.scp')
subprocess.run([scc, '--pack', '-o', pack, stdlib], check=True, capture_output=True)
names = [l.split()[1] for l in subprocess.run([scvm, 'ls', pack], capture_output=True, text=True).stdout.splitlines()
         if l.strip() and l.split()[0].isdigit()]
n = len(names)
expect(n > 10, 'scvm ls lists the pack: %d' % n)

# the closing lines off a terminal: what the simulation did not evaluate, then
# the summary (the stdlib's assertions make some scenarios skipped)
p = subprocess.run([scvm, 'run', '-o', os.path.join(work, 'ev.jsonl'), pack], capture_output=True, text=True)
m = re.fullmatch(r'(scvm: \d+ assertions in \d+ scenarios not evaluated in simulation; play with -t pty or -t '
                 r'agent to check them: not evaluated is not passed \(--allow-skipped accepts it\)\n)?(\d+) passed, 0 failed, (\d+) skipped\n', p.stderr)
expect(m and int(m.group(2)) + int(m.group(3)) == n, 'not a terminal: no bar: %r' % p.stderr[:200])
closing = p.stderr.replace('\n', '\r\n')

st, got = on_tty(['run', '-o', 'ev.jsonl', pack])
expect(st == (1 if m.group(1) else 0), 'sim pack: status %d' % st)
bars = re.findall(r'\r\x1b\[K\[([#.]{30})\] (\d+)/(\d+) (\S+)', got)
expect([int(b[1]) for b in bars] == list(range(1, n + 1)) and all(int(b[2]) == n for b in bars),
       'a bar after each of %d scenarios: %s' % (n, [b[1] for b in bars][:30]))
expect([b[3] for b in bars] == names, 'the bars name the scenarios in order')
expect(bars and bars[-1][0] == '#' * 30, 'the last bar is full')
expect(got.endswith('\r\x1b[K' + closing), 'erased before the closing lines: %r' % got[-80:])

for args, env, what in ((['--no-progress'], None, '--no-progress'), (['--quiet'], None, '--quiet'),
                        ([], {'TERM': 'dumb'}, 'TERM=dumb')):
    st, got = on_tty(['run', '-o', 'ev.jsonl'] + args + [pack], env)
    expect(st == (1 if m.group(1) else 0) and got == closing, '%s: no bar: %r' % (what, got[:200]))

# one PTY session; its goldens are new here, so it says so on stderr
scb = os.path.join(work, 'pty_python_repl.scb')
subprocess.run([scc, '-o', scb, os.path.join(stdlib, 'pty_python_repl.yaml')], check=True)
st, got = on_tty(['run', '-t', 'pty', '-o', 'ev.jsonl', scb])
expect(st == 0, 'pty session: status %d: %r' % (st, got[-300:]))
lines = re.findall(r'\r\x1b\[K\[([#.]{30})\] (\d+\.\d) s of (\d+\.\d) s pty_python_repl', got)
print('live line drawn %d times' % len(lines)); expect(len(lines) >= 2, 'the live line is redrawn while the session runs: %d times' % len(lines))
secs = [float(l[1]) for l in lines]
expect(secs == sorted(secs), 'its time only rises: %s' % secs)
rest = re.sub(r'\r\x1b\[K\[[#.]{30}\] \d+\.\d s of \d+\.\d s pty_python_repl', '', got)
expect('\r\x1b[K' in got and not rest.replace('\r\x1b[K', '').startswith('['), 'erased')
diag = [l for l in rest.replace('\r\x1b[K', '').split('\r\n') if l]
expect(diag and all(l.startswith('scvm: pty: new golden written: ') for l in diag),
       'the diagnostics are whole lines of their own: %r' % diag)
st, got = on_tty(['run', '-t', 'pty', '--quiet', '-o', 'ev2.jsonl', '--goldens', os.path.join(work, 'goldens',
                  'pty_python_repl', 'xterm-80x24', 'screenshots'), scb])
expect(st == 0 and '[' not in got, 'pty session with --quiet: no line: %r' % got[:200])

if failures:
    print('%d failure(s)' % len(failures))
    sys.exit(1)
print('the progress line is drawn where it should be, and only there')
