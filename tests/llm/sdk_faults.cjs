// SPDX-License-Identifier: MIT
// The official SDKs (pinned in package-lock.json) against `scvm serve llm`
// serving faults.scb (_meta.response.fault): a cut stream must raise in
// the SDK, never pass as a complete answer; a reset and a refused
// connection are retried by the SDK (maxRetries) and reach the next
// scripted response.  The Google Gen AI SDK does not retry: only its cut.
'use strict';
const assert = require('node:assert/strict');
const openaiMod = require('openai');
const OpenAI = openaiMod.OpenAI || openaiMod.default || openaiMod;
const anthropicMod = require('@anthropic-ai/sdk');
const Anthropic = anthropicMod.Anthropic || anthropicMod.default || anthropicMod;
const { GoogleGenAI } = require('@google/genai');

const URL = process.env.SCVM_URL;
const prompt = 'Survive the network';
const PARTIAL = 'The answer starts and is cut here';

async function chat() {
  const c = new OpenAI({ apiKey: 'sdk-chat', baseURL: URL + '/v1', maxRetries: 2 });
  const req = { model: 'gpt-test', messages: [{ role: 'user', content: prompt }], stream_options: { include_usage: true } };
  const s = c.chat.completions.stream(req);
  let text = '';
  s.on('content', (d) => { text += d; });
  await assert.rejects(s.finalChatCompletion(), (e) => { console.log('chat cut ->', e.constructor.name, e.message); return true; });
  assert.equal(text, PARTIAL, 'the text before the cut arrived');
  const retry = await c.chat.completions.create(req);           // the agent's own retry
  assert.equal(retry.choices[0].message.content, 'after the cut');
  const reset = await c.chat.completions.create(req);           // reset: the SDK retries
  assert.equal(reset.choices[0].message.content, 'after the reset');
  const refused = await c.chat.completions.create(req);         // refused: the SDK retries until it connects
  assert.equal(refused.choices[0].message.content, 'after the refusal');
}

async function responses() {
  const c = new OpenAI({ apiKey: 'sdk-responses', baseURL: URL + '/v1', maxRetries: 2 });
  const s = c.responses.stream({ model: 'gpt-test', input: prompt });
  let text = '';
  s.on('response.output_text.delta', (e) => { text += e.delta; });
  await assert.rejects(s.finalResponse(), (e) => { console.log('responses cut ->', e.constructor.name, e.message); return true; });
  assert.equal(text, PARTIAL);
  assert.equal((await c.responses.create({ model: 'gpt-test', input: prompt })).output_text, 'after the cut');
  assert.equal((await c.responses.create({ model: 'gpt-test', input: prompt })).output_text, 'after the reset');
  assert.equal((await c.responses.create({ model: 'gpt-test', input: prompt })).output_text, 'after the refusal');
}

async function messages() {
  const c = new Anthropic({ apiKey: 'sdk-messages', baseURL: URL, maxRetries: 2 });
  const p = { model: 'claude-test', max_tokens: 1024, messages: [{ role: 'user', content: prompt }] };
  const s = c.messages.stream(p);
  let text = '';
  s.on('text', (d) => { text += d; });
  await assert.rejects(s.finalMessage(), (e) => { console.log('messages cut ->', e.constructor.name, e.message); return true; });
  assert.equal(text, PARTIAL);
  const textOf = (m) => m.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  assert.equal(textOf(await c.messages.create(p)), 'after the cut');
  assert.equal(textOf(await c.messages.create(p)), 'after the reset');
  assert.equal(textOf(await c.messages.create(p)), 'after the refusal');
}

async function gemini() {
  const c = new GoogleGenAI({ apiKey: 'sdk-gemini', httpOptions: { baseUrl: URL } });
  let text = '';
  await assert.rejects((async () => {
    const stream = await c.models.generateContentStream({ model: 'gemini-test', contents: prompt });
    for await (const ch of stream)
      for (const part of ch.candidates?.[0]?.content?.parts || []) if (part.text && !part.thought) text += part.text;
  })(), (e) => { console.log('gemini cut ->', e.constructor.name, e.message); return true; });
  assert.equal(text, PARTIAL);
  const r = await c.models.generateContent({ model: 'gemini-test', contents: prompt });
  assert.equal(r.text, 'after the cut');
}

async function main() {
  await gemini();   // first: it does not retry, and another session's refusal window would fail it
  await chat();
  await responses();
  await messages();
  console.log('sdk faults: all checks passed');
}

main().catch((e) => { console.error(e); process.exit(1); });
