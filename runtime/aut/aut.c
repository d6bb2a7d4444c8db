/* SPDX-License-Identifier: MIT */
/* aut.c - an agent under test, over HTTP, ACP or a PTY (aut.h).
**
** HTTP keeps the conversation (user inputs and the agent's answers) and
** sends all of it each turn, as a chat API is used.  ACP and PTY keep a
** process: ACP's stdout is read as JSON-RPC lines, its requests to us
** answered at once; the PTY's output goes through the PTY target's own
** libvterm screen (so terminal queries are answered) and is kept as bytes
** for the reply's text. */
#define _GNU_SOURCE
#include "runtime/aut/aut.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/monotime.h"
#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "runtime/rt_proc.h"
#include "runtime/agent/agent_launch.h"
#include "runtime/http/http_client.h"
#include "runtime/pty/rt_pty_screen.h"
#include "runtime/pty/rt_pty_session.h"

extern char **environ;

#define REPLY_MAX ((size_t)16 << 20)    /* bytes of an answer kept */
#define LINE_MAX_ACP ((size_t)64 << 20) /* bytes of one JSON-RPC line */

struct Aut {
    AutConfig c;
    /* HTTP */
    cJSON *messages;
    char url[4096];
    cJSON *next_options;        /* the next turn's request options (aut_next), or NULL */
    cJSON *next_parts;          /* the next turn's content parts after its text, or NULL */
    /* ACP */
    RtProc *proc;               /* the agent, under rt_proc's init */
    int to;                     /* its stdin and stdout (a socket) */
    bool borrowed;              /* to is the caller's (aut_open_acp_fd) */
    Buf in;                     /* bytes read, not yet a whole line */
    long next_id;
    char *session;              /* ACP's session id */
    char *conv;                 /* a copy of the config's session name */
    /* PTY */
    PtySession *ps;
    PtyScreen *scr;
    Buf out;                    /* the turn's output bytes */
    /* PTY with a profile */
    char run[PATH_MAX];         /* the agent's HOME's parent, made here ("" for none) */
    char ws[PATH_MAX];          /* its workspace, absolute (the profile's {workspace}) */
    AgentLaunch launch;
    char **envp;                /* the environment it gets */
    const char *ready;          /* interactive.ready (NULL: none) */
    const cJSON *busy;          /* interactive.busy: texts shown while it works (NULL: none) */
    unsigned type_delay;        /* interactive.typeDelayMs */
};

const char *aut_err_name(AutErr e)
{
    static const char *const n[] = { "OK", "E_AUT_START", "E_AUT_TIMEOUT", "E_AUT_PROTOCOL", "E_AUT_EXITED",
                                     "E_AUT_CANCELLED" };
    return (unsigned)e < sizeof n / sizeof n[0] ? n[e] : "E_AUT";
}

static unsigned budget(const Aut *a)
{
    return a->c.timeout_ms ? a->c.timeout_ms : 60000;
}

static void add_action(AutReply *r, const char *name, const char *input)
{
    AutAction *na = sc_realloc(r->actions, (r->n_actions + 1) * sizeof *na);
    if (!na)
        return;
    r->actions = na;
    na[r->n_actions].name = sc_strdup(name ? name : "");
    na[r->n_actions].input = sc_strdup(input && *input ? input : "{}");
    r->n_actions++;
}

void aut_reply_fini(AutReply *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_actions; i++) {
        sc_free(r->actions[i].name);
        sc_free(r->actions[i].input);
    }
    sc_free(r->actions);
    sc_free(r->text);
    sc_free(r->screen);
    sc_free(r->stop);
    memset(r, 0, sizeof *r);
}

/* ---------- HTTP: an OpenAI-compatible chat endpoint ---------- */

static AutErr http_turn(Aut *a, const char *input, AutReply *r, char *err, size_t errlen)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", "user");
    if (a->next_parts) {
        /* attachments: the text first, then each part as the case wrote it */
        cJSON *parts = cJSON_AddArrayToObject(m, "content"), *tp = cJSON_CreateObject(), *x;
        cJSON_AddStringToObject(tp, "type", "text");
        cJSON_AddStringToObject(tp, "text", input);
        cJSON_AddItemToArray(parts, tp);
        cJSON_ArrayForEach(x, a->next_parts) cJSON_AddItemToArray(parts, cJSON_Duplicate(x, true));
    } else {
        cJSON_AddStringToObject(m, "content", input);
    }
    cJSON_AddItemToArray(a->messages, m);
    cJSON *req = cJSON_CreateObject();
    cJSON_AddStringToObject(req, "model", a->c.model ? a->c.model : "agent-under-test");
    cJSON_AddItemReferenceToObject(req, "messages", a->messages);
    cJSON_AddFalseToObject(req, "stream");
    if (a->next_options) {
        /* a Yao case's options (context.Options): as they are, and their
        ** metadata as the request's metadata */
        const cJSON *md = cJSON_GetObjectItemCaseSensitive(a->next_options, "metadata");
        if (cJSON_IsObject(md))
            cJSON_AddItemToObject(req, "metadata", cJSON_Duplicate(md, true));
        cJSON_AddItemToObject(req, "options", cJSON_Duplicate(a->next_options, true));
    }
    cJSON_Delete(a->next_options);
    cJSON_Delete(a->next_parts);
    a->next_options = a->next_parts = NULL;
    char *body = cJSON_PrintUnformatted(req);
    cJSON_Delete(req);
    char hdr[1400] = "Content-Type: application/json\r\nAccept: application/json\r\n";
    if (a->c.api_key)
        snprintf(hdr + strlen(hdr), sizeof hdr - strlen(hdr), "Authorization: Bearer %.900s\r\n", a->c.api_key);
    if (a->c.session)
        snprintf(hdr + strlen(hdr), sizeof hdr - strlen(hdr), "X-Scenario-Session: %.200s\r\n", a->c.session);
    HttpResponse res;
    int st = body ? http_request("POST", a->url, hdr, body, strlen(body), budget(a), a->c.cancel_fd, REPLY_MAX, &res,
                                 err, errlen)
                  : HTTP_CLIENT_FAILED;
    cJSON_free(body);
    if (st)
        return st == HTTP_CLIENT_TIMEOUT ? AUT_E_TIMEOUT : st == HTTP_CLIENT_CANCELLED ? AUT_E_CANCELLED : AUT_E_START;
    AutErr e = AUT_OK;
    cJSON *j = cJSON_ParseWithLength((const char *)res.body.data, res.body.len);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "choices"), 0), "message");
    if (res.status != 200 || !cJSON_IsObject(msg)) {
        snprintf(err, errlen, "%s: HTTP %d, %s: %.300s", a->url, res.status,
                 res.status != 200 ? "not 200" : "no choices[0].message", res.body.len ? (char *)res.body.data : "");
        e = AUT_E_PROTOCOL;
    } else {
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "content"));
        r->text = sc_strdup(text ? text : "");
        const cJSON *tc;
        cJSON_ArrayForEach(tc, cJSON_GetObjectItemCaseSensitive(msg, "tool_calls")) {
            const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
            add_action(r, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fn, "name")),
                       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(fn, "arguments")));
        }
        const char *fr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "choices"), 0), "finish_reason"));
        r->stop = sc_strdup(fr ? fr : "");
        /* the answer joins the conversation (its text: tool calls would
        ** need results that an agent under test does not ask us for) */
        cJSON *am = cJSON_CreateObject();
        cJSON_AddStringToObject(am, "role", "assistant");
        cJSON_AddStringToObject(am, "content", r->text ? r->text : "");
        cJSON_AddItemToArray(a->messages, am);
    }
    cJSON_Delete(j);
    buf_fini(&res.body);
    return e;
}

/* ---------- processes: ACP's pipes ---------- */


/* The agent's stdin and stdout are one end of a socket pair (so a write to
** an agent that died fails with EPIPE instead of raising SIGPIPE). */
static bool spawn_pipes(Aut *a, char *err, size_t errlen)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(err, errlen, "cannot make a socket pair: %s", strerror(errno));
        return false;
    }
    int logfd = open(a->c.log ? a->c.log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    char exe[PATH_MAX];
    const char *path = pty_find_exe(a->c.argv[0], exe, sizeof exe) ? exe : NULL;
    RtProcSpawn sp = { .path = path, .argv = a->c.argv, .cwd = a->c.cwd, .fd0 = sv[1], .fd1 = sv[1], .fd2 = logfd };
    int e = 0;
    RtProc *pr = path && logfd >= 0 ? rt_proc_spawn(&sp, &e) : NULL;
    close(sv[1]);
    if (logfd >= 0)
        close(logfd);
    if (!pr) {
        close(sv[0]);
        snprintf(err, errlen, "%s: %s", a->c.argv[0],
                 !path ? "not found on PATH" : logfd < 0 ? "cannot open the log" : strerror(e));
        return false;
    }
    a->proc = pr;
    a->to = sv[0];
    fcntl(a->to, F_SETFL, fcntl(a->to, F_GETFL) | O_NONBLOCK);
    return true;
}

/* SIGTERM to the agent, up to 2 s for it to exit, then the end of its
** whole tree (rt_proc_close: everything it started goes too). */
static void end_process(RtProc *p)
{
    if (!p)
        return;
    rt_proc_signal(p, SIGTERM);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        if (rt_proc_reap(p, NULL))
            break;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (ms >= 2000)
            break;
        struct pollfd pf = { .fd = rt_proc_exit_fd(p), .events = POLLIN };
        poll(&pf, 1, (int)(2000 - ms));
    }
    rt_proc_close(p);
}

/* ---------- ACP ---------- */

static bool acp_send(Aut *a, cJSON *msg)
{
    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    char *s = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    if (!s)
        return false;
    size_t n = strlen(s);
    bool ok = true;
    for (size_t off = 0; ok && off <= n;) {
        const char *p = off < n ? s + off : "\n";
        size_t l = off < n ? n - off : 1;
        ssize_t w = send(a->to, p, l, MSG_NOSIGNAL);
        if (w > 0) {
            off += (size_t)w;
        } else if (w < 0 && errno == EAGAIN) {
            struct pollfd pf = { .fd = a->to, .events = POLLOUT };
            ok = poll(&pf, 1, (int)budget(a)) > 0;
        } else if (!(w < 0 && errno == EINTR)) {
            ok = false;
        }
    }
    cJSON_free(s);
    return ok;
}

/* The next JSON-RPC message (NULL with *e set on timeout, cancel, exit or
** a line that is not JSON). */
static cJSON *acp_read(Aut *a, uint64_t deadline, AutErr *e, char *err, size_t errlen)
{
    for (;;) {
        char *nl = a->in.len ? memchr(a->in.data, '\n', a->in.len) : NULL;
        if (nl) {
            size_t l = (size_t)(nl - (char *)a->in.data);
            cJSON *j = cJSON_ParseWithLength((const char *)a->in.data, l);
            memmove(a->in.data, nl + 1, a->in.len - l - 1);
            a->in.len -= l + 1;
            if (!j && l) {
                snprintf(err, errlen, "the agent wrote a line that is not JSON");
                *e = AUT_E_PROTOCOL;
                return NULL;
            }
            if (j)
                return j;
            continue;
        }
        if (a->in.len > LINE_MAX_ACP) {
            snprintf(err, errlen, "the agent wrote a line over %zu bytes", LINE_MAX_ACP);
            *e = AUT_E_PROTOCOL;
            return NULL;
        }
        uint64_t now = sc_now_ms();
        if (now >= deadline) {
            snprintf(err, errlen, "no answer from the agent in %u ms", budget(a));
            *e = AUT_E_TIMEOUT;
            return NULL;
        }
        struct pollfd pf[2] = { { .fd = a->to, .events = POLLIN }, { .fd = a->c.cancel_fd, .events = POLLIN } };
        int r = poll(pf, a->c.cancel_fd >= 0 ? 2 : 1, (int)(deadline - now));
        if (r < 0 && errno != EINTR) {
            snprintf(err, errlen, "poll: %s", strerror(errno));
            *e = AUT_E_PROTOCOL;
            return NULL;
        }
        if (a->c.cancel_fd >= 0 && r > 0 && pf[1].revents) {
            snprintf(err, errlen, "cancelled");
            *e = AUT_E_CANCELLED;
            return NULL;
        }
        if (r <= 0 || !pf[0].revents)
            continue;
        if (!buf_reserve(&a->in, 65536)) {
            snprintf(err, errlen, "out of memory");
            *e = AUT_E_PROTOCOL;
            return NULL;
        }
        ssize_t n = recv(a->to, a->in.data + a->in.len, a->in.cap - a->in.len, 0);
        if (n > 0) {
            a->in.len += (size_t)n;
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            snprintf(err, errlen, "the agent's process ended");
            *e = AUT_E_EXITED;
            return NULL;
        }
    }
}

/* A request of the agent's to us, answered: a permission by its first
** "reject" option (else cancelled), anything else as not supported. */
static bool acp_answer(Aut *a, const cJSON *req)
{
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(req, "method"));
    cJSON *res = cJSON_CreateObject();
    cJSON_AddItemToObject(res, "id", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(req, "id"), true));
    if (method && strcmp(method, "session/request_permission") == 0) {
        const char *opt = NULL;
        const cJSON *o;
        cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(req, "params"),
                                                               "options")) {
            const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "kind"));
            if (!opt && kind && strncmp(kind, "reject", 6) == 0)
                opt = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "optionId"));
        }
        cJSON *out = cJSON_AddObjectToObject(cJSON_AddObjectToObject(res, "result"), "outcome");
        if (opt) {
            cJSON_AddStringToObject(out, "outcome", "selected");
            cJSON_AddStringToObject(out, "optionId", opt);
        } else {
            cJSON_AddStringToObject(out, "outcome", "cancelled");
        }
    } else {
        cJSON *e = cJSON_AddObjectToObject(res, "error");
        cJSON_AddNumberToObject(e, "code", -32601);
        cJSON_AddStringToObject(e, "message", "not supported by this client (scvm's agent-under-test client)");
    }
    return acp_send(a, res);
}

/* A session/update into the reply. */
static void acp_update(const cJSON *msg, Buf *text, AutReply *r)
{
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(msg, "params"), "update");
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(u, "sessionUpdate"));
    if (!kind)
        return;
    if (strcmp(kind, "agent_message_chunk") == 0) {
        const char *t = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(u, "content"), "text"));
        if (t && text->len < REPLY_MAX)
            buf_puts(text, t);
    } else if (strcmp(kind, "tool_call") == 0) {
        const char *title = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(u, "title"));
        const cJSON *raw = cJSON_GetObjectItemCaseSensitive(u, "rawInput");
        char *in = raw ? cJSON_PrintUnformatted(raw) : NULL;
        add_action(r, title ? title : cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(u, "kind")), in);
        cJSON_free(in);
    }
}

/* Calls method; its result in *result (caller deletes).  Updates on the
** way go into text and r (when not NULL); the agent's requests are
** answered. */
static AutErr acp_call(Aut *a, const char *method, cJSON *params, cJSON **result, Buf *text, AutReply *r,
                       char *err, size_t errlen)
{
    long id = ++a->next_id;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddNumberToObject(m, "id", (double)id);
    cJSON_AddStringToObject(m, "method", method);
    cJSON_AddItemToObject(m, "params", params);
    if (!acp_send(a, m)) {
        snprintf(err, errlen, "cannot write to the agent: %s", strerror(errno));
        return AUT_E_EXITED;
    }
    uint64_t deadline = sc_now_ms() + budget(a);
    for (;;) {
        AutErr e = AUT_OK;
        cJSON *j = acp_read(a, deadline, &e, err, errlen);
        if (!j)
            return e;
        const cJSON *jid = cJSON_GetObjectItemCaseSensitive(j, "id");
        const char *jm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "method"));
        if (jm && jid) {
            acp_answer(a, j);
        } else if (jm && strcmp(jm, "session/update") == 0) {
            if (text && r)
                acp_update(j, text, r);
        } else if (!jm && cJSON_IsNumber(jid) && jid->valuedouble == (double)id) {   /* no cast: any number may come */
            const cJSON *er = cJSON_GetObjectItemCaseSensitive(j, "error");
            if (er) {
                const char *msg = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(er, "message"));
                double code = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(er, "code"));
                snprintf(err, errlen, "%s: the agent answered error %.0f: %.300s", method,
                         code == code && fabs(code) < 1e15 ? code : 0.0, msg ? msg : "");   /* NaN, huge: 0 */
                cJSON_Delete(j);
                return AUT_E_PROTOCOL;
            }
            *result = cJSON_DetachItemFromObjectCaseSensitive(j, "result");
            cJSON_Delete(j);
            if (!*result) {
                snprintf(err, errlen, "%s: an answer without a result", method);
                return AUT_E_PROTOCOL;
            }
            return AUT_OK;
        }
        cJSON_Delete(j);
    }
}

/* initialize and session/new on the connection a->to. */
static bool acp_handshake(Aut *a, char *err, size_t errlen)
{
    cJSON *p = cJSON_CreateObject(), *res = NULL;
    cJSON_AddNumberToObject(p, "protocolVersion", 1);
    cJSON *caps = cJSON_AddObjectToObject(p, "clientCapabilities");
    cJSON *fs = cJSON_AddObjectToObject(caps, "fs");
    cJSON_AddFalseToObject(fs, "readTextFile");
    cJSON_AddFalseToObject(fs, "writeTextFile");
    cJSON_AddFalseToObject(caps, "terminal");
    cJSON *info = cJSON_AddObjectToObject(p, "clientInfo");
    cJSON_AddStringToObject(info, "name", "scvm");
    AutErr e = acp_call(a, "initialize", p, &res, NULL, NULL, err, errlen);
    cJSON_Delete(res);
    if (e)
        return false;
    char cwd[PATH_MAX];
    p = cJSON_CreateObject();
    cJSON_AddStringToObject(p, "cwd", a->c.cwd && a->c.cwd[0] == '/' ? a->c.cwd : getcwd(cwd, sizeof cwd) ? cwd : "/");
    cJSON_AddArrayToObject(p, "mcpServers");
    res = NULL;
    e = acp_call(a, "session/new", p, &res, NULL, NULL, err, errlen);
    const char *sid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "sessionId"));
    if (!e && !sid) {
        snprintf(err, errlen, "session/new: no sessionId in the answer");
        e = AUT_E_PROTOCOL;
    }
    if (!e)
        a->session = sc_strdup(sid);
    cJSON_Delete(res);
    return !e;
}

static AutErr acp_turn(Aut *a, const char *input, AutReply *r, char *err, size_t errlen)
{
    cJSON *p = cJSON_CreateObject(), *res = NULL;
    cJSON_AddStringToObject(p, "sessionId", a->session);
    cJSON *block = cJSON_CreateObject();
    cJSON_AddStringToObject(block, "type", "text");
    cJSON_AddStringToObject(block, "text", input);
    cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "prompt"), block);
    Buf text;
    buf_init(&text);
    AutErr e = acp_call(a, "session/prompt", p, &res, &text, r, err, errlen);
    buf_putc(&text, 0);
    r->text = sc_strdup(text.data ? (char *)text.data : "");
    buf_fini(&text);
    const char *sr = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(res, "stopReason"));
    if (!e && !sr) {
        snprintf(err, errlen, "session/prompt: no stopReason in the answer");
        e = AUT_E_PROTOCOL;
    }
    r->stop = sc_strdup(sr ? sr : "");
    cJSON_Delete(res);
    return e;
}

/* ---------- PTY ---------- */

static void pty_reply_out(const char *s, size_t n, void *user)
{
    Aut *a = user;
    int fd = pty_session_fd(a->ps);
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w > 0) {
            s += w;
            n -= (size_t)w;
        } else if (!(w < 0 && (errno == EINTR || errno == EAGAIN))) {
            return;
        }
    }
}

static bool screen_has(const Aut *a, const char *text)
{
    Buf s;
    buf_init(&s);
    pty_screen_text(a->scr, &s);
    buf_putc(&s, 0);
    bool has = s.data && strstr((const char *)s.data, text) != NULL;
    buf_fini(&s);
    return has;
}

/* Whether one of the profile's busy texts ("esc to interrupt") is on the
** screen: the agent is still at work, however long its screen was quiet
** (a starved TUI stops redrawing its spinner; issue 30). */
static bool screen_busy(const Aut *a)
{
    const cJSON *b;
    cJSON_ArrayForEach(b, a->busy) if (cJSON_IsString(b) && b->valuestring[0] && screen_has(a, b->valuestring))
        return true;
    return false;
}

/* Reads output until none came for quiet_ms (or the deadline, the exit,
** a cancel), need_text, when not NULL, is on the screen, and no busy text
** is.  Returns
** AUT_OK (quiet), or why it stopped. */
static AutErr pty_settle(Aut *a, uint64_t deadline, bool need_output, const char *need_text, char *err,
                         size_t errlen)
{
    unsigned quiet = a->c.quiet_ms ? a->c.quiet_ms : 500;
    uint64_t last = sc_now_ms();
    bool got = false;
    char b[16384];
    for (;;) {
        uint64_t now = sc_now_ms();
        if (now >= deadline) {
            if (need_text && !screen_has(a, need_text))
                snprintf(err, errlen, "'%s' (the agent's ready text) was not on the screen within %u ms", need_text,
                         budget(a));
            else
                snprintf(err, errlen, "the program did not go quiet in %u ms", budget(a));
            return AUT_E_TIMEOUT;
        }
        if (now >= last + quiet && (got || !need_output)) {
            if ((!need_text || screen_has(a, need_text)) && !screen_busy(a))
                return AUT_OK;
            last = now;             /* not there yet: wait for more output */
        }
        uint64_t until = now + quiet < deadline ? (got || !need_output ? last + quiet : deadline) : deadline;
        struct pollfd pf[3] = { { .fd = pty_session_fd(a->ps), .events = POLLIN },
                                { .fd = pty_session_exit_fd(a->ps), .events = POLLIN },
                                { .fd = a->c.cancel_fd, .events = POLLIN } };
        int r = poll(pf, a->c.cancel_fd >= 0 ? 3 : 2, until > now ? (int)(until - now) : 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (a->c.cancel_fd >= 0 && r > 0 && pf[2].revents) {
            snprintf(err, errlen, "cancelled");
            return AUT_E_CANCELLED;
        }
        if (r > 0 && pf[0].revents) {
            ssize_t n = read(pty_session_fd(a->ps), b, sizeof b);
            if (n > 0) {
                pty_screen_feed(a->scr, b, (size_t)n);
                if (a->out.len < REPLY_MAX)
                    buf_put(&a->out, b, (size_t)n);
                last = sc_now_ms();
                got = true;
                continue;
            }
        }
        if (r > 0 && (pf[1].revents || (pf[0].revents & (POLLHUP | POLLERR)))) {
            char drain[1];
            (void)!read(pty_session_exit_fd(a->ps), drain, sizeof drain);
            if (pty_session_reap(a->ps) || (pf[0].revents & (POLLHUP | POLLERR))) {
                snprintf(err, errlen, "the program exited");
                return AUT_E_EXITED;
            }
        }
    }
}

/* Output bytes as text: escape sequences (CSI, OSC, two-byte) removed, CR
** dropped, other control characters but LF and TAB dropped. */
static char *plain(const char *s, size_t n)
{
    Buf b;
    buf_init(&b);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0x1b && i + 1 < n) {
            unsigned char k = (unsigned char)s[++i];
            if (k == '[') {
                while (++i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
                    ;
            } else if (k == ']' || k == 'P' || k == '_') {
                while (++i < n && s[i] != 0x07 && !(s[i] == 0x1b && i + 1 < n && s[i + 1] == '\\'))
                    ;
                if (i < n && s[i] == 0x1b)
                    i++;
            } else if ((k == '(' || k == ')') && i + 1 < n) {
                i++;
            }
            continue;
        }
        if (c >= 0x20 || c == '\n' || c == '\t')
            buf_putc(&b, c);
    }
    buf_putc(&b, 0);
    char *r = sc_strdup(b.data ? (char *)b.data : "");
    buf_fini(&b);
    return r;
}

/* The environment: ours, each of over's names replaced, TERM the terminal
** the program gets. */
static char **merged_env(char *const *over)
{
    size_t n = 0, k = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    for (char *const *e = over; e && *e; e++)
        n++;
    char **v = sc_calloc(n + 2, sizeof *v);
    if (!v)
        return NULL;
    for (char **e = environ; e && *e; e++) {
        size_t nl = strcspn(*e, "=");
        bool replaced = strncmp(*e, "TERM=", 5) == 0;
        for (char *const *o = over; !replaced && o && *o; o++)
            replaced = strncmp(*o, *e, nl + 1) == 0;
        if (!replaced)
            v[k++] = *e;
    }
    for (char *const *e = over; e && *e; e++)
        v[k++] = *e;
    v[k++] = "TERM=xterm-256color";
    v[k] = NULL;
    return v;
}

/* A real agent's launch from its profile: a fresh HOME, its files, its
** command line and environment. */
static bool agent_prepare(Aut *a, char *err, size_t errlen)
{
    const AgentProfile *prof = a->c.profile;
    const char *tmp = getenv("TMPDIR");
    snprintf(a->run, sizeof a->run, "%s/scvm-aut-agent-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
    if (!mkdtemp(a->run)) {
        snprintf(err, errlen, "cannot make the agent's HOME: %s", strerror(errno));
        a->run[0] = 0;
        return false;
    }
    char home[PATH_MAX + 8];
    const char *ws = a->ws;
    snprintf(home, sizeof home, "%s/home", a->run);
    if (!realpath(a->c.cwd ? a->c.cwd : ".", a->ws) || file_mkdirs(home) != 0) {
        snprintf(err, errlen, "cannot make the agent's HOME or find its workspace: %s", strerror(errno));
        return false;
    }
    const cJSON *model = agent_profile_get(prof, "model"), *in = agent_profile_get(prof, "interactive");
    cJSON *vars = cJSON_CreateObject();
    cJSON_AddStringToObject(vars, "prompt", "");
    cJSON_AddStringToObject(vars, "base_url", a->c.model_url ? a->c.model_url : "");
    /* a key of the case's own: scvm serve llm keys sessions on it */
    char key[300];
    int kl = snprintf(key, sizeof key, "scvm-aut-key-%.250s", a->c.session ? a->c.session : "agent");
    for (int i = 13; i < kl && i < (int)sizeof key - 1; i++)
        if (!((key[i] >= 'a' && key[i] <= 'z') || (key[i] >= 'A' && key[i] <= 'Z') || (key[i] >= '0' && key[i] <= '9')))
            key[i] = '-';
    cJSON_AddStringToObject(vars, "key", key);
    cJSON_AddStringToObject(vars, "home", home);
    cJSON_AddStringToObject(vars, "workspace", ws);
    cJSON_AddStringToObject(vars, "model", a->c.model           ? a->c.model
                                           : cJSON_IsString(model) ? model->valuestring
                                                                   : "scvm-mock");
    int st = agent_launch_prepare(prof, true, vars, home, ws, a->c.bin, a->c.argv, &a->launch, err, errlen);
    cJSON_Delete(vars);
    if (st)
        return false;
    const cJSON *rd = cJSON_GetObjectItemCaseSensitive(in, "ready"), *td = cJSON_GetObjectItemCaseSensitive(in, "typeDelayMs");
    a->ready = cJSON_IsString(rd) && rd->valuestring[0] ? rd->valuestring : NULL;
    a->busy = cJSON_GetObjectItemCaseSensitive(in, "busy");
    a->type_delay = cJSON_IsNumber(td) ? (unsigned)td->valuedouble : 0;
    a->c.cwd = a->ws;
    a->envp = merged_env(a->launch.envv);
    if (!a->envp) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    return true;
}

/* Reads and answers the program's output for ms (typing delays), or,
** with first_only, until some came: a keystroke's echo, awaited before
** the next is sent (a TUI starved of CPU reads keystrokes sent on a timer
** together, and takes them for a paste). */
static void pty_pump_for(Aut *a, unsigned ms, bool first_only)
{
    uint64_t until = sc_now_ms() + ms;
    char b[16384];
    for (uint64_t now; (now = sc_now_ms()) < until;) {
        struct pollfd pf = { .fd = pty_session_fd(a->ps), .events = POLLIN };
        if (poll(&pf, 1, (int)(until - now)) <= 0)
            continue;
        ssize_t n = read(pty_session_fd(a->ps), b, sizeof b);
        if (n <= 0)
            return;
        pty_screen_feed(a->scr, b, (size_t)n);
        if (first_only)
            return;
    }
}

static bool pty_open(Aut *a, char *err, size_t errlen)
{
    if (a->c.profile && !agent_prepare(a, err, errlen))
        return false;
    char *const *argv = a->c.profile ? a->launch.argv : a->c.argv;
    char exe[PATH_MAX];
    const char *path = pty_find_exe(argv[0], exe, sizeof exe) ? exe : NULL;
    if (!path) {
        snprintf(err, errlen, "%s: not found on PATH", argv[0]);
        return false;
    }
    char abs[PATH_MAX];
    if (path[0] != '/' && realpath(path, abs))
        path = abs;
    int rows = a->c.rows ? a->c.rows : 24, cols = a->c.cols ? a->c.cols : 80;
    PtySpawn sp = { .path = path, .argv = argv, .envp = a->envp ? a->envp : environ, .cwd = a->c.cwd, .rows = rows,
                    .cols = cols };
    a->ps = pty_session_spawn(&sp, err, errlen);
    if (!a->ps)
        return false;
    a->scr = pty_screen_new(rows, cols, pty_reply_out, NULL, a);
    if (!a->scr) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    /* its banner and first prompt are not the first turn's reply; an
    ** agent's TUI is ready when its ready text shows */
    AutErr e = pty_settle(a, sc_now_ms() + budget(a), false, a->ready, err, errlen);
    buf_reset(&a->out);
    return e == AUT_OK;
}

static bool row_in(const char *rows, const char *p, size_t n)
{
    for (const char *q = rows; *q;) {
        const char *qn = strchr(q, '\n');
        size_t m = qn ? (size_t)(qn - q) : strlen(q);
        if (m == n && memcmp(p, q, n) == 0)
            return true;
        q += m + (qn ? 1 : 0);
    }
    return false;
}

/* The rows of after that before does not have, without those holding the
** input (the TUI's echo of it) or the ready text, blank rows trimmed.
** When the echo is among the new rows, only the rows below it count: what
** the TUI drew above it (a banner that a busy machine let it finish after
** the ready text showed) is not the reply. */
static char *new_rows(const char *before, const char *after, const char *input, const char *ready)
{
    Buf b;
    buf_init(&b);
    size_t il = strlen(input);
    for (const char *p = after; *p && il;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (memmem(p, n, input, il) && !row_in(before, p, n)) {
            after = p;   /* the echo: the reply is below it */
            break;
        }
        p += n + (nl ? 1 : 0);
    }
    for (const char *p = after; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        bool seen = row_in(before, p, n);
        bool blank = strspn(p, " \t") >= n;
        if (!seen && !blank && !memmem(p, n, input, strlen(input)) && !(ready && memmem(p, n, ready, strlen(ready)))) {
            buf_put(&b, p, n);
            buf_putc(&b, '\n');
        }
        p += n + (nl ? 1 : 0);
    }
    buf_putc(&b, 0);
    char *r = sc_strdup(b.data ? (char *)b.data : "");
    buf_fini(&b);
    return r;
}

/* A real agent's turn: typed one character at a time (a burst is taken
** for a paste), then Enter; the reply ends when the screen is quiet with
** the ready text on it again, and is the rows the turn added. */
static AutErr agent_turn(Aut *a, const char *input, AutReply *r, char *err, size_t errlen)
{
    Buf before;
    buf_init(&before);
    pty_screen_text(a->scr, &before);
    buf_putc(&before, 0);
    for (size_t i = 0, n = strlen(input); i < n;) {
        size_t k = 1;
        while (i + k < n && ((unsigned char)input[i + k] & 0xc0) == 0x80)
            k++;                            /* one UTF-8 character */
        pty_screen_type(a->scr, input + i, k, false);
        i += k;
        if (a->type_delay) {
            pty_pump_for(a, 2000, true);
            pty_pump_for(a, a->type_delay, false);
        }
    }
    pty_pump_for(a, a->type_delay > 50 ? a->type_delay : 50, false);
    buf_reset(&a->out);
    pty_screen_key(a->scr, "Enter");
    AutErr e = pty_settle(a, sc_now_ms() + budget(a), true, a->ready, err, errlen);
    Buf s;
    buf_init(&s);
    pty_screen_text(a->scr, &s);
    buf_putc(&s, 0);
    r->screen = sc_strdup(s.data ? (char *)s.data : "");
    r->text = new_rows(before.data ? (char *)before.data : "", r->screen ? r->screen : "", input, a->ready);
    buf_fini(&s);
    buf_fini(&before);
    r->stop = sc_strdup(e == AUT_E_EXITED ? "exited" : "quiet");
    return e;
}

static AutErr pty_turn(Aut *a, const char *input, AutReply *r, char *err, size_t errlen)
{
    if (a->c.profile)
        return agent_turn(a, input, r, err, errlen);
    buf_reset(&a->out);
    pty_screen_type(a->scr, input, strlen(input), false);
    pty_screen_key(a->scr, "Enter");
    /* quiet after output that is more than the terminal's echo of the
    ** input (its line is left out of the reply) */
    uint64_t deadline = sc_now_ms() + budget(a);
    AutErr e;
    char *t = NULL;
    for (;;) {
        e = pty_settle(a, deadline, true, NULL, err, errlen);
        sc_free(t);
        t = plain(a->out.data ? (const char *)a->out.data : "", a->out.len);
        char *nl = strchr(t, '\n');
        if (nl && memmem(t, (size_t)(nl - t), input, strlen(input)))
            memmove(t, nl + 1, strlen(nl + 1) + 1);
        else if (!nl && strstr(t, input))
            t[0] = 0;                       /* only the echo so far */
        if (e != AUT_OK || t[0])
            break;
    }
    if (e == AUT_E_TIMEOUT && !t[0])
        snprintf(err, errlen, "the program printed nothing but the echo of the input in %u ms", budget(a));
    r->text = t;
    Buf s;
    buf_init(&s);
    pty_screen_text(a->scr, &s);
    buf_putc(&s, 0);
    r->screen = sc_strdup(s.data ? (char *)s.data : "");
    buf_fini(&s);
    r->stop = sc_strdup(e == AUT_E_EXITED ? "exited" : "quiet");
    return e == AUT_E_EXITED && a->out.len ? AUT_OK : e;
}

static bool acp_open(Aut *a, char *err, size_t errlen)
{
    return spawn_pipes(a, err, errlen) && acp_handshake(a, err, errlen);
}

/* ---------- the interface ---------- */

Aut *aut_open_acp_fd(const AutConfig *c, int fd, char *err, size_t errlen)
{
    Aut *a = sc_calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->c = *c;
    a->c.kind = AUT_ACP;
    a->to = fd;
    a->borrowed = true;
    buf_init(&a->in);
    buf_init(&a->out);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    if (!acp_handshake(a, err, errlen)) {
        aut_close(a);
        return NULL;
    }
    return a;
}

Aut *aut_open(const AutConfig *c, char *err, size_t errlen)
{
    Aut *a = sc_calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->c = *c;
    a->to = -1;
    buf_init(&a->in);
    buf_init(&a->out);
    if (c->session) {               /* the caller's may be a buffer of the moment */
        a->conv = sc_strdup(c->session);
        a->c.session = a->conv;
    }
    bool ok;
    if (c->kind == AUT_HTTP) {
        HttpUrl u;
        ok = c->url && http_url_parse(c->url, &u, err, errlen);
        if (ok) {
            size_t l = strlen(c->url);
            snprintf(a->url, sizeof a->url, "%.*s/chat/completions", (int)(l && c->url[l - 1] == '/' ? l - 1 : l),
                     c->url);
            a->messages = cJSON_CreateArray();
            ok = a->messages != NULL;
        } else if (!c->url) {
            snprintf(err, errlen, "no URL for the agent");
        }
    } else if ((!c->argv || !c->argv[0]) && !(c->kind == AUT_PTY && c->profile)) {
        snprintf(err, errlen, "no command for the agent");
        ok = false;
    } else {
        ok = c->kind == AUT_ACP ? acp_open(a, err, errlen) : pty_open(a, err, errlen);
    }
    if (!ok) {
        aut_close(a);
        return NULL;
    }
    return a;
}

AutErr aut_turn(Aut *a, const char *input, AutReply *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    uint64_t t0 = sc_now_ms();
    AutErr e = a->c.kind == AUT_HTTP  ? http_turn(a, input, r, err, errlen)
               : a->c.kind == AUT_ACP ? acp_turn(a, input, r, err, errlen)
                                      : pty_turn(a, input, r, err, errlen);
    r->ms = sc_now_ms() - t0;
    if (!r->text)
        r->text = sc_strdup("");
    return e;
}

void aut_set_timeout(Aut *a, unsigned ms)
{
    a->c.timeout_ms = ms;
}

bool aut_next(Aut *a, const char *options_json, const char *parts_json)
{
    if (a->c.kind != AUT_HTTP)
        return false;
    cJSON_Delete(a->next_options);
    cJSON_Delete(a->next_parts);
    a->next_options = options_json ? cJSON_Parse(options_json) : NULL;
    a->next_parts = parts_json ? cJSON_Parse(parts_json) : NULL;
    if (a->next_options && !cJSON_IsObject(a->next_options)) {
        cJSON_Delete(a->next_options);
        a->next_options = NULL;
    }
    if (a->next_parts && !cJSON_IsArray(a->next_parts)) {
        cJSON_Delete(a->next_parts);
        a->next_parts = NULL;
    }
    return true;
}

bool aut_seed(Aut *a, const char *role, const char *content)
{
    if (a->c.kind != AUT_HTTP || !a->messages)
        return false;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "role", role);
    cJSON_AddStringToObject(m, "content", content);
    return cJSON_AddItemToArray(a->messages, m);
}

void aut_close(Aut *a)
{
    if (!a)
        return;
    cJSON_Delete(a->messages);
    cJSON_Delete(a->next_options);
    cJSON_Delete(a->next_parts);
    if (a->to >= 0 && !a->borrowed)
        close(a->to);
    end_process(a->proc);
    a->proc = NULL;
    if (a->ps && a->c.profile) {
        /* an agent's TUI is asked to leave with its quit keys first */
        const cJSON *q, *in = agent_profile_get(a->c.profile, "interactive");
        cJSON_ArrayForEach(q, cJSON_GetObjectItemCaseSensitive(in, "quit")) {
            if (!cJSON_IsString(q) || pty_session_reap(a->ps))
                break;
            pty_screen_key(a->scr, q->valuestring);
            pty_pump_for(a, 300, false);
        }
    }
    pty_screen_free(a->scr);
    if (a->ps) {
        pty_session_kill(a->ps, 500);
        pty_session_close(a->ps);
    }
    if (a->run[0])
        file_remove_tree(a->run);
    agent_launch_fini(&a->launch);
    sc_free(a->envp);
    buf_fini(&a->in);
    buf_fini(&a->out);
    sc_free(a->session);
    sc_free(a->conv);
    sc_free(a);
}
