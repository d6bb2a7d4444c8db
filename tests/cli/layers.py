#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""layers.py ROOT - the folders are layers (README, "Layout").

Every #include "X/..." in common/ formats/ compiler/ vm/ runtime/ tools/
lib/ must name a folder its own folder may use:

    common   <- formats <- compiler, vm, runtime <- tools, lib

with vm/ allowed runtime/ (the target interface it drives) and runtime/
allowed vm/ never, compiler/ never vm/ or runtime/.  A bare include
("name.h") must name a file in the including file's own folder.

tools/ parses arguments and calls the layers: it starts no process, thread
or wait of its own (fork, exec*, wait*, posix_spawn, system, popen,
pthread_create).  Running suites, servers, agents and replays is the run
library's (runtime/run/, docs/architecture.md).  The one exception is the
progress line's drawing thread (tools/scvm/progress.c): terminal UI, not
run machinery.

Exit 0, or 1 listing every include that crosses a layer the wrong way and
every call tools/ must not make.
"""
import os, re, sys

ROOT = sys.argv[1]
ALLOWED = {
    "common": {"common"},
    "formats": {"common", "formats"},
    "compiler": {"common", "formats", "compiler"},
    "vm": {"common", "formats", "vm", "runtime"},
    "runtime": {"common", "formats", "runtime"},
    "tools": {"common", "formats", "compiler", "vm", "runtime", "tools"},
    "lib": {"common", "formats", "vm", "runtime", "lib"},
}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PROC = re.compile(r'\b(fork|vfork|execv|execvp|execve|execvpe|execl|execlp|execle|wait|waitpid|waitid|'
                  r'posix_spawnp?|system|popen|pthread_create)\s*\(')
PROC_OK = {os.path.join("tools", "scvm", "progress.c"): {"pthread_create"}}
bad, seen = [], 0
for top in ALLOWED:
    for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, ROOT)
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            if top == "tools":
                for m in PROC.finditer(text):
                    if m.group(1) not in PROC_OK.get(rel, ()):
                        line = text.count("\n", 0, m.start()) + 1
                        bad.append(f"{rel}:{line}: tools/ must not call {m.group(1)}() (the run library's job)")
            for inc in INC.findall(text):
                seen += 1
                if "/" not in inc:
                    if not os.path.exists(os.path.join(dirpath, inc)):
                        bad.append(f"{rel}: bare include \"{inc}\" is not in its folder")
                    continue
                folder = inc.split("/", 1)[0]
                if folder in ALLOWED and folder not in ALLOWED[top]:
                    bad.append(f"{rel}: {top}/ must not include \"{inc}\"")
for b in bad:
    print("FAIL:", b)
print(f"layers: {seen} includes checked, {len(bad)} crossing a layer the wrong way or running processes in tools/")
sys.exit(1 if bad or not seen else 0)
