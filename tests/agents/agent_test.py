#!/usr/bin/env python3
"""agent_test.py - a real coding agent (its npm package pinned in
tests/agents/package-lock.json) driven headless against `scvm serve llm`
(docs/real-agents.md).

usage: agent_test.py AGENT SCC SCVM NODE_MODULES WORK
       AGENT: gemini-cli, qwen-code, claude-code, codex or opencode

The scenario asks the agent to run a shell command that writes a file,
to edit that file, and to report.  The agent must call the tools the
scenario scripts, in its own names and argument shapes; the file must hold
what the two tools made of it, the agent's output must end with the
scripted report, and the server must have served every response, each
once, with the tools the agent declared (--strict-tools).  Nothing of the
agent may be left running.  The agent's HOME is a fresh folder: the
user's own configuration is never read or written.
"""
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time

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
SHELLCALL
READ  - llmResponse:
      - assistant:
          - [10, 'Now the typo.']
EDITCALL
  - llmResponse:
      - assistant:
          - [10, 'Done: notes.txt says hello world.']
"""


def call(tool, args):
    return "  - agentToolUse:\n      toolName: %s\n      args: %s\n" % (tool, args)


SHELL_ARGS = "{command: \"printf 'hello wrold\\\\n' > notes.txt\", description: \"create notes.txt\"}"
EDIT_ARGS = "{file_path: WORKSPACE/notes.txt, old_string: wrold, new_string: world%s}"
PATCH = ("apply_patch <<'EOF'\\n*** Begin Patch\\n*** Update File: notes.txt\\n@@\\n-hello wrold\\n"
         "+hello world\\n*** End Patch\\nEOF\\n")


ARCH = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())


def native(pkg, name):
    """The native binary an npm package carries in its platform package."""
    return os.path.join(NM, pkg + "-linux-" + ARCH, name)


def opencode_exe():
    """opencode's binary, chosen as its install script would: the x64
    build needs AVX2, the -baseline one does not."""
    try:
        avx2 = " avx2" in open("/proc/cpuinfo").read()
    except OSError:
        avx2 = False
    return native("opencode", "bin/opencode") if ARCH != "x64" or avx2 else \
        os.path.join(NM, "opencode-linux-x64-baseline", "bin", "opencode")


def opencode_config(url):
    """opencode's configuration (OPENCODE_CONFIG_CONTENT): one provider
    on the mock through the OpenAI-compatible adapter, which speaks Chat
    Completions, and its model the default."""
    return json.dumps({
        "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "scvm mock",
                              "options": {"baseURL": url + "/v1", "apiKey": "scvm-test"},
                              "models": {"scvm-mock": {"name": "scvm-mock"}}}},
        "model": "mock/scvm-mock", "autoupdate": False, "share": "disabled"})


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
        "shell": call("run_shell_command", SHELL_ARGS),
        "edit": call("replace", EDIT_ARGS % ", instruction: fix the typo"),
    },
    "qwen-code": {
        "exe": os.path.join(NM, ".bin", "qwen"),
        "argv": ["--yolo", "-p", PROMPT],
        "env": lambda url: {"OPENAI_BASE_URL": url + "/v1", "OPENAI_API_KEY": "scvm-test",
                            "OPENAI_MODEL": "qwen-test", "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"},
        "home": {},
        # Gemini CLI's fork, but its edit tool is "edit", and it edits
        # only a file it has read in the session
        "shell": call("run_shell_command", SHELL_ARGS), "edit": call("edit", EDIT_ARGS % ""),
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
        "shell": call("Bash", SHELL_ARGS), "edit": call("Edit", EDIT_ARGS % ""),
    },
    "codex": {
        # the JavaScript launcher finds the platform package's binary itself
        "exe": os.path.join(NM, ".bin", "codex"),
        "argv": ["exec", "--skip-git-repo-check", "-c", 'model_provider="mock"', "-c", "PROVIDER", "-c",
                 'model="gpt-5"', "--dangerously-bypass-approvals-and-sandbox", PROMPT],
        "env": lambda url: {"OPENAI_API_KEY": "scvm-test", "CODEX_HOME": "HOME"},
        "home": {},
        # one tool for both: a command, and apply_patch through it, which
        # Codex intercepts and applies itself
        "shell": call("exec_command", "{cmd: \"printf 'hello wrold\\\\n' > notes.txt\"}"),
        "edit": call("exec_command", "{cmd: \"%s\"}" % PATCH),
    },
    "opencode": {
        # the platform package's binary: the wrapper's bin/opencode.exe is
        # a stub until its install script replaces it
        "exe": opencode_exe(),
        # --title: without it opencode first asks the model for a title,
        # and that request would take the scenario's first response
        "argv": ["run", "--title", "agent test", PROMPT],
        # no requests to models.dev, no update check, and its background
        # npm install of @opencode-ai/plugin into the config folder fails
        # at once from the (empty) cache instead of going to the registry;
        # TMPDIR: it keeps files in $TMPDIR/opencode and unpacks native
        # libraries there, by default in the shared /tmp
        "env": lambda url: {"OPENCODE_CONFIG_CONTENT": opencode_config(url), "OPENCODE_DISABLE_AUTOUPDATE": "1",
                            "OPENCODE_DISABLE_MODELS_FETCH": "1", "npm_config_offline": "true",
                            "TMPDIR": "HOME/tmp"},
        "home": {},
        "shell": call("bash", "{command: \"printf 'hello wrold\\\\n' > notes.txt\"}"),
        "edit": call("edit", "{filePath: WORKSPACE/notes.txt, oldString: wrold, newString: world}"),
    },
}


def group_left(pgid):
    """The processes of process group pgid, with their command lines."""
    left = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
            if int(st[st.rindex(")") + 2:].split()[2]) != pgid or st[st.rindex(")") + 2] == "Z":
                continue
            with open("/proc/%s/cmdline" % d, "rb") as f:
                left.append((int(d), f.read().replace(b"\0", b" ").decode(errors="replace")[:120]))
        except (OSError, ValueError):
            continue
    return left


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
        f.write(SCENARIO.replace("READ", step).replace("SHELLCALL", a["shell"]).replace("EDITCALL", a["edit"])
                .replace("WORKSPACE", ws))
    scb = os.path.join(WORK, "agent_edit.scb")
    subprocess.run([SCC, "-o", scb, src], check=True)
    subprocess.run(["git", "init", "-q", ws], check=True)

    srv = Server(SCVM, ["--speed", "0", "--strict-tools", scb])
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "TERM": "dumb", "LANG": "C.UTF-8",
           "NO_COLOR": "1"}
    # "HOME" in a value stands for the fresh folder
    env.update({k: home + v[4:] if v == "HOME" or v.startswith("HOME/") else v for k, v in a["env"](srv.url).items()})
    if "TMPDIR" in env:
        os.makedirs(env["TMPDIR"], exist_ok=True)
    provider = 'model_providers.mock={name="mock",base_url="%s/v1",env_key="OPENAI_API_KEY",wire_api="responses"}' \
        % srv.url
    p = subprocess.Popen([a["exe"]] + [provider if x == "PROVIDER" else x for x in a["argv"]], cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
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
    # nothing of the agent is left: its process group is gone (a helper
    # may take a moment to follow its parent out)
    left = group_left(p.pid)
    for _ in range(50):
        if not left:
            break
        time.sleep(0.1)
        left = group_left(p.pid)
    check("no process of the agent is left %r" % left, not left)
    for pid, _ in left:
        os.kill(pid, signal.SIGKILL)
    if fails:
        print("--- agent stderr\n" + err[-3000:] + "\n--- server log\n" + log[-3000:])
        return 1
    print("%s: all checks passed" % AGENT)
    return 0


sys.exit(main())
