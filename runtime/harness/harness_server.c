/* SPDX-License-Identifier: MIT */
/* harness_server.c - the harness event server (harness_server.h;
** docs/serve-harness.md).
**
** Subscribers are open streams of the HTTP loop (http_server_push); the
** conversation's current turn is played from the loop's tick, each op when
** it is due, and every event is broadcast as one "data:" frame. */
#include "harness_server.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

#include "common/jsonw.h"
#include "common/logline.h"
#include "common/sc_alloc.h"
#include "formats/bc.h"
#include "runtime/http/http_json.h"
#include "runtime/http/http_server.h"
#include "runtime/rt_clock.h"
#include "runtime/scn_turns.h"

static const char CORS[] = "Access-Control-Allow-Origin: *\r\nAccess-Control-Allow-Methods: GET, POST, OPTIONS\r\n"
                           "Access-Control-Allow-Headers: Content-Type\r\n";

struct HarnessServer {
    const Suite *suite;
    HarnessOpts o;
    FILE *log;
    HttpServer *http;
    uint64_t *subs;             /* the open /events streams */
    size_t n_subs, cap_subs;
    uint64_t next_hb;           /* when the next heartbeat is due (0: not yet set) */
    /* the conversation */
    int32_t entry;              /* its scenario, -1 until the first prompt */
    const BcProgram *p;
    ScnTurns tt;
    uint32_t next_turn;
    /* the turn playing */
    bool running;
    uint32_t pc, end;
    uint64_t t_wall0, t_script0;
    char tool_id[128];
    unsigned n_tools;           /* generated tool ids */
    /* the text block being streamed: consecutive plain assistant chunks,
    ** sent as one `text` event when the block stops (the harness's
    ** OnText(completeText) on ContentBlockStopEvent) */
    Buf block;
    bool in_block;
    HarnessCounts c;
};

static void logf_(HarnessServer *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(HarnessServer *h, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_log_line(h->log, "scvm serve harness: ", fmt, ap);
    va_end(ap);
}

/* ---- subscribers ---- */

static void sub_remove(HarnessServer *h, uint64_t sid)
{
    for (size_t i = 0; i < h->n_subs; i++)
        if (h->subs[i] == sid) {
            h->subs[i] = h->subs[--h->n_subs];
            h->c.subscribers = (unsigned)h->n_subs;
            return;
        }
}

static void on_stream_closed(void *ctx, uint64_t sid) { sub_remove((HarnessServer *)ctx, sid); }

/* Sends bytes to every subscriber, in one pass (one that cannot take them
** is closed, and stream_closed drops it). */
static void send_all(HarnessServer *h, const char *b, size_t n)
{
    if (h->n_subs)
        http_server_broadcast(h->http, 1, b, n);
}

/* ---- events ---- */

/* One event, its fields in the harness's order (type, timestamp, content,
** id, name, input, result, isError, state, message): t is the unscaled
** scenario time it happens at. */
typedef struct Ev {
    const char *type, *content, *id, *name, *result, *state, *message;
    const char *input;          /* raw JSON, or NULL */
    int is_error;               /* -1: no isError field */
} Ev;

static void emit(HarnessServer *h, const Ev *e, uint64_t t)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "type", e->type);
    cJSON_AddNumberToObject(j, "timestamp", h->o.wall_clock ? (double)time(NULL) : (double)(t / 1000));
    if (e->content)
        cJSON_AddStringToObject(j, "content", e->content);
    if (e->id)
        cJSON_AddStringToObject(j, "id", e->id);
    if (e->name)
        cJSON_AddStringToObject(j, "name", e->name);
    if (e->input)
        cJSON_AddRawToObject(j, "input", e->input);
    if (e->result)
        cJSON_AddStringToObject(j, "result", e->result);
    if (e->is_error >= 0)
        cJSON_AddBoolToObject(j, "isError", e->is_error);
    if (e->state)
        cJSON_AddStringToObject(j, "state", e->state);
    if (e->message)
        cJSON_AddStringToObject(j, "message", e->message);
    char *txt = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    if (!txt)
        return;
    size_t n = strlen(txt);
    char *frame = sc_malloc(n + 9);
    if (frame) {
        memcpy(frame, "data: ", 6);
        memcpy(frame + 6, txt, n);
        memcpy(frame + 6 + n, "\n\n", 2);
        send_all(h, frame, n + 8);
        sc_free(frame);
    }
    cJSON_free(txt);
    h->c.events++;
}

static void status(HarnessServer *h, const char *state, const char *message, uint64_t t)
{
    Ev e = { .type = "status", .state = state, .message = message, .is_error = -1 };
    emit(h, &e, t);
}

/* The value of K as text: a string as it is, anything else as JSON. */
static char *val_text(const BcProgram *p, uint32_t k)
{
    BcVal v = bc_val(p, k);
    if (v.tag == BC_V_STR)
        return sc_strndup(p->str[v.n].s, p->str[v.n].len);
    if (v.tag == BC_V_NULL)
        return sc_strdup("");
    Buf b;
    buf_init(&b);
    bc_val_json(p, k, &b);
    buf_putc(&b, 0);
    char *r = b.oom ? NULL : sc_strdup((const char *)b.data);
    buf_fini(&b);
    return r;
}

/* ---- playing a turn ---- */

/* The scenario time the running turn is at: its last op played. */
static uint64_t now_t(const HarnessServer *h)
{
    return h->pc > h->tt.start[h->next_turn - 1] ? h->p->insn[h->pc - 1].t : h->t_script0;
}

/* The text block stops: its one `text` event, with all its chunks. */
static void block_stop(HarnessServer *h, uint64_t t)
{
    if (!h->in_block)
        return;
    h->in_block = false;
    buf_putc(&h->block, 0);
    if (!h->block.oom && h->block.len > 1) {
        Ev e = { .type = "text", .content = (const char *)h->block.data, .is_error = -1 };
        emit(h, &e, t);
    }
    buf_reset(&h->block);
}

static void turn_end(HarnessServer *h, const char *error, uint64_t t)
{
    /* a cancelled or failed turn's block never stopped: the harness sends
    ** no text for it; a turn that ends well stops it */
    if (error)
        h->in_block = false, buf_reset(&h->block);
    else
        block_stop(h, t);
    status(h, error ? "error" : "idle", error, t);
    h->running = false;
}

/* ---- what each op becomes (docs/serve-harness.md) ---- */

/* A handler returns 0 to go on with the turn, HS_STOP when the turn has
** ended at this op (runtime/player.h). */
enum { HS_STOP = 1 };

static int op_think(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Ev e = { .type = "reasoning", .content = p->str[in->a[0]].s, .is_error = -1 };
    emit(ctx, &e, in->t);
    return 0;
}

static int op_assistant(void *ctx, const BcProgram *p, const BcInsn *in)
{
    HarnessServer *h = ctx;
    if (bc_val_tag(p, in->a[1]) == BC_V_NULL) {     /* plain text: a delta of the block */
        buf_put(&h->block, p->str[in->a[0]].s, p->str[in->a[0]].len);
        h->in_block = true;
        return 0;
    }
    block_stop(h, in->t);       /* a rich block is a block of its own */
    if (p->str[in->a[0]].len) {
        Ev e = { .type = "text", .content = p->str[in->a[0]].s, .is_error = -1 };
        emit(ctx, &e, in->t);
    }
    return 0;
}

static int op_llm_error(void *ctx, const BcProgram *p, const BcInsn *in)
{
    HarnessServer *h = ctx;
    if (!scn_error_retried(p, h->pc, h->end)) {
        turn_end(h, p->str[in->a[2]].s, in->t);
        return HS_STOP;
    }
    return 0;       /* retried by the agent: the response goes on */
}

static int op_tool_start(void *ctx, const BcProgram *p, const BcInsn *in)
{
    HarnessServer *h = ctx;
    BcVal idv = bc_val(p, in->a[2]);
    if (idv.tag == BC_V_STR)
        snprintf(h->tool_id, sizeof h->tool_id, "%s", p->str[idv.n].s);
    else
        snprintf(h->tool_id, sizeof h->tool_id, "toolu_scvm_%u", ++h->n_tools);
    status(h, "running_tool", p->str[in->a[0]].s, in->t);
    Buf args;
    buf_init(&args);
    bc_val_json(p, in->a[1], &args);
    buf_putc(&args, 0);
    Ev e = { .type = "tool_call", .id = h->tool_id, .name = p->str[in->a[0]].s,
             .input = args.oom ? "{}" : (const char *)args.data, .is_error = -1 };
    emit(h, &e, in->t);
    buf_fini(&args);
    return 0;
}

static int op_tool_result(void *ctx, const BcProgram *p, const BcInsn *in)
{
    HarnessServer *h = ctx;
    char *out = val_text(p, in->a[2]);
    const char *st = p->str[in->a[1]].s;
    bool err = !strcmp(st, "error") || !strcmp(st, "failed") || !strcmp(st, "failure");
    Ev e = { .type = "tool_result", .id = h->tool_id, .result = out ? out : "", .is_error = err };
    emit(h, &e, in->t);
    sc_free(out);
    status(h, "thinking", NULL, in->t);
    return 0;
}

static int op_file_edit(void *ctx, const BcProgram *p, const BcInsn *in)
{
    HarnessServer *h = ctx;
    char id[64];
    Buf input;
    JsonW w;
    jw_new_obj(&w, &input);
    jw_kstr(&w, "path", p->str[in->a[0]].s, p->str[in->a[0]].len);
    jw_ku64(&w, "linesAdded", in->a[1]);
    jw_ku64(&w, "linesRemoved", in->a[2]);
    jw_end(&w);
    buf_putc(&input, 0);
    snprintf(id, sizeof id, "toolu_scvm_%u", ++h->n_tools);
    status(h, "running_tool", "agentEdits", in->t);
    Ev c = { .type = "tool_call", .id = id, .name = "agentEdits",
             .input = input.oom ? "{}" : (const char *)input.data, .is_error = -1 };
    emit(h, &c, in->t);
    buf_fini(&input);
    Ev r = { .type = "tool_result", .id = id, .result = "", .is_error = 0 };
    emit(h, &r, in->t);
    status(h, "thinking", NULL, in->t);
    return 0;
}

#define NO_EVENT "no harness event (docs/serve-harness.md, \"What each op becomes\")"

const Player harness_player = {
    .name = "harness",
    .op = {
        [OP_THINK] = { op_think, NULL },
        [OP_ASSISTANT] = { op_assistant, NULL },
        [OP_LLM_ERROR] = { op_llm_error, NULL },
        [OP_TOOL_START] = { op_tool_start, NULL },
        [OP_TOOL_RESULT] = { op_tool_result, NULL },
        [OP_FILE_EDIT] = { op_file_edit, NULL },
        [OP_STATUS] = { NULL, NO_EVENT },
        [OP_LLM_BEGIN] = { NULL, "the response's frame: " NO_EVENT },
        [OP_LLM_END] = { NULL, "the response's frame: " NO_EVENT },
        [OP_TOOL_PROGRESS] = { NULL, NO_EVENT },
        [OP_PLAN_UPDATE] = { NULL, NO_EVENT },
        [OP_FILE_READS] = { NULL, NO_EVENT },
        [OP_PERMISSION] = { NULL, NO_EVENT },
        [OP_SCREENSHOT] = { NULL, NO_EVENT },
        [OP_LOG] = { NULL, NO_EVENT },
        [OP_ASSERT] = { NULL, NO_EVENT },
        [OP_MERGE] = { NULL, NO_EVENT },
        [OP_COMPLETE] = { NULL, NO_EVENT },
        [OP_END] = { NULL, "the turn's end is the server's, not the op's" },
    },
    .ignore = {
        { OPF_USER, "the user's side: prompts come in as requests, the rest is not the agent's" },
        { OPF_ACP, "ACP structure: no harness event" },
        { OPF_TERM, "terminal ops (tui-use): never in an agent's timeline" },
        { OPF_AGENTTEST, "agent-test cases: checks of the agent under test, never played" },
    },
};

/* Plays the ops of the turn that are due; returns when the next is due
** (UINT64_MAX: none). */
static uint64_t play(HarnessServer *h, uint64_t now)
{
    const BcProgram *p = h->p;
    while (h->running) {
        if (h->pc >= h->end) {
            turn_end(h, NULL, p->insn[h->end > 0 ? h->end - 1 : 0].t);
            break;
        }
        const BcInsn *in = &p->insn[h->pc];
        uint64_t due = h->t_wall0;
        if (h->o.speed > 0 && in->t > h->t_script0)
            due += rt_clock_scale(in->t - h->t_script0, h->o.speed);
        if (due > now)
            return due;
        /* what ends a text block: the next content (reasoning, a tool
        ** call or result, an edit, a rich block) or the response's end */
        if (h->in_block && in->op != OP_ASSISTANT && (in->op == OP_LLM_END || in->op == OP_END ||
                                                      (harness_player.op[in->op].fn != NULL && in->op != OP_LLM_ERROR)))
            block_stop(h, in->t);
        if (player_op(&harness_player, h, p, in) == HS_STOP)
            return UINT64_MAX;
        h->pc++;
    }
    return UINT64_MAX;
}

static uint64_t on_tick(void *ctx, uint64_t now)
{
    HarnessServer *h = ctx;
    uint64_t hb = h->o.heartbeat_ms ? h->o.heartbeat_ms : 30000;
    if (!h->next_hb)
        h->next_hb = now + hb;
    if (now >= h->next_hb) {
        if (h->n_subs) {
            send_all(h, ": heartbeat\n\n", 13);
            h->c.heartbeats++;
        }
        h->next_hb = now + hb;
    }
    uint64_t next = play(h, now);
    return next < h->next_hb ? next : h->next_hb;
}

/* ---- requests ---- */

static bool path_is(const HttpReq *r, const char *path)
{
    size_t n = strlen(path), tl = r->target_len;
    const char *q = memchr(r->target, '?', tl);
    if (q)
        tl = (size_t)(q - r->target);
    return tl == n && memcmp(r->target, path, n) == 0;
}

static bool method_is(const HttpReq *r, const char *m)
{
    return r->method_len == strlen(m) && memcmp(r->method, m, r->method_len) == 0;
}

/* Go's http.Error: text/plain, the message and a newline. */
static void text_answer(HttpExchange *x, int code, const char *msg)
{
    char body[256];
    int n = snprintf(body, sizeof body, "%s%s", msg, *msg ? "\n" : "");
    http_plan_whole(x->plan, code, "text/plain; charset=utf-8", body, (size_t)n, x->keep_alive, NULL, CORS,
                    *msg ? "X-Content-Type-Options: nosniff\r\n" : NULL, 0);
}

static void on_prompt(HarnessServer *h, HttpExchange *x)
{
    const char *why = NULL;
    cJSON *j = http_json_body(x->body, x->body_len, &why);
    const cJSON *content = j ? cJSON_GetObjectItemCaseSensitive(j, "content") : NULL;
    if (!cJSON_IsObject(j) || (content && !cJSON_IsString(content) && !cJSON_IsNull(content))) {
        cJSON_Delete(j);
        text_answer(x, 400, "invalid request body");
        return;
    }
    const char *text = cJSON_IsString(content) ? content->valuestring : "";
    if (!*text) {
        cJSON_Delete(j);
        text_answer(x, 400, "content is required");
        return;
    }
    h->c.prompts++;
    uint64_t t = h->running ? now_t(h) : 0;
    if (!h->running && h->p && h->next_turn < h->tt.n) {
        uint32_t ui = scn_turn_prompt(&h->tt, h->p, h->next_turn);
        t = ui != UINT32_MAX ? h->p->insn[ui].t : scn_turn_t0(&h->tt, h->p, h->next_turn);
    }
    Ev u = { .type = "user", .content = text, .is_error = -1 };
    emit(h, &u, t);
    if (h->running) {
        h->c.busy++;
        status(h, "thinking", NULL, t);
        status(h, "error", "another prompt is already in progress", t);
    } else {
        if (h->entry < 0) {
            size_t dist = 0;
            int32_t e = suite_best_prompt(h->suite, h->o.only, h->o.n_only, text, strlen(text), &dist);
            if (e >= 0 && scn_turns_init(&h->tt, suite_entry(h->suite, (uint32_t)e)->prog) == 0) {
                h->entry = e;
                h->p = suite_entry(h->suite, (uint32_t)e)->prog;
                if (!h->o.quiet)
                    logf_(h, "scenario '%s' (prompt distance %zu)", suite_entry(h->suite, (uint32_t)e)->name, dist);
            }
        }
        status(h, "thinking", NULL, t);
        if (!h->p) {
            status(h, "error", "scvm: no scenario to play", t);
        } else if (h->next_turn >= h->tt.n) {
            char msg[160];
            snprintf(msg, sizeof msg, "scvm: scenario '%s' has no turn %u", h->p->str[h->p->meta.name].s,
                     h->next_turn + 1);
            status(h, "error", msg, t);
        } else {
            uint32_t k = h->next_turn++;
            h->pc = h->tt.start[k];
            h->end = h->tt.start[k + 1];
            h->t_script0 = scn_turn_t0(&h->tt, h->p, k);
            h->t_wall0 = http_server_now();
            h->running = true;
            play(h, h->t_wall0);
        }
    }
    cJSON_Delete(j);
    text_answer(x, 200, "");
}

static void handle(void *ctx, HttpExchange *x)
{
    HarnessServer *h = ctx;
    h->c.requests++;
    if (!x->req) {
        text_answer(x, x->bad_status, x->bad_why);
        x->keep_alive = false;
        return;
    }
    const HttpReq *r = x->req;
    if (!h->o.quiet)
        logf_(h, "%s %.*s %.*s", x->peer, (int)r->method_len, r->method, (int)r->target_len, r->target);
    if (method_is(r, "OPTIONS")) {
        text_answer(x, 200, "");
    } else if (path_is(r, "/events") && method_is(r, "GET")) {
        if (h->n_subs == h->cap_subs) {
            size_t nc = h->cap_subs ? 2 * h->cap_subs : 16;
            uint64_t *ns = sc_realloc(h->subs, nc * sizeof *ns);
            if (!ns) {
                text_answer(x, 503, "out of memory");
                return;
            }
            h->subs = ns;
            h->cap_subs = nc;
        }
        http_plan_head(x->plan, 200, "text/event-stream", true, 0, true, NULL, CORS, "Connection: keep-alive\r\n");
        http_plan_chunk(x->plan, ": connected\n\n", 13, 0);
        x->stream = true;
        x->stream_group = 1;
        h->subs[h->n_subs++] = x->stream_id;
        h->c.subscribers = (unsigned)h->n_subs;
        if (h->n_subs > h->c.max_subscribers)
            h->c.max_subscribers = (unsigned)h->n_subs;
    } else if (path_is(r, "/prompt") && method_is(r, "POST")) {
        on_prompt(h, x);
    } else if (path_is(r, "/cancel") && method_is(r, "POST")) {
        if (h->running) {
            h->c.cancels++;
            turn_end(h, "context canceled", now_t(h));
        }
        text_answer(x, 200, "");
    } else if (path_is(r, "/events") || path_is(r, "/prompt") || path_is(r, "/cancel")) {
        text_answer(x, 405, "Method Not Allowed");
    } else {
        text_answer(x, 404, "404 page not found");
    }
}

HarnessServer *harness_server_new(const Suite *s, const HarnessOpts *o, int *err)
{
    HarnessServer *h = sc_calloc(1, sizeof *h);
    if (!h) {
        *err = ENOMEM;
        return NULL;
    }
    buf_init(&h->block);
    h->suite = s;
    h->o = *o;      /* o->only (NULL: every entry) is what the prompts choose among */
    h->log = o->log ? o->log : stderr;
    h->entry = -1;
    HttpServerOpts ho = {
        .host = o->host, .port = o->port ? o->port : "8080", .max_body = o->max_body, .max_conns = o->max_conns,
        .timeout_ms = o->timeout_ms, .head_timeout_ms = o->head_timeout_ms, .idle_timeout_ms = o->idle_timeout_ms,
        .handle = handle, .tick = on_tick, .stream_closed = on_stream_closed, .ctx = h,
        .no_signals = o->no_signals,
    };
    h->http = http_server_new(&ho);
    if (!h->http) {
        harness_server_free(h);
        *err = ENOMEM;
        return NULL;
    }
    return h;
}

void harness_server_free(HarnessServer *h)
{
    if (!h)
        return;
    http_server_free(h->http);
    scn_turns_fini(&h->tt);
    sc_free(h->subs);
    buf_fini(&h->block);
    sc_free(h);
}

int harness_server_listen(HarnessServer *h, char *bound, size_t cap)
{
    int err = http_server_listen(h->http, bound, cap);
    if (!err) {
        unsigned long fds = 0;
        unsigned n = http_server_max_conns(h->http, &fds);
        logf_(h, "up to %u connections at once (file-descriptor limit %lu, the soft limit raised to the hard one)", n,
              fds);
    }
    return err;
}

HttpServer *harness_server_http(HarnessServer *h) { return h->http; }

void harness_server_counts(const HarnessServer *h, HarnessCounts *c) { *c = h->c; }
