/* SPDX-License-Identifier: MIT */
/* rest_server.c - the Agent Harbor REST mock (rest_server.h;
** docs/serve-rest.md).
**
** A session's events are rendered when its task is created (one JSON text
** per op, with its due time); the loop's tick moves each session's cursor
** over the events that are due and broadcasts them to the session's
** subscribers (one broadcast group per session).  A subscriber gets, in
** its first answer, the events before the cursor (after its Last-Event-ID),
** and then every broadcast: the seam has no gap and no duplicate because
** both happen on the one loop thread. */
#include "rest_server.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/logline.h"
#include "common/sc_alloc.h"
#include "formats/bc.h"
#include "runtime/bc_cjson.h"
#include "runtime/http/http_json.h"
#include "runtime/http/http_server.h"
#include "runtime/rt_clock.h"

#ifndef SCC_VERSION
#define SCC_VERSION "unknown"
#endif

/* What clients can make the server hold (docs/serve-rest.md, "Limits"):
** sessions at once (the least recently used finished one without a
** subscriber makes room for a new one), the prompt bytes one task may
** create (its body size times its sessions: each session keeps its own
** copy, and a listing echoes every one), and the prompt bytes of every
** session together. */
enum { MAX_SESSIONS = 4096, MAX_PER_TASK = 16 };
#define TASK_HOLD_MAX ((size_t)16 << 20)
#define PROMPTS_HOLD_MAX ((size_t)64 << 20)

typedef struct Ev {
    uint64_t due;               /* ms after the session started (scaled) */
    uint64_t t;                 /* unscaled scenario time (for ts) */
    char *json;                 /* the data */
    const char *status;         /* a status event's new status (static), or NULL */
} Ev;

typedef struct Sess {
    char id[32];
    int32_t entry;
    const BcProgram *p;
    char *prompt;
    char agent[64];
    char status[16];
    unsigned group;
    uint64_t wall0, paused_at, paused_ms;
    bool paused, ended;
    bool merge;                 /* its scenario has `merge`: listed once completed */
    Ev *ev;
    size_t n_ev, cap_ev, cursor;
    uint64_t created_t;         /* scenario time of creation (0) */
    unsigned subs;              /* open event streams */
    uint64_t used;              /* when last asked for (RestServer.clock) */
    size_t prompt_len;
} Sess;

typedef struct Sub {
    uint64_t sid;
    Sess *s;
} Sub;

struct RestServer {
    const Suite *suite;
    RestOpts o;
    FILE *log;
    HttpServer *http;
    Sess **ss;
    size_t n_ss, cap_ss;
    unsigned made;              /* sessions made so far: ids and groups */
    uint64_t clock;             /* bumped on each use of a session */
    size_t prompt_bytes;        /* of every session held */
    Sub *subs;                  /* open event streams and their sessions */
    size_t n_subs, cap_subs;
    uint64_t next_ka;
    RestCounts c;
};

static void logf_(RestServer *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(RestServer *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_log_line(r->log, "scvm serve rest: ", fmt, ap);
    va_end(ap);
}

/* ---- time stamps ---- */

/* ISO 8601 UTC with milliseconds: the scenario's ms since the epoch, or now. */
static void iso_ts(const RestServer *r, uint64_t t, char *out, size_t cap)
{
    time_t secs;
    unsigned ms;
    if (r->o.wall_clock) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        secs = ts.tv_sec;
        ms = (unsigned)(ts.tv_nsec / 1000000);
    } else {
        secs = (time_t)(t / 1000);
        ms = (unsigned)(t % 1000);
    }
    struct tm tm;
    gmtime_r(&secs, &tm);
    char day[32];
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, cap, "%.24s.%03uZ", day, ms % 1000);
}

/* ---- a session's events ---- */

static int ev_add(RestServer *r, Sess *s, cJSON *j, uint64_t due, uint64_t t, const char *status)
{
    char ts[40];
    iso_ts(r, t, ts, sizeof ts);
    cJSON_AddStringToObject(j, "ts", ts);
    char *txt = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!txt)
        return ENOMEM;
    if (s->n_ev == s->cap_ev) {
        size_t nc = s->cap_ev ? 2 * s->cap_ev : 32;
        Ev *ne = sc_realloc(s->ev, nc * sizeof *ne);
        if (!ne) {
            cJSON_free(txt);
            return ENOMEM;
        }
        s->ev = ne;
        s->cap_ev = nc;
    }
    s->ev[s->n_ev++] = (Ev){ due, t, txt, status };
    return 0;
}

static cJSON *ev_new(const char *type)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "type", type);
    return j;
}

static const char *status_name(const char *s)
{
    static const char *const known[] = { "queued", "provisioning", "running", "pausing", "paused", "resuming",
                                         "stopping", "stopped", "completed", "failed", "cancelled" };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(s, known[i]) == 0)
            return known[i];
    return NULL;
}

/* ---- what each op becomes (docs/serve-rest.md, "Events") ---- */

/* The state of one rendering: the tool in progress, and the event (and the
** status it sets) the op's handler made, if any. */
typedef struct Render {
    char tool[128], exec_id[64];
    unsigned n_exec;
    cJSON *j;
    const char *st;
} Render;

static int op_status(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->st = status_name(p->str[in->a[0]].s);
    c->j = ev_new("status");
    cJSON_AddStringToObject(c->j, "status", p->str[in->a[0]].s);
    return 0;
}

static int op_think(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new("thought");
    cJSON_AddStringToObject(c->j, "thought", p->str[in->a[0]].s);
    return 0;
}

/* ASSISTANT and LOG: an info line. */
static int op_info(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new("log");
    cJSON_AddStringToObject(c->j, "level", "info");
    cJSON_AddStringToObject(c->j, "message", p->str[in->a[0]].s);
    cJSON_AddNullToObject(c->j, "tool_execution_id");
    return 0;
}

static int op_llm_error(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new("error");
    cJSON_AddStringToObject(c->j, "message", p->str[in->a[2]].s);
    cJSON_AddStringToObject(c->j, "error_type", p->str[in->a[0]].s);
    cJSON_AddNumberToObject(c->j, "status_code", in->a[1]);
    return 0;
}

static int op_tool_start(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    snprintf(c->tool, sizeof c->tool, "%s", p->str[in->a[0]].s);
    BcVal idv = bc_val(p, in->a[2]);
    if (idv.tag == BC_V_STR)
        snprintf(c->exec_id, sizeof c->exec_id, "%.63s", p->str[idv.n].s);
    else
        snprintf(c->exec_id, sizeof c->exec_id, "tool_exec_%u", ++c->n_exec);
    cJSON *j = c->j = ev_new("tool_use");
    cJSON_AddStringToObject(j, "tool_name", c->tool);
    cJSON *args = bc_val_cjson(p, in->a[1]);
    cJSON_AddItemToObject(j, "tool_args", args ? args : cJSON_CreateObject());
    cJSON_AddStringToObject(j, "tool_execution_id", c->exec_id);
    cJSON_AddStringToObject(j, "status", "started");
    return 0;
}

static int op_tool_progress(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    const char *stream = p->str[in->a[2]].s;
    cJSON *j = c->j = ev_new("log");
    cJSON_AddStringToObject(j, "level", strcmp(stream, "stderr") == 0 ? "warn" : "info");
    cJSON_AddStringToObject(j, "message", p->str[in->a[1]].s);
    cJSON_AddStringToObject(j, "stream", stream);
    cJSON_AddStringToObject(j, "tool_execution_id", c->exec_id);
    return 0;
}

static int op_tool_result(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    const char *rs = p->str[in->a[1]].s;
    bool failed = !strcmp(rs, "error") || !strcmp(rs, "failed") || !strcmp(rs, "failure");
    cJSON *j = c->j = ev_new("tool_result");
    cJSON_AddStringToObject(j, "tool_name", p->str[in->a[0]].s);
    BcVal ov = bc_val(p, in->a[2]);
    if (ov.tag == BC_V_STR) {
        cJSON_AddStringToObject(j, "tool_output", p->str[ov.n].s);
    } else if (ov.tag == BC_V_NULL) {
        cJSON_AddStringToObject(j, "tool_output", "");
    } else {
        Buf b;
        buf_init(&b);
        bc_val_json(p, in->a[2], &b);
        buf_putc(&b, 0);
        cJSON_AddStringToObject(j, "tool_output", b.oom ? "" : (const char *)b.data);
        buf_fini(&b);
    }
    cJSON_AddStringToObject(j, "tool_execution_id", c->exec_id);
    cJSON_AddStringToObject(j, "status", failed ? "failed" : "completed");
    return 0;
}

static int op_file_edit(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new("file_edit");
    cJSON_AddStringToObject(c->j, "file_path", p->str[in->a[0]].s);
    cJSON_AddNumberToObject(c->j, "lines_added", in->a[1]);
    cJSON_AddNumberToObject(c->j, "lines_removed", in->a[2]);
    return 0;
}

static int op_plan_update(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new("plan");
    cJSON_AddItemToObject(c->j, "entries", bc_val_cjson(p, in->a[1]));
    return 0;
}

static int op_user_input(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new("user_input");
    cJSON_AddStringToObject(c->j, "text", p->str[in->a[1]].s);
    return 0;
}

static int op_permission(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    cJSON *k = bc_val_cjson(p, in->a[0]);
    c->j = ev_new("permission_request");
    cJSON_AddItemToObject(c->j, "request", k ? k : cJSON_CreateObject());
    return 0;
}

static int op_file_reads(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new("file_reads");
    cJSON_AddItemToObject(c->j, "files", bc_val_cjson(p, in->a[0]));
    return 0;
}

static int op_set_mode(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new(in->op == OP_SET_MODE ? "mode_change" : "model_change");
    cJSON_AddStringToObject(c->j, in->op == OP_SET_MODE ? "mode_id" : "model_id", p->str[in->a[0]].s);
    return 0;
}

static int op_user_command(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new("user_command");
    cJSON_AddStringToObject(c->j, "cmd", p->str[in->a[0]].s);
    return 0;
}

static int op_user_edits(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Render *c = ctx;
    c->j = ev_new("user_edits");
    cJSON_AddStringToObject(c->j, "patch", p->str[in->a[0]].s);
    return 0;
}

/* USER_CANCEL, MERGE and COMPLETE: an event of the op's own name, alone. */
static int op_bare(void *ctx, const BcProgram *p, const BcInsn *in)
{
    (void)p;
    Render *c = ctx;
    c->j = ev_new(in->op == OP_USER_CANCEL ? "cancel" : in->op == OP_MERGE ? "merge" : "complete");
    return 0;
}

const Player rest_player = {
    .name = "rest",
    .op = {
        [OP_STATUS] = { op_status, NULL },
        [OP_THINK] = { op_think, NULL },
        [OP_ASSISTANT] = { op_info, NULL },
        [OP_LLM_ERROR] = { op_llm_error, NULL },
        [OP_TOOL_START] = { op_tool_start, NULL },
        [OP_TOOL_PROGRESS] = { op_tool_progress, NULL },
        [OP_TOOL_RESULT] = { op_tool_result, NULL },
        [OP_FILE_EDIT] = { op_file_edit, NULL },
        [OP_PLAN_UPDATE] = { op_plan_update, NULL },
        [OP_LOG] = { op_info, NULL },
        [OP_USER_INPUT] = { op_user_input, NULL },
        [OP_PERMISSION] = { op_permission, NULL },
        [OP_FILE_READS] = { op_file_reads, NULL },
        [OP_SET_MODE] = { op_set_mode, NULL },
        [OP_SET_MODEL] = { op_set_mode, NULL },
        [OP_USER_COMMAND] = { op_user_command, NULL },
        [OP_USER_EDITS] = { op_user_edits, NULL },
        [OP_USER_CANCEL] = { op_bare, NULL },
        [OP_MERGE] = { op_bare, NULL },
        [OP_COMPLETE] = { op_bare, NULL },
        [OP_SCREENSHOT] = { NULL, "harness-only: no REST event" },
        [OP_ASSERT] = { NULL, "harness-only: no REST event" },
        [OP_LLM_BEGIN] = { NULL, "the response's frame: no REST event" },
        [OP_LLM_END] = { NULL, "the response's frame: no REST event" },
        [OP_END] = { NULL, "the session's end is the server's, not the op's" },
    },
    .ignore = {
        { OPF_ACP, "ACP structure: no REST event" },
        { OPF_TERM, "terminal ops (tui-use): never in an agent's timeline" },
        { OPF_AGENTTEST, "agent-test cases: checks of the agent under test, never played" },
    },
};

/* The events of program p, each op at its time (docs/serve-rest.md,
** "Events"). */
static int render(RestServer *r, Sess *s)
{
    const BcProgram *p = s->p;
    Render c = { .n_exec = 0 };
    for (uint32_t i = 0; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        uint64_t due = r->o.speed > 0 ? rt_clock_scale(in->t, r->o.speed) : 0;
        c.j = NULL;
        c.st = NULL;
        player_op(&rest_player, &c, p, in);
        if (c.j && ev_add(r, s, c.j, due, in->t, c.st) != 0)
            return ENOMEM;
    }
    return 0;
}

/* ---- sessions ---- */

static void sess_free(Sess *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_ev; i++)
        cJSON_free(s->ev[i].json);
    sc_free(s->ev);
    sc_free(s->prompt);
    sc_free(s);
}

static Sess *sess_find(RestServer *r, const char *id, size_t n)
{
    for (size_t i = 0; i < r->n_ss; i++)
        if (strlen(r->ss[i]->id) == n && memcmp(r->ss[i]->id, id, n) == 0) {
            r->ss[i]->used = ++r->clock;
            return r->ss[i];
        }
    return NULL;
}

static bool sess_over(const Sess *s)
{
    return !strcmp(s->status, "completed") || !strcmp(s->status, "stopped") || !strcmp(s->status, "failed") ||
           !strcmp(s->status, "cancelled");
}


/* Drops the least recently used session that is idle (no subscriber, its
** script played out or ended) to make room; false when none is. */
static bool sess_retire_one(RestServer *r)
{
    size_t v = SIZE_MAX;
    for (size_t i = 0; i < r->n_ss; i++) {
        const Sess *s = r->ss[i];
        if (!s->subs && (s->cursor == s->n_ev || sess_over(s)) && (v == SIZE_MAX || s->used < r->ss[v]->used))
            v = i;
    }
    if (v == SIZE_MAX)
        return false;
    Sess *s = r->ss[v];
    if (!r->o.quiet)
        logf_(r, "session %s: retired to make room (status %s, least recently used; %d sessions, %zu prompt bytes at most)",
              s->id, s->status, MAX_SESSIONS, PROMPTS_HOLD_MAX);
    r->prompt_bytes -= s->prompt_len;
    sess_free(s);
    memmove(&r->ss[v], &r->ss[v + 1], (r->n_ss - v - 1) * sizeof *r->ss);
    r->n_ss--;
    r->c.retired++;
    return true;
}

/* A ULID-shaped id (26 Crockford base32 characters): time 0 and the
** session's number, so the ids are the same on every run. */
static void make_id(unsigned n, char *out)
{
    static const char b32[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    memset(out, '0', 26);
    out[26] = 0;
    for (int i = 25; i >= 10 && n; i--, n /= 32)
        out[i] = b32[n % 32];
}

/* The session's time (scaled ms since it started, pauses left out). */
static uint64_t sess_now(const Sess *s, uint64_t now)
{
    uint64_t end = s->paused ? s->paused_at : now;
    return end - s->wall0 - s->paused_ms;
}

/* ---- streams ---- */

static void frame(Buf *b, size_t idx, const char *json)
{
    buf_printf(b, "id: %zu\nevent: session\ndata: %s\n\n", idx + 1, json);
}

/* Appends an event due now (stop, pause ...) and broadcasts it at once. */
static void sess_event_now(RestServer *r, Sess *s, const char *type, const char *status, uint64_t now)
{
    cJSON *j = ev_new(type);
    if (status)
        cJSON_AddStringToObject(j, "status", status);
    /* the rest of the script is dropped when the session ends */
    if (status && (!strcmp(status, "stopped") || !strcmp(status, "cancelled"))) {
        for (size_t i = s->cursor; i < s->n_ev; i++)
            cJSON_free(s->ev[i].json);
        s->n_ev = s->cursor;
    }
    uint64_t at = sess_now(s, now);
    uint64_t t = s->cursor ? s->ev[s->cursor - 1].t : 0;
    if (ev_add(r, s, j, at, t, status_name(status ? status : "")) != 0)
        return;
    /* insert before the not yet due events: move it to the cursor */
    Ev e = s->ev[s->n_ev - 1];
    memmove(&s->ev[s->cursor + 1], &s->ev[s->cursor], (s->n_ev - 1 - s->cursor) * sizeof *s->ev);
    s->ev[s->cursor] = e;
    for (size_t i = s->cursor + 1; i < s->n_ev; i++)
        if (s->ev[i].due < at)
            s->ev[i].due = at;
}

/* Broadcasts what is due of session s; returns when its next event is due. */
static uint64_t sess_play(RestServer *r, Sess *s, uint64_t now)
{
    if (s->cursor == s->n_ev)
        return UINT64_MAX;      /* played out (most of 4,096 held, on every tick) */
    Buf b;
    buf_init(&b);
    uint64_t st = sess_now(s, now);
    while (s->cursor < s->n_ev && s->ev[s->cursor].due <= st) {
        Ev *e = &s->ev[s->cursor];
        buf_reset(&b);
        frame(&b, s->cursor, e->json);
        if (!b.oom)
            http_server_broadcast(r->http, s->group, b.data, b.len);
        if (e->status)
            snprintf(s->status, sizeof s->status, "%s", e->status);
        s->cursor++;
        r->c.events++;
    }
    buf_fini(&b);
    if (s->cursor < s->n_ev && !s->paused)
        return s->wall0 + s->paused_ms + s->ev[s->cursor].due;
    return UINT64_MAX;
}

static uint64_t on_tick(void *ctx, uint64_t now)
{
    RestServer *r = ctx;
    uint64_t ka = r->o.keepalive_ms ? r->o.keepalive_ms : 15000;
    if (!r->next_ka)
        r->next_ka = now + ka;
    uint64_t next = r->next_ka;
    for (size_t i = 0; i < r->n_ss; i++) {
        uint64_t w = sess_play(r, r->ss[i], now);
        if (w < next)
            next = w;
        if (now >= r->next_ka)
            http_server_broadcast(r->http, r->ss[i]->group, ": keep-alive\n\n", 14);
    }
    if (now >= r->next_ka)
        r->next_ka = now + ka;
    return next < r->next_ka ? next : r->next_ka;
}

static void on_stream_closed(void *ctx, uint64_t sid)
{
    RestServer *r = ctx;
    for (size_t i = 0; i < r->n_subs; i++)
        if (r->subs[i].sid == sid) {
            if (r->subs[i].s->subs)
                r->subs[i].s->subs--;
            r->subs[i] = r->subs[--r->n_subs];
            break;
        }
    if (r->c.subscribers)
        r->c.subscribers--;
}

/* ---- answers ---- */

static const char JSON[] = "application/json; charset=utf-8";

static void answer_json(HttpExchange *x, int code, cJSON *j)
{
    char *t = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    http_plan_whole(x->plan, code, JSON, t ? t : "{}", t ? strlen(t) : 2, x->keep_alive, NULL, NULL, NULL, 0);
    cJSON_free(t);
}

/* Problem+JSON, the API's error shape. */
static void problem(HttpExchange *x, int code, const char *title, const char *detail)
{
    cJSON *j = cJSON_CreateObject();
    char type[96];
    snprintf(type, sizeof type, "https://scvm.invalid/errors/%d", code);
    cJSON_AddStringToObject(j, "type", type);
    cJSON_AddStringToObject(j, "title", title);
    cJSON_AddNumberToObject(j, "status", code);
    cJSON_AddStringToObject(j, "detail", detail);
    char *t = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    http_plan_whole(x->plan, code, "application/problem+json", t ? t : "{}", t ? strlen(t) : 2, x->keep_alive, NULL,
                    NULL, NULL, 0);
    cJSON_free(t);
}

static void links(cJSON *j, const char *id)
{
    cJSON *l = cJSON_AddObjectToObject(j, "links");
    char b[96];
    snprintf(b, sizeof b, "/api/v1/sessions/%s", id);
    cJSON_AddStringToObject(l, "self", b);
    snprintf(b, sizeof b, "/api/v1/sessions/%s/events", id);
    cJSON_AddStringToObject(l, "events", b);
    snprintf(b, sizeof b, "/api/v1/sessions/%s/logs", id);
    cJSON_AddStringToObject(l, "logs", b);
}

static bool active(const Sess *s)
{
    return !strcmp(s->status, "running") || !strcmp(s->status, "queued") || !strcmp(s->status, "provisioning") ||
           !strcmp(s->status, "paused");
}

static cJSON *sess_json(RestServer *r, Sess *s)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "id", s->id);
    cJSON_AddStringToObject(j, "status", s->status);
    cJSON_AddStringToObject(j, "prompt", s->prompt ? s->prompt : "");
    cJSON_AddStringToObject(j, "scenario", suite_entry(r->suite, (uint32_t)s->entry)->name);
    cJSON *a = cJSON_AddObjectToObject(j, "agent");
    cJSON_AddStringToObject(a, "type", s->agent);
    cJSON_AddStringToObject(a, "version", "latest");
    char ts[40];
    iso_ts(r, 0, ts, sizeof ts);
    cJSON_AddStringToObject(j, "createdAt", ts);
    iso_ts(r, s->cursor ? s->ev[s->cursor - 1].t : 0, ts, sizeof ts);
    cJSON_AddStringToObject(j, "updatedAt", ts);
    if (!strcmp(s->status, "completed")) {
        unsigned files = 0, add = 0, rm = 0;
        const BcProgram *p = s->p;
        for (uint32_t i = 0; i < p->n_insn; i++)
            if (p->insn[i].op == OP_FILE_EDIT) {
                files++;
                add += p->insn[i].a[1];
                rm += p->insn[i].a[2];
            }
        cJSON *ch = cJSON_AddObjectToObject(j, "changes");
        cJSON_AddNumberToObject(ch, "files_changed", files);
        cJSON_AddNumberToObject(ch, "lines_added", add);
        cJSON_AddNumberToObject(ch, "lines_removed", rm);
    }
    cJSON *rec = cJSON_AddArrayToObject(j, "recent_events");
    if (active(s))
        for (size_t i = s->cursor > 3 ? s->cursor - 3 : 0; i < s->cursor; i++)
            cJSON_AddItemToArray(rec, cJSON_Parse(s->ev[i].json));
    links(j, s->id);
    return j;
}

/* The prompt's text: a string, or the text blocks of an array, joined. */
static char *prompt_text(const cJSON *p)
{
    if (cJSON_IsString(p))
        return sc_strdup(p->valuestring);
    if (!cJSON_IsArray(p))
        return NULL;
    Buf b;
    buf_init(&b);
    const cJSON *blk;
    cJSON_ArrayForEach(blk, p)
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(blk, "type"), *x = cJSON_GetObjectItemCaseSensitive(blk, "text");
        if (!cJSON_IsString(t))
            return buf_fini(&b), NULL;
        if (!strcmp(t->valuestring, "text") && cJSON_IsString(x)) {
            if (b.len)
                buf_putc(&b, '\n');
            buf_puts(&b, x->valuestring);
        }
    }
    buf_putc(&b, 0);
    char *r = b.oom ? NULL : sc_strdup((const char *)b.data);
    buf_fini(&b);
    return r;
}

static void on_task(RestServer *r, HttpExchange *x)
{
    const char *bad = "the body must be a JSON object";
    cJSON *j = http_json_body(x->body, x->body_len, &bad);
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(j, "prompt");
    char *text = cJSON_IsObject(j) ? prompt_text(pr) : NULL;
    if (!cJSON_IsObject(j) || !text || !*text) {
        sc_free(text);
        problem(x, 400, "Invalid request", !j ? bad : !cJSON_IsObject(j) ? "the body must be a JSON object"
                                                               : "prompt must be a string or content blocks with text");
        cJSON_Delete(j);
        return;
    }
    /* agents[]: one session per count of each (default one claude-code) */
    const char *types[MAX_PER_TASK];
    size_t n = 0;
    const cJSON *ag;
    cJSON_ArrayForEach(ag, cJSON_GetObjectItemCaseSensitive(j, "agents"))
    {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(ag, "type"), *c = cJSON_GetObjectItemCaseSensitive(ag, "count");
        int count = cJSON_IsNumber(c) && c->valuedouble >= 1 && c->valuedouble <= MAX_PER_TASK ? (int)c->valuedouble : 1;
        for (int k = 0; k < count && n < MAX_PER_TASK; k++)
            types[n++] = cJSON_IsString(t) ? t->valuestring : "claude-code";
    }
    if (!n)
        types[n++] = "claude-code";
    /* what this task would make the server hold: the body times its
    ** sessions (each keeps the prompt, and a listing echoes each) */
    size_t plen = strlen(text);
    if ((x->body_len > plen ? x->body_len : plen) > TASK_HOLD_MAX / n) {
        char d[160];
        snprintf(d, sizeof d, "a task may hold at most %zu bytes: its body (%zu bytes) times its sessions (%zu)",
                 TASK_HOLD_MAX, x->body_len, n);
        sc_free(text);
        cJSON_Delete(j);
        problem(x, 413, "Content Too Large", d);
        return;
    }
    while (r->n_ss > MAX_SESSIONS - n || r->prompt_bytes + n * plen > PROMPTS_HOLD_MAX)
        if (!sess_retire_one(r))
            break;
    size_t dist = 0;
    int32_t e = suite_best_prompt(r->suite, r->o.only, r->o.n_only, text, strlen(text), &dist);
    if (e < 0 || r->n_ss > MAX_SESSIONS - n || r->prompt_bytes + n * plen > PROMPTS_HOLD_MAX) {
        sc_free(text);
        cJSON_Delete(j);
        problem(x, 503, "Unavailable", e < 0 ? "no scenario to play"
                                             : "too many sessions still running or watched; retry later");
        return;
    }
    r->c.tasks++;
    cJSON *res = cJSON_CreateObject();
    cJSON *ids = cJSON_AddArrayToObject(res, "session_ids");
    char first[32] = "";
    uint64_t now = http_server_now();
    size_t made = 0;
    for (size_t k = 0; k < n; k++) {
        if (r->n_ss == r->cap_ss) {
            size_t nc = r->cap_ss ? 2 * r->cap_ss : 16;
            Sess **ns = sc_realloc(r->ss, nc * sizeof *ns);
            if (!ns)
                break;
            r->ss = ns;
            r->cap_ss = nc;
        }
        Sess *s = sc_calloc(1, sizeof *s);
        if (!s)
            break;
        unsigned num = ++r->made;
        make_id(num, s->id);
        s->entry = e;
        s->p = suite_entry(r->suite, (uint32_t)e)->prog;
        for (uint32_t i = 0; i < s->p->n_insn && !s->merge; i++)
            s->merge = s->p->insn[i].op == OP_MERGE;
        s->prompt = sc_strdup(text);
        s->prompt_len = s->prompt ? plen : 0;
        s->used = ++r->clock;
        snprintf(s->agent, sizeof s->agent, "%.63s", types[k]);
        snprintf(s->status, sizeof s->status, "queued");
        s->group = num;
        s->wall0 = now;
        if (render(r, s) != 0) {
            sess_free(s);
            break;
        }
        r->ss[r->n_ss++] = s;
        made++;
        r->prompt_bytes += s->prompt_len;
        r->c.sessions++;
        cJSON_AddItemToArray(ids, cJSON_CreateString(s->id));
        if (!first[0])
            snprintf(first, sizeof first, "%s", s->id);
        if (!r->o.quiet)
            logf_(r, "session %s: scenario '%s' (prompt distance %zu)", s->id, suite_entry(r->suite, (uint32_t)e)->name,
                  dist);
    }
    cJSON_AddStringToObject(res, "status", "queued");
    links(res, first);
    sc_free(text);
    cJSON_Delete(j);
    answer_json(x, 201, res);
    /* what is due at 0 goes out now: the new sessions' (the loop's next
    ** tick plays the others; one pass over 4,096 per task was a third of
    ** the time of 20,000 tasks) */
    for (size_t i = r->n_ss - made; i < r->n_ss; i++)
        sess_play(r, r->ss[i], now);
}

static void on_list(RestServer *r, HttpExchange *x, const char *q, size_t qn)
{
    char query[512];
    snprintf(query, sizeof query, "%.*s", (int)(qn < sizeof query ? qn : sizeof query - 1), q);
    unsigned page = 1, per = 20;
    char want[16] = "";
    for (char *tok = strtok(query, "&"); tok; tok = strtok(NULL, "&")) {
        if (!strncmp(tok, "page=", 5))
            page = (unsigned)strtoul(tok + 5, NULL, 10);
        else if (!strncmp(tok, "perPage=", 8))
            per = (unsigned)strtoul(tok + 8, NULL, 10);
        else if (!strncmp(tok, "status=", 7))
            snprintf(want, sizeof want, "%.15s", tok + 7);
    }
    if (page < 1)
        page = 1;
    if (per < 1 || per > 200)
        per = per < 1 ? 1 : 200;
    cJSON *res = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(res, "items");
    size_t total = 0;
    for (size_t i = 0; i < r->n_ss; i++) {
        if (want[0] && strcmp(r->ss[i]->status, want) != 0)
            continue;
        /* the spec's `merge`: a completed session stays in the listings
        ** only when its scenario says so (GET /sessions/{id} still has it) */
        if (!r->ss[i]->merge && !strcmp(r->ss[i]->status, "completed"))
            continue;
        if (total >= (size_t)(page - 1) * per && total < (size_t)page * per)
            cJSON_AddItemToArray(items, sess_json(r, r->ss[i]));
        total++;
    }
    cJSON_AddNumberToObject(res, "page", page);
    cJSON_AddNumberToObject(res, "perPage", per);
    cJSON_AddNumberToObject(res, "total", (double)total);
    if ((size_t)page * per < total)
        cJSON_AddNumberToObject(res, "nextPage", page + 1);
    else
        cJSON_AddNullToObject(res, "nextPage");
    answer_json(x, 200, res);
}

static void on_events(RestServer *r, HttpExchange *x, Sess *s, const char *q, size_t qn)
{
    /* Last-Event-ID (what EventSource sends on reconnect), or ?lastEventId= */
    size_t from = 0;
    const HttpHeader *h = http_header(x->req, "last-event-id");
    char v[32] = "";
    if (h)
        snprintf(v, sizeof v, "%.*s", (int)(h->value_len < 31 ? h->value_len : 31), h->value);
    else if (qn > 12 && !strncmp(q, "lastEventId=", 12))
        snprintf(v, sizeof v, "%.*s", (int)(qn - 12 < 31 ? qn - 12 : 31), q + 12);
    if ((h && h->value_len) || v[0]) {
        /* decimal digits: anything else is refused, not read as 0 (which
        ** replays the whole history); empty is no id (EventSource's own
        ** "no last event ID") */
        size_t vn = h ? h->value_len : strlen(v);
        const char *vp = h ? h->value : v;
        bool ok = vn <= 19;
        for (size_t i = 0; ok && i < vn; i++)
            ok = vp[i] >= '0' && vp[i] <= '9';
        if (!ok) {
            problem(x, 400, "Invalid request", "Last-Event-ID must be the decimal id of an event");
            return;
        }
        from = (size_t)strtoull(v, NULL, 10);
    }
    if (r->n_subs == r->cap_subs) {
        size_t nc = r->cap_subs ? 2 * r->cap_subs : 16;
        Sub *ns = sc_realloc(r->subs, nc * sizeof *ns);
        if (!ns) {
            problem(x, 503, "Unavailable", "out of memory");
            return;
        }
        r->subs = ns;
        r->cap_subs = nc;
    }
    http_plan_head(x->plan, 200, "text/event-stream", true, 0, true, NULL, "X-Accel-Buffering: no\r\n", NULL);
    Buf b;
    buf_init(&b);
    buf_puts(&b, "retry: 3000\n\n");
    on_tick(r, http_server_now());     /* the cursor up to now: the seam is here */
    for (size_t i = from; i < s->cursor; i++)
        frame(&b, i, s->ev[i].json);
    http_plan_chunk(x->plan, b.data, b.len, 0);
    buf_fini(&b);
    x->stream = true;
    x->stream_group = s->group;
    r->subs[r->n_subs++] = (Sub){ x->stream_id, s };
    s->subs++;
    r->c.subscribers++;
    if (r->c.subscribers > r->c.max_subscribers)
        r->c.max_subscribers = r->c.subscribers;
}

/* GET .../logs?tail=N: the log events sent so far (the last N, default
** 1000), as {"items": [...]}, oldest first. */
static void on_logs(RestServer *r, HttpExchange *x, Sess *s, const char *q, size_t qn)
{
    (void)r;
    size_t tail = 1000;
    if (qn > 5 && !strncmp(q, "tail=", 5))
        tail = (size_t)strtoull(q + 5, NULL, 10);
    static const char log[] = "{\"type\":\"log\",";
    size_t n = 0;
    for (size_t i = 0; i < s->cursor; i++)
        n += strncmp(s->ev[i].json, log, sizeof log - 1) == 0;
    cJSON *res = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(res, "items");
    size_t k = 0;
    for (size_t i = 0; i < s->cursor; i++) {
        if (strncmp(s->ev[i].json, log, sizeof log - 1) != 0)
            continue;
        if (n - k++ <= tail)
            cJSON_AddItemToArray(items, cJSON_Parse(s->ev[i].json));
    }
    answer_json(x, 200, res);
}

/* stop, pause, resume, DELETE: the status events now, as the session's. */
static void on_control(RestServer *r, HttpExchange *x, Sess *s, const char *what)
{
    uint64_t now = http_server_now();
    on_tick(r, now);
    bool over = !strcmp(s->status, "completed") || !strcmp(s->status, "stopped") || !strcmp(s->status, "failed") ||
                !strcmp(s->status, "cancelled");
    if (over && strcmp(what, "delete") != 0) {
        problem(x, 409, "Conflict", "the session has ended");
        return;
    }
    if (!strcmp(what, "pause")) {
        if (s->paused) {
            problem(x, 409, "Conflict", "the session is paused");
            return;
        }
        sess_event_now(r, s, "status", "pausing", now);
        on_tick(r, now);
        sess_event_now(r, s, "status", "paused", now);
        on_tick(r, now);
        s->paused = true;
        s->paused_at = now;
    } else if (!strcmp(what, "resume")) {
        if (!s->paused) {
            problem(x, 409, "Conflict", "the session is not paused");
            return;
        }
        s->paused_ms += now - s->paused_at;
        s->paused = false;
        sess_event_now(r, s, "status", "resuming", now);
        on_tick(r, now);
        sess_event_now(r, s, "status", "running", now);
    } else if (!strcmp(what, "stop")) {
        s->paused_ms += s->paused ? now - s->paused_at : 0;
        s->paused = false;
        sess_event_now(r, s, "status", "stopping", now);
        on_tick(r, now);
        sess_event_now(r, s, "status", "stopped", now);
    } else if (!over) {
        s->paused_ms += s->paused ? now - s->paused_at : 0;
        s->paused = false;
        sess_event_now(r, s, "status", "cancelled", now);
    }
    on_tick(r, now);
    cJSON *res = cJSON_CreateObject();
    cJSON_AddStringToObject(res, "sessionId", s->id);
    cJSON_AddStringToObject(res, "status", s->status);
    answer_json(x, strcmp(what, "delete") ? 202 : 200, res);
}

static void on_prompt(RestServer *r, HttpExchange *x, Sess *s)
{
    uint64_t now = http_server_now();
    on_tick(r, now);
    const char *bad = NULL;
    cJSON *j = http_json_body(x->body, x->body_len, &bad);
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(j, "prompt");
    if (!pr)
        pr = cJSON_GetObjectItemCaseSensitive(j, "message");
    char *text = cJSON_IsObject(j) ? prompt_text(pr) : NULL;
    if (!j && bad) {
        problem(x, 400, "Invalid request", bad);
    } else if (!text || !*text || x->body_len > 16384) {
        problem(x, 400, "Invalid request", "prompt (or message) must be text, at most 16 KiB");
    } else if (s->paused) {
        problem(x, 409, "Conflict", "the session is paused");
    } else if (!active(s)) {
        problem(x, 410, "Gone", "the session has ended");
    } else {
        cJSON *e = ev_new("user_input");
        cJSON_AddStringToObject(e, "text", text);
        uint64_t t = s->cursor ? s->ev[s->cursor - 1].t : 0;
        if (ev_add(r, s, e, sess_now(s, now), t, NULL) == 0) {
            Ev ev = s->ev[s->n_ev - 1];
            memmove(&s->ev[s->cursor + 1], &s->ev[s->cursor], (s->n_ev - 1 - s->cursor) * sizeof *s->ev);
            s->ev[s->cursor] = ev;
        }
        on_tick(r, now);
        cJSON *res = cJSON_CreateObject();
        cJSON_AddStringToObject(res, "sessionId", s->id);
        cJSON_AddBoolToObject(res, "accepted", true);
        char ts[40];
        iso_ts(r, t, ts, sizeof ts);
        cJSON_AddStringToObject(res, "ts", ts);
        answer_json(x, 202, res);
    }
    sc_free(text);
    cJSON_Delete(j);
}

static void handle(void *ctx, HttpExchange *x)
{
    RestServer *r = ctx;
    r->c.requests++;
    if (!x->req) {
        problem(x, x->bad_status, "Bad request", x->bad_why);
        x->keep_alive = false;
        return;
    }
    const HttpReq *q = x->req;
    const char *t = q->target, *qs = memchr(t, '?', q->target_len);
    size_t pl = qs ? (size_t)(qs - t) : q->target_len, ql = qs ? q->target_len - pl - 1 : 0;
    if (qs)
        qs++;
    char m[8];
    snprintf(m, sizeof m, "%.*s", (int)(q->method_len < 7 ? q->method_len : 7), q->method);
    if (!r->o.quiet)
        logf_(r, "%s %s %.*s", x->peer, m, (int)q->target_len, t);
#define PATH(s) (pl == sizeof(s) - 1 && !memcmp(t, s, pl))
    if (PATH("/healthz") || PATH("/readyz") || PATH("/version")) {
        cJSON *j = cJSON_CreateObject();
        if (PATH("/version")) {
            cJSON_AddStringToObject(j, "name", "scvm serve rest");
            cJSON_AddStringToObject(j, "version", SCC_VERSION);
        } else {
            cJSON_AddStringToObject(j, "status", PATH("/healthz") ? "ok" : "ready");
        }
        answer_json(x, 200, j);
        return;
    }
    if (PATH("/api/v1/tasks")) {
        if (strcmp(m, "POST"))
            problem(x, 405, "Method not allowed", "POST /api/v1/tasks");
        else
            on_task(r, x);
        return;
    }
    if (PATH("/api/v1/sessions")) {
        if (strcmp(m, "GET"))
            problem(x, 405, "Method not allowed", "GET /api/v1/sessions");
        else
            on_list(r, x, qs ? qs : "", ql);
        return;
    }
    static const char pre[] = "/api/v1/sessions/";
    if (pl > sizeof pre - 1 && !memcmp(t, pre, sizeof pre - 1)) {
        const char *id = t + sizeof pre - 1, *slash = memchr(id, '/', pl - (sizeof pre - 1));
        size_t idn = slash ? (size_t)(slash - id) : pl - (sizeof pre - 1);
        const char *sub = slash ? slash + 1 : "";
        size_t subn = slash ? pl - (size_t)(slash + 1 - t) : 0;
        Sess *s = sess_find(r, id, idn);
        if (!s) {
            problem(x, 404, "Not found", "no such session");
            return;
        }
        on_tick(r, http_server_now());
#define SUB(s) (subn == sizeof(s) - 1 && !memcmp(sub, s, subn))
        if (!subn && !strcmp(m, "GET"))
            answer_json(x, 200, sess_json(r, s));
        else if (!subn && !strcmp(m, "DELETE"))
            on_control(r, x, s, "delete");
        else if (SUB("logs") && !strcmp(m, "GET"))
            on_logs(r, x, s, qs ? qs : "", ql);
        else if (SUB("events") && !strcmp(m, "GET"))
            on_events(r, x, s, qs ? qs : "", ql);
        else if ((SUB("stop") || SUB("pause") || SUB("resume")) && !strcmp(m, "POST"))
            on_control(r, x, s, SUB("stop") ? "stop" : SUB("pause") ? "pause" : "resume");
        else if (SUB("prompt") && !strcmp(m, "POST"))
            on_prompt(r, x, s);
        else
            problem(x, 404, "Not found", "no such endpoint");
#undef SUB
        return;
    }
#undef PATH
    problem(x, 404, "Not found", "no such endpoint");
}

RestServer *rest_server_new(const Suite *s, const RestOpts *o, int *err)
{
    RestServer *r = sc_calloc(1, sizeof *r);
    if (!r) {
        *err = ENOMEM;
        return NULL;
    }
    r->suite = s;
    r->o = *o;      /* o->only (NULL: every entry) is what the prompts choose among */
    r->log = o->log ? o->log : stderr;
    HttpServerOpts ho = {
        .host = o->host, .port = o->port ? o->port : "38180", .max_body = o->max_body, .max_conns = o->max_conns,
        .timeout_ms = o->timeout_ms, .head_timeout_ms = o->head_timeout_ms, .idle_timeout_ms = o->idle_timeout_ms,
        .handle = handle, .tick = on_tick, .stream_closed = on_stream_closed, .ctx = r,
        .no_signals = o->no_signals,
    };
    r->http = http_server_new(&ho);
    if (!r->http) {
        rest_server_free(r);
        *err = ENOMEM;
        return NULL;
    }
    return r;
}

void rest_server_free(RestServer *r)
{
    if (!r)
        return;
    http_server_free(r->http);
    for (size_t i = 0; i < r->n_ss; i++)
        sess_free(r->ss[i]);
    sc_free(r->ss);
    sc_free(r->subs);
    sc_free(r);
}

int rest_server_listen(RestServer *r, char *bound, size_t cap)
{
    int err = http_server_listen(r->http, bound, cap);
    if (!err) {
        unsigned long fds = 0;
        unsigned n = http_server_max_conns(r->http, &fds);
        logf_(r, "up to %u connections at once (file-descriptor limit %lu, the soft limit raised to the hard one)", n,
              fds);
    }
    return err;
}

HttpServer *rest_server_http(RestServer *r) { return r->http; }

void rest_server_counts(const RestServer *r, RestCounts *c) { *c = r->c; }
