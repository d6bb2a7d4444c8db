#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""prompt_agree.py SCC SCVM MATCH_PROMPT WORK - one prompt matcher.

`scvm ls --prompt`, `scvm run --prompt`, `scvm serve llm` (routing a
request by its last user message) and the C API's scc_match_prompt
(MATCH_PROMPT, tests/pack/match_prompt.c) must pick the same scenario for
the same text, also when the prompts are longer than the 1024 code points
they are compared on (docs/scvm.md, "Selection").  Exit 0 or 1.
"""
import json, os, shutil, signal, subprocess, sys, urllib.request

SCC, SCVM, MATCH, WORK = sys.argv[1:5]
D = os.path.join(WORK, "prompt_agree")
shutil.rmtree(D, ignore_errors=True)
os.makedirs(os.path.join(D, "s"))
fails = []


def check(c, msg):
    if not c:
        fails.append(msg)
        print("FAIL:", msg)


def run(*args, **kw):
    p = subprocess.run([str(a) for a in args], capture_output=True, timeout=60, **kw)
    if p.returncode != 0:
        sys.exit(f"FAIL: {args} -> {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p.stdout.decode()


SCEN = """name: {name}
timeline:
  - userInputs:
      - [100, "{prompt}"]
  - llmResponse:
      - assistant:
          - [300, "ok {name}"]
"""
# 1100 code points of two-byte and one-byte characters, so a cut in bytes
# or in the middle of a character would show.
LONG = ("Ünïcödé prompt " * 80)[:1100]
SHORT = "A short prompt that differs at the end, "
cases = {
    # differ after code point 1024: equal once cut, the tie goes to the first
    "long": (LONG + " alpha", LONG + " beta", LONG + " beta", "a_long"),
    # differ within the cut: the nearer one
    "short": (SHORT + "alpha", SHORT + "beta", SHORT + "beta", "b_short"),
}
for key, (pa, pb, _, _) in cases.items():
    for name, prompt in (("a_" + key, pa), ("b_" + key, pb)):
        with open(os.path.join(D, "s", name + ".yaml"), "w", encoding="utf-8") as f:
            f.write(SCEN.format(name=name, prompt=prompt))

for key, (pa, pb, text, want) in cases.items():
    scp = os.path.join(D, key + ".scp")
    run(SCC, "--pack", "-o", scp, *[os.path.join(D, "s", n + "_" + key + ".yaml") for n in ("a", "b")])
    got_ls = [json.loads(l)["name"] for l in run(SCVM, "ls", "--json", "--prompt", text, scp).splitlines()]
    check(got_ls == [want], f"{key}: scvm ls --prompt -> {got_ls}, expected {want}")
    head = json.loads(run(SCVM, "run", "--prompt", text, scp).splitlines()[0])
    check(head["name"] == want, f"{key}: scvm run --prompt -> {head['name']}")
    got_api = run(MATCH, scp, input=text.encode()).strip()
    check(got_api == want, f"{key}: scc_match_prompt -> {got_api}")
    srv = subprocess.Popen([SCVM, "serve", "llm", "--listen", "127.0.0.1:0", "--speed", "0", "--quiet", scp],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = srv.stdout.readline().decode()
        check(line.startswith("listening on http://"), f"{key}: serve said {line!r}")
        url = line.split()[-1] + "/v1/chat/completions"
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]}).encode()
        req = urllib.request.Request(url, body, {"Content-Type": "application/json", "Authorization": "Bearer " + key})
        with urllib.request.urlopen(req, timeout=30) as r:
            content = json.load(r)["choices"][0]["message"]["content"]
        check(content == "ok " + want, f"{key}: serve routed to {content!r}")
    finally:
        srv.send_signal(signal.SIGTERM)
        srv.communicate(timeout=30)

print("prompt_agree:", "ok" if not fails else f"{len(fails)} failures")
sys.exit(1 if fails else 0)
