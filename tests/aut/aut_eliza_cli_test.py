#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""aut_eliza_cli_test.py SCVM DATA WORK - issue 33 item 8: ElizaOS's
command line (docs/eliza.md, "ElizaOS's command line").

Files from DATA (tests/eliza-cli: scenarios in the shapes of
elizaos-scenario-runner.md, .env files of dotenv's own examples):

  - `scvm scenario run FILE --env-file F`: a code step prints the
    variables; the file's are there as dotenv reads them (export, quotes,
    "\\n", trimming, comments, `KEY: VALUE`), one already set is kept;
  - `setup.mocks`: the stderr note is still printed;
  - `--live` takes the judge from OPENAI_BASE_URL of the --env-file (an
    unreachable one: the check skipped saying the live judge gave no
    reply; run.json's judge "live"); without any judge, a usage error;
  - `scvm scenario matrix CONFIG --dry-run --parallel 2`: its scenarios;
  - bad input: a missing env file, an unknown verb: stable statuses.
"""
import json
import os
import shutil
import subprocess
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import failures, expect  # noqa: E402

SCVM, DATA, WORK = sys.argv[1:4]
shutil.rmtree(WORK, ignore_errors=True)
shutil.copytree(DATA, WORK)


def scvm(*a, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith('OPENAI_')}
    e.update(env or {})
    return subprocess.run([SCVM, *a], capture_output=True, text=True, cwd=WORK, timeout=120, env=e)


NOAGENT = ('--agent-url', 'http://127.0.0.1:1/v1')

# --env-file: every variable as dotenv reads it; PRESET already set is kept
p = scvm('scenario', 'run', 'env.scenario.yaml', '--env-file', 'test.env', '--run-json', 'env.json', *NOAGENT,
         env={'PRESET': 'from the environment'})
rj = json.load(open(os.path.join(WORK, 'env.json'))) if os.path.exists(os.path.join(WORK, 'env.json')) else {}
expect(p.returncode == 0 and rj.get('status') == 'passed' and 'SCENARIO STATUS: \u2705 PASS' in p.stderr,
       'the code step saw the env file as dotenv reads it: %d %r' % (p.returncode, p.stderr[-600:]))
expect('setup.mocks are not applied' in p.stderr, 'the mocks note is kept: %r' % p.stderr[-400:])
# the same without the env file: the check fails (the test can fail)
p = scvm('scenario', 'run', 'env.scenario.yaml', *NOAGENT)
expect(p.returncode == 1 and '\u274c FAIL' in p.stderr, 'without --env-file the check fails: %d %r' % (
    p.returncode, p.stderr[-300:]))
# the run's spelling is scvm run -t aut's too
p = scvm('run', '-t', 'aut', 'env.scenario.yaml', '--env-file', 'test.env', *NOAGENT, env={'PRESET': 'from the environment'})
expect(p.returncode == 0, 'scvm run -t aut --env-file: %d %r' % (p.returncode, p.stderr[-300:]))

# --live: the judge is OPENAI_BASE_URL from the env file (unreachable here)
p = scvm('scenario', 'run', 'judged.scenario.yaml', '--live', '--dry-run')
expect(p.returncode == 2 and '--live needs a judge' in p.stderr, '--live without a judge: %d %r' % (
    p.returncode, p.stderr[-300:]))
p = scvm('scenario', 'run', 'judged.scenario.yaml', '-l', '--tape', 'x.jsonl', '--judge-url', 'http://127.0.0.1:1/v1',
         *NOAGENT)
expect(p.returncode == 2 and 'no --tape' in p.stderr, '--live with a tape: %d %r' % (p.returncode, p.stderr[-300:]))

p = scvm('scenario', 'run', 'judged.scenario.yaml', '--live', '--env-file', 'live.env', '--run-json', 'live.json', *NOAGENT)
rj = json.load(open(os.path.join(WORK, 'live.json'))) if os.path.exists(os.path.join(WORK, 'live.json')) else {}
expect(p.returncode == 1 and rj.get('judge') == 'live', '--live with OPENAI_BASE_URL from the env file: the judge is live: '
       '%d %s %r' % (p.returncode, rj.get('judge'), p.stderr[-300:]))

# matrix: ElizaOS's --parallel and --dry-run
p = scvm('scenario', 'matrix', 'greeter.matrix.yaml', '--dry-run', '--parallel', '2')
expect(p.returncode == 0 and p.stdout.count('Greetings@') + p.stderr.count('Greetings@') >= 4,
       'the matrix dry run lists its 4 scenarios: %d %r %r' % (p.returncode, p.stdout[-600:], p.stderr[-300:]))
expect('PASS' not in p.stderr and p.stderr.count('SCENARIO STATUS: \u23ed\ufe0f SKIP (--dry-run: not run)') == 4,
       'a dry run says no scenario passed: it ran none: %r' % p.stderr[-600:])

# bad input
p = scvm('scenario', 'run', 'env.scenario.yaml', '--env-file', 'missing.env', *NOAGENT)
expect(p.returncode in (2, 3) and 'missing.env' in p.stderr, 'a missing env file: %d %r' % (p.returncode, p.stderr))
p = scvm('scenario', 'frob', 'x')
expect(p.returncode == 2 and 'scenario: run FILE or matrix CONFIG' in p.stderr, 'an unknown verb: %d %r' % (
    p.returncode, p.stderr))
p = scvm('scenario')
expect(p.returncode == 2, 'no verb: %d' % p.returncode)
if failures:
    print('%d failure(s)' % len(failures))
    sys.exit(1)
print("ElizaOS's command line: scenario run|matrix, --env-file, --live")
