/* SPDX-License-Identifier: MIT */
/* llm_render.c - encoders: a scripted response as OpenAI Chat Completions,
** OpenAI Responses or Anthropic Messages, streamed (SSE over chunked
** transfer coding) or whole, and the APIs' error shapes.
**
** Timing: a step (think, assistant, error) is sent at its compiled time
** minus the llmResponse's start; the message ends (tool calls, finish,
** usage) at the llmResponse's end; a non-streamed body is sent whole at the
** end.  Every time goes through llm_scale().  Ids are derived from the
** scenario name and the response's index (llm_make_id), never random. */
#include "llm_render.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/fnv1a.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "runtime/rt_clock.h"
#include "runtime/http/http_sse.h"

/* Tool-call argument fragments: small enough that every client must
** reassemble them, split only at UTF-8 character boundaries. */
enum { ARG_PIECE = 24 };

uint64_t llm_scale(uint64_t t, double speed)
{
    return speed > 0 ? rt_clock_scale(t, speed) : 0;
}

/* ---- ids ---- */

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return fnv1a64_more(h, b, 8);
}

static const char ALNUM[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void fill_chars(char *out, size_t n, uint64_t h, const char *alpha, unsigned base)
{
    uint64_t x = h;
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 0) {
            x = fnv_u64(h, i);
            x ^= x >> 29;
            x *= 0xbf58476d1ce4e5b9ULL;
            x ^= x >> 32;
        }
        out[i] = alpha[x % base];
        x /= base;
    }
}

void llm_make_id(char *out, size_t cap, const char *prefix, size_t n,
                 const char *scenario, const char *kind, uint64_t a, uint64_t b)
{
    uint64_t h = FNV1A64_INIT;
    h = fnv1a64_more(h, scenario, strlen(scenario) + 1);
    h = fnv1a64_more(h, kind, strlen(kind) + 1);
    h = fnv_u64(fnv_u64(h, a), b);
    size_t pl = strlen(prefix);
    if (cap == 0)
        return;
    if (pl + n + 1 > cap)
        n = cap > pl + 1 ? cap - pl - 1 : 0;
    if (pl >= cap)
        pl = cap - 1;
    memcpy(out, prefix, pl);
    fill_chars(out + pl, n, h, ALNUM, 62);
    out[pl + n] = 0;
}

/* ---- error shapes ---- */

static const char *anthropic_type(int status)
{
    switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 402: return "billing_error";
    case 403: return "permission_error";
    case 404: return "not_found_error";
    case 409: return "conflict_error";
    case 413: return "request_too_large";
    case 429: return "rate_limit_error";
    case 504: return "timeout_error";
    case 529: return "overloaded_error";
    default: return status >= 500 ? "api_error" : "invalid_request_error";
    }
}

static bool is_anthropic_type(const char *t)
{
    static const char *const known[] = {
        "invalid_request_error", "authentication_error", "billing_error", "permission_error",
        "not_found_error", "request_too_large", "rate_limit_error", "api_error", "timeout_error",
        "overloaded_error", "conflict_error", NULL
    };
    for (size_t i = 0; known[i]; i++)
        if (strcmp(t, known[i]) == 0)
            return true;
    return false;
}

static const char *openai_type(int status, const char *etype)
{
    if (etype && (strcmp(etype, "insufficient_quota") == 0 || strcmp(etype, "invalid_request_error") == 0 ||
                  strcmp(etype, "server_error") == 0 || strcmp(etype, "tokens") == 0 ||
                  strcmp(etype, "requests") == 0))
        return etype;
    if (status == 429)
        return "requests";
    return status >= 500 ? "server_error" : "invalid_request_error";
}

/* Google's canonical status name of an HTTP status (Gemini errors). */
static const char *gemini_status(int status)
{
    switch (status) {
    case 400: return "INVALID_ARGUMENT";
    case 401: return "UNAUTHENTICATED";
    case 403: return "PERMISSION_DENIED";
    case 404: return "NOT_FOUND";
    case 409: return "ABORTED";
    case 429: return "RESOURCE_EXHAUSTED";
    case 499: return "CANCELLED";
    case 501: return "UNIMPLEMENTED";
    case 503: return "UNAVAILABLE";
    case 504: return "DEADLINE_EXCEEDED";
    }
    return status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION";
}

/* A scenario's errorType used as Gemini's status when it has the shape
** of one (RESOURCE_EXHAUSTED); else the status's own. */
static const char *gemini_status_of(int status, const char *etype)
{
    if (etype && *etype) {
        const char *c = etype;
        while ((*c >= 'A' && *c <= 'Z') || *c == '_')
            c++;
        if (!*c)
            return etype;
    }
    return gemini_status(status);
}

/* The error object of an API (docs/serve-llm.md, "Errors").  etype is the
** scenario's errorType (or NULL); details is a JSON text or NULL. */
static void error_json(JsonW *w, LlmApi api, int status, const char *etype, const char *msg, size_t msg_len,
                       const char *details, size_t details_len, const char *req_id, uint64_t seq)
{
    jw_obj(w);
    if (api == LLM_API_GEMINI) {
        jw_kobj(w, "error");
        jw_ku64(w, "code", (uint64_t)(status > 0 ? status : 500));
        jw_kstr(w, "message", msg, msg_len);
        jw_kcstr(w, "status", gemini_status_of(status, etype));
        if (details)
            jw_kraw(w, "details", details, details_len);
        jw_end(w);
    } else if (api == LLM_API_MESSAGES) {
        jw_kcstr(w, "type", "error");
        jw_kobj(w, "error");
        jw_kcstr(w, "type", etype && is_anthropic_type(etype) ? etype : anthropic_type(status));
        jw_kstr(w, "message", msg, msg_len);
        if (details)
            jw_kraw(w, "details", details, details_len);
        jw_end(w);
        jw_kcstr(w, "request_id", req_id);
    } else if (api == LLM_API_RESPONSES && seq != UINT64_MAX) {
        /* the in-band `error` event of the Responses stream */
        jw_kcstr(w, "type", "error");
        jw_ku64(w, "sequence_number", seq);
        jw_kcstr(w, "code", etype ? etype : openai_type(status, NULL));
        jw_kstr(w, "message", msg, msg_len);
        jw_knull(w, "param");
    } else {
        jw_kobj(w, "error");
        jw_kstr(w, "message", msg, msg_len);
        jw_kcstr(w, "type", openai_type(status, etype));
        jw_knull(w, "param");
        jw_kcstr(w, "code", etype);
        if (details)
            jw_kraw(w, "details", details, details_len);
        jw_end(w);
    }
    jw_end(w);
}

/* A whole (not streamed) JSON response due at `at`. */
static int whole(HttpPlan *p, int status, const Buf *body, bool keep_alive, const char *req_id,
                 const char *extra, const char *extra2, uint64_t at)
{
    int e = http_plan_whole(p, status, "application/json", body->data, body->len, keep_alive, req_id, extra,
                            extra2, at);
    return body->oom ? ENOMEM : e;
}

int llm_render_error(LlmApi api, int status, const char *type, const char *msg,
                     const LlmRenderReq *q, const char *request_id, HttpPlan *p)
{
    Buf body;
    buf_init(&body);
    JsonW w;
    jw_init(&w, &body);
    if (api == LLM_API_RESPONSES)
        api = LLM_API_CHAT;   /* the HTTP error body of both OpenAI APIs */
    error_json(&w, api, status, type, msg, strlen(msg), NULL, 0, request_id, UINT64_MAX);
    int e = whole(p, status, &body, q->keep_alive, request_id,
                  status == 400 || status == 404 ? "x-should-retry: false\r\n" : NULL, q->extra_headers, 0);
    buf_fini(&body);
    return e;
}

int llm_render_json(const char *json, size_t len, bool keep_alive, HttpPlan *p)
{
    return http_plan_whole(p, 200, "application/json", json, len, keep_alive, NULL, NULL, NULL, 0);
}

/* ---- rendering a scripted response ---- */

typedef struct R {
    const LlmScript *s;
    const BcProgram *prog;
    const LlmResp *r;
    uint32_t ri, attempt;
    const LlmRenderReq *q;
    HttpPlan *p;
    Buf cur;                 /* the SSE text of the chunk being built */
    uint64_t seq;            /* Responses: sequence_number */
    const char *model;
    size_t model_len;
    uint64_t created;
    char req_id[32], msg_id[64];
    uint64_t in_tok, out_tok, think_tok;
    bool skip_thinking;      /* coalesceThinkingWithToolUse: false and tools */
    bool max_tokens;         /* _meta.response.stopReason: max_tokens: the answer was cut by the limit */
    bool cut;                /* _meta.response.fault: cut: the connection closes before the end */
    Buf chunk_open;          /* chat: what every chunk starts with, up to its delta */
    JsonW chunk_w;           /* and the writer's state after it */
} R;

static const BcInsn *step_insn(const R *x, uint32_t k)
{
    return &x->prog->insn[x->s->steps[x->r->step0 + k]];
}

static const BcInsn *tool_insn(const R *x, uint32_t k)
{
    return &x->prog->insn[x->s->tools[x->r->tool0 + k]];
}

/* The calls the response makes: its tool uses, or the agent's calls
** (LlmRenderReq.calls: tool uses, then agentEdits as the agent's edits). */
static uint32_t n_calls(const R *x)
{
    return x->q->calls ? x->q->n_calls : x->r->n_tools;
}

static const BcStr *sstr(const R *x, uint32_t idx)
{
    return &x->prog->str[idx];
}

static uint64_t rel(const R *x, const BcInsn *in)
{
    return in->t > x->r->t0 ? in->t - x->r->t0 : 0;
}

static uint64_t at(const R *x, uint64_t t)
{
    return llm_scale(t, x->q->speed);
}

/* Appends the SSE text in x->cur as one chunk due at unscaled time t. */
static void flush(R *x, uint64_t t)
{
    http_plan_chunk(x->p, x->cur.data, x->cur.len, at(x, t));
    if (x->cur.oom)
        x->p->oom = true;
    buf_reset(&x->cur);
}

static void end_stream(R *x, uint64_t t)
{
    flush(x, t);
    http_plan_chunk_end(x->p, at(x, t));
}

/* _meta.response.fault: cut.  Where the message would end (its finish,
** usage, terminator; or an in-band error), the connection closes at t
** instead: what was sent stays a truncated stream, without even the
** chunked body's last chunk. */
static int cut_stream(R *x, uint64_t t)
{
    flush(x, t);
    http_plan_cut_off(x->p, SIZE_MAX, at(x, t));
    return http_plan_error(x->p);
}

static void call_id(const LlmScript *s, uint32_t ri, uint32_t k, const char *prefix, size_t n, char *out, size_t cap)
{
    if (k >= s->resp[ri].n_tools) {     /* an agentEdits call */
        llm_make_id(out, cap, prefix, n, s->name, "edit", ri, k);
        return;
    }
    const BcInsn *in = &s->prog->insn[s->tools[s->resp[ri].tool0 + k]];
    BcVal idv = bc_val(s->prog, in->a[2]);
    if (idv.tag == BC_V_STR && s->prog->str[idv.n].len > 0 && s->prog->str[idv.n].len < cap) {
        memcpy(out, s->prog->str[idv.n].s, s->prog->str[idv.n].len + 1);
        return;
    }
    llm_make_id(out, cap, prefix, n, s->name, "tool", ri, k);
}

static void tool_id(const R *x, uint32_t k, const char *prefix, size_t n, char *out, size_t cap)
{
    call_id(x->s, x->ri, k, prefix, n, out, cap);
}

void llm_tool_call_id(const LlmScript *s, uint32_t ri, uint32_t k, LlmApi api, char *out, size_t cap)
{
    if (api == LLM_API_MESSAGES)
        call_id(s, ri, k, "toolu_01", 22, out, cap);
    else
        call_id(s, ri, k, "call_", 24, out, cap);
}

/* The call's name and arguments: the agent's (LlmRenderReq.calls, mapped
** by its profile) or the scenario's as written. */
static BcStr tool_name(const R *x, uint32_t k)
{
    if (x->q->calls)
        return x->q->calls[k].name;
    return *sstr(x, tool_insn(x, k)->a[0]);
}

static void tool_args(const R *x, uint32_t k, Buf *out)
{
    if (x->q->calls)
        buf_put(out, x->q->calls[k].args, x->q->calls[k].args_len);
    else
        bc_val_json(x->prog, tool_insn(x, k)->a[1], out);
}

/* Length of the next argument piece of s[0..n): at most ARG_PIECE bytes,
** never ending inside a UTF-8 sequence. */
static size_t piece_len(const unsigned char *s, size_t n)
{
    if (n <= ARG_PIECE)
        return n;
    size_t k = ARG_PIECE;
    while (k > 0 && (s[k] & 0xC0) == 0x80)
        k--;
    return k ? k : n;
}

static uint64_t tokens_of(size_t bytes)
{
    return (bytes + 3) / 4;
}

static void count_usage(R *x)
{
    size_t vis = 0, think = 0;
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        if (in->op == OP_ASSISTANT)
            vis += sstr(x, in->a[0])->len;
        else if (in->op == OP_THINK && !x->skip_thinking)
            think += sstr(x, in->a[0])->len;
    }
    Buf a;
    buf_init(&a);
    for (uint32_t k = 0; k < n_calls(x); k++) {
        vis += tool_name(x, k).len;
        buf_reset(&a);
        tool_args(x, k, &a);
        vis += a.len;
    }
    buf_fini(&a);
    x->think_tok = tokens_of(think);
    int64_t v;
    if (llm_resp_meta_int(x->s, x->r, "response.tokens", &v))
        x->out_tok = (uint64_t)v;
    else
        x->out_tok = tokens_of(vis) + x->think_tok;
    if (x->out_tok == 0)
        x->out_tok = 1;
    if (x->think_tok > x->out_tok)
        x->think_tok = x->out_tok;
    x->in_tok = llm_resp_meta_int(x->s, x->r, "response.inputTokens", &v) ? (uint64_t)v : x->q->input_tokens;
}

static void put_model(R *x, JsonW *w)
{
    jw_kstr(w, "model", x->model, x->model_len);
}

/* Starts an SSE event in x->cur whose data is one JSON value written
** with *w; ev_end closes it. */
static JsonW *ev(R *x, JsonW *w, const char *event)
{
    http_sse_begin(&x->cur, event);
    jw_init(w, &x->cur);
    return w;
}

static void ev_end(R *x)
{
    http_sse_end(&x->cur);
}

/* The tool call's arguments (JSON) as a value of w. */
static void args_value(const R *x, uint32_t k, JsonW *w)
{
    jw_value(w);
    tool_args(x, k, w->b);
}

/* Headers of a scripted error: retry-after (seconds, scaled, rounded up)
** and retry-after-ms (scaled, at least 1: both SDKs ignore 0). */
static void retry_headers(const R *x, const BcInsn *err, char *out, size_t cap)
{
    out[0] = 0;
    BcVal rv = bc_val(x->prog, err->a[3]);
    double secs = -1;
    if (rv.tag == BC_V_INT && rv.i >= 0)
        secs = (double)rv.i;
    else if (rv.tag == BC_V_FLOAT && rv.f >= 0 && isfinite(rv.f))
        secs = rv.f;
    if (secs < 0)
        return;
    double ms = secs * 1000.0 * (x->q->speed > 0 ? x->q->speed : 0);
    if (ms > 1e12)
        ms = 1e12;
    unsigned long long ims = (unsigned long long)llround(ms);
    if (ims < 1)
        ims = 1;
    unsigned long long isec = (unsigned long long)ceil(ms / 1000.0);
    snprintf(out, cap, "retry-after: %llu\r\nretry-after-ms: %llu\r\n", isec, ims);
}

static void error_of(const R *x, const BcInsn *err, JsonW *w, uint64_t seq)
{
    const BcStr *type = sstr(x, err->a[0]), *msg = sstr(x, err->a[2]);
    Buf d;
    buf_init(&d);
    BcVal dv = bc_val(x->prog, err->a[4]);
    if (dv.tag != BC_V_NULL)
        bc_val_json(x->prog, err->a[4], &d);
    error_json(w, x->q->api, (int)err->a[1], type->s, msg->s, msg->len,
               d.len ? (const char *)d.data : NULL, d.len, x->req_id, seq);
    buf_fini(&d);
}

/* A scripted error answered as an HTTP error status. */
static int http_error(R *x, const BcInsn *err)
{
    int status = (int)err->a[1];
    if (status < 400)
        status = 500;
    char retry[96];
    retry_headers(x, err, retry, sizeof retry);
    LlmApi api = x->q->api;
    Buf body;
    buf_init(&body);
    JsonW w;
    jw_init(&w, &body);
    R y = *x;
    LlmRenderReq q2 = *x->q;
    if (api == LLM_API_RESPONSES)
        q2.api = LLM_API_CHAT;
    y.q = &q2;
    error_of(&y, err, &w, UINT64_MAX);
    int e = whole(x->p, status, &body, x->q->keep_alive, x->req_id, retry[0] ? retry : NULL,
                  x->q->extra_headers, 0);
    buf_fini(&body);
    return e;
}

static void stream_head(R *x)
{
    http_plan_head(x->p, 200, "text/event-stream; charset=utf-8", true, 0, x->q->keep_alive, x->req_id, NULL,
                   x->q->extra_headers);
    http_plan_cut(x->p, 0);
}

/* A scripted error inside a stream: the API's error event. */
static void stream_error(R *x, const BcInsn *err)
{
    JsonW w;
    if (x->q->api == LLM_API_RESPONSES)
        error_of(x, err, ev(x, &w, "error"), x->seq++);
    else
        error_of(x, err, ev(x, &w, x->q->api == LLM_API_MESSAGES ? "error" : NULL), UINT64_MAX);
    ev_end(x);
}

/* ---- Anthropic Messages ---- */

enum { BLK_NONE, BLK_THINK, BLK_TEXT };

typedef struct AnthBlocks {
    int kind, index;
    uint64_t sig_hash;
} AnthBlocks;

/* A scripted error in the middle of a stream at t: the connection cut
** there, or the API's error event and the stream's end. */
static int stream_fail(R *x, const BcInsn *err, uint64_t t)
{
    if (x->cut)
        return cut_stream(x, t);
    stream_error(x, err);
    end_stream(x, t);
    return http_plan_error(x->p);
}

static void anth_signature(R *x, uint64_t h, JsonW *w)
{
    char sig[97];
    /* Shaped like the real ones (base64, "Eq" prefix); derived from the
    ** scenario, response and thinking text, so a client can check it. */
    sig[0] = 'E';
    sig[1] = 'q';
    fill_chars(sig + 2, 94, fnv1a64_more(h, x->s->name, strlen(x->s->name)), B64, 64);
    sig[96] = 0;
    jw_key(w, "signature");
    jw_str(w, sig, 96);
}

/* {"type":TYPE,"index":I, then the caller's keys */
static JsonW *anth_ev(R *x, JsonW *w, const char *type, int index)
{
    ev(x, w, type);
    jw_obj(w);
    jw_kcstr(w, "type", type);
    jw_ki64(w, "index", index);
    return w;
}

static void anth_close(R *x, AnthBlocks *b)
{
    JsonW w;
    if (b->kind == BLK_THINK) {
        anth_ev(x, &w, "content_block_delta", b->index);
        jw_kobj(&w, "delta");
        jw_kcstr(&w, "type", "signature_delta");
        anth_signature(x, b->sig_hash, &w);
        jw_end(&w);
        jw_end(&w);
        ev_end(x);
    }
    if (b->kind != BLK_NONE) {
        anth_ev(x, &w, "content_block_stop", b->index);
        jw_end(&w);
        ev_end(x);
    }
    b->kind = BLK_NONE;
}

static uint64_t sig_seed(const R *x, int index)
{
    return fnv_u64(fnv_u64(FNV1A64_INIT, x->ri), (uint64_t)index);
}

static const char *anth_stop_reason(const R *x)
{
    if (x->max_tokens)
        return "max_tokens";
    return n_calls(x) ? "tool_use" : "end_turn";
}

static void anth_usage(R *x, JsonW *w, uint64_t out_tok)
{
    jw_kobj(w, "usage");
    jw_ku64(w, "input_tokens", x->in_tok);
    jw_ku64(w, "cache_creation_input_tokens", 0);
    jw_ku64(w, "cache_read_input_tokens", 0);
    jw_ku64(w, "output_tokens", out_tok);
    jw_end(w);
}

/* The message object: empty (message_start) or whole (a response that
** is not streamed: the same blocks the stream builds). */
static void anth_message_obj(R *x, JsonW *w, bool whole_msg)
{
    jw_obj(w);
    jw_kstr(w, "id", x->msg_id, strlen(x->msg_id));
    jw_kcstr(w, "type", "message");
    jw_kcstr(w, "role", "assistant");
    put_model(x, w);
    jw_karr(w, "content");
    if (!whole_msg) {
        jw_end(w);
        jw_knull(w, "stop_reason");
        jw_knull(w, "stop_sequence");
        anth_usage(x, w, 1);
        jw_end(w);
        return;
    }
    int kind = BLK_NONE, index = -1;
    uint64_t h = 0;
    for (uint32_t k = x->r->n_lead_errors; k <= x->r->n_steps; k++) {
        const BcInsn *in = k < x->r->n_steps ? step_insn(x, k) : NULL;
        if (in && in->op == OP_THINK && x->skip_thinking)
            continue;
        int want = !in ? BLK_NONE : in->op == OP_THINK ? BLK_THINK : BLK_TEXT;
        if (want != kind) {
            if (kind != BLK_NONE)
                jw_str_end(w);
            if (kind == BLK_THINK)
                anth_signature(x, h, w);
            if (kind != BLK_NONE)
                jw_end(w);
            if (want == BLK_NONE)
                break;
            index++;
            h = sig_seed(x, index);
            jw_obj(w);
            jw_kcstr(w, "type", want == BLK_THINK ? "thinking" : "text");
            jw_key(w, want == BLK_THINK ? "thinking" : "text");
            jw_str_begin(w);
            kind = want;
        }
        const BcStr *t = sstr(x, in->a[0]);
        jw_str_part(w, t->s, t->len);
        if (kind == BLK_THINK)
            h = fnv1a64_more(h, t->s, t->len);
    }
    for (uint32_t k = 0; k < n_calls(x); k++) {
        char id[64];
        tool_id(x, k, "toolu_01", 22, id, sizeof id);
        const BcStr nm = tool_name(x, k), *n = &nm;
        jw_obj(w);
        jw_kcstr(w, "type", "tool_use");
        jw_kcstr(w, "id", id);
        jw_kstr(w, "name", n->s, n->len);
        jw_key(w, "input");
        args_value(x, k, w);
        jw_end(w);
    }
    jw_end(w);
    jw_kcstr(w, "stop_reason", anth_stop_reason(x));
    jw_knull(w, "stop_sequence");
    anth_usage(x, w, x->out_tok);
    jw_end(w);
}

/* An event whose data is {"type":TYPE} and nothing else. */
static void anth_bare(R *x, const char *type)
{
    JsonW w;
    ev(x, &w, type);
    jw_obj(&w);
    jw_kcstr(&w, "type", type);
    jw_end(&w);
    ev_end(x);
}

static int anth_stream(R *x)
{
    JsonW w;
    stream_head(x);
    ev(x, &w, "message_start");
    jw_obj(&w);
    jw_kcstr(&w, "type", "message_start");
    jw_key(&w, "message");
    anth_message_obj(x, &w, false);
    jw_end(&w);
    ev_end(x);
    anth_bare(x, "ping");
    flush(x, 0);
    AnthBlocks b = { BLK_NONE, -1, 0 };
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        uint64_t t = rel(x, in);
        if (in->op == OP_LLM_ERROR) {
            if (!x->cut)
                anth_close(x, &b);
            return stream_fail(x, in, t);
        }
        if (in->op == OP_THINK && x->skip_thinking)
            continue;
        int want = in->op == OP_THINK ? BLK_THINK : BLK_TEXT;
        bool think = want == BLK_THINK;
        if (b.kind != want) {
            anth_close(x, &b);
            b.kind = want;
            b.index++;
            b.sig_hash = sig_seed(x, b.index);
            anth_ev(x, &w, "content_block_start", b.index);
            jw_kobj(&w, "content_block");
            jw_kcstr(&w, "type", think ? "thinking" : "text");
            jw_kcstr(&w, think ? "thinking" : "text", "");
            if (think)
                jw_kcstr(&w, "signature", "");
            jw_end(&w);
            jw_end(&w);
            ev_end(x);
        }
        const BcStr *txt = sstr(x, in->a[0]);
        anth_ev(x, &w, "content_block_delta", b.index);
        jw_kobj(&w, "delta");
        jw_kcstr(&w, "type", think ? "thinking_delta" : "text_delta");
        jw_kstr(&w, think ? "thinking" : "text", txt->s, txt->len);
        jw_end(&w);
        jw_end(&w);
        ev_end(x);
        if (think)
            b.sig_hash = fnv1a64_more(b.sig_hash, txt->s, txt->len);
        flush(x, t);
    }
    uint64_t end = x->r->dur;
    if (x->cut)
        return cut_stream(x, end);
    anth_close(x, &b);
    Buf args;
    buf_init(&args);
    for (uint32_t k = 0; k < n_calls(x); k++) {
        int index = ++b.index;
        char id[64];
        tool_id(x, k, "toolu_01", 22, id, sizeof id);
        const BcStr nm = tool_name(x, k), *n = &nm;
        anth_ev(x, &w, "content_block_start", index);
        jw_kobj(&w, "content_block");
        jw_kcstr(&w, "type", "tool_use");
        jw_kcstr(&w, "id", id);
        jw_kstr(&w, "name", n->s, n->len);
        jw_kraw(&w, "input", "{}", 2);
        jw_end(&w);
        jw_end(&w);
        ev_end(x);
        buf_reset(&args);
        tool_args(x, k, &args);
        /* an empty first piece, as the API sends, then the arguments */
        size_t off = 0;
        bool first = true;
        while (first || off < args.len) {
            size_t pl = first ? 0 : piece_len(args.data + off, args.len - off);
            anth_ev(x, &w, "content_block_delta", index);
            jw_kobj(&w, "delta");
            jw_kcstr(&w, "type", "input_json_delta");
            jw_kstr(&w, "partial_json", (const char *)args.data + off, pl);
            jw_end(&w);
            jw_end(&w);
            ev_end(x);
            off += pl;
            first = false;
        }
        anth_ev(x, &w, "content_block_stop", index);
        jw_end(&w);
        ev_end(x);
    }
    if (args.oom)
        x->p->oom = true;
    buf_fini(&args);
    ev(x, &w, "message_delta");
    jw_obj(&w);
    jw_kcstr(&w, "type", "message_delta");
    jw_kobj(&w, "delta");
    jw_kcstr(&w, "stop_reason", anth_stop_reason(x));
    jw_knull(&w, "stop_sequence");
    jw_end(&w);
    jw_kobj(&w, "usage");
    jw_ku64(&w, "input_tokens", x->in_tok);
    jw_ku64(&w, "output_tokens", x->out_tok);
    jw_end(&w);
    jw_end(&w);
    ev_end(x);
    anth_bare(x, "message_stop");
    end_stream(x, end);
    return http_plan_error(x->p);
}

/* ---- OpenAI Chat Completions ---- */

/* id, object, created, model, system_fingerprint, service_tier */
static void chat_head(R *x, JsonW *w, const char *object)
{
    jw_kstr(w, "id", x->msg_id, strlen(x->msg_id));
    jw_kcstr(w, "object", object);
    jw_ku64(w, "created", x->created);
    put_model(x, w);
    jw_kcstr(w, "system_fingerprint", "fp_scvm");
    jw_kcstr(w, "service_tier", "default");
}

/* The object's head and its only choice opened: {"id":...,"choices":[{"index":0 */
static void chat_choice(R *x, JsonW *w, const char *object)
{
    jw_obj(w);
    chat_head(x, w, object);
    jw_karr(w, "choices");
    jw_obj(w);
    jw_ku64(w, "index", 0);
}

/* Tool call k's "id", "type" and "function" opened with its "name" (its
** "arguments" follow, whole or in pieces). */
static void chat_call_head(R *x, JsonW *w, uint32_t k)
{
    char id[64];
    tool_id(x, k, "call_", 24, id, sizeof id);
    const BcStr nm = tool_name(x, k);
    jw_kcstr(w, "id", id);
    jw_kcstr(w, "type", "function");
    jw_kobj(w, "function");
    jw_kstr(w, "name", nm.s, nm.len);
}

/* A chunk event up to its choice's delta, whose value the caller writes.
** That opening is the same in every chunk of a response: it is rendered
** once, then copied, with the writer's state after it. */
static void chat_open(R *x, JsonW *w)
{
    if (!x->chunk_open.len) {
        JsonW *o = &x->chunk_w;
        jw_init(o, &x->chunk_open);
        chat_choice(x, o, "chat.completion.chunk");
        jw_key(o, "delta");
        if (x->chunk_open.oom)
            x->p->oom = true;
    }
    http_sse_begin(&x->cur, NULL);
    buf_put(&x->cur, x->chunk_open.data, x->chunk_open.len);
    *w = x->chunk_w;
    w->b = &x->cur;
}

static void chat_close(R *x, JsonW *w, const char *finish_reason)
{
    jw_knull(w, "logprobs");
    jw_kcstr(w, "finish_reason", finish_reason);
    jw_end(w);
    jw_end(w);
    if (x->q->include_usage)
        jw_knull(w, "usage");
    jw_end(w);
    ev_end(x);
}

static void chat_usage(R *x, JsonW *w)
{
    jw_kobj(w, "usage");
    jw_ku64(w, "prompt_tokens", x->in_tok);
    jw_ku64(w, "completion_tokens", x->out_tok);
    jw_ku64(w, "total_tokens", x->in_tok + x->out_tok);
    jw_kobj(w, "prompt_tokens_details");
    jw_ku64(w, "cached_tokens", 0);
    jw_ku64(w, "audio_tokens", 0);
    jw_end(w);
    jw_kobj(w, "completion_tokens_details");
    jw_ku64(w, "reasoning_tokens", x->think_tok);
    jw_ku64(w, "audio_tokens", 0);
    jw_ku64(w, "accepted_prediction_tokens", 0);
    jw_ku64(w, "rejected_prediction_tokens", 0);
    jw_end(w);
    jw_end(w);
}

static int chat_stream(R *x)
{
    JsonW w;
    stream_head(x);
    chat_open(x, &w);
    jw_obj(&w);
    jw_kcstr(&w, "role", "assistant");
    jw_kcstr(&w, "content", "");
    jw_knull(&w, "refusal");
    jw_end(&w);
    chat_close(x, &w, NULL);
    flush(x, 0);
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        uint64_t t = rel(x, in);
        if (in->op == OP_LLM_ERROR)
            return stream_fail(x, in, t);
        if (in->op == OP_THINK)
            continue;   /* OpenAI never shows thinking (the spec) */
        const BcStr *txt = sstr(x, in->a[0]);
        chat_open(x, &w);
        jw_obj(&w);
        jw_kstr(&w, "content", txt->s, txt->len);
        jw_end(&w);
        chat_close(x, &w, NULL);
        flush(x, t);
    }
    if (x->cut)
        return cut_stream(x, x->r->dur);
    Buf args;
    buf_init(&args);
    for (uint32_t k = 0; k < n_calls(x); k++) {
        chat_open(x, &w);
        jw_obj(&w);
        jw_karr(&w, "tool_calls");
        jw_obj(&w);
        jw_ku64(&w, "index", k);
        chat_call_head(x, &w, k);
        jw_kcstr(&w, "arguments", "");
        jw_end(&w);
        jw_end(&w);
        jw_end(&w);
        jw_end(&w);
        chat_close(x, &w, NULL);
        buf_reset(&args);
        tool_args(x, k, &args);
        for (size_t off = 0; off < args.len;) {
            size_t pl = piece_len(args.data + off, args.len - off);
            chat_open(x, &w);
            jw_obj(&w);
            jw_karr(&w, "tool_calls");
            jw_obj(&w);
            jw_ku64(&w, "index", k);
            jw_kobj(&w, "function");
            jw_kstr(&w, "arguments", (const char *)args.data + off, pl);
            jw_end(&w);
            jw_end(&w);
            jw_end(&w);
            jw_end(&w);
            chat_close(x, &w, NULL);
            off += pl;
        }
    }
    if (args.oom)
        x->p->oom = true;
    buf_fini(&args);
    chat_open(x, &w);
    jw_obj(&w);
    jw_end(&w);
    chat_close(x, &w, x->max_tokens ? "length" : n_calls(x) ? "tool_calls" : "stop");
    if (x->q->include_usage) {
        ev(x, &w, NULL);
        jw_obj(&w);
        chat_head(x, &w, "chat.completion.chunk");
        jw_kraw(&w, "choices", "[]", 2);
        chat_usage(x, &w);
        jw_end(&w);
        ev_end(x);
    }
    http_sse_begin(&x->cur, NULL);
    buf_puts(&x->cur, "[DONE]");
    http_sse_end(&x->cur);
    end_stream(x, x->r->dur);
    return http_plan_error(x->p);
}

/* The visible text of the response, concatenated (chat and Responses). */
static void visible_text(R *x, Buf *b, bool *any)
{
    *any = false;
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        if (in->op != OP_ASSISTANT)
            continue;
        const BcStr *t = sstr(x, in->a[0]);
        buf_put(b, t->s, t->len);
        *any = true;
    }
}

static void chat_whole(R *x, JsonW *w)
{
    Buf text;
    buf_init(&text);
    bool any;
    visible_text(x, &text, &any);
    chat_choice(x, w, "chat.completion");
    jw_knull(w, "logprobs");
    jw_kcstr(w, "finish_reason", x->max_tokens ? "length" : n_calls(x) ? "tool_calls" : "stop");
    jw_kobj(w, "message");
    jw_kcstr(w, "role", "assistant");
    if (any)
        jw_kstr(w, "content", text.data ? (const char *)text.data : "", text.len);
    else
        jw_knull(w, "content");
    jw_knull(w, "refusal");
    jw_kraw(w, "annotations", "[]", 2);
    if (n_calls(x)) {
        jw_karr(w, "tool_calls");
        Buf args;
        buf_init(&args);
        for (uint32_t k = 0; k < n_calls(x); k++) {
            jw_obj(w);
            chat_call_head(x, w, k);
            buf_reset(&args);
            tool_args(x, k, &args);
            jw_kstr(w, "arguments", args.data ? (const char *)args.data : "", args.len);
            jw_end(w);
            jw_end(w);
        }
        if (args.oom)
            w->b->oom = true;
        buf_fini(&args);
        jw_end(w);
    }
    jw_end(w);
    jw_end(w);
    jw_end(w);
    chat_usage(x, w);
    jw_end(w);
    if (text.oom)
        w->b->oom = true;
    buf_fini(&text);
}

/* ---- OpenAI Responses ---- */

/* {"type":TYPE,"sequence_number":N, then the caller's keys; resp_end. */
static JsonW *resp_event(R *x, JsonW *w, const char *type)
{
    ev(x, w, type);
    jw_obj(w);
    jw_kcstr(w, "type", type);
    jw_ku64(w, "sequence_number", x->seq++);
    return w;
}

static void resp_end(R *x, JsonW *w)
{
    jw_end(w);
    ev_end(x);
}

static void resp_usage(R *x, JsonW *w)
{
    jw_kobj(w, "usage");
    jw_ku64(w, "input_tokens", x->in_tok);
    jw_kobj(w, "input_tokens_details");
    jw_ku64(w, "cached_tokens", 0);
    jw_end(w);
    jw_ku64(w, "output_tokens", x->out_tok);
    jw_kobj(w, "output_tokens_details");
    jw_ku64(w, "reasoning_tokens", x->think_tok);
    jw_end(w);
    jw_ku64(w, "total_tokens", x->in_tok + x->out_tok);
    jw_end(w);
}

static void item_id(const R *x, const char *kind, uint32_t k, char *out, size_t cap)
{
    llm_make_id(out, cap, strcmp(kind, "fc") == 0 ? "fc_" : "msg_", 40, x->s->name, kind, x->ri, k);
}

/* An output_text part: text[0..len) */
static void resp_text_part(JsonW *w, const char *text, size_t len)
{
    jw_obj(w);
    jw_kcstr(w, "type", "output_text");
    jw_kstr(w, "text", text, len);
    jw_kraw(w, "annotations", "[]", 2);
    jw_kraw(w, "logprobs", "[]", 2);
    jw_end(w);
}

static void resp_msg_item(JsonW *w, const char *id, const Buf *text, bool done)
{
    jw_obj(w);
    jw_kcstr(w, "type", "message");
    jw_kcstr(w, "id", id);
    jw_kcstr(w, "status", done ? "completed" : "in_progress");
    jw_kcstr(w, "role", "assistant");
    jw_karr(w, "content");
    if (done)
        resp_text_part(w, text->data ? (const char *)text->data : "", text->len);
    jw_end(w);
    jw_end(w);
}

static void resp_fc_item(R *x, uint32_t k, JsonW *w, bool done, const Buf *args)
{
    char id[64], cid[64];
    item_id(x, "fc", k, id, sizeof id);
    tool_id(x, k, "call_", 24, cid, sizeof cid);
    const BcStr nm = tool_name(x, k), *n = &nm;
    jw_obj(w);
    jw_kcstr(w, "type", "function_call");
    jw_kcstr(w, "id", id);
    jw_kcstr(w, "call_id", cid);
    jw_kstr(w, "name", n->s, n->len);
    if (done)
        jw_kstr(w, "arguments", args->data ? (const char *)args->data : "", args->len);
    else
        jw_kcstr(w, "arguments", "");
    jw_kcstr(w, "status", done ? "completed" : "in_progress");
    jw_end(w);
}

static void resp_object(R *x, JsonW *w, bool done, const Buf *text, bool any_text)
{
    jw_obj(w);
    jw_kstr(w, "id", x->msg_id, strlen(x->msg_id));
    jw_kcstr(w, "object", "response");
    jw_ku64(w, "created_at", x->created);
    jw_kcstr(w, "status", !done ? "in_progress" : x->max_tokens ? "incomplete" : "completed");
    jw_knull(w, "error");
    if (done && x->max_tokens) {
        jw_kobj(w, "incomplete_details");
        jw_kcstr(w, "reason", "max_output_tokens");
        jw_end(w);
    } else {
        jw_knull(w, "incomplete_details");
    }
    jw_knull(w, "instructions");
    jw_knull(w, "max_output_tokens");
    put_model(x, w);
    jw_karr(w, "output");
    if (done) {
        if (any_text) {
            char id[64];
            item_id(x, "msg", 0, id, sizeof id);
            resp_msg_item(w, id, text, true);
        }
        Buf args;
        buf_init(&args);
        for (uint32_t k = 0; k < n_calls(x); k++) {
            buf_reset(&args);
            tool_args(x, k, &args);
            resp_fc_item(x, k, w, true, &args);
        }
        if (args.oom)
            w->b->oom = true;
        buf_fini(&args);
    }
    jw_end(w);
    jw_kbool(w, "parallel_tool_calls", true);
    jw_knull(w, "previous_response_id");
    jw_kobj(w, "reasoning");
    jw_knull(w, "effort");
    jw_knull(w, "summary");
    jw_end(w);
    jw_kbool(w, "store", false);
    jw_kraw(w, "temperature", "1.0", 3);
    jw_kobj(w, "text");
    jw_kobj(w, "format");
    jw_kcstr(w, "type", "text");
    jw_end(w);
    jw_end(w);
    jw_kcstr(w, "tool_choice", "auto");
    jw_kraw(w, "tools", "[]", 2);
    jw_kraw(w, "top_p", "1.0", 3);
    jw_kcstr(w, "truncation", "disabled");
    if (done)
        resp_usage(x, w);
    else
        jw_knull(w, "usage");
    jw_knull(w, "user");
    jw_kraw(w, "metadata", "{}", 2);
    jw_end(w);
}

/* item_id, output_index, content_index: the keys of the text events */
static void resp_text_keys(JsonW *w, const char *mid)
{
    jw_kcstr(w, "item_id", mid);
    jw_ku64(w, "output_index", 0);
    jw_ku64(w, "content_index", 0);
}

static int resp_stream(R *x)
{
    JsonW w;
    stream_head(x);
    Buf text;
    buf_init(&text);
    static const char *const opening[] = { "response.created", "response.in_progress" };
    for (int i = 0; i < 2; i++) {
        resp_event(x, &w, opening[i]);
        jw_key(&w, "response");
        resp_object(x, &w, false, &text, false);
        resp_end(x, &w);
    }
    flush(x, 0);
    char mid[64];
    item_id(x, "msg", 0, mid, sizeof mid);
    bool open = false;
    uint32_t out_index = 0;
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        uint64_t t = rel(x, in);
        if (in->op == OP_LLM_ERROR) {
            buf_fini(&text);
            return stream_fail(x, in, t);
        }
        if (in->op == OP_THINK)
            continue;
        if (!open) {
            open = true;
            resp_event(x, &w, "response.output_item.added");
            jw_ku64(&w, "output_index", 0);
            jw_key(&w, "item");
            resp_msg_item(&w, mid, &text, false);
            resp_end(x, &w);
            resp_event(x, &w, "response.content_part.added");
            resp_text_keys(&w, mid);
            jw_key(&w, "part");
            resp_text_part(&w, "", 0);
            resp_end(x, &w);
        }
        const BcStr *txt = sstr(x, in->a[0]);
        buf_put(&text, txt->s, txt->len);
        resp_event(x, &w, "response.output_text.delta");
        resp_text_keys(&w, mid);
        jw_kstr(&w, "delta", txt->s, txt->len);
        jw_kraw(&w, "logprobs", "[]", 2);
        resp_end(x, &w);
        flush(x, t);
    }
    if (x->cut) {
        buf_fini(&text);
        return cut_stream(x, x->r->dur);
    }
    if (open) {
        const char *tx = text.data ? (const char *)text.data : "";
        resp_event(x, &w, "response.output_text.done");
        resp_text_keys(&w, mid);
        jw_kstr(&w, "text", tx, text.len);
        jw_kraw(&w, "logprobs", "[]", 2);
        resp_end(x, &w);
        resp_event(x, &w, "response.content_part.done");
        resp_text_keys(&w, mid);
        jw_key(&w, "part");
        resp_text_part(&w, tx, text.len);
        resp_end(x, &w);
        resp_event(x, &w, "response.output_item.done");
        jw_ku64(&w, "output_index", 0);
        jw_key(&w, "item");
        resp_msg_item(&w, mid, &text, true);
        resp_end(x, &w);
        out_index = 1;
    }
    Buf args;
    buf_init(&args);
    for (uint32_t k = 0; k < n_calls(x); k++, out_index++) {
        char fid[64];
        item_id(x, "fc", k, fid, sizeof fid);
        buf_reset(&args);
        tool_args(x, k, &args);
        resp_event(x, &w, "response.output_item.added");
        jw_ku64(&w, "output_index", out_index);
        jw_key(&w, "item");
        resp_fc_item(x, k, &w, false, &args);
        resp_end(x, &w);
        for (size_t off = 0; off < args.len;) {
            size_t pl = piece_len(args.data + off, args.len - off);
            resp_event(x, &w, "response.function_call_arguments.delta");
            jw_kcstr(&w, "item_id", fid);
            jw_ku64(&w, "output_index", out_index);
            jw_kstr(&w, "delta", (const char *)args.data + off, pl);
            resp_end(x, &w);
            off += pl;
        }
        const BcStr nm = tool_name(x, k), *n = &nm;
        resp_event(x, &w, "response.function_call_arguments.done");
        jw_kcstr(&w, "item_id", fid);
        jw_ku64(&w, "output_index", out_index);
        jw_kstr(&w, "name", n->s, n->len);
        jw_kstr(&w, "arguments", args.data ? (const char *)args.data : "", args.len);
        resp_end(x, &w);
        resp_event(x, &w, "response.output_item.done");
        jw_ku64(&w, "output_index", out_index);
        jw_key(&w, "item");
        resp_fc_item(x, k, &w, true, &args);
        resp_end(x, &w);
    }
    if (args.oom)
        x->p->oom = true;
    buf_fini(&args);
    resp_event(x, &w, x->max_tokens ? "response.incomplete" : "response.completed");
    jw_key(&w, "response");
    resp_object(x, &w, true, &text, open);
    resp_end(x, &w);
    end_stream(x, x->r->dur);
    if (text.oom)
        x->p->oom = true;
    buf_fini(&text);
    return http_plan_error(x->p);
}

/* ---- Gemini generateContent ---- */

/* usageMetadata: the prompt in every chunk, the candidates in the last. */
static void gem_usage(R *x, JsonW *w, bool final)
{
    jw_kobj(w, "usageMetadata");
    jw_ku64(w, "promptTokenCount", x->in_tok);
    if (final) {
        jw_ku64(w, "candidatesTokenCount", x->out_tok - x->think_tok);
        jw_ku64(w, "totalTokenCount", x->in_tok + x->out_tok);
        if (x->think_tok)
            jw_ku64(w, "thoughtsTokenCount", x->think_tok);
    } else {
        jw_ku64(w, "totalTokenCount", x->in_tok);
    }
    jw_end(w);
}

/* One GenerateContentResponse in x->cur, up to its parts array, whose
** items the caller writes; gem_chunk_end closes it.  Streamed as SSE
** (alt=sse) or as the elements of one JSON array (the REST default). */
static void gem_chunk(R *x, JsonW *w)
{
    if (x->q->gemini_array) {
        buf_puts(&x->cur, x->seq++ ? ",\r\n" : "[");
    } else {
        http_sse_begin(&x->cur, NULL);
    }
    jw_open_obj(w, &x->cur);
    jw_karr(w, "candidates");
    jw_obj(w);
    jw_kobj(w, "content");
    jw_karr(w, "parts");
}

static void gem_chunk_end(R *x, JsonW *w, const char *finish)
{
    jw_end(w);          /* parts */
    jw_kcstr(w, "role", "model");
    jw_end(w);          /* content */
    if (finish)
        jw_kcstr(w, "finishReason", finish);
    jw_ku64(w, "index", 0);
    jw_end(w);          /* the candidate */
    jw_end(w);          /* candidates */
    gem_usage(x, w, finish != NULL);
    jw_kstr(w, "modelVersion", x->model, x->model_len);
    jw_kstr(w, "responseId", x->msg_id, strlen(x->msg_id));
    jw_end(w);
    if (!x->q->gemini_array)
        ev_end(x);
}

static void gem_text_part(JsonW *w, const BcStr *t, bool thought)
{
    jw_obj(w);
    jw_kstr(w, "text", t->s, t->len);
    if (thought)
        jw_kbool(w, "thought", true);
    jw_end(w);
}

/* The function calls of the response: whole, as Gemini sends them. */
static void gem_calls(R *x, JsonW *w)
{
    for (uint32_t k = 0; k < n_calls(x); k++) {
        const BcStr nm = tool_name(x, k), *n = &nm;
        jw_obj(w);
        jw_kobj(w, "functionCall");
        jw_kstr(w, "name", n->s, n->len);
        jw_key(w, "args");
        args_value(x, k, w);
        jw_end(w);
        jw_end(w);
    }
}

static const char *gem_finish(const R *x)
{
    return x->max_tokens ? "MAX_TOKENS" : "STOP";
}

static bool gem_shows(const R *x, const BcInsn *in)
{
    return in->op == OP_ASSISTANT || (in->op == OP_THINK && x->q->include_thoughts && !x->skip_thinking);
}

static int gem_stream(R *x)
{
    JsonW w;
    http_plan_head(x->p, 200, x->q->gemini_array ? "application/json; charset=utf-8" : "text/event-stream",
                   true, 0, x->q->keep_alive, x->req_id, NULL, x->q->extra_headers);
    http_plan_cut(x->p, 0);
    /* the last chunk carries finishReason: the calls, or the last text */
    uint32_t last = UINT32_MAX;
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps && !x->cut; k++)
        if (gem_shows(x, step_insn(x, k)))
            last = k;
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        uint64_t t = rel(x, in);
        if (in->op == OP_LLM_ERROR && x->cut)
            return cut_stream(x, t);
        if (in->op == OP_LLM_ERROR) {
            /* in-band: the error object, in the array; in an SSE stream
            ** unframed, as the Google Gen AI SDK looks for it (a `data:`
            ** event holding it would be taken for an empty chunk) */
            if (x->q->gemini_array)
                buf_puts(&x->cur, x->seq++ ? ",\r\n" : "[");
            jw_init(&w, &x->cur);
            error_of(x, in, &w, UINT64_MAX);
            buf_puts(&x->cur, x->q->gemini_array ? "]" : "\n");
            end_stream(x, t);
            return http_plan_error(x->p);
        }
        if (!gem_shows(x, in))
            continue;
        gem_chunk(x, &w);
        gem_text_part(&w, sstr(x, in->a[0]), in->op == OP_THINK);
        gem_chunk_end(x, &w, k == last && !n_calls(x) ? gem_finish(x) : NULL);
        flush(x, t);
    }
    if (x->cut)
        return cut_stream(x, x->r->dur);
    if (n_calls(x) || last == UINT32_MAX) {
        gem_chunk(x, &w);
        if (n_calls(x))
            gem_calls(x, &w);
        else
            jw_obj(&w), jw_kcstr(&w, "text", ""), jw_end(&w);
        gem_chunk_end(x, &w, gem_finish(x));
    }
    if (x->q->gemini_array)
        buf_puts(&x->cur, "]");
    end_stream(x, x->r->dur);
    return http_plan_error(x->p);
}

static void gem_whole(R *x, JsonW *w)
{
    jw_obj(w);
    jw_karr(w, "candidates");
    jw_obj(w);
    jw_kobj(w, "content");
    jw_karr(w, "parts");
    Buf text;
    buf_init(&text);
    bool any;
    if (x->q->include_thoughts && !x->skip_thinking) {
        for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++)
            if (step_insn(x, k)->op == OP_THINK)
                buf_put(&text, sstr(x, step_insn(x, k)->a[0])->s, sstr(x, step_insn(x, k)->a[0])->len);
        if (text.len) {
            jw_obj(w);
            jw_kstr(w, "text", (const char *)text.data, text.len);
            jw_kbool(w, "thought", true);
            jw_end(w);
        }
        buf_reset(&text);
    }
    visible_text(x, &text, &any);
    if (any || !n_calls(x)) {
        jw_obj(w);
        jw_kstr(w, "text", text.data ? (const char *)text.data : "", text.len);
        jw_end(w);
    }
    if (text.oom)
        x->p->oom = true;
    buf_fini(&text);
    gem_calls(x, w);
    jw_end(w);
    jw_kcstr(w, "role", "model");
    jw_end(w);
    jw_kcstr(w, "finishReason", gem_finish(x));
    jw_ku64(w, "index", 0);
    jw_end(w);
    jw_end(w);
    gem_usage(x, w, true);
    jw_kstr(w, "modelVersion", x->model, x->model_len);
    jw_kstr(w, "responseId", x->msg_id, strlen(x->msg_id));
    jw_end(w);
}

/* ---- entry ---- */

int llm_render(const LlmScript *s, uint32_t ri, uint32_t attempt, const LlmRenderReq *q, HttpPlan *p)
{
    R x;
    memset(&x, 0, sizeof x);
    x.s = s;
    x.prog = s->prog;
    x.r = &s->resp[ri];
    x.ri = ri;
    x.attempt = attempt;
    x.q = q;
    x.p = p;
    buf_init(&x.cur);
    buf_init(&x.chunk_open);
    x.created = 1700000000ULL + ri;
    x.skip_thinking = !s->coalesce && n_calls(&x) > 0;
    const char *sr;
    uint32_t srl;
    x.max_tokens = llm_resp_meta_str(s, x.r, "response.stopReason", &sr, &srl) && srl == 10 &&
                   memcmp(sr, "max_tokens", 10) == 0;
    x.cut = attempt >= x.r->n_lead_errors && x.r->fault == LLM_FAULT_CUT;
    uint32_t ml;
    if (llm_resp_meta_str(s, x.r, "response.model", &x.model, &ml)) {
        x.model_len = ml;
    } else if (q->model && q->model_len) {
        x.model = q->model;
        x.model_len = q->model_len;
    } else {
        x.model = "scvm-mock";
        x.model_len = strlen(x.model);
    }
    llm_make_id(x.req_id, sizeof x.req_id, "req_", 24, s->name, "request", ri, attempt);
    switch (q->api) {
    case LLM_API_MESSAGES:
        llm_make_id(x.msg_id, sizeof x.msg_id, "msg_01", 22, s->name, "message", ri, 0);
        break;
    case LLM_API_RESPONSES:
        llm_make_id(x.msg_id, sizeof x.msg_id, "resp_", 40, s->name, "response", ri, 0);
        break;
    case LLM_API_GEMINI:
        llm_make_id(x.msg_id, sizeof x.msg_id, "", 22, s->name, "gemini", ri, 0);
        break;
    case LLM_API_CHAT:
    case LLM_API_NONE:
        llm_make_id(x.msg_id, sizeof x.msg_id, "chatcmpl-", 29, s->name, "completion", ri, 0);
        break;
    }
    count_usage(&x);

    int e;
    if (attempt < x.r->n_lead_errors) {
        const BcInsn *err = step_insn(&x, attempt);
        if ((int)err->a[1] < 400 && q->stream) {
            /* statusCode below 400: a 200 stream that fails at once */
            stream_head(&x);
            stream_error(&x, err);
            end_stream(&x, 0);
            e = http_plan_error(p);
        } else {
            e = http_error(&x, err);
        }
    } else if (x.r->fault == LLM_FAULT_RESET || x.r->fault == LLM_FAULT_REFUSE) {
        p->abort = HTTP_ABORT_RESET;   /* not a byte: the server resets the connection */
        e = 0;
    } else if (q->stream) {
        e = q->api == LLM_API_MESSAGES    ? anth_stream(&x)
            : q->api == LLM_API_RESPONSES ? resp_stream(&x)
            : q->api == LLM_API_GEMINI    ? gem_stream(&x)
                                          : chat_stream(&x);
    } else {
        /* whole: an in-band error fails the whole response */
        const BcInsn *err = NULL;
        for (uint32_t k = x.r->n_lead_errors; k < x.r->n_steps && !err; k++)
            if (step_insn(&x, k)->op == OP_LLM_ERROR)
                err = step_insn(&x, k);
        if (err) {
            e = http_error(&x, err);
            if (p->n_items)
                p->items[p->n_items - 1].at_ms = at(&x, rel(&x, err));
        } else {
            Buf body;
            buf_init(&body);
            JsonW w;
            jw_init(&w, &body);
            if (q->api == LLM_API_MESSAGES) {
                anth_message_obj(&x, &w, true);
            } else if (q->api == LLM_API_GEMINI) {
                gem_whole(&x, &w);
            } else if (q->api == LLM_API_RESPONSES) {
                Buf text;
                buf_init(&text);
                bool any;
                visible_text(&x, &text, &any);
                resp_object(&x, &w, true, &text, any);
                if (text.oom)
                    body.oom = true;
                buf_fini(&text);
            } else {
                chat_whole(&x, &w);
            }
            e = whole(p, 200, &body, q->keep_alive, x.req_id, NULL, q->extra_headers, at(&x, x.r->dur));
            buf_fini(&body);
        }
        /* cut: the head and half the body, then the connection closes */
        if (x.cut && !e && p->n_items) {
            http_plan_cut_off(p, p->body0 + (p->bytes.len - p->body0) / 2, p->items[p->n_items - 1].at_ms);
            e = http_plan_error(p);
        }
    }
    if (x.cur.oom)
        e = ENOMEM;
    buf_fini(&x.cur);
    buf_fini(&x.chunk_open);
    return e;
}
