#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""stdlib_pty.py - plays the PTY scenarios of stdlib-scenarios/ with
`scvm run -t pty` and compares their screenshots with the committed goldens.

usage: stdlib_pty.py SCC SCVM STDLIB_DIR WORKDIR [--update]

A PTY scenario is a stdlib-scenarios/pty_*.yaml.  Its goldens live where
the Scenario-Format puts screenshots (<scenario>/<terminalProfileId>/
screenshots/<label>.golden) under stdlib-scenarios/goldens/: the scenario is
played with --goldens pointing there, every screenshot must be a "match"
(a missing golden fails here, though scvm only notes it), the run must pass,
and the screenshots an --artifacts run writes must equal the committed files
byte for byte.  --update rewrites the goldens (review them: they must not
show anything that varies between runs or machines).  A scenario whose
program is not installed is skipped with a message.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

SCC, SCVM, STDLIB, WORK = (os.path.abspath(a) for a in sys.argv[1:5])
update = '--update' in sys.argv[5:]
failures = []


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, capture_output=True, timeout=240)
    return p.returncode, p.stdout.decode('utf-8', 'replace'), p.stderr.decode('utf-8', 'replace')


def program(yaml_path):
    """ah.cmd, read without a YAML library (the line is `  cmd: '...'`)."""
    for line in open(yaml_path, encoding='utf-8'):
        s = line.strip()
        if s.startswith('cmd:'):
            return s[4:].strip().strip('\'"')
    return None


scenarios = sorted(glob.glob(os.path.join(STDLIB, 'pty_*.yaml')))
if not scenarios:
    print('FAIL: no pty_*.yaml in %s' % STDLIB)
    sys.exit(1)
for path in scenarios:
    name = os.path.splitext(os.path.basename(path))[0]
    cmd = program(path)
    if cmd and not os.access(cmd, os.X_OK):
        print('skip %s: %s is not installed (scripts/setup-deps.sh)' % (name, cmd))
        continue
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    scb = os.path.join(d, name + '.scb')
    st, out, err = run([SCC, '-o', scb, path], d)
    if st != 0:
        failures.append(name)
        print('FAIL %s: scc: %s' % (name, err))
        continue
    info = json.loads(run([SCVM, 'info', '--json', scb], d)[1] or '{}')
    profile = ((info.get('config') or {}).get('terminal') or {}).get('name') or '80x24'
    goldens = os.path.join(STDLIB, 'goldens', name, profile, 'screenshots')
    os.makedirs(goldens, exist_ok=True)
    args = [SCVM, 'run', '-t', 'pty', '--data-model-exit', '--goldens', goldens, '--artifacts', 'art']
    if update:
        args.append('--update-goldens')
    st, out, err = run(args + [scb], d)
    shots = [json.loads(l) for l in out.splitlines() if '"kind":"screenshot"' in l]
    problems = []
    if st != 0:
        problems.append('scvm exited %d: %s' % (st, err.strip()))
    if not shots:
        problems.append('no screenshot was taken')
    want = 'updated' if update else 'match'
    for s in shots:
        if s.get('result') != want:
            problems.append('screenshot %s: %s, want %s' % (s.get('label'), s.get('result'), want))
    written = os.path.join(d, 'art', name, profile, 'screenshots')
    committed = sorted(os.listdir(goldens))
    got = sorted(os.listdir(written)) if os.path.isdir(written) else []
    if got != committed:
        problems.append('artifacts hold %s, the goldens folder %s' % (got, committed))
    for f in set(got) & set(committed):
        if open(os.path.join(written, f), 'rb').read() != open(os.path.join(goldens, f), 'rb').read():
            problems.append('%s: the artifact differs from the golden' % f)
    if problems:
        failures.append(name)
        print('FAIL %s:\n  %s' % (name, '\n  '.join(problems)))
    else:
        print('ok   %s: %d screenshot(s) %s' % (name, len(shots), want))
# The same scenarios as one pack, two at a time, against the same goldens:
# --goldens DIR holds <scenario>/<profile>/screenshots/ for a pack.
if not update:
    d = os.path.join(WORK, 'pack')
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    st, out, err = run([SCC, '--pack', '-o', 'pty.scp'] + scenarios, d)
    if st != 0:
        failures.append('pack')
        print('FAIL pack: scc --pack: %s' % err)
    else:
        st, out, err = run([SCVM, 'run', '-t', 'pty', '-j', '2', '--goldens', os.path.join(STDLIB, 'goldens'),
                            '--junit', 'junit.xml', 'pty.scp'], d)
        shots = [json.loads(l) for l in out.splitlines() if '"kind":"screenshot"' in l]
        heads = [json.loads(l)['name'] for l in out.splitlines() if '"kind":"scenario"' in l]
        want_heads = sorted(os.path.splitext(os.path.basename(p))[0] for p in scenarios)
        bad = [s.get('label') for s in shots if s.get('result') != 'match']
        if st != 0 or heads != want_heads or not shots or bad:
            failures.append('pack')
            print('FAIL pack: exit %d, scenarios %s, screenshots not matching %s:\n%s' % (st, heads, bad, err))
        else:
            print('ok   pack: %d scenarios, %d screenshot(s) match' % (len(heads), len(shots)))
print('%d passed, %d failed' % (len(scenarios) + (not update) - len(failures), len(failures)))
sys.exit(1 if failures else 0)
