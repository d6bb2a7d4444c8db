#!/usr/bin/env python3
"""tui-use scenarios against the data model's rules, one group of cases per
ctest (docs/tui-use.md, "The policy, field by field"):

  policy_fields   every Policy field enforced or refused (artifacts.*,
                  fs.working_dir, fs_strict_write, ...)
  exited_input    typing into a program that has exited is E_PROCESS_EXIT
  policy_file     run.policy {path} stays in the scenario's folder unless
                  scc --policy-outside

usage: tuiuse_fields_test.py SCC SCVM WORKDIR GROUP

Nothing measures time: waits are event-driven with generous deadlines.
"""
import json
import os
import shutil
import sys

from ptycase import case, finish, run, setup

SCC, SCVM, WORK, GROUP = sys.argv[1:5]
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
    for name in allowed:
        st, out, err = run([SCC, '-Wno-tui-use-compat', 'sc/s_%s.json' % name], d)
        assert st == 0, (name, err)
    for name, path in refused.items():
        st, out, err = run([SCC, '-Wno-tui-use-compat', 'sc/s_%s.json' % name], d)
        assert st == 1 and ("sc/s_%s.json:16:15: error:" % name) in err and "is outside the scenario's folder" in err \
            and '--policy-outside' in err, (name, st, err)
        # the option says otherwise: read wherever it points
        st, out, err = run([SCC, '--policy-outside', '-Wno-tui-use-compat', 'sc/s_%s.json' % name], d)
        assert st == 0, (name, err)
    # compiled with the option, the scenario plays with the file's policy
    st, out, err = play(d, 'sc/s_link_out.scb')
    assert st == 0, (st, err)

finish()
