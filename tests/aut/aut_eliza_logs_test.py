#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""aut_eliza_logs_test.py SCVM DATA WORK - issue 33 item 8: ElizaOS's
`_logs_` files, `--filter` and the `scenario` command in the help
(docs/eliza.md, "The _logs_ files"; docs/dialects.md's ElizaOS rows).

DATA is tests/eliza-logs: a scenario in the shapes of
elizaos-scenario-runner.md (an input step, a code step, virtual_fs, the
plugin configuration) and a matrix over it.  The agent is a small
OpenAI-compatible server here that answers with text and a tool call.

  - `scvm scenario run FILE` with SOURCE_DATE_EPOCH: ./_logs_ holds exactly
    run-2025-11-28-001-03-20-00.json and each step's -execution.json and
    -evaluation.json; every field of each is checked, and each file's
    bytes are JSON.stringify(x, null, 2)'s (Python's indent=2 layout);
  - the same run again with --logs DIR: the same bytes; in ./_logs_ again:
    002; two runs started at once into a fresh folder: 001 and 002;
  - `scvm run -t aut` writes no _logs_ unless --logs; --logs on a file: 3;
  - `scenario matrix`: a run file per combination, ElizaOS's combo ids
    (computed here as matrix-runner.ts computes them) and parameters;
    --parallel 2 writes the same files; --filter as ElizaOS filters: a
    case-insensitive substring of JSON.stringify(parameters);
  - `scvm --help` lists `scenario`; `scvm scenario --help` its options.
"""
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import failures, expect  # noqa: E402

SCVM, DATA, WORK = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
shutil.copytree(DATA, WORK)
EPOCH = '1764300000'                        # 2025-11-28 03:20:00 UTC
STAMP = 'run-2025-11-28-%03d-03-20-00'
ISO = '2025-11-28T03:20:00.000Z'


class Agent(http.server.BaseHTTPRequestHandler):
    """The agent under test: an invoice lookup (a tool call) and an answer
    naming the user's words."""
    def do_POST(self):
        req = json.loads(self.rfile.read(int(self.headers['Content-Length'])))
        said = [m['content'] for m in req['messages'] if m['role'] == 'user'][-1]
        msg = {'role': 'assistant', 'content': 'Invoice 7 checked for "%s": charged twice.' % said,
               'tool_calls': [{'id': 'c1', 'type': 'function',
                               'function': {'name': 'LOOKUP_INVOICE', 'arguments': '{"invoice": 7}'}}]}
        body = json.dumps({'choices': [{'index': 0, 'message': msg, 'finish_reason': 'stop'}]}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Agent)
threading.Thread(target=srv.serve_forever, daemon=True).start()
AGENT = ('--agent-url', 'http://127.0.0.1:%d/v1' % srv.server_address[1])


def scvm(*a, epoch=EPOCH, cwd=WORK):
    e = {k: v for k, v in os.environ.items() if not k.startswith('OPENAI_') and k != 'SOURCE_DATE_EPOCH'}
    if epoch:
        e['SOURCE_DATE_EPOCH'] = epoch
    return subprocess.run([SCVM, *a], capture_output=True, text=True, cwd=cwd, timeout=120, env=e)


def start(*a, logs):
    e = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH)
    return subprocess.Popen([SCVM, *a, '--logs', logs], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            cwd=WORK, env=e, text=True)


def ls(d):
    p = os.path.join(WORK, d)
    return sorted(os.listdir(p)) if os.path.isdir(p) else []


def load(d, name):
    """The file's JSON, after checking its bytes are JSON.stringify(x, null, 2)'s."""
    raw = open(os.path.join(WORK, d, name), encoding='utf-8').read()
    j = json.loads(raw)
    expect(raw == json.dumps(j, indent=2, ensure_ascii=False),
           '%s/%s is not laid out as JSON.stringify(x, null, 2): %r' % (d, name, raw[:200]))
    return j


def js_hash(s):
    """matrix-runner.ts's hashString: h = h * 31 + unit over UTF-16 units, 32 bits, |h| in hex."""
    h = 0
    units = s.encode('utf-16-le')
    for i in range(0, len(units), 2):
        h = (h * 31 + int.from_bytes(units[i:i + 2], 'little')) & 0xffffffff
    if h >= 0x80000000:
        h -= 0x100000000
    return format(abs(h), 'x')


def combo_id(params, index):
    key = '&'.join('%s=%s' % (k, json.dumps(params[k], ensure_ascii=False, separators=(',', ':')))
                   for k in sorted(params))
    return 'combo-%03d-%s' % (index, js_hash(key)[:8])


# ---- scenario run: the files and every field ----
p = scvm('scenario', 'run', 'billing.scenario.yaml', *AGENT)
expect(p.returncode == 0, 'the run passes (a code step\'s exit status fails nothing, as in ElizaOS): %d %r'
       % (p.returncode, p.stderr[-600:]))
run1 = STAMP % 1
want = [run1 + '-step-0-evaluation.json', run1 + '-step-0-execution.json', run1 + '-step-1-evaluation.json',
        run1 + '-step-1-execution.json', run1 + '.json']
expect(ls('_logs_') == want, 'scenario run wrote ./_logs_: %r (wanted %r) %r' % (ls('_logs_'), want, p.stderr[-400:]))
if ls('_logs_') == want:
    reply = 'Invoice 7 checked for "Hi, I need help with billing": charged twice.'
    x0 = load('_logs_', want[1])
    expect(list(x0) == ['exitCode', 'stdout', 'stderr', 'files', 'startedAtMs', 'endedAtMs', 'durationMs',
                        'trajectory'], 'the input step\'s execution keys, in ElizaOS\'s order: %r' % list(x0))
    traj = [{'type': 'observation', 'timestamp': ISO, 'content': 'User message: Hi, I need help with billing'},
            {'type': 'action', 'timestamp': ISO, 'content': {'name': 'LOOKUP_INVOICE', 'parameters': {'invoice': 7}}},
            {'type': 'observation', 'timestamp': ISO, 'content': 'Agent message: ' + reply}]
    expect(x0 == {'exitCode': 0, 'stdout': reply, 'stderr': '',
                  'files': {'notes.txt': 'charged twice: refund the second charge'},
                  'startedAtMs': 1764300000000, 'endedAtMs': 1764300000000, 'durationMs': 0, 'trajectory': traj},
           'the input step\'s execution file: %r' % x0)
    x1 = load('_logs_', want[3])
    expect(x1 == {'exitCode': 3, 'stdout': 'filed: charged twice: refund the second charge', 'stderr': '',
                  'files': {'notes.txt': 'charged twice: refund the second charge',
                            'out/ticket.txt': 'charged twice: refund the second charge'},
                  'startedAtMs': 1764300000000, 'endedAtMs': 1764300000000, 'durationMs': 0},
           'the code step\'s execution file (no trajectory; its exit status; the files after it): %r' % x1)
    e0, e1 = load('_logs_', want[0]), load('_logs_', want[2])
    types = []
    for e in e0 + e1:
        en = e.get('_enhanced', {})
        expect(list(e) == ['success', 'message', '_enhanced'] and list(en) == ['evaluator_type', 'success', 'summary',
                                                                              'details']
               and en['success'] == e['success'] and en['summary'] == e['message']
               and en['details'] == {'verdict': 'passed' if e['success'] else 'failed'},
               'an evaluation record: {success, message, _enhanced{evaluator_type, success, summary, details}}: %r' % e)
        types.append((en.get('evaluator_type'), e['success']))
    expect(types == [('string_contains', True), ('trajectory_contains_action', True), ('regex_match', True),
                     ('file_exists', True)], 'the evaluations, ElizaOS\'s types, in order: %r' % types)
    r = load('_logs_', want[4])
    expect(list(r) == ['run_id', 'matrix_combination_id', 'parameters', 'metrics', 'final_agent_response',
                       'evaluations', 'trajectory', 'error'], 'the run file\'s keys, in order: %r' % list(r))
    expect(r['run_id'] == run1 and r['matrix_combination_id'].startswith('single-1764300000000-')
           and len(r['matrix_combination_id']) == len('single-1764300000000-') + 6
           and r['parameters'] == {'scenario.file': 'billing.scenario.yaml'}
           and r['metrics'] == {'execution_time_seconds': 0, 'llm_calls': 1, 'total_tokens': 500}
           and r['final_agent_response'] == x1['stdout']
           and r['evaluations'] == [e['_enhanced'] for e in e0 + e1]
           and r['trajectory'] == traj and r['error'] is None, 'the run file: %r' % r)

# the same run: the same bytes (SOURCE_DATE_EPOCH); into ./_logs_ again: 002
p = scvm('scenario', 'run', 'billing.scenario.yaml', '--logs', 'again', *AGENT)
same = ls('again') == want and all(open(os.path.join(WORK, 'again', f), 'rb').read()
                                   == open(os.path.join(WORK, '_logs_', f), 'rb').read() for f in want)
expect(same, 'the same run writes the same bytes: %r %r' % (ls('again'), p.stderr[-300:]))
p = scvm('scenario', 'run', 'billing.scenario.yaml', *AGENT)
expect(sorted(f for f in ls('_logs_') if f.endswith('-00.json')) == [run1 + '.json', STAMP % 2 + '.json'],
       'a second run in the same folder takes 002: %r' % ls('_logs_'))
# without the frozen clock: today's UTC date and the next number of that date
before = time.strftime('run-%Y-%m-%d', time.gmtime())
p = scvm('scenario', 'run', 'billing.scenario.yaml', '--logs', 'clock', *AGENT, epoch=None)
names = [f for f in ls('clock') if '-step-' not in f]
today = (before, time.strftime('run-%Y-%m-%d', time.gmtime()))     # a run across midnight: either
expect(len(names) == 1 and names[0][:14] in today and names[0][14:19] == '-001-' and len(names[0]) == len(run1) + 5,
       'the clock\'s UTC date (%s): %r' % (today, names))

# the clock with -j: each step's own times (its process's), within the run, its trajectory at its end
t0 = int(time.time() * 1000)
p = scvm('scenario', 'matrix', 'billing.matrix.yaml', '--parallel', '2', '--logs', 'clockj', *AGENT, epoch=None)
t1 = int(time.time() * 1000) + 1
xs = [load('clockj', f) for f in ls('clockj') if f.endswith('-execution.json')]
expect(len(xs) == 8 and all(t0 <= x['startedAtMs'] <= x['endedAtMs'] <= t1
                            and x['endedAtMs'] - x['startedAtMs'] == x['durationMs'] for x in xs)
       and all(t['timestamp'] == time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(x['endedAtMs'] // 1000))
               + '.%03dZ' % (x['endedAtMs'] % 1000) for x in xs for t in x.get('trajectory', [])),
       'with the clock and -j: each step\'s times within the run (%d..%d): %r' % (
           t0, t1, [(x['startedAtMs'], x['endedAtMs'], x['durationMs']) for x in xs]))

# two runs at once into one fresh folder: 001 and 002, never one number twice
procs = [start('scenario', 'run', 'billing.scenario.yaml', *AGENT, logs='par') for _ in range(2)]
for q in procs:
    q.wait(timeout=120)
runs = sorted(f for f in ls('par') if '-step-' not in f)
expect(runs == [STAMP % 1 + '.json', STAMP % 2 + '.json'] and len(ls('par')) == 10,
       'two runs at once: 001 and 002 with their step files: %r' % ls('par'))

# scvm run -t aut: no _logs_ unless --logs; --logs DIR; --logs on a file
os.mkdir(os.path.join(WORK, 'plain'))
shutil.copy(os.path.join(WORK, 'billing.scenario.yaml'), os.path.join(WORK, 'plain'))
p = scvm('run', '-t', 'aut', 'billing.scenario.yaml', *AGENT, cwd=os.path.join(WORK, 'plain'))
expect(ls('plain') == ['billing.scenario.yaml'], 'run -t aut without --logs writes none: %r' % ls('plain'))
p = scvm('run', '-t', 'aut', 'billing.scenario.yaml', '--logs', 'deep/er', *AGENT)
expect(len(ls('deep/er')) == 5, 'run -t aut --logs DIR (made): %r %r' % (ls('deep/er'), p.stderr[-300:]))
p = scvm('run', '-t', 'aut', 'billing.scenario.yaml', '--logs', 'billing.matrix.yaml', *AGENT)
expect(p.returncode == 3 and 'billing.matrix.yaml' in p.stderr, '--logs on a file: %d %r' % (p.returncode, p.stderr))
p = scvm('scenario', 'run', 'billing.scenario.yaml', '--dry-run', '--logs', 'dry')
expect(p.returncode == 0 and ls('dry') == [], '--dry-run writes no logs: %d %r' % (p.returncode, ls('dry')))

# a conversation (scripted user): the transcript, every turn's trajectory, its metadata
p = scvm('scenario', 'run', 'chat.scenario.yaml', '--logs', 'chat', *AGENT)
cw = [STAMP % 1 + '-step-0-evaluation.json', STAMP % 1 + '-step-0-execution.json', STAMP % 1 + '.json']
expect(p.returncode == 0 and ls('chat') == cw, 'the conversation\'s files: %d %r %r' % (p.returncode, ls('chat'),
                                                                                       p.stderr[-300:]))
if ls('chat') == cw:
    said = ['Hi, I need help with billing', 'It was this month', 'thank you']
    ans = ['Invoice 7 checked for "%s": charged twice.' % u for u in said]
    x = load('chat', cw[1])
    expect(list(x) == ['exitCode', 'stdout', 'stderr', 'files', 'startedAtMs', 'endedAtMs', 'durationMs', 'trajectory',
                       'conversationMetadata']
           and x['exitCode'] == 0 and x['stderr'] == '' and x['files'] == {} and x['durationMs'] == 0
           and x['stdout'] == '\n'.join('Turn %d:\nUser: %s\nAgent: %s\n' % (k + 1, u, a)
                                        for k, (u, a) in enumerate(zip(said, ans)))
           and [t['content'] for t in x['trajectory'] if t['type'] == 'observation']
           == [m for u, a in zip(said, ans) for m in ('User message: ' + u, 'Agent message: ' + a)]
           and sum(t['type'] == 'action' for t in x['trajectory']) == 3
           and x['conversationMetadata'] == {
               'turnCount': 3, 'terminatedEarly': True, 'terminationReason': 'user_expresses_satisfaction',
               'finalEvaluations': [{'evaluator_type': 'string_contains', 'success': True,
                                     'summary': "the response contains 'charged twice' (any case)",
                                     'details': {'verdict': 'passed'}}]},
           'the conversation\'s execution file: %r' % x)
    ev = load('chat', cw[0])
    expect([e['_enhanced']['evaluator_type'] for e in ev] == ['conversation_length'],
           'only the step\'s evaluations (not the final ones) in its evaluation file: %r' % ev)
    r = load('chat', cw[2])
    expect(r['final_agent_response'] == x['stdout'] and r['trajectory'] == x['trajectory'] and r['error'] is None,
           'the conversation\'s run file: %r' % r)

# run: [] still has its run file, and nothing else
p = scvm('scenario', 'run', 'empty.scenario.yaml', '--logs', 'empty', *AGENT)
expect(p.returncode == 0 and ls('empty') == [run1 + '.json'], 'an empty run: its run file only: %d %r' % (
    p.returncode, ls('empty')))
if ls('empty') == [run1 + '.json']:
    r = load('empty', run1 + '.json')
    expect(r == {'run_id': run1, 'matrix_combination_id': r['matrix_combination_id'],
                 'parameters': {'scenario.file': 'empty.scenario.yaml'},
                 'metrics': {'execution_time_seconds': 0, 'llm_calls': 1, 'total_tokens': 500},
                 'evaluations': [], 'trajectory': [], 'error': None}, 'an empty run\'s run file: %r' % r)

# ---- scenario matrix: a run file per combination, ElizaOS's ids ----
INPUTS = ['Hi, I need help with billing', 'My Invoice is wrong']
PATTERNS = ['filed: .*refund', 'filed']
combos = [{'run[0].input': i, 'run[1].evaluations[0].pattern': pt} for i in INPUTS for pt in PATTERNS]
p = scvm('scenario', 'matrix', 'billing.matrix.yaml', '--logs', 'm1', *AGENT)
runs = sorted(f for f in ls('m1') if '-step-' not in f)
expect(runs == [STAMP % k + '.json' for k in range(1, 5)] and len(ls('m1')) == 20,
       'a run file per combination, numbered in order: %r %r' % (ls('m1'), p.stderr[-300:]))
for k, name in enumerate(runs):
    r = load('m1', name)
    expect(r['matrix_combination_id'] == combo_id(combos[k], k) and list(r['parameters'].items())
           == list(combos[k].items()), 'combination %d: id and parameters (axis order): %r, wanted %r %r'
           % (k, r, combo_id(combos[k], k), combos[k]))
# non-ASCII and escaped values: the ids over UTF-16 units, the parameters unescaped
uni = [{'run[0].input': 'Caf\u00e9 \u2615 bill'}, {'run[0].input': 'emoji \U0001f600 "quoted"\ttab'}]
p = scvm('scenario', 'matrix', 'unicode.matrix.yaml', '--logs', 'uni', *AGENT)
got = [load('uni', f) for f in ls('uni') if '-step-' not in f]
expect([(r['matrix_combination_id'], r['parameters']) for r in got] == [(combo_id(c, k), c) for k, c in enumerate(uni)],
       'non-ASCII combinations: %r %r' % ([(r['matrix_combination_id'], r['parameters']) for r in got], p.stderr[-300:]))
combos_js = combos + uni
# --filter lowers every script's capitals, as toLowerCase does: 'CAFÉ' finds 'Café'
p = scvm('scenario', 'matrix', 'unicode.matrix.yaml', '--filter', 'CAF\u00c9 \u2615', '--logs', 'unif', *AGENT)
got = [load('unif', f)['parameters'] for f in ls('unif') if '-step-' not in f]
expect(got == uni[:1], '--filter CAF\u00c9: %r %r' % (got, p.stderr[-300:]))
# ElizaOS's own computation, when node is here to ask
if shutil.which('node'):
    js = ('const c=%s;function h(s){let x=0;for(let i=0;i<s.length;i++){x=(x<<5)-x+s.charCodeAt(i);x=x&x;}'
          'return Math.abs(x).toString(16);}console.log(JSON.stringify(c.map((p,i)=>"combo-"+String(i)'
          '.padStart(3,"0")+"-"+h(Object.keys(p).sort().map(k=>`${k}=${JSON.stringify(p[k])}`).join("&"))'
          '.slice(0,8))));') % json.dumps(combos_js)
    ids = json.loads(subprocess.run(['node', '-e', js], capture_output=True, text=True, timeout=60).stdout)
    expect(ids == [combo_id(c, k) for k, c in enumerate(combos_js)], 'node agrees on the combo ids: %r' % ids)
# -j: the same files
p = scvm('scenario', 'matrix', 'billing.matrix.yaml', '--parallel', '2', '--logs', 'm2', *AGENT)
expect(ls('m2') == ls('m1') and all(open(os.path.join(WORK, 'm2', f), 'rb').read()
                                    == open(os.path.join(WORK, 'm1', f), 'rb').read() for f in ls('m1')),
       '--parallel 2 writes the same files: %r %r' % (ls('m2'), p.stderr[-300:]))

# --filter: a case-insensitive substring of JSON.stringify(parameters)
for pattern, hits in [('invoice', [2, 3]), ('"run[0].input":"my', [2, 3]), ('REFUND', [0, 2]),
                      ('"filed"}', [1, 3]), ('run[0].input', [0, 1, 2, 3]), ('no such thing', [])]:
    d = 'f%d' % len(os.listdir(WORK))
    p = scvm('scenario', 'matrix', 'billing.matrix.yaml', '--filter', pattern, '--logs', d, *AGENT)
    got = [load(d, f)['matrix_combination_id'] for f in ls(d) if '-step-' not in f]
    expect(got == [combo_id(combos[k], k) for k in hits] and ('Applying filter: %s: %d of 4 scenarios'
                                                              % (pattern, len(hits))) in p.stderr,
           '--filter %r: the combinations %r, got %r %r' % (pattern, hits, got, p.stderr[-300:]))
# many --parallel=N words (each two words for run -t aut): all fit (an ASan build sees an overrun)
p = scvm('scenario', 'matrix', 'billing.matrix.yaml', '--dry-run', *(['--parallel=1'] * 12))
expect(p.returncode == 0 and p.stdout.count('"kind":"scenario"') == 4, 'twelve --parallel=1: %d %r' % (
    p.returncode, p.stderr[-300:]))
p = scvm('scenario', 'matrix', 'billing.matrix.yaml', *AGENT, '--filter')
expect(p.returncode == 2 and '--filter' in p.stderr, '--filter without its PATTERN: %d %r' % (p.returncode, p.stderr))
p = scvm('scenario', 'matrix', 'billing.matrix.yaml', '--filter=invoice', '--dry-run')
expect(p.returncode == 0 and p.stdout.count('"kind":"scenario"') == 2, '--filter=P with --dry-run lists 2: %r'
       % p.stdout[-300:])

# ---- the help ----
p = scvm('--help')
expect(p.returncode == 0 and 'scvm scenario run FILE' in p.stdout and 'scvm scenario matrix CONFIG' in p.stdout
       and '\n  scenario ' in p.stdout, 'scvm --help lists the scenario command: %r' % p.stdout[-1500:])
p = scvm('scenario', '--help')
expect(p.returncode == 0 and all(o in p.stdout for o in ('--logs DIR', '--filter PATTERN', '--parallel N')),
       'scvm scenario --help: %r' % p.stdout)

if failures:
    print('%d failure(s)' % len(failures))
    sys.exit(1)
print("ElizaOS's _logs_ files, --filter and the scenario command")
