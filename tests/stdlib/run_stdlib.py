#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden tests for the standard scenarios in stdlib-scenarios/.

For each scenario (and each of its test configurations, see below):
  1. `scc -l` listing           == golden/<base>.lst
  2. `scvm run` playback        == golden/<base>.jsonl       (byte for byte)
  3. `scvm info --json` metadata == golden/<base>.meta.json   (resolved config,
     defines, prompt, op/event counts, duration; encoding details left out)
  4. playing twice gives identical bytes
  5. compiling twice (and once more from another directory, by absolute
     path) gives identical .scb bytes
  6. the events agree with the scenario: every non-silent op of the listing
     is one playback event of the op's kind at the op's time, in order, and
     the playback holds at least the events the YAML implies (PyYAML; the
     parts under `rules` are left out of that lower bound)
With --coverage, checks over the whole set instead:
  - names are unique, snake_case, equal to the file name; README.md lists each
  - every op in formats/ops.def appears in some listing, and every non-silent
    op's event kind in some playback
  - every timeline event and tool shorthand of compiler/lower*.c (EVENTS[],
    LW_TOOLS[]), every content block type and toolExecution event type appears
    in some scenario
  - no golden file is left over from a scenario or configuration that is gone

Test configurations: `# scc-test: VARIANT [-D NAME[=VALUE]]...` comment lines
in a scenario's YAML.  Variant `default` uses golden/<name>.*, any other
golden/<name>.<VARIANT>.*.  Without such lines a scenario has one default
configuration and no defines.

--update rewrites the goldens from the current binaries (checks 4-6 still
run) and, on a whole-set run, removes stale golden files.
"""
import argparse
import difflib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Playback event kinds each timeline event implies (check 6).  Kinds are
# checked against ops.def, so a renamed event fails here rather than
# silently passing.
SIMPLE_KINDS = {
    'agentEdits': ['file_edit'],
    'agentPlan': ['plan_update'],
    'setMode': ['mode_change'],
    'setModel': ['model_change'],
    'userEdits': ['user_edits'],
    'userCommand': ['user_command'],
    'userCancelSession': ['cancel'],
    'screenshot': ['screenshot'],
    'log': ['log'],
    'assert': ['assert'],
    'complete': ['complete', 'status'],
    'merge': ['merge'],
    'status': ['status'],
    'agentFileReads': ['agent_file_reads'],
    'agentPermissionRequest': ['agent_permission_request'],
    'initialize': [],
    'sessionStart': [],
    'baseTimeDelta': [],
    'advanceMs': [],
}
LLM_KINDS = {'think': 'thinking', 'assistant': 'assistant', 'error': 'error'}
COMPANIONS = {'_meta', 'meta', 'target', 'expectedResponse'}
TOOL_FIELDS = {'progress', 'result', 'status', 'toolExecution', 'toolCallId', '_meta', 'meta'}


class Failure(Exception):
    pass


# ---------------------------------------------------------------- tables

def parse_ops_def(path):
    """[(NAME, event, silent)] in table order, leaving out OPF_TERM and
    OPF_AGENTTEST ops: only the tui-use front end emits the first (tests/pty
    covers them), only the ElizaOS and Yao ones the second (tests/corpus,
    compiler.agent_dialects and the docs' worked examples cover them)."""
    ops = []
    rx = re.compile(r'^OP\(\s*(\w+)\s*,\s*"[^"]*"\s*,\s*([^,]+?)\s*,\s*"([^"]+)"')
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = rx.match(line)
            if m and 'OPF_TERM' not in m.group(2) and 'OPF_AGENTTEST' not in m.group(2):
                ops.append((m.group(1), m.group(3), 'OPF_SILENT' in m.group(2)))
    if not ops:
        raise Failure('%s: no OP(...) lines found' % path)
    return ops


def c_string_array(src, decl):
    """The string literals of `static const char *const NAME[] = {...}`."""
    m = re.search(re.escape(decl) + r'\s*\[\]\s*=\s*\{(.*?)\};', src, re.S)
    if not m:
        raise Failure('compiler/lower.c: cannot find %s[]' % decl)
    return re.findall(r'"([^"]*)"', m.group(1))


def parse_lower_tables(path):
    # lower.c and the files split from it (lower_*.c beside it)
    folder = os.path.dirname(path)
    src = ''
    for name in [os.path.basename(path)] + sorted(n for n in os.listdir(folder)
                                                  if n.startswith('lower_') and n.endswith('.c')):
        with open(os.path.join(folder, name), encoding='utf-8') as f:
            src += f.read() + '\n'
    m = re.search(r'\}\s*EVENTS\[\]\s*=\s*\{(.*?)\n\};', src, re.S)
    if not m:
        raise Failure('%s: cannot find EVENTS[]' % path)
    events = re.findall(r'\{\s*"(\w+)"\s*,\s*lower_', m.group(1))
    m = re.search(r'ToolDef\s+(?:LW_)?TOOLS\[\]\s*=\s*\{(.*?)\n\};', src, re.S)
    if not m:
        raise Failure('%s: cannot find TOOLS[]' % path)
    tools = re.findall(r'^\s*\{\s*"(\w+)"\s*,\s*\{', m.group(1), re.M)
    content = c_string_array(src, 'CONTENT_TYPES')
    exec_types = c_string_array(src, 'EXEC_TYPES')
    if not events or not tools:
        raise Failure('%s: EVENTS[] or TOOLS[] parsed empty' % path)
    return events, tools, content, exec_types


# ---------------------------------------------------------------- scenarios

def scenario_names(sdir):
    return sorted(f[:-5] for f in os.listdir(sdir) if f.endswith('.yaml'))


def variants(path):
    """[(variant, [scc args])] from the `# scc-test:` lines."""
    out = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = re.match(r'#\s*scc-test:\s*(.*)$', line)
            if not m:
                continue
            words = shlex.split(m.group(1))
            if not words or not re.fullmatch(r'[a-z0-9_]+', words[0]):
                raise Failure('%s: bad scc-test line: %s' % (path, line.strip()))
            args, i = [], 1
            while i < len(words):
                w = words[i]
                if w in ('-D', '--define') and i + 1 < len(words):
                    args += ['-D', words[i + 1]]
                    i += 2
                elif w.startswith('-D') and len(w) > 2:
                    args += ['-D', w[2:]]
                    i += 1
                else:
                    raise Failure('%s: scc-test lines take only -D NAME[=VALUE], got %r' % (path, w))
            out.append((words[0], args))
    if not out:
        out = [('default', [])]
    names = [v for v, _ in out]
    if len(set(names)) != len(names):
        raise Failure('%s: duplicate scc-test variant names' % path)
    return out


def golden_base(name, variant):
    return name if variant == 'default' else '%s.%s' % (name, variant)


# ---------------------------------------------------------------- running

def clean_env():
    env = dict(os.environ)
    env.pop('AH_SCENARIO_DEFINES', None)   # symbols come from the manifest only
    env['NO_COLOR'] = '1'
    env['LC_ALL'] = 'C'
    return env


UNCHECKED = re.compile(rb'scvm: (\d+) assertions? not evaluated in simulation; '
                       rb'play with -t pty or -t agent to check them \(allowed: --allow-skipped\)\n')


def run(cmd, cwd=None):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=clean_env(), timeout=60)
    if p.returncode != 0:
        raise Failure('%s exited with %d\n%s' % (' '.join(cmd), p.returncode,
                                                 p.stderr.decode('utf-8', 'replace')))
    # the simulation says what it did not check: the one line, counting
    # its not_evaluated events
    m = UNCHECKED.fullmatch(p.stderr)
    if m and int(m.group(1)) == p.stdout.count(b'"kind":"not_evaluated"'):
        return p.stdout
    if p.stderr:
        raise Failure('%s wrote to stderr:\n%s' % (' '.join(cmd), p.stderr.decode('utf-8', 'replace')))
    return p.stdout


def show_diff(what, want, got):
    a = want.decode('utf-8', 'replace').splitlines(True)
    b = got.decode('utf-8', 'replace').splitlines(True)
    d = list(difflib.unified_diff(a, b, 'golden/' + what, 'actual', n=2))
    if len(d) > 60:
        d = d[:60] + ['... (%d more diff lines)\n' % (len(d) - 60)]
    return ''.join(d)


def compare_golden(gdir, fname, got, update, log):
    path = os.path.join(gdir, fname)
    want = None
    if os.path.exists(path):
        with open(path, 'rb') as f:
            want = f.read()
    if want == got:
        return
    if update:
        with open(path, 'wb') as f:
            f.write(got)
        log('  updated golden/%s' % fname)
        return
    if want is None:
        raise Failure('golden/%s is missing (run with --update to create it)' % fname)
    raise Failure('golden/%s differs:\n%s' % (fname, show_diff(fname, want, got)))


# Left out: where the file is, its size and checksum, the container version
# and the pool sizes; they change with the encoding, not with the scenario.
META_DROP = ('file', 'file_size', 'content_size', 'checksum', 'version', 'strings', 'values')


def meta_json(raw):
    m = json.loads(raw.decode('utf-8'))
    for k in META_DROP:
        m.pop(k, None)
    return (json.dumps(m, indent=1, ensure_ascii=False) + '\n').encode('utf-8')


LIST_RX = re.compile(r'^\s*(\d+)\s+(\d+)\s+(\S+)\s+([A-Z_]+)\b')


def listing_ops(lst):
    ops = []
    for line in lst.decode('utf-8').splitlines():
        m = LIST_RX.match(line)
        if m:
            ops.append((m.group(4), int(m.group(2))))
    if not ops:
        raise Failure('the listing has no op lines')
    return ops


def parse_events(jsonl):
    evs = []
    for i, line in enumerate(jsonl.decode('utf-8').splitlines(), 1):
        try:
            e = json.loads(line)
        except ValueError as x:
            raise Failure('playback line %d is not JSON: %s' % (i, x))
        evs.append(e)
    return evs


# ---------------------------------------------------------------- check 6

def implied_kinds(doc, tools, where='timeline'):
    """Counts of the event kinds the YAML implies (outside rules blocks)."""
    counts = {'status': 2}     # queued, running: every playback starts so

    def add(kind, n=1):
        counts[kind] = counts.get(kind, 0) + n

    def tool(v):
        add('tool_start')
        if not isinstance(v, dict):
            return
        prog = v.get('progress') or []
        if prog:
            add('tool_progress', len(prog))
        ex = v.get('toolExecution')
        if ex is None:
            add('tool_result')
            return
        for e in (ex or {}).get('events') or []:
            if e.get('type') == 'completion':
                add('tool_result')
            elif e.get('content') is not None:
                add('tool_progress')

    def item(it):
        if isinstance(it, str):
            for k in SIMPLE_KINDS.get(it, []):
                add(k)
            return
        if not isinstance(it, dict):
            return
        for k, v in it.items():
            if k in COMPANIONS or k == 'rules':
                continue
            if k in ('agentActions', 'userActions'):
                for sub in v or []:
                    item(sub)
            elif k == 'llmResponse':
                for el in v or []:
                    for ek, ev in (el or {}).items():
                        if ek in LLM_KINDS:
                            add(LLM_KINDS[ek], len(ev) if isinstance(ev, list) else 1)
            elif k == 'userInputs':
                add('user_input', len(v or []))
            elif k == 'agentToolUse' or k in tools:
                tool(v)
            elif k in SIMPLE_KINDS:
                if k in ('complete', 'merge') and v is False:
                    continue
                for kk in SIMPLE_KINDS[k]:
                    add(kk)
            else:
                raise Failure('check 6 does not know the timeline event %r; teach run_stdlib.py' % k)

    for it in doc.get('timeline') or []:
        item(it)
    return counts


def check_events(name, lst, jsonl, ops_table, tools, yaml_path):
    kind_of = {n: (ev, silent) for n, ev, silent in ops_table}
    want = []
    for op, t in listing_ops(lst):
        if op not in kind_of:
            raise Failure('the listing has op %s, which ops.def does not define' % op)
        ev, silent = kind_of[op]
        if not silent:
            want.append((ev, t))
    evs = parse_events(jsonl)
    # not_evaluated: the simulation's word on each check of the check op
    # just before it, at its time; not an op's event
    for i, e in enumerate(evs):
        if e.get('kind') == 'not_evaluated':
            before = evs[i - 1] if i else {}
            if before.get('kind') not in ('assert', 'wait', 'check', 'eval', 'not_evaluated') or \
                    before.get('at_ms') != e.get('at_ms') or e.get('op') not in ('assert', 'wait', 'check', 'eval'):
                raise Failure('event %d: not_evaluated does not follow its check op: %r' % (i + 1, e))
    evs = [e for e in evs if e.get('kind') != 'not_evaluated']
    got = [(e.get('kind'), e.get('at_ms')) for e in evs]
    if want != got:
        for i, (a, b) in enumerate(zip(want, got)):
            if a != b:
                raise Failure('event %d is %s at %s ms; the listing says %s at %s ms' % (i + 1, b[0], b[1], a[0], a[1]))
        raise Failure('%d playback events for %d non-silent ops' % (len(got), len(want)))
    times = [t for _, t in got]
    if times != sorted(times):
        raise Failure('playback times decrease')
    try:
        import yaml
    except ImportError:
        return 'skipped the YAML lower bound (no PyYAML)'
    with open(yaml_path, encoding='utf-8') as f:
        doc = yaml.safe_load(f)
    have = {}
    for k, _ in got:
        have[k] = have.get(k, 0) + 1
    events = {ev for _, ev, _ in ops_table}
    for k, n in sorted(implied_kinds(doc, tools).items()):
        if k not in events:
            raise Failure('run_stdlib.py maps an event to kind %r, which ops.def does not have' % k)
        if have.get(k, 0) < n:
            raise Failure('the YAML implies at least %d %r events; the playback has %d' % (n, k, have.get(k, 0)))
    return None


# ---------------------------------------------------------------- per scenario

def check_scenario(a, name, ops_table, tools, log):
    sdir, gdir = a.scenarios, a.golden
    yaml_file = name + '.yaml'
    path = os.path.join(sdir, yaml_file)
    results = []
    for variant, defs in variants(path):
        base = golden_base(name, variant)
        label = name if variant == 'default' else '%s [%s: %s]' % (name, variant, ' '.join(defs))
        try:
            lst = run([a.scc, '-Werror', '-l'] + defs + [yaml_file], cwd=sdir)
            compare_golden(gdir, base + '.lst', lst, a.update, log)
            with tempfile.TemporaryDirectory() as tmp:
                scbs = []
                for i in range(2):
                    out = os.path.join(tmp, '%d.scb' % i)
                    run([a.scc, '-Werror'] + defs + ['-o', out, yaml_file], cwd=sdir)
                    scbs.append(out)
                out = os.path.join(tmp, 'abs.scb')
                run([a.scc, '-Werror'] + defs + ['-o', out, os.path.abspath(path)], cwd=tmp)
                scbs.append(out)
                blobs = [open(p, 'rb').read() for p in scbs]
                if blobs[0] != blobs[1]:
                    raise Failure('compiling twice gave different .scb bytes')
                if blobs[0] != blobs[2]:
                    raise Failure('compiling by absolute path from another directory gave different .scb bytes')
                play = [run([a.scvm, 'run', '--allow-skipped', scbs[0]]) for _ in range(2)]
                if play[0] != play[1]:
                    raise Failure('playing twice gave different output:\n' + show_diff(base + '.jsonl', play[0], play[1]))
                compare_golden(gdir, base + '.jsonl', play[0], a.update, log)
                meta = meta_json(run([a.scvm, 'info', '--json', scbs[0]]))
                compare_golden(gdir, base + '.meta.json', meta, a.update, log)
            note = check_events(name, lst, play[0], ops_table, tools, path)
            results.append((label, None, note))
        except Failure as e:
            results.append((label, str(e), None))
    return results


# ---------------------------------------------------------------- coverage

def check_coverage(a, ops_table, events, tools, content, exec_types):
    sdir, gdir = a.scenarios, a.golden
    names = scenario_names(sdir)
    problems = []
    if len(names) < 16:
        problems.append('only %d scenarios; the standard set has at least 16' % len(names))
    texts = {}
    expected_golden = set()
    for n in names:
        with open(os.path.join(sdir, n + '.yaml'), encoding='utf-8') as f:
            texts[n] = f.read()
        if not re.fullmatch(r'[a-z][a-z0-9]*(_[a-z0-9]+)*', n):
            problems.append('%s.yaml: the name is not snake_case' % n)
        m = re.search(r'^name:\s*[\'"]?([^\'"\n]+?)[\'"]?\s*$', texts[n], re.M)
        if not m or m.group(1) != n:
            problems.append('%s.yaml: top-level name is %r, not the file name' % (n, m.group(1) if m else None))
        for v, _ in variants(os.path.join(sdir, n + '.yaml')):
            for ext in ('.lst', '.jsonl', '.meta.json'):
                expected_golden.add(golden_base(n, v) + ext)
    readme = os.path.join(sdir, 'README.md')
    rtext = open(readme, encoding='utf-8').read() if os.path.exists(readme) else ''
    for n in names:
        if not re.search(r'`%s(\.yaml)?`' % re.escape(n), rtext):
            problems.append('README.md does not describe %s' % n)

    have_ops, have_kinds = set(), set()
    for g in sorted(expected_golden):
        p = os.path.join(gdir, g)
        if not os.path.exists(p):
            problems.append('golden/%s is missing' % g)
            continue
        data = open(p, 'rb').read()
        if g.endswith('.lst'):
            have_ops |= {op for op, _ in listing_ops(data)}
        elif g.endswith('.jsonl'):
            have_kinds |= {e.get('kind') for e in parse_events(data)}
    for op, ev, silent in ops_table:
        if op not in have_ops:
            problems.append('no listing has op %s (ops.def); add a scenario that uses it' % op)
        if not silent and ev not in have_kinds:
            problems.append('no playback has event kind %r (op %s); add a scenario that produces it' % (ev, op))

    alltext = '\n'.join(texts.values())
    for k in events + tools:
        if not re.search(r'(?m)^[ \t-]*%s[ \t]*(:|$)' % re.escape(k), alltext):
            problems.append('no scenario uses the timeline event %r (lower.c)' % k)
    for t in content:
        if not re.search(r'(?m)\btype:\s*[\'"]?%s[\'"]?\s*[,}\n]' % re.escape(t), alltext):
            problems.append('no scenario uses the content block type %r' % t)
    for t in exec_types:
        if not re.search(r'(?m)-\s*type:\s*[\'"]?%s[\'"]?\s*$' % re.escape(t), alltext):
            problems.append('no scenario uses the toolExecution event type %r' % t)
    multi = [n for n in names if len(variants(os.path.join(sdir, n + '.yaml'))) > 1]
    if not multi:
        problems.append('no scenario is tested under two define sets')

    if os.path.isdir(gdir):
        for g in sorted(os.listdir(gdir)):
            if g not in expected_golden:
                if a.update:
                    os.remove(os.path.join(gdir, g))
                    print('  removed stale golden/%s' % g)
                else:
                    problems.append('golden/%s belongs to no scenario configuration' % g)
    return problems, len(names), have_kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--scc', required=True)
    ap.add_argument('--scvm', required=True)
    ap.add_argument('--scenarios', default=os.path.join(ROOT, 'stdlib-scenarios'))
    ap.add_argument('--golden', default=os.path.join(HERE, 'golden'))
    ap.add_argument('--ops-def', default=os.path.join(ROOT, 'formats', 'ops.def'))
    ap.add_argument('--lower-c', default=os.path.join(ROOT, 'compiler', 'lower.c'))
    ap.add_argument('--only', action='append', default=[], metavar='NAME',
                    help='check only this scenario (repeatable)')
    ap.add_argument('--coverage', action='store_true',
                    help='run the whole-set coverage checks instead of the per-scenario ones')
    ap.add_argument('--update', action='store_true', help='rewrite the goldens')
    a = ap.parse_args()
    a.scenarios = os.path.abspath(a.scenarios)
    a.golden = os.path.abspath(a.golden)
    a.scc = os.path.abspath(a.scc)
    a.scvm = os.path.abspath(a.scvm)
    os.makedirs(a.golden, exist_ok=True)
    try:
        ops_table = parse_ops_def(a.ops_def)
        events, tools, content, exec_types = parse_lower_tables(a.lower_c)
    except Failure as e:
        print('FAIL: %s' % e)
        return 1

    if a.coverage:
        problems, n, kinds = check_coverage(a, ops_table, events, tools, content, exec_types)
        for p in problems:
            print('FAIL: %s' % p)
        if problems:
            return 1
        print('ok: %d scenarios cover %d ops, %d event kinds, %d timeline events, %d tools, '
              '%d content types, %d execution event types'
              % (n, len(ops_table), len(kinds), len(events), len(tools), len(content), len(exec_types)))
        return 0

    names = a.only or scenario_names(a.scenarios)
    failed = 0
    for n in names:
        if not os.path.exists(os.path.join(a.scenarios, n + '.yaml')):
            print('FAIL %s: no such scenario' % n)
            failed += 1
            continue
        try:
            res = check_scenario(a, n, ops_table, tools, print)
        except Failure as e:
            res = [(n, str(e), None)]
        for label, err, note in res:
            if err:
                failed += 1
                print('FAIL %s: %s' % (label, err))
            else:
                print('ok   %s%s' % (label, ' (%s)' % note if note else ''))
    if not a.only and a.update:
        # A whole-set update also drops goldens of removed scenarios.
        check_coverage(a, ops_table, events, tools, content, exec_types)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
