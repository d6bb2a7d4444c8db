#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rest_test.py --scc SCC --scvm SCVM --work DIR [--modules DIR]

`scvm serve rest` (docs/serve-rest.md): tasks and sessions with curl, every event of a session exactly once and in order over SSE
for an early subscriber, a late one (catch-up then live, no gap and no
duplicate at the seam), one resuming with Last-Event-ID, and (with
--modules) the `eventsource` npm package reconnecting by itself through a
proxy that cuts its connection mid-stream; pause, resume, stop, prompts,
pagination, errors; byte-identical streams on two runs."""
import json
import os
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import sse_util  # noqa: E402
from testlib import expect, failures  # noqa: E402
args = {}
i = 1
while i < len(sys.argv):
    args[sys.argv[i].lstrip("-")] = sys.argv[i + 1]
    i += 2
SCC, SCVM, WORK = args["scc"], args["scvm"], os.path.abspath(args["work"])
os.makedirs(WORK, exist_ok=True)
SID = "00000000000000000000000001"


def Server(*extra):
    return sse_util.Server(SCVM, "rest", *extra)


def request(port, method, path, body=None):
    """One REST call with curl, as a user would make it."""
    cmd = ["curl", "-s", "-i", "-X", method, "http://127.0.0.1:%d%s" % (port, path)]
    if body is not None:
        cmd += ["-H", "Content-Type: application/json", "--data-binary", json.dumps(body)]
    out = subprocess.run(cmd, capture_output=True, timeout=20).stdout
    head, _, rest = out.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    hdr = {k.lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
    return int(lines[0].split()[1]), hdr, json.loads(rest) if rest else None


class Sub(sse_util.Stream):
    """GET .../events of session sid (after Last-Event-ID last) on a raw socket."""

    def __init__(self, port, last=None, sid=SID):
        extra = b"Last-Event-ID: %d\r\n" % last if last is not None else b""
        super().__init__(port, "/api/v1/sessions/%s/events" % sid, extra)

    def events(self, timeout=0.0):
        self.pump(timeout)
        out = []
        for block in self.body.decode().split("\n\n"):
            f = dict(l.split(": ", 1) for l in block.split("\n") if ": " in l and not l.startswith(":"))
            if "data" in f:
                out.append((int(f["id"]), f.get("event"), json.loads(f["data"])))
        return out


def done(ev):
    return ev and ev[-1][2].get("status") in ("completed", "stopped", "cancelled")


def proxy(port, cut_after):
    """A TCP proxy that cuts its first connection after cut_after bytes
    from the server (a network drop), and passes later ones through."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)
    state = {"first": True}

    def pipe(a, b, limit):
        sent = 0
        try:
            while True:
                d = a.recv(65536)
                if not d:
                    break
                if limit is not None and sent + len(d) >= limit:
                    b.sendall(d[:limit - sent])
                    break
                b.sendall(d)
                sent += len(d)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def serve():
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                return
            u = socket.create_connection(("127.0.0.1", port))
            limit = cut_after if state["first"] else None
            state["first"] = False
            threading.Thread(target=pipe, args=(c, u, None), daemon=True).start()
            threading.Thread(target=pipe, args=(u, c, limit), daemon=True).start()
    threading.Thread(target=serve, daemon=True).start()
    return ls.getsockname()[1]


def main():
    scb = os.path.join(WORK, "rest_paced.scb")
    subprocess.run([SCC, "-o", scb, os.path.join(HERE, "scenarios", "rest_paced.yaml")], check=True)

    # ---- the API around sessions ----
    srv = Server("--speed", "0", "--keepalive", "200", scb)
    for path, want in (("/healthz", {"status": "ok"}), ("/readyz", {"status": "ready"})):
        code, _, body = request(srv.port, "GET", path)
        expect(code == 200 and body == want, "%s: %d %s" % (path, code, body))
    code, _, body = request(srv.port, "GET", "/version")
    expect(code == 200 and body["name"] == "scvm serve rest", "/version: %s" % body)
    code, hdr, body = request(srv.port, "POST", "/api/v1/tasks", {"prompt": 3})
    expect(code == 400 and hdr["content-type"] == "application/problem+json" and body["status"] == 400,
           "a bad task: %d %s" % (code, body))
    code, _, body = request(srv.port, "POST", "/api/v1/tasks",
                            {"prompt": [{"type": "text", "text": "count slowly"}],
                             "agents": [{"type": "codex", "count": 2}]})
    expect(code == 201 and body["session_ids"] == [SID, "00000000000000000000000002"] and body["status"] == "queued"
           and body["links"]["events"] == "/api/v1/sessions/%s/events" % SID, "POST /tasks: %d %s" % (code, body))
    sub = Sub(srv.port)
    ev = sub.until(done)
    ids = [e[0] for e in ev]
    expect(ids == list(range(1, len(ids) + 1)) and len(ids) == 39 and all(e[1] == "session" for e in ev),
           "ids %s" % ids)
    kinds = [e[2]["type"] for e in ev]
    for k in ("status", "user_input", "thought", "log", "tool_use", "tool_result", "file_edit"):
        expect(k in kinds, "no %s event: %s" % (k, kinds))
    tu = [e[2] for e in ev if e[2]["type"] == "tool_use"][0]
    expect(tu["tool_name"] == "runCmd" and tu["tool_args"] == {"cmd": "make test"} and tu["status"] == "started"
           and tu["tool_execution_id"] == "tool_exec_1", "tool_use %s" % tu)
    # the spec's shapes, field by field (API.md, "Logs and Events")
    by = {}
    for e in ev:
        by.setdefault(e[2]["type"], e[2])
    expect(list(by["status"]) == ["type", "status", "ts"] and by["status"]["status"] == "queued", "status %s" % by["status"])
    expect(by["thought"] == {"type": "thought", "thought": "counting", "ts": "1970-01-01T00:00:00.050Z"},
           "thought %s" % by["thought"])
    expect(by["log"] == {"type": "log", "level": "info", "message": "count 1", "tool_execution_id": None,
                         "ts": "1970-01-01T00:00:00.100Z"}, "log %s" % by["log"])
    tr = by["tool_result"]
    expect(tr == {"type": "tool_result", "tool_name": "runCmd", "tool_output": "ok", "tool_execution_id": "tool_exec_1",
                  "status": "completed", "ts": tr["ts"]}, "tool_result %s" % tr)
    prog = [e[2] for e in ev if e[2]["type"] == "log" and e[2].get("stream")]
    expect(prog and prog[0]["message"] == "building" and prog[0]["tool_execution_id"] == "tool_exec_1",
           "tool progress %s" % prog)
    fe = [e[2] for e in ev if e[2]["type"] == "file_edit"][0]
    expect(fe == {"type": "file_edit", "file_path": "src/main.c", "lines_added": 3, "lines_removed": 1,
                  "ts": fe["ts"]}, "file_edit %s" % fe)
    expect(b"retry: 3000" in sub.body, "no retry: line")
    time.sleep(0.5)
    sub.pump(0.1)
    expect(b": keep-alive" in sub.body, "no keep-alive comment at --keepalive 200")
    sub.close()
    code, _, body = request(srv.port, "GET", "/api/v1/sessions/" + SID)
    expect(code == 200 and body["status"] == "completed" and body["agent"]["type"] == "codex" and
           body["changes"] == {"files_changed": 1, "lines_added": 3, "lines_removed": 1} and
           body["recent_events"] == [], "GET session %s" % body)
    code, _, body = request(srv.port, "GET", "/api/v1/sessions/%s/logs?tail=2" % SID)
    expect(code == 200 and [l["message"] for l in body["items"]] == ["count 30", "building"], "logs %s" % body)
    code, _, body = request(srv.port, "GET", "/api/v1/sessions/%s/logs" % SID)
    expect(code == 200 and len(body["items"]) == 31 and all(l["type"] == "log" for l in body["items"]),
           "all logs: %d" % len(body.get("items", [])))
    # rest_paced has no `merge`: its completed sessions are not listed (the
    # spec's "When omitted, completed scenarios are not shown in session
    # listings"), and still answer by id
    expect(Sub(srv.port, sid="00000000000000000000000002").until(done)[-1][2]["status"] == "completed",
           "the second session did not complete")
    for q in ("", "?status=completed"):
        code, _, body = request(srv.port, "GET", "/api/v1/sessions" + q)
        expect(code == 200 and body["total"] == 0 and body["items"] == [], "completed, not merged, listed: %s" % body)
    expect(request(srv.port, "GET", "/api/v1/sessions/00000000000000000000000002")[0] == 200, "by id")
    code, _, body = request(srv.port, "GET", "/api/v1/sessions?status=running")
    expect(body["total"] == 0, "status filter %s" % body)
    expect(request(srv.port, "GET", "/api/v1/sessions/NOPE")[0] == 404, "unknown session")
    expect(request(srv.port, "POST", "/api/v1/sessions/%s/prompt" % SID, {"prompt": "more"})[0] == 410,
           "a prompt to an ended session")
    expect(request(srv.port, "POST", "/api/v1/sessions/%s/stop" % SID)[0] == 409, "stop an ended session")
    # garbage: every request answered (a status, a JSON or Problem+JSON body), the server alive
    import random
    rnd = random.Random(16)
    paths = ["/api/v1/tasks", "/api/v1/sessions", "/api/v1/sessions/" + SID, "/api/v1/sessions/%s/prompt" % SID,
             "/api/v1/sessions/%s/pause" % SID, "/api/v1/sessions/x/events", "/api/v1/sessions?page=-1&perPage=99999"]
    bodies = [None, {}, [], 7, {"prompt": None}, {"prompt": [{"type": 3}]}, {"prompt": [{}]}, {"message": "\u0000x"},
              {"prompt": [{"type": "text", "text": "x" * 20000}]}, {"agents": [{"count": 1e308}], "prompt": "p"},
              {"agents": [{"count": -5, "type": 4}], "prompt": "count slowly"}]
    for _ in range(60):
        code, _, _ = request(srv.port, rnd.choice(["GET", "POST", "DELETE", "PUT"]), rnd.choice(paths),
                             rnd.choice(bodies))
        expect(200 <= code < 500, "a garbage request got %d" % code)
    expect(request(srv.port, "GET", "/healthz")[0] == 200, "alive after garbage")
    code, log = srv.stop()
    expect(code == 0 and "summary: " in log, "exit %s" % code)

    # ---- `merge`: completed sessions of a scenario with it stay listed; pagination over them ----
    pack = os.path.join(WORK, "rest_two.scp")
    subprocess.run([SCC, "--pack", "-o", pack, os.path.join(HERE, "scenarios", "rest_paced.yaml"),
                    os.path.join(HERE, "scenarios", "rest_merge.yaml")], check=True)
    srv = Server("--speed", "0", pack)
    code, _, body = request(srv.port, "POST", "/api/v1/tasks", {"prompt": "merge me", "agents": [{"count": 3}]})
    merged = body["session_ids"]
    code, _, body = request(srv.port, "POST", "/api/v1/tasks", {"prompt": "count slowly"})
    plain = body["session_ids"]
    for sid in merged + plain:
        expect(Sub(srv.port, sid=sid).until(done)[-1][2]["status"] == "completed", "%s did not complete" % sid)
    code, _, body = request(srv.port, "GET", "/api/v1/sessions")
    expect(code == 200 and body["total"] == 3 and [s["id"] for s in body["items"]] == merged and
           all(s["status"] == "completed" and s["scenario"] == "rest_merge" for s in body["items"]),
           "merged sessions listed: %s" % body)
    code, _, body = request(srv.port, "GET", "/api/v1/sessions?perPage=1&page=2")
    expect(code == 200 and body["total"] == 3 and [s["id"] for s in body["items"]] == [merged[1]]
           and body["nextPage"] == 3, "pagination %s" % body)
    code, _, body = request(srv.port, "GET", "/api/v1/sessions?status=completed&perPage=2&page=2")
    expect(body["total"] == 3 and [s["id"] for s in body["items"]] == [merged[2]] and body["nextPage"] is None,
           "pagination, last page %s" % body)
    expect(request(srv.port, "GET", "/api/v1/sessions/" + plain[0])[1] is not None, "by id")
    srv.stop()

    # ---- late subscribers, Last-Event-ID, pause/resume, stop ----
    srv = Server("--speed", "1", scb)
    request(srv.port, "POST", "/api/v1/tasks", {"prompt": "count slowly"})
    # a running session is listed, whatever its scenario says of `merge`
    code, _, body = request(srv.port, "GET", "/api/v1/sessions")
    expect(body["total"] == 1 and body["items"][0]["id"] == SID and body["items"][0]["status"] in ("queued", "running"),
           "a running session listed: %s" % body)
    early = Sub(srv.port)
    time.sleep(0.6)
    late = Sub(srv.port)
    first = late.events(0.2)
    expect(first and first[0][0] == 1 and len(first) > 3, "a late subscriber's catch-up: %s" % first[:3])
    resumed = Sub(srv.port, last=5)
    a, b, c = early.until(done), late.until(done), resumed.until(done)
    ida, idb, idc = [e[0] for e in a], [e[0] for e in b], [e[0] for e in c]
    expect(ida == list(range(1, 40)) and idb == ida, "early %s late %s" % (ida, idb))
    expect(idc == list(range(6, 40)), "Last-Event-ID 5: %s" % idc)
    expect([e[2] for e in a] == [e[2] for e in b], "early and late differ")
    for s in (early, late, resumed):
        s.close()
    request(srv.port, "POST", "/api/v1/tasks", {"prompt": "count slowly"})
    s2 = "00000000000000000000000002"
    sub = Sub(srv.port, sid=s2)
    time.sleep(0.4)
    code, _, body = request(srv.port, "POST", "/api/v1/sessions/%s/pause" % s2)
    expect(code == 202 and body["status"] == "paused", "pause %d %s" % (code, body))
    expect(request(srv.port, "POST", "/api/v1/sessions/%s/prompt" % s2, {"prompt": "x"})[0] == 409, "prompt paused")
    n_paused = len(sub.events(0.5))
    expect(n_paused == len(sub.events(0.3)), "events while paused")
    code, _, body = request(srv.port, "POST", "/api/v1/sessions/%s/resume" % s2)
    expect(code == 202 and body["status"] == "running", "resume %d %s" % (code, body))
    code, _, body = request(srv.port, "POST", "/api/v1/sessions/%s/prompt" % s2, {"prompt": "and faster"})
    expect(code == 202 and body["accepted"] is True, "prompt %d %s" % (code, body))
    time.sleep(0.2)
    code, _, body = request(srv.port, "POST", "/api/v1/sessions/%s/stop" % s2)
    expect(code == 202 and body["status"] == "stopped", "stop %d %s" % (code, body))
    ev = sub.until(done)
    st = [e[2]["status"] for e in ev if e[2]["type"] == "status"]
    expect(st == ["queued", "running", "pausing", "paused", "resuming", "running", "stopping", "stopped"],
           "statuses %s" % st)
    expect([e[0] for e in ev] == list(range(1, len(ev) + 1)), "ids after pause and stop")
    expect(any(e[2] == {"type": "user_input", "text": "and faster", "ts": e[2]["ts"]} for e in ev), "the prompt event")
    sub.close()
    srv.stop()

    # ---- a subscriber far behind: 300 events, all of them (the reference loses those 128 behind) ----
    big = os.path.join(WORK, "rest_many.yaml")
    with open(big, "w") as f:
        f.write("name: rest_many\ntimeline:\n  - userInputs: [[0, 'many']]\n  - llmResponse:\n      - assistant:\n")
        f.writelines("          - [%d, 'line %d']\n" % (k, k) for k in range(1, 298))
    subprocess.run([SCC, "-o", big + ".scb", big], check=True)
    # --scenario-define is -D (here refused alike: the fixture has no variants)
    outs = [subprocess.run([SCVM, "serve", "rest", d, "unused=1", big + ".scb"], capture_output=True, text=True)
            for d in ("-D", "--scenario-define")]
    expect(outs[0].returncode == outs[1].returncode == 2 and outs[0].stderr == outs[1].stderr,
           "--scenario-define and -D: %s / %s" % (outs[0].stderr, outs[1].stderr))
    srv = Server("--scenario-speed", "0", big + ".scb")
    request(srv.port, "POST", "/api/v1/tasks", {"prompt": "many"})
    time.sleep(0.2)
    sub = Sub(srv.port)
    ev = sub.until(done)
    expect([e[0] for e in ev] == list(range(1, 302)), "300 behind: %d events, ids %s..." % (len(ev), [e[0] for e in ev][:5]))
    sub.close()
    srv.stop()

    # ---- the same run twice: the same bytes ----
    bodies = []
    for _ in range(2):
        srv = Server("--speed", "0", scb)
        request(srv.port, "POST", "/api/v1/tasks", {"prompt": "count slowly"})
        sub = Sub(srv.port)
        sub.until(done)
        bodies.append(sub.body)
        sub.close()
        srv.stop()
    expect(bodies[0] == bodies[1], "two runs differ")

    # ---- llm, rest and harness in one process ----
    p = subprocess.Popen([SCVM, "serve", "llm+rest+harness", "--listen", "127.0.0.1:0", "--rest-listen",
                          "127.0.0.1:0", "--harness-listen", "127.0.0.1:0", "--scenario-speed", "0", scb],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ports = {}
    for _ in range(3):
        name, _, url = p.stdout.readline().strip().partition(" listening on http://")
        ports[name] = int(url.rsplit(":", 1)[1]) if url else 0
    expect(sorted(ports) == ["harness", "llm", "rest"], "three servers: %s" % ports)
    if sorted(ports) == ["harness", "llm", "rest"]:
        expect(request(ports["llm"], "GET", "/health")[2] == {"status": "ok"}, "llm /health")
        expect(request(ports["rest"], "POST", "/api/v1/tasks", {"prompt": "count slowly"})[0] == 201, "rest task")
        hs = socket.create_connection(("127.0.0.1", ports["harness"]))
        hs.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        expect(b": connected" in hs.recv(4096), "harness /events")
        hs.close()
        # one loop serves the three (http_server_run_many): no thread of their own
        tasks = os.listdir("/proc/%d/task" % p.pid)
        expect(len(tasks) == 1, "three servers on one thread: %d threads" % len(tasks))
    p.terminate()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        expect(False, "SIGTERM did not stop the three servers")
    log = p.stderr.read()
    # the llm server was only asked for /health: no scenario was, so its
    # summary says INCOMPLETE and the exit status is 1 (docs/serve-llm.md)
    expect(p.returncode == 1 and "scvm serve: summary: INCOMPLETE: no request reached a scenario" in log and
           "scvm serve rest: summary: " in log and "scvm serve harness: summary: " in log,
           "three servers: exit %s\n%s" % (p.returncode, log[-800:]))

    # ---- the eventsource npm package, cut mid-stream, reconnecting ----
    mods = args.get("modules")
    if mods:
        if not os.path.isdir(os.path.join(mods, "eventsource")):
            print("SKIP: eventsource is not installed")
            return 77
        srv = Server("--speed", "1", scb)
        request(srv.port, "POST", "/api/v1/tasks", {"prompt": "count slowly"})
        pport = proxy(srv.port, 1500)
        es = subprocess.run(["node", os.path.join(os.path.dirname(HERE), "harness", "es_client.mjs"), mods,
                             "http://127.0.0.1:%d/api/v1/sessions/%s/events" % (pport, SID), "39", "session"],
                            capture_output=True, text=True, timeout=60)
        got = json.loads(es.stdout) if es.stdout.strip() else None
        ok = got is not None and len(got["events"]) == 39 and got["events"][-1]["status"] == "completed"
        expect(ok, "eventsource through a cut: %s %s" % (es.stdout[-800:], es.stderr[-300:]))
        if got:
            expect(got.get("ids") == [str(k) for k in range(1, 40)] and got.get("reconnects", 0) >= 1,
                   "eventsource ids %s, reconnects %s" % (got.get("ids"), got.get("reconnects")))
        srv.stop()
    return 0


rc = main()
if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
sys.exit(rc)
