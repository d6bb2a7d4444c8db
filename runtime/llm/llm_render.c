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

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return fnv(h, b, 8);
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
    uint64_t h = 0xcbf29ce484222325ULL;
    h = fnv(h, scenario, strlen(scenario) + 1);
    h = fnv(h, kind, strlen(kind) + 1);
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

/* The error object of an API (docs/serve-llm.md, "Errors").  etype is the
** scenario's errorType (or NULL); details is a JSON text or NULL. */
static void error_json(Buf *b, LlmApi api, int status, const char *etype, const char *msg, size_t msg_len,
                       const char *details, size_t details_len, const char *req_id, uint64_t seq)
{
    if (api == LLM_API_MESSAGES) {
        const char *t = etype && is_anthropic_type(etype) ? etype : anthropic_type(status);
        buf_puts(b, "{\"type\":\"error\",\"error\":{\"type\":");
        buf_json_str(b, t, strlen(t));
        buf_puts(b, ",\"message\":");
        buf_json_str(b, msg, msg_len);
        if (details) {
            buf_puts(b, ",\"details\":");
            buf_put(b, details, details_len);
        }
        buf_puts(b, "},\"request_id\":");
        buf_json_str(b, req_id, strlen(req_id));
        buf_putc(b, '}');
        return;
    }
    if (api == LLM_API_RESPONSES && seq != UINT64_MAX) {
        /* the in-band `error` event of the Responses stream */
        buf_printf(b, "{\"type\":\"error\",\"sequence_number\":%llu,\"code\":", (unsigned long long)seq);
        const char *c = etype ? etype : openai_type(status, NULL);
        buf_json_str(b, c, strlen(c));
        buf_puts(b, ",\"message\":");
        buf_json_str(b, msg, msg_len);
        buf_puts(b, ",\"param\":null}");
        return;
    }
    const char *t = openai_type(status, etype);
    buf_puts(b, "{\"error\":{\"message\":");
    buf_json_str(b, msg, msg_len);
    buf_puts(b, ",\"type\":");
    buf_json_str(b, t, strlen(t));
    buf_puts(b, ",\"param\":null,\"code\":");
    if (etype)
        buf_json_str(b, etype, strlen(etype));
    else
        buf_puts(b, "null");
    if (details) {
        buf_puts(b, ",\"details\":");
        buf_put(b, details, details_len);
    }
    buf_puts(b, "}}");
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
    if (api == LLM_API_RESPONSES)
        api = LLM_API_CHAT;   /* the HTTP error body of both OpenAI APIs */
    error_json(&body, api, status, type, msg, strlen(msg), NULL, 0, request_id, UINT64_MAX);
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
} R;

static const BcInsn *step_insn(const R *x, uint32_t k)
{
    return &x->prog->insn[x->s->steps[x->r->step0 + k]];
}

static const BcInsn *tool_insn(const R *x, uint32_t k)
{
    return &x->prog->insn[x->s->tools[x->r->tool0 + k]];
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

static void tool_id(const R *x, uint32_t k, const char *prefix, size_t n, char *out, size_t cap)
{
    BcVal idv = bc_val(x->prog, tool_insn(x, k)->a[2]);
    if (idv.tag == BC_V_STR && x->prog->str[idv.n].len > 0 && x->prog->str[idv.n].len < cap) {
        memcpy(out, x->prog->str[idv.n].s, x->prog->str[idv.n].len + 1);
        return;
    }
    llm_make_id(out, cap, prefix, n, x->s->name, "tool", x->ri, k);
}

static void tool_args(const R *x, uint32_t k, Buf *out)
{
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
    for (uint32_t k = 0; k < x->r->n_tools; k++) {
        vis += sstr(x, tool_insn(x, k)->a[0])->len;
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

static void put_model(R *x, Buf *b)
{
    buf_json_str(b, x->model, x->model_len);
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

static void error_of(const R *x, const BcInsn *err, Buf *out, uint64_t seq)
{
    const BcStr *type = sstr(x, err->a[0]), *msg = sstr(x, err->a[2]);
    Buf d;
    buf_init(&d);
    BcVal dv = bc_val(x->prog, err->a[4]);
    if (dv.tag != BC_V_NULL)
        bc_val_json(x->prog, err->a[4], &d);
    error_json(out, x->q->api, (int)err->a[1], type->s, msg->s, msg->len,
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
    R y = *x;
    LlmRenderReq q2 = *x->q;
    if (api == LLM_API_RESPONSES)
        q2.api = LLM_API_CHAT;
    y.q = &q2;
    error_of(&y, err, &body, UINT64_MAX);
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

/* ---- Anthropic Messages ---- */

static void sse_event(R *x, const char *name)
{
    http_sse_begin(&x->cur, name);
}

enum { BLK_NONE, BLK_THINK, BLK_TEXT };

typedef struct AnthBlocks {
    int kind, index;
    uint64_t sig_hash;
} AnthBlocks;

static void anth_signature(R *x, uint64_t h, Buf *out)
{
    char sig[97];
    /* Shaped like the real ones (base64, "Eq" prefix); derived from the
    ** scenario, response and thinking text, so a client can check it. */
    sig[0] = 'E';
    sig[1] = 'q';
    fill_chars(sig + 2, 94, fnv(h, x->s->name, strlen(x->s->name)), B64, 64);
    sig[96] = 0;
    buf_json_str(out, sig, 96);
}

static void anth_close(R *x, AnthBlocks *b)
{
    if (b->kind == BLK_THINK) {
        sse_event(x, "content_block_delta");
        buf_printf(&x->cur, "{\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"signature_delta\",\"signature\":", b->index);
        anth_signature(x, b->sig_hash, &x->cur);
        buf_puts(&x->cur, "}}");
        http_sse_end(&x->cur);
    }
    if (b->kind != BLK_NONE) {
        sse_event(x, "content_block_stop");
        buf_printf(&x->cur, "{\"type\":\"content_block_stop\",\"index\":%d}", b->index);
        http_sse_end(&x->cur);
    }
    b->kind = BLK_NONE;
}

static uint64_t sig_seed(const R *x, int index)
{
    return fnv_u64(fnv_u64(0xcbf29ce484222325ULL, x->ri), (uint64_t)index);
}

static const char *anth_stop_reason(const R *x)
{
    return x->r->n_tools ? "tool_use" : "end_turn";
}

static void anth_message_obj(R *x, Buf *b, bool whole_msg)
{
    buf_puts(b, "{\"id\":");
    buf_json_str(b, x->msg_id, strlen(x->msg_id));
    buf_puts(b, ",\"type\":\"message\",\"role\":\"assistant\",\"model\":");
    put_model(x, b);
    if (!whole_msg) {
        buf_printf(b, ",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":%llu,"
                      "\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":1}}",
                   (unsigned long long)x->in_tok);
        return;
    }
    buf_puts(b, ",\"content\":[");
    /* the same blocks the stream builds, whole */
    int kind = BLK_NONE, index = -1;
    uint64_t h = 0;
    bool first = true;
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        int want = in->op == OP_THINK ? BLK_THINK : BLK_TEXT;
        if (in->op == OP_THINK && x->skip_thinking)
            continue;
        if (want != kind) {
            if (kind == BLK_THINK) {
                buf_puts(b, "\",\"signature\":");
                anth_signature(x, h, b);
                buf_putc(b, '}');
            } else if (kind == BLK_TEXT) {
                buf_puts(b, "\"}");
            }
            index++;
            h = sig_seed(x, index);
            buf_puts(b, first ? "" : ",");
            first = false;
            buf_puts(b, want == BLK_THINK ? "{\"type\":\"thinking\",\"thinking\":\"" : "{\"type\":\"text\",\"text\":\"");
            kind = want;
        }
        const BcStr *t = sstr(x, in->a[0]);
        /* append the escaped text without its quotes */
        size_t before = b->len;
        buf_json_str(b, t->s, t->len);
        if (!b->oom) {
            memmove(b->data + before, b->data + before + 1, b->len - before - 2);
            b->len -= 2;
        }
        if (kind == BLK_THINK)
            h = fnv(h, t->s, t->len);
    }
    if (kind == BLK_THINK) {
        buf_puts(b, "\",\"signature\":");
        anth_signature(x, h, b);
        buf_putc(b, '}');
    } else if (kind == BLK_TEXT) {
        buf_puts(b, "\"}");
    }
    for (uint32_t k = 0; k < x->r->n_tools; k++) {
        char id[64];
        tool_id(x, k, "toolu_01", 22, id, sizeof id);
        buf_puts(b, first ? "{\"type\":\"tool_use\",\"id\":" : ",{\"type\":\"tool_use\",\"id\":");
        first = false;
        buf_json_str(b, id, strlen(id));
        buf_puts(b, ",\"name\":");
        const BcStr *n = sstr(x, tool_insn(x, k)->a[0]);
        buf_json_str(b, n->s, n->len);
        buf_puts(b, ",\"input\":");
        tool_args(x, k, b);
        buf_putc(b, '}');
    }
    buf_printf(b, "],\"stop_reason\":\"%s\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":%llu,"
                  "\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":%llu}}",
               anth_stop_reason(x), (unsigned long long)x->in_tok, (unsigned long long)x->out_tok);
}

static int anth_stream(R *x)
{
    stream_head(x);
    sse_event(x, "message_start");
    buf_puts(&x->cur, "{\"type\":\"message_start\",\"message\":");
    anth_message_obj(x, &x->cur, false);
    buf_puts(&x->cur, "}");
    http_sse_end(&x->cur);
    sse_event(x, "ping");
    buf_puts(&x->cur, "{\"type\":\"ping\"}");
    http_sse_end(&x->cur);
    flush(x, 0);
    AnthBlocks b = { BLK_NONE, -1, 0 };
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        uint64_t t = rel(x, in);
        if (in->op == OP_LLM_ERROR) {
            anth_close(x, &b);
            sse_event(x, "error");
            error_of(x, in, &x->cur, UINT64_MAX);
            http_sse_end(&x->cur);
            end_stream(x, t);
            return http_plan_error(x->p);
        }
        if (in->op == OP_THINK && x->skip_thinking)
            continue;
        int want = in->op == OP_THINK ? BLK_THINK : BLK_TEXT;
        if (b.kind != want) {
            anth_close(x, &b);
            b.kind = want;
            b.index++;
            b.sig_hash = sig_seed(x, b.index);
            sse_event(x, "content_block_start");
            buf_printf(&x->cur, "{\"type\":\"content_block_start\",\"index\":%d,\"content_block\":%s}", b.index,
                       want == BLK_THINK ? "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}"
                                         : "{\"type\":\"text\",\"text\":\"\"}");
            http_sse_end(&x->cur);
        }
        const BcStr *txt = sstr(x, in->a[0]);
        sse_event(x, "content_block_delta");
        buf_printf(&x->cur, "{\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"%s\",\"%s\":",
                   b.index, want == BLK_THINK ? "thinking_delta" : "text_delta",
                   want == BLK_THINK ? "thinking" : "text");
        buf_json_str(&x->cur, txt->s, txt->len);
        buf_puts(&x->cur, "}}");
        http_sse_end(&x->cur);
        if (want == BLK_THINK)
            b.sig_hash = fnv(b.sig_hash, txt->s, txt->len);
        flush(x, t);
    }
    uint64_t end = x->r->dur;
    anth_close(x, &b);
    Buf args;
    buf_init(&args);
    for (uint32_t k = 0; k < x->r->n_tools; k++) {
        int index = ++b.index;
        char id[64];
        tool_id(x, k, "toolu_01", 22, id, sizeof id);
        const BcStr *n = sstr(x, tool_insn(x, k)->a[0]);
        sse_event(x, "content_block_start");
        buf_printf(&x->cur, "{\"type\":\"content_block_start\",\"index\":%d,\"content_block\":{\"type\":\"tool_use\",\"id\":", index);
        buf_json_str(&x->cur, id, strlen(id));
        buf_puts(&x->cur, ",\"name\":");
        buf_json_str(&x->cur, n->s, n->len);
        buf_puts(&x->cur, ",\"input\":{}}}");
        http_sse_end(&x->cur);
        buf_reset(&args);
        tool_args(x, k, &args);
        size_t off = 0;
        bool first = true;
        while (first || off < args.len) {
            size_t pl = first ? 0 : piece_len(args.data + off, args.len - off);
            sse_event(x, "content_block_delta");
            buf_printf(&x->cur, "{\"type\":\"content_block_delta\",\"index\":%d,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":", index);
            buf_json_str(&x->cur, (const char *)args.data + off, pl);
            buf_puts(&x->cur, "}}");
            http_sse_end(&x->cur);
            off += pl;
            first = false;
        }
        sse_event(x, "content_block_stop");
        buf_printf(&x->cur, "{\"type\":\"content_block_stop\",\"index\":%d}", index);
        http_sse_end(&x->cur);
    }
    if (args.oom)
        x->p->oom = true;
    buf_fini(&args);
    sse_event(x, "message_delta");
    buf_printf(&x->cur, "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"%s\",\"stop_sequence\":null},"
                        "\"usage\":{\"input_tokens\":%llu,\"output_tokens\":%llu}}",
               anth_stop_reason(x), (unsigned long long)x->in_tok, (unsigned long long)x->out_tok);
    http_sse_end(&x->cur);
    sse_event(x, "message_stop");
    buf_puts(&x->cur, "{\"type\":\"message_stop\"}");
    http_sse_end(&x->cur);
    end_stream(x, end);
    return http_plan_error(x->p);
}

/* ---- OpenAI Chat Completions ---- */

static void chat_open(R *x, Buf *b)
{
    http_sse_begin(b, NULL);
    buf_puts(b, "{\"id\":");
    buf_json_str(b, x->msg_id, strlen(x->msg_id));
    buf_printf(b, ",\"object\":\"chat.completion.chunk\",\"created\":%llu,\"model\":", (unsigned long long)x->created);
    put_model(x, b);
    buf_puts(b, ",\"system_fingerprint\":\"fp_scvm\",\"service_tier\":\"default\",\"choices\":[{\"index\":0,\"delta\":");
}

static void chat_close(R *x, Buf *b, const char *finish_reason)
{
    buf_puts(b, ",\"logprobs\":null,\"finish_reason\":");
    if (finish_reason)
        buf_printf(b, "\"%s\"", finish_reason);
    else
        buf_puts(b, "null");
    buf_puts(b, x->q->include_usage ? "}],\"usage\":null}" : "}]}");
    http_sse_end(b);
}

static void chat_usage(R *x, Buf *b)
{
    buf_printf(b, "{\"prompt_tokens\":%llu,\"completion_tokens\":%llu,\"total_tokens\":%llu,"
                  "\"prompt_tokens_details\":{\"cached_tokens\":0,\"audio_tokens\":0},"
                  "\"completion_tokens_details\":{\"reasoning_tokens\":%llu,\"audio_tokens\":0,"
                  "\"accepted_prediction_tokens\":0,\"rejected_prediction_tokens\":0}}",
               (unsigned long long)x->in_tok, (unsigned long long)x->out_tok,
               (unsigned long long)(x->in_tok + x->out_tok), (unsigned long long)x->think_tok);
}

static int chat_stream(R *x)
{
    stream_head(x);
    chat_open(x, &x->cur);
    buf_puts(&x->cur, "{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null}");
    chat_close(x, &x->cur, NULL);
    flush(x, 0);
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        uint64_t t = rel(x, in);
        if (in->op == OP_LLM_ERROR) {
            http_sse_begin(&x->cur, NULL);
            error_of(x, in, &x->cur, UINT64_MAX);
            http_sse_end(&x->cur);
            end_stream(x, t);
            return http_plan_error(x->p);
        }
        if (in->op == OP_THINK)
            continue;   /* OpenAI never shows thinking (the spec) */
        const BcStr *txt = sstr(x, in->a[0]);
        chat_open(x, &x->cur);
        buf_puts(&x->cur, "{\"content\":");
        buf_json_str(&x->cur, txt->s, txt->len);
        buf_putc(&x->cur, '}');
        chat_close(x, &x->cur, NULL);
        flush(x, t);
    }
    Buf args;
    buf_init(&args);
    for (uint32_t k = 0; k < x->r->n_tools; k++) {
        char id[64];
        tool_id(x, k, "call_", 24, id, sizeof id);
        const BcStr *n = sstr(x, tool_insn(x, k)->a[0]);
        chat_open(x, &x->cur);
        buf_printf(&x->cur, "{\"tool_calls\":[{\"index\":%u,\"id\":", (unsigned)k);
        buf_json_str(&x->cur, id, strlen(id));
        buf_puts(&x->cur, ",\"type\":\"function\",\"function\":{\"name\":");
        buf_json_str(&x->cur, n->s, n->len);
        buf_puts(&x->cur, ",\"arguments\":\"\"}}]}");
        chat_close(x, &x->cur, NULL);
        buf_reset(&args);
        tool_args(x, k, &args);
        for (size_t off = 0; off < args.len;) {
            size_t pl = piece_len(args.data + off, args.len - off);
            chat_open(x, &x->cur);
            buf_printf(&x->cur, "{\"tool_calls\":[{\"index\":%u,\"function\":{\"arguments\":", (unsigned)k);
            buf_json_str(&x->cur, (const char *)args.data + off, pl);
            buf_puts(&x->cur, "}}]}");
            chat_close(x, &x->cur, NULL);
            off += pl;
        }
    }
    if (args.oom)
        x->p->oom = true;
    buf_fini(&args);
    chat_open(x, &x->cur);
    buf_puts(&x->cur, "{}");
    chat_close(x, &x->cur, x->r->n_tools ? "tool_calls" : "stop");
    if (x->q->include_usage) {
        http_sse_begin(&x->cur, NULL);
        buf_puts(&x->cur, "{\"id\":");
        buf_json_str(&x->cur, x->msg_id, strlen(x->msg_id));
        buf_printf(&x->cur, ",\"object\":\"chat.completion.chunk\",\"created\":%llu,\"model\":", (unsigned long long)x->created);
        put_model(x, &x->cur);
        buf_puts(&x->cur, ",\"system_fingerprint\":\"fp_scvm\",\"service_tier\":\"default\",\"choices\":[],\"usage\":");
        chat_usage(x, &x->cur);
        buf_puts(&x->cur, "}");
        http_sse_end(&x->cur);
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

static int chat_whole(R *x, Buf *body)
{
    Buf text;
    buf_init(&text);
    bool any;
    visible_text(x, &text, &any);
    buf_puts(body, "{\"id\":");
    buf_json_str(body, x->msg_id, strlen(x->msg_id));
    buf_printf(body, ",\"object\":\"chat.completion\",\"created\":%llu,\"model\":", (unsigned long long)x->created);
    put_model(x, body);
    buf_printf(body, ",\"system_fingerprint\":\"fp_scvm\",\"service_tier\":\"default\",\"choices\":[{\"index\":0,"
                     "\"logprobs\":null,\"finish_reason\":\"%s\",\"message\":{\"role\":\"assistant\",\"content\":",
               x->r->n_tools ? "tool_calls" : "stop");
    if (any)
        buf_json_str(body, text.data ? (const char *)text.data : "", text.len);
    else
        buf_puts(body, "null");
    buf_puts(body, ",\"refusal\":null,\"annotations\":[]");
    if (x->r->n_tools) {
        buf_puts(body, ",\"tool_calls\":[");
        Buf args;
        buf_init(&args);
        for (uint32_t k = 0; k < x->r->n_tools; k++) {
            char id[64];
            tool_id(x, k, "call_", 24, id, sizeof id);
            const BcStr *n = sstr(x, tool_insn(x, k)->a[0]);
            buf_puts(body, k ? ",{\"id\":" : "{\"id\":");
            buf_json_str(body, id, strlen(id));
            buf_puts(body, ",\"type\":\"function\",\"function\":{\"name\":");
            buf_json_str(body, n->s, n->len);
            buf_puts(body, ",\"arguments\":");
            buf_reset(&args);
            tool_args(x, k, &args);
            buf_json_str(body, args.data ? (const char *)args.data : "", args.len);
            buf_puts(body, "}}");
        }
        buf_fini(&args);
        buf_putc(body, ']');
    }
    buf_puts(body, "}}],\"usage\":");
    chat_usage(x, body);
    buf_putc(body, '}');
    buf_fini(&text);
    return 0;
}

/* ---- OpenAI Responses ---- */

static void resp_event(R *x, const char *type)
{
    http_sse_begin(&x->cur, type);
    buf_printf(&x->cur, "{\"type\":\"%s\",\"sequence_number\":%llu", type,
               (unsigned long long)x->seq++);
}

static void resp_usage(R *x, Buf *b)
{
    buf_printf(b, "{\"input_tokens\":%llu,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens\":%llu,"
                  "\"output_tokens_details\":{\"reasoning_tokens\":%llu},\"total_tokens\":%llu}",
               (unsigned long long)x->in_tok, (unsigned long long)x->out_tok, (unsigned long long)x->think_tok,
               (unsigned long long)(x->in_tok + x->out_tok));
}

static void item_id(const R *x, const char *kind, uint32_t k, char *out, size_t cap)
{
    llm_make_id(out, cap, strcmp(kind, "fc") == 0 ? "fc_" : "msg_", 40, x->s->name, kind, x->ri, k);
}

static void resp_msg_item(Buf *b, const char *id, const Buf *text, bool done)
{
    buf_puts(b, "{\"type\":\"message\",\"id\":");
    buf_json_str(b, id, strlen(id));
    buf_printf(b, ",\"status\":\"%s\",\"role\":\"assistant\",\"content\":[", done ? "completed" : "in_progress");
    if (done) {
        buf_puts(b, "{\"type\":\"output_text\",\"text\":");
        buf_json_str(b, text->data ? (const char *)text->data : "", text->len);
        buf_puts(b, ",\"annotations\":[],\"logprobs\":[]}");
    }
    buf_puts(b, "]}");
}

static void resp_fc_item(R *x, uint32_t k, Buf *b, bool done, Buf *args)
{
    char id[64], cid[64];
    item_id(x, "fc", k, id, sizeof id);
    tool_id(x, k, "call_", 24, cid, sizeof cid);
    const BcStr *n = sstr(x, tool_insn(x, k)->a[0]);
    buf_puts(b, "{\"type\":\"function_call\",\"id\":");
    buf_json_str(b, id, strlen(id));
    buf_puts(b, ",\"call_id\":");
    buf_json_str(b, cid, strlen(cid));
    buf_puts(b, ",\"name\":");
    buf_json_str(b, n->s, n->len);
    buf_puts(b, ",\"arguments\":");
    if (done)
        buf_json_str(b, args->data ? (const char *)args->data : "", args->len);
    else
        buf_puts(b, "\"\"");
    buf_printf(b, ",\"status\":\"%s\"}", done ? "completed" : "in_progress");
}

static void resp_object(R *x, Buf *b, bool done, const Buf *text, bool any_text)
{
    buf_puts(b, "{\"id\":");
    buf_json_str(b, x->msg_id, strlen(x->msg_id));
    buf_printf(b, ",\"object\":\"response\",\"created_at\":%llu,\"status\":\"%s\",\"error\":null,"
                  "\"incomplete_details\":null,\"instructions\":null,\"max_output_tokens\":null,\"model\":",
               (unsigned long long)x->created, done ? "completed" : "in_progress");
    put_model(x, b);
    buf_puts(b, ",\"output\":[");
    if (done) {
        bool first = true;
        if (any_text) {
            char id[64];
            item_id(x, "msg", 0, id, sizeof id);
            resp_msg_item(b, id, text, true);
            first = false;
        }
        Buf args;
        buf_init(&args);
        for (uint32_t k = 0; k < x->r->n_tools; k++) {
            if (!first)
                buf_putc(b, ',');
            first = false;
            buf_reset(&args);
            tool_args(x, k, &args);
            resp_fc_item(x, k, b, true, &args);
        }
        buf_fini(&args);
    }
    buf_puts(b, "],\"parallel_tool_calls\":true,\"previous_response_id\":null,\"reasoning\":{\"effort\":null,"
                "\"summary\":null},\"store\":false,\"temperature\":1.0,\"text\":{\"format\":{\"type\":\"text\"}},"
                "\"tool_choice\":\"auto\",\"tools\":[],\"top_p\":1.0,\"truncation\":\"disabled\",\"usage\":");
    if (done)
        resp_usage(x, b);
    else
        buf_puts(b, "null");
    buf_puts(b, ",\"user\":null,\"metadata\":{}}");
}

static int resp_stream(R *x)
{
    stream_head(x);
    Buf text;
    buf_init(&text);
    resp_event(x, "response.created");
    buf_puts(&x->cur, ",\"response\":");
    resp_object(x, &x->cur, false, &text, false);
    buf_puts(&x->cur, "}");
    http_sse_end(&x->cur);
    resp_event(x, "response.in_progress");
    buf_puts(&x->cur, ",\"response\":");
    resp_object(x, &x->cur, false, &text, false);
    buf_puts(&x->cur, "}");
    http_sse_end(&x->cur);
    flush(x, 0);
    char mid[64];
    item_id(x, "msg", 0, mid, sizeof mid);
    bool open = false;
    uint32_t out_index = 0;
    for (uint32_t k = x->r->n_lead_errors; k < x->r->n_steps; k++) {
        const BcInsn *in = step_insn(x, k);
        uint64_t t = rel(x, in);
        if (in->op == OP_LLM_ERROR) {
            http_sse_begin(&x->cur, "error");
            error_of(x, in, &x->cur, x->seq++);
            http_sse_end(&x->cur);
            end_stream(x, t);
            buf_fini(&text);
            return http_plan_error(x->p);
        }
        if (in->op == OP_THINK)
            continue;
        if (!open) {
            open = true;
            resp_event(x, "response.output_item.added");
            buf_puts(&x->cur, ",\"output_index\":0,\"item\":");
            resp_msg_item(&x->cur, mid, &text, false);
            buf_puts(&x->cur, "}");
            http_sse_end(&x->cur);
            resp_event(x, "response.content_part.added");
            buf_puts(&x->cur, ",\"item_id\":");
            buf_json_str(&x->cur, mid, strlen(mid));
            buf_puts(&x->cur, ",\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[],\"logprobs\":[]}}");
            http_sse_end(&x->cur);
        }
        const BcStr *txt = sstr(x, in->a[0]);
        buf_put(&text, txt->s, txt->len);
        resp_event(x, "response.output_text.delta");
        buf_puts(&x->cur, ",\"item_id\":");
        buf_json_str(&x->cur, mid, strlen(mid));
        buf_puts(&x->cur, ",\"output_index\":0,\"content_index\":0,\"delta\":");
        buf_json_str(&x->cur, txt->s, txt->len);
        buf_puts(&x->cur, ",\"logprobs\":[]}");
        http_sse_end(&x->cur);
        flush(x, t);
    }
    if (open) {
        const char *tx = text.data ? (const char *)text.data : "";
        resp_event(x, "response.output_text.done");
        buf_puts(&x->cur, ",\"item_id\":");
        buf_json_str(&x->cur, mid, strlen(mid));
        buf_puts(&x->cur, ",\"output_index\":0,\"content_index\":0,\"text\":");
        buf_json_str(&x->cur, tx, text.len);
        buf_puts(&x->cur, ",\"logprobs\":[]}");
        http_sse_end(&x->cur);
        resp_event(x, "response.content_part.done");
        buf_puts(&x->cur, ",\"item_id\":");
        buf_json_str(&x->cur, mid, strlen(mid));
        buf_puts(&x->cur, ",\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":");
        buf_json_str(&x->cur, tx, text.len);
        buf_puts(&x->cur, ",\"annotations\":[],\"logprobs\":[]}}");
        http_sse_end(&x->cur);
        resp_event(x, "response.output_item.done");
        buf_puts(&x->cur, ",\"output_index\":0,\"item\":");
        resp_msg_item(&x->cur, mid, &text, true);
        buf_puts(&x->cur, "}");
        http_sse_end(&x->cur);
        out_index = 1;
    }
    Buf args;
    buf_init(&args);
    for (uint32_t k = 0; k < x->r->n_tools; k++, out_index++) {
        char fid[64];
        item_id(x, "fc", k, fid, sizeof fid);
        buf_reset(&args);
        tool_args(x, k, &args);
        resp_event(x, "response.output_item.added");
        buf_printf(&x->cur, ",\"output_index\":%u,\"item\":", (unsigned)out_index);
        resp_fc_item(x, k, &x->cur, false, &args);
        buf_puts(&x->cur, "}");
        http_sse_end(&x->cur);
        for (size_t off = 0; off < args.len;) {
            size_t pl = piece_len(args.data + off, args.len - off);
            resp_event(x, "response.function_call_arguments.delta");
            buf_puts(&x->cur, ",\"item_id\":");
            buf_json_str(&x->cur, fid, strlen(fid));
            buf_printf(&x->cur, ",\"output_index\":%u,\"delta\":", (unsigned)out_index);
            buf_json_str(&x->cur, (const char *)args.data + off, pl);
            buf_puts(&x->cur, "}");
            http_sse_end(&x->cur);
            off += pl;
        }
        const BcStr *n = sstr(x, tool_insn(x, k)->a[0]);
        resp_event(x, "response.function_call_arguments.done");
        buf_puts(&x->cur, ",\"item_id\":");
        buf_json_str(&x->cur, fid, strlen(fid));
        buf_printf(&x->cur, ",\"output_index\":%u,\"name\":", (unsigned)out_index);
        buf_json_str(&x->cur, n->s, n->len);
        buf_puts(&x->cur, ",\"arguments\":");
        buf_json_str(&x->cur, args.data ? (const char *)args.data : "", args.len);
        buf_puts(&x->cur, "}");
        http_sse_end(&x->cur);
        resp_event(x, "response.output_item.done");
        buf_printf(&x->cur, ",\"output_index\":%u,\"item\":", (unsigned)out_index);
        resp_fc_item(x, k, &x->cur, true, &args);
        buf_puts(&x->cur, "}");
        http_sse_end(&x->cur);
    }
    if (args.oom)
        x->p->oom = true;
    buf_fini(&args);
    resp_event(x, "response.completed");
    buf_puts(&x->cur, ",\"response\":");
    resp_object(x, &x->cur, true, &text, open);
    buf_puts(&x->cur, "}");
    http_sse_end(&x->cur);
    end_stream(x, x->r->dur);
    if (text.oom)
        x->p->oom = true;
    buf_fini(&text);
    return http_plan_error(x->p);
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
    x.created = 1700000000ULL + ri;
    x.skip_thinking = !s->coalesce && x.r->n_tools > 0;
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
            if (q->api == LLM_API_MESSAGES) {
                sse_event(&x, "error");
                error_of(&x, err, &x.cur, UINT64_MAX);
            } else if (q->api == LLM_API_RESPONSES) {
                http_sse_begin(&x.cur, "error");
                error_of(&x, err, &x.cur, x.seq++);
            } else {
                http_sse_begin(&x.cur, NULL);
                error_of(&x, err, &x.cur, UINT64_MAX);
            }
            http_sse_end(&x.cur);
            end_stream(&x, 0);
            e = http_plan_error(p);
        } else {
            e = http_error(&x, err);
        }
    } else if (q->stream) {
        e = q->api == LLM_API_MESSAGES ? anth_stream(&x) : q->api == LLM_API_RESPONSES ? resp_stream(&x) : chat_stream(&x);
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
            if (q->api == LLM_API_MESSAGES) {
                anth_message_obj(&x, &body, true);
            } else if (q->api == LLM_API_RESPONSES) {
                Buf text;
                buf_init(&text);
                bool any;
                visible_text(&x, &text, &any);
                resp_object(&x, &body, true, &text, any);
                buf_fini(&text);
            } else {
                chat_whole(&x, &body);
            }
            e = whole(p, 200, &body, q->keep_alive, x.req_id, NULL, q->extra_headers, at(&x, x.r->dur));
            buf_fini(&body);
        }
    }
    if (x.cur.oom)
        e = ENOMEM;
    buf_fini(&x.cur);
    return e;
}
