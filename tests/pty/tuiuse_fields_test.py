#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tui-use scenarios against the data model's rules, one group of cases per
ctest (docs/tui-use.md, "The policy, field by field"):

  policy_fields   every Policy field enforced or refused (artifacts.*,
                  fs.working_dir, fs_strict_write, ...)
  exited_input    typing into a program that has exited is E_PROCESS_EXIT
  policy_file     run.policy {path} stays in the scenario's folder unless
                  scc --policy-outside
  color_names     cells' colours: the data model's ansi_16/ansi_256 by
                  default, ptybox's ansi16/ansi256 with --color-names=ptybox
  datamodel_shapes  every JSON shape we write (driver messages, exec's and
                  a scenario's RunResult, policy.json, snapshots, events,
                  normalization.json, replay.json, diff.json) against the
                  field lists of the data model, read from the seed itself
                  (SEEDS/tui-use-data-model.md; exit 77 when SEEDS is absent)

usage: tuiuse_fields_test.py SCC SCVM WORKDIR GROUP [SEEDS]

Nothing measures time: waits are event-driven with generous deadlines.
"""
import json
import os
import shutil
import subprocess
import sys

from ptycase import case, finish, local_env, run, setup

SCC, SCVM, WORK, GROUP = sys.argv[1:5]
SEEDS = sys.argv[5] if len(sys.argv) > 5 else None
if GROUP in ('color_names', 'datamodel_shapes') and not (SEEDS and os.path.isfile(
        os.path.join(SEEDS, 'tui-use-data-model.md'))):
    print('skipped: no data model at %s' % SEEDS)
    sys.exit(77)
setup(os.path.join(WORK, GROUP))


def group(name):
    def deco(fn):
        if name == GROUP:
            case(fn)
        return fn
    return deco


def policy(*exes, **kw):
    p = {
        'policy_version': 4, 'sandbox': 'none', 'sandbox_unsafe_ack': True,
        'network': 'disabled', 'network_unsafe_ack': True,
        'fs': {'allowed_read': [], 'allowed_write': [], 'working_dir': None},
        'exec': {'allowed_executables': list(exes), 'allow_shell': False},
        'env': {'allowlist': ['PATH', 'HOME'], 'set': {'LANG': 'C.UTF-8'}, 'inherit': True},
    }
    p.update(kw)
    return p


N = [0]


def step(action, payload=None, asserts=(), timeout_ms=30000, retries=0, name=None):
    N[0] += 1
    return {'id': '00000000-0000-4000-8000-%012d' % N[0], 'name': name or action,
            'action': {'type': action, 'payload': payload or {}},
            'assert': [{'type': t, 'payload': p} for t, p in asserts],
            'timeout_ms': timeout_ms, 'retries': retries}


def wait(cond, payload=None, **kw):
    return step('wait', {'condition': {'type': cond, 'payload': payload or {}}}, **kw)


def scenario(name, command, args, steps, pol, rows=5, cols=30, cwd=None):
    r = {'command': command, 'args': args, 'initial_size': {'rows': rows, 'cols': cols}, 'policy': pol}
    if cwd:
        r['cwd'] = cwd
    return {'scenario_version': 1, 'metadata': {'name': name}, 'run': r, 'steps': steps}


def write(d, name, obj):
    with open(os.path.join(d, name), 'w') as f:
        json.dump(obj, f, indent=2)


def compile_(d, name, sc, *opts):
    write(d, name, sc)
    st, out, err = run([SCC] + list(opts) + [name], d)
    assert st == 0, 'scc %s: %s' % (name, err)
    return os.path.splitext(name)[0] + '.scb'


def play(d, scb, *opts):
    return run([SCVM, 'run', '-t', 'pty', '--data-model-exit'] + list(opts) + [scb], d)


def echo_sc(pol, name='echo'):
    return scenario(name, '/bin/echo', ['hi'], [wait('process_exited', asserts=[('exit_code', {'code': 0})])], pol)


# ---- exited_input ----

@group('exited_input')
def text_after_exit_is_e_process_exit(d):
    sc = scenario('typed', '/bin/echo', ['bye'], [
        wait('process_exited', name='exits'),
        step('text', {'text': 'hello\n'}, name='type'),
        step('key', {'key': 'Enter'}, name='never'),
    ], policy('/bin/echo'))
    scb = compile_(d, 'typed.json', sc)
    st, out, err = play(d, scb, '--artifacts', 'art')
    assert st == 6, (st, out, err)
    r = json.load(open(os.path.join(d, 'art', 'run.json')))
    assert r['error']['code'] == 'E_PROCESS_EXIT' and 'has exited' in r['error']['message'], r['error']
    assert [s['status'] for s in r['steps']] == ['passed', 'errored'], r['steps']
    assert r['steps'][1]['error']['code'] == 'E_PROCESS_EXIT', r['steps'][1]
    # scvm's own status: a failed run
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb], d)
    assert st == 1 and 'E_PROCESS_EXIT' in err, (st, err)


@group('exited_input')
def key_after_exit_is_e_process_exit(d):
    sc = scenario('keyed', '/bin/cat', [], [
        step('text', {'text': 'x\n'}, asserts=[('line_equals', {'line': 1, 'text': 'x'})]),
        step('key', {'key': 'Ctrl+D'}),
        wait('process_exited', asserts=[('exit_code', {'code': 0})]),
        step('key', {'key': 'Up'}, name='after'),
    ], policy('/bin/cat'))
    scb = compile_(d, 'keyed.json', sc)
    st, out, err = play(d, scb, '--artifacts', 'art')
    assert st == 6 and 'key: the program has exited (exit code 0)' in err, (st, err)
    r = json.load(open(os.path.join(d, 'art', 'run.json')))
    assert [s['status'] for s in r['steps']] == ['passed', 'passed', 'passed', 'errored'], r['steps']

@group('exited_input')
def driver_refuses_input_after_exit(d):
    reqs = [{'protocol_version': 2, 'request_id': '1', 'action': {'type': 'wait', 'payload': {
                'condition': {'type': 'process_exited'}}}, 'timeout_ms': 20000},
            {'protocol_version': 2, 'request_id': '2', 'action': {'type': 'text', 'payload': {'text': 'x\n'}}},
            {'protocol_version': 2, 'request_id': '3', 'action': {'type': 'key', 'payload': {'key': 'Enter'}}}]
    p = subprocess.run([SCVM, 'driver', '--stdio', '--json', '--no-sandbox', '--ack-unsafe-sandbox', '--',
                        '/bin/echo', 'bye'], cwd=d, input=''.join(json.dumps(r) + '\n' for r in reqs).encode(),
                       capture_output=True, timeout=120)
    lines = [json.loads(l) for l in p.stdout.decode().splitlines()]
    assert p.returncode == 0 and lines[0]['status'] == 'ok', (p.returncode, lines)
    for r in lines[1:3]:
        assert r['status'] == 'error' and r['error']['code'] == 'E_PROCESS_EXIT', r


# ---- policy_file ----

def policy_ref_sc(path):
    return scenario('ref', '/bin/echo', ['hi'], [wait('process_exited')], {'path': path})


@group('policy_file')
def policy_file_stays_in_the_scenarios_folder(d):
    sc_dir, out_dir = os.path.join(d, 'sc'), os.path.join(d, 'outside')
    os.makedirs(os.path.join(sc_dir, 'sub'))
    os.makedirs(out_dir)
    write(sc_dir, 'policy.json', policy('/bin/echo'))
    write(out_dir, 'policy.json', policy('/bin/echo'))
    os.symlink('../outside/policy.json', os.path.join(sc_dir, 'escape.json'))
    os.symlink('policy.json', os.path.join(sc_dir, 'inside.json'))
    allowed = {'rel': 'policy.json', 'abs_inside': os.path.join(sc_dir, 'policy.json'),
               'link_inside': 'inside.json', 'dotdot_inside': 'sub/../policy.json'}
    refused = {'link_out': 'escape.json', 'dotdot_out': '../outside/policy.json',
               'abs_out': os.path.join(out_dir, 'policy.json')}
    for name, path in list(allowed.items()) + list(refused.items()):
        write(sc_dir, 's_%s.json' % name, policy_ref_sc(path))
    # openat2, and (SCC_OPENAT2=0) the fallback of kernels without it
    for env in (None, dict(os.environ, SCC_OPENAT2='0')):
        for name in allowed:
            st, out, err = run([SCC, '-Wno-tui-use-compat', 'sc/s_%s.json' % name], d, env=env)
            assert st == 0, (name, env is None, err)
        for name, path in refused.items():
            st, out, err = run([SCC, '-Wno-tui-use-compat', 'sc/s_%s.json' % name], d, env=env)
            assert st == 1 and ("sc/s_%s.json:16:15: error:" % name) in err and \
                "is outside the scenario's folder" in err and '--policy-outside' in err, (name, env is None, st, err)
    for name, path in refused.items():
        # the option says otherwise: read wherever it points
        st, out, err = run([SCC, '--policy-outside', '-Wno-tui-use-compat', 'sc/s_%s.json' % name], d)
        assert st == 0, (name, err)
    # compiled with the option, the scenario plays with the file's policy
    st, out, err = play(d, 'sc/s_link_out.scb')
    assert st == 0, (st, err)


# ---- policy_fields ----

def pwd_sc(pol, name='pwd', steps=None):
    return scenario(name, '/bin/pwd', [], steps or [wait('process_exited')], pol, cols=400)


def refused(d, name, pol, want_msg, *opts, prog=pwd_sc, status=2):
    """The scenario's policy is refused before the spawn with status (E_POLICY_DENIED: 2)."""
    scb = compile_(d, name + '.json', prog(pol, name))
    st, out, err = play(d, scb, *opts)
    assert st == status and want_msg in err, (name, st, err)
    assert '"kind":"spawn"' not in out, (name, out)
    return scb


def ws(d, *parts):
    p = os.path.join(d, 'ws', *parts)
    os.makedirs(p, exist_ok=True)
    return p


@group('policy_fields')
def artifacts_go_to_the_policys_folder(d):
    out = ws(d, 'out')
    pol = policy('/bin/pwd', fs={'allowed_read': [], 'allowed_write': [out]}, fs_write_unsafe_ack=True,
                 artifacts={'enabled': True, 'dir': os.path.join(out, 'a'), 'overwrite': False})
    scb = compile_(d, 'art.json', pwd_sc(pol, 'art'))
    st, o, err = play(d, scb)
    assert st == 0, (st, err)
    for f in ('run.json', 'policy.json', 'events.jsonl', 'checksums.json', 'snapshots/000001.json', 'scenario.scb'):
        assert os.path.exists(os.path.join(out, 'a', f)), f
    # overwrite false: a folder that holds files is refused, before anything runs
    st, o, err = play(d, scb)
    assert st == 2 and 'artifacts.overwrite is not true' in err and '"kind":"spawn"' not in o, (st, err)
    # --json without --artifacts: the RunResult comes from the policy's folder
    pol['artifacts']['overwrite'] = True
    scb = compile_(d, 'art2.json', pwd_sc(pol, 'art2'))
    st, o, err = play(d, scb, '--json')
    r = json.loads(o)
    assert st == 0 and r['status'] == 'passed', (st, o, err)
    assert json.load(open(os.path.join(out, 'a', 'run.json')))['run_id'] == r['run_id']
    # the command line's folder wins (the data model: dir is "used if CLI does not supply --artifacts")
    st, o, err = play(d, scb, '--artifacts', 'cli')
    assert st == 0 and os.path.exists(os.path.join(d, 'cli', 'run.json')), (st, err)
    # disabled: nothing is written there
    shutil.rmtree(os.path.join(out, 'a'))
    pol['artifacts']['enabled'] = False
    scb = compile_(d, 'art3.json', pwd_sc(pol, 'art3'))
    st, o, err = play(d, scb)
    assert st == 0 and not os.path.exists(os.path.join(out, 'a')), (st, err)


@group('policy_fields')
def artifacts_dir_outside_allowed_write_is_refused(d):
    out, other = ws(d, 'out'), ws(d, 'other')
    base = dict(fs={'allowed_read': [], 'allowed_write': [out]}, fs_write_unsafe_ack=True)
    refused(d, 'outside', policy('/bin/pwd', artifacts={'enabled': True, 'dir': other, 'overwrite': True}, **base),
            "artifacts.dir '%s' is not inside fs.allowed_write" % other)
    # '..' is resolved before the check
    sneaky = os.path.join(out, '..', 'other')
    refused(d, 'dotdot', policy('/bin/pwd', artifacts={'enabled': True, 'dir': sneaky, 'overwrite': True}, **base),
            'is not inside fs.allowed_write')
    # so is a link out of the allowed folder
    os.symlink(other, os.path.join(out, 'link'))
    refused(d, 'link', policy('/bin/pwd', artifacts={'enabled': True, 'dir': os.path.join(out, 'link', 'a'),
                                                     'overwrite': True}, **base), 'is not inside fs.allowed_write')
    # enabled without a folder
    refused(d, 'nodir', policy('/bin/pwd', artifacts={'enabled': True, 'overwrite': True}, **base),
            'artifacts.enabled needs artifacts.dir')
    assert os.listdir(other) == [], os.listdir(other)


@group('policy_fields')
def working_dir_must_be_inside_an_allowed_root(d):
    run_dir, other = ws(d, 'run'), ws(d, 'other')
    refused(d, 'wd_out', policy('/bin/pwd', fs={'allowed_read': [run_dir], 'allowed_write': [],
                                                'working_dir': other}),
            "fs.working_dir '%s' is not inside fs.allowed_read or fs.allowed_write" % other)
    refused(d, 'wd_dotdot', policy('/bin/pwd', fs={'allowed_read': [run_dir], 'allowed_write': [],
                                                   'working_dir': os.path.join(run_dir, '..', 'other')}),
            'is not inside fs.allowed_read')
    refused(d, 'wd_none', policy('/bin/pwd', fs={'allowed_read': [], 'allowed_write': [], 'working_dir': run_dir}),
            'is not inside fs.allowed_read')
    # inside: allowed, and the program runs there
    scb = compile_(d, 'wd_ok.json', pwd_sc(policy('/bin/pwd', fs={'allowed_read': [run_dir], 'allowed_write': [],
                                                                  'working_dir': run_dir}), 'wd_ok'))
    st, o, err = play(d, scb, '--artifacts', 'art')
    assert st == 0, (st, err)
    r = json.load(open(os.path.join(d, 'art', 'run.json')))
    # (a long path wraps: the rows joined)
    assert ''.join(r['final_observation']['screen']['lines']) == os.path.realpath(run_dir), r['final_observation']
    # scvm exec: the same checks, the same folder
    wr = os.path.join(d, 'wd_policy.json')
    json.dump(policy('/bin/pwd', fs={'allowed_read': [run_dir], 'allowed_write': [], 'working_dir': run_dir}),
              open(wr, 'w'))
    st, o, err = run([SCVM, 'exec', '--json', '--cols', '400', '--policy', wr, '--', '/bin/pwd'], d)
    r = json.loads(o)
    assert st == 0 and r['cwd'] == run_dir and ''.join(r['final_observation']['screen']['lines']) == \
        os.path.realpath(run_dir), (st, o, err)
    json.dump(policy('/bin/pwd', fs={'allowed_read': [run_dir], 'allowed_write': [], 'working_dir': other}),
              open(wr, 'w'))
    st, o, err = run([SCVM, 'exec', '--json', '--policy', wr, '--', '/bin/pwd'], d)
    assert st == 2 and 'fs.working_dir' in o, (st, o)


@group('policy_fields')
def strict_write_needs_its_acknowledgement(d):
    out = ws(d, 'out')
    # --artifacts is a write
    scb = refused(d, 'strict_cli', policy('/bin/pwd', fs_strict_write=True),
                  'fs_strict_write: --artifacts is a write', '--artifacts', 'art')
    assert not os.path.exists(os.path.join(d, 'art')), os.listdir(d)
    # so is --cast
    st, o, err = play(d, scb, '--cast', 'rec.cast')
    assert st == 2 and 'fs_strict_write: --cast' in err and not os.path.exists(os.path.join(d, 'rec.cast')), err
    # without a write of scvm's it runs
    st, o, err = play(d, scb)
    assert st == 0, (st, err)
    # the policy's artifacts are a write
    refused(d, 'strict_pol', policy('/bin/pwd', fs_strict_write=True, fs={'allowed_read': [], 'allowed_write': [out]},
                                    fs_write_unsafe_ack=False,
                                    artifacts={'enabled': True, 'dir': os.path.join(out, 'a'), 'overwrite': True}),
            'fs.allowed_write is not empty: fs_write_unsafe_ack must be true')
    # the sandbox's TMPDIR is a write
    refused(d, 'strict_sbx', policy('/bin/pwd', sandbox='seatbelt', sandbox_unsafe_ack=False, fs_strict_write=True),
            "fs_strict_write: the sandbox's temporary folder")
    # acknowledged: allowed, and the artifacts are written
    scb = compile_(d, 'strict_ack.json', pwd_sc(policy('/bin/pwd', fs_strict_write=True, fs_write_unsafe_ack=True),
                                                'strict_ack'))
    st, o, err = play(d, scb, '--artifacts', 'art')
    assert st == 0 and os.path.exists(os.path.join(d, 'art', 'run.json')), (st, err)
    # scvm exec and driver: the same
    pf = os.path.join(d, 'strict_policy.json')
    json.dump(policy('/bin/pwd', fs_strict_write=True), open(pf, 'w'))
    st, o, err = run([SCVM, 'exec', '--json', '--policy', pf, '--artifacts', 'ex', '--', '/bin/pwd'], d)
    assert st == 2 and 'fs_strict_write' in o and not os.path.exists(os.path.join(d, 'ex')), (st, o)
    st, o, err = run([SCVM, 'driver', '--stdio', '--json', '--policy', pf, '--artifacts', 'dr', '--', '/bin/pwd'], d)
    assert st == 2 and 'fs_strict_write' in o and not os.path.exists(os.path.join(d, 'dr')), (st, o)


@group('policy_fields')
def refusals_of_the_other_fields(d):
    """Each remaining field's refusal, one line each (the sandbox's enforcement: pty.sandbox)."""
    tmp = ws(d, 'tmp')
    cases = [
        ('sandbox_noack', policy('/bin/pwd', sandbox_unsafe_ack=False), 'sandbox: none needs sandbox_unsafe_ack', 2),
        ('net_noack', policy('/bin/pwd', network_unsafe_ack=False), 'network_unsafe_ack must be true', 2),
        ('net_on_noack', policy('/bin/pwd', sandbox='seatbelt', sandbox_unsafe_ack=True, network='enabled',
                                network_unsafe_ack=False), 'network: enabled needs network_unsafe_ack', 2),
        ('read_root', policy('/bin/pwd', fs={'allowed_read': ['/'], 'allowed_write': []}),
         "fs.allowed_read may not contain '/'", 2),
        ('write_noack', policy('/bin/pwd', fs={'allowed_read': [], 'allowed_write': [tmp]}),
         'fs_write_unsafe_ack must be true', 2),
        ('exec_not_listed', policy('/bin/echo'), 'is not in exec.allowed_executables', 2),
    ]
    for name, pol, msg, status in cases:
        refused(d, name, pol, msg, status=status)
    # policy_version: scc refuses a scenario's; scvm a --policy file's
    write(d, 'v3.json', pwd_sc(policy('/bin/pwd', policy_version=3), 'v3'))
    st, o, err = run([SCC, 'v3.json'], d)
    assert st == 1 and "'policy_version' must be 4" in err, (st, err)
    scb = compile_(d, 'v4.json', pwd_sc(policy('/bin/pwd'), 'v4'))
    write(d, 'over.json', {'policy_version': 3})
    st, o, err = play(d, scb, '--policy', 'over.json')
    assert st == 8 and 'policy_version must be 4' in err, (st, err)
    # sandbox: scc refuses an unknown mode; scvm a --policy file's
    write(d, 'chroot.json', pwd_sc(policy('/bin/pwd', sandbox='chroot'), 'chroot'))
    st, o, err = run([SCC, 'chroot.json'], d)
    assert st == 1 and "'sandbox' in the policy must be one of" in err, (st, err)
    write(d, 'over.json', {'sandbox': 'chroot'})
    st, o, err = play(d, scb, '--policy', 'over.json')
    assert st == 2 and "sandbox must be 'seatbelt' or 'none'" in err, (st, err)
    # a shell with -c needs allow_shell
    sh = lambda pol, name: scenario(name, '/bin/sh', ['-c', 'echo hi'], [wait('process_exited')], pol)
    refused(d, 'shell', policy('/bin/sh'), "-c' needs exec.allow_shell: true", prog=sh)
    pol = policy('/bin/sh')
    pol['exec']['allow_shell'] = True
    scb = compile_(d, 'shell_ok.json', sh(pol, 'shell_ok'))
    st, o, err = play(d, scb)
    assert st == 0, (st, err)


@group('policy_fields')
def env_fields(d):
    """env.inherit with env.allowlist, and env.set."""
    def env_sc(env, name):
        pol = policy('/usr/bin/env')
        pol['env'] = env
        return scenario(name, '/usr/bin/env', [], [wait('process_exited')], pol, rows=20, cols=60)

    def env_of(name, env):
        scb = compile_(d, name + '.json', env_sc(env, name))
        e = dict(local_env(), SCVM_TEST_SECRET='leak', SCVM_TEST_OK='fine')
        st, o, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--artifacts', name, scb], d, env=e)
        assert st == 0, (st, err)
        return open(os.path.join(d, name, 'transcript.log')).read()
    t = env_of('inherit', {'allowlist': ['SCVM_TEST_OK'], 'set': {'SCVM_SET': 'x1'}, 'inherit': True})
    assert 'SCVM_TEST_OK=fine' in t and 'SCVM_TEST_SECRET' not in t and 'SCVM_SET=x1' in t, t
    t = env_of('no_inherit', {'allowlist': ['SCVM_TEST_OK'], 'set': {}, 'inherit': False})
    assert 'SCVM_TEST_OK' not in t and 'SCVM_TEST_SECRET' not in t, t


@group('policy_fields')
def budgets(d):
    cat_wait = [wait('screen_contains', {'text': 'never'}, timeout_ms=60000)]
    cases = [
        ('runtime', {'max_runtime_ms': 300}, cat_wait, 'runtime budget exceeded: 300 ms'),
        ('wait', {'max_wait_ms': 200}, cat_wait, 'wait for screen_contains timed out after 200 ms'),
        ('steps', {'max_steps': 1}, [step('text', {'text': 'a'}), step('text', {'text': 'b'})],
         'step budget exceeded: more than 1 steps'),
        ('output', {'max_output_bytes': 1000}, [step('text', {'text': 'x' * 3000 + '\n'}), wait(
            'screen_contains', {'text': 'never'}, timeout_ms=60000)], 'output budget exceeded: more than 1000 bytes'),
    ]
    for name, b, steps, msg in cases:
        pol = policy('/bin/cat', budgets=b)
        scb = compile_(d, name + '.json', scenario(name, '/bin/cat', [], steps, pol))
        st, o, err = play(d, scb)
        assert st == 4 and msg in err, (name, st, err)
    # the driver and exec: the transcript stops at max_output_bytes, with an event
    pf = os.path.join(d, 'output_policy.json')
    json.dump(policy('/usr/bin/seq', budgets={'max_output_bytes': 100}), open(pf, 'w'))
    st, o, err = run([SCVM, 'exec', '--json', '--policy', pf, '--artifacts', 'ex', '--', '/usr/bin/seq', '1000'], d)
    r = json.loads(o)
    assert st == 0 and 'output_budget' in [e['type'] for e in r['final_observation']['events']], (st, o)
    assert os.path.getsize(os.path.join(d, 'ex', 'transcript.log')) == 100
    # max_snapshot_bytes: over it, a snapshot keeps its lines and drops its cells
    for name, limit, cells in (('snap_small', 200, False), ('snap_big', 10 << 20, True)):
        pol = policy('/bin/echo', budgets={'max_snapshot_bytes': limit})
        scb = compile_(d, name + '.json', scenario(name, '/bin/echo', ['hi'], [wait('process_exited')], pol))
        st, o, err = play(d, scb, '--cells', '--artifacts', name)
        snap = json.load(open(os.path.join(d, name, 'snapshots', '000001.json')))
        assert st == 0 and ('cells' in snap) == cells and snap['lines'][0] == 'hi', (name, st, err, snap.keys())


@group('policy_fields')
def replay_fields(d):
    """replay.strict and replay.normalization_filters decide a replay's comparison."""
    for name, rp, want in (('default', None, 0), ('strict', {'strict': True}, 11),
                           ('filters', {'strict': False, 'normalization_filters': ['snapshot_id']}, 11),
                           ('all', {'strict': False, 'normalization_filters': [
                               'snapshot_id', 'run_id', 'run_timestamps', 'step_timestamps', 'observation_timestamp',
                               'session_id', 'events']}, 0)):
        pol = policy('/bin/echo')
        if rp:
            pol['replay'] = rp
        scb = compile_(d, name + '.json', scenario(name, '/bin/echo', ['hi'], [wait('process_exited')], pol))
        st, o, err = play(d, scb, '--artifacts', name)
        assert st == 0, err
        st, o, err = run([SCVM, 'replay', name], d)
        assert st == want, (name, st, o)


# ---- the data model's own field lists ----

UNIONS = ('Color', 'SandboxMode', 'NetworkPolicy', 'NormalizationFilter')
PTYBOX_COLORS = ('default', 'ansi16', 'ansi256', 'rgb')
# values ptybox's code adds to a union of the data model, which we write
# too (docs/driver.md, "Replay": ptybox's seventh filter)
PTYBOX_EXTRA = {'NormalizationFilter': ['events']}


def data_model():
    """{section: [(field, type or None, required)]} from the seed's
    '### Name' / '#### Name' sections and their '- `field: Type`' lines;
    a type ending in '?' or a line saying '(optional' is optional."""
    import re
    secs, cur = {}, None
    with open(os.path.join(SEEDS, 'tui-use-data-model.md'), encoding='utf-8') as f:
        for line in f:
            h = re.match(r'^#{3,4}\s+([A-Za-z]+)', line)
            if h:
                cur = secs.setdefault(h.group(1), [])
                continue
            m = re.match(r'^\s*-\s+`([a-z_0-9]+)(?::\s*([^`]*))?`(.*)$', line)
            if m and cur is not None:
                ty = (m.group(2) or '').strip() or None
                opt = (ty or '').endswith('?') or '(optional' in m.group(3)
                cur.append((m.group(1), ty, not opt))
    return secs


DM = data_model() if GROUP in ('color_names', 'datamodel_shapes') else {}


def base_type(ty):
    import re
    m = re.match(r'^[\[\s]*([A-Za-z]+)', ty or '')
    return m.group(1) if m else None


def check_shape(sec, v, where, errs, colors=None):
    """Appends to errs every required field of section sec missing in v,
    recursing into fields whose type is another section."""
    fields = DM[sec]
    if sec in UNIONS:
        names = colors if (sec == 'Color' and colors) else [n for n, _, _ in fields] + PTYBOX_EXTRA.get(sec, [])
        if isinstance(v, str):
            if v not in names:
                errs.append('%s: %r is not a %s (%s)' % (where, v, sec, ', '.join(names)))
        elif isinstance(v, dict):
            if len(v) != 1 or list(v)[0] not in names:
                errs.append('%s: %s is not one of %s' % (where, sorted(v), ', '.join(names)))
        else:
            errs.append('%s: %r is not a %s' % (where, v, sec))
        return
    if not isinstance(v, dict):
        errs.append('%s: a %s must be an object, not %r' % (where, sec, v))
        return
    for name, ty, req in fields:
        if ty is None:
            continue
        if name not in v:
            if req:
                errs.append('%s: %s lacks the required field %r' % (where, sec, name))
            continue
        bt = base_type(ty)
        if v[name] is None or bt not in DM or not DM[bt]:
            continue
        depth = len(ty) - len(ty.lstrip('['))
        items = [(v[name], '%s.%s' % (where, name))]
        for _ in range(depth):
            nxt = []
            for it, w in items:
                if not isinstance(it, list):
                    errs.append('%s: %s must be a list' % (w, name))
                    continue
                nxt += [(x, '%s[%d]' % (w, i)) for i, x in enumerate(it)]
            items = nxt
        for it, w in items:
            check_shape(bt, it, w, errs, colors)


def must_match(sec, v, where, colors=None):
    errs = []
    check_shape(sec, v, where, errs, colors)
    assert not errs, '\n'.join(errs[:10])


def jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def jfile(path):
    with open(path) as f:
        return json.load(f)


def check_artifacts(art, scenario):
    must_match('RunResult', jfile(os.path.join(art, 'run.json')), art + '/run.json')
    must_match('Policy', jfile(os.path.join(art, 'policy.json')), art + '/policy.json')
    must_match('NormalizationRecord', jfile(os.path.join(art, 'normalization.json')), art + '/normalization.json')
    snaps = sorted(os.listdir(os.path.join(art, 'snapshots')))
    assert snaps, 'no snapshots in %s' % art
    for sn in snaps:
        must_match('ScreenSnapshot', jfile(os.path.join(art, 'snapshots', sn)), art + '/snapshots/' + sn)
    for i, rec in enumerate(jsonl(os.path.join(art, 'events.jsonl'))):
        must_match('Observation', rec, '%s/events.jsonl:%d' % (art, i + 1))
    sums = jfile(os.path.join(art, 'checksums.json'))
    assert isinstance(sums, dict) and 'run.json' in sums, sums
    if scenario:
        must_match('Scenario', jfile(os.path.join(art, 'scenario.json')), art + '/scenario.json')
        run_json = jfile(os.path.join(art, 'run.json'))
        assert run_json.get('steps'), 'a scenario run.json without steps'


COLOR_PROG = ['/usr/bin/printf', r'\033[31mr\033[38;5;200mX\033[48;2;1;2;3mZ\033[0m\n']


@group('datamodel_shapes')
def the_seed_is_read_and_the_checker_can_fail(d):
    # the lists come from the seed, not from this file
    for sec, want in (('RunResult', 'policy'), ('Policy', 'budgets'), ('Observation', 'screen'),
                      ('ScreenSnapshot', 'alternate_screen'), ('Budgets', 'max_wait_ms'), ('Cell', 'style'),
                      ('StepResult', 'assertions'), ('ReplaySummary', 'mismatch')):
        assert want in [n for n, _, _ in DM.get(sec, [])], (sec, DM.get(sec))
    assert [n for n, _, _ in DM['Color']] == ['default', 'ansi_16', 'ansi_256', 'rgb'], DM['Color']
    # a RunResult without its policy's budgets, or with ptybox's colour key, fails
    p = subprocess.run([SCVM, 'exec', '--json', '--no-sandbox', '--ack-unsafe-sandbox', '--', '/bin/echo', 'hi'],
                       cwd=d, capture_output=True, timeout=120)
    r = json.loads(p.stdout)
    must_match('RunResult', r, 'exec')
    del r['policy']['budgets']['max_steps']
    errs = []
    check_shape('RunResult', r, 'exec', errs)
    assert errs == ["exec.policy.budgets: Budgets lacks the required field 'max_steps'"], errs
    errs = []
    check_shape('Style', {'fg': {'ansi16': 1}, 'bg': 'default', 'bold': False, 'italic': False,
                          'underline': False, 'inverse': False}, 'style', errs)
    assert len(errs) == 1 and 'ansi16' in errs[0], errs


@group('datamodel_shapes')
def driver_messages_and_artifacts(d):
    reqs = [{'protocol_version': 2, 'request_id': '1', 'action': {'type': 'text', 'payload': {'text': 'hi\n'}}},
            {'protocol_version': 2, 'request_id': '2', 'action': {'type': 'wait', 'payload': {
                'condition': {'type': 'screen_contains', 'payload': {'text': 'hi'}}}}, 'timeout_ms': 20000},
            {'protocol_version': 2, 'request_id': '3', 'action': {'type': 'bogus', 'payload': {}}},
            {'protocol_version': 2, 'request_id': '4', 'action': {'type': 'terminate', 'payload': {}}}]
    p = subprocess.run([SCVM, 'driver', '--stdio', '--json', '--cells', '--no-sandbox', '--ack-unsafe-sandbox',
                        '--artifacts', 'art', '--', '/bin/cat'], cwd=d,
                       input=''.join(json.dumps(r) + '\n' for r in reqs).encode(), capture_output=True, timeout=120)
    lines = [json.loads(l) for l in p.stdout.decode().splitlines()]
    assert p.returncode == 0 and len(lines) == 5, (p.returncode, lines, p.stderr)
    for i, m in enumerate(lines):
        # "Every CLI JSON/NDJSON message must include protocol_version"
        assert 'protocol_version' in m, (i, m)
        if 'observation' in m:
            must_match('Observation', m['observation'], 'driver line %d observation' % (i + 1))
        if 'error' in m and m.get('status') == 'error':
            must_match('ErrorInfo', m['error'], 'driver line %d error' % (i + 1))
    assert lines[2]['status'] == 'error', lines[2]
    must_match('ExitStatus', lines[3]['exit_status'], 'terminate exit_status')
    must_match('RunResult', lines[4], 'driver RunResult')
    assert lines[4]['policy']['budgets']['max_wait_ms'] == 10000, lines[4]['policy']
    check_artifacts(os.path.join(d, 'art'), False)


@group('datamodel_shapes')
def exec_run_result_and_artifacts(d):
    p = subprocess.run([SCVM, 'exec', '--json', '--cells', '--no-sandbox', '--ack-unsafe-sandbox', '--artifacts',
                        'art', '--'] + COLOR_PROG, cwd=d, capture_output=True, timeout=120)
    assert p.returncode == 0, (p.returncode, p.stderr)
    r = json.loads(p.stdout)
    must_match('RunResult', r, 'exec')
    check_artifacts(os.path.join(d, 'art'), False)
    # a failed run carries an ErrorInfo
    p = subprocess.run([SCVM, 'exec', '--json', '--no-sandbox', '--ack-unsafe-sandbox', '--', '/bin/false'],
                       cwd=d, capture_output=True, timeout=120)
    r = json.loads(p.stdout)
    assert r['status'] != 'passed' and p.returncode != 0, (p.returncode, r['status'])
    must_match('RunResult', r, 'exec /bin/false')
    must_match('ErrorInfo', r['error'], 'exec /bin/false error')


@group('datamodel_shapes')
def scenario_run_replay_and_diff(d):
    pol = policy('/bin/cat')
    sc = scenario('shapes', '/bin/cat', [], [
        step('text', {'text': 'one\n'}, asserts=[('screen_contains', {'text': 'one'})]),
        step('key', {'key': 'Ctrl+D'}),
        wait('process_exited', asserts=[('exit_code', {'code': 0})]),
    ], pol)
    scb = compile_(d, 'shapes.json', sc)
    st, out, err = play(d, scb, '--artifacts', 'art', '--cells')
    assert st == 0, (st, err)
    check_artifacts(os.path.join(d, 'art'), True)
    r = jfile(os.path.join(d, 'art', 'run.json'))
    for s in r['steps']:
        must_match('StepResult', s, 'step ' + s['name'])
    st, out, err = play(d, scb, '--json')
    assert st == 0, (st, err)
    must_match('RunResult', json.loads(out), 'run -t pty --json')
    # a replay that passes, then one that fails: replay.json and diff.json
    st, out, err = run([SCVM, 'replay', 'art'], d)
    assert st == 0, (st, out, err)
    reps = [x for x in os.listdir(os.path.join(d, 'art')) if x.startswith('replay-')]
    assert reps, os.listdir(os.path.join(d, 'art'))
    must_match('ReplaySummary', jfile(os.path.join(d, 'art', reps[0], 'replay.json')), 'replay.json')
    rj = jfile(os.path.join(d, 'art', 'run.json'))
    rj['final_observation']['screen']['lines'][0] = 'changed'
    with open(os.path.join(d, 'art', 'run.json'), 'w') as f:
        json.dump(rj, f)
    os.remove(os.path.join(d, 'art', 'checksums.json'))
    shutil.rmtree(os.path.join(d, 'art', reps[0]))
    st, out, err = run([SCVM, 'replay', 'art'], d)
    assert st == 11, (st, out, err)
    reps = [x for x in os.listdir(os.path.join(d, 'art')) if x.startswith('replay-')]
    must_match('ReplaySummary', jfile(os.path.join(d, 'art', reps[0], 'replay.json')), 'failed replay.json')
    must_match('ReplayDiff', jfile(os.path.join(d, 'art', reps[0], 'diff.json')), 'diff.json')


# ---- color_names ----

def colors_of(screen):
    return [c['style']['fg'] for c in screen['cells'][0][:2]] + [screen['cells'][0][2]['style']['bg']]


@group('color_names')
def data_model_names_by_default_ptybox_on_request(d):
    dm_names = [n for n, _, _ in DM['Color']]
    for opt, want, names in (([], [{'ansi_16': 1}, {'ansi_256': 200}, {'rgb': {'r': 1, 'g': 2, 'b': 3}}], None),
                             (['--color-names=ptybox'], [{'ansi16': 1}, {'ansi256': 200},
                                                         {'rgb': {'r': 1, 'g': 2, 'b': 3}}], PTYBOX_COLORS)):
        tag = opt[0] if opt else 'default'
        # exec
        art = 'exec-' + tag.strip('-')
        p = subprocess.run([SCVM, 'exec', '--json', '--cells', '--no-sandbox', '--ack-unsafe-sandbox',
                            '--artifacts', art] + opt + ['--'] + COLOR_PROG, cwd=d, capture_output=True, timeout=120)
        r = json.loads(p.stdout)
        assert colors_of(r['final_observation']['screen']) == want, (tag, colors_of(r['final_observation']['screen']))
        must_match('RunResult', r, 'exec ' + tag, colors=names or dm_names)
        for sn in os.listdir(os.path.join(d, art, 'snapshots')):
            must_match('ScreenSnapshot', jfile(os.path.join(d, art, 'snapshots', sn)), sn, colors=names or dm_names)
        # driver
        reqs = [{'protocol_version': 2, 'request_id': '1', 'action': {'type': 'wait', 'payload': {
            'condition': {'type': 'process_exited'}}}, 'timeout_ms': 20000}]
        p = subprocess.run([SCVM, 'driver', '--stdio', '--json', '--cells', '--no-sandbox', '--ack-unsafe-sandbox']
                           + opt + ['--'] + COLOR_PROG, cwd=d,
                           input=''.join(json.dumps(x) + '\n' for x in reqs).encode(), capture_output=True,
                           timeout=120)
        lines = [json.loads(l) for l in p.stdout.decode().splitlines()]
        assert colors_of(lines[0]['observation']['screen']) == want, (tag, lines[0])
        # a scenario's snapshots, and its replay keeps the names it was recorded with
        sc = scenario('colors', COLOR_PROG[0], COLOR_PROG[1:], [wait('process_exited')], policy(COLOR_PROG[0]),
                      cols=40)
        scb = compile_(d, 'colors.json', sc)
        art = 'run-' + tag.strip('-')
        st, out, err = play(d, scb, '--artifacts', art, '--cells', *opt)
        assert st == 0, (st, err)
        snap = jfile(os.path.join(d, art, 'snapshots', '000001.json'))
        assert colors_of(snap) == want, (tag, colors_of(snap))
        st, out, err = run([SCVM, 'replay', art], d)
        assert st == 0, (tag, st, out, err)
    # a wrong value is refused
    st, out, err = run([SCVM, 'exec', '--color-names=xterm', '--', '/bin/true'], d)
    assert st != 0 and 'color-names' in err, (st, err)


finish()
