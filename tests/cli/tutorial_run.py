#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tutorial_run.py ROOT BIN NODE_MODULES WORK - docs/tutorial.md, run as a
reader runs it: every block in order, in one bash session in a fresh
folder, with BIN (the build's scc and scvm) first on PATH.

- a block with `file=PATH` is written there (relative to the session's
  folder at that point);
- each line of a ```sh block is one command; it must exit 0, or the status
  its comment names (`# exit status N`);
- a ```text output block must be what the sh block before it printed
  (stdout and stderr as one stream), `...` matching any text; a sh block
  with no output block after it must print nothing.

Not run as written, and said so: the npm line (its version must be the one
tests/agents/package.json pins; NODE_MODULES, installed by agents.npm_ci,
is linked in its place), and in the workflow (the page's
.github/workflows/*.yml) its `uses:` steps and its "Build scc and scvm"
step.  The workflow's other run steps run in a fresh clone of the
committed project, as GitHub runs them (bash -e, CI=true,
GITHUB_ACTIONS=true), and the JUnit reports they write are read with
junitparser: one testcase each, passed, classname suite.SCENARIO, file the
source's path from the repository's root, <system-out> the transcript's end.  Exit 0 or 1."""
import json
import os
import re
import select
import shutil
import subprocess
import sys

try:
    import yaml
    from junitparser import JUnitXml
except ImportError:   # Debian's packages, when ctest's Python is another one (pyenv)
    sys.path.append("/usr/lib/python3/dist-packages")
    import yaml
    from junitparser import JUnitXml

root, bindir, node_modules, work = map(os.path.abspath, sys.argv[1:5])
fails = []


def check(ok, what, detail=""):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        fails.append(what)
        if detail:
            print("  " + detail[-3000:].replace("\n", "\n  "))


page = open(os.path.join(root, "docs", "tutorial.md"), encoding="utf-8").read()
blocks = [(m.group(1), m.group(2).strip(), m.group(3))
          for m in re.finditer(r"^```(\w+)([^\n]*)\n(.*?)^```[ \t]*$", page, re.S | re.M)]
pins = json.load(open(os.path.join(root, "tests", "agents", "package.json")))["dependencies"]

shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "tmp"))
env = {"PATH": bindir + ":" + os.environ.get("PATH", "/usr/bin:/bin"), "HOME": work, "TMPDIR": os.path.join(work, "tmp"),
       "LANG": "C.UTF-8", "NO_COLOR": "1", "CI": "0",   # a reader's machine: goldens are written there
       "GIT_AUTHOR_NAME": "A Reader", "GIT_AUTHOR_EMAIL": "reader@example.com",
       "GIT_COMMITTER_NAME": "A Reader", "GIT_COMMITTER_EMAIL": "reader@example.com"}
sh = subprocess.Popen(["bash", "--noprofile", "--norc"], cwd=work, env=env, stdin=subprocess.PIPE,
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
MARK = re.compile(rb"\x01RC=(\d+)\x01\n$")


def run(cmd, timeout=600):
    """cmd in the session; its output (stdout and stderr) and status."""
    sh.stdin.write(b"{ " + cmd.encode() + b"\n} </dev/null 2>&1; printf '\\n\\001RC=%d\\001\\n' $?\n")
    sh.stdin.flush()
    out = b""
    while True:
        r, _, _ = select.select([sh.stdout], [], [], timeout)
        if not r:
            raise SystemExit("FAIL: %r did not finish in %d s" % (cmd, timeout))
        chunk = os.read(sh.stdout.fileno(), 65536)
        if not chunk:
            raise SystemExit("FAIL: the session ended during %r: %r" % (cmd, out[-500:]))
        out += chunk
        m = MARK.search(out)
        if m:
            return out[:m.start() - 1].decode("utf-8", "replace"), int(m.group(1))


def npm_line(cmd):
    """The npm install line: its version must be the suite's pin; the
    suite's installed node_modules stands in for the download."""
    m = re.match(r"npm install --no-save --ignore-scripts (@?[^@\s]+)@(\S+)$", cmd)
    if not m:
        return None
    check(pins.get(m.group(1)) == m.group(2), "%s is the version tests/agents pins (%s)" % (cmd, pins.get(m.group(1))))
    check(os.path.isdir(node_modules), "the suite's npm packages are installed (agents.npm_ci): " + node_modules)
    return "ln -sfn %s node_modules" % node_modules


def matches(want, got):
    pat = ".*?".join(re.escape(p) for p in want.rstrip("\n").split("..."))
    return re.fullmatch(pat, got.rstrip("\n"), re.S) is not None


ran = outputs = files = 0
workflow = None
pending = None   # (the sh block's text, its output) awaiting an output block
for i, (lang, info, body) in enumerate(blocks):
    if pending and not (lang == "text" and info == "output"):
        check(pending[1] == "", "the block prints nothing, as the page shows: " + pending[0].splitlines()[0],
              pending[1])
        pending = None
    if "file=" in info:
        path = info.split("file=", 1)[1].split()[0]
        cwd, _ = run("pwd")
        full = os.path.join(cwd.strip(), path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(body)
        files += 1
        if path.startswith(".github/workflows/"):
            workflow = (cwd.strip(), path)
    elif lang == "sh":
        text = ""
        for line in body.splitlines():
            if not line.strip():
                continue
            cmd, _, comment = line.partition("  #")
            cmd = cmd.strip()
            m = re.search(r"exit status (\d+)", comment)
            want = int(m.group(1)) if m else 0
            cmd = npm_line(cmd) or cmd
            out, rc = run(cmd)
            ran += 1
            check(rc == want, "%s -> %d" % (cmd, rc), out)
            text += out
        pending = (body, text)
    elif lang == "text" and info == "output":
        outputs += 1
        check(pending is not None and matches(body, pending[1]),
              "output as shown after: " + (pending[0].splitlines()[0] if pending else "(no command)"),
              "the page shows:\n%s\nthe commands printed:\n%s" % (body, pending[1] if pending else ""))
        pending = None
if pending:
    check(pending[1] == "", "the last block prints nothing", pending[1])
check(ran >= 15 and outputs >= 8 and files >= 4, "blocks run: %d commands, %d outputs, %d files" % (ran, outputs, files))

# The workflow, as GitHub runs it: a fresh clone of what was committed.
check(workflow is not None, "the page has a workflow")
if workflow:
    project, path = workflow
    run("cd " + project)
    out, rc = run("git add .github && git commit -q -m 'the workflow'")
    check(rc == 0, "the workflow committed", out)
    clone = os.path.join(work, "ci-checkout")
    subprocess.run(["git", "clone", "-q", project, clone], check=True, env=env)
    flow = yaml.safe_load(open(os.path.join(clone, path), encoding="utf-8"))
    ci_env = dict(env, CI="true", GITHUB_ACTIONS="true", GITHUB_WORKSPACE=clone)
    steps = [s for job in flow["jobs"].values() for s in job["steps"]]
    for s in steps:
        if "uses" in s:
            print("skip uses: " + s["uses"] + " (GitHub's)")
            continue
        if s.get("name") == "Build scc and scvm":
            print("skip %s (the build this test runs in)" % s["name"])
            # what it installs are the libraries scripts/setup-deps.sh names
            deps = open(os.path.join(root, "scripts", "setup-deps.sh"), encoding="utf-8").read()
            libs = set(re.findall(r"\b(lib[a-z0-9]+-dev)\b", deps.split("pkgs+=", 1)[0])) | {"cmake", "pkg-config"}
            inst = set(re.findall(r"apt-get install[^\n]*", s["run"])[0].split()) if "apt-get install" in s["run"] else set()
            check(libs <= inst, "the build step installs the build's packages (scripts/setup-deps.sh): missing %s"
                  % sorted(libs - inst))
            continue
        script = "\n".join(npm_line(l.strip()) or l for l in s["run"].splitlines())
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script], cwd=clone, env=ci_env,
                           capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
        check(p.returncode == 0, "workflow step %r -> %d" % (s.get("name"), p.returncode), p.stdout + p.stderr)
    for target, scenario in (("pty", "fix_by_hand"), ("agent", "fix_typo")):
        xml_path = os.path.join(clone, "reports", target + ".xml")
        if not os.path.exists(xml_path):
            check(False, "the workflow wrote " + xml_path)
            continue
        cases = [c for suite in JUnitXml.fromfile(xml_path) for c in suite]
        check(len(cases) == 1 and not cases[0].result, "%s.xml: one testcase, passed" % target)
        if cases:
            c = cases[0]
            check(c.classname == "suite." + scenario, "%s.xml: classname %s" % (target, c.classname))
            f = c._elem.get("file")
            check(f == "scenarios/%s.yaml" % scenario, "%s.xml: file is the source from the repository's root: %s"
                  % (target, f))
            check("hello world" in (c.system_out or ""), "%s.xml: <system-out> holds the transcript's end: %r"
                  % (target, c.system_out))
        check(os.path.exists(os.path.join(clone, "reports", target, "index.html")),
              "the HTML report: reports/%s/index.html" % target)
sh.stdin.close()
sh.wait(timeout=60)
sys.exit(1 if fails else 0)
