#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A server signalled the instant it says `listening on` still stops cleanly.

usage: serve_signal.py SCC SCVM SCENARIO.yaml [TRIES]

For `scvm serve llm`, `rest`, `harness` and `llm+rest+harness`: start the
server, read stdout up to the first `listening on` line, send a signal at
once (TERM, INT and HUP in turn), and require the summary on stderr and
the documented status (a signal ends a server as the end of its input
does: 0, or 1 for the llm mock nobody asked, INCOMPLETE).  Before the handlers were installed ahead of that line, most
tries died of the signal itself (status -15, no summary)."""
import os
import signal
import subprocess
import sys
import tempfile

SCC, SCVM, YAML = sys.argv[1:4]
TRIES = int(sys.argv[4]) if len(sys.argv) > 4 else 30
SIGS = [signal.SIGTERM, signal.SIGINT, signal.SIGHUP]

# what each server's summary says, and its documented status when no
# request came: the llm mock was not asked for its responses, INCOMPLETE
# and 1 (docs/serve-llm.md; the highest status of several servers)
SUMMARY = {
    "llm": (["scvm serve: summary: INCOMPLETE"], 1),
    "rest": (["scvm serve rest: summary: "], 0),
    "harness": (["scvm serve harness: summary: "], 0),
    "llm+rest+harness": (["scvm serve: summary: INCOMPLETE", "scvm serve rest: summary: ",
                          "scvm serve harness: summary: "], 1),
}


def main():
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        scb = os.path.join(tmp, "s.scb")
        subprocess.run([SCC, "-o", scb, YAML], check=True)
        for server, (wants, status) in SUMMARY.items():
            args = [SCVM, "serve", server, "--listen", "127.0.0.1:0"]
            if "+" in server:
                args += ["--rest-listen", "127.0.0.1:0", "--harness-listen", "127.0.0.1:0"]
            args.append(scb)
            for i in range(TRIES):
                sig = SIGS[i % len(SIGS)]
                p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
                line = p.stdout.readline()
                if b"listening on" in line:
                    p.send_signal(sig)
                out, err = p.communicate(timeout=60)
                err = err.decode(errors="replace")
                what = f"serve {server} try {i} ({signal.Signals(sig).name})"
                if b"listening on" not in line:
                    fails.append(f"{what}: no 'listening on' line: {line!r} {err}")
                elif p.returncode != status:
                    fails.append(f"{what}: exit {p.returncode}, wanted {status}; stderr: {err!r}")
                else:
                    missing = [w for w in wants if w not in err]
                    if missing:
                        fails.append(f"{what}: no summary {missing}; stderr: {err!r}")
            print(f"serve {server}: {TRIES} tries")
    for f in fails:
        print("FAIL:", f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
