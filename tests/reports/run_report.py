#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""run_report.py SCC SCVM REPO WORK - `scvm run --report DIR`, `scvm report
--merge` of report folders and `scvm report FILE` (docs/report.md).

  1. The stdlib pack on the sim target: report.json has a record per
     scenario with its verdict and its number of events (the event lines
     `scvm run` prints for it), a page per scenario holding a table row per
     event; -j2 writes the same bytes.
  2. Four shards' reports merged are the single run's report, byte for byte
     (report.json, index.html, every page); overlapping shards, a folder
     that is no report and a damaged report.json are refused with status 2
     and nothing written.
  3. The PTY target: a failing run (a golden with changed characters) gets
     a page with both screens and the differing cells, its diagnostics and a
     recording; with --fail-fast the scenario after it is a skipped record
     with no page.  A passing run's recording, composed from the page's
     frame data as the player composes it, shows at its poster frame exactly
     the text of the run's last screenshot.
  4. `scvm report FILE.scb` is the page `scc -l --html` writes.
"""
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import expect, failures  # noqa: E402

scc, scvm, repo, work = sys.argv[1:5]
stdlib = os.path.join(repo, 'stdlib-scenarios')
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def run(*a, cwd=None):
    return subprocess.run([scvm, *a], capture_output=True, text=True, cwd=cwd, timeout=600)


def same_tree(a, b, what):
    """Every file of a is in b with the same bytes, and no file more."""
    fa = sorted(os.path.relpath(os.path.join(d, f), a) for d, _, fs in os.walk(a) for f in fs)
    fb = sorted(os.path.relpath(os.path.join(d, f), b) for d, _, fs in os.walk(b) for f in fs)
    if not expect(fa == fb, '%s: files differ: %s' % (what, sorted(set(fa) ^ set(fb))[:5])):
        return
    bad = [f for f in fa if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False)]
    expect(not bad, '%s: bytes differ in %s' % (what, bad[:5]))


# ---------- 1. the sim target ----------

pack = os.path.join(work, 'std.scp')
subprocess.run([scc, '--pack', '-o', pack, stdlib], check=True, capture_output=True)
r1 = os.path.join(work, 'r1')
p = run('run', '--report', r1, pack)
# the stdlib's assertions are not evaluated in simulation: status 1, the report written all the same
expect(p.returncode == 1 and 'not evaluated is not passed' in p.stderr, 'sim run: %d %s' % (p.returncode, p.stderr))
expect('scvm: report: %s/index.html' % r1 in p.stderr, 'the report is named on stderr: %s' % p.stderr)
# the events each scenario prints, after its header line
events, cur = {}, None
for line in p.stdout.splitlines():
    o = json.loads(line)
    if o.get('kind') == 'scenario' and 'at_ms' not in o:
        cur = o['name']
        events[cur] = 0
    else:
        events[cur] += 1
rep = json.load(open(os.path.join(r1, 'report.json')))
expect(rep['report_version'] == 1 and rep['suite'] == 'std.scp' and rep['target'] == 'sim', 'report.json head')
expect([r['name'] for r in rep['runs']] == list(events), 'a record per scenario in pack order')
# a scenario with assertions is skipped, not passed: the simulation does not
# evaluate them (its not_evaluated events say which); the others passed
unjudged = {}
for line in p.stdout.splitlines():
    o = json.loads(line)
    if o.get('kind') == 'scenario' and 'at_ms' not in o:
        cur = o['name']
    elif o.get('kind') == 'not_evaluated':
        unjudged[cur] = unjudged.get(cur, 0) + 1
expect(unjudged, 'the stdlib has assertions')
for r in rep['runs']:
    n = unjudged.get(r['name'])
    want = 'skipped' if n else 'passed'
    why = '%d assertion%s not evaluated in simulation; play with -t pty or -t agent to check them' % (
        n, '' if n == 1 else 's') if n else None
    expect(r['verdict'] == want and r['status'] == 0 and r['why'] == why and r['ran_ms'] is None,
           '%s %s, and took no real time: %s %r' % (r['name'], want, r['verdict'], r['why']))
    expect(r['events'] == events[r['name']], '%s: %d events recorded, %d printed' %
           (r['name'], r['events'], events[r['name']]))
    page = os.path.join(r1, r['page'])
    if expect(os.path.exists(page), 'page %s' % r['page']):
        html = open(page, encoding='utf-8').read()
        rows = len(re.findall(r'<tr(?: class="bad")?><td class="n">\d+</td><td class="n">\d+</td><td>', html))
        expect(rows == events[r['name']], '%s: %d event rows for %d events' % (r['page'], rows, events[r['name']]))
        expect('<span class="result %s">%s</span>' % (r['verdict'], r['verdict']) in html, '%s: the verdict' % r['page'])
        for bad in ('src=', 'href=', 'url(', '<link'):
            expect(bad not in html, '%s fetches something (%s)' % (r['page'], bad))
index = open(os.path.join(r1, 'index.html'), encoding='utf-8').read()
expect('%d passed' % (len(events) - len(unjudged)) in index and '0 failed' in index and
       '%d skipped' % len(unjudged) in index, 'index totals')
expect(all('href="%s"' % r['page'] in index for r in rep['runs']), 'the index links every page')
r1j = os.path.join(work, 'r1j')
p = run('run', '-j', '2', '--report', r1j, pack)
same_tree(r1, r1j, '-j2')

# ---------- 2. shards merged ----------

shards = []
for k in range(1, 5):
    d = os.path.join(work, 's%d' % k)
    p = run('run', '--allow-skipped', '--shard', '%d/4' % k, '--report', d, pack)
    expect(p.returncode == 0, 'shard %d: %s' % (k, p.stderr))
    shards.append(d)
merged = os.path.join(work, 'merged')
p = run('report', '--merge', '-o', merged, *shards)
expect(p.returncode == 0, 'merge: %s' % p.stderr)
same_tree(r1, merged, 'merged shards')
for args, what in (([shards[0], shards[0]], 'overlap'), ([shards[0], os.path.join(work, 'nope')], 'no report'),
                   ([shards[0], pack], 'a file among folders')):
    out = os.path.join(work, 'bad-' + what.replace(' ', '-'))
    p = run('report', '--merge', '-o', out, *args)
    expect(p.returncode == 2, 'merge of %s: status %d, want 2 (%s)' % (what, p.returncode, p.stderr.strip()))
    expect(not os.path.exists(os.path.join(out, 'index.html')), 'merge of %s wrote an index' % what)
expect('the shards overlap' in run('report', '--merge', '-o', os.path.join(work, 'x'), shards[0], shards[0]).stderr,
       'the overlap is named')
broken = os.path.join(work, 'broken')
shutil.copytree(shards[1], broken)
with open(os.path.join(broken, 'report.json'), 'w') as f:
    f.write('{"report_version":1,"suite":"std.scp","target":"sim","runs":[{"index":"one"}]}\n')
p = run('report', '--merge', '-o', os.path.join(work, 'bad-broken'), shards[0], broken)
expect(p.returncode == 2 and 'a run without index' in p.stderr, 'a damaged report.json: %s' % p.stderr)

# ---------- 3. the PTY target ----------

ppack = os.path.join(work, 'pty.scp')
subprocess.run([scc, '--pack', '-o', ppack, os.path.join(stdlib, 'pty_bash_session.yaml'),
                os.path.join(stdlib, 'pty_less_pager.yaml')], check=True, capture_output=True)
gold = os.path.join(work, 'goldens')
for name in ('pty_bash_session', 'pty_less_pager'):
    shutil.copytree(os.path.join(stdlib, 'goldens', name), os.path.join(gold, name))
g = os.path.join(gold, 'pty_bash_session', 'xterm-80x24', 'screenshots', 'after_commands.golden')
t = open(g, encoding='utf-8').read()
open(g, 'w', encoding='utf-8').write(t.replace('hello from the PTY target', 'hello from the PTY tarqet', 1))
rf = os.path.join(work, 'pty-fail')
p = run('run', '-t', 'pty', '--ci', '--fail-fast', '-j', '1', '--goldens', gold, '--report', rf, ppack, cwd=work)
expect(p.returncode == 1, 'the failing PTY run: status %d: %s' % (p.returncode, p.stderr[-500:]))
rep = json.load(open(os.path.join(rf, 'report.json')))
runs = {r['name']: r for r in rep['runs']}
b, l = runs.get('pty_bash_session', {}), runs.get('pty_less_pager', {})
expect(b.get('verdict') == 'failed' and b.get('screenshots_bad') == 1 and 'after_commands' in (b.get('why') or '')
       and isinstance(b.get('ran_ms'), int) and b['ran_ms'] >= 300, 'the failed record: %s' % b)
expect(l.get('verdict') == 'skipped' and l.get('page') is None and 'fail-fast' in (l.get('why') or ''),
       'the skipped record: %s' % l)
expect(not any(f.startswith('0001-') for f in os.listdir(rf)), 'a skipped scenario has no page')
html = open(os.path.join(rf, b.get('page', 'none')), encoding='utf-8').read() if b.get('page') else ''
for want in ('<span class="result failed">failed</span>', ' ms &middot; ran %s ms</p>' % b.get('ran_ms'), '<span class="result mismatch">mismatch</span>',
             '1 cell differs', 'expected (golden)', 'class="diff"', 'tarqet', 'id="player"', 'id="cast-data"',
             'differs from its golden', 'id="transcript"', 'id="run-json"'):
    expect(want in html, 'the failed page holds %r' % want)
for f in ('run.json', 'session.cast', 'transcript.log'):
    expect(os.path.exists(os.path.join(rf, 'pty_bash_session', f)), 'artifact %s in the report folder' % f)

rp = os.path.join(work, 'pty-pass')
p = run('run', '-t', 'pty', '--ci', '--goldens', os.path.join(stdlib, 'goldens'), '--report', rp, ppack)
expect(p.returncode == 0, 'the passing PTY run: %s' % p.stderr[-500:])
page = os.path.join(rp, '0001-pty_less_pager.html')
html = open(page, encoding='utf-8').read() if os.path.exists(page) else ''
m = re.search(r'<script type="application/json" id="cast-data">(.*?)</script>', html, re.S)
if expect(m, 'the less page has a recording'):
    d = json.loads(m.group(1))
    expect(len(d['frames']) >= 3 and d['end'] >= 100, '%d frames over %d ms' % (len(d['frames']), d['end']))
    expect(all(d['frames'][i][0] <= d['frames'][i + 1][0] for i in range(len(d['frames']) - 1)), 'frame times rise')
    f = d['frames'][d['poster']]
    cells = {}
    for r, rid in enumerate(f[5]):
        for xs, chars in re.findall(r'<text y="14"[^>]* x="([\d ]+)">([^<]*)</text>', d['dict'][rid]):
            chars = chars.replace('&lt;', '<').replace('&gt;', '>').replace('&amp;', '&')
            for x, ch in zip(xs.split(), chars):
                cells[(r, int(x) // 9)] = ch
    shown = [''.join(cells.get((r, c), ' ') for c in range(f[1])).rstrip() for r in range(len(f[5]))]
    gl = open(os.path.join(stdlib, 'goldens', 'pty_less_pager', 'xterm-80x24', 'screenshots',
                           'after_search.golden'), encoding='utf-8').read()
    want = [row.split('|', 1)[1] for row in gl.split('\n') if re.match(r'^ *\d+\|', row)]
    expect(shown == want, 'the poster frame is the last screenshot:\n%s\nwant\n%s' %
           ('\n'.join(shown[:4]), '\n'.join(want[:4])))

# ---------- 4. scvm report FILE ----------

scb = os.path.join(work, 'bugfix_with_tests.scb')
subprocess.run([scc, '-o', scb, 'bugfix_with_tests.yaml'], check=True, cwd=stdlib)
want = subprocess.run([scc, '-l', '--html', 'bugfix_with_tests.yaml'], capture_output=True, text=True,
                      cwd=stdlib).stdout
p = run('report', scb)
expect(p.returncode == 0 and p.stdout == want, 'scvm report FILE.scb is scc -l --html (%d)' % p.returncode)
p = run('report', '--scenario', 'bugfix_with_tests', '-o', os.path.join(work, 'sched.html'), pack)
expect(p.returncode == 0 and open(os.path.join(work, 'sched.html')).read() == want, 'the same from the pack')
p = run('report', pack)
expect(p.returncode == 2 and 'name one with --scenario' in p.stderr, 'a pack needs --scenario: %s' % p.stderr)

if failures:
    print('%d failure(s)' % len(failures))
    sys.exit(1)
print('the run report, its merge and the schedule page hold')
