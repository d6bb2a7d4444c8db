#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Golden diagnostics in every format scc writes: GNU text with colour and
carets (--color=always), JSON lines, and SARIF 2.1.0; plus, when the
pinned official SARIF multitool can be installed, its validation of the
SARIF log (any error it reports fails the test).
usage: check_formats.py SCC ERRORS_DIR GOLDEN_DIR WORK_DIR [--update]
"""
import json
import os
import shutil
import subprocess
import sys

INPUTS = ["think_backwards.yaml", "unknown_keys_warn.yaml", "repo_bad_files.yaml",
          "two_session_starts.yaml", "session_start_without_acp.yaml", "rules_type_mismatch.yaml",
          "eliza_scenario.yaml", "yao_cases.jsonl"]
FORMATS = {
    "diags.txt": (["--color=always"], "stderr"),
    "diags.jsonl": (["--diagnostics-format=json"], "stderr"),
    "diags.sarif": (["--diagnostics-format=sarif"], "stdout"),
}


def run(scc, errors, extra):
    return subprocess.run([scc, "--check", "-D", "retries=3"] + extra + INPUTS, cwd=errors,
                          capture_output=True, text=True, timeout=60)


def validate_sarif(sarif_path, work, here):
    """Installs the pinned multitool (npm ci) and validates; None = skipped."""
    if shutil.which("npm") is None:
        return None, "npm not found"
    tool_dir = os.path.join(work, "sarif-tool")
    exe = os.path.join(tool_dir, "node_modules", "@microsoft", "sarif-multitool-linux", "Sarif.Multitool")
    if not os.path.exists(exe):
        os.makedirs(tool_dir, exist_ok=True)
        for f in ("package.json", "package-lock.json"):
            shutil.copy(os.path.join(here, "sarif", f), tool_dir)
        p = subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=tool_dir,
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            return False, "npm ci failed:\n" + p.stdout + p.stderr
    os.chmod(exe, 0o755)
    out = os.path.join(work, "sarif-validation.sarif")
    if os.path.exists(out):
        os.remove(out)
    env = dict(os.environ, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT="1")
    # GitHub code scanning's rules (Gh) with the SARIF spec's: no error or warning
    p = subprocess.run([exe, "validate", sarif_path, "--rule-kind", "Gh;Sarif", "--level", "Error;Warning",
                        "--output", out], capture_output=True, text=True, timeout=300, env=env)
    if not os.path.exists(out):
        return False, "the multitool wrote no log:\n" + p.stdout + p.stderr
    log = json.load(open(out))
    errors = [r for run_ in log.get("runs", []) for r in run_.get("results", [])
              if r.get("level", "warning") in ("error", "warning")]
    if errors:
        return False, "\n".join(json.dumps(r["message"]) for r in errors)
    return True, p.stdout


def main():
    scc, errors, golden, work = sys.argv[1:5]
    update = "--update" in sys.argv
    here = os.path.dirname(os.path.abspath(__file__))
    passed, failures = 0, []
    for name, (extra, stream) in FORMATS.items():
        p = run(scc, errors, extra)
        got = getattr(p, stream)
        # where the checkout is: the one machine-dependent string of the log
        got = got.replace('"uri": "file://%s/"' % os.path.realpath(errors).replace(" ", "%20"),
                          '"uri": "file:///CHECKOUT/tests/errors/"')
        path = os.path.join(golden, name)
        if p.returncode != 1:
            failures.append("%s: exit %d, want 1" % (name, p.returncode))
        if update:
            with open(path, "w") as f:
                f.write(got)
            continue
        want = open(path).read()
        if got != want:
            failures.append("%s differs from the golden file; rerun with --update and review" % name)
        else:
            passed += 1
        if name == "diags.sarif":
            json.loads(got)  # well-formed
    if not update:
        os.makedirs(work, exist_ok=True)
        ok, msg = validate_sarif(os.path.join(golden, "diags.sarif"), work, here)
        if ok is None:
            print("SARIF validation skipped: " + msg)
        elif not ok:
            failures.append("the SARIF multitool rejects our log:\n" + msg)
        else:
            passed += 1
    # URIs: relative to %SRCROOT% (--sarif-root), percent-encoded, never "//";
    # outside it an absolute file:// URI; a fingerprint per result
    d = os.path.join(work, "uris", "my dir")
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(errors, "think_backwards.yaml"), os.path.join(d, "a b.yaml"))
    p = subprocess.run([scc, "--check", "--diagnostics-format=sarif", "my dir//a b.yaml"], cwd=os.path.dirname(d),
                       capture_output=True, text=True, timeout=60)
    log = json.loads(p.stdout)
    res = log["runs"][0]["results"]
    loc = res[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    root_uri = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    ids = {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    if loc != {"uri": "my%20dir/a%20b.yaml", "uriBaseId": "%SRCROOT%"} or \
            root_uri != "file://" + os.path.realpath(os.path.dirname(d)).replace(" ", "%20") + "/" or \
            not all(r["ruleId"] in ids and len(r["partialFingerprints"]["sccFinding/v1"]) == 16 for r in res):
        failures.append("SARIF locations: %s %s %s" % (loc, root_uri, res[0]))
    else:
        passed += 1
    p = subprocess.run([scc, "--check", "--diagnostics-format=sarif", "--sarif-root", d, os.path.join(errors,
                        "think_backwards.yaml")], capture_output=True, text=True, timeout=60)
    loc = json.loads(p.stdout)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    if loc != {"uri": "file://" + os.path.realpath(os.path.join(errors, "think_backwards.yaml"))}:
        failures.append("a file outside %%SRCROOT%%: %s" % loc)
    else:
        passed += 1
    for f in failures:
        print("FAIL " + f)
    print("%d passed, %d failed" % (passed, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
