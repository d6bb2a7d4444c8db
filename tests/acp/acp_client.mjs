// SPDX-License-Identifier: MIT
// acp_client.mjs - an ACP client built on the official TypeScript SDK
// (@agentclientprotocol/sdk 2.4.0's app API, or 1.9.0's ClientSideConnection
// with --sdk 1) that plays the client side of a scenario against
// `scvm serve acp`, and prints what happened as one JSON object.
//
// Every message the agent sends is validated against the SDK's own zod
// schemas (dist/v1/schema/zod.gen.js; the unstable ones for set_model and
// usage): the SDK checks requests and notifications itself (a bad one is
// answered -32602 or logged "Error handling notification"), and this client
// checks the results of its own requests.  Any schema failure is listed in
// "invalid".
//
// The client side of the script comes from the session's `_meta`
// (scvm.turns): per turn the prompt to send, the set_mode and set_model
// calls, and whether to cancel.  Client calls are answered for real: files
// are read and written (--fs maps absolute paths to contents for files
// outside the workspace), terminals run `command args` in a child process,
// and a permission request is answered by --permission: allow (the first
// allow_once option, else the first allow_*), reject, or cancel.
//
// Files outside --cwd are never touched: they live in a map (from --fs),
// so a fixture that writes /tmp/x writes only the map.
//
// Usage: node acp_client.mjs --modules DIR --cwd DIR [--sdk 1|2] [--fs FILE]
//          [--permission allow|reject|cancel] [--load ID] [--scenario NAME]
//          [--cancel-after MS] [--prompts N] [--prompt TEXT] [--no-script]
//          [--no-terminal] [--answers FILE] -- SCVM ARGS...
// --answers: {"permissions": [outcome, ...], "terminals": [{output,
// exitCode}, ...]}: the outcomes given to the permission requests in order
// (instead of --permission), and the terminals' scripted runs in order
// (instead of running the commands: a fully simulated client).
// --client-caps JSON: the clientCapabilities to advertise.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";

const argv = process.argv.slice(2);
const opt = { sdk: "2", permission: "allow", cancelAfter: 300 };
let cmd = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--") { cmd = argv.slice(i + 1); break; }
  const v = argv[++i];
  if (a === "--modules") opt.modules = v;
  else if (a === "--cwd") opt.cwd = v;
  else if (a === "--sdk") opt.sdk = v;
  else if (a === "--fs") opt.fs = JSON.parse(fs.readFileSync(v, "utf8"));
  else if (a === "--permission") opt.permission = v;
  else if (a === "--load") opt.load = v;
  else if (a === "--scenario") opt.scenario = v;
  else if (a === "--cancel-after") opt.cancelAfter = Number(v);
  else if (a === "--prompts") opt.prompts = Number(v);
  else if (a === "--prompt") opt.prompt = v;
  else if (a === "--answers") opt.answers = JSON.parse(fs.readFileSync(v, "utf8"));
  else if (a === "--client-caps") opt.caps = JSON.parse(v);
  else if (a === "--no-script") { opt.noScript = true; i--; }
  else if (a === "--no-terminal") { opt.noTerminal = true; i--; }
  else { console.error(`acp_client: unknown option ${a}`); process.exit(2); }
}
const mod = (rel) => import(pathToFileURL(path.join(opt.modules, rel)).href);
const sdkDir = opt.sdk === "1" ? "acp-sdk-1" : "acp-sdk-2";
const acp = await mod(opt.sdk === "1" ? "acp-sdk-1/dist/acp.js" : "acp-sdk-2/dist/v1/unstable/acp.js");
const z = await mod(`acp-sdk-2/dist/v1/schema/zod.gen.js`);
const zu = await mod(`acp-sdk-2/dist/v1/unstable/schema/zod.gen.js`);

const out = { sdk: opt.sdk, invalid: [], updates: [], calls: [], turns: [], errors: [] };
const sdkErrors = [];
const origError = console.error;
console.error = (...args) => { sdkErrors.push(args.map(String).join(" ")); origError(...args); };

// The SDK may run a notification's handler after the response that followed
// it on the wire resolved: one macrotask later every one has run.
const drain = () => new Promise((res) => setImmediate(res));

function check(name, schema, value) {
  const r = schema.safeParse(value);
  if (!r.success) out.invalid.push({ name, value, issues: r.error.issues.slice(0, 3) });
}

// ---- the client side: files, terminals, permissions ----
const files = opt.fs || {};
const terms = new Map();
let nterm = 0;
const inside = (p) => p === opt.cwd || p.startsWith(opt.cwd + "/");
const virtual = (p) => Object.prototype.hasOwnProperty.call(files, p) || !inside(p);
function readText(p, line, limit) {
  if (virtual(p) && !Object.prototype.hasOwnProperty.call(files, p)) throw new Error("no such file");
  let text = virtual(p) ? files[p] : fs.readFileSync(p, "utf8");
  if (line || limit) {
    const lines = text.split("\n");
    const from = line ? line - 1 : 0;
    text = lines.slice(from, limit ? from + limit : undefined).join("\n");
  }
  return text;
}
const handlers = {
  async readTextFile(params) {
    check("fs/read_text_file", z.zReadTextFileRequest, params);
    out.calls.push({ method: "fs/read_text_file", path: params.path });
    try {
      return { content: readText(params.path, params.line, params.limit) };
    } catch (e) {
      throw acp.RequestError.resourceNotFound(params.path);
    }
  },
  async writeTextFile(params) {
    check("fs/write_text_file", z.zWriteTextFileRequest, params);
    out.calls.push({ method: "fs/write_text_file", path: params.path, content: params.content });
    if (virtual(params.path)) files[params.path] = params.content;
    else {
      fs.mkdirSync(path.dirname(params.path), { recursive: true });
      fs.writeFileSync(params.path, params.content);
    }
    return {};
  },
  async requestPermission(params) {
    check("session/request_permission", z.zRequestPermissionRequest, params);
    out.calls.push({ method: "session/request_permission", toolCall: params.toolCall, options: params.options });
    if (opt.answers && opt.answers.permissions && opt.answers.permissions.length)
      return { outcome: opt.answers.permissions.shift() };
    if (opt.permission === "cancel") return { outcome: { outcome: "cancelled" } };
    const want = opt.permission === "reject" ? "reject" : "allow";
    const o = params.options.find((x) => x.kind === `${want}_once`) || params.options.find((x) => x.kind.startsWith(want));
    return o ? { outcome: { outcome: "selected", optionId: o.optionId } } : { outcome: { outcome: "cancelled" } };
  },
  async createTerminal(params) {
    check("terminal/create", z.zCreateTerminalRequest, params);
    out.calls.push({ method: "terminal/create", command: params.command, args: params.args, cwd: params.cwd });
    const id = `term-${++nterm}`;
    const scripted = opt.answers && opt.answers.terminals;
    if (scripted) {
      const run = scripted.shift() || { output: "", exitCode: 0 };
      terms.set(id, { output: run.output, exit: { exitCode: run.exitCode, signal: null }, waiters: [], child: null });
      return { terminalId: id };
    }
    const child = spawn(params.command, params.args || [], { cwd: params.cwd || opt.cwd, detached: true,
                                                             stdio: ["ignore", "pipe", "pipe"] });
    const t = { child, output: "", exit: null, waiters: [] };
    const add = (b) => { t.output += b.toString("utf8"); };
    child.stdout.on("data", add);
    child.stderr.on("data", add);
    child.on("error", (e) => {
      t.output += String(e);
      if (!t.exit) {
        t.exit = { exitCode: 127, signal: null };
        for (const w of t.waiters) w(t.exit);
      }
    });
    child.on("close", (code, signal) => {
      if (t.exit) return;
      t.exit = { exitCode: code, signal: signal };
      for (const w of t.waiters) w(t.exit);
    });
    terms.set(id, t);
    return { terminalId: id };
  },
  async terminalOutput(params) {
    check("terminal/output", z.zTerminalOutputRequest, params);
    out.calls.push({ method: "terminal/output", terminalId: params.terminalId });
    const t = terms.get(params.terminalId);
    if (!t) throw acp.RequestError.resourceNotFound(params.terminalId);
    const r = { output: t.output, truncated: false };
    if (t.exit) r.exitStatus = t.exit;
    return r;
  },
  async waitForTerminalExit(params) {
    check("terminal/wait_for_exit", z.zWaitForTerminalExitRequest, params);
    out.calls.push({ method: "terminal/wait_for_exit", terminalId: params.terminalId });
    const t = terms.get(params.terminalId);
    if (!t) throw acp.RequestError.resourceNotFound(params.terminalId);
    return t.exit || new Promise((res) => t.waiters.push(res));
  },
  async killTerminal(params) {
    check("terminal/kill", z.zKillTerminalRequest, params);
    out.calls.push({ method: "terminal/kill", terminalId: params.terminalId });
    const t = terms.get(params.terminalId);
    if (t && !t.exit && t.child) try { process.kill(-t.child.pid, "SIGKILL"); } catch (e) { /* gone */ }
    return {};
  },
  async releaseTerminal(params) {
    check("terminal/release", z.zReleaseTerminalRequest, params);
    out.calls.push({ method: "terminal/release", terminalId: params.terminalId });
    const t = terms.get(params.terminalId);
    if (t && !t.exit && t.child) try { process.kill(-t.child.pid, "SIGKILL"); } catch (e) { /* gone */ }
    terms.delete(params.terminalId);
    return {};
  },
  async sessionUpdate(params) {
    check("session/update", z.zSessionNotification, params);
    out.updates.push(params.update);
  },
};

// ---- the agent: scvm serve acp ----
const agent = spawn(cmd[0], cmd.slice(1), { stdio: ["pipe", "pipe", "pipe"] });
let agentErr = "";
agent.stderr.on("data", (b) => { agentErr += b.toString("utf8"); });
const exited = new Promise((res) => agent.on("close", (code, signal) => res({ code, signal })));
const stream = acp.ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));

// The workflow, given a way to call the agent.
async function workflow(request, notify) {
  const init = await request("initialize", {
    protocolVersion: 1,
    clientCapabilities: opt.caps || { fs: { readTextFile: true, writeTextFile: true }, terminal: !opt.noTerminal },
    clientInfo: { name: "scvm-acp-test", version: "1.0.0" },
  });
  check("initialize result", z.zInitializeResponse, init);
  out.initialize = init;
  const meta = opt.scenario ? { "scvm.scenario": opt.scenario } : undefined;
  let sess, sid;
  if (opt.load) {
    sess = await request("session/load", { sessionId: opt.load, cwd: opt.cwd, mcpServers: [] });
    check("session/load result", zu.zLoadSessionResponse, sess);
    sid = opt.load;
    await drain();
    out.history = out.updates.length;
  } else {
    sess = await request("session/new", { cwd: opt.cwd, mcpServers: [], ...(meta ? { _meta: meta } : {}) });
    check("session/new result", zu.zNewSessionResponse, sess);
    sid = sess.sessionId;
  }
  out.session = sess;
  const script = (sess._meta && sess._meta["scvm.turns"]) || [];
  const n = opt.prompts ?? (script.length || 1);
  for (let k = 0; k < n; k++) {
    const t = script[k] || { prompt: opt.prompt ?? "more", setMode: [], setModel: [], cancel: false };
    if (!opt.noScript) {
      for (const m of t.setMode) {
        const r = await request("session/set_mode", { sessionId: sid, modeId: m });
        check("session/set_mode result", z.zSetSessionModeResponse, r ?? {});
      }
      for (const m of t.setModel) {
        const r = await request("session/set_model", { sessionId: sid, modelId: m });
        if (r !== null && r !== undefined && typeof r !== "object") out.invalid.push({ name: "session/set_model result", value: r });
      }
    }
    const prompt = t.prompt === null ? [{ type: "text", text: "" }]
      : typeof t.prompt === "string" ? [{ type: "text", text: t.prompt }]
      : t.prompt.map((b) => (b.path && !b.data ? { type: "text", text: `[${b.type} ${b.path}]` } : b));
    const before = out.updates.length;
    let timer;
    if (t.cancel && !opt.noScript)
      timer = setTimeout(() => notify("session/cancel", { sessionId: sid }), opt.cancelAfter);
    try {
      const r = await request("session/prompt", { sessionId: sid, prompt });
      await drain();
      check("session/prompt result", zu.zPromptResponse, r);
      out.turns.push({ stopReason: r.stopReason, result: r, updates: out.updates.length - before });
    } catch (e) {
      out.turns.push({ error: { code: e.code, message: e.message } });
    }
    clearTimeout(timer);
  }
}

try {
  if (opt.sdk === "1") {
    const client = {
      readTextFile: handlers.readTextFile, writeTextFile: handlers.writeTextFile,
      requestPermission: handlers.requestPermission, createTerminal: handlers.createTerminal,
      terminalOutput: handlers.terminalOutput, waitForTerminalExit: handlers.waitForTerminalExit,
      killTerminal: handlers.killTerminal, releaseTerminal: handlers.releaseTerminal,
      sessionUpdate: handlers.sessionUpdate,
    };
    const conn = new acp.ClientSideConnection(() => client, stream);
    const map = {
      initialize: (p) => conn.initialize(p), "session/new": (p) => conn.newSession(p),
      "session/load": (p) => conn.loadSession(p), "session/prompt": (p) => conn.prompt(p),
      "session/set_mode": (p) => conn.setSessionMode(p),
      "session/set_model": (p) => { throw new Error("SDK 1.9 has no session/set_model"); },
    };
    await workflow((m, p) => map[m](p), (m, p) => conn.cancel(p));
  } else {
    const m = acp.methods;
    const app = acp.client({ name: "scvm-acp-test" })
      .onRequest(m.client.fs.readTextFile, (c) => handlers.readTextFile(c.params ?? c))
      .onRequest(m.client.fs.writeTextFile, (c) => handlers.writeTextFile(c.params ?? c))
      .onRequest(m.client.session.requestPermission, (c) => handlers.requestPermission(c.params ?? c))
      .onRequest(m.client.terminal.create, (c) => handlers.createTerminal(c.params ?? c))
      .onRequest(m.client.terminal.output, (c) => handlers.terminalOutput(c.params ?? c))
      .onRequest(m.client.terminal.waitForExit, (c) => handlers.waitForTerminalExit(c.params ?? c))
      .onRequest(m.client.terminal.kill, (c) => handlers.killTerminal(c.params ?? c))
      .onRequest(m.client.terminal.release, (c) => handlers.releaseTerminal(c.params ?? c))
      .onNotification(m.client.session.update, (c) => handlers.sessionUpdate(c.params ?? c));
    await app.connectWith(stream, (ctx) => workflow((meth, p) => ctx.request(meth, p), (meth, p) => ctx.notify(meth, p)));
  }
} catch (e) {
  out.errors.push(String(e && e.stack || e));
}
agent.stdin.end();
const ex = await Promise.race([exited, new Promise((r) => setTimeout(() => r(null), 10000))]);
if (!ex) { agent.kill("SIGKILL"); out.errors.push("scvm serve acp did not exit after stdin closed"); }
out.exit = ex;
out.stderr = agentErr;
out.sdkErrors = sdkErrors;
for (const t of terms.values()) if (!t.exit && t.child) try { process.kill(-t.child.pid, "SIGKILL"); } catch (e) { /* gone */ }
out.files = files;
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
