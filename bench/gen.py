#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen.py - deterministic synthetic scenarios for the benchmarks.

The scenarios have the shapes and proportions of the real corpus
(../shared/corpus/agent-harbor, counted in notes/reference-semantics.md
section 10: llmResponse 83, agentToolUse 53, baseTimeDelta 21, status 18,
userInputs 14, screenshot 10, assert 8, agentEdits 6, log 2, agentPlan 2 per
~220 timeline items), plus a `rules` item now and then (the corpus has none,
the format does, and rules resolution is part of compiling).  Timing follows
docs/timing.md so every file compiles: userInputs times are absolute and
placed at the clock, and each baseTimeDelta covers its segment's inputs.

Output depends only on the arguments: a private xorshift generator (not
`random`, whose algorithms may change between Python versions) drives
everything.

    gen.py scenario --bytes N [--seed S] -o FILE    one scenario of ~N bytes
    gen.py set --dir DIR [--quick]                  the benchmark set:
        DIR/sizes/size-<N>.yaml   1 KB .. 1.5 MB (~12,000 timeline events)
        DIR/pack/s0000.yaml ...   1,000 corpus-sized scenarios (0.5-3 KB)
"""
import argparse
import os
import sys

WORDS = (
    "the test suite fails because refund client retries too fast when gateway "
    "returns 504 so we add jittered exponential backoff and rerun payments "
    "module config parser handles empty keys file path src lib main utils "
    "cache index build step lint type check import error missing symbol "
    "function returns wrong value off by one range upper bound inclusive "
    "update docs changelog version bump release branch merge conflict resolve "
    "database migration schema column nullable default timestamp request "
    "handler middleware auth token expired refresh session cookie header "
    "looks like should will then first next after before check read write"
).split()
TOOLS = ("runCmd", "Read", "Write", "Edit", "grep", "Bash", "Glob", "listDir")
FILES = ("src/main.py", "src/utils.py", "lib/parser.rs", "tests/test_api.py",
         "services/payments/retry.ts", "README.md", "Cargo.toml", "package.json")
STATUSES = ("thinking", "working", "running tests", "waiting", "reviewing")


class Rng:
    """xorshift64*: tiny, fast and the same everywhere."""

    def __init__(self, seed):
        self.s = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF or 1

    def next(self):
        s = self.s
        s ^= (s >> 12)
        s ^= (s << 25) & 0xFFFFFFFFFFFFFFFF
        s ^= (s >> 27)
        self.s = s
        return (s * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF

    def below(self, n):
        return (self.next() >> 11) % n

    def between(self, lo, hi):
        return lo + self.below(hi - lo + 1)

    def pick(self, seq):
        return seq[self.below(len(seq))]


def sentence(r, lo, hi):
    return " ".join(r.pick(WORDS) for _ in range(r.between(lo, hi)))


def q(s):
    """A single-quoted YAML scalar."""
    return "'" + s.replace("'", "''") + "'"


# (weight, kind): the corpus counts above, `complete` only at the end.
MIX = ((83, "llm"), (53, "tool"), (21, "delta"), (18, "status"), (14, "input"),
       (10, "shot"), (8, "assert"), (6, "edits"), (2, "log"), (2, "plan"),
       (2, "rules"))
MIX_TOTAL = sum(w for w, _ in MIX)


class Gen:
    def __init__(self, seed):
        self.r = Rng(seed)
        self.clock = 0          # the reference clock, docs/timing.md
        self.seg_start = 0      # start of the current baseTimeDelta segment
        self.seg_user = 0       # largest userInputs offset in the segment
        self.events = 0         # timeline items written
        self.out = []

    def w(self, s):
        self.out.append(s)

    # ---- one timeline item each; every one keeps self.clock exact ----

    def llm(self, ind):
        r = self.r
        self.w(f"{ind}- llmResponse:\n")
        if r.below(3) == 0:
            self.w(f"{ind}    - think:\n")
            t = r.between(100, 900)
            self.w(f"{ind}        - [{t}, {q(sentence(r, 2, 7))}]\n")
            self.clock += t
        self.w(f"{ind}    - assistant:\n")
        t = 0
        for _ in range(1 if r.below(4) else 2):
            t += r.between(100, 700)
            if r.below(2):
                self.w(f"{ind}        - [{t}, {q(sentence(r, 2, 8))}]\n")
            else:
                self.w(f"{ind}        - relativeTime: {t}\n")
                self.w(f"{ind}          content: {q(sentence(r, 2, 8))}\n")
        self.clock += t

    def tool(self, ind):
        r = self.r
        name = r.pick(TOOLS)
        self.w(f"{ind}- agentToolUse:\n{ind}    toolName: {name}\n")
        if r.below(2):
            self.w(f"{ind}    toolCallId: call-{self.events}\n")
        self.w(f"{ind}    args:\n")
        if name in ("runCmd", "Bash"):
            self.w(f"{ind}      cmd: {q(r.pick(('npm test', 'cargo test', 'make', 'pytest -q')) + ' ' + r.pick(WORDS))}\n")
        else:
            self.w(f"{ind}      path: {r.pick(FILES)}\n")
        shape = r.below(4)
        if shape == 0:          # progress steps (cumulative deltas)
            self.w(f"{ind}    progress:\n")
            for _ in range(r.between(1, 3)):
                d = r.between(50, 2000)
                self.clock += d
                self.w(f"{ind}      - [{d}, {q(sentence(r, 1, 4))}]\n")
        if shape == 1:          # toolExecution (offsets from its start)
            self.w(f"{ind}    toolExecution:\n{ind}      startTimeMs: 0\n{ind}      events:\n")
            t = 0
            for _ in range(r.between(1, 3)):
                t += r.between(20, 3000)
                self.w(f"{ind}        - {{type: {r.pick(('stdout', 'stdout', 'stderr'))}, "
                       f"timeMs: {t}, content: {q(sentence(r, 1, 5))}}}\n")
            t += r.between(10, 100)
            self.w(f"{ind}        - {{type: completion, timeMs: {t}, exitCode: {r.pick((0, 0, 0, 1))}}}\n")
            self.clock += t
        else:
            self.w(f"{ind}    result: {q(sentence(r, 1, 4))}\n")
            self.w(f"{ind}    status: {r.pick(('ok', 'ok', 'ok', 'error'))}\n")

    def delta(self, ind):
        d = max(self.r.between(200, 3000), self.seg_user)
        self.w(f"{ind}- baseTimeDelta: {d}\n")
        self.clock += d
        self.seg_start, self.seg_user = self.clock, 0

    def status(self, ind):
        self.w(f"{ind}- status: {q(self.r.pick(STATUSES))}\n")

    def input(self, ind):
        r = self.r
        self.w(f"{ind}- userInputs:\n")
        for _ in range(r.between(1, 2)):
            self.clock += r.between(0, 400)
            self.seg_user = max(self.seg_user, self.clock - self.seg_start)
            self.w(f"{ind}    - relativeTime: {self.clock}\n")
            self.w(f"{ind}      input: {q(sentence(r, 3, 10))}\n")

    def shot(self, ind):
        self.w(f"{ind}- screenshot: shot_{self.events}\n")

    def assert_(self, ind):
        r = self.r
        self.w(f"{ind}- assert:\n")
        if r.below(2):
            self.w(f"{ind}    fs:\n{ind}      exists: [{r.pick(FILES)}, {r.pick(FILES)}]\n")
        else:
            self.w(f"{ind}    text:\n{ind}      contains: [{q(r.pick(WORDS))}]\n")

    def edits(self, ind):
        r = self.r
        self.w(f"{ind}- agentEdits:\n{ind}    path: {r.pick(FILES)}\n")
        self.w(f"{ind}    linesAdded: {r.between(1, 80)}\n{ind}    linesRemoved: {r.between(0, 40)}\n")

    def log(self, ind):
        self.w(f"{ind}- log: {q(sentence(self.r, 3, 8))}\n")

    def plan(self, ind):
        r = self.r
        self.w(f"{ind}- agentPlan:\n{ind}    entries:\n")
        for _ in range(r.between(2, 3)):
            self.w(f"{ind}      - content: {q(sentence(r, 3, 8))}\n")
            self.w(f"{ind}        priority: {r.pick(('high', 'medium', 'low'))}\n")
            self.w(f"{ind}        status: {r.pick(('pending', 'in_progress', 'completed'))}\n")

    def rules(self, ind):
        # Both branches have the same timing, so the clock is right whatever
        # -D says; the benchmark compiles without -D (the default branch).
        r = self.r
        variant = r.pick(("fast", "slow", "staging"))
        t = r.between(100, 900)
        self.w(f"{ind}- rules:\n")
        for cond in (f"when: '$variant == \"{variant}\"'", "default: true"):
            self.w(f"{ind}    - {cond}\n{ind}      config:\n")
            self.w(f"{ind}        - llmResponse:\n{ind}            - assistant:\n")
            self.w(f"{ind}                - [{t}, {q(sentence(r, 3, 10))}]\n")
            self.w(f"{ind}        - status: {q(r.pick(STATUSES))}\n")
        self.clock += t

    def item(self):
        n = self.r.below(MIX_TOTAL)
        for weight, kind in MIX:
            if n < weight:
                break
            n -= weight
        getattr(self, "assert_" if kind == "assert" else kind)("  ")
        self.events += 1


def scenario(nbytes, seed):
    """A scenario of about nbytes (never much more), and its timeline size."""
    g = Gen(seed)
    r = g.r
    g.w("# Synthetic benchmark scenario (bench/gen.py); corpus proportions.\n")
    g.w(f"name: synthetic_{seed}_{nbytes}\n")
    g.w(f"tags: [bench, {r.pick(('cli', 'tui', 'acp'))}, synthetic]\n")
    g.w("repo:\n  init: true\n  branch: bench\n")
    g.w("timeline:\n")
    g.input("  ")
    g.events += 1
    tail = "  - complete: true\nexpect:\n  exitCode: 0\n"
    size = sum(len(s) for s in g.out) + len(tail)
    while True:
        mark = len(g.out)
        state = (g.r.s, g.clock, g.seg_start, g.seg_user, g.events)
        g.item()
        add = sum(len(s) for s in g.out[mark:])
        if size + add > nbytes and g.events > 2:
            del g.out[mark:]
            g.r.s, g.clock, g.seg_start, g.seg_user, g.events = state
            break
        size += add
    g.w(tail)
    return "".join(g.out), g.events + 1


SIZES = (1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1536 << 10)
QUICK_SIZES = (1 << 10, 16 << 10)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("scenario")
    a.add_argument("--bytes", type=int, required=True)
    a.add_argument("--seed", type=int, default=1)
    a.add_argument("-o", required=True)
    b = sub.add_parser("set")
    b.add_argument("--dir", required=True)
    b.add_argument("--quick", action="store_true", help="small sizes, 50-scenario pack")
    b.add_argument("--pack-count", type=int, default=None)
    o = ap.parse_args()
    if o.cmd == "scenario":
        text, n = scenario(o.bytes, o.seed)
        write(o.o, text)
        print(f"{o.o}: {len(text)} bytes, {n} timeline items", file=sys.stderr)
        return
    sizes = QUICK_SIZES if o.quick else SIZES
    count = o.pack_count if o.pack_count is not None else (50 if o.quick else 1000)
    os.makedirs(os.path.join(o.dir, "sizes"), exist_ok=True)
    os.makedirs(os.path.join(o.dir, "pack"), exist_ok=True)
    for n in sizes:
        text, items = scenario(n, 7)
        write(os.path.join(o.dir, "sizes", f"size-{n}.yaml"), text)
    r = Rng(4242)
    for i in range(count):
        # corpus files the reference loads are 0.5-3.2 KB, most near 1 KB
        n = r.between(500, 1500) if r.below(4) else r.between(1500, 3200)
        text, _ = scenario(n, 1000 + i)
        write(os.path.join(o.dir, "pack", f"s{i:04d}.yaml"), text)


if __name__ == "__main__":
    main()
