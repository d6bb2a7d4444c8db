#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fake_agent.py - a small coding agent for the tests of `scvm run -t agent`
that need no npm package: it speaks the Anthropic Messages API (whole
answers, not streamed) to $FAKE_BASE_URL with $FAKE_KEY, runs the tools the
model calls in its working directory and sends their results back, until the
model stops calling tools.  Its profile is tests/agents/fake-agent.json.

usage: fake_agent.py -p PROMPT [--extra-tool NAME] [--exit N]
       fake_agent.py [--extra-tool NAME]      (interactive: reads prompts
                                               after "fake> ", one per line)
Tools: Bash {command}, Read {file_path}, Write {file_path, content},
Edit {file_path, old_string, new_string}.  A failing tool's result starts
with "error:" (the profile's errorPattern).
"""
import json
import os
import signal
import subprocess
import sys
import urllib.request

TOOLS = ["Bash", "Read", "Write", "Edit"]


def run_tool(name, args):
    try:
        if name == "Bash":
            p = subprocess.run(["/bin/sh", "-c", args["command"]], capture_output=True, text=True, timeout=60)
            out = p.stdout + p.stderr
            return ("error: exit %d\n" % p.returncode if p.returncode else "") + out
        if name == "Read":
            with open(args["file_path"]) as f:
                return f.read()
        if name == "Write":
            with open(args["file_path"], "w") as f:
                f.write(args["content"])
            return "wrote %s" % args["file_path"]
        if name == "Edit":
            with open(args["file_path"]) as f:
                text = f.read()
            if text.count(args["old_string"]) != 1:
                return "error: old_string occurs %d times" % text.count(args["old_string"])
            with open(args["file_path"], "w") as f:
                f.write(text.replace(args["old_string"], args["new_string"]))
            return "edited %s" % args["file_path"]
        return "error: no tool %s" % name
    except (OSError, KeyError, subprocess.SubprocessError) as e:
        return "error: %s" % e


def ask(messages, tools):
    body = json.dumps({"model": "fake-model", "max_tokens": 1024, "messages": messages,
                       "tools": [{"name": t, "description": t, "input_schema": {"type": "object"}} for t in tools]})
    req = urllib.request.Request(os.environ["FAKE_BASE_URL"] + "/v1/messages", data=body.encode(),
                                 headers={"content-type": "application/json", "x-api-key": os.environ["FAKE_KEY"],
                                          "anthropic-version": "2023-06-01"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def turn(messages, prompt, tools):
    messages.append({"role": "user", "content": prompt})
    while True:
        m = ask(messages, tools)
        messages.append({"role": "assistant", "content": m["content"]})
        for b in m["content"]:
            if b["type"] == "text":
                print(b["text"], flush=True)
        calls = [b for b in m["content"] if b["type"] == "tool_use"]
        if not calls:
            return
        results = []
        for c in calls:
            out = run_tool(c["name"], c["input"])
            results.append({"type": "tool_result", "tool_use_id": c["id"], "content": out,
                            "is_error": out.startswith("error:")})
        messages.append({"role": "user", "content": results})


def main():
    a = sys.argv[1:]
    tools = list(TOOLS)
    prompt, code = None, 0
    while a:
        if a[0] == "-p":
            prompt, a = a[1], a[2:]
        elif a[0] == "--extra-tool":
            tools.append(a[1])
            a = a[2:]
        elif a[0] == "--exit":
            code, a = int(a[1]), a[2:]
        else:
            sys.exit("fake_agent: unknown argument %r" % a[0])
    with open(os.path.join(os.environ["HOME"], ".fake", "config.json")) as f:
        json.load(f)    # the profile's file is there
    messages = []
    if prompt is not None:
        turn(messages, prompt, tools)
        sys.exit(code)
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
    while True:
        sys.stdout.write("fake> ")
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not line:
            return
        if line.strip():
            turn(messages, line.strip(), tools)


main()
