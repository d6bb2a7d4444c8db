#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Scenario-Format spec's own timing examples compile and play as the
spec describes them, on the spec clock (docs/timing.md, "Two clocks"):
the Example Timeline, the Example with Error Response and the Example with
Tool Execution Details, read from ../shared/seeds/scenario-format.md.

usage: check_spec_examples.py SCC SCVM SEEDS_DIR
Exits 77 (skipped) when the seeds folder is absent.
"""
import json, os, re, subprocess, sys, tempfile

SCC, SCVM, SEEDS = sys.argv[1:4]
spec = os.path.join(SEEDS, "scenario-format.md")
if not os.path.exists(spec):
    print("seed not found: %s (skipped)" % spec)
    sys.exit(77)
text = open(spec, encoding="utf-8").read()
fails = []


def check(c, msg):
    if not c:
        fails.append(msg)
        print("FAIL:", msg)


def example(heading):
    """The first YAML block after the heading, up to its fence or the next
    bold heading (the spec nests one example inside another's fence)."""
    i = text.index(heading)
    m = re.compile(r"^(`{3,4})yaml\n", re.M).search(text, i)
    body = text[m.end():]
    end = re.search(r"^(`{3,4})\s*$|^\*\*", body, re.M)
    return body[:end.start()] if end else body


def play(name, yaml, clock):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, name + ".yaml")
        open(src, "w").write("name: %s\n%s" % (name, yaml))
        p = subprocess.run([SCC, "--clock=" + clock, "-o", os.path.join(d, "x.scb"), src], capture_output=True,
                           text=True, timeout=60)
        if p.returncode != 0:
            return None, p.stderr
        r = subprocess.run([SCVM, "run", os.path.join(d, "x.scb")], capture_output=True, text=True, timeout=60)
        return [json.loads(l) for l in r.stdout.splitlines()], r.stderr


def at(events, kind, **fields):
    return [e["at_ms"] for e in events if e["kind"] == kind and all(e.get(k) == v for k, v in fields.items())]


# The Example Timeline: think 300 after 500, user input concurrent
ev, err = play("example_timeline", example("**Example Timeline:**"), "spec")
check(ev is not None, "Example Timeline compiles on the spec clock: %s" % err)
if ev:
    check(at(ev, "thinking") == [500, 800] and at(ev, "assistant") == [1000], "think deltas: %s" % ev)
    check(at(ev, "user_input") == [200, 400], "user inputs concurrent, from the segment's start")
    check(at(ev, "tool_result") == [1400], "tool execution from its start: %s" % at(ev, "tool_result"))
    check([e["at_ms"] for e in ev] == sorted(e["at_ms"] for e in ev), "events in time order")
check(play("example_timeline", example("**Example Timeline:**"), "reference")[0] is None,
      "on the reference clock the Example Timeline is an error (think 300 after 500)")

ev, err = play("example_error", example("**Example with Error Response:**"), "spec")
check(ev is not None and any(e["kind"] == "error" for e in ev), "Example with Error Response: %s" % (err or ev))

ev, err = play("example_tool", example("**Example with Tool Execution Details"), "spec")
check(ev is not None, "Example with Tool Execution Details compiles on the spec clock: %s" % err)
if ev:
    start, end = at(ev, "tool_start")[0], at(ev, "tool_result")[0]
    q = at(ev, "user_input", value="q")
    check(q == [700] and start < 700 < end, "the user presses q during the test run: q %s, tool %s-%s" % (q, start, end))
check(play("example_tool", example("**Example with Tool Execution Details"), "reference")[0] is None,
      "on the reference clock the tool example is an error (input at 700 behind the clock)")
# Every other YAML block of the spec that holds a timeline: on the spec
# clock none fails because of time.  Some fail for reasons the spec itself
# gives (legacy shapes it says are not supported, files it references that
# are not there, YAML that does not parse, a sessionStart its own rule
# forbids): docs/timing.md lists them.
TIMING = re.compile(r"earlier than|smaller than the concurrent|relativeTime|timeMs|baseTimeDelta")
blocks = [b for _, b in re.findall(r"^(`{3,4})yaml\n(.*?)^\1\s*$", text, re.S | re.M) if "timeline:" in b]
for n, b in enumerate(blocks):
    body = b if re.search(r"^name:", b, re.M) else "name: spec_block_%d\n%s" % (n, b)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "b.yaml")
        open(src, "w").write(body)
        p = subprocess.run([SCC, "--clock=spec", "--check", src], capture_output=True, text=True, timeout=60)
    timing = [l for l in p.stderr.splitlines() if ": error: " in l and TIMING.search(l)]
    check(not timing, "spec block %d fails because of time on the spec clock: %s" % (n, timing))
    print("block %d: %s" % (n, "compiles" if p.returncode == 0 else
                               "refused, not for time: " + p.stderr.splitlines()[0].split(": error: ")[-1][:90]))
print("spec examples: %d failures" % len(fails))
sys.exit(1 if fails else 0)
