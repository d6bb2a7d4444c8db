// es_client.mjs MODULES URL N - subscribes to URL with the `eventsource`
// package (the WHATWG EventSource for Node, pinned in package.json), parses
// every message's data as JSON, and prints {"events": [...]} after N of
// them (or after 20 s: then with what came, for the test to report).
import * as path from "node:path";
import { pathToFileURL } from "node:url";

const [mods, url, n] = process.argv.slice(2);
const { EventSource } = await import(pathToFileURL(path.join(mods, "eventsource/dist/index.js")).href);
const events = [];
const errors = [];
const es = new EventSource(url);
const done = () => {
  es.close();
  process.stdout.write(JSON.stringify({ events, errors }) + "\n");
  process.exit(0);
};
es.onmessage = (m) => {
  try {
    events.push(JSON.parse(m.data));
  } catch (e) {
    errors.push(String(m.data));
  }
  if (events.length >= Number(n)) done();
};
es.onerror = (e) => errors.push(String(e && e.message));
setTimeout(done, 20000);
