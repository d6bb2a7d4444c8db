// SPDX-License-Identifier: MIT
// es_client.mjs MODULES URL N [EVENT] - subscribes to URL with the
// `eventsource` package (the WHATWG EventSource for Node, pinned in
// package.json; it reconnects by itself, sending Last-Event-ID), parses
// every message's data (of type EVENT, default "message") as JSON, and
// prints {"events": [...], "ids": [lastEventId...], "reconnects": K} after N
// of them (or after 20 s: then with what came, for the test to report).
// It writes "open" on stderr when first connected.
import * as path from "node:path";
import { pathToFileURL } from "node:url";

const [mods, url, n, name] = process.argv.slice(2);
const { EventSource } = await import(pathToFileURL(path.join(mods, "eventsource/dist/index.js")).href);
const events = [];
const ids = [];
const errors = [];
let opens = 0;
const es = new EventSource(url);
const done = () => {
  es.close();
  process.stdout.write(JSON.stringify({ events, ids, errors, reconnects: Math.max(0, opens - 1) }) + "\n");
  process.exit(0);
};
const onMessage = (m) => {
  try {
    events.push(JSON.parse(m.data));
    ids.push(m.lastEventId);
  } catch (e) {
    errors.push(String(m.data));
  }
  if (events.length >= Number(n)) done();
};
if (name) es.addEventListener(name, onMessage);
else es.onmessage = onMessage;
// "open" on stderr once connected: the test waits for it before it makes
// the server send anything (a fixed sleep lost the race on a busy machine).
es.onopen = () => {
  if (opens++ === 0) process.stderr.write("open\n");
};
es.onerror = (e) => errors.push(String(e && e.message));
setTimeout(done, 20000);
