// SPDX-License-Identifier: MIT
// The official @anthropic-ai/sdk (pinned in package-lock.json) against
// `scvm serve llm` serving sdk_agent and sdk_errors: the reassembled
// messages must be exactly what the scenarios script.
'use strict';
const assert = require('node:assert/strict');
const mod = require('@anthropic-ai/sdk');
const Anthropic = mod.Anthropic || mod.default || mod;

const URL = process.env.SCVM_URL;
const tools = ['read_file', 'list_dir'].map((name) => ({ name, description: name, input_schema: { type: 'object' } }));
const prompt = 'Fix the failing test in parser.c';
const ARGS = { path: 'parser.c', limit: 200, note: 'héllo wörld — ünïcode split into pieces ✓' };
// What the server sends, without the fields the SDK's helpers add.
const pick = (o, keys) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
const plainBlocks = (c) => c.map((b) => pick(b, ['type', 'text', 'thinking', 'signature', 'id', 'name', 'input']));
const plain = (m) => Array.isArray(m) ? plainBlocks(m)
  : { ...pick(m, ['id', 'type', 'role', 'model', 'stop_reason', 'stop_sequence', 'usage']), content: plainBlocks(m.content) };
const tok = (s) => Math.ceil(Buffer.byteLength(s) / 4);

function client(key, opts = {}) {
  return new Anthropic({ apiKey: key, baseURL: opts.baseURL || URL, maxRetries: 2, defaultHeaders: opts.headers });
}

function params(messages, extra = {}) {
  return { model: 'claude-test', max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 }, tools, messages, ...extra };
}

function checkFirst(m) {
  assert.equal(m.role, 'assistant');
  assert.equal(m.model, 'claude-test');
  assert.match(m.id, /^msg_01[0-9A-Za-z]{22}$/);
  assert.equal(m.content.length, 4);
  assert.equal(m.content[0].type, 'thinking');
  assert.equal(m.content[0].thinking, 'The user wants a fix. Let me read the file.');
  assert.match(m.content[0].signature, /^Eq[A-Za-z0-9+/]{94}$/);
  assert.equal(m.content[1].type, 'text');
  assert.equal(m.content[1].text, 'I will read parser.c first.');
  assert.equal(m.content[2].type, 'tool_use');
  assert.match(m.content[2].id, /^toolu_01[0-9A-Za-z]{22}$/);
  assert.equal(m.content[2].name, 'read_file');
  assert.deepEqual(m.content[2].input, ARGS);
  assert.equal(m.content[3].id, 'call_fixed_1');
  assert.equal(m.content[3].name, 'list_dir');
  assert.deepEqual(m.content[3].input, { path: '.' });
  assert.equal(m.stop_reason, 'tool_use');
  assert.equal(m.usage.input_tokens, 1000);
  assert.equal(m.usage.output_tokens, 42);
}

function followUp(first) {
  return [
    { role: 'user', content: prompt },
    { role: 'assistant', content: first.content },
    { role: 'user', content: first.content.filter((b) => b.type === 'tool_use').map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: 'ok' })) },
  ];
}

function checkSecond(m) {
  assert.equal(m.content.length, 2);
  assert.equal(m.content[0].type, 'thinking');
  assert.equal(m.content[0].thinking, 'Now patch it.');
  assert.match(m.content[0].signature, /^Eq/);
  assert.equal(m.content[1].text, 'Patched. The test passes now.');
  assert.equal(m.stop_reason, 'end_turn');
  assert.equal(m.usage.output_tokens, tok('Patched. The test passes now.') + tok('Now patch it.'));
  assert.ok(m.usage.input_tokens > 0);
}

async function main() {
  // 1. streamed: one session (API key) through the whole scenario
  const c1 = client('sk-ant-stream');
  const s1 = c1.messages.stream(params([{ role: 'user', content: prompt }]));
  let jsonPieces = 0;
  s1.on('streamEvent', (e) => {
    if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta' && e.index === 2) jsonPieces++;
  });
  const m1 = await s1.finalMessage();
  checkFirst(m1);
  assert.ok(jsonPieces > 2, `tool input arrived in ${jsonPieces} pieces`);
  const t0 = Date.now();
  const m2 = await c1.messages.stream(params(followUp(m1))).finalMessage(); // a 429 first: retried
  checkSecond(m2);
  assert.ok(Date.now() - t0 >= 15, 'the retry waited for retry-after-ms');
  await assert.rejects(c1.messages.create(params(followUp(m1))), (e) => e.status === 400 && /no more responses/.test(e.message));

  // 2. whole (not streamed), another session: the same message, byte for byte
  const c2 = client('sk-ant-whole');
  const w1 = await c2.messages.create(params([{ role: 'user', content: prompt }]));
  assert.deepEqual(plain(w1), plain(m1));
  const w2 = await c2.messages.create(params(followUp(w1)));
  assert.deepEqual(plain(w2.content), plain(m2.content));

  // 3. the scenario named in the URL path, x-api-key auth (0.x style)
  const c3 = new Anthropic({ apiKey: null, authToken: null, baseURL: URL + '/s/sdk_agent', maxRetries: 0, defaultHeaders: { 'x-api-key': 'sk-ant-path' } });
  const p1 = await c3.messages.create(params([{ role: 'user', content: 'something else entirely' }]));
  assert.deepEqual(plain(p1.content), plain(m1.content));

  // 4. errors, the scenario named by header
  const ce = client('sk-ant-errors', { headers: { 'x-scenario-name': 'sdk_errors' } });
  const q = params([{ role: 'user', content: 'Summarise the changelog' }]);
  await assert.rejects(ce.messages.create(q), (e) => {
    assert.equal(e.status, 400);
    assert.equal(e.error.error.type, 'invalid_request_error');
    assert.match(e.message, /context window exceeded/);
    assert.match(e.requestID, /^req_/);
    return true;
  });
  const s4 = ce.messages.stream(q);
  let text = '';
  s4.on('text', (t) => { text += t; });
  await assert.rejects(s4.finalMessage(), (e) => /Overloaded/.test(e.message));
  assert.equal(text, 'partial answer');
  const r = await ce.messages.create(q); // two 503s, retried
  assert.equal(r.content[0].text, 'recovered after two retries');
  await assert.rejects(ce.messages.create(q), (e) => e.status === 400);

  // 5. models
  const models = await c1.models.list();
  assert.ok(models.data.some((x) => x.id === 'scvm-mock'));
  console.log('anthropic sdk: all checks passed');
}

main().catch((e) => { console.error(e); process.exit(1); });
