#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""deb_test.py BUILD ROOT WORK - the Debian package, as a user meets it:

- `cpack -G DEB` makes scc_VERSION_ARCH.deb from the build folder (into
  WORK, so the build folder is not touched); its Depends were computed
  (dpkg-shlibdeps: libc6, libyaml, ...), it holds both programs, the
  library, headers, CMake package, scc.pc, man pages, the three shells'
  completions and the docs, and lintian finds no error in it;
- `dpkg -i` installs it; from the installed paths `scc --check` and
  `scvm run --allow-skipped` take a stdlib scenario, `man -w` finds the three
  pages, bash-completion's loader finds the completion and completes,
  a tiny program builds against the installed library through pkg-config
  and through find_package(scc) and runs;
- `dpkg -r` removes it and leaves nothing behind: every path the package
  holds is as it was before the install (gone, or a directory that was
  already there).

Installing touches the machine, so the test holds /tmp/scc-deb-test.lock
(flock) from install to removal: another checkout's run of this test
waits for it instead of removing a package under it.  A package left
installed by a run that was killed is removed first, and said so.
Exit 0, or 1 listing every failure."""
import fcntl
import glob
import os
import shutil
import subprocess
import sys
import time

build, root, work = map(os.path.abspath, sys.argv[1:4])
LOCK = "/tmp/scc-deb-test.lock"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return ok


def run(*cmd, **kw):
    kw.setdefault("timeout", 300)
    return subprocess.run(cmd, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kw)


def dpkg(*args):
    """dpkg, waiting while another program (apt, another session) holds dpkg's own lock."""
    deadline = time.monotonic() + 300
    while True:
        p = run("dpkg", *args)
        if p.returncode == 0 or "lock" not in p.stderr or time.monotonic() > deadline:
            return p
        time.sleep(2)


def installed():
    p = run("dpkg-query", "-W", "-f=${Status}", "scc")
    return p.returncode == 0 and "install ok installed" in p.stdout


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

# ---- the package ----
p = run("cpack", "--config", os.path.join(build, "CPackConfig.cmake"), "-G", "DEB", "-B", work, cwd=work)
debs = glob.glob(os.path.join(work, "scc_*.deb"))
if not check(p.returncode == 0 and len(debs) == 1, "cpack -G DEB: %d %s %s" % (p.returncode, p.stdout[-500:], p.stderr[-500:])):
    sys.exit(1)
deb = debs[0]
print("package:", os.path.basename(deb), os.path.getsize(deb), "bytes", flush=True)
fields = run("dpkg-deb", "-f", deb).stdout
depends = next((l for l in fields.splitlines() if l.startswith("Depends:")), "")
for lib in ("libc6", "libyaml-0-2", "libzstd1", "libxxhash0", "libvterm0", "libcjson1"):
    check(lib in depends, "Depends (dpkg-shlibdeps) lacks %s: %r" % (lib, depends))
contents = run("dpkg-deb", "-c", deb).stdout
paths = []
for line in contents.splitlines():
    name = line.split(None, 5)[5].split(" -> ")[0]
    paths.append(name[1:] if name.startswith("./") else name)
files = [x for x in paths if not x.endswith("/")]
dirs = [x.rstrip("/") for x in paths if x.endswith("/") and x != "/"]
for must in ("/usr/bin/scc", "/usr/bin/scvm", "/usr/include/scc/scc.h", "/usr/include/scc/session.h",
             "/usr/share/man/man1/scc.1.gz", "/usr/share/man/man1/scvm.1.gz", "/usr/share/man/man5/scenario-format.5.gz",
             "/usr/share/bash-completion/completions/scc", "/usr/share/bash-completion/completions/scvm",
             "/usr/share/zsh/vendor-completions/_scvm", "/usr/share/fish/vendor_completions.d/scvm.fish",
             "/usr/share/doc/scc/copyright", "/usr/share/doc/scc/changelog.gz", "/usr/share/doc/scc/README.md",
             "/usr/share/doc/scc/CHANGELOG.md", "/usr/share/doc/scc/docs/install.md",
             "/usr/share/scvm/agents/claude-code.json"):
    check(must in files, "the package lacks %s" % must)
for suffix in ("/libscc.a", "/pkgconfig/scc.pc", "/cmake/scc/sccConfig.cmake", "/cmake/scc/sccConfigVersion.cmake"):
    check(any(f.startswith("/usr/lib") and f.endswith(suffix) for f in files), "the package lacks /usr/lib...%s" % suffix)
lint = run("lintian", "--no-tag-display-limit", deb)
errors = [l for l in lint.stdout.splitlines() if l.startswith("E:")]
check(lint.returncode in (0, 1), "lintian did not run: %d %s" % (lint.returncode, lint.stderr[-300:]))
check(not errors, "lintian errors: %s" % errors)
print("lintian: %d errors, %d warnings" % (len(errors), sum(l.startswith("W:") for l in lint.stdout.splitlines())),
      flush=True)

# ---- installed, used, removed: under the lock ----
lock = open(LOCK, "a")
t0 = time.monotonic()
fcntl.flock(lock, fcntl.LOCK_EX)
print("lock held after %.1f s" % (time.monotonic() - t0), flush=True)
try:
    if installed():
        print("note: scc was installed (a run killed before its dpkg -r?): removing it first", flush=True)
        check(dpkg("-r", "scc").returncode == 0, "dpkg -r of the package found installed")
    before = {x for x in files + dirs if os.path.lexists(x)}
    check(not any(f in before for f in files), "files of the package exist before installing: %s"
          % sorted(f for f in files if f in before)[:5])
    p = dpkg("-i", deb)
    if check(p.returncode == 0 and installed(), "dpkg -i: %d %s" % (p.returncode, p.stderr[-500:])):
        env = {"PATH": "/usr/bin:/bin", "HOME": work, "LANG": "C.UTF-8"}
        std = os.path.join(root, "stdlib-scenarios")
        scn = os.path.join(std, "bugfix_with_tests.yaml")
        p = run("/usr/bin/scc", "--check", scn, env=env, cwd=work)
        check(p.returncode == 0, "installed scc --check: %d %s" % (p.returncode, p.stderr[:300]))
        p = run("/usr/bin/scc", "--check", "--diagnostics-format=sarif", std, env=env, cwd=work)
        check(p.returncode == 0 and '"version": "2.1.0"' in p.stdout, "installed scc --check DIR, SARIF: %d %s"
              % (p.returncode, p.stderr[:300]))
        scb = os.path.join(work, "fix.scb")
        p = run("/usr/bin/scc", "-o", scb, scn, env=env, cwd=work)
        check(p.returncode == 0, "installed scc -o: %s" % p.stderr[:300])
        p = run("/usr/bin/scvm", "run", "--allow-skipped", scb, env=env, cwd=work)
        check(p.returncode == 0 and p.stdout.count("\n") > 5 and '"kind":"status"' in p.stdout,
              "installed scvm run --allow-skipped: %d %s %s" % (p.returncode, p.stdout[:200], p.stderr[:300]))
        v1, v2 = run("/usr/bin/scc", "--version").stdout, run("/usr/bin/scvm", "--version").stdout
        check(v1.split("\n", 1)[1:] == v2.split("\n", 1)[1:] and v1.startswith("scc (scc) "), "installed versions differ")
        for sec, page in (("1", "scc"), ("1", "scvm"), ("5", "scenario-format")):
            p = run("man", "-w", sec, page, env=env)
            check(p.stdout.strip() == "/usr/share/man/man%s/%s.%s.gz" % (sec, page, sec),
                  "man -w %s %s: %r" % (sec, page, p.stdout))
        p = run("bash", "-c", 'MANWIDTH=80 MANPAGER=cat man scvm 2>&1 | grep -c "EXIT STATUS"', env=env)
        check(p.stdout.strip() not in ("", "0"), "man scvm does not render its EXIT STATUS: %r" % p.stdout)
        # Tab: bash-completion loads the completion on first use, from where the package put it.
        p = run("bash", "--norc", "-c", 'source /usr/share/bash-completion/bash_completion; '
                '__load_completion scvm || exit 9; complete -p scvm; COMP_WORDS=(scvm se); COMP_CWORD=1; '
                'COMP_LINE="scvm se"; COMP_POINT=7; _scvm scvm se scvm; printf "%s\\n" "${COMPREPLY[@]}"', env=env)
        check(p.returncode == 0 and "-F _scvm scvm" in p.stdout and p.stdout.splitlines()[-1:] == ["serve"],
              "bash-completion does not load the installed scvm completion: %d %r %r" % (p.returncode, p.stdout, p.stderr))
        # A tiny program against the installed library: pkg-config, then find_package(scc).
        src = os.path.join(work, "tiny")
        os.makedirs(src)
        open(os.path.join(src, "main.c"), "w").write(
            '#include <scc/scc.h>\n#include <stdio.h>\n'
            'int main(void) { printf("libscc %s\\n", scc_version()); return 0; }\n')
        open(os.path.join(src, "CMakeLists.txt"), "w").write(
            "cmake_minimum_required(VERSION 3.20)\nproject(tiny C)\nfind_package(scc REQUIRED)\n"
            "add_executable(tiny main.c)\ntarget_link_libraries(tiny PRIVATE scc::libscc)\n"
            'message(STATUS "scc from ${scc_DIR}")\n')
        ver = v1.split()[2] if len(v1.split()) > 2 else "?"
        penv = dict(env)
        p = run("bash", "-c", 'cc -o tiny-pc main.c $(pkg-config --cflags --libs scc) && ./tiny-pc', cwd=src, env=penv)
        check(p.returncode == 0 and p.stdout == "libscc %s\n" % ver, "pkg-config build: %d %s %s"
              % (p.returncode, p.stdout, p.stderr[-500:]))
        p = run("cmake", "-S", src, "-B", os.path.join(src, "b"), env=penv)
        check(p.returncode == 0 and "scc from /usr/lib" in p.stdout, "find_package(scc): %s %s" % (p.stdout[-300:], p.stderr[-500:]))
        p = run("cmake", "--build", os.path.join(src, "b"), env=penv)
        q = run(os.path.join(src, "b", "tiny"))
        check(p.returncode == 0 and q.stdout == "libscc %s\n" % ver, "find_package build: %s %s %s"
              % (p.stdout[-300:], p.stderr[-300:], q.stdout))
    p = dpkg("-r", "scc")
    check(p.returncode == 0, "dpkg -r scc: %s" % p.stderr[-300:])
    st = run("dpkg-query", "-W", "-f=${Status}", "scc")
    check(st.returncode != 0 or "not-installed" in st.stdout, "after dpkg -r: %r" % st.stdout)
    after = {x for x in files + dirs if os.path.lexists(x)}
    check(after == before, "left behind by dpkg -r: %s" % sorted(after - before)[:10])
finally:
    if installed():
        dpkg("-r", "scc")
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()

print("deb_test: %d files in the package, %d failures" % (len(files), len(failures)))
sys.exit(1 if failures else 0)
