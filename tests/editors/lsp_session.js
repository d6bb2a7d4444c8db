// SPDX-License-Identifier: MIT
// lsp_session.js SCC NODE_MODULES WORKDIR - drives `scc --lsp` through an
// editing session with the official LSP client library
// (vscode-languageserver-protocol, pinned in package-lock.json), as an
// editor does (docs/editors.md): initialize, open a scenario with a
// misspelt event, read its diagnostics, complete event names and keys,
// hover a key, ask for the quick fix, apply it as
// an incremental change, see the diagnostics go, break it again with a
// full change, read the schedule's code lenses and go to a terminalRef's
// file, save, close (its diagnostics cleared), shut down, exit 0.
// Every expectation is checked; the first that fails exits 1.
'use strict';
const path = require('path');
const fs = require('fs');
const cp = require('child_process');
const [scc, modules, work] = process.argv.slice(2);
const P = require(path.join(modules, 'vscode-languageserver-protocol', 'node'));

function fail(msg) {
  console.error('FAIL: ' + msg);
  process.exit(1);
}
function check(ok, msg) {
  if (!ok)
    fail(msg);
}

fs.mkdirSync(work, { recursive: true });
const file = path.join(work, 'session.yaml');
const uri = 'file://' + file;
const text = [
  'name: session',
  'timeline:',
  '  - llmRespnse:',
  '      - assistant:',
  '          - relativeTime: 100',
  '            content: hello',
  '',
].join('\n');
fs.writeFileSync(file, text);
fs.copyFileSync(path.join(__dirname, '..', '..', 'stdlib-scenarios', 'terminal', 'default-100x30.json'),
                path.join(work, 'term.json'));

const child = cp.spawn(scc, ['--lsp'], { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = P.createProtocolConnection(new P.StreamMessageReader(child.stdout),
                                        new P.StreamMessageWriter(child.stdin));
const published = [];
let waiter = null;
conn.onNotification(P.PublishDiagnosticsNotification.type, (p) => {
  published.push(p);
  if (waiter)
    waiter();
});
conn.listen();

// the next publishDiagnostics for uri (each change publishes once)
function nextDiagnostics() {
  const seen = published.length;
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('no diagnostics within 60 s')), 60000);
    waiter = () => {
      if (published.length > seen) {
        clearTimeout(t);
        waiter = null;
        resolve(published[published.length - 1]);
      }
    };
    waiter();
  });
}

(async () => {
  const init = await conn.sendRequest(P.InitializeRequest.type,
                                      { processId: process.pid, rootUri: 'file://' + work, capabilities: {} });
  check(init.serverInfo && init.serverInfo.name === 'scc', 'serverInfo names scc');
  check(init.capabilities.textDocumentSync.change === P.TextDocumentSyncKind.Incremental,
        'incremental text sync');
  await conn.sendNotification(P.InitializedNotification.type, {});

  // open: the misspelt event, its rule id and the note in the message
  let got = nextDiagnostics();
  await conn.sendNotification(P.DidOpenTextDocumentNotification.type,
                              { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  let d = await got;
  check(d.uri === uri, 'diagnostics for the opened file');
  check(d.diagnostics.length === 1, 'one diagnostic, got ' + JSON.stringify(d.diagnostics));
  const g = d.diagnostics[0];
  check(g.severity === P.DiagnosticSeverity.Error, 'an error');
  check(/unknown event 'llmRespnse'/.test(g.message), 'the message: ' + g.message);
  check(/did you mean 'llmResponse'/.test(g.message), 'the note in the message: ' + g.message);
  check(g.source === 'scc' && typeof g.code === 'string', 'source and rule id');
  check(g.range.start.line === 2 && g.range.start.character === 4 && g.range.end.character === 14,
        'the range covers the word: ' + JSON.stringify(g.range));

  // completion: the event names a timeline item may hold, from the schema
  const items = await conn.sendRequest(P.CompletionRequest.type,
                                       { textDocument: { uri }, position: { line: 2, character: 6 } });
  const labels = (items.items || items).map((i) => i.label);
  check(labels.includes('llmResponse') && labels.includes('agentToolUse') && !labels.includes('name'),
        'event names complete in a timeline item: ' + labels.join(' '));
  const top = await conn.sendRequest(P.CompletionRequest.type,
                                     { textDocument: { uri }, position: { line: 0, character: 0 } });
  check((top.items || top).some((i) => i.label === 'timeline' && /events/.test(i.detail)),
        'top-level keys with their descriptions complete at column 0');
  // hover: the key's description
  const hov = await conn.sendRequest(P.HoverRequest.type,
                                     { textDocument: { uri }, position: { line: 1, character: 3 } });
  check(hov && /\*\*timeline\*\*: the events/.test(hov.contents.value), 'hover on timeline: ' + JSON.stringify(hov));

  // the quick fix
  const actions = await conn.sendRequest(P.CodeActionRequest.type, {
    textDocument: { uri }, range: g.range, context: { diagnostics: [g] },
  });
  check(actions.length === 1, 'one quick fix, got ' + JSON.stringify(actions));
  const a = actions[0];
  check(a.kind === 'quickfix' && a.title === "Change to 'llmResponse'", 'its title: ' + a.title);
  const edits = a.edit.changes[uri];
  check(edits.length === 1 && edits[0].newText === 'llmResponse', 'one edit to llmResponse');

  // applied as the editor applies it: an incremental change
  got = nextDiagnostics();
  await conn.sendNotification(P.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: edits[0].range, text: edits[0].newText }],
  });
  d = await got;
  check(d.diagnostics.length === 0, 'no diagnostics after the fix, got ' + JSON.stringify(d.diagnostics));

  // a full change that breaks a value: a located error again
  got = nextDiagnostics();
  await conn.sendNotification(P.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 3 },
    contentChanges: [{ text: text.replace('llmRespnse', 'llmResponse').replace('100', '-5') }],
  });
  d = await got;
  check(d.diagnostics.length >= 1 && d.diagnostics[0].range.start.line === 4,
        'an error on line 5 after the full change, got ' + JSON.stringify(d.diagnostics));

  // the schedule as code lenses, after a good version
  got = nextDiagnostics();
  await conn.sendNotification(P.DidChangeTextDocumentNotification.type, {
    textDocument: { uri, version: 4 },
    contentChanges: [{ text: 'terminalRef: term.json\n' + text.replace('llmRespnse', 'llmResponse') }],
  });
  d = await got;
  check(d.diagnostics.length === 0, 'the good version has no diagnostics: ' + JSON.stringify(d.diagnostics));
  const lenses = await conn.sendRequest(P.CodeLensRequest.type, { textDocument: { uri } });
  check(lenses.some((c) => c.range.start.line === 5 && c.command.title === 'at 100 ms: ASSISTANT'),
        'a lens "at 100 ms: ASSISTANT" on the line of the assistant text: ' + JSON.stringify(lenses));
  // go to the file a string names
  const loc = await conn.sendRequest(P.DefinitionRequest.type,
                                     { textDocument: { uri }, position: { line: 0, character: 16 } });
  check(loc && loc.uri === 'file://' + path.join(work, 'term.json'), 'definition of terminalRef: ' +
        JSON.stringify(loc));
  const none = await conn.sendRequest(P.DefinitionRequest.type,
                                      { textDocument: { uri }, position: { line: 1, character: 7 } });
  check(none === null, 'no definition for a name that is no file');

  // save checks again; close clears
  got = nextDiagnostics();
  await conn.sendNotification(P.DidSaveTextDocumentNotification.type, { textDocument: { uri } });
  d = await got;
  check(d.diagnostics.length === 0, 'save checks again');
  got = nextDiagnostics();
  await conn.sendNotification(P.DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  d = await got;
  check(d.diagnostics.length === 0, 'close clears the diagnostics');

  // an unknown request is an error, and the server goes on
  let err = null;
  try {
    await conn.sendRequest('scc/nonexistent', {});
  } catch (e) {
    err = e;
  }
  check(err && err.code === P.ErrorCodes.MethodNotFound, 'MethodNotFound for an unknown request');

  await conn.sendRequest(P.ShutdownRequest.type);
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  await conn.sendNotification(P.ExitNotification.type);
  const code = await exited;
  check(code === 0, 'exit status 0 after shutdown and exit, got ' + code);
  console.log('lsp session: ok');
  process.exit(0);
})().catch((e) => fail(e.stack || String(e)));
