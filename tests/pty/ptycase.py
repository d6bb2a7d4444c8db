# SPDX-License-Identifier: MIT
"""ptycase.py - the small harness the PTY test scripts share.

setup(WORK) names the work folder; each function decorated with @case runs
at once in a fresh folder WORK/NAME and fails by raising AssertionError;
finish() prints the summary and exits 1 when any case failed."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import testlib  # noqa: E402

failures = []
_work = [None]


def setup(work):
    _work[0] = work
    os.makedirs(work, exist_ok=True)


# CI in the environment, or a CI system's own variable, makes a missing
# golden fail the run (docs/golden-screens.md): the cases choose it, not
# whoever runs them.
CI_VARS = ('CI', 'JENKINS_URL', 'GITLAB_CI', 'GITHUB_ACTIONS', 'BUILDKITE', 'CIRCLECI', 'TF_BUILD',
           'TEAMCITY_VERSION')


def local_env():
    return {k: v for k, v in os.environ.items() if k not in CI_VARS}


def run(args, cwd, timeout=180, env=None):
    return testlib.run(args, cwd, timeout, local_env() if env is None else env)


def case(fn):
    d = testlib.fresh(os.path.join(_work[0], fn.__name__))
    try:
        fn(d)
        print('ok   %s' % fn.__name__)
    except AssertionError as e:
        failures.append(fn.__name__)
        print('FAIL %s: %s' % (fn.__name__, e))
    return fn


def finish():
    if failures:
        print('%d case(s) failed: %s' % (len(failures), ', '.join(failures)))
        sys.exit(1)
    print('all cases passed')
    sys.exit(0)


def reachable_by_others(path):
    """Whether a user with no relation to the owner (nobody) can reach path:
    every folder on the way searchable by others.  A checkout in a 0700
    folder (mktemp -d) is not, and the cases run as nobody cannot run there."""
    p = os.path.abspath(path)
    while True:
        if not os.stat(p).st_mode & 0o001:
            return False
        if p == '/':
            return True
        p = os.path.dirname(p)
