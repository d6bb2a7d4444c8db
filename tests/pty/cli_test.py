#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Scenarios played against real programs: scc compiles, scvm -t pty runs.

usage: cli_test.py SCC SCVM WORKDIR

Each case is one function: it writes a scenario, runs it, and checks the
exit status, the event stream, goldens or artifacts.  Programs are Debian's
(cat, bash, python3, git).  Nothing here measures time: every wait in the
runner is event-driven with a deadline, so a slow machine is only slower.
"""
import json
import os
import socket
import sys
import time

from ptycase import CI_VARS, case, finish, local_env, run, setup
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import fnv1a64  # noqa: E402

SCC, SCVM, WORK = sys.argv[1:4]
setup(WORK)
HERE = os.path.dirname(os.path.abspath(__file__))


def compile_(d, name, text):
    path = os.path.join(d, name)
    with open(path, 'w') as f:
        f.write(text)
    st, out, err = run([SCC, name], d)
    assert st == 0, 'scc %s: %s' % (name, err)
    return os.path.splitext(name)[0] + '.scb'


def events(out):
    return [json.loads(l) for l in out.splitlines() if l.strip()]


def kinds(out):
    return [e['kind'] for e in events(out)]


CAT = '''name: cat_echo
ah:
  cmd: /bin/cat
timeline:
  - userInputs:
      - relativeTime: 100
        input: hello
  - baseTimeDelta: 200
  - screenshot: after_hello
  - assert:
      text:
        contains: ['hello']
'''


@case
def goldens_update_match_mismatch(d):
    scb = compile_(d, 'cat.yaml', CAT)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--update-goldens', scb], d)
    assert st == 0, err
    g = os.path.join(d, 'goldens', 'cat_echo', '80x24', 'screenshots', 'after_hello.golden')
    text = open(g).read()
    assert text.startswith('scc-screen 1\nsize 24x80\n'), text
    assert '  0|hello\n  1|hello\n' in text, text
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb], d)
    assert st == 0, err
    assert [e for e in events(out) if e['kind'] == 'screenshot'][0]['result'] == 'match', out
    with open(g, 'w') as f:
        f.write(text.replace('  1|hello', '  1|HELLO'))
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', scb], d)
    assert st == 5, 'a mismatch is E_ASSERTION_FAILED (5), got %d' % st
    assert '-  1|HELLO\n+  1|hello\n' in err, 'unified diff on stderr: ' + err
    assert 'E_ASSERTION_FAILED' in err, err


# A screen with what varies between runs (docs/golden-screens.md, "Masks"):
# a clock in bold and a path, of other lengths in each run, then "ok" in red.
SHOW = ['python3', '-c', 'import sys, time\n'
        'print("done \\x1b[1m%s\\x1b[0m in %s \\x1b[31m%s\\x1b[0m" % tuple(sys.argv[1:4]), flush=True)\n'
        'time.sleep(30)']
MASKS = 'masks\n  \\d{1,2}:\\d\\d [AP]M\n  /tmp/\\S+\n'


@case
def masks_hide_a_clock_and_a_path(d):
    """A golden's masks hide the clock and the path in the screen and in
    the golden; the golden matches another run whose clock and path differ
    (in length too), --update-goldens keeps the masks and writes masked
    text, a real difference still fails with a masked diff, and the same
    golden without its masks fails."""
    # (the screenshot after the line is on the screen: a fixed 300 ms
    # lost the race with python3's start on a busy machine)
    scb = compile_(d, 'clock.yaml', "name: clock\ntimeline:\n  - assert:\n      text:\n        contains: ['done ']\n"
                   "  - screenshot: shot\n")
    g = os.path.join(d, 'goldens', 'clock', '80x24', 'screenshots', 'shot.golden')

    def play(clock, path, word='ok', extra=()):
        return run([SCVM, 'run', '-t', 'pty', '--data-model-exit'] + list(extra) +
                   [scb, '--'] + SHOW + [clock, path, word], d)

    st, out, err = play('4:11 AM', '/tmp/ws-12345')
    assert st == 0 and 'new golden written' in err, err
    raw = open(g).read()
    assert '  0|done 4:11 AM in /tmp/ws-12345 ok\n' in raw and 'masks' not in raw, raw
    # masks added by hand to a golden that still shows the raw text: its
    # rows are masked too, so the text compares; re-recording rewrites it
    with open(g, 'w') as f:
        f.write(raw.replace('alt off\n', 'alt off\n' + MASKS))
    st, out, err = play('4:11 AM', '/tmp/ws-12345', extra=['--update-goldens'])
    assert st == 0, err
    masked = open(g).read()
    tok = '\u2039mask\u203a'
    assert masked.startswith('scc-screen 1\nsize 24x80\ncursor 1,0 visible\nalt off\n' + MASKS + 'text\n'), masked
    assert '  0|done %s in %s ok\n' % (tok, tok) in masked and '4:11' not in masked and 'ws-' not in masked, masked
    # the bold clock's columns are plain; "ok" moved from 30-31 to 22-23
    assert 'attrs\n  0: 22-23 fg=1\n' in masked, masked
    # another run: another clock, another path, other lengths; and in CI
    st, out, err = play('10:59 PM', '/tmp/scvm-ws-a1b2c3/deeper', extra=['--ci', '--artifacts', 'art'])
    assert st == 0, err
    assert [e['result'] for e in events(out) if e['kind'] == 'screenshot'] == ['match'], out
    # the artifact is what the golden would be (masks kept, so the folder
    # can be copied over the goldens); .raw is the screen as it was
    art = os.path.join(d, 'art', 'clock', '80x24', 'screenshots')
    assert open(os.path.join(art, 'shot.golden')).read() == masked
    assert '  0|done 10:59 PM in /tmp/scvm-ws-a1b2c3/deeper ok\n' in open(os.path.join(art, 'shot.raw')).read()
    # a difference that is not masked still fails, the diff in masked text
    st, out, err = play('3:00 AM', '/tmp/x', word='KO')
    assert st == 5, 'E_ASSERTION_FAILED (5), got %d: %s' % (st, err)
    assert '-  0|done %s in %s ok\n+  0|done %s in %s KO\n' % (tok, tok, tok, tok) in err, err
    assert '3:00' not in err, err
    # without its masks the same golden fails: the masks did the work
    with open(g, 'w') as f:
        f.write(masked.replace(MASKS, ''))
    st, out, err = play('4:11 AM', '/tmp/ws-12345')
    assert st == 5 and '+  0|done 4:11 AM in /tmp/ws-12345 ok' in err, (st, err)


@case
def invalid_mask_is_refused_before_spawn(d):
    """A mask that does not compile fails the run before the program is
    started, with E_IO (status 3, 10 under --data-model-exit) and the
    golden's path:line; --update-goldens refuses it too and leaves the
    golden as it was."""
    scb = compile_(d, 'clock.yaml', 'name: clock\ntimeline:\n  - screenshot: shot\n')
    g = os.path.join(d, 'goldens', 'clock', '80x24', 'screenshots', 'shot.golden')
    os.makedirs(os.path.dirname(g))
    bad = 'scc-screen 1\nsize 24x80\ncursor 0,0 visible\nalt off\nmasks\n  \\d+\n  /tmp/(\\S+\ntext\n'
    with open(g, 'w') as f:
        f.write(bad)
    touch = ['/bin/sh', '-c', 'touch started; sleep 5']
    for extra, want in (([], 3), (['--data-model-exit'], 10), (['--update-goldens'], 3)):
        st, out, err = run([SCVM, 'run', '-t', 'pty'] + extra + [scb, '--'] + touch, d)
        assert st == want, '%s: want %d, got %d: %s' % (extra, want, st, err)
        assert ("E_IO: ./goldens/clock/80x24/screenshots/shot.golden:7: invalid mask '/tmp/(\\S+': missing ')'"
                in err), err
        assert not os.path.exists(os.path.join(d, 'started')), 'refused before the spawn'
        assert open(g).read() == bad


@case
def missing_golden_written_locally_failing_in_ci(d):
    """Jest's and Playwright's convention: a screenshot without a golden
    writes it on a local run ("new golden written") and fails under --ci
    or CI in the environment; run.json counts what became of each."""
    scb = compile_(d, 'cat.yaml', CAT)
    g = os.path.join(d, 'goldens', 'cat_echo', '80x24', 'screenshots', 'after_hello.golden')
    env = local_env()
    # --ci, CI, and each CI system's own variable with CI unset (issue 30,
    # item 10: not only CI=true)
    for how, extra, e in [('--ci', ['--ci'], env), ('CI=true', [], dict(env, CI='true')),
                          ('CI=1', [], dict(env, CI='1'))] + \
            [('%s=x' % v, [], dict(env, **{v: 'x'})) for v in CI_VARS if v != 'CI']:
        st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', '--artifacts', 'art'] + extra + [scb], d,
                           env=e)
        assert st == 5, '%s: a missing golden is E_ASSERTION_FAILED (5), got %d: %s' % (how, st, err)
        shot = [x for x in events(out) if x['kind'] == 'screenshot'][0]
        assert shot['result'] == 'missing' and shot['golden'].endswith('after_hello.golden'), (how, shot)
        assert 'has no golden' in err and not os.path.exists(g), (how, err)
        gj = json.load(open(os.path.join(d, 'art', 'run.json')))['goldens']
        assert gj['missing'] == 1 and gj['written'] == 0 and gj['compared'] == 0, (how, gj)
    for how, e in (('no CI', env), ('CI=false', dict(env, CI='false')), ('CI=0', dict(env, CI='0')),
                   ('CI empty', dict(env, CI='')), ('GITHUB_ACTIONS empty', dict(env, GITHUB_ACTIONS='')),
                   ('CI=false opts out on GitHub', dict(env, CI='false', GITHUB_ACTIONS='true'))):
        if os.path.exists(g):
            os.unlink(g)
        st, out, err = run([SCVM, 'run', '-t', 'pty', '--artifacts', 'art', scb], d, env=e)
        assert st == 0, (how, err)
        assert [x for x in events(out) if x['kind'] == 'screenshot'][0]['result'] == 'written', (how, out)
        assert 'new golden written: ./goldens/cat_echo/80x24/screenshots/after_hello.golden' in err, (how, err)
        assert os.path.exists(g), how
        gj = json.load(open(os.path.join(d, 'art', 'run.json')))['goldens']
        assert gj['written'] == 1 and gj['missing'] == 0, (how, gj)
    # written once, it is compared from then on, also in CI
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--ci', '--artifacts', 'art', scb], d)
    assert st == 0, err
    assert [x for x in events(out) if x['kind'] == 'screenshot'][0]['result'] == 'match', out
    gj = json.load(open(os.path.join(d, 'art', 'run.json')))['goldens']
    assert gj == {'dir': './goldens/cat_echo/80x24/screenshots', 'compared': 1, 'matched': 1, 'mismatched': 0,
                  'written': 0, 'missing': 0, 'updated': 0, 'recorded': 0}, gj


@case
def a_failed_run_writes_no_golden(d):
    """A failed run's screens are no reference: its new goldens never land
    in the goldens folder; stderr says where they went instead (beside, as
    .golden.new, or in the artifacts) (issue 30, item 10)."""
    scb = compile_(d, 'cat.yaml', CAT.replace("contains: ['hello']", "contains: ['not on the screen']"))
    g = os.path.join(d, 'goldens', 'cat_echo', '80x24', 'screenshots', 'after_hello.golden')
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb], d)
    assert st == 1, (st, err)
    assert not os.path.exists(g) and os.path.exists(g + '.new'), os.listdir(os.path.dirname(g))
    assert ("the run failed: new golden for screenshot 'after_hello' not written to "
            "./goldens/cat_echo/80x24/screenshots/after_hello.golden; it is in "
            "./goldens/cat_echo/80x24/screenshots/after_hello.golden.new") in err, err
    assert 'new golden written' not in err, err
    assert open(g + '.new').read().startswith('scc-screen 1\n'), 'the golden text'
    os.unlink(g + '.new')
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--artifacts', 'art', scb], d)
    assert st == 1 and not os.path.exists(g) and not os.path.exists(g + '.new'), (st, err)
    assert "it is in art/cat_echo/80x24/screenshots/after_hello.golden" in err, err
    assert os.path.exists(os.path.join(d, 'art', 'cat_echo', '80x24', 'screenshots', 'after_hello.golden'))
    # the same screen in a run that passes: written, as before
    scb = compile_(d, 'cat.yaml', CAT)
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb], d)
    assert st == 0 and os.path.exists(g) and 'new golden written: ./goldens/' in err, (st, err)


@case
def goldens_hold_no_workspace_path_nor_host(d):
    """The run's temporary workspace and the host name become <workspace>
    and <host> in a golden, written and compared, so the next run (another
    workspace) matches; --no-normalize-goldens keeps them (issue 30,
    item 10: the README's PTY example wrote root@vm:/tmp/scvm-ws-K6Bkea#)."""
    scb = compile_(d, 'ws.yaml', 'name: ws_path\nrepo:\n  init: true\ntimeline:\n'
                   '  - assert:\n      text:\n        contains: [fini]\n  - screenshot: shot\n')
    g = os.path.join(d, 'goldens', 'ws_path', '80x24', 'screenshots', 'shot.golden')
    prog = ['--', '/bin/sh', '-c', 'echo "root@$(hostname):$PWD#"; echo fini; exec cat']
    host = socket.gethostname()
    for k in range(2):
        st, out, err = run([SCVM, 'run', '-t', 'pty', '--artifacts', 'art%d' % k, scb] + prog, d)
        assert st == 0, (k, st, err)
        text = open(g).read()
        want = '  0|root@%s:\u2039workspace\u203a#\n' % ('\u2039host\u203a' if host != 'localhost' else host)
        assert want in text and '/tmp' not in text, text
        shot = [e for e in events(out) if e['kind'] == 'screenshot'][0]
        assert shot['result'] == ('written', 'match')[k], (k, shot)
        # the .raw artifact is only written beside masks; the screen itself is raw
    # without normalising, the path is kept, and the next run (another
    # workspace) differs from it
    os.unlink(g)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--no-normalize-goldens', scb] + prog, d)
    assert st == 0 and '/scvm-ws-' in open(g).read(), (st, err)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--no-normalize-goldens', scb] + prog, d)
    assert st == 1 and 'differs from' in err, (st, err)
    # a golden holding a path compares normalised: with normalising on, the
    # same raw golden also fails (its path is not this run's), but a
    # normalised one matches again
    os.unlink(g)
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb] + prog, d)
    assert st == 0 and '\u2039workspace\u203a' in open(g).read(), (st, err)


@case
def pack_on_the_pty_target(d):
    """A pack plays on the PTY target: each entry in its own session, with
    selection, -j, --junit and artifacts per scenario; output in index
    order whatever -j; goldens beside the pack."""
    os.makedirs(os.path.join(d, 'src'))
    for name, text, tag in (('a_echo', 'hello', 'fast'), ('b_echo', 'world', 'fast'), ('c_fails', 'nope', 'slow')):
        want = 'missing-text' if name == 'c_fails' else text
        with open(os.path.join(d, 'src', name + '.yaml'), 'w') as f:
            f.write('name: %s\ntags: [%s]\nah:\n  cmd: /bin/cat\ntimeline:\n'
                    '  - userInputs:\n      - relativeTime: 50\n        input: %s\n'
                    '  - baseTimeDelta: 100\n  - screenshot: shot\n'
                    '  - assert:\n      text:\n        contains: [%s]\n' % (name, tag, text, want))
    st, out, err = run([SCC, '--pack', '-o', 'suite.scp', 'src'], d)
    assert st == 0, err
    streams = []
    for jobs in ('1', '2'):
        st, out, err = run([SCVM, 'run', '-t', 'pty', '-j', jobs, '--tag', 'fast', '--junit', 'j%s.xml' % jobs,
                            '--artifacts', 'art' + jobs, 'suite.scp'], d)
        assert st == 0, (jobs, err)
        heads = [e['name'] for e in events(out) if e['kind'] == 'scenario']
        assert heads == ['a_echo', 'b_echo'], heads
        streams.append([e['kind'] for e in events(out)])
        assert '2 passed, 0 failed, 0 skipped' in err, err
        for n in ('a_echo', 'b_echo'):
            rj = json.load(open(os.path.join(d, 'art' + jobs, n, 'run.json')))
            assert rj['status'] == 'passed', rj
        junit = open(os.path.join(d, 'j%s.xml' % jobs)).read()
        assert 'tests="2" failures="0"' in junit and 'name="a_echo"' in junit, junit
    assert streams[0] == streams[1], 'the same events in the same order for -j 1 and -j 2'
    # the first run wrote the goldens beside the pack; the second compared them
    g = os.path.join(d, 'goldens', 'a_echo', '80x24', 'screenshots', 'shot.golden')
    assert os.path.exists(g), os.listdir(d)
    shots = [e['result'] for e in events(out) if e['kind'] == 'screenshot']
    assert shots == ['match', 'match'], shots
    # a failing scenario: named, counted, exit 1; --fail-fast skips the rest
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--scenario', 'c_fails', '--scenario', 'a_echo', '--junit',
                        'jf.xml', 'suite.scp'], d)
    assert st == 1, (st, err)
    assert 'scvm: suite.scp: c_fails: failed (a check did not hold)' in err and '1 passed, 1 failed' in err, err
    import xml.etree.ElementTree as ET
    cases = {c.get('name'): c for c in ET.parse(os.path.join(d, 'jf.xml')).getroot().iter('testcase')}
    props = {n: c.find("properties/property[@name='goldens']").get('value') for n, c in cases.items()}
    # time is the wall time (a PTY session takes at least its schedule);
    # the schedule is a property
    for n, c in cases.items():
        sched = float(c.find("properties/property[@name='scheduled_time']").get('value'))
        assert sched == 0.15 and float(c.get('time')) >= sched, (n, c.get('time'), sched)
    assert props['a_echo'] == 'compared=1 matched=1 mismatched=0 written=0 missing=0 updated=0', props
    assert props['c_fails'].startswith('compared=0') and 'written=1' in props['c_fails'], props
    fail = cases['c_fails'].find('failure')
    assert fail is not None and 'does not contain "missing-text"' in fail.get('message'), ET.tostring(cases['c_fails'])
    assert cases['a_echo'].find('failure') is None
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--fail-fast', '--shard', '1/1', '--tag', 'slow', '--tag', 'fast',
                        'suite.scp'], d)
    assert st == 1 and '2 passed, 1 failed, 0 skipped' in err, (st, err)
    # -- CMD applies to every entry
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--tag', 'fast', 'suite.scp', '--', '/bin/cat'], d)
    assert st == 0, err
    # -o FILE: the bytes standard output got, written beside it as they come
    # and renamed into place; when a scenario fails the file is left as it
    # was and no temporary stays behind
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--tag', 'fast', 'suite.scp'], d)
    assert st == 0, err
    st, out2, err = run([SCVM, 'run', '-t', 'pty', '--tag', 'fast', '-o', 'ev.jsonl', 'suite.scp'], d)
    assert st == 0 and out2 == '', (st, err)
    norm = lambda t: [{k: v for k, v in e.items() if k not in ('at_ms', 'pid')} for e in events(t)]
    got = open(os.path.join(d, 'ev.jsonl')).read()
    assert norm(got) == norm(out), 'the -o file holds the stdout stream:\n%s\n%s' % (got, out)
    with open(os.path.join(d, 'ev.jsonl'), 'w') as f:
        f.write('old\n')
    st, out2, err = run([SCVM, 'run', '-t', 'pty', '-o', 'ev.jsonl', 'suite.scp'], d)
    assert st == 1 and '2 passed, 1 failed' in err, (st, err)
    assert open(os.path.join(d, 'ev.jsonl')).read() == 'old\n', 'a failed run leaves the -o file as it was'
    assert not [n for n in os.listdir(d) if '.tmp.' in n], os.listdir(d)
    # one session only
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--cast', 'x.cast', 'suite.scp'], d)
    assert st == 2 and 'records one session' in err, (st, err)


@case
def a_program_that_cannot_start_is_a_setup_error(d):
    """A program that cannot be started is status 5 (a target that failed),
    not 1 (a check that did not hold): JUnit writes <error type="setup">,
    never <failure>, and the time is the wall time (issue 30, item 11)."""
    # a minute of schedule: the wall time of a start that fails is far less
    scb = compile_(d, 'cat.yaml', CAT.replace('baseTimeDelta: 200', 'baseTimeDelta: 60000'))
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb, '--', '/no/such/program'], d)
    assert st == 5, (st, err)
    assert "command '/no/such/program' not found or not executable" in err, err
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--junit', 'j.xml', scb, '--', '/no/such/program'], d)
    assert st == 5 and '0 passed, 1 failed, 0 skipped' in err, (st, err)
    import xml.etree.ElementTree as ET
    root = ET.parse(os.path.join(d, 'j.xml')).getroot()
    case_ = root.find('testsuite/testcase')
    e = case_.find('error')
    assert e is not None and e.get('type') == 'setup' and 'not found or not executable' in e.get('message'), \
        ET.tostring(case_)
    assert case_.find('failure') is None and root.get('errors') == '1' and root.get('failures') == '0', \
        ET.tostring(root)
    sched = float(case_.find("properties/property[@name='scheduled_time']").get('value'))
    assert sched == 60.1 and float(case_.get('time')) < 30, (case_.get('time'), sched)


@case
def unreadable_golden_fails_before_spawn(d):
    scb = compile_(d, 'cat.yaml', CAT)
    os.makedirs(os.path.join(d, 'g', 'after_hello.golden'))   # a directory: unreadable as a golden
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--goldens', 'g', '--data-model-exit', scb], d)
    assert st == 10, 'E_IO is 10, got %d: %s' % (st, err)
    assert 'cannot read golden' in err, err
    assert 'spawn' not in kinds(out), 'nothing may be spawned: ' + out


@case
def artifacts_and_checksums(d):
    scb = compile_(d, 'cat.yaml', CAT)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--artifacts', 'art', '--cast', 'rec.cast', scb], d)
    assert st == 0, err
    art = os.path.join(d, 'art')
    run_json = json.load(open(os.path.join(art, 'run.json')))
    assert run_json['status'] == 'passed' and run_json['command'] == '/bin/cat', run_json
    assert run_json['final_observation']['screen']['lines'][0] == 'hello', run_json
    assert run_json['exit_status']['terminated_by_harness'] is True, run_json
    # checksums.json: the data model's map of path to a 64-bit checksum,
    # FNV-1a 64 in hex as ptybox writes it
    sums = json.load(open(os.path.join(art, 'checksums.json')))
    listed = set(sums)

    for rel, want in sums.items():
        assert fnv1a64(open(os.path.join(art, rel), 'rb').read()) == want, rel
    on_disk = set(os.path.relpath(os.path.join(r, f), art) for r, _, fs in os.walk(art) for f in fs)
    assert listed == on_disk - {'checksums.json'}, (listed, on_disk)
    assert 'cat_echo/80x24/screenshots/after_hello.golden' in listed
    assert open(os.path.join(art, 'transcript.log'), 'rb').read().startswith(b'hello\r\n'), 'raw transcript'
    snap = json.load(open(os.path.join(art, 'snapshots', '000001.json')))
    assert snap['snapshot_version'] == 1 and snap['rows'] == 24 and snap['lines'][1] == 'hello', snap
    # events.jsonl: one Observation record per snapshot, and one at the end
    obs = [json.loads(l) for l in open(os.path.join(art, 'events.jsonl'))]
    nsnap = len(os.listdir(os.path.join(art, 'snapshots')))
    assert len(obs) == nsnap + 1, (nsnap, len(obs))
    assert all(o['protocol_version'] == 2 and o['run_id'] == run_json['run_id'] for o in obs), obs
    assert len(set(o['session_id'] for o in obs)) == 1
    assert obs[0]['screen'] == snap, (obs[0], snap)
    assert ''.join(o['transcript_delta'] for o in obs) == open(os.path.join(art, 'transcript.log'), newline='').read()
    assert 'exit' in [e['type'] for o in obs for e in o['events']], obs
    assert obs[-1] == run_json['final_observation'], (obs[-1], run_json['final_observation'])
    norm = json.load(open(os.path.join(art, 'normalization.json')))
    assert norm == {'normalization_version': 1, 'filters': ['snapshot_id', 'run_id', 'run_timestamps',
                    'step_timestamps', 'observation_timestamp', 'session_id', 'events'], 'strict': False,
                    'source': 'default', 'rules': []}, norm
    cast = open(os.path.join(d, 'rec.cast')).read().splitlines()
    hdr = json.loads(cast[0])
    assert hdr['version'] == 2 and hdr['width'] == 80 and hdr['height'] == 24, hdr
    evs = [json.loads(l) for l in cast[1:]]
    assert any(e[1] == 'i' and 'hello' in e[2] for e in evs) and any(e[1] == 'o' for e in evs), cast
    assert all(evs[i][0] <= evs[i + 1][0] for i in range(len(evs) - 1)), 'cast times are non-decreasing'


PROBE = r'''import os, sys, termios, tty, select
fd = sys.stdin.fileno()
tty.setraw(fd)
os.write(1, b"\x1b[6n")
r = b""
while not r.endswith(b"R"):
    if not select.select([fd], [], [], 20)[0]:
        break
    r += os.read(fd, 32)
os.write(1, b"\r\nCPR " + r[1:] + b" OK\r\n")
'''


@case
def terminal_queries_are_answered(d):
    with open(os.path.join(d, 'probe.py'), 'w') as f:
        f.write(PROBE)
    scb = compile_(d, 'probe.yaml', '''name: probe
timeline:
  - assert:
      text:
        contains: ['CPR [1;1R OK']
''')
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb, '--', sys.executable, 'probe.py'], d)
    assert st == 0, err + out


@case
def command_line_program_and_exit_code(d):
    scb = compile_(d, 'exit.yaml', '''name: exit_code
expect:
  exitCode: 3
timeline:
  - userInputs:
      - relativeTime: 10
        input: exit 3
''')
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb, '--', '/bin/bash', '--norc', '--noprofile'], d)
    assert st == 0, err + out
    assert [e for e in events(out) if e['kind'] == 'exit'][0]['exit_code'] == 3, out
    scb = compile_(d, 'exit4.yaml', '''name: exit_code_4
expect:
  exitCode: 4
timeline:
  - userInputs:
      - relativeTime: 10
        input: exit 3
''')
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', scb, '--', '/bin/bash', '--norc'], d)
    assert st == 6, 'E_PROCESS_EXIT is 6, got %d' % st


@case
def missing_command_is_refused(d):
    scb = compile_(d, 'none.yaml', 'name: none\ntimeline:\n  - screenshot: x\n')
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', scb], d)
    assert st == 12 and 'no command' in err, (st, err)
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', scb, '--', '/no/such/prog'], d)
    assert st == 2 and 'not found' in err and 'spawn' not in kinds(out), (st, err)
    st, out, err = run([SCVM, 'run', scb, '--', '/bin/cat'], d)
    assert st == 2 and 'need --target pty' in err, (st, err)


@case
def workspace_repo_assertions(d):
    os.makedirs(os.path.join(d, 'seed', 'src'))
    with open(os.path.join(d, 'seed', 'src', 'a.txt'), 'w') as f:
        f.write('seeded\n')
    with open(os.path.join(d, 'add.patch'), 'w') as f:
        f.write('--- /dev/null\n+++ b/added.txt\n@@ -0,0 +1 @@\n+from a patch\n')
    scb = compile_(d, 'ws.yaml', '''name: workspace
repo:
  init: true
  branch: feature
  dir: seed
  files:
    - path: conf/settings.json
      contents: '{"a": {"b": [1, 2, 3]}}'
    - path: bin.dat
      contents: {base64: "aGVsbG8="}
timeline:
  - userInputs:
      - relativeTime: 10
        input: git branch --show-current; cat bin.dat; echo; cat src/a.txt
  - baseTimeDelta: 20
  - assert:
      text:
        contains: ['feature', 'hello', 'seeded']
      fs:
        exists: ['src/a.txt', 'conf/settings.json']
        notExists: ['added.txt']
      json:
        file: {path: conf/settings.json, pointer: /a/b/2, equals: 3}
  - userEdits:
      patch: add.patch
  - userCommand:
      cmd: git add -A && git commit -q -m "user made a change"
  - assert:
      fs:
        exists: ['added.txt']
      git:
        commit: {messageContains: 'made a change'}
''')
    st, out, err = run([SCVM, 'run', '-t', 'pty', scb, '--', '/bin/bash', '--norc', '--noprofile'], d)
    assert st == 0, err + out
    assert kinds(out).count('assert') == 2, out
    # escaping the workspace is refused
    scb = compile_(d, 'esc.yaml', '''name: escape
repo: {init: true}
timeline:
  - assert:
      fs:
        exists: ['/etc/passwd']
''')
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--data-model-exit', scb, '--', '/bin/cat'], d)
    assert st in (2, 5), (st, err)


@case
def speed_zero_typing(d):
    """--speed 0 scales typing delays as it scales op times (to 0.01), by
    the one scaling function.  The bound is one-sided with a wide margin:
    the old copy took speed 0 as 1, so three 3000 ms delays took 9 s or
    more, which no machine makes shorter; now they are 3 x 30 ms."""
    scb = compile_(d, 'typed.yaml', '''name: typed
timeline:
  - userInputs:
      - [0, 'abcd']
  - assert:
      text:
        contains: ['abcd']
''')
    t0 = time.monotonic()
    st, out, err = run([SCVM, 'run', '-t', 'pty', '--speed', '0', '--type-delay', '3000', scb, '--', '/bin/cat'], d)
    took = time.monotonic() - t0
    assert st == 0, err + out
    assert took < 6, 'typing at --speed 0 took %.1f s: the delays were not scaled' % took


@case
def op_events_are_the_simulations(d):
    """Every target writes an op's event with ops.def's kind and fields
    (runtime/events.c); the PTY target appends what it observed.  Until
    0.1 it wrote USER_INPUT and TYPE_TEXT as "input" {text}, a cancel as
    "key", and wait/check/step/user_command without ops.def's fields."""
    scb = compile_(d, 'evs.yaml', '''name: evs
timeline:
  - userInputs:
      - [0, 'hello "there"']
  - log: a log line
  - status: busy
  - userCommand:
      cmd: echo hi
  - baseTimeDelta: 50
  - screenshot: shot
  - assert:
      text:
        contains: [hello]
  - userCancelSession: true
''')
    st, sim, err = run([SCVM, 'run', '--allow-skipped', scb], d)
    assert st == 0, err
    st, pty, err = run([SCVM, 'run', '-t', 'pty', scb, '--', '/bin/cat'], d)
    assert st == 0, err + pty
    played = {'user_input', 'log', 'status', 'user_command', 'screenshot', 'assert', 'cancel'}
    want = [e for e in events(sim) if e['kind'] in played]
    got = [e for e in events(pty) if e['kind'] in played]
    assert [e['kind'] for e in got] == [e['kind'] for e in want], (got, want)
    assert len(want) == 10, want
    for w, g in zip(want, got):
        for k, v in w.items():
            assert k == 'at_ms' or g.get(k, '?') == v, 'pty %s has %s=%r, ops.def says %r' % (g['kind'], k, g.get(k), v)
        # ops.def's fields first, in the simulation's order, then the target's own
        assert list(g)[:len(w)] == list(w), (list(g), list(w))
    assert 'input' not in kinds(pty), pty


finish()
