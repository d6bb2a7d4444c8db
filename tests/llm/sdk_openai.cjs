// SPDX-License-Identifier: MIT
// The official openai SDK (pinned in package-lock.json) against `scvm
// serve llm`: Chat Completions and Responses, streamed and whole, must
// reassemble exactly what sdk_agent and sdk_errors script.
'use strict';
const assert = require('node:assert/strict');
const mod = require('openai');
const OpenAI = mod.OpenAI || mod.default || mod;

const URL = process.env.SCVM_URL + '/v1';
const prompt = 'Fix the failing test in parser.c';
const ARGS = { path: 'parser.c', limit: 200, note: 'héllo wörld — ünïcode split into pieces ✓' };
const tok = (s) => Math.ceil(Buffer.byteLength(s) / 4);
const chatTools = ['read_file', 'list_dir'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));
const respTools = ['read_file', 'list_dir'].map((name) => ({ type: 'function', name, parameters: { type: 'object' }, strict: false }));

function client(key, headers) {
  return new OpenAI({ apiKey: key, baseURL: URL, maxRetries: 2, defaultHeaders: headers });
}

function checkFirst(c) {
  assert.equal(c.model, 'gpt-test');
  assert.match(c.id, /^chatcmpl-[0-9A-Za-z]{29}$/);
  const ch = c.choices[0];
  assert.equal(ch.finish_reason, 'tool_calls');
  assert.equal(ch.message.role, 'assistant');
  assert.equal(ch.message.content, 'I will read parser.c first.');
  assert.equal(ch.message.tool_calls.length, 2);
  const [a, b] = ch.message.tool_calls;
  assert.match(a.id, /^call_[0-9A-Za-z]{24}$/);
  assert.equal(a.type, 'function');
  assert.equal(a.function.name, 'read_file');
  assert.deepEqual(JSON.parse(a.function.arguments), ARGS);
  assert.equal(b.id, 'call_fixed_1');
  assert.equal(b.function.name, 'list_dir');
  assert.deepEqual(JSON.parse(b.function.arguments), { path: '.' });
  assert.equal(c.usage.prompt_tokens, 1000);
  assert.equal(c.usage.completion_tokens, 42);
  assert.equal(c.usage.total_tokens, 1042);
  assert.ok(!JSON.stringify(c).includes('The user wants'), 'thinking is never shown in OpenAI style');
}

function followUp(first) {
  const m = first.choices[0].message;
  return [
    { role: 'user', content: prompt },
    { role: 'assistant', content: m.content, tool_calls: m.tool_calls },
    ...m.tool_calls.map((t) => ({ role: 'tool', tool_call_id: t.id, content: 'ok' })),
  ];
}

function checkSecond(c) {
  const ch = c.choices[0];
  assert.equal(ch.finish_reason, 'stop');
  assert.equal(ch.message.content, 'Patched. The test passes now.');
  assert.equal(c.usage.completion_tokens, tok('Patched. The test passes now.') + tok('Now patch it.'));
  assert.equal(c.usage.completion_tokens_details.reasoning_tokens, tok('Now patch it.'));
}

async function main() {
  // 1. chat, streamed, include_usage: one session through the scenario
  const c1 = client('sk-stream');
  const req = { model: 'gpt-test', messages: [{ role: 'user', content: prompt }], tools: chatTools, stream_options: { include_usage: true } };
  const s1 = c1.chat.completions.stream(req);
  let argPieces = 0;
  s1.on('chunk', (ch) => {
    for (const t of ch.choices[0]?.delta?.tool_calls || []) if (t.index === 0 && t.function?.arguments) argPieces++;
  });
  const f1 = await s1.finalChatCompletion();
  checkFirst(f1);
  assert.ok(argPieces > 2, `arguments arrived in ${argPieces} pieces`);
  const f2 = await c1.chat.completions.stream({ ...req, messages: followUp(f1) }).finalChatCompletion(); // 429 retried
  checkSecond(f2);
  await assert.rejects(c1.chat.completions.create({ ...req, messages: followUp(f1) }), (e) => e.status === 400 && /no more responses/.test(e.message));

  // 2. chat, whole, another session: the same completion
  const c2 = client('sk-whole');
  const w1 = await c2.chat.completions.create({ model: 'gpt-test', messages: req.messages, tools: chatTools });
  checkFirst(w1);
  assert.equal(w1.id, f1.id);
  assert.deepEqual(w1.choices[0].message.tool_calls, f1.choices[0].message.tool_calls);
  const w2 = await c2.chat.completions.create({ model: 'gpt-test', messages: followUp(w1), tools: chatTools });
  checkSecond(w2);

  // 3. Responses API, streamed then whole
  const c3 = client('sk-responses');
  const r1 = await c3.responses.stream({ model: 'gpt-test', input: prompt, tools: respTools }).finalResponse();
  assert.equal(r1.status, 'completed');
  assert.equal(r1.output_text, 'I will read parser.c first.');
  const calls = r1.output.filter((o) => o.type === 'function_call');
  assert.equal(calls.length, 2);
  assert.equal(calls[0].name, 'read_file');
  assert.deepEqual(JSON.parse(calls[0].arguments), ARGS);
  assert.equal(calls[1].call_id, 'call_fixed_1');
  assert.equal(r1.usage.output_tokens, 42);
  assert.equal(r1.usage.input_tokens, 1000);
  const r2 = await c3.responses.create({ model: 'gpt-test', input: [{ role: 'user', content: prompt }, ...calls.map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: 'ok' }))], tools: respTools });
  assert.equal(r2.output_text, 'Patched. The test passes now.');

  // 4. errors (scenario named by header)
  const ce = client('sk-errors', { 'x-scenario-name': 'sdk_errors' });
  const q = { model: 'gpt-test', messages: [{ role: 'user', content: 'Summarise the changelog' }] };
  await assert.rejects(ce.chat.completions.create(q), (e) => {
    assert.equal(e.status, 400);
    assert.equal(e.code, 'invalid_request_error');
    assert.equal(e.type, 'invalid_request_error');
    assert.match(e.message, /context window exceeded/);
    assert.match(e.requestID, /^req_/);
    return true;
  });
  const s4 = ce.chat.completions.stream(q);
  let text = '';
  s4.on('content', (d) => { text += d; });
  await assert.rejects(s4.finalChatCompletion(), (e) => /Overloaded/.test(e.message));
  assert.equal(text, 'partial answer');
  const ok = await ce.chat.completions.create(q); // two 503s, retried
  assert.equal(ok.choices[0].message.content, 'recovered after two retries');

  // 5. models
  const models = await c1.models.list();
  assert.ok(models.data.some((m) => m.id === 'scvm-mock'));
  console.log('openai sdk: all checks passed');
}

main().catch((e) => { console.error(e); process.exit(1); });
