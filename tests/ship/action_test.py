#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""action_test.py ROOT WORK - the GitHub action (ROOT/action.yml), its steps
run here as GitHub's runner runs a composite action's steps:

- each step's `if:` decided (success(), always(), inputs, steps' outputs),
  `${{ }}` put into its env, working-directory and with, its `run:` given
  to `bash --noprofile --norc -eo pipefail` with the variables GitHub sets
  (GITHUB_WORKSPACE, GITHUB_ACTION_PATH, GITHUB_OUTPUT and
  GITHUB_STEP_SUMMARY fresh per step, GITHUB_ENV, GITHUB_PATH,
  RUNNER_TEMP, CI, ...), its GITHUB_OUTPUT read back as the step's outputs;
  a `uses:` step (upload-sarif, upload-artifact) is not run, but its `with:`
  must name files the earlier steps wrote;
- check mode with no deb builds the package of this commit from the
  action's sources and installs it; a clean folder gives status 0 and a
  SARIF log; a broken scenario fails the step with 1, and the SARIF log
  (uploaded all the same) names it relative to the workspace;
- run mode (with the package the first run built) packs the scenarios,
  plays them with JUnit and the HTML report, both uploaded;
- with static: true, the static binaries are built and put on PATH
  (GITHUB_PATH) for the check, and nothing is installed;
- a bad mode stops before anything is installed; an input cannot run a
  command.
The package is installed into the machine: under the lock ship.deb takes
(/tmp/scc-deb-test.lock), removed at the end.  Exit 0, or 1 listing every
failure."""
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import yaml

root, work = map(os.path.abspath, sys.argv[1:3])
LOCK = "/tmp/scc-deb-test.lock"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return ok


action = yaml.safe_load(open(os.path.join(root, "action.yml"), encoding="utf-8"))
check(action["runs"]["using"] == "composite", "action.yml is not a composite action")
INPUTS = action["inputs"]


def run_action(name, inputs, workspace):
    """Runs the action's steps as the runner does; returns (steps, outputs, summary, log)."""
    for k in inputs:
        check(k in INPUTS, "%s: the action has no input %r" % (name, k))
    ins = {k: str(v.get("default", "")) for k, v in INPUTS.items()}
    ins.update(inputs)
    temp = os.path.join(work, name, "runner-temp")
    files = os.path.join(work, name, "files")
    for d in (temp, files):
        os.makedirs(d, exist_ok=True)
    steps, status, summary, log = {}, "success", "", []
    added_path, added_env = [], {}   # GITHUB_PATH and GITHUB_ENV: for the steps after the one that wrote them
    ctx = {"github.workspace": workspace, "runner.temp": temp, "github.action_path": root}

    def value(expr):
        expr = expr.strip()
        if expr in ctx:
            return ctx[expr]
        m = re.fullmatch(r"inputs\.([A-Za-z0-9_-]+)", expr)
        if m:
            check(m.group(1) in INPUTS, "%s: ${{ %s }} names no input" % (name, expr))
            return ins.get(m.group(1), "")
        m = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", expr)
        if m:
            return steps.get(m.group(1), {}).get("outputs", {}).get(m.group(2), "")
        check(False, "%s: an expression this runner does not know: %s" % (name, expr))
        return ""

    def subst(text):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: value(m.group(1)), str(text))

    def decide(cond):
        if cond is None:
            return status == "success"
        cond = cond.strip()
        if cond.startswith("${{") and cond.endswith("}}"):
            cond = cond[3:-2]
        called = {"always": False, "failure": False}

        def always():
            called["always"] = True
            return True

        def success():
            return status == "success"

        def failure():
            called["failure"] = True
            return status == "failure"

        py = re.sub(r"\b(inputs\.[A-Za-z0-9_-]+|steps\.[A-Za-z0-9_-]+\.outputs\.[A-Za-z0-9_-]+)",
                    lambda m: repr(value(m.group(1))), cond)
        py = re.sub(r"!(?!=)", " not ", py.replace("&&", " and ").replace("||", " or "))
        result = bool(eval(py, {"__builtins__": {}}, {"always": always, "success": success, "failure": failure}))
        # A condition without a status function is ANDed with success(), as GitHub does.
        if not called["always"] and not called["failure"]:
            result = result and status == "success"
        return result

    for k, step in enumerate(action["runs"]["steps"]):
        sid = step.get("id", "step%d" % k)
        if not decide(step.get("if")):
            steps[sid] = {"outcome": "skipped", "outputs": {}}
            log.append((sid, "skipped"))
            continue
        if "uses" in step:
            withs = {k2: subst(v) for k2, v in (step.get("with") or {}).items()}
            steps[sid] = {"outcome": "success", "outputs": {}, "uses": step["uses"], "with": withs}
            log.append((sid, "uses " + step["uses"]))
            continue
        check(step.get("shell") == "bash", "%s: step %s has no shell: bash" % (name, sid))
        out_file = os.path.join(files, "output-%d" % k)
        sum_file = os.path.join(files, "summary-%d" % k)
        open(out_file, "w").close()
        open(sum_file, "w").close()
        script = os.path.join(files, "step-%d.sh" % k)
        open(script, "w").write(step["run"])
        path_file, env_file = os.path.join(files, "path-%d" % k), os.path.join(files, "env-%d" % k)
        open(path_file, "w").close()
        open(env_file, "w").close()
        env = {"PATH": os.pathsep.join(added_path + [os.environ.get("PATH", "/usr/bin:/bin")]),
               "HOME": os.path.join(work, name),
               "LANG": "C.UTF-8", "CI": "true", "GITHUB_ACTIONS": "true",
               "GITHUB_WORKSPACE": workspace, "GITHUB_ACTION_PATH": root, "GITHUB_OUTPUT": out_file,
               "GITHUB_STEP_SUMMARY": sum_file, "GITHUB_ENV": env_file,
               "GITHUB_PATH": path_file, "RUNNER_TEMP": temp, "RUNNER_OS": "Linux",
               "RUNNER_ARCH": "X64", "GITHUB_SHA": "0" * 40, "GITHUB_REPOSITORY": "example/scenarios",
               "GITHUB_RUN_ID": "1", "GITHUB_JOB": "test", "GITHUB_ACTION": sid,
               "CMAKE_BUILD_PARALLEL_LEVEL": "2"}
        env.update(added_env)
        env.update({k2: subst(v) for k2, v in (step.get("env") or {}).items()})
        cwd = subst(step.get("working-directory", workspace))
        t0 = time.monotonic()
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=cwd, env=env,
                           capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
        outputs = {}
        for line in open(out_file).read().splitlines():
            key, eq, val = line.partition("=")
            if eq:
                outputs[key] = val
        summary += open(sum_file).read()
        # Lines of GITHUB_PATH go in front of PATH, the latest first; GITHUB_ENV's NAME=VALUE lines into the env.
        added_path = [l for l in reversed(open(path_file).read().splitlines()) if l] + added_path
        for line in open(env_file).read().splitlines():
            key, eq, val = line.partition("=")
            if eq:
                added_env[key] = val
        steps[sid] = {"outcome": "success" if p.returncode == 0 else "failure", "outputs": outputs,
                      "status": p.returncode, "stderr": p.stderr}
        log.append((sid, "exit %d in %.1f s" % (p.returncode, time.monotonic() - t0)))
        if p.returncode != 0:
            status = "failure"
    outs = {k: subst(v["value"]) for k, v in action.get("outputs", {}).items()}
    print("%s: %s" % (name, ", ".join("%s %s" % e for e in log)), flush=True)
    return steps, outs, summary


def fresh_workspace(name):
    ws = os.path.join(work, name, "workspace")
    shutil.copytree(os.path.join(root, "stdlib-scenarios"), os.path.join(ws, "scenarios"))
    return ws


def installed():
    p = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "scc"], capture_output=True, text=True)
    return p.returncode == 0 and "install ok installed" in p.stdout


def dpkg_remove():
    for _ in range(150):
        p = subprocess.run(["dpkg", "-r", "scc"], capture_output=True, text=True)
        if p.returncode == 0 or "lock" not in p.stderr:
            return p
        time.sleep(2)
    return p


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
lock = open(LOCK, "a")
fcntl.flock(lock, fcntl.LOCK_EX)
try:
    if installed():
        print("note: scc was installed (a run killed before its dpkg -r?): removing it first", flush=True)
        dpkg_remove()

    # A bad mode: stops first, installs nothing.
    steps, outs, _ = run_action("badmode", {"mode": "lint"}, fresh_workspace("badmode"))
    check(steps["step0"]["outcome"] == "failure" and "mode must be check or run, not lint" in steps["step0"]["stderr"],
          "badmode: %s" % steps["step0"])
    check(steps["install"]["outcome"] == "skipped" and not installed(), "badmode: the install ran")

    # static: the static binaries of this commit on PATH, nothing installed into the system.
    ws = fresh_workspace("static")
    steps, outs, summary = run_action("static", {"paths": "scenarios", "static": "true", "upload-sarif": "false"}, ws)
    inst = steps["install"]
    check(inst["outcome"] == "success", "static: install failed: %s" % inst.get("stderr", "")[-1500:])
    scc_path = inst["outputs"].get("scc", "")
    check(scc_path.startswith(os.path.join(work, "static", "runner-temp")) and not installed(),
          "static: scc is %r (package installed: %s)" % (scc_path, installed()))
    if os.path.isfile(scc_path):
        p = subprocess.run(["ldd", scc_path], capture_output=True, text=True)
        check("not a dynamic executable" in p.stdout + p.stderr, "static: ldd %s: %s" % (scc_path, p.stdout + p.stderr))
    check(steps["check"]["outcome"] == "success" and os.path.isfile(outs["sarif"]),
          "static: the check through PATH: %s" % steps["check"].get("stderr", "")[-500:])
    check(not any(s.get("uses") for s in steps.values()), "static: upload-sarif false still uploads")

    # check, building the package of this commit from the action's sources.
    ws = fresh_workspace("check")
    steps, outs, summary = run_action("check", {"paths": "scenarios"}, ws)
    inst = steps["install"]
    check(inst["outcome"] == "success", "check: install failed: %s" % inst.get("stderr", "")[-1500:])
    deb = inst["outputs"].get("deb", "")
    version = re.search(r"project\(scc VERSION ([0-9.]+)", open(os.path.join(root, "CMakeLists.txt")).read()).group(1)
    check(outs["version"] == version and installed(), "check: version output %r, project %s" % (outs["version"], version))
    c = steps["check"]
    check(c["outcome"] == "success", "check: scc --check of the stdlib failed: %s" % c.get("stderr", "")[-500:])
    up = [s for s in steps.values() if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
    check(len(up) == 1 and os.path.isfile(up[0]["with"]["sarif_file"]) and up[0]["with"]["sarif_file"] == outs["sarif"],
          "check: the upload step does not get the SARIF log: %s" % up)
    if os.path.isfile(outs["sarif"]):
        log = json.load(open(outs["sarif"]))
        check(log.get("version") == "2.1.0" and log["runs"][0]["tool"]["driver"]["version"] == version,
              "check: SARIF log %s" % str(log)[:300])
    check("no error" in summary, "check: the step summary: %r" % summary)
    check(steps["run"]["outcome"] == "skipped", "check: the run step ran")

    # A broken scenario: the step fails, the SARIF log is uploaded all the same and names it.
    ws = fresh_workspace("broken")
    open(os.path.join(ws, "scenarios", "broken.yaml"), "w").write(
        "name: broken\ntimeline:\n  - agentToolUze: {tool: bash}\n")
    steps, outs, summary = run_action("broken", {"paths": "scenarios", "deb": deb}, ws)
    c = steps["check"]
    check(c["outcome"] == "failure" and c["status"] == 1, "broken: scc --check: %s" % c)
    check("broken.yaml" in c.get("stderr", ""), "broken: the diagnostics are not in the log: %r" % c.get("stderr", "")[-300:])
    up = [s for s in steps.values() if s.get("uses", "").startswith("github/codeql-action/upload-sarif")]
    check(len(up) == 1, "broken: the SARIF log is not uploaded after the failure: %s" % list(steps))
    if os.path.isfile(outs["sarif"]):
        text = open(outs["sarif"]).read()
        check('"uri": "scenarios/broken.yaml"' in text.replace('"uri":"', '"uri": "'),
              "broken: the SARIF log does not name scenarios/broken.yaml relative to the workspace: %s" % text[:400])

    # run: pack, play with JUnit and the report; an input cannot run a command.
    ws = fresh_workspace("run")
    steps, outs, summary = run_action("run", {"mode": "run", "paths": "scenarios", "deb": deb,
                                              "args": "--allow-skipped $(touch pwned) -j 2"}, ws)
    r = steps["run"]
    check(not os.path.exists(os.path.join(ws, "pwned")), "run: an input ran a command")
    check(r["outcome"] == "failure" and r["status"] in (2, 3), "run: '$(touch pwned)' is not refused as a file: %s" % r)
    steps, outs, summary = run_action("run2", {"mode": "run", "paths": "scenarios", "deb": deb,
                                               "args": "--allow-skipped\n-j 2"}, fresh_workspace("run2"))
    r = steps["run"]
    check(r["outcome"] == "success", "run: scvm run failed: %s" % r.get("stderr", "")[-800:])
    if os.path.isfile(outs["junit"]):
        suites = ET.parse(outs["junit"]).getroot()
        cases = suites.findall(".//testcase")
        check(len(cases) >= 20 and not suites.findall(".//failure"), "run: JUnit has %d cases" % len(cases))
    else:
        check(False, "run: no JUnit report at %r" % outs["junit"])
    check(os.path.isfile(os.path.join(outs["report"], "index.html")), "run: no report at %r" % outs["report"])
    up = [s for s in steps.values() if s.get("uses", "").startswith("actions/upload-artifact")]
    paths = up[0]["with"]["path"].split() if up else []
    check(len(paths) == 2 and all(os.path.exists(x) for x in paths), "run: the artifact's paths: %s" % paths)
    check("status 0" in summary, "run: the step summary: %r" % summary)
finally:
    if installed():
        dpkg_remove()
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()

print("action_test: %d failures" % len(failures))
sys.exit(1 if failures else 0)
