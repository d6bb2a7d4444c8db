/* llm_server.c - the mock LLM API server's loop: sockets, connections,
** requests, routing, sessions, assertions, strict tools, the summary.
**
** One thread and poll(2).  A connection reads a request (head bounded by
** HEAD_MAX, body by max_body), answers it with a plan rendered in one go
** (llm_render.h) and then only copies the plan's due bytes to the socket,
** so timing costs one poll timeout and nothing per byte.  Input is bounded
** per connection, connections are bounded in number, and an idle or
** stalled connection is closed after timeout_ms: memory stays bounded and
** no client can hold the loop. */
#include "llm.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/sc_alloc.h"
#include "runtime/http/http_parse.h"
#include "runtime/scn_assert.h"
#include "llm_render.h"
#include "llm_route.h"
#include "llm_script.h"

enum {
    HEAD_MAX = 32 * 1024,        /* request head limit (431 above) */
    MAX_SESSIONS = 4096,         /* distinct (key, scenario) cursors */
    KEY_MAX = 256,               /* session keys are cut here */
    PROMPT_MAX = 8192,           /* bytes of user text matched */
    READ_CHUNK = 64 * 1024,
};
#define DEFAULT_MAX_BODY ((size_t)16 << 20)

typedef struct Session {
    char key[KEY_MAX];
    uint32_t sc;            /* scenario index */
    uint32_t resp, attempt; /* cursor: next response and its attempt */
    uint32_t asserted;      /* responses whose preceding asserts ran */
    bool bound;             /* chosen by prompt: unnamed requests with this key reuse it */
    bool tail_done;
    uint64_t served, loops;
} Session;

/* C_DRAIN: the answer is sent and our side shut down; unread input is
** discarded until the client closes (at most DRAIN_MS), so the close does
** not turn into a reset that could destroy the answer in flight. */
enum { C_READ, C_SEND, C_DRAIN };
enum { DRAIN_MS = 1000 };

typedef struct Conn {
    int fd;
    char peer[64];
    Buf in;
    int state;
    LlmPlan plan;
    size_t item, sent, avail;
    uint64_t start_ms, last_ms, drain_ms;
    bool close_after, cont_sent, peer_closed, dead;
} Conn;

struct LlmServer {
    LlmServeOpts o;
    const Suite *suite;
    LlmScript *sc;          /* one per suite entry, in suite order */
    size_t n_sc;
    Session *sess;
    size_t n_sess, cap_sess;
    Conn **conns;
    size_t n_conns;
    struct pollfd *pfds;
    int lfd;
    int wake[2];
    char *models;
    size_t models_len;
    Buf scratch;
    uint64_t n_requests, n_scripted, n_script_errors, n_protocol, n_unrouted, n_exhausted, n_strict, n_refused;
    ScnAssertResult asserts;
};

static int g_wake_fd = -1;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void logf_(LlmServer *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(LlmServer *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("scvm serve: ", s->o.log);
    vfprintf(s->o.log, fmt, ap);
    fputc('\n', s->o.log);
    fflush(s->o.log);
    va_end(ap);
}

/* ---- construction ---- */

static int build_models(LlmServer *s)
{
    Buf b;
    buf_init(&b);
    buf_puts(&b, "{\"object\":\"list\",\"data\":[");
    const char **seen = sc_calloc(1, sizeof *seen);
    size_t n_seen = 0;
    bool ok = seen != NULL;
    /* "scvm-mock", then every distinct response.model of the scenarios */
    const char *names[1] = { "scvm-mock" };
    for (size_t i = 0; ok && i <= s->n_sc; i++) {
        for (uint32_t r = 0; r < (i ? s->sc[i - 1].n_resp : 1); r++) {
            const char *m;
            uint32_t ml;
            if (i == 0) {
                m = names[0];
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
            if (n_seen > 1)
                buf_putc(&b, ',');
            buf_puts(&b, "{\"id\":");
            buf_json_str(&b, m, strlen(m));
            buf_puts(&b, ",\"object\":\"model\",\"type\":\"model\",\"created\":1700000000,"
                         "\"created_at\":\"2023-11-14T22:13:20Z\",\"owned_by\":\"scvm\",\"display_name\":");
            buf_json_str(&b, m, strlen(m));
            buf_putc(&b, '}');
        }
    }
    buf_puts(&b, "],\"has_more\":false,\"first_id\":");
    buf_json_str(&b, seen && n_seen ? seen[0] : "", seen && n_seen ? strlen(seen[0]) : 0);
    buf_puts(&b, ",\"last_id\":");
    buf_json_str(&b, seen && n_seen ? seen[n_seen - 1] : "", seen && n_seen ? strlen(seen[n_seen - 1]) : 0);
    buf_puts(&b, "}");
    sc_free(seen);
    if (!ok || b.oom) {
        buf_fini(&b);
        return ENOMEM;
    }
    s->models = (char *)b.data;
    s->models_len = b.len;
    return 0;
}

LlmServer *llm_server_new(const Suite *suite, const LlmServeOpts *o, int *err)
{
    size_t n = suite_count(suite);
    *err = EINVAL;
    if (n == 0)
        return NULL;
    LlmServer *s = sc_calloc(1, sizeof *s);
    if (!s) {
        *err = ENOMEM;
        return NULL;
    }
    s->o = *o;
    s->suite = suite;
    if (!s->o.host)
        s->o.host = "127.0.0.1";
    if (!s->o.port)
        s->o.port = "0";
    if (!s->o.max_body)
        s->o.max_body = DEFAULT_MAX_BODY;
    if (!s->o.max_conns)
        s->o.max_conns = 256;
    if (!s->o.timeout_ms)
        s->o.timeout_ms = 60000;
    if (!s->o.log)
        s->o.log = stderr;
    s->lfd = -1;
    s->wake[0] = s->wake[1] = -1;
    buf_init(&s->scratch);
    s->sc = sc_calloc(n, sizeof *s->sc);
    s->conns = sc_calloc(s->o.max_conns, sizeof *s->conns);
    s->pfds = sc_calloc((size_t)s->o.max_conns + 2, sizeof *s->pfds);
    if (!s->sc || !s->conns || !s->pfds) {
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

static void conn_free(Conn *c)
{
    if (!c)
        return;
    if (c->fd >= 0)
        close(c->fd);
    buf_fini(&c->in);
    llm_plan_fini(&c->plan);
    sc_free(c);
}

void llm_server_free(LlmServer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_conns; i++)
        conn_free(s->conns[i]);
    for (size_t i = 0; i < s->n_sc; i++)
        llm_script_fini(&s->sc[i]);
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->wake[0] >= 0)
        close(s->wake[0]);
    if (s->wake[1] >= 0)
        close(s->wake[1]);
    sc_free(s->sc);
    sc_free(s->sess);
    sc_free(s->conns);
    sc_free(s->pfds);
    sc_free(s->models);
    buf_fini(&s->scratch);
    sc_free(s);
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return errno;
    int fd_fl = fcntl(fd, F_GETFD);
    if (fd_fl >= 0)
        fcntl(fd, F_SETFD, fd_fl | FD_CLOEXEC);
    return 0;
}

int llm_server_listen(LlmServer *s, char *bound, size_t cap)
{
    char *end;
    errno = 0;
    unsigned long port = strtoul(s->o.port, &end, 10);
    if (!s->o.port[0] || *end || port > 65535 || errno)
        return EINVAL;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    int fam;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, s->o.host, &a4->sin_addr) == 1) {
        fam = AF_INET;
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        sl = sizeof *a4;
    } else if (inet_pton(AF_INET6, s->o.host, &a6->sin6_addr) == 1) {
        fam = AF_INET6;
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        sl = sizeof *a6;
    } else {
        return EINVAL;
    }
    int fd = socket(fam, SOCK_STREAM, 0);
    if (fd < 0)
        return errno;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 512) != 0 || set_nonblock(fd) != 0) {
        int e = errno;
        close(fd);
        return e;
    }
    sl = sizeof ss;
    getsockname(fd, (struct sockaddr *)&ss, &sl);
    char host[INET6_ADDRSTRLEN];
    if (fam == AF_INET) {
        inet_ntop(AF_INET, &a4->sin_addr, host, sizeof host);
        snprintf(bound, cap, "%s:%u", host, (unsigned)ntohs(a4->sin_port));
    } else {
        inet_ntop(AF_INET6, &a6->sin6_addr, host, sizeof host);
        snprintf(bound, cap, "[%s]:%u", host, (unsigned)ntohs(a6->sin6_port));
    }
    if (pipe(s->wake) != 0) {
        int e = errno;
        close(fd);
        return e;
    }
    set_nonblock(s->wake[0]);
    set_nonblock(s->wake[1]);
    s->lfd = fd;
    return 0;
}

void llm_server_stop(LlmServer *s)
{
    if (s->wake[1] >= 0) {
        char b = 1;
        ssize_t w = write(s->wake[1], &b, 1);
        (void)w;
    }
}

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    if (g_wake_fd >= 0) {
        char b = 1;
        ssize_t w = write(g_wake_fd, &b, 1);
        (void)w;
    }
    errno = saved;
}

/* ---- sessions and routing ---- */

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
    } else if ((h = http_header(r, "x-api-key")) != NULL || (h = http_header(r, "api-key")) != NULL) {
        v = h->value;
        n = h->value_len;
    }
    if (n >= KEY_MAX)
        n = KEY_MAX - 1;
    if (n)
        memcpy(key, v, n);
    key[n] = 0;
}

static Session *session_get(LlmServer *s, const char *key, uint32_t sc, bool create)
{
    for (size_t i = 0; i < s->n_sess; i++)
        if (s->sess[i].sc == sc && strcmp(s->sess[i].key, key) == 0)
            return &s->sess[i];
    if (!create || s->n_sess >= MAX_SESSIONS)
        return NULL;
    if (s->n_sess == s->cap_sess) {
        size_t c = s->cap_sess ? s->cap_sess * 2 : 8;
        Session *ns = sc_realloc(s->sess, c * sizeof *ns);
        if (!ns)
            return NULL;
        s->sess = ns;
        s->cap_sess = c;
    }
    Session *se = &s->sess[s->n_sess++];
    memset(se, 0, sizeof *se);
    memcpy(se->key, key, strlen(key) + 1);
    se->sc = sc;
    return se;
}

static Session *session_bound(LlmServer *s, const char *key)
{
    for (size_t i = s->n_sess; i-- > 0;)
        if (s->sess[i].bound && strcmp(s->sess[i].key, key) == 0)
            return &s->sess[i];
    return NULL;
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
    Conn *c;
    const HttpReq *r;
    LlmRenderReq q;
    char req_id[40];
    char note[256];          /* for the log line */
} Ctx;

static void server_error(Ctx *x, LlmApi api, int status, const char *type, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void server_error(Ctx *x, LlmApi api, int status, const char *type, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    llm_plan_reset(&x->c->plan);
    if (llm_render_error(api, status, type, msg, &x->q, x->req_id, &x->c->plan) != 0) {
        llm_plan_reset(&x->c->plan);
        x->c->close_after = true;
    }
    snprintf(x->note, sizeof x->note, "%.150s", msg);
}

static bool has_tool(const cJSON *tools, const char *name)
{
    const cJSON *t;
    cJSON_ArrayForEach(t, tools) {
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

static void llm_request(Ctx *x, LlmApi api, const char *path_name, size_t path_name_len, const char *body,
                        size_t blen)
{
    LlmServer *s = x->s;
    cJSON *j = cJSON_ParseWithLength(body, blen);
    if (!cJSON_IsObject(j)) {
        s->n_protocol++;
        server_error(x, api, 400, "invalid_request_error", "the request body is not a JSON object");
        cJSON_Delete(j);
        return;
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(j, "stream");
    x->q.stream = cJSON_IsTrue(st);
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(j, "stream_options");
    x->q.include_usage = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(so, "include_usage"));
    const cJSON *model = cJSON_GetObjectItemCaseSensitive(j, "model");
    if (cJSON_IsString(model)) {
        x->q.model = model->valuestring;
        x->q.model_len = strlen(model->valuestring);
    }
    x->q.input_tokens = (blen + 3) / 4;

    /* the scenario: named, bound to the session key, or matched by prompt */
    char key[KEY_MAX];
    session_key(x->r, key);
    const HttpHeader *hn = http_header(x->r, "x-scenario-name");
    const char *name = hn ? hn->value : path_name;
    size_t name_len = hn ? hn->value_len : path_name_len;
    Session *se = NULL;
    long sci = -1;
    if (name) {
        sci = suite_find_n(s->suite, name, name_len);
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
        const HttpHeader *hp = http_header(x->r, "x-scenario-prompt");
        if (text && hp) {
            tl = hp->value_len < PROMPT_MAX - 1 ? hp->value_len : PROMPT_MAX - 1;
            memcpy(text, hp->value, tl);
            text[tl] = 0;
        } else if (text) {
            tl = llm_last_user_text(j, text, PROMPT_MAX);
        }
        size_t dist = 0;
        sci = suite_best_prompt(s->suite, NULL, 0, text ? text : "", tl, &dist);
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
        server_error(x, api, 503, NULL, "scvm serve: too many sessions (%d)", MAX_SESSIONS);
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
    if (s->o.strict_tools && body_attempt && r->n_tools) {
        const cJSON *tools = cJSON_GetObjectItemCaseSensitive(j, "tools");
        for (uint32_t k = 0; k < r->n_tools; k++) {
            const BcStr *tn = &sc->prog->str[sc->prog->insn[sc->tools[r->tool0 + k]].a[0]];
            if (!has_tool(tools, tn->s)) {
                s->n_strict++;
                logf_(s, "%s: strict tools: response %u calls '%s', which the request does not define (session '%s')",
                      sc->name, (unsigned)ri + 1, tn->s, key);
                server_error(x, api, 400, "invalid_request_error",
                             "scvm serve: strict tools: the scenario calls tool '%s' but the request does not define it",
                             tn->s);
                cJSON_Delete(j);
                return;
            }
        }
    }
    llm_plan_reset(&x->c->plan);
    uint32_t attempt = se->attempt;
    if (llm_render(sc, ri, attempt, &x->q, &x->c->plan) != 0) {
        server_error(x, api, 500, NULL, "scvm serve: out of memory");
        cJSON_Delete(j);
        return;
    }
    s->n_scripted++;
    if (!body_attempt)
        s->n_script_errors++;
    se->served++;
    if (++se->attempt >= r->n_attempts) {
        se->attempt = 0;
        se->resp++;
    }
    snprintf(x->note, sizeof x->note, "scenario '%.60s' session '%.40s' response %u/%u%s%s", sc->name, key,
             (unsigned)ri + 1, (unsigned)sc->n_resp, body_attempt ? "" : " (scripted error)",
             x->q.stream ? " stream" : "");
    cJSON_Delete(j);
}

/* Answers one complete request: fills c->plan. */
static void handle(LlmServer *s, Conn *c, const HttpReq *r, const char *body, size_t blen)
{
    Ctx x;
    memset(&x, 0, sizeof x);
    x.s = s;
    x.c = c;
    x.r = r;
    x.q.speed = s->o.speed;
    x.q.keep_alive = r->keep_alive && !c->peer_closed;
    c->close_after = !x.q.keep_alive;
    s->n_requests++;
    llm_make_id(x.req_id, sizeof x.req_id, "req_", 24, "scvm-serve", "server", s->n_requests, 0);

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
    bool models = (plen == 10 && memcmp(path, "/v1/models", 10) == 0) || (plen == 7 && memcmp(path, "/models", 7) == 0);
    bool health = (plen == 7 && memcmp(path, "/health", 7) == 0) || (plen == 10 && memcmp(path, "/v1/health", 10) == 0);
    if (models || health) {
        if (!is_get) {
            s->n_protocol++;
            x.q.extra_headers = "Allow: GET\r\n";
            server_error(&x, LLM_API_NONE, 405, NULL, "scvm serve: use GET for this endpoint");
            goto log;
        }
        llm_plan_reset(&c->plan);
        const char *health_json = "{\"status\":\"ok\"}";
        if (llm_render_json(models ? s->models : health_json, models ? s->models_len : strlen(health_json),
                            x.q.keep_alive, &c->plan) != 0) {
            llm_plan_reset(&c->plan);
            c->close_after = true;
        }
        goto log;
    }
    s->n_protocol++;
    server_error(&x, LLM_API_NONE, 404, NULL, "scvm serve: no endpoint %.*s %.*s", (int)r->method_len, r->method,
                 (int)(plen > 200 ? 200 : plen), path);
log:
    if (!s->o.quiet)
        logf_(s, "%s %.*s %.*s -> %d%s%s", c->peer, (int)r->method_len, r->method,
              (int)(r->target_len > 200 ? 200 : r->target_len), r->target, c->plan.status, x.note[0] ? ": " : "",
              x.note);
}

/* A request that could not be parsed: answer and close. */
static void protocol_error(LlmServer *s, Conn *c, int status, const char *why)
{
    Ctx x;
    memset(&x, 0, sizeof x);
    x.s = s;
    x.c = c;
    s->n_requests++;
    s->n_protocol++;
    llm_make_id(x.req_id, sizeof x.req_id, "req_", 24, "scvm-serve", "server", s->n_requests, 0);
    c->close_after = true;
    x.q.keep_alive = false;
    server_error(&x, LLM_API_NONE, status, NULL, "scvm serve: %s", why);
    if (!s->o.quiet)
        logf_(s, "%s malformed request -> %d: %s", c->peer, status, why);
}

/* ---- connections ---- */

static size_t in_cap(const LlmServer *s)
{
    return HEAD_MAX + s->o.max_body;
}

static void conn_step(LlmServer *s, Conn *c, uint64_t now)
{
    if (c->state == C_DRAIN) {
        c->in.len = 0;
        if (c->peer_closed || now - c->drain_ms >= DRAIN_MS)
            c->dead = true;
        return;
    }
    for (;;) {
        if (c->state == C_READ) {
            if (!c->in.len) {
                if (c->peer_closed)
                    c->dead = true;
                return;
            }
            HttpReq r;
            int st = 0;
            const char *why = "";
            int k = http_parse_head((const char *)c->in.data, c->in.len, HEAD_MAX, s->o.max_body, &r, &st, &why);
            if (k == 0) {
                if (c->peer_closed)
                    c->dead = true;
                return;
            }
            size_t used;
            if (k < 0) {
                protocol_error(s, c, st, why);
                used = c->in.len;
            } else {
                used = r.head_len + (size_t)r.content_length;
                if (c->in.len < used) {
                    if (r.expect_continue && !c->cont_sent) {
                        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
                        ssize_t w = send(c->fd, cont, sizeof cont - 1, MSG_NOSIGNAL);
                        (void)w;
                        c->cont_sent = true;
                    }
                    if (c->peer_closed)
                        c->dead = true;
                    return;
                }
                handle(s, c, &r, (const char *)c->in.data + r.head_len, (size_t)r.content_length);
            }
            memmove(c->in.data, c->in.data + used, c->in.len - used);
            c->in.len -= used;
            c->cont_sent = false;
            c->state = C_SEND;
            c->item = c->sent = c->avail = 0;
            c->start_ms = now;
            c->last_ms = now;
            if (!c->plan.n_items) {
                c->dead = true;   /* nothing to send (out of memory): drop the connection */
                return;
            }
        }
        /* C_SEND */
        uint64_t el = now - c->start_ms;
        while (c->item < c->plan.n_items && c->plan.items[c->item].at_ms <= el) {
            c->avail = c->plan.items[c->item++].end;
            c->last_ms = now;
        }
        while (c->sent < c->avail) {
            ssize_t w = send(c->fd, c->plan.bytes.data + c->sent, c->avail - c->sent, MSG_NOSIGNAL);
            if (w > 0) {
                c->sent += (size_t)w;
                c->last_ms = now;
                continue;
            }
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return;
            c->dead = true;   /* the client went away */
            return;
        }
        if (c->item < c->plan.n_items)
            return;           /* the next item is not due yet */
        if (c->close_after) {
            shutdown(c->fd, SHUT_WR);
            c->state = C_DRAIN;
            c->in.len = 0;
            c->drain_ms = now;
            return;
        }
        c->state = C_READ;
        llm_plan_reset(&c->plan);
    }
}

static void conn_read(LlmServer *s, Conn *c, uint64_t now)
{
    if (c->state == C_DRAIN) {
        char sink[4096];
        for (;;) {
            ssize_t n = recv(c->fd, sink, sizeof sink, 0);
            if (n > 0)
                continue;
            if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK))
                c->peer_closed = true;
            if (n < 0 && errno == EINTR)
                continue;
            return;
        }
    }
    size_t cap = in_cap(s);
    while (c->in.len < cap) {
        size_t want = cap - c->in.len < READ_CHUNK ? cap - c->in.len : READ_CHUNK;
        if (!buf_reserve(&c->in, want)) {
            c->dead = true;
            return;
        }
        ssize_t n = recv(c->fd, c->in.data + c->in.len, want, 0);
        if (n > 0) {
            c->in.len += (size_t)n;
            c->last_ms = now;
            if ((size_t)n < want)
                return;
            continue;
        }
        if (n == 0) {
            c->peer_closed = true;
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            c->dead = true;
        return;
    }
}

static void accept_all(LlmServer *s, uint64_t now)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept(s->lfd, (struct sockaddr *)&ss, &sl);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return;   /* EAGAIN, or EMFILE and friends: try again later */
        }
        if (set_nonblock(fd) != 0) {
            close(fd);
            continue;
        }
        if (s->n_conns >= s->o.max_conns) {
            static const char body[] = "{\"error\":{\"message\":\"scvm serve: too many connections\","
                                       "\"type\":\"server_error\",\"param\":null,\"code\":null}}";
            char busy[512];
            int bl = snprintf(busy, sizeof busy,
                              "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                              "Content-Length: %zu\r\nConnection: close\r\nretry-after: 1\r\n\r\n%s",
                              sizeof body - 1, body);
            ssize_t w = send(fd, busy, (size_t)bl, MSG_NOSIGNAL);
            (void)w;
            close(fd);
            s->n_refused++;
            continue;
        }
        Conn *c = sc_calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        c->fd = fd;
        buf_init(&c->in);
        llm_plan_init(&c->plan);
        c->last_ms = now;
        char host[INET6_ADDRSTRLEN] = "?";
        unsigned port = 0;
        if (ss.ss_family == AF_INET) {
            struct sockaddr_in *a = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
            port = ntohs(a->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
            port = ntohs(a->sin6_port);
        }
        snprintf(c->peer, sizeof c->peer, "%s:%u", host, port);
        s->conns[s->n_conns++] = c;
    }
}

int llm_server_run(LlmServer *s)
{
    if (s->lfd < 0)
        return EINVAL;
    struct sigaction sa, old_int, old_term, old_pipe;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    g_wake_fd = s->wake[1];
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &old_pipe);

    int result = 0;
    for (;;) {
        uint64_t now = now_ms();
        int timeout = -1;
        uint64_t soonest = UINT64_MAX;
        struct pollfd *pf = s->pfds;
        pf[0].fd = s->wake[0];
        pf[0].events = POLLIN;
        pf[1].fd = s->lfd;
        pf[1].events = POLLIN;
        for (size_t i = 0; i < s->n_conns; i++) {
            Conn *c = s->conns[i];
            short ev = 0;
            if (!c->peer_closed && c->in.len < in_cap(s))
                ev |= POLLIN;
            if (c->state == C_SEND && c->sent < c->avail)
                ev |= POLLOUT;
            if (c->state == C_SEND && c->sent == c->avail && c->item < c->plan.n_items) {
                uint64_t due = c->start_ms + c->plan.items[c->item].at_ms;
                if (due < soonest)
                    soonest = due;
            } else if (c->state == C_DRAIN) {
                if (c->drain_ms + DRAIN_MS < soonest)
                    soonest = c->drain_ms + DRAIN_MS;
            } else {
                uint64_t idle = c->last_ms + s->o.timeout_ms;
                if (idle < soonest)
                    soonest = idle;
            }
            pf[2 + i].fd = c->fd;
            pf[2 + i].events = ev;
            pf[2 + i].revents = 0;
        }
        if (soonest != UINT64_MAX)
            timeout = soonest <= now ? 0 : soonest - now > 60000 ? 60000 : (int)(soonest - now);
        int n = poll(pf, 2 + s->n_conns, timeout);
        if (n < 0 && errno != EINTR) {
            result = errno;
            break;
        }
        now = now_ms();
        if (n > 0 && (pf[0].revents & POLLIN)) {
            char b[64];
            while (read(s->wake[0], b, sizeof b) > 0) {
            }
            break;
        }
        size_t n_before = s->n_conns;
        for (size_t i = 0; i < n_before; i++) {
            Conn *c = s->conns[i];
            short re = n > 0 ? pf[2 + i].revents : 0;
            if (re & (POLLIN | POLLHUP | POLLERR))
                conn_read(s, c, now);
            if (re & POLLNVAL)
                c->dead = true;
            if (!c->dead)
                conn_step(s, c, now);
            bool waiting = c->state == C_SEND && c->sent == c->avail && c->item < c->plan.n_items;
            if (!c->dead && !waiting && now - c->last_ms >= s->o.timeout_ms) {
                if (!s->o.quiet)
                    logf_(s, "%s: closing an idle or stalled connection", c->peer);
                c->dead = true;
            }
        }
        if (n > 0 && (pf[1].revents & POLLIN))
            accept_all(s, now);
        size_t k = 0;
        for (size_t i = 0; i < s->n_conns; i++) {
            if (s->conns[i]->dead)
                conn_free(s->conns[i]);
            else
                s->conns[k++] = s->conns[i];
        }
        s->n_conns = k;
    }

    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    g_wake_fd = -1;
    for (size_t i = 0; i < s->n_conns; i++)
        conn_free(s->conns[i]);
    s->n_conns = 0;
    return result;
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
          (unsigned long long)s->n_unrouted, (unsigned long long)s->n_exhausted, (unsigned long long)s->n_refused);
    for (size_t i = 0; i < s->n_sess; i++) {
        const Session *se = &s->sess[i];
        const LlmScript *sc = &s->sc[se->sc];
        logf_(s, "summary: scenario '%s', session '%s': %u of %u responses served%s", sc->name, se->key,
              (unsigned)(se->resp > sc->n_resp ? sc->n_resp : se->resp), (unsigned)sc->n_resp,
              se->loops ? " (looped)" : "");
    }
    logf_(s, "summary: assertions: %u passed, %u failed, %u skipped; strict tools: %llu rejected",
          s->asserts.passed, s->asserts.failed, s->asserts.skipped, (unsigned long long)s->n_strict);
    bool failed = s->asserts.failed || s->n_strict;
    logf_(s, "summary: %s", failed ? "FAILED" : "ok");
    return failed ? 1 : 0;
}
