#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Doc examples are tests.  In docs/*.md a fenced block

    ```yaml example=NAME [args="-D x=1"]
    ...scenario...
    ```

is compiled with scc; a later block ```jsonl events=NAME``` must equal the
`scvm run` output exactly, ```text listing=NAME``` the `scc -l` output, and
```text diagnostics=NAME``` the diagnostics of `scc --check` (exit 1 when
they contain an error), ```text pack=NAME``` the `scvm ls` of what
`scc --pack` makes of it, and ```html schedule=NAME``` must be found, as
written, in the page `scc -l --html` draws (and `scvm report` draws the same
page from the compiled .scb).  Referenced files live next to the docs.
usage: check_docs.py SCC SCVM DOCS_DIR [--update]
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)


def attrs(s):
    return dict((k, v.strip('"')) for k, v in re.findall(r'(\w+)=("[^"]*"|\S+)', s))


def main():
    scc, scvm, docs = sys.argv[1:4]
    update = "--update" in sys.argv
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for md in sorted(f for f in os.listdir(docs) if f.endswith(".md")):
            path = os.path.join(docs, md)
            text = open(path, encoding="utf-8").read()
            examples = {}
            new_text = text
            for m in FENCE.finditer(text):
                lang, a, body = m.group(1), attrs(m.group(2)), m.group(3)
                if "example" in a:
                    name = a["example"]
                    src = os.path.join(tmp, name + ".yaml")
                    with open(src, "w", encoding="utf-8") as f:
                        f.write(body)
                    examples[name] = (src, shlex.split(a.get("args", "")))
                    continue
                for kind in ("events", "listing", "diagnostics", "schedule", "pack"):
                    if kind not in a:
                        continue
                    name = a[kind]
                    if name not in examples:
                        print("FAIL %s: %s=%s before its example" % (md, kind, name))
                        failed += 1
                        continue
                    src, args = examples[name]
                    out = os.path.join(tmp, name + ".scb")
                    if kind == "pack":
                        p = subprocess.run([scc, "--pack"] + args + ["-o", out, os.path.basename(src)], cwd=tmp,
                                           capture_output=True, text=True, timeout=30)
                        p2 = subprocess.run([scvm, "ls", out], capture_output=True, text=True, timeout=30)
                        got = p2.stdout
                        ok_rc = p.returncode == 0 and p2.returncode == 0
                    elif kind == "diagnostics":
                        p = subprocess.run([scc, "--check", "--color=never"] + args + [os.path.basename(src)],
                                           cwd=tmp, capture_output=True, text=True, timeout=30)
                        got = p.stderr
                        ok_rc = p.returncode == (1 if ": error: " in got else 0)
                    else:
                        p = subprocess.run([scc] + args + ["-o", out, src], capture_output=True, text=True, timeout=30)
                        ok_rc = p.returncode == 0
                        if kind == "listing":
                            p2 = subprocess.run([scc, "-l"] + args + [os.path.basename(src)], cwd=tmp,
                                                capture_output=True, text=True, timeout=30)
                            got = p2.stdout
                        elif kind == "schedule":
                            p2 = subprocess.run([scc, "-l", "--html"] + args + [os.path.basename(src)], cwd=tmp,
                                                capture_output=True, text=True, timeout=30)
                            page = p2.stdout
                            p3 = subprocess.run([scvm, "report", out], capture_output=True, text=True, timeout=30)
                            ok_rc = ok_rc and p2.returncode == 0 and p3.returncode == 0
                            if p3.stdout.replace(os.path.basename(src), "") != page.replace(os.path.basename(src), ""):
                                ok_rc = False
                                print("scvm report %s draws another page than scc -l --html" % out)
                            got = body if body in page else page
                        else:
                            p2 = subprocess.run([scvm, "run", out], capture_output=True, text=True, timeout=30)
                            got = p2.stdout
                            ok_rc = ok_rc and p2.returncode == 0
                    if update:
                        new_text = new_text.replace(m.group(0), "```%s%s\n%s```" % (lang, m.group(2), got), 1)
                        continue
                    if got != body or not ok_rc:
                        failed += 1
                        print("FAIL %s: %s=%s differs (exit ok: %s)\n--- doc\n%s--- got\n%s%s" % (
                            md, kind, name, ok_rc, body, got, p.stderr if kind != "diagnostics" else ""))
                    else:
                        passed += 1
            if update and new_text != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new_text)
                print("updated", md)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
