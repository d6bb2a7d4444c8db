#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""nvim_test.py SCC_BIN_DIR DOCS_EDITORS_MD WORKDIR - docs/editors.md's
Neovim configuration, run as written in `nvim --headless` (Debian's neovim,
installed by scripts/setup-deps.sh): a scenario with a misspelt event is
opened, its diagnostic must arrive from `scc --lsp`, the quick fix is
requested and applied through Neovim's own LSP client, and the diagnostics
must clear; then completion inside an event (an agentToolUse's toolName
values) and hover on an event name go through Neovim's client too.  Exits 77 (skip) only when nvim is not installed."""
import os
import re
import shutil
import subprocess
import sys

bin_dir, doc, work = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
nvim = shutil.which("nvim")
if not nvim:
    print("SKIP: nvim is not installed (scripts/setup-deps.sh installs Debian's neovim)")
    sys.exit(77)
os.makedirs(work, exist_ok=True)

blocks = re.findall(r"```lua editors=nvim\n(.*?)```", open(doc).read(), re.S)
if len(blocks) != 1:
    sys.exit("FAIL: docs/editors.md has %d ```lua editors=nvim blocks, not 1" % len(blocks))
init = os.path.join(work, "init.lua")
with open(init, "w") as f:
    f.write(blocks[0])

scenario = os.path.join(work, "typo.yaml")
with open(scenario, "w") as f:
    f.write("name: typo\ntimeline:\n  - llmRespnse:\n      - assistant:\n          - [100, 'hello']\n")

out = os.path.join(work, "result.txt")
check = os.path.join(work, "check.lua")
with open(check, "w") as f:
    f.write(r'''
local out = io.open(os.getenv("SCC_NVIM_OUT"), "w")
local function say(s) out:write(s .. "\n") out:flush() end
local function finish() out:close() vim.cmd("qa!") end
if not vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50) then
  say("no diagnostics") finish() return
end
for _, d in ipairs(vim.diagnostic.get(0)) do
  say(string.format("diagnostic %d:%d %s", d.lnum + 1, d.col + 1, (d.message:gsub("\n", " | "))))
end
local d = vim.diagnostic.get(0)[1]
local lsp = d.user_data and d.user_data.lsp or {}
local params = {
  textDocument = vim.lsp.util.make_text_document_params(),
  range = lsp.range,
  context = { diagnostics = { lsp } },
}
local answers = vim.lsp.buf_request_sync(0, "textDocument/codeAction", params, 30000) or {}
local applied = false
for _, a in pairs(answers) do
  for _, action in ipairs(a.result or {}) do
    say("action " .. action.title)
    if not applied and action.edit then
      vim.lsp.util.apply_workspace_edit(action.edit, "utf-16")
      applied = true
    end
  end
end
say("line 3: " .. vim.api.nvim_buf_get_lines(0, 2, 3, false)[1])
if vim.wait(60000, function() return #vim.diagnostic.get(0) == 0 end, 50) then
  say("cleared")
else
  say("not cleared")
end
-- completion: a new item under the timeline, an agentToolUse's toolName
vim.api.nvim_buf_set_lines(0, -1, -1, false, { "  - agentToolUse:", "      toolName: " })
local n = vim.api.nvim_buf_line_count(0)
local pos = { textDocument = vim.lsp.util.make_text_document_params(),
              position = { line = n - 1, character = 16 } }
local labels = {}
for _, a in pairs(vim.lsp.buf_request_sync(0, "textDocument/completion", pos, 30000) or {}) do
  for _, item in ipairs(a.result or {}) do table.insert(labels, item.label) end
end
table.sort(labels)
say("complete toolName: " .. table.concat(labels, " "))
-- hover on the event name of line 3
pos.position = { line = 2, character = 6 }
for _, a in pairs(vim.lsp.buf_request_sync(0, "textDocument/hover", pos, 30000) or {}) do
  if a.result and a.result.contents then say("hover: " .. (a.result.contents.value:gsub("\n", " | "))) end
end
finish()
''')

env = dict(os.environ)
env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
env["SCC_NVIM_OUT"] = out
for k in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
    env[k] = os.path.join(work, k.lower())
try:
    r = subprocess.run([nvim, "--headless", "-n", "-i", "NONE", "-u", init, scenario, "-c", "luafile " + check],
                       env=env, cwd=work, capture_output=True, text=True, timeout=180)
except subprocess.TimeoutExpired:
    sys.exit("FAIL: nvim did not finish within 180 s")
got = open(out).read() if os.path.exists(out) else ""
print(got, end="")
want = [
    r"^diagnostic 3:5 unknown event 'llmRespnse' in timeline \| note: did you mean 'llmResponse'\?$",
    r"^action Change to 'llmResponse'$",
    r"^line 3:   - llmResponse:$",
    r"^cleared$",
    r"^complete toolName: .*\breadFile\b.*\brunCmd\b.*\bwebFetch\b",
    r"^hover: \*\*llmResponse\*\*: the model's answer",
]
missing = [w for w in want if not re.search(w, got, re.M)]
if r.returncode != 0 or missing:
    print("nvim status", r.returncode, r.stderr[-2000:])
    for w in missing:
        print("FAIL: missing", w)
    sys.exit(1)
print("nvim: ok")
