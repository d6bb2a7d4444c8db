#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""differential.py - our screen against @xterm/headless on recorded streams.

usage: differential.py PTY_REPLAY NODE_MODULES CAST...

Each CAST (tests/pty/replay/*.cast, recorded by record.py from bash, less,
vim, htop and python3) is replayed into our screen (pty_replay: the
libvterm code of scvm -t pty) and into @xterm/headless (xterm_replay.cjs)
at the recorded size.  At every checkpoint (before each input that follows
output, and at the end) the text screens must be identical, lines with
trailing spaces trimmed, and so must the cursor position, the cursor's
visibility (when xterm exposes it) and the alternate-screen flag.
Exits 77 (skip) when node or the pinned @xterm/headless is missing.
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
replay, node_modules, casts = sys.argv[1], sys.argv[2], sys.argv[3:]

if not shutil.which('node'):
    print('SKIP: node is not installed')
    sys.exit(77)
if not os.path.isdir(os.path.join(node_modules, '@xterm', 'headless')):
    print('SKIP: @xterm/headless is not installed in %s (npm ci failed?)' % node_modules)
    sys.exit(77)


def screens(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError('%s failed (%d): %s' % (cmd[0], p.returncode, p.stderr))
    return json.loads(p.stdout)


failures = 0
for cast in casts:
    name = os.path.basename(cast)
    ours = screens([replay, cast])
    theirs = screens(['node', os.path.join(HERE, 'xterm', 'xterm_replay.cjs'), node_modules, cast])
    problems = []
    if len(ours) != len(theirs):
        problems.append('%d checkpoints here, %d in xterm' % (len(ours), len(theirs)))
    for a, b in zip(ours, theirs):
        at = 'before event %d' % a['event']
        if a['event'] != b['event']:
            problems.append('%s: checkpoint events differ (%d, %d)' % (at, a['event'], b['event']))
            break
        if (a['rows'], a['cols']) != (b['rows'], b['cols']):
            problems.append('%s: size %dx%d, xterm %dx%d' % (at, a['rows'], a['cols'], b['rows'], b['cols']))
        for i, (x, y) in enumerate(zip(a['lines'], b['lines'])):
            if x.rstrip() != y.rstrip():
                problems.append('%s: line %d\n  ours:  %r\n  xterm: %r' % (at, i, x, y))
        ca, cb = a['cursor'], b['cursor']
        if (ca['row'], ca['col']) != (cb['row'], cb['col']):
            problems.append('%s: cursor %d,%d, xterm %d,%d' % (at, ca['row'], ca['col'], cb['row'], cb['col']))
        if cb['visible'] is not None and ca['visible'] != cb['visible']:
            problems.append('%s: cursor visible %s, xterm %s' % (at, ca['visible'], cb['visible']))
        if a['alternate_screen'] != b['alternate_screen']:
            problems.append('%s: alternate screen %s, xterm %s' % (at, a['alternate_screen'], b['alternate_screen']))
    if problems:
        failures += 1
        print('FAIL %s: %d difference(s)\n%s' % (name, len(problems), '\n'.join(problems[:20])))
    else:
        print('ok   %s: %d checkpoints identical' % (name, len(ours)))
print('%d passed, %d failed' % (len(casts) - failures, failures))
sys.exit(1 if failures else 0)
