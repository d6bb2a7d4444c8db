#!/usr/bin/env python3
"""gemini_cli.py - Gemini CLI, the real agent (npm @google/gemini-cli,
pinned in tests/agents/package-lock.json), driven headless against
`scvm serve llm` (docs/real-agents.md).

usage: gemini_cli.py SCC SCVM NODE_MODULES WORK

The scenario asks the agent to run a shell command that writes a file,
to edit that file, and to report.  The agent must call the tools the
scenario scripts (Gemini CLI's own names and argument shapes:
run_shell_command {command}, replace {file_path, old_string, new_string}),
the files must hold what the tools wrote, its output must end with the
scripted report, and the server must have served every response, each
once, with the tools the agent declared (--strict-tools).  Nothing of the
agent may be left running.  The agent's HOME is a fresh folder: the user's
own configuration is never read or written.
"""
import os
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "llm"))
from serve_util import Server  # noqa: E402

SCC, SCVM, NM, WORK = sys.argv[1:5]
GEMINI = os.path.join(NM, ".bin", "gemini")

SCENARIO = """name: gemini_edit
timeline:
  - userInputs:
      - [0, 'Create notes.txt, then fix its typo']
  - llmResponse:
      - assistant:
          - [10, 'I will create the file first.']
  - agentToolUse:
      toolName: run_shell_command
      args: {command: "printf 'hello wrold\\\\n' > notes.txt", description: "create notes.txt"}
  - llmResponse:
      - assistant:
          - [10, 'Now the typo.']
  - agentToolUse:
      toolName: replace
      args: {file_path: WORKSPACE/notes.txt, old_string: wrold, new_string: world, instruction: "fix the typo"}
  - llmResponse:
      - assistant:
          - [10, 'Done: notes.txt says hello world.']
"""


def main():
    if not os.path.exists(GEMINI):
        print("FAIL: %s is missing (tests/agents npm ci failed?)" % GEMINI)
        return 1
    shutil.rmtree(WORK, ignore_errors=True)
    ws, home = os.path.join(WORK, "ws"), os.path.join(WORK, "home")
    os.makedirs(ws)
    os.makedirs(os.path.join(home, ".gemini"))
    with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
        f.write('{"security":{"auth":{"selectedType":"gemini-api-key"}}}\n')
    src = os.path.join(WORK, "gemini_edit.yaml")
    with open(src, "w") as f:
        f.write(SCENARIO.replace("WORKSPACE", ws))
    scb = os.path.join(WORK, "gemini_edit.scb")
    subprocess.run([SCC, "-o", scb, src], check=True)
    subprocess.run(["git", "init", "-q", ws], check=True)

    srv = Server(SCVM, ["--speed", "0", "--strict-tools", scb])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TERM": "dumb", "LANG": "C.UTF-8",
           "GEMINI_API_KEY": "scvm-test", "GOOGLE_GEMINI_BASE_URL": srv.url, "GEMINI_CLI_TRUST_WORKSPACE": "true",
           "NO_COLOR": "1"}
    # -m pins the model: without it the CLI asks a router model first,
    # which would take the scenario's responses (docs/real-agents.md)
    p = subprocess.Popen([GEMINI, "-m", "gemini-2.5-pro", "--yolo", "-p", "Create notes.txt, then fix its typo"],
                         cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        print("FAIL: the agent did not finish within 180 s\n" + err.decode(errors="replace")[-2000:])
        srv.stop()
        return 1
    status, log = srv.stop()
    out, err = out.decode(errors="replace"), err.decode(errors="replace")
    fails = []

    def check(what, ok):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            fails.append(what)

    check("the agent exits 0 (got %d)" % p.returncode, p.returncode == 0)
    check("its output ends with the scripted report", out.rstrip().endswith("Done: notes.txt says hello world."))
    notes = os.path.join(ws, "notes.txt")
    body = open(notes).read() if os.path.exists(notes) else None
    check("notes.txt was created by the scripted command and fixed by the scripted edit (%r)" % body,
          body == "hello world\n")
    check("the server served the three responses, each once, and exited 0 (%d)" % status,
          status == 0 and "3 of 3 responses served" in log and "strict tools: 0 rejected" in log)
    # nothing of the agent is left: its process group is gone
    try:
        os.killpg(p.pid, 0)
        alive = True
    except ProcessLookupError:
        alive = False
    check("no process of the agent is left", not alive)
    if fails:
        print("--- agent stderr\n" + err[-3000:] + "\n--- server log\n" + log[-3000:])
        return 1
    print("gemini cli: all checks passed")
    return 0


sys.exit(main())
