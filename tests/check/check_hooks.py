#!/usr/bin/env python3
"""scc --check as people use it in hooks: the plain git hook script
(scripts/pre-commit) and the pre-commit framework through the repository's
.pre-commit-hooks.yaml (`pre-commit try-repo`).  A commit with a broken
scenario is refused with the diagnostic; a clean one goes through.
usage: check_hooks.py SCC REPO_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

BAD = "name: bad\ntimeline:\n  - agentToolUze: {toolName: x}\n"
GOOD = "name: good\ntimeline:\n  - complete: true\n"


def git(cwd, *args, env=None, check=True):
    return subprocess.run(["git"] + list(args), cwd=cwd, env=env, capture_output=True,
                          text=True, check=check, timeout=120)


def new_repo(tmp, name):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    git(d, "init", "-q")
    git(d, "config", "user.email", "t@example.invalid")
    git(d, "config", "user.name", "t")
    git(d, "config", "commit.gpgsign", "false")
    return d


def main():
    scc, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    failures = []
    passed = 0
    env = dict(os.environ, PATH=os.path.dirname(scc) + os.pathsep + os.environ["PATH"])
    with tempfile.TemporaryDirectory() as tmp:
        # 1. The plain git hook.
        d = new_repo(tmp, "plain")
        shutil.copy(os.path.join(root, "scripts", "pre-commit"), os.path.join(d, ".git", "hooks", "pre-commit"))
        with open(os.path.join(d, "s.yaml"), "w") as f:
            f.write(BAD)
        git(d, "add", "s.yaml")
        p = git(d, "commit", "-qm", "bad", env=env, check=False)
        if p.returncode == 0 or "s.yaml:3:5: error: unknown event 'agentToolUze'" not in p.stderr:
            failures.append("plain hook let a broken scenario through or said: %r" % p.stderr)
        else:
            passed += 1
        # The hook checks what is staged: fixing only the working tree is not enough.
        with open(os.path.join(d, "s.yaml"), "w") as f:
            f.write(GOOD)
        p = git(d, "commit", "-qm", "bad", env=env, check=False)
        if p.returncode == 0:
            failures.append("plain hook checked the working tree instead of the index")
        else:
            passed += 1
        git(d, "add", "s.yaml")
        p = git(d, "commit", "-qm", "good", env=env, check=False)
        if p.returncode != 0:
            failures.append("plain hook refused a clean scenario: %r" % p.stderr)
        else:
            passed += 1
        # 2. The pre-commit framework, with the hook definition from this repository.
        if shutil.which("pre-commit") is None:
            print("pre-commit not installed: that half skipped")
        else:
            d = new_repo(tmp, "framework")
            for name, text in (("bad.yaml", BAD), ("good.yaml", GOOD)):
                with open(os.path.join(d, name), "w") as f:
                    f.write(text)
            git(d, "add", ".")
            penv = dict(env, PRE_COMMIT_HOME=os.path.join(tmp, "pc-home"))
            p = subprocess.run(["pre-commit", "try-repo", root, "scc-check", "--files", "bad.yaml", "good.yaml"],
                               cwd=d, env=penv, capture_output=True, text=True, timeout=300)
            out = p.stdout + p.stderr
            if p.returncode == 0 or "bad.yaml:3:5: error: unknown event 'agentToolUze'" not in out:
                failures.append("pre-commit try-repo did not fail on bad.yaml:\n" + out)
            else:
                passed += 1
            p = subprocess.run(["pre-commit", "try-repo", root, "scc-check", "--files", "good.yaml"],
                               cwd=d, env=penv, capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                failures.append("pre-commit try-repo failed on good.yaml:\n" + p.stdout + p.stderr)
            else:
                passed += 1
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
