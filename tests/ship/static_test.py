#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""static_test.py ROOT WORK - the static binaries (-DSCC_STATIC=ON), in a
root that holds nothing but them:

- a build of scc and scvm with SCC_STATIC=ON (cJSON from Debian's source
  package, fetched at build time) gives two files `ldd` calls "not a
  dynamic executable" and whose ELF has no interpreter;
- in a chroot holding only the two binaries, a static test program and
  the scenarios (no /lib, no /etc, no shell): `scc --check`, `scc -o`,
  `scvm run --allow-skipped`; `scvm serve llm` on 127.0.0.1 and on
  localhost, asked over loopback from outside; `scvm run -t pty` playing
  the static program (in a private mount namespace, a fresh devpts,
  /dev/null and /proc are mounted into the root for the terminal, and
  taken down with the namespace);
- what a static glibc binary cannot do there is what docs/install.md
  says: `--listen` with a host name fails (no name service), with a
  clear error rather than a crash.
Exit 0, or 1 listing every failure."""
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

root, work = map(os.path.abspath, sys.argv[1:3])
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return ok


def run(*cmd, timeout=600, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, **kw)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
build = os.path.join(work, "build")
t0 = time.monotonic()
p = run("cmake", "-S", root, "-B", build, "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DSCC_STATIC=ON", "-DSCC_BUILD_TESTS=OFF")
if not check(p.returncode == 0, "configure with SCC_STATIC=ON: %s" % (p.stdout[-800:] + p.stderr[-1500:])):
    sys.exit(1)
p = run("cmake", "--build", build, "--target", "scc", "scvm", "--parallel", "2", timeout=1200)
if not check(p.returncode == 0, "static build: %s" % (p.stdout[-1500:] + p.stderr[-1500:])):
    sys.exit(1)
print("static build: %.0f s" % (time.monotonic() - t0), flush=True)
bins = {b: os.path.join(build, "bin", b) for b in ("scc", "scvm")}
for name, path in bins.items():
    p = run("ldd", path)
    check("not a dynamic executable" in p.stdout + p.stderr, "ldd %s: %r" % (name, p.stdout + p.stderr))
    p = run("readelf", "-l", path)
    check(p.returncode == 0 and "INTERP" not in p.stdout, "%s has a program interpreter" % name)
    check(os.path.getsize(path) < 64 << 20, "%s is %d bytes" % (name, os.path.getsize(path)))
cj = open(os.path.join(build, "cjson-static", "VERSION")).read().strip()
print("cJSON from Debian's source package:", cj, flush=True)
check(re.match(r"1\.7\.\d+", cj) is not None, "cJSON version %r" % cj)

# ---- the root: two binaries, a static program, scenarios ----
rootfs = os.path.join(work, "root")
os.makedirs(os.path.join(rootfs, "s"))
for name, path in bins.items():
    shutil.copy2(path, os.path.join(rootfs, name))
echo_c = os.path.join(work, "echo.c")
open(echo_c, "w").write('#include <unistd.h>\nint main(void) { char b[256]; ssize_t n;\n'
                        '  while ((n = read(0, b, sizeof b)) > 0) if (write(1, b, (size_t)n) != n) return 1;\n'
                        '  return 0; }\n')
p = run("cc", "-static", "-O2", "-o", os.path.join(rootfs, "echo"), echo_c)
check(p.returncode == 0, "cc -static echo.c: %s" % p.stderr)
shutil.copy2(os.path.join(root, "stdlib-scenarios", "plan_mode_exit.yaml"), os.path.join(rootfs, "s"))
open(os.path.join(rootfs, "s", "echo.yaml"), "w").write(
    "name: static_echo\nah:\n  cmd: /echo\ntimeline:\n  - userInputs:\n      - relativeTime: 100\n"
    "        input: hello static\n  - baseTimeDelta: 200\n  - assert:\n      text:\n"
    "        contains: ['hello static']\n")
print("root:", sorted(os.listdir(rootfs)), sorted(os.listdir(os.path.join(rootfs, "s"))), flush=True)
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/s", "TMPDIR": "/s", "LANG": "C"}  # the host's tools; in the root, nothing


def chroot(*cmd, **kw):
    return run("chroot", rootfs, *cmd, env=ENV, **kw)


p = chroot("/scc", "--check", "/s/plan_mode_exit.yaml")
check(p.returncode == 0, "chroot scc --check: %d %s" % (p.returncode, p.stderr[:300]))
p = chroot("/scc", "-o", "/s/plan.scb", "/s/plan_mode_exit.yaml")
check(p.returncode == 0, "chroot scc -o: %d %s" % (p.returncode, p.stderr[:300]))
p = chroot("/scvm", "run", "--allow-skipped", "/s/plan.scb")
check(p.returncode == 0 and '"kind":"status"' in p.stdout, "chroot scvm run: %d %s %s"
      % (p.returncode, p.stdout[:200], p.stderr[:300]))
p = chroot("/scc", "-o", "/s/echo.scb", "/s/echo.yaml")
check(p.returncode == 0, "chroot scc -o echo: %d %s" % (p.returncode, p.stderr[:300]))

# ---- serve llm on loopback, asked from outside the root ----
for listen in ("127.0.0.1:0", "localhost:0"):
    srv = subprocess.Popen(["chroot", rootfs, "/scvm", "serve", "llm", "--loop", "--listen", listen, "/s/plan.scb"],
                           env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           stdin=subprocess.DEVNULL)
    try:
        line = srv.stdout.readline()
        m = re.search(r"listening on http://(127\.0\.0\.1:\d+)", line)
        if check(m is not None, "serve llm --listen %s: %r %s" % (listen, line, srv.stderr.read() if srv.poll() else "")):
            with urllib.request.urlopen("http://%s/__scvm/requests" % m.group(1), timeout=30) as r:
                body = r.read().decode()
                check(r.status == 200 and body.startswith("{"), "GET /__scvm/requests: %d %r" % (r.status, body[:200]))
    finally:
        srv.terminate()
        try:
            srv.wait(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()
            check(False, "serve llm did not end on SIGTERM")
# A host name needs the name service, which a static binary in an empty root has not.
p = chroot("/scvm", "serve", "llm", "--listen", "host.invalid:0", "/s/plan.scb", timeout=60)
check(p.returncode == 3 and "cannot listen on host.invalid:0" in p.stderr,
      "serve llm --listen host.invalid:0 in the root: %d %r" % (p.returncode, p.stderr[:300]))

# ---- -t pty with the static program: a terminal needs /dev/pts, /dev/null and /proc, mounted privately ----
script = ('set -e; R="$1"; mkdir -p "$R/dev/pts" "$R/proc"; '
          'mount -t devpts -o newinstance,ptmxmode=0666 devpts "$R/dev/pts"; ln -sf pts/ptmx "$R/dev/ptmx"; '
          'mount -t proc proc "$R/proc"; touch "$R/dev/null"; mount --bind /dev/null "$R/dev/null"; '
          'exec chroot "$R" /scvm run -t pty /s/echo.scb')
p = run("unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh", rootfs, env=ENV, timeout=300)
check(p.returncode == 0 and "hello static" in p.stdout + p.stderr,
      "chroot scvm run -t pty with a static program: %d %s %s" % (p.returncode, p.stdout[-500:], p.stderr[-800:]))
mounts = open("/proc/self/mounts").read()
check(rootfs not in mounts, "mounts of the root left behind: %s" % [l for l in mounts.splitlines() if rootfs in l])

print("static_test: %d failures" % len(failures))
sys.exit(1 if failures else 0)
