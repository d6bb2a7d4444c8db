#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""options_cli.py SCC SCVM ROOT SHARE [--update] - what is made from the
option tables (common/cliopt.h) is what the programs accept:

- docs/scc.md and docs/scvm.md carry `--generate=markdown` between their
  `<!-- options:begin -->` and `<!-- options:end -->` markers, byte for
  byte (--update rewrites them);
- every option those lists name, for every command, is taken by the parser
  (none is "unknown" or "another command's");
- the man pages (SHARE/man/man1) render with groff without a warning and
  name every option;
- the bash completion completes commands, options and choices, serve's
  servers, scvm's agent profiles (as `scvm agents` lists them) and file
  arguments by extension; the zsh one parses and hands _arguments a spec
  per option and argument; the fish one completes the same words through
  `complete -C`;
- scenario-format(5) renders and names every key, event, tool, dialect
  and warning of the compiler's tables.
Exit 0, or 1 listing every failure."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

scc, scvm, root, share = map(os.path.abspath, sys.argv[1:5])
update = "--update" in sys.argv[5:]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def out(*cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, **kw)


# ---- the docs' lists ----
BEGIN, END = "<!-- options:begin -->\n", "<!-- options:end -->\n"
md = {}
for prog, doc in ((scc, "docs/scc.md"), (scvm, "docs/scvm.md")):
    name = os.path.basename(prog)
    gen = out(prog, "--generate=markdown")
    check(gen.returncode == 0 and gen.stderr == "", "%s --generate=markdown: %d %s" % (name, gen.returncode, gen.stderr))
    md[name] = gen.stdout
    path = os.path.join(root, doc)
    text = open(path, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        check(False, "%s has no %s ... %s markers" % (doc, BEGIN.strip(), END.strip()))
        continue
    head, rest = text.split(BEGIN, 1)
    now, tail = rest.split(END, 1)
    if now != gen.stdout:
        if update:
            open(path, "w", encoding="utf-8").write(head + BEGIN + gen.stdout + END + tail)
            print("updated", doc)
        else:
            check(False, "%s's option list is not %s --generate=markdown (run this test with --update)" % (doc, name))

# ---- every listed option is taken ----
VALUES = {"N": "1", "MS": "1000", "BYTES": "1024", "X": "1", "I/N|auto": "1/1", "ADDR:PORT": "127.0.0.1:0",
          "NAME[=VALUE]": "K=1", "NAME:DEFS": "v:K=1", "KIND": "spec", "FORMAT": "text", "WHEN": "never",
          "HOW": "http", "NAME": "sim"}
work = tempfile.mkdtemp(prefix="options-cli-")
ROW = re.compile(r"^\| (`[^|]*`(?:, `[^|]*`)*) \|")
n_opts = 0
for name, prog in (("scc", scc), ("scvm", scvm)):
    cmd = None
    for line in md[name].splitlines():
        m = re.match(r"^### `%s ?([a-z-]*)`" % name, line)
        if m:
            cmd = m.group(1)
            continue
        m = ROW.match(line)
        if not m or cmd is None:
            continue
        for spelling in re.findall(r"`([^`]+)`", m.group(1)):
            opt, _, arg = spelling.partition(" ")
            if opt in ("--help", "-h", "--generate"):
                continue
            if opt.endswith("-") and arg == "" and "NAME" in opt:
                continue
            words = [opt] if not arg else [opt, VALUES.get(arg, "v")]
            if opt.startswith("-Wno-"):
                words = ["-Wno-unknown-key"]
            argv = [prog] + ([cmd] if cmd else []) + (["llm"] if cmd == "serve" else []) + words
            p = out(*argv, cwd=work)
            n_opts += 1
            bad = re.search(r"unknown option|takes no option|needs a value|takes no value", p.stderr)
            check(not bad, "%s: the parser refuses an option its table lists: %s" % (" ".join(argv[1:]), p.stderr[:200]))
check(n_opts > 150, "options tried: %d" % n_opts)
shutil.rmtree(work)

# ---- the warnings: every name the compiler uses is in compiler/warnings.h (so -Wno- takes it) ----
known = set(re.findall(r'X\("([a-z-]+)", "', open(os.path.join(root, "compiler", "warnings.h")).read()))
used = set()
for dp, _, fs in os.walk(os.path.join(root, "compiler")):
    for f in fs:
        if f.endswith(".c"):
            src = open(os.path.join(dp, f), encoding="utf-8").read()
            used |= set(re.findall(r'\b(?:at_|fe_)?warn\([^,()]+, "([a-z-]+)"', src))
            used |= set(re.findall(r'\.compat = "([a-z-]+)"', src))
            used |= set(re.findall(r'diag_warn\([^,]+, "([a-z-]+)"', src))
check(len(used) >= 8 and used <= known, "warnings the compiler gives that -Wno- does not know: %s" % sorted(used - known))
check(known <= used, "warnings.h names warnings the compiler never gives: %s" % sorted(known - used))
for w in sorted(known):
    p = out(scc, "--check", "-Wno-" + w, os.path.join(root, "stdlib-scenarios", "plan_mode_exit.yaml"))
    check(p.returncode == 0, "-Wno-%s refused: %s" % (w, p.stderr[:200]))
p = out(scc, "--check", "-Wno-unknwn-key", os.path.join(root, "stdlib-scenarios", "plan_mode_exit.yaml"))
check(p.returncode == 2 and "did you mean -Wno-unknown-key?" in p.stderr, "-Wno-unknwn-key: %s" % p.stderr[:200])

# ---- man pages ----
for name in ("scc", "scvm"):
    page = os.path.join(share, "man", "man1", name + ".1")
    g = out("groff", "-man", "-Tutf8", "-ww", "-z", page)
    check(g.returncode == 0 and g.stderr == "", "%s.1: groff warns: %s" % (name, g.stderr[:300]))
    text = out("groff", "-man", "-Tutf8", "-P", "-c", page).stdout
    text = re.sub(r".\x08", "", text).replace("\u2010", "-")
    for must in ("NAME", "SYNOPSIS", "OPTIONS", "EXIT STATUS"):
        check(must in text, "%s.1 lacks %s" % (name, must))
    names = set(re.findall(r"`(--?[A-Za-z][A-Za-z0-9-]*)", md[name]))
    missing = sorted(n for n in names if n not in text)
    check(not missing, "%s.1 lacks %s" % (name, missing[:10]))

# ---- scenario-format(5): made from the compiler's tables, it names every key, event, tool, dialect, warning ----
page = os.path.join(share, "man", "man5", "scenario-format.5")
gen = out(scc, "--generate=scenario-man")
check(gen.returncode == 0 and open(page).read() == gen.stdout, "scenario-format.5 is not scc --generate=scenario-man")
g = out("groff", "-man", "-Tutf8", "-ww", "-z", page)
check(g.returncode == 0 and g.stderr == "", "scenario-format.5: groff warns: %s" % g.stderr[:300])
text = re.sub(r".\x08", "", out("groff", "-man", "-Tutf8", "-P", "-c", page).stdout).replace("\u2010", "-")
lower = open(os.path.join(root, "compiler", "lower.c"), encoding="utf-8").read()
events = re.findall(r'^    \{ "([A-Za-z]+)", lower_', lower, re.M)
top = re.findall(r'^    \{ "([A-Za-z]+)", "', lower[lower.index("TOP[] = {"):], re.M)
tools = re.findall(r'^    \{ "([A-Za-z]+)", \{', open(os.path.join(root, "compiler", "lower_content.c")).read(), re.M)
dialects = re.findall(r'^    \{ "([a-z-]+)", [a-z_A-Z]+, ', open(os.path.join(root, "compiler", "compile.c")).read(), re.M)
check(len(events) > 20 and len(top) > 10 and len(tools) > 15 and len(dialects) >= 4 and len(known) >= 8,
      "scenario-format: the tables were not found (%d events, %d keys, %d tools, %d dialects)"
      % (len(events), len(top), len(tools), len(dialects)))
for kind, names in (("event", events), ("top-level key", top), ("tool", tools), ("dialect", dialects),
                    ("warning", sorted(known))):
    missing = [n for n in names if not re.search(r"(^|\W)%s(\W|$)" % re.escape(n), text)]
    check(not missing, "scenario-format.5 lacks the %ss %s" % (kind, missing))
for must in ("NAME", "SYNOPSIS", "TOP-LEVEL KEYS", "TIMELINE EVENTS", "SEE ALSO"):
    check(must in text, "scenario-format.5 lacks %s" % must)

# ---- bash ----
# A folder of files to complete among, and the programs on PATH (the
# completions ask scvm for its agent profiles).
files = tempfile.mkdtemp(prefix="options-cli-files-")
for f in ("a.scb", "b.scp", "c.txt", "d.yaml", "e.json", "f.jsonl", "g.yml", "h.xml"):
    open(os.path.join(files, f), "w").close()
os.mkdir(os.path.join(files, "sub"))
ENV = dict(os.environ, PATH=os.path.dirname(scvm) + os.pathsep + os.environ.get("PATH", ""))


def bash_complete(prog, words, cword):
    script = os.path.join(share, "bash-completion", "completions", prog)
    arr = " ".join("'%s'" % w for w in words)
    p = out("bash", "--norc", "-c", 'source "$1"; COMP_WORDS=(%s); COMP_CWORD=%d; _%s; printf "%%s\\n" "${COMPREPLY[@]}"'
            % (arr, cword, prog), "bash", script, cwd=files, env=ENV)
    check(p.returncode == 0 and p.stderr == "", "bash completion of %s: %s" % (words, p.stderr[:200]))
    return [w for w in p.stdout.splitlines() if w]


check(bash_complete("scvm", ["scvm", "run", "--jun"], 2) == ["--junit"], "bash: scvm run --jun")
check(bash_complete("scvm", ["scvm", "run", "-t", ""], 3) == ["sim", "pty", "agent", "aut"], "bash: scvm run -t")
check(bash_complete("scvm", ["scvm", "se"], 1) == ["serve"], "bash: scvm se")
check("--max-connections" in bash_complete("scvm", ["scvm", "serve", "--max"], 2), "bash: scvm serve --max")
check("--junit" not in bash_complete("scvm", ["scvm", "serve", "--j"], 2), "bash: serve offers run's --junit")
check(bash_complete("scc", ["scc", "--diag"], 1) == ["--diagnostics-format"], "bash: scc --diag")
check(bash_complete("scc", ["scc", "--dialect", "y"], 2) == ["yao"], "bash: scc --dialect y")
# serve's servers, the agent profiles (as scvm agents lists them), files by extension
check(bash_complete("scvm", ["scvm", "serve", ""], 2) == ["llm", "acp", "harness", "rest"], "bash: scvm serve")
SOURCES_AND_COMPILED = ["a.scb", "b.scp", "d.yaml", "e.json", "f.jsonl", "g.yml", "sub"]
check(sorted(bash_complete("scvm", ["scvm", "serve", "llm", ""], 3)) == SOURCES_AND_COMPILED,
      "bash: scvm serve llm FILE: %s" % bash_complete("scvm", ["scvm", "serve", "llm", ""], 3))
check(sorted(bash_complete("scvm", ["scvm", "run", "--junit", "r.xml", ""], 4)) == SOURCES_AND_COMPILED,
      "bash: scvm run --junit r.xml FILE")
check(bash_complete("scvm", ["scvm", "verify", ""], 2) == ["a.scb", "b.scp", "sub"], "bash: scvm verify FILE")
agents = [l.split()[0] for l in out(scvm, "agents").stdout.splitlines() if l.strip()]
check(len(agents) >= 5 and bash_complete("scvm", ["scvm", "run", "--agent", ""], 3) == agents + ["e.json"],
      "bash: scvm run --agent: %s" % bash_complete("scvm", ["scvm", "run", "--agent", ""], 3))
check(bash_complete("scvm", ["scvm", "serve", "--agent", "cl"], 3) == ["claude-code"], "bash: scvm serve --agent cl")
check(sorted(bash_complete("scc", ["scc", ""], 1)) == ["d.yaml", "e.json", "f.jsonl", "g.yml", "sub"], "bash: scc FILE")
check(bash_complete("scvm", ["scvm", "agents", ""], 2) == ["list", "show", "map", "unmap"], "bash: scvm agents")
check(bash_complete("scvm", ["scvm", "replay", ""], 2) == ["sub"], "bash: scvm replay DIR")

# ---- zsh: it parses, and hands _arguments a spec per option ----
zscript = os.path.join(share, "zsh", "site-functions", "_scvm")
for f in (zscript, os.path.join(share, "zsh", "site-functions", "_scc")):
    p = out("zsh", "-n", f)
    check(p.returncode == 0 and p.stderr == "", "zsh -n %s: %s" % (f, p.stderr[:200]))
stub = ('_arguments() { print -rl -- "$@" }; _describe() { print -rl -- "${(@P)4}" }; _files() { }; '
        'source "$1"; words=(scvm run x); CURRENT=3; _scvm; words=(scvm r); CURRENT=2; _scvm')
p = out("zsh", "-f", "-c", stub, "zsh", zscript)
check(p.returncode == 0, "zsh: _scvm with stubs: %s" % p.stderr[:300])
check("--junit=[write a JUnit XML report]:FILE:_files" in p.stdout.splitlines(), "zsh: --junit's spec")
check("--target=[target to drive: sim (the default); pty: a real program in a pseudo-terminal (docs/pty.md; one "
      ".scb); after FILE, '-- CMD ARGS...' names the program; agent: a real coding agent against the scripted model "
      "(docs/real-agents.md); aut: an ElizaOS or Yao suite against the agent (docs/aut.md)]:NAME:(sim pty agent aut)"
      in p.stdout.splitlines(), "zsh: --target's spec")
check(any(l.startswith("run:play the scenarios") for l in p.stdout.splitlines()), "zsh: the commands")
check("*:file:_files -g \"*.(scb|scp|yaml|yml|json|jsonl)\"" in p.stdout.splitlines(), "zsh: run's files by extension")
check(any(l.startswith("--agent=[") and l.endswith(":NAME|FILE:_scvm_listed") for l in p.stdout.splitlines()),
      "zsh: --agent's profiles")
stub = ('compadd() { shift; print -rl -- "${(@P)1}" }; _files() { }; source "$1"; words=(scvm run --agent ""); '
        'CURRENT=4; prog=scvm; _scvm_listed')
p = out("zsh", "-f", "-c", stub, "zsh", zscript, env=ENV)
check(p.stdout.split() == agents, "zsh: _scvm_listed: %r %s" % (p.stdout, p.stderr[:200]))

# ---- fish ----
fscript = os.path.join(share, "fish", "vendor_completions.d", "scvm.fish")
p = out("fish", "--no-execute", fscript)
check(p.returncode == 0 and p.stderr == "", "fish --no-execute: %s" % p.stderr[:200])


def fish_complete(script, line):
    p = out("fish", "--no-config", "-c", 'source $argv[1]; complete -C "%s"' % line, script, cwd=files, env=ENV)
    check(p.returncode == 0, "fish: %s: %s" % (line, p.stderr[:200]))
    return [l.split("\t")[0] for l in p.stdout.splitlines()]


check(fish_complete(fscript, "scvm run --jun") == ["--junit"], "fish: scvm run --jun")
check(sorted(fish_complete(fscript, "scvm run -t ")) == ["agent", "aut", "pty", "sim"], "fish: scvm run -t")
check("serve" in fish_complete(fscript, "scvm se"), "fish: scvm se")
check(fish_complete(os.path.join(share, "fish", "vendor_completions.d", "scc.fish"), "scc --diag")
      == ["--diagnostics-format"], "fish: scc --diag")
check(sorted(fish_complete(fscript, "scvm serve ")) == sorted(["acp", "harness", "llm", "rest", "sub/"] + SOURCES_AND_COMPILED[:-1]),
      "fish: scvm serve: %s" % fish_complete(fscript, "scvm serve "))
check(sorted(fish_complete(fscript, "scvm dis ")) == ["a.scb", "b.scp", "sub/"], "fish: scvm dis: %s"
      % fish_complete(fscript, "scvm dis "))
check(sorted(fish_complete(fscript, "scvm run --agent ")) == sorted(agents + ["e.json", "sub/"]),
      "fish: scvm run --agent: %s" % fish_complete(fscript, "scvm run --agent "))
check(sorted(fish_complete(os.path.join(share, "fish", "vendor_completions.d", "scc.fish"), "scc "))
      == ["d.yaml", "e.json", "f.jsonl", "g.yml", "sub/"], "fish: scc FILE")
shutil.rmtree(files)

print("options_cli: %d options tried, %d failures" % (n_opts, len(failures)))
sys.exit(1 if failures else 0)
