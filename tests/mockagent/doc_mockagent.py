#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""doc_mockagent.py - docs/mock-agent.md's examples as tests: each
```yaml example=NAME``` block is compiled by scc into NAME.scb in a fresh
folder, then tests/vm/doc_examples.py runs the page's ```console```
examples there, exactly as written.

usage: doc_mockagent.py SCC BINDIR DOC.md DOC_EXAMPLES.py WORKDIR
"""
import os
import re
import shutil
import subprocess
import sys

scc, bindir, doc, runner, work = sys.argv[1:6]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
text = open(doc, encoding='utf-8').read()
blocks = re.findall(r'^```yaml example=(\w+)\n(.*?)^```', text, re.S | re.M)
if not blocks:
    sys.exit('doc_mockagent.py: %s has no ```yaml example=NAME``` blocks' % doc)
for name, body in blocks:
    src = os.path.join(work, name + '.yaml')
    with open(src, 'w', encoding='utf-8') as f:
        f.write(body)
    p = subprocess.run([scc, '-o', os.path.join(work, name + '.scb'), src], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit('doc_mockagent.py: example %s does not compile:\n%s' % (name, p.stderr))
sys.exit(subprocess.run([sys.executable, runner, doc, bindir], cwd=work).returncode)
