#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""wire_golden.py SCVM FIXTURES GOLDEN [--update] - the server's exact bytes.

Serves every test scenario (FIXTURES/*.scb but fault*.scb) with --loop --speed 0 and,
for each scenario, API (Chat Completions, Responses, Messages, Gemini
generateContent) and mode (streamed, whole; Gemini's stream both as SSE
and as its JSON array), sends four requests on one keep-alive connection in a
session of its own, plus the server's own answers (models, health, 404,
405, a malformed request).  The SHA-256 of each exchange's raw response
bytes must equal the line in GOLDEN (tests/llm/wire.sha256): any change
to a byte on the wire shows here, by name.  With --update, GOLDEN is
rewritten instead (review the diff: every changed line is a wire change).
Exit 0, 1 on a difference.
"""
import glob, hashlib, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_util import Server, request, read_response  # noqa: E402

SCVM, FIX, GOLDEN = sys.argv[1:4]
UPDATE = "--update" in sys.argv[4:]

# Scripted network faults (cut, reset, refused) are no exchanges to hash:
# raw_http.py's t_faults checks them byte by byte.
scbs = sorted(p for p in glob.glob(os.path.join(FIX, "*.scb")) if not os.path.basename(p).startswith("fault"))
names = [os.path.basename(p)[:-4] for p in scbs]
srv = Server(SCVM, ["--loop", "--speed", "0", "--quiet"] + scbs)
got = {}
try:
    for name in names:
        for api, path in (("chat", "/v1/chat/completions"), ("responses", "/v1/responses"),
                          ("messages", "/v1/messages"), ("gemini", None), ("gemini-array", None)):
            for stream in (True, False):
                if api == "gemini-array" and not stream:
                    continue
                if api.startswith("gemini"):
                    method = "streamGenerateContent" if stream else "generateContent"
                    path = "/v1beta/models/gemini-test:" + method + ("?alt=sse" if api == "gemini" and stream else "")
                s = srv.connect()
                h = hashlib.sha256()
                for i in range(4):
                    if api == "responses":
                        body = {"model": "m", "input": "Fix it", "stream": stream}
                    elif api.startswith("gemini"):
                        body = {"contents": [{"role": "user", "parts": [{"text": "Fix it"}]}],
                                "generationConfig": {"thinkingConfig": {"includeThoughts": True}}}
                    else:
                        body = {"model": "m", "max_tokens": 64, "stream": stream,
                                "messages": [{"role": "user", "content": "Fix it"}]}
                        if api == "chat" and stream:
                            body["stream_options"] = {"include_usage": True}
                    key = "k-%s-%s-%s" % (name, api, stream)
                    hdr = {"x-api-key": key} if api == "messages" else \
                        {"x-goog-api-key": key} if api.startswith("gemini") else {"Authorization": "Bearer " + key}
                    _, _, _, raw = request(s, "POST", "/s/%s%s" % (name, path), json.dumps(body), hdr)
                    h.update(raw)
                s.close()
                got["%s %s %s" % (name, api, "stream" if stream else "whole")] = h.hexdigest()
    s = srv.connect()
    for what, method, path in (("models", "GET", "/v1/models"), ("health", "GET", "/health"),
                               ("not_found", "GET", "/nope"), ("wrong_method", "GET", "/v1/messages")):
        got["server " + what] = hashlib.sha256(request(s, method, path)[3]).hexdigest()
    s.close()
    s = srv.connect()
    s.sendall(b"GARBAGE\r\n\r\n")
    got["server malformed"] = hashlib.sha256(read_response(s)[3]).hexdigest()
    s.close()
finally:
    srv.stop()

text = "".join("%s  %s\n" % (v, k) for k, v in sorted(got.items()))
if UPDATE:
    with open(GOLDEN, "w") as f:
        f.write(text)
    print("wrote", GOLDEN, len(got), "exchanges")
    sys.exit(0)
want = {}
with open(GOLDEN) as f:
    for line in f:
        v, k = line.rstrip("\n").split("  ", 1)
        want[k] = v
bad = [k for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)]
for k in bad:
    print("FAIL: %s: %s, golden %s" % (k, got.get(k, "missing"), want.get(k, "missing")))
print("wire_golden: %d exchanges, %d differ" % (len(got), len(bad)))
sys.exit(1 if bad else 0)
