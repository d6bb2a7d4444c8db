#!/usr/bin/env python3
"""agent_test.py - a real coding agent (its npm package pinned in
tests/agents/package-lock.json) driven headless against `scvm serve llm`
(docs/real-agents.md).

usage: agent_test.py AGENT SCC SCVM NODE_MODULES WORK
       AGENT: gemini-cli, qwen-code or claude-code

The scenario asks the agent to run a shell command that writes a file,
to edit that file, and to report.  The agent must call the tools the
scenario scripts, in its own names and argument shapes; the file must hold
what the two tools made of it, the agent's output must end with the
scripted report, and the server must have served every response, each
once, with the tools the agent declared (--strict-tools).  Nothing of the
agent may be left running.  The agent's HOME is a fresh folder: the
user's own configuration is never read or written.
"""
import os
import platform
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "llm"))
from serve_util import Server  # noqa: E402

AGENT, SCC, SCVM, NM, WORK = sys.argv[1:6]
PROMPT = "Create notes.txt, then fix its typo"

SCENARIO = """name: agent_edit
timeline:
  - userInputs:
      - [0, 'Create notes.txt, then fix its typo']
  - llmResponse:
      - assistant:
          - [10, 'I will create the file first.']
  - agentToolUse:
      toolName: SHELL
      args: {command: "printf 'hello wrold\\\\n' > notes.txt", description: "create notes.txt"}
READ  - llmResponse:
      - assistant:
          - [10, 'Now the typo.']
  - agentToolUse:
      toolName: EDIT
      args: {file_path: WORKSPACE/notes.txt, old_string: wrold, new_string: world EDIT_EXTRA}
  - llmResponse:
      - assistant:
          - [10, 'Done: notes.txt says hello world.']
"""


def native(pkg, name):
    """The native binary an npm package carries in its platform package."""
    arch = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    return os.path.join(NM, pkg + "-linux-" + arch, name)


# How each agent is run, and its tool vocabulary (docs/real-agents.md)
AGENTS = {
    "gemini-cli": {
        "exe": os.path.join(NM, ".bin", "gemini"),
        # -m pins the model: with "auto" the CLI asks a router model first,
        # which would take the scenario's responses
        "argv": ["-m", "gemini-2.5-pro", "--yolo", "-p", PROMPT],
        "env": lambda url: {"GEMINI_API_KEY": "scvm-test", "GOOGLE_GEMINI_BASE_URL": url,
                            "GEMINI_CLI_TRUST_WORKSPACE": "true"},
        "home": {".gemini/settings.json": '{"security":{"auth":{"selectedType":"gemini-api-key"}}}\n'},
        "shell": "run_shell_command", "edit": "replace", "edit_extra": ", instruction: fix the typo",
    },
    "qwen-code": {
        "exe": os.path.join(NM, ".bin", "qwen"),
        "argv": ["--yolo", "-p", PROMPT],
        "env": lambda url: {"OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "scvm-test",
                            "OPENAI_MODEL": "qwen-test", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"},
        "home": {},
        # Gemini CLI's fork, but its edit tool is "edit", and it edits
        # only a file it has read in the session
        "shell": "run_shell_command", "edit": "edit", "edit_extra": "",
        "read": ("read_file", "{file_path: WORKSPACE/notes.txt}"),
    },
    "claude-code": {
        # the native binary of the platform package: the wrapper's own
        # binary is put in place by its install script, which npm ci here
        # does not run (--ignore-scripts)
        "exe": native("@anthropic-ai/claude-code", "claude"),
        # as root --dangerously-skip-permissions is refused; --allowedTools is not
        "argv": ["-p", PROMPT, "--allowedTools", "Bash Edit"],
        "env": lambda url: {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "scvm-test", "DISABLE_TELEMETRY": "1",
                            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"},
        "home": {},
        "shell": "Bash", "edit": "Edit", "edit_extra": "",
    },
}


def main():
    a = AGENTS[AGENT]
    if not os.path.exists(a["exe"]):
        print("FAIL: %s is missing (tests/agents npm ci failed?)" % a["exe"])
        return 1
    shutil.rmtree(WORK, ignore_errors=True)
    ws, home = os.path.join(WORK, "ws"), os.path.join(WORK, "home")
    os.makedirs(ws)
    os.makedirs(home)
    for rel, text in a["home"].items():
        os.makedirs(os.path.dirname(os.path.join(home, rel)), exist_ok=True)
        with open(os.path.join(home, rel), "w") as f:
            f.write(text)
    src = os.path.join(WORK, "agent_edit.yaml")
    with open(src, "w") as f:
        read = a.get("read")
        step = "" if not read else ("  - llmResponse:\n      - assistant:\n          - [10, 'Let me read it.']\n"
                                    "  - agentToolUse:\n      toolName: %s\n      args: %s\n" % read)
        f.write(SCENARIO.replace("READ", step).replace("WORKSPACE", ws).replace("SHELL", a["shell"]).replace("EDIT_EXTRA", a["edit_extra"])
                .replace("EDIT", a["edit"]))
    scb = os.path.join(WORK, "agent_edit.scb")
    subprocess.run([SCC, "-o", scb, src], check=True)
    subprocess.run(["git", "init", "-q", ws], check=True)

    srv = Server(SCVM, ["--speed", "0", "--strict-tools", scb])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TERM": "dumb", "LANG": "C.UTF-8",
           "NO_COLOR": "1"}
    env.update(a["env"](srv.url))
    p = subprocess.Popen([a["exe"]] + a["argv"], cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=180)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        print("FAIL: the agent did not finish within 180 s\n" + err.decode(errors="replace")[-2000:])
        srv.stop()
        return 1
    status, log = srv.stop()
    n = 4 if a.get("read") else 3
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
          status == 0 and "%d of %d responses served" % (n, n) in log and "strict tools: 0 rejected" in log)
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
    print("%s: all checks passed" % AGENT)
    return 0


sys.exit(main())
