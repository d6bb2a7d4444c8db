/* SPDX-License-Identifier: MIT */
/* llm_server.c - the mock LLM API server: routing, sessions,
** assertions, strict tools, the summary.
**
** The connections are runtime/http's (http_server.h): a request comes in
** as an HttpExchange and is answered with a plan rendered in one go
** (llm_render.h), which the loop paces.  This file decides what to
** answer and keeps the counts; it prints only to o.log, when given. */
#include "llm.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/jsonw.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/utf8.h"
#include "common/vformat.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/http/http_json.h"
#include "runtime/http/http_server.h"
#include "runtime/scn_assert.h"
#include "runtime/scn_edit.h"
#include "llm_render.h"
#include "llm_route.h"
#include "llm_script.h"
#include "llm_toolres.h"

enum {
    MAX_SESSIONS = 4096,         /* distinct (key, scenario) cursors held; then one is retired */
    KEY_MAX = 256,               /* session keys are cut here */
    PROMPT_MAX = 8192,           /* bytes of user text matched */
    REFUSE_MS = 1000,            /* fault: refuse: default window, scaled by the speed */
    REFUSE_MIN_MS = 200,         /* ... and its length at --speed 0, where a retry must still meet it */
};

typedef struct Session {
    char key[KEY_MAX];
    uint32_t sc;            /* scenario index */
    uint32_t resp, attempt; /* cursor: next response and its attempt */
    uint32_t asserted;      /* responses whose preceding asserts ran */
    bool bound;             /* chosen by prompt: unnamed requests with this key reuse it */
    bool tail_done;
    int prof;               /* its agent profile: index, -1 none, -2 not decided yet */
    bool tools_seen;        /* a request declared its tools */
    uint32_t checked;       /* responses whose tool results were checked */
    /* the agentEdits of the last response sent: what each file must be */
    uint32_t ed_resp, n_ed;
    struct {
        char path[256];
        int64_t lines;      /* its line count after the edit */
    } ed[8];
    uint64_t served, loops;
    uint64_t used;          /* when last asked for (LlmServer.clock) */
} Session;

enum { JOURNAL_MAX = 1024, JOURNAL_BODY_MAX = 65536 };

struct LlmServer {
    LlmServeOpts o;
    const Suite *suite;
    LlmScript *sc;          /* one per suite entry, in suite order */
    size_t n_sc;
    Session *sess;
    size_t n_sess, cap_sess;
    HttpServer *http;
    char *models;
    size_t models_len;
    Buf scratch;
    uint64_t n_requests, n_scripted, n_script_errors, n_protocol, n_unrouted, n_exhausted, n_strict, n_refused;
    uint64_t n_tool_checked, n_tool_mismatch, n_unexpected, n_missing;
    uint64_t n_faults[LLM_FAULT_UNKNOWN + 1];   /* scripted faults served (UNKNOWN: rejected) */
    uint64_t clock;         /* bumped on each use of a session */
    uint64_t n_retired, ret_resp_total, ret_resp_served;   /* sessions retired to make room */
    ScnAssertResult asserts;
    char cwd[4096];         /* the workspace: o.workspace or the current directory */
    /* the request journal (GET /__scvm/requests): the last JOURNAL_MAX
    ** requests, oldest first, as JSON objects */
    char *journal[JOURNAL_MAX];
    size_t j_first, j_n;
    uint64_t j_seq, j_dropped;
};

static void logf_(LlmServer *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(LlmServer *s, const char *fmt, ...)
{
    if (!s->o.log)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (s->o.log_json) {   /* {"message": "..."} */
        char m[1024];
        vsnprintf(m, sizeof m, fmt, ap);
        Buf b;
        JsonW w;
        jw_new_obj(&w, &b);
        jw_kcstr(&w, "message", m);
        jw_end(&w);
        jw_nl(&w);
        if (!b.oom)
            fwrite(b.data, 1, b.len, s->o.log);
        buf_fini(&b);
    } else {
        fputs("scvm serve: ", s->o.log);
        vfprintf(s->o.log, fmt, ap);
        fputc('\n', s->o.log);
    }
    fflush(s->o.log);
    va_end(ap);
}

/* ---- construction ---- */

/* Entry i is served (LlmServeOpts.only). */
static bool served(const LlmServer *s, uint32_t i)
{
    if (!s->o.only)
        return true;
    for (size_t k = 0; k < s->o.n_only; k++)
        if (s->o.only[k] == i)
            return true;
    return false;
}

/* GET /v1/models: "scvm-mock", then every distinct response.model of the
** scenarios served, in both APIs' list shapes at once. */
static int build_models(LlmServer *s)
{
    Buf b;
    JsonW w;
    jw_new_obj(&w, &b);
    jw_kcstr(&w, "object", "list");
    jw_karr(&w, "data");
    const char **seen = sc_calloc(1, sizeof *seen);
    size_t n_seen = 0;
    bool ok = seen != NULL;
    for (size_t i = 0; ok && i <= s->n_sc; i++) {
        if (i && !served(s, (uint32_t)(i - 1)))
            continue;
        for (uint32_t r = 0; r < (i ? s->sc[i - 1].n_resp : 1); r++) {
            const char *m;
            uint32_t ml;
            if (i == 0) {
                m = "scvm-mock";
            } else if (!llm_resp_meta_str(&s->sc[i - 1], &s->sc[i - 1].resp[r], "response.model", &m, &ml)) {
                continue;
            }
            bool dup = false;
            for (size_t k = 0; k < n_seen && !dup; k++)
                dup = strcmp(seen[k], m) == 0;
            if (dup)
                continue;
            const char **ns = sc_realloc(seen, (n_seen + 1) * sizeof *ns);
            if (!ns) {
                ok = false;
                break;
            }
            seen = ns;
            seen[n_seen++] = m;
            jw_obj(&w);
            jw_kcstr(&w, "id", m);
            jw_kcstr(&w, "object", "model");
            jw_kcstr(&w, "type", "model");
            jw_ku64(&w, "created", 1700000000);
            jw_kcstr(&w, "created_at", "2023-11-14T22:13:20Z");
            jw_kcstr(&w, "owned_by", "scvm");
            jw_kcstr(&w, "display_name", m);
            jw_end(&w);
        }
    }
    jw_end(&w);
    jw_kbool(&w, "has_more", false);
    jw_kcstr(&w, "first_id", seen && n_seen ? seen[0] : "");
    jw_kcstr(&w, "last_id", seen && n_seen ? seen[n_seen - 1] : "");
    jw_end(&w);
    sc_free(seen);
    if (!ok || b.oom) {
        buf_fini(&b);
        return ENOMEM;
    }
    s->models = (char *)b.data;
    s->models_len = b.len;
    return 0;
}

static void on_request(void *ctx, HttpExchange *x);
static void on_notice(void *ctx, const char *peer, const char *what);

LlmServer *llm_server_new(const Suite *suite, const LlmServeOpts *o, int *err)
{
    size_t n = suite_count(suite);
    *err = EINVAL;
    if (n == 0 || (o->only && o->n_only == 0))
        return NULL;
    LlmServer *s = sc_calloc(1, sizeof *s);
    if (!s) {
        *err = ENOMEM;
        return NULL;
    }
    s->o = *o;
    s->suite = suite;
    buf_init(&s->scratch);
    if (o->workspace)
        snprintf(s->cwd, sizeof s->cwd, "%s", o->workspace);
    else if (!getcwd(s->cwd, sizeof s->cwd))
        s->cwd[0] = 0;
    static const char busy[] = "{\"error\":{\"message\":\"scvm serve: too many connections\","
                               "\"type\":\"server_error\",\"param\":null,\"code\":null}}";
    HttpServerOpts ho = {
        .host = o->host, .port = o->port, .max_body = o->max_body, .max_conns = o->max_conns,
        .timeout_ms = o->timeout_ms, .head_timeout_ms = o->head_timeout_ms, .idle_timeout_ms = o->idle_timeout_ms,
        .handle = on_request, .busy_body = busy, .notice = on_notice, .ctx = s, .no_signals = o->no_signals,
    };
    s->http = http_server_new(&ho);
    s->sc = sc_calloc(n, sizeof *s->sc);
    if (!s->sc || !s->http) {
        *err = ENOMEM;
        llm_server_free(s);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (llm_script_init(&s->sc[i], suite_entry(suite, (uint32_t)i)->prog) != 0) {
            *err = ENOMEM;
            llm_server_free(s);
            return NULL;
        }
        s->n_sc = i + 1;
    }
    if (build_models(s) != 0) {
        *err = ENOMEM;
        llm_server_free(s);
        return NULL;
    }
    *err = 0;
    return s;
}

void llm_server_free(LlmServer *s)
{
    if (!s)
        return;
    http_server_free(s->http);
    for (size_t i = 0; i < s->n_sc; i++)
        llm_script_fini(&s->sc[i]);
    sc_free(s->sc);
    sc_free(s->sess);
    sc_free(s->models);
    buf_fini(&s->scratch);
    for (size_t i = 0; i < s->j_n; i++)
        sc_free(s->journal[(s->j_first + i) % JOURNAL_MAX]);
    sc_free(s);
}

int llm_server_listen(LlmServer *s, char *bound, size_t cap)
{
    int err = http_server_listen(s->http, bound, cap);
    if (!err) {
        unsigned long fds = 0;
        unsigned n = http_server_max_conns(s->http, &fds);
        logf_(s, "up to %u connections at once (file-descriptor limit %lu, the soft limit raised to the hard one)", n,
              fds);
    }
    return err;
}

HttpServer *llm_server_http(LlmServer *s) { return s->http; }

/* ---- sessions and routing ---- */

/* The value of name=... in the request's query (not decoded), or NULL. */
static const char *query_param(const HttpReq *r, const char *name, size_t *len)
{
    const char *q = memchr(r->target, '?', r->target_len), *end = r->target + r->target_len;
    size_t nl = strlen(name);
    for (const char *p = q ? q + 1 : end; p < end;) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *e = amp ? amp : end;
        if ((size_t)(e - p) > nl && memcmp(p, name, nl) == 0 && p[nl] == '=') {
            *len = (size_t)(e - p) - nl - 1;
            return p + nl + 1;
        }
        p = e + 1;
    }
    return NULL;
}

static void session_key(const HttpReq *r, char *key)
{
    const HttpHeader *h = http_header(r, "x-scenario-session");
    const char *v = NULL;
    size_t n = 0;
    if (h) {
        v = h->value;
        n = h->value_len;
    } else if ((h = http_header(r, "authorization")) != NULL) {
        v = h->value;
        n = h->value_len;
        if (n > 7 && strncasecmp(v, "bearer ", 7) == 0) {
            v += 7;
            n -= 7;
        }
    } else if ((h = http_header(r, "x-api-key")) != NULL || (h = http_header(r, "api-key")) != NULL ||
               (h = http_header(r, "x-goog-api-key")) != NULL) {
        v = h->value;
        n = h->value_len;
    } else if ((v = query_param(r, "key", &n)) == NULL) {
        n = 0;
    }
    if (n >= KEY_MAX)
        n = KEY_MAX - 1;
    if (n)
        memcpy(key, v, n);
    key[n] = 0;
}

static void run_asserts(LlmServer *s, const LlmScript *sc, uint32_t a0, uint32_t n, const Session *se,
                        const char *before);

/* The slot of the session to retire when MAX_SESSIONS are held: the least
** recently used of those whose script is done, else the least recently
** used of all (each request is answered whole when it comes, so no session
** is in the middle of one).  Its last assertions run now, its counts go to
** the summary's totals, and a later request with its key starts over. */
static Session *session_retire(LlmServer *s)
{
    Session *v = NULL;
    bool v_done = false;
    for (size_t i = 0; i < s->n_sess; i++) {
        Session *se = &s->sess[i];
        bool done = se->resp >= s->sc[se->sc].n_resp;
        if (!v || (done && !v_done) || (done == v_done && se->used < v->used)) {
            v = se;
            v_done = done;
        }
    }
    const LlmScript *sc = &s->sc[v->sc];
    if (v_done && !v->tail_done && sc->n_assert_tail) {
        run_asserts(s, sc, sc->assert_tail0, sc->n_assert_tail, v, "after the last response");
        v->tail_done = true;
    }
    unsigned got = (unsigned)(v->resp > sc->n_resp ? sc->n_resp : v->resp);
    if (!s->o.quiet)
        logf_(s, "session '%s' (scenario '%s', %u of %u responses served%s) retired to make room: %d sessions at most, "
                 "the least recently used %s goes",
              v->key, sc->name, got, (unsigned)sc->n_resp, v->loops ? ", looped" : "", MAX_SESSIONS,
              v_done ? "finished one" : "one (none has finished)");
    s->n_retired++;
    s->ret_resp_total += sc->n_resp;
    s->ret_resp_served += got;
    return v;
}

/* se, emptied, as a new session key of scenario sc, just used. */
static Session *session_start(LlmServer *s, Session *se, const char *key, uint32_t sc)
{
    memset(se, 0, sizeof *se);
    memcpy(se->key, key, strlen(key) + 1);
    se->sc = sc;
    se->prof = s->o.n_profiles == 1 ? 0 : s->o.n_profiles ? -2 : -1;
    se->used = ++s->clock;
    return se;
}

static Session *session_get(LlmServer *s, const char *key, uint32_t sc, bool create)
{
    for (size_t i = 0; i < s->n_sess; i++)
        if (s->sess[i].sc == sc && strcmp(s->sess[i].key, key) == 0) {
            s->sess[i].used = ++s->clock;
            return &s->sess[i];
        }
    if (!create)
        return NULL;
    if (s->n_sess >= MAX_SESSIONS)
        return session_start(s, session_retire(s), key, sc);
    if (s->n_sess == s->cap_sess && !SC_GROW(s->sess, s->cap_sess, 8))
        return NULL;
    return session_start(s, &s->sess[s->n_sess++], key, sc);
}

static Session *session_bound(LlmServer *s, const char *key)
{
    Session *b = NULL;
    for (size_t i = 0; i < s->n_sess; i++)
        if (s->sess[i].bound && strcmp(s->sess[i].key, key) == 0 && (!b || s->sess[i].used > b->used))
            b = &s->sess[i];
    if (b)
        b->used = ++s->clock;
    return b;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Percent-decodes [p, p+n) into out (cap bytes); false when malformed. */
static bool pct_decode(const char *p, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)p[i];
        if (c == '%') {
            if (i + 2 >= n)
                return false;
            int a = hexval(p[i + 1]), b = hexval(p[i + 2]);
            if (a < 0 || b < 0)
                return false;
            c = a * 16 + b;
            i += 2;
        }
        if (c == 0 || k + 1 >= cap)
            return false;
        out[k++] = (char)c;
    }
    out[k] = 0;
    return true;
}

/* ---- answering ---- */

typedef struct Ctx {
    LlmServer *s;
    HttpExchange *hx;
    LlmRenderReq q;
    char req_id[40];
    char note[256];          /* for the log line */
} Ctx;

static void server_error(Ctx *x, LlmApi api, int status, const char *type, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void server_error(Ctx *x, LlmApi api, int status, const char *type, const char *fmt, ...)
{
    char raw[1024], msg[1024];
    SC_VFORMAT(raw, sizeof raw, fmt);
    /* a session key or scenario name from a header is echoed: as UTF-8 */
    utf8_scrub(raw, strlen(raw), msg, sizeof msg);
    http_plan_reset(x->hx->plan);
    if (llm_render_error(api, status, type, msg, &x->q, x->req_id, x->hx->plan) != 0) {
        http_plan_reset(x->hx->plan);
        x->hx->keep_alive = false;
    }
    snprintf(x->note, sizeof x->note, "%.150s", msg);
}

static bool has_tool(const cJSON *tools, const char *name)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) {
        /* Gemini: [{"functionDeclarations": [{"name": ...}, ...]}, ...] */
        const cJSON *fd = cJSON_GetObjectItemCaseSensitive(t, "functionDeclarations");
        if (cJSON_IsArray(fd) && has_tool(fd, name))
            return true;
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(t, "name");
        if (!cJSON_IsString(n)) {
            const cJSON *f = cJSON_GetObjectItemCaseSensitive(t, "function");
            n = cJSON_GetObjectItemCaseSensitive(f, "name");
        }
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
            return true;
    }
    return false;
}

static void run_asserts(LlmServer *s, const LlmScript *sc, uint32_t a0, uint32_t n, const Session *se,
                        const char *before)
{
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = sc->asserts[a0 + k];
        ScnAssertResult res = { 0, 0, 0, 0 };
        ScnAssertEnv env = { .root = s->o.workspace };
        BcVal v = bc_val(sc->prog, sc->prog->insn[i].a[0]);
        buf_reset(&s->scratch);
        scn_assert_eval(sc->prog, &v, &env, &s->scratch, &res);
        s->asserts.passed += res.passed;
        s->asserts.failed += res.failed;
        s->asserts.skipped += res.skipped;
        const BcInsn *in = &sc->prog->insn[i];
        const char *p = (const char *)s->scratch.data;
        size_t len = s->scratch.len;
        while (len) {
            const char *nl = memchr(p, '\n', len);
            size_t ll = nl ? (size_t)(nl - p) : len;
            logf_(s, "%s: assert at line %u (%s, session '%s'): %s%.*s", sc->name, (unsigned)in->line, before,
                  se->key, res.failed ? "FAILED: " : "", (int)ll, p);
            p += ll + (nl ? 1 : 0);
            len -= ll + (nl ? 1 : 0);
        }
        if (!res.failed && !s->o.quiet && res.passed)
            logf_(s, "%s: assert at line %u (%s, session '%s'): %u checks passed", sc->name, (unsigned)in->line,
                  before, se->key, res.passed);
    }
}

/* ---- agents: profiles, tool vocabulary, tool results ---- */

/* Starts an event for on_event: {"event": EVENT, "session": KEY, ... (the
** caller adds members, closes it with jw_end and hands it to emit). */
static void ev_open(Buf *b, JsonW *w, const char *event, const char *session)
{
    buf_init(b);
    jw_open_obj(w, b);
    jw_kcstr(w, "event", event);
    jw_kcstr(w, "session", session);
}

/* Hands one event (a JSON object written with *w into b) to on_event. */
static void emit(LlmServer *s, Buf *b)
{
    if (s->o.on_event && !b->oom)
        s->o.on_event(s->o.event_ctx, (const char *)b->data, b->len);
    buf_fini(b);
}

static const AgentProfile *prof_of(const LlmServer *s, const Session *se)
{
    return se->prof >= 0 ? s->o.profiles[se->prof] : NULL;
}

static void name_list(Buf *b, const cJSON *a)
{
    const cJSON *e;
    bool first = true;
    cJSON_ArrayForEach(e, a) {
        buf_printf(b, "%s%s", first ? "" : ", ", e->valuestring);
        first = false;
    }
    if (first)
        buf_puts(b, "none");
}

static bool has_name(const cJSON *arr, const char *n)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) if (cJSON_IsString(e) && strcmp(e->valuestring, n) == 0) return true;
    return false;
}

/* The first request of a session that declares tools: the profile
** (detected when there are several), and the declared tools against its
** `declares`.  Returns false when strict tools mode rejects the request. */
static bool session_tools(Ctx *x, Session *se, const cJSON *tools, LlmApi api)
{
    LlmServer *s = x->s;
    if (se->tools_seen || se->prof == -1 || !cJSON_IsArray(tools) || cJSON_GetArraySize(tools) == 0)
        return true;
    se->tools_seen = true;
    cJSON *names = agent_declared_tools(tools);
    if (!names)
        return true;
    if (se->prof == -2) {
        double score = 0;
        se->prof = agent_detect(s->o.profiles, s->o.n_profiles, names, &score);
        logf_(s, "session '%s': agent %s (%.0f%% of its tools match)", se->key,
              se->prof >= 0 ? agent_profile_name(s->o.profiles[se->prof]) : "not recognised: no profile applies",
              score * 100);
    }
    const AgentProfile *ap = prof_of(s, se);
    const cJSON *decl = ap ? agent_profile_declares(ap) : NULL;
    bool ok = true;
    if (ap) {
        cJSON *unexp = cJSON_CreateArray(), *miss = cJSON_CreateArray();
        const cJSON *e;
        cJSON_ArrayForEach(e, names) if (decl && !has_name(decl, e->valuestring))
            cJSON_AddItemToArray(unexp, cJSON_CreateString(e->valuestring));
        cJSON_ArrayForEach(e, decl) if (!has_name(names, e->valuestring))
            cJSON_AddItemToArray(miss, cJSON_CreateString(e->valuestring));
        int nu = cJSON_GetArraySize(unexp), nm = cJSON_GetArraySize(miss);
        s->n_unexpected += (uint64_t)nu;
        s->n_missing += (uint64_t)nm;
        Buf b;
        buf_init(&b);
        if (nu || nm) {
            buf_printf(&b, "agent %s declares %d tools; not in its profile: ", agent_profile_name(ap),
                       cJSON_GetArraySize(names));
            name_list(&b, unexp);
            buf_puts(&b, "; in its profile but not declared: ");
            name_list(&b, miss);
            buf_putc(&b, 0);
            logf_(s, "session '%s': %s%s", se->key, s->o.strict_tools ? "strict tools: " : "", (const char *)b.data);
        }
        Buf ev;
        JsonW w;
        ev_open(&ev, &w, "tools_declared", se->key);
        jw_kcstr(&w, "profile", agent_profile_name(ap));
        const char *keys[] = { "declared", "not_in_profile", "missing" };
        const cJSON *vals[] = { names, unexp, miss };
        for (int k = 0; k < 3; k++) {
            if (k && !decl)
                break;
            jw_key(&w, keys[k]);
            jw_value(&w);
            char *t = cJSON_PrintUnformatted(vals[k]);
            buf_puts(&ev, t ? t : "[]");
            cJSON_free(t);
        }
        jw_end(&w);
        emit(s, &ev);
        if (s->o.strict_tools && (nu || nm)) {
            s->n_strict++;
            server_error(x, api, 400, "invalid_request_error", "scvm serve: strict tools: %s",
                         b.data ? (const char *)b.data : "");
            ok = false;
        }
        buf_fini(&b);
        cJSON_Delete(unexp);
        cJSON_Delete(miss);
    }
    cJSON_Delete(names);
    return ok;
}

/* The TOOL_RESULT op that closes TOOL_START insn ti, or NULL. */
static const BcInsn *tool_result_of(const BcProgram *p, uint32_t ti)
{
    for (uint32_t i = ti + 1; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        if (in->op == OP_TOOL_RESULT && in->a[0] == p->insn[ti].a[0])
            return in;
        if (in->op == OP_TOOL_START || in->op == OP_LLM_BEGIN || in->op == OP_END)
            return NULL;
    }
    return NULL;
}

/* Scenario tool k of response ri as the agent's: name and args into the
** buffers.  Returns 1 mapped, 0 as written, -1 (err) when it cannot be. */
static int map_call(const LlmServer *s, const AgentProfile *ap, const LlmScript *sc, uint32_t ri, uint32_t k, Buf *name,
                    Buf *args, char *err, size_t cap)
{
    const BcInsn *in = &sc->prog->insn[sc->tools[sc->resp[ri].tool0 + k]];
    const BcStr *tn = &sc->prog->str[in->a[0]];
    if (!ap)
        return 0;
    Buf j;
    buf_init(&j);
    bc_val_json(sc->prog, in->a[1], &j);
    cJSON *a = j.oom ? NULL : cJSON_ParseWithLength((const char *)j.data, j.len);
    buf_fini(&j);
    int r = agent_map_call(ap, tn->s, a, s->cwd[0] ? s->cwd : NULL, name, args, err, cap);
    cJSON_Delete(a);
    return r;
}

static bool occurs_once(const char *h, size_t hn, const char *nd, size_t nn)
{
    int c = 0;
    for (size_t i = 0; i + nn <= hn && c < 2; i++)
        c += memcmp(h + i, nd, nn) == 0;
    return c == 1;
}

/* agentEdits {path, linesAdded, linesRemoved} (insn e) as the agent's edit:
** the file as it is in the workspace now loses its last linesRemoved lines
** and gains linesAdded lines "scvm agentEdits PATH +K/N", sent as the
** profile's editFile (old_string: the removed lines, or the last line as an
** anchor, grown upwards until it occurs once) or, for a file that does not
** exist or is empty, its writeFile.  *lines gets the line count the file
** must have after it.  Returns map_call's 1, or -1 (why in err). */
static int map_edit(const LlmServer *s, const AgentProfile *ap, const BcProgram *p, const BcInsn *e, Buf *name,
                    Buf *args, int64_t *lines, char *err, size_t cap)
{
    const char *rel = p->str[e->a[0]].s;
    uint64_t add = e->a[1], rm = e->a[2];
    Buf full;
    buf_init(&full);
    const char *refused = scn_path_resolve(s->cwd, rel, &full);
    char *data = NULL;
    size_t n = 0;
    int rerr = refused ? 0 : file_read_all((const char *)full.data, 16u << 20, &data, &n);
    buf_fini(&full);
    if (refused) {
        snprintf(err, cap, "agentEdits '%s': %s", rel, refused);
        return -1;
    }
    int64_t have = rerr ? 0 : scn_edit_count_lines(data, n);
    if ((int64_t)rm > have) {
        snprintf(err, cap, "agentEdits '%s' removes %llu lines, but the file has %lld", rel, (unsigned long long)rm,
                 (long long)have);
        sc_free(data);
        return -1;
    }
    Buf gen;
    buf_init(&gen);
    for (uint64_t k = 1; k <= add; k++)
        scn_edit_line(&gen, rel, k, add);
    cJSON *v = cJSON_CreateObject();
    cJSON_AddStringToObject(v, "path", rel);
    const char *tool;
    size_t *st = (size_t *)sc_malloc(((size_t)have + 1) * sizeof *st);
    if (have == 0 || (int64_t)rm == have || !st) {
        /* no line to anchor an edit at, or every line goes: the whole file */
        buf_putc(&gen, 0);
        cJSON_AddStringToObject(v, "content", (const char *)gen.data);
        tool = "writeFile";
    } else {
        size_t body = data[n - 1] == '\n' ? n - 1 : n;    /* without the last newline */
        int64_t m = 0;
        st[m++] = 0;
        for (size_t i = 0; i < body; i++)
            if (data[i] == '\n')
                st[m++] = i + 1;
        /* the removed lines begin at line m - rm; the anchor is them, or the last line */
        int64_t first = rm ? m - (int64_t)rm : m - 1;
        size_t removed_at = rm ? st[first] : body;
        size_t start = st[first];
        while (first > 0 && !occurs_once(data, n, data + start, body - start))
            start = st[--first];
        bool join = rm && !add && start == removed_at;     /* a plain deletion: take the newline before */
        Buf nw;
        buf_init(&nw);
        buf_put(&nw, data + start, removed_at - start);
        if (!rm && add)
            buf_putc(&nw, '\n');
        buf_put(&nw, gen.data, gen.len);
        if (nw.len && nw.data[nw.len - 1] == '\n')
            nw.len--;                                      /* as the old text: no last newline */
        buf_putc(&nw, 0);
        size_t from = join ? start - 1 : start;
        char *old = sc_strndup(data + from, body - from);
        cJSON_AddStringToObject(v, "old_string", old ? old : "");
        cJSON_AddStringToObject(v, "new_string", (const char *)nw.data);
        sc_free(old);
        buf_fini(&nw);
        tool = "editFile";
    }
    sc_free(st);
    *lines = have - (int64_t)rm + (int64_t)add;
    int r = agent_map_call(ap, tool, v, s->cwd, name, args, err, cap);
    if (r == 0) {
        snprintf(err, cap, "agentEdits '%s': profile '%s' maps no %s", rel, agent_profile_name(ap), tool);
        r = -1;
    }
    cJSON_Delete(v);
    buf_fini(&gen);
    sc_free(data);
    return r;
}

int llm_server_check_tools(const LlmServer *s, char *err, size_t cap)
{
    if (s->o.n_profiles != 1)
        return 0;
    const cJSON *tools = agent_profile_get(s->o.profiles[0], "tools");
    for (size_t i = 0; i < s->n_sc; i++) {
        const LlmScript *sc = &s->sc[i];
        if (!served(s, (uint32_t)i))
            continue;
        for (uint32_t ri = 0; ri < sc->n_resp; ri++) {
            if (sc->resp[ri].n_edits && (!cJSON_GetObjectItemCaseSensitive(tools, "editFile") ||
                                         !cJSON_GetObjectItemCaseSensitive(tools, "writeFile"))) {
                snprintf(err, cap, "scenario '%s', line %u: agentEdits: profile '%s' maps no editFile or writeFile, "
                         "which it becomes", sc->name, (unsigned)sc->prog->insn[sc->edits[sc->resp[ri].edit0]].line,
                         agent_profile_name(s->o.profiles[0]));
                return EINVAL;
            }
            if (sc->resp[ri].n_edits > 8) {
                snprintf(err, cap, "scenario '%s', line %u: more than 8 agentEdits after one llmResponse", sc->name,
                         (unsigned)sc->prog->insn[sc->edits[sc->resp[ri].edit0 + 8]].line);
                return EINVAL;
            }
            for (uint32_t k = 0; k < sc->resp[ri].n_tools; k++) {
                Buf n, a;
                buf_init(&n);
                buf_init(&a);
                char why[512];
                int r = map_call(s, s->o.profiles[0], sc, ri, k, &n, &a, why, sizeof why);
                buf_fini(&n);
                buf_fini(&a);
                const char *tool = sc->prog->str[sc->prog->insn[sc->tools[sc->resp[ri].tool0 + k]].a[0]].s;
                if (r == 0 && agent_is_scenario_tool(tool)) {
                    Buf m;
                    buf_init(&m);
                    const cJSON *e;
                    cJSON_ArrayForEach(e, agent_profile_get(s->o.profiles[0], "tools"))
                        buf_printf(&m, "%s%s", m.len ? ", " : "", e->string);
                    buf_putc(&m, 0);
                    snprintf(why, sizeof why, "profile '%s' does not map it (it maps %s); call the agent's own tool "
                             "by its name instead", agent_profile_name(s->o.profiles[0]),
                             m.oom ? "?" : (const char *)m.data);
                    buf_fini(&m);
                    r = -1;
                }
                if (r < 0) {
                    const BcInsn *in = &sc->prog->insn[sc->tools[sc->resp[ri].tool0 + k]];
                    snprintf(err, cap, "scenario '%s', line %u: tool '%s': %s", sc->name, (unsigned)in->line,
                             sc->prog->str[in->a[0]].s, why);
                    return EINVAL;
                }
            }
        }
    }
    return 0;
}

/* The tool results of the responses before ri that called tools, read
** from this request and compared with the scenario's result and status. */
static void check_results(LlmServer *s, Session *se, const LlmScript *sc, uint32_t ri, const cJSON *j, LlmApi api)
{
    for (uint32_t pr = se->checked; pr < ri; pr++) {
        const LlmResp *r = &sc->resp[pr];
        uint32_t n_ed = se->ed_resp == pr ? se->n_ed : 0;
        if (!r->n_tools && !n_ed)
            continue;
        LlmToolResult res[64];
        size_t nres = llm_tool_results(j, api, res, 64);
        const AgentProfile *ap = prof_of(s, se);
        uint32_t gem = 0;       /* Gemini: results in call order */
        for (uint32_t k = 0; k < r->n_tools + n_ed; k++) {
            bool edit = k >= r->n_tools;
            uint32_t ti = edit ? sc->edits[r->edit0 + k - r->n_tools] : sc->tools[r->tool0 + k];
            const BcInsn *tr = edit ? NULL : tool_result_of(sc->prog, ti);
            const char *tool = edit ? "agentEdits" : sc->prog->str[sc->prog->insn[ti].a[0]].s;
            char id[128];
            llm_tool_call_id(sc, pr, k, api, id, sizeof id);
            const LlmToolResult *got = NULL;
            for (size_t i = 0; i < nres && !got; i++)
                if (res[i].id && strcmp(res[i].id, id) == 0)
                    got = &res[i];
            if (!got && api == LLM_API_GEMINI && gem < nres)
                got = &res[gem++];
            Buf why;
            buf_init(&why);
            int passed = 1;
            const char *want_status = tr ? sc->prog->str[tr->a[1]].s : NULL;
            int is_err = got ? llm_result_is_error(got, ap ? agent_profile_error_pattern(ap) : NULL) : -1;
            BcVal ev = tr ? bc_val(sc->prog, tr->a[2]) : (BcVal){ .tag = BC_V_NULL };
            if (!got) {
                passed = 0;
                buf_printf(&why, "the agent sent no result for call %s\n", id);
            } else {
                if (ev.tag != BC_V_NULL) {
                    int m = llm_result_match(sc->prog, &ev, got->text.data ? (const char *)got->text.data : "",
                                             got->text.len, &why);
                    if (m != 1)
                        passed = 0;
                }
                if (edit) {     /* the file has the lines the edit makes */
                    const char *path = se->ed[k - r->n_tools].path;
                    int64_t want = se->ed[k - r->n_tools].lines, have = -1;
                    Buf full;
                    buf_init(&full);
                    char *data = NULL;
                    size_t n = 0;
                    if (!scn_path_resolve(s->cwd, path, &full) &&
                        file_read_all((const char *)full.data, 16u << 20, &data, &n) == 0)
                        have = scn_edit_count_lines(data, n);
                    sc_free(data);
                    buf_fini(&full);
                    if (have != want) {
                        passed = 0;
                        if (have < 0)
                            buf_printf(&why, "agentEdits: '%s' cannot be read after the edit\n", path);
                        else
                            buf_printf(&why, "agentEdits: '%s' has %lld lines after the edit, not %lld\n", path,
                                       (long long)have, (long long)want);
                    }
                }
                bool want_err = want_status && strcmp(want_status, "error") == 0;
                if (is_err >= 0 && (is_err == 1) != want_err) {
                    passed = 0;
                    buf_printf(&why, "status: expected %s, the agent reports %s\n", want_err ? "error" : "ok",
                               is_err ? "an error" : "success");
                }
            }
            s->n_tool_checked++;
            if (!passed)
                s->n_tool_mismatch++;
            if (!passed || !s->o.quiet) {
                buf_putc(&why, 0);
                logf_(s, "%s: tool result of '%s' (response %u, line %u, session '%s'): %s%s%s", sc->name, tool,
                      (unsigned)pr + 1, (unsigned)sc->prog->insn[ti].line, se->key,
                      passed ? "as expected" : "MISMATCH", passed ? "" : "\n", passed ? "" : (const char *)why.data);
                if (why.len)
                    why.len--;
            }
            Buf e;
            JsonW w;
            ev_open(&e, &w, "tool_result_check", se->key);
            jw_ku64(&w, "response", pr + 1);
            jw_ku64(&w, "line", sc->prog->insn[ti].line);
            jw_kcstr(&w, "tool", tool);
            jw_kcstr(&w, "call_id", id);
            jw_kbool(&w, "passed", passed);
            if (want_status)
                jw_kcstr(&w, "expected_status", want_status);
            if (is_err >= 0)
                jw_kcstr(&w, "status", is_err ? "error" : "ok");
            if (got)
                jw_kstr(&w, "result", got->text.data ? (const char *)got->text.data : "",
                        got->text.len > 4096 ? 4096 : got->text.len);
            if (!passed)
                jw_kstr(&w, "message", why.data ? (const char *)why.data : "", why.len);
            jw_end(&w);
            emit(s, &e);
            buf_fini(&why);
        }
        for (size_t i = 0; i < nres; i++)
            llm_tool_result_fini(&res[i]);
    }
    if (ri > se->checked)
        se->checked = ri;
}

static void llm_request(Ctx *x, LlmApi api, const char *path_name, size_t path_name_len, const char *body,
                        size_t blen)
{
    LlmServer *s = x->s;
    const char *bad = "the request body is not a JSON object";
    cJSON *j = http_json_body(body, blen, &bad);
    if (!cJSON_IsObject(j)) {
        s->n_protocol++;
        server_error(x, api, 400, "invalid_request_error", "%s", j ? "the request body is not a JSON object" : bad);
        cJSON_Delete(j);
        return;
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "stream");
    if (api != LLM_API_GEMINI)     /* Gemini: the method in the path says */
        x->q.stream = cJSON_IsTrue(st);
    const cJSON *gc = cJSON_GetObjectItemCaseSensitive(j, "generationConfig");
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(gc, "thinkingConfig");
    x->q.include_thoughts = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tc, "includeThoughts"));
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(j, "stream_options");
    x->q.include_usage = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(so, "include_usage"));
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(j, "model");
    if (api != LLM_API_GEMINI && cJSON_IsString(model)) {
        x->q.model = model->valuestring;
        x->q.model_len = strlen(model->valuestring);
    }
    x->q.input_tokens = (blen + 3) / 4;

    /* the scenario: named, bound to the session key, or matched by prompt */
    char key[KEY_MAX];
    session_key(x->hx->req, key);
    const HttpHeader *hn = http_header(x->hx->req, "x-scenario-name");
    const char *name = hn ? hn->value : path_name;
    size_t name_len = hn ? hn->value_len : path_name_len;
    Session *se = NULL;
    long sci = -1;
    if (name) {
        sci = suite_find_n(s->suite, name, name_len);
        if (sci >= 0 && !served(s, (uint32_t)sci))
            sci = -1;
        if (sci < 0) {
            s->n_unrouted++;
            server_error(x, api, 404, api == LLM_API_MESSAGES ? "not_found_error" : "invalid_request_error",
                         "scvm serve: no scenario named '%.*s' is loaded", (int)(name_len > 200 ? 200 : name_len),
                         name);
            cJSON_Delete(j);
            return;
        }
        se = session_get(s, key, (uint32_t)sci, true);
    } else if ((se = session_bound(s, key)) == NULL) {
        char *text = sc_malloc(PROMPT_MAX);
        size_t tl = 0;
        const HttpHeader *hp = http_header(x->hx->req, "x-scenario-prompt");
        if (text && hp) {
            tl = hp->value_len < PROMPT_MAX - 1 ? hp->value_len : PROMPT_MAX - 1;
            memcpy(text, hp->value, tl);
            text[tl] = 0;
        } else if (text) {
            tl = llm_last_user_text(j, text, PROMPT_MAX);
        }
        size_t dist = 0;
        sci = suite_best_prompt(s->suite, s->o.only, s->o.n_only, text ? text : "", tl, &dist);
        sc_free(text);
        se = session_get(s, key, (uint32_t)sci, true);
        if (se && !se->bound) {
            se->bound = true;
            if (s->n_sc > 1 && !s->o.quiet)
                logf_(s, "session '%s' -> scenario '%s' (prompt distance %zu)", key, s->sc[sci].name, dist);
        }
    }
    if (!se) {
        s->n_refused++;
        server_error(x, api, 503, NULL, "scvm serve: out of memory for a new session");
        cJSON_Delete(j);
        return;
    }
    const LlmScript *sc = &s->sc[se->sc];
    if (se->resp >= sc->n_resp && s->o.loop && sc->n_resp) {
        se->resp = se->attempt = se->asserted = 0;
        se->loops++;
    }
    if (se->resp >= sc->n_resp) {
        s->n_exhausted++;
        server_error(x, api, 400, "invalid_request_error",
                     "scvm serve: scenario '%s' has no more responses: all %u were served to session '%s'",
                     sc->name, (unsigned)sc->n_resp, key);
        cJSON_Delete(j);
        return;
    }
    uint32_t ri = se->resp;
    const LlmResp *r = &sc->resp[ri];
    char where[64];
    snprintf(where, sizeof where, "before response %u", (unsigned)ri + 1);
    if (se->asserted <= ri) {
        run_asserts(s, sc, r->assert0, r->n_asserts, se, where);
        se->asserted = ri + 1;
    }
    bool body_attempt = se->attempt >= r->n_lead_errors;
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(j, "tools");
    if (!session_tools(x, se, tools, api)) {
        cJSON_Delete(j);
        return;
    }
    const AgentProfile *ap = prof_of(s, se);
    if (ap)
        check_results(s, se, sc, ri, j, api);
    /* the calls in the agent's vocabulary */
    LlmToolCall *calls = NULL;
    Buf *cb = NULL;
    uint32_t nt = body_attempt ? r->n_tools : 0;
    uint32_t ne = ap && body_attempt ? r->n_edits : 0;
    if (ne > 8)
        ne = 8;
    if (ap && nt + ne) {
        calls = sc_calloc(nt + ne, sizeof *calls);
        cb = sc_calloc(2 * (size_t)(nt + ne), sizeof *cb);
        if (!calls || !cb) {
            sc_free(calls);
            sc_free(cb);
            server_error(x, api, 500, NULL, "scvm serve: out of memory");
            cJSON_Delete(j);
            return;
        }
    }
    const char *reject = NULL;
    char why[512];
    if (ne)
        se->ed_resp = ri;
    se->n_ed = 0;
    for (uint32_t k = 0; k < nt + ne; k++) {
        bool edit = k >= nt;
        const BcStr *tn = edit ? NULL : &sc->prog->str[sc->prog->insn[sc->tools[r->tool0 + k]].a[0]];
        const char *cname = edit ? "agentEdits" : tn->s;
        if (calls) {
            buf_init(&cb[2 * k]);
            buf_init(&cb[2 * k + 1]);
            int m;
            if (edit) {
                const BcInsn *ei = &sc->prog->insn[sc->edits[r->edit0 + k - nt]];
                int64_t lines = 0;
                m = map_edit(s, ap, sc->prog, ei, &cb[2 * k], &cb[2 * k + 1], &lines, why, sizeof why);
                snprintf(se->ed[se->n_ed].path, sizeof se->ed[0].path, "%s", sc->prog->str[ei->a[0]].s);
                se->ed[se->n_ed++].lines = lines;
            } else {
                m = map_call(s, ap, sc, ri, k, &cb[2 * k], &cb[2 * k + 1], why, sizeof why);
            }
            if (m < 0) {
                reject = why;
            } else if (m == 0) {
                buf_put(&cb[2 * k], tn->s, tn->len);
                bc_val_json(sc->prog, sc->prog->insn[sc->tools[r->tool0 + k]].a[1], &cb[2 * k + 1]);
            }
            buf_putc(&cb[2 * k], 0);
            if (cb[2 * k].oom || cb[2 * k + 1].oom)
                reject = "out of memory";
            calls[k].name.s = (const char *)cb[2 * k].data;
            calls[k].name.len = (uint32_t)(cb[2 * k].len ? cb[2 * k].len - 1 : 0);
            calls[k].args = (const char *)cb[2 * k + 1].data;
            calls[k].args_len = cb[2 * k + 1].len;
            cname = calls[k].name.s ? calls[k].name.s : "";
        }
        if (!reject && s->o.strict_tools && !has_tool(tools, cname)) {
            s->n_strict++;
            logf_(s, "%s: strict tools: response %u calls '%s', which the request does not define (session '%s')",
                  sc->name, (unsigned)ri + 1, cname, key);
            snprintf(why, sizeof why, "strict tools: the scenario calls tool '%s' but the request does not define it",
                     cname);
            reject = why;
        }
    }
    if (body_attempt && r->fault == LLM_FAULT_UNKNOWN) {
        /* not retried, and the cursor stays: the scenario is wrong */
        s->n_faults[LLM_FAULT_UNKNOWN]++;
        logf_(s, "%s: response %u (line %u): unknown _meta.response.fault: expected cut, reset or refuse",
              sc->name, (unsigned)ri + 1, (unsigned)r->line);
        x->q.extra_headers = "x-should-retry: false\r\n";
        server_error(x, api, 500, NULL,
                     "scvm serve: scenario '%s' response %u (line %u): unknown _meta.response.fault "
                     "(expected cut, reset or refuse)", sc->name, (unsigned)ri + 1, (unsigned)r->line);
        cJSON_Delete(j);
        return;
    }
    http_plan_reset(x->hx->plan);
    uint32_t attempt = se->attempt;
    x->q.calls = calls;
    x->q.n_calls = nt + ne;
    int rr = reject ? 0 : llm_render(sc, ri, attempt, &x->q, x->hx->plan);
    x->q.calls = NULL;
    for (uint32_t k = 0; calls && k < nt + ne; k++) {
        buf_fini(&cb[2 * k]);
        buf_fini(&cb[2 * k + 1]);
    }
    sc_free(calls);
    sc_free(cb);
    if (reject) {
        server_error(x, api, strncmp(reject, "strict", 6) == 0 ? 400 : 500, "invalid_request_error", "scvm serve: %s",
                     reject);
        cJSON_Delete(j);
        return;
    }
    if (rr != 0) {
        server_error(x, api, 500, NULL, "scvm serve: out of memory");
        cJSON_Delete(j);
        return;
    }
    char fault[32] = "";
    if (body_attempt && r->fault != LLM_FAULT_NONE) {
        snprintf(fault, sizeof fault, " (fault: %s)", llm_fault_name(r->fault));
        s->n_faults[r->fault]++;
    }
    if (body_attempt && r->fault == LLM_FAULT_REFUSE) {
        int64_t ms = REFUSE_MS;
        llm_resp_meta_int(sc, r, "response.refuseMs", &ms);
        uint64_t w = s->o.speed == 0 ? REFUSE_MIN_MS : llm_scale((uint64_t)ms, s->o.speed);
        w = w < 1 ? 1 : w > 3600000 ? 3600000 : w;
        http_server_pause(s->http, (unsigned)w);
        logf_(s, "%s: response %u: refusing connections for %llu ms (fault: refuse)", sc->name, (unsigned)ri + 1,
              (unsigned long long)w);
    }
    if (s->o.on_event) {
        const HttpPlan *pl = x->hx->plan;
        Buf e;
        JsonW w;
        ev_open(&e, &w, "llm_request", key);
        jw_kcstr(&w, "scenario", sc->name);
        jw_ku64(&w, "response", ri + 1);
        jw_ku64(&w, "of", sc->n_resp);
        jw_ku64(&w, "attempt", attempt + 1);
        jw_ku64(&w, "attempts", r->n_attempts);
        jw_kbool(&w, "stream", x->q.stream);
        jw_ku64(&w, "due_ms", pl->n_items ? pl->items[pl->n_items - 1].at_ms : 0);
        if (ap)
            jw_kcstr(&w, "profile", agent_profile_name(ap));
        jw_end(&w);
        emit(s, &e);
    }
    s->n_scripted++;
    if (!body_attempt)
        s->n_script_errors++;
    se->served++;
    if (++se->attempt >= r->n_attempts) {
        se->attempt = 0;
        se->resp++;
    }
    snprintf(x->note, sizeof x->note, "scenario '%.60s' session '%.40s' response %u/%u%s%s%s", sc->name, key,
             (unsigned)ri + 1, (unsigned)sc->n_resp, body_attempt ? "" : " (scripted error)", fault,
             x->q.stream ? " stream" : "");
    cJSON_Delete(j);
}

/* ---- the request journal (docs/serve-llm.md, "The request journal") ---- */

static void journal_clear(LlmServer *s)
{
    for (size_t i = 0; i < s->j_n; i++)
        sc_free(s->journal[(s->j_first + i) % JOURNAL_MAX]);
    s->j_first = s->j_n = 0;
}

/* "status":N, or "status":null,"reset":true for a connection reset. */
static void put_status(JsonW *w, int status, bool reset)
{
    if (reset) {
        jw_knull(w, "status");
        jw_kbool(w, "reset", true);
    } else {
        jw_ki64(w, "status", status);
    }
}

/* One request as the journal keeps it: what came in (method, target,
** body, up to JOURNAL_BODY_MAX bytes) and what it got (status, the
** scenario, session and response that answered, or why not). */
static void journal_add(LlmServer *s, const HttpReq *r, const char *body, size_t blen, int status, bool reset,
                        const char *note)
{
    Buf b;
    JsonW w;
    jw_new_obj(&w, &b);
    jw_ku64(&w, "seq", ++s->j_seq);
    jw_kstr(&w, "method", r->method, r->method_len);
    jw_kstr(&w, "target", r->target, r->target_len);
    jw_kstr(&w, "body", body ? body : "", blen > JOURNAL_BODY_MAX ? JOURNAL_BODY_MAX : blen);
    if (blen > JOURNAL_BODY_MAX) {
        jw_ku64(&w, "body_bytes", blen);
        jw_kbool(&w, "body_truncated", true);
    }
    put_status(&w, status, reset);
    jw_kcstr(&w, "answer", note);
    jw_end(&w);
    buf_putc(&b, 0);
    if (b.oom) {
        buf_fini(&b);
        return;
    }
    if (s->j_n == JOURNAL_MAX) {
        sc_free(s->journal[s->j_first]);
        s->j_first = (s->j_first + 1) % JOURNAL_MAX;
        s->j_n--;
        s->j_dropped++;
    }
    s->journal[(s->j_first + s->j_n++) % JOURNAL_MAX] = (char *)b.data;
}

/* GET: {"requests":[...],"dropped":N}; DELETE: empties it. */
static void journal_serve(Ctx *x, bool is_get, bool is_delete)
{
    LlmServer *s = x->s;
    HttpExchange *hx = x->hx;
    if (!is_get && !is_delete) {
        s->n_protocol++;
        x->q.extra_headers = "Allow: GET, DELETE\r\n";
        server_error(x, LLM_API_NONE, 405, NULL, "scvm serve: use GET or DELETE for the request journal");
        return;
    }
    Buf b;
    JsonW w;
    jw_new_obj(&w, &b);
    if (is_delete) {
        jw_ku64(&w, "cleared", s->j_n);
        journal_clear(s);
        s->j_dropped = 0;
    } else {
        /* a request a line */
        jw_karr(&w, "requests");
        for (size_t i = 0; i < s->j_n; i++) {
            jw_value(&w);
            buf_putc(&b, '\n');
            buf_puts(&b, s->journal[(s->j_first + i) % JOURNAL_MAX]);
        }
        if (s->j_n)
            buf_putc(&b, '\n');
        jw_end(&w);
        jw_ku64(&w, "dropped", s->j_dropped);
    }
    jw_end(&w);
    http_plan_reset(hx->plan);
    if (b.oom || llm_render_json((const char *)b.data, b.len, x->q.keep_alive, hx->plan) != 0) {
        http_plan_reset(hx->plan);
        hx->keep_alive = false;
    }
    buf_fini(&b);
}

/* Answers one complete request: fills hx->plan. */
static void handle(LlmServer *s, HttpExchange *hx)
{
    const HttpReq *r = hx->req;
    const char *body = hx->body;
    size_t blen = hx->body_len;
    Ctx x;
    memset(&x, 0, sizeof x);
    x.s = s;
    x.hx = hx;
    x.q.speed = s->o.speed;
    x.q.keep_alive = hx->keep_alive;
    s->n_requests++;
    llm_make_id(x.req_id, sizeof x.req_id, "req_", 24, "scvm-serve", "server", s->n_requests, 0);
    bool journaled = true;

    /* path without the query; an optional /s/NAME prefix names the scenario */
    const char *path = r->target;
    size_t plen = r->target_len;
    const char *q = memchr(path, '?', plen);
    if (q)
        plen = (size_t)(q - path);
    char name[512];
    const char *pname = NULL;
    size_t pname_len = 0;
    if (plen > 3 && memcmp(path, "/s/", 3) == 0) {
        const char *ns = path + 3;
        const char *ne = memchr(ns, '/', plen - 3);
        size_t nl = ne ? (size_t)(ne - ns) : plen - 3;
        if (!pct_decode(ns, nl, name, sizeof name) || !name[0]) {
            s->n_protocol++;
            server_error(&x, LLM_API_NONE, 400, NULL, "scvm serve: malformed scenario name in the path");
            goto log;
        }
        pname = name;
        pname_len = strlen(name);
        path = ns + nl;
        plen = (size_t)(r->target + plen - path);
    }
    static const struct {
        const char *path;
        LlmApi api;
    } routes[] = {
        { "/v1/chat/completions", LLM_API_CHAT }, { "/chat/completions", LLM_API_CHAT },
        { "/v1/responses", LLM_API_RESPONSES },   { "/responses", LLM_API_RESPONSES },
        { "/v1/messages", LLM_API_MESSAGES },     { "/messages", LLM_API_MESSAGES },
    };
    bool is_post = r->method_len == 4 && memcmp(r->method, "POST", 4) == 0;
    bool is_get = r->method_len == 3 && memcmp(r->method, "GET", 3) == 0;
    if (!pname && plen == 16 && memcmp(path, "/__scvm/requests", 16) == 0) {
        journal_serve(&x, is_get, r->method_len == 6 && memcmp(r->method, "DELETE", 6) == 0);
        journaled = false;   /* reading the journal is not a request to it */
        goto log;
    }
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (plen != strlen(routes[i].path) || memcmp(path, routes[i].path, plen) != 0)
            continue;
        x.q.api = routes[i].api;
        if (!is_post) {
            s->n_protocol++;
            x.q.extra_headers = "Allow: POST\r\n";
            server_error(&x, routes[i].api, 405, NULL, "scvm serve: use POST for this endpoint");
        } else {
            llm_request(&x, routes[i].api, pname, pname_len, body, blen);
        }
        goto log;
    }
    /* Gemini: /v1beta/models/MODEL:METHOD (or /v1/...) */
    const char *colon = plen > 8 ? memchr(path, ':', plen) : NULL;
    size_t pre = plen >= 15 && memcmp(path, "/v1beta/models/", 15) == 0 ? 15
               : plen >= 11 && memcmp(path, "/v1/models/", 11) == 0  ? 11
                                                                       : 0;
    if (pre && colon && colon > path + pre) {
        const char *method = colon + 1;
        size_t ml = (size_t)(path + plen - method);
        bool gen = ml == 15 && memcmp(method, "generateContent", 15) == 0;
        bool sgen = ml == 21 && memcmp(method, "streamGenerateContent", 21) == 0;
        bool count = ml == 11 && memcmp(method, "countTokens", 11) == 0;
        x.q.api = LLM_API_GEMINI;
        x.q.model = path + pre;
        x.q.model_len = (size_t)(colon - (path + pre));
        if (!gen && !sgen && !count) {
            s->n_protocol++;
            server_error(&x, LLM_API_GEMINI, 404, NULL, "scvm serve: no Gemini method '%.*s'",
                         (int)(ml > 100 ? 100 : ml), method);
        } else if (!is_post) {
            s->n_protocol++;
            x.q.extra_headers = "Allow: POST\r\n";
            server_error(&x, LLM_API_GEMINI, 405, NULL, "scvm serve: use POST for this endpoint");
        } else if (count) {
            /* an estimate, as for every API: a quarter of the body's bytes */
            Buf j;
            JsonW w;
            jw_new_obj(&w, &j);
            jw_ku64(&w, "totalTokens", (blen + 3) / 4);
            jw_end(&w);
            http_plan_reset(hx->plan);
            int rc = j.oom ? -1 : llm_render_json((const char *)j.data, j.len, x.q.keep_alive, hx->plan);
            buf_fini(&j);
            if (rc != 0) {
                http_plan_reset(hx->plan);
                hx->keep_alive = false;
            }
        } else {
            size_t al;
            const char *alt = query_param(r, "alt", &al);
            x.q.stream = sgen;
            x.q.gemini_array = sgen && !(alt && al == 3 && memcmp(alt, "sse", 3) == 0);
            llm_request(&x, LLM_API_GEMINI, pname, pname_len, body, blen);
        }
        goto log;
    }
    bool models = (plen == 10 && memcmp(path, "/v1/models", 10) == 0) || (plen == 7 && memcmp(path, "/models", 7) == 0);
    bool health = (plen == 7 && memcmp(path, "/health", 7) == 0) || (plen == 10 && memcmp(path, "/v1/health", 10) == 0);
    if (models || health) {
        if (!is_get) {
            s->n_protocol++;
            x.q.extra_headers = "Allow: GET\r\n";
            server_error(&x, LLM_API_NONE, 405, NULL, "scvm serve: use GET for this endpoint");
            goto log;
        }
        http_plan_reset(hx->plan);
        const char *health_json = "{\"status\":\"ok\"}";
        if (llm_render_json(models ? s->models : health_json, models ? s->models_len : strlen(health_json),
                            x.q.keep_alive, hx->plan) != 0) {
            http_plan_reset(hx->plan);
            hx->keep_alive = false;
        }
        goto log;
    }
    s->n_protocol++;
    server_error(&x, LLM_API_NONE, 404, NULL, "scvm serve: no endpoint %.*s %.*s", (int)r->method_len, r->method,
                 (int)(plen > 200 ? 200 : plen), path);
log:
    if (journaled)
        journal_add(s, r, body, blen, hx->plan->status, hx->plan->abort == HTTP_ABORT_RESET, x.note);
    if (!s->o.quiet && s->o.log_json && s->o.log) {
        /* one object per request: the journal's, with the peer, without the body */
        Buf b;
        JsonW w;
        jw_new_obj(&w, &b);
        jw_kcstr(&w, "peer", hx->peer);
        jw_kstr(&w, "method", r->method, r->method_len);
        jw_kstr(&w, "target", r->target, r->target_len);
        put_status(&w, hx->plan->status, hx->plan->abort == HTTP_ABORT_RESET);
        jw_kcstr(&w, "answer", x.note);
        jw_end(&w);
        jw_nl(&w);
        if (!b.oom)
            fwrite(b.data, 1, b.len, s->o.log);
        fflush(s->o.log);
        buf_fini(&b);
        return;
    }
    if (!s->o.quiet && hx->plan->abort == HTTP_ABORT_RESET)
        logf_(s, "%s %.*s %.*s -> reset%s%s", hx->peer, (int)r->method_len, r->method,
              (int)(r->target_len > 200 ? 200 : r->target_len), r->target, x.note[0] ? ": " : "", x.note);
    else if (!s->o.quiet)
        logf_(s, "%s %.*s %.*s -> %d%s%s", hx->peer, (int)r->method_len, r->method,
              (int)(r->target_len > 200 ? 200 : r->target_len), r->target, hx->plan->status, x.note[0] ? ": " : "",
              x.note);
}

/* A request that could not be parsed: answer and close. */
static void protocol_error(LlmServer *s, HttpExchange *hx)
{
    Ctx x;
    memset(&x, 0, sizeof x);
    x.s = s;
    x.hx = hx;
    s->n_requests++;
    s->n_protocol++;
    llm_make_id(x.req_id, sizeof x.req_id, "req_", 24, "scvm-serve", "server", s->n_requests, 0);
    hx->keep_alive = false;
    x.q.keep_alive = false;
    server_error(&x, LLM_API_NONE, hx->bad_status, NULL, "scvm serve: %s", hx->bad_why);
    if (!s->o.quiet)
        logf_(s, "%s malformed request -> %d: %s", hx->peer, hx->bad_status, hx->bad_why);
}

static void on_request(void *ctx, HttpExchange *hx)
{
    if (hx->req)
        handle(ctx, hx);
    else
        protocol_error(ctx, hx);
}

static void on_notice(void *ctx, const char *peer, const char *what)
{
    LlmServer *s = ctx;
    if (!s->o.quiet)
        logf_(s, "%s: %s", peer, what);
}

int llm_server_finish(LlmServer *s)
{
    for (size_t i = 0; i < s->n_sess; i++) {
        Session *se = &s->sess[i];
        const LlmScript *sc = &s->sc[se->sc];
        if (se->resp >= sc->n_resp && !se->tail_done && sc->n_assert_tail) {
            run_asserts(s, sc, sc->assert_tail0, sc->n_assert_tail, se, "after the last response");
            se->tail_done = true;
        }
    }
    logf_(s, "summary: %llu requests, %llu scripted responses (%llu of them scripted errors), "
             "%llu bad requests, %llu unrouted, %llu past the end, %llu refused",
          (unsigned long long)s->n_requests, (unsigned long long)s->n_scripted,
          (unsigned long long)s->n_script_errors, (unsigned long long)s->n_protocol,
          (unsigned long long)s->n_unrouted, (unsigned long long)s->n_exhausted,
          (unsigned long long)(s->n_refused + http_server_refused(s->http)));
    /* A session the client left before its last scripted response (and
    ** without --loop, where every script starts over) was not fully asked:
    ** whatever it checked, it did not see the scenario through. */
    unsigned short_sessions = 0;
    for (size_t i = 0; i < s->n_sess; i++) {
        const Session *se = &s->sess[i];
        const LlmScript *sc = &s->sc[se->sc];
        bool short_ = !s->o.loop && se->resp < sc->n_resp;
        short_sessions += short_;
        logf_(s, "summary: %sscenario '%s', session '%s': %u of %u responses served%s", short_ ? "INCOMPLETE: " : "",
              sc->name, se->key, (unsigned)(se->resp > sc->n_resp ? sc->n_resp : se->resp), (unsigned)sc->n_resp,
              se->loops ? " (looped)" : "");
    }
    if (s->n_retired) {
        logf_(s, "summary: %llu sessions retired to make room (%d held at most, the least recently used finished "
                 "one first): %llu of %llu of their responses served",
              (unsigned long long)s->n_retired, MAX_SESSIONS, (unsigned long long)s->ret_resp_served,
              (unsigned long long)s->ret_resp_total);
        /* a session retired before its script was done ended short too */
        if (!s->o.loop && s->ret_resp_served < s->ret_resp_total) {
            short_sessions++;
            logf_(s, "summary: INCOMPLETE: retired sessions were served %llu of their %llu responses",
                  (unsigned long long)s->ret_resp_served, (unsigned long long)s->ret_resp_total);
        }
    }
    bool none = !s->o.loop && s->n_sess == 0 && s->n_retired == 0;
    if (none)
        logf_(s, "summary: INCOMPLETE: no request reached a scenario (0 responses served)");
    const uint64_t *nf = s->n_faults;
    if (nf[LLM_FAULT_CUT] + nf[LLM_FAULT_RESET] + nf[LLM_FAULT_REFUSE] + nf[LLM_FAULT_UNKNOWN])
        logf_(s, "summary: scripted faults: %llu cut, %llu reset, %llu refuse; %llu unknown (answered 500)",
              (unsigned long long)nf[LLM_FAULT_CUT], (unsigned long long)nf[LLM_FAULT_RESET],
              (unsigned long long)nf[LLM_FAULT_REFUSE], (unsigned long long)nf[LLM_FAULT_UNKNOWN]);
    logf_(s, "summary: assertions: %u passed, %u failed, %u skipped; strict tools: %llu rejected",
          s->asserts.passed, s->asserts.failed, s->asserts.skipped, (unsigned long long)s->n_strict);
    if (s->o.n_profiles)
        logf_(s, "summary: tool results: %llu checked, %llu mismatched; declared tools: %llu not in the profile, "
                 "%llu missing",
              (unsigned long long)s->n_tool_checked, (unsigned long long)s->n_tool_mismatch,
              (unsigned long long)s->n_unexpected, (unsigned long long)s->n_missing);
    bool failed = s->asserts.failed || s->n_strict || s->n_tool_mismatch || nf[LLM_FAULT_UNKNOWN];
    bool incomplete = short_sessions || none;
    logf_(s, "summary: %s", failed ? "FAILED" : incomplete ? "INCOMPLETE" : "ok");
    return failed || incomplete ? 1 : 0;
}

void llm_server_counts(const LlmServer *s, LlmServerCounts *out)
{
    memset(out, 0, sizeof *out);
    out->requests = s->n_requests;
    out->scripted = s->n_scripted;
    out->strict = s->n_strict;
    out->tool_checked = s->n_tool_checked;
    out->tool_mismatched = s->n_tool_mismatch;
    out->tools_unexpected = s->n_unexpected;
    out->tools_missing = s->n_missing;
    out->asserts_passed = s->asserts.passed;
    out->asserts_failed = s->asserts.failed;
    out->served_sessions = (uint32_t)s->n_retired;
    out->responses_total = (uint32_t)s->ret_resp_total;
    out->responses_served = (uint32_t)s->ret_resp_served;
    for (size_t i = 0; i < s->n_sess; i++) {
        const Session *se = &s->sess[i];
        const LlmScript *sc = &s->sc[se->sc];
        out->served_sessions++;
        out->responses_total += sc->n_resp;
        out->responses_served += se->resp > sc->n_resp ? sc->n_resp : se->resp;
    }
}
