// SPDX-License-Identifier: MIT
// The official Google Gen AI SDK (@google/genai, pinned in
// package-lock.json at the version Gemini CLI uses) against `scvm serve
// llm`: generateContent streamed and whole, function calls, thoughts,
// usage, errors and countTokens must come back as sdk_agent and sdk_errors
// script them.
'use strict';
const assert = require('node:assert/strict');
const { GoogleGenAI } = require('@google/genai');

const URL = process.env.SCVM_URL;
const prompt = 'Fix the failing test in parser.c';
const ARGS = { path: 'parser.c', limit: 200, note: 'héllo wörld — ünïcode split into pieces ✓' };
const tok = (s) => Math.ceil(Buffer.byteLength(s) / 4);
const tools = [{ functionDeclarations: ['read_file', 'list_dir'].map((name) => ({ name, parameters: { type: 'OBJECT', properties: {} } })) }];

function client(key, headers) {
  return new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: URL, headers } });
}

function followUp(calls) {
  return [
    { role: 'user', parts: [{ text: prompt }] },
    { role: 'model', parts: calls.map((c) => ({ functionCall: c })) },
    { role: 'user', parts: calls.map((c) => ({ functionResponse: { name: c.name, response: { ok: true } } })) },
  ];
}

async function main() {
  // 1. streamed (alt=sse), with thoughts: text, then the calls whole
  const c1 = client('g-stream');
  const stream = await c1.models.generateContentStream({
    model: 'gemini-test', contents: prompt, config: { tools, thinkingConfig: { includeThoughts: true } },
  });
  let text = '', thoughts = '', calls = [], last;
  for await (const ch of stream) {
    for (const p of ch.candidates?.[0]?.content?.parts || []) {
      if (p.thought) thoughts += p.text;
      else if (p.text) text += p.text;
    }
    if (ch.functionCalls) calls.push(...ch.functionCalls);
    last = ch;
  }
  assert.equal(text, 'I will read parser.c first.');
  assert.equal(thoughts, 'The user wants a fix. Let me read the file.');
  assert.deepEqual(calls.map((c) => c.name), ['read_file', 'list_dir']);
  assert.deepEqual(calls[0].args, ARGS);
  assert.deepEqual(calls[1].args, { path: '.' });
  assert.equal(last.candidates[0].finishReason, 'STOP');
  assert.equal(last.modelVersion, 'gemini-test');
  assert.match(last.responseId, /^[0-9A-Za-z]{22}$/);
  assert.equal(last.usageMetadata.promptTokenCount, 1000);
  assert.equal(last.usageMetadata.totalTokenCount, 1042);
  assert.equal(last.usageMetadata.thoughtsTokenCount, tok('The user wants a fix. Let me read the file.'));

  // 2. the follow-up: one scripted 429 (the SDK does not retry), then content
  await assert.rejects(c1.models.generateContent({ model: 'gemini-test', contents: followUp(calls), config: { tools } }),
    (e) => e.status === 429 && /RESOURCE_EXHAUSTED/.test(e.message) && /slow down/.test(e.message));
  const r2 = await c1.models.generateContent({ model: 'gemini-test', contents: followUp(calls), config: { tools } });
  assert.equal(r2.text, 'Patched. The test passes now.');
  assert.ok(!JSON.stringify(r2).includes('Now patch it.'), 'thoughts only when includeThoughts');
  assert.equal(r2.usageMetadata.thoughtsTokenCount, tok('Now patch it.'));
  await assert.rejects(c1.models.generateContent({ model: 'gemini-test', contents: prompt }),
    (e) => e.status === 400 && /no more responses/.test(e.message));

  // 3. whole, another session (the key in the query this time): the same answer
  const c3 = client('g-whole');
  const w1 = await c3.models.generateContent({ model: 'gemini-test', contents: prompt, config: { tools } });
  assert.equal(w1.candidates[0].content.parts[0].text, 'I will read parser.c first.');
  assert.deepEqual(w1.functionCalls, calls);
  assert.equal(w1.responseId, last.responseId);
  assert.equal(w1.usageMetadata.candidatesTokenCount, 42 - w1.usageMetadata.thoughtsTokenCount);

  // 4. errors, the scenario named by header
  const ce = client('g-errors', { 'x-scenario-name': 'sdk_errors' });
  const q = { model: 'gemini-test', contents: 'Summarise the changelog' };
  await assert.rejects(ce.models.generateContent(q), (e) => {
    assert.equal(e.status, 400);
    assert.match(e.message, /INVALID_ARGUMENT/);
    assert.match(e.message, /context window exceeded/);
    return true;
  });
  let partial = '';
  await assert.rejects((async () => {
    for await (const ch of await ce.models.generateContentStream(q)) partial += ch.text || '';
  })());
  assert.equal(partial, 'partial answer');
  for (let i = 0; i < 2; i++)
    await assert.rejects(ce.models.generateContent(q), (e) => e.status === 503 && /UNAVAILABLE/.test(e.message));
  const ok = await ce.models.generateContent(q);
  assert.equal(ok.text, 'recovered after two retries');

  // 5. countTokens: an estimate, a quarter of the request's bytes
  const ct = await c1.models.countTokens({ model: 'gemini-test', contents: 'hello there' });
  assert.ok(ct.totalTokens > 0);
  console.log('gemini sdk: all checks passed');
}

main().catch((e) => { console.error(e); process.exit(1); });
