#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
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
        # Files that reference others (committed before, not staged now), names
        # with spaces, data files committed alone, a relative SCC=, and
        # unstaged changes put back after the check.
        d = new_repo(tmp, "refs")
        hook = os.path.join(d, ".git", "hooks", "pre-commit")
        shutil.copy(os.path.join(root, "scripts", "pre-commit"), hook)
        renv = dict(os.environ, SCC=os.path.relpath(scc, d))
        os.makedirs(os.path.join(d, "my scenarios", "terminal"))
        with open(os.path.join(d, "my scenarios", "terminal", "t.json"), "w") as f:
            f.write('{"name": "t", "width": 80, "height": 24}\n')
        git(d, "add", ".")
        p = git(d, "commit", "-qm", "a terminal config alone", env=renv, check=False)
        if p.returncode != 0 or "skipped: a Terminal-Config" not in p.stderr:
            failures.append("the hook refused a terminal config committed alone: %r" % p.stderr)
        else:
            passed += 1
        scen = os.path.join(d, "my scenarios", "fix one.yaml")
        with open(scen, "w") as f:
            f.write("name: fix-one\nterminalRef: terminal/t.json\ntimeline:\n  - userInputs:\n      - [10, \"x\"]\n")
        git(d, "add", ".")
        with open(os.path.join(d, "notes.yaml"), "w") as f:   # untracked, unstaged: not checked
            f.write(BAD)
        p = git(d, "commit", "-qm", "a scenario naming a committed file", env=renv, check=False)
        if p.returncode != 0:
            failures.append("the hook refused a scenario that references a committed file (relative SCC=, a "
                            "name with a space): %r" % p.stderr)
        else:
            passed += 1
        # staged good, work tree bad: the staged one is checked, the bad one put back
        os.remove(os.path.join(d, "notes.yaml"))
        with open(scen, "a") as f:
            f.write("  - complete: true\n")
        git(d, "add", ".")
        with open(scen, "a") as f:
            f.write("  - agentToolUze: {toolName: x}\n")
        p = git(d, "commit", "-qm", "staged good, unstaged bad", env=renv, check=False)
        text = open(scen).read()
        if p.returncode != 0 or "agentToolUze" not in text or git(d, "diff", "--name-only").stdout.strip() != "my scenarios/fix one.yaml":
            failures.append("staged good, unstaged bad: exit %d, unstaged change kept: %s %r" % (
                p.returncode, "agentToolUze" in text, p.stderr))
        else:
            passed += 1
        git(d, "add", ".")
        p = git(d, "commit", "-qm", "bad", env=renv, check=False)
        if p.returncode == 0 or "my scenarios/fix one.yaml:7:5: error: unknown event 'agentToolUze'" not in p.stderr:
            failures.append("the hook let a broken scenario with a space in its name through: %r" % p.stderr)
        else:
            passed += 1
        # 2. The pre-commit framework, with the hook definition from this repository.
        if shutil.which("pre-commit") is None:
            failures.append("pre-commit (the Debian package scripts/setup-deps.sh installs) is not installed")
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
            os.makedirs(os.path.join(d, "terminal"))
            with open(os.path.join(d, "terminal", "t.json"), "w") as f:
                f.write('{"name": "t", "width": 80, "height": 24}\n')
            with open(os.path.join(d, "with space.yaml"), "w") as f:
                f.write("name: spaced\nterminalRef: terminal/t.json\ntimeline:\n  - complete: true\n")
            git(d, "add", ".")
            p = subprocess.run(["pre-commit", "try-repo", root, "scc-check", "--files", "good.yaml", "terminal/t.json",
                                "with space.yaml"],
                               cwd=d, env=penv, capture_output=True, text=True, timeout=300)
            if p.returncode != 0 or "with space.yaml" in p.stdout + p.stderr:
                failures.append("pre-commit try-repo failed on good.yaml, a terminal config and a name with a "
                                "space:\n" + p.stdout + p.stderr)
            else:
                passed += 1
            # a terminal config changed alone: data, not a scenario
            p = subprocess.run(["pre-commit", "try-repo", root, "scc-check", "--files", "terminal/t.json"],
                               cwd=d, env=penv, capture_output=True, text=True, timeout=300)
            if p.returncode != 0:
                failures.append("pre-commit try-repo refused a terminal config committed alone:\n" + p.stdout +
                                p.stderr)
            else:
                passed += 1
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
