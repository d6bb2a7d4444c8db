#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""version.py SCC SCVM ROOT VERSION WORK - one version, printed alike:

- `scc --version` and `scvm --version` (and `-v`, `-V`) print the same
  text but for the program's name, starting "PROG (scc) VERSION" where
  VERSION is the CMake project's (the only place it is written);
- the formats they name are what they do: a compiled stdlib scenario's
  header has the bytecode major and a minor no higher than the one
  printed, a pack's header the pack version printed; a file with the
  highest minor they say they read is read, one minor more is refused
  (exit 4), for .scb and .scp alike;
- the license named is LICENSE's;
- CHANGELOG.md's newest entry is this version, and entries go newest first.
Exit 0, or 1 listing every failure."""
import os
import re
import shutil
import struct
import subprocess
import sys

scc, scvm, root = map(os.path.abspath, sys.argv[1:4])
version, work = sys.argv[4], os.path.abspath(sys.argv[5])
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=work)


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)

texts = {}
for prog, short in ((scc, "-v"), (scvm, "-V")):
    name = os.path.basename(prog)
    p = run(prog, "--version")
    check(p.returncode == 0 and p.stderr == "", "%s --version: %d %s" % (name, p.returncode, p.stderr))
    q = run(prog, short)
    check(q.stdout == p.stdout and q.returncode == 0, "%s %s differs from --version" % (name, short))
    check(p.stdout.startswith("%s (scc) %s\n" % (name, version)),
          "%s --version does not start '%s (scc) %s': %r" % (name, name, version, p.stdout[:80]))
    texts[name] = p.stdout[len(name):]
check(texts["scc"] == texts["scvm"], "scc and scvm print different versions: %r vs %r" % (texts["scc"], texts["scvm"]))

text = texts["scc"]
m = re.search(r"^bytecode (\d+)\.(\d+) \(reads \1\.0 to \1\.(\d+)\), pack (\d+)\.(\d+) \(reads \4\.0(?: to \4\.(\d+))?\)$",
              text, re.M)
check(m is not None, "no bytecode and pack line in %r" % text)
lic = re.search(r"^license (\S+)$", text, re.M)
check(lic and open(os.path.join(root, "LICENSE")).read().startswith(lic.group(1) + " License"),
      "the license printed is not LICENSE's: %r" % text)

if m:
    bc_major, bc_minor, bc_reads = int(m.group(1)), int(m.group(2)), int(m.group(3))
    pk_major, pk_minor = int(m.group(4)), int(m.group(5))
    pk_reads = int(m.group(6)) if m.group(6) else 0
    check(bc_reads == bc_minor and pk_reads == pk_minor, "reads a minor other than the one it writes: %r" % text)

    # Every stdlib scenario: the header's version is the one printed.
    std = os.path.join(root, "stdlib-scenarios")
    minors = set()
    for f in sorted(os.listdir(std)):
        if not f.endswith(".yaml"):
            continue
        out = os.path.join(work, f[:-5] + ".scb")
        p = run(scc, "-o", out, os.path.join(std, f))
        check(p.returncode == 0, "scc %s: %s" % (f, p.stderr[:200]))
        if p.returncode == 0:
            major, minor = struct.unpack_from("<HH", open(out, "rb").read(), 8)
            check(major == bc_major and minor <= bc_minor, "%s is bytecode %d.%d, --version says %d.%d"
                  % (f, major, minor, bc_major, bc_minor))
            minors.add(minor)
    check(len(minors) > 0, "no scenario compiled")

    pack = os.path.join(work, "suite.scp")
    p = run(scc, "--pack", "-o", pack, std)
    check(p.returncode == 0, "scc --pack: %s" % p.stderr[:200])

    def patched(src, dst, minor):
        data = bytearray(open(src, "rb").read())
        struct.pack_into("<H", data, 10, minor)
        open(dst, "wb").write(data)
        return dst

    scb = os.path.join(work, "plan_mode_exit.scb")
    for src, ext, minor in ((scb, "scb", bc_minor), (pack, "scp", pk_minor)):
        if not os.path.exists(src):
            continue
        if ext == "scp":
            major, got = struct.unpack_from("<HH", open(src, "rb").read(), 8)
            check((major, got) == (pk_major, pk_minor), "the pack is %d.%d, --version says %d.%d"
                  % (major, got, pk_major, pk_minor))
        ok = run(scvm, "verify", patched(src, os.path.join(work, "top." + ext), minor))
        check(ok.returncode == 0, "a .%s of minor %d (the highest --version says it reads) is refused: %s"
              % (ext, minor, ok.stderr[:200]))
        bad = run(scvm, "verify", patched(src, os.path.join(work, "next." + ext), minor + 1))
        check(bad.returncode == 4, "a .%s of minor %d (one more than --version says) is not refused: %d %s"
              % (ext, minor + 1, bad.returncode, bad.stderr[:200]))

# CHANGELOG.md: the newest entry is this version; entries newest first.
log = open(os.path.join(root, "CHANGELOG.md"), encoding="utf-8").read()
heads = re.findall(r"^## \[?(\d+\.\d+\.\d+|Unreleased)\]?", log, re.M)
released = [h for h in heads if h != "Unreleased"]
check(released[:1] == [version], "CHANGELOG.md's newest release is %s, the project is %s" % (released[:1], version))
key = [tuple(map(int, h.split("."))) for h in released]
check(key == sorted(key, reverse=True), "CHANGELOG.md's releases are not newest first: %s" % released)
check("Unreleased" not in heads or heads[0] == "Unreleased", "CHANGELOG.md: Unreleased is not on top")

print("version: %d failures" % len(failures))
sys.exit(1 if failures else 0)
