/* SPDX-License-Identifier: MIT */
/* eliza_logs.c - ElizaOS's `_logs_` files for `scvm run -t aut --logs DIR`
** (docs/eliza.md, "The _logs_ files").
**
** ElizaOS's `scenario run` writes, per step I (from 0), the step's
** ExecutionResult as run-DATE-NNN-TIME-step-I-execution.json and, for a
** step with evaluations, their results as ...-step-I-evaluation.json; then
** the run as run-DATE-NNN-TIME.json {run_id, matrix_combination_id,
** parameters, metrics, final_agent_response?, evaluations, trajectory,
** error}; all as JSON.stringify(x, null, 2) writes them.  Here they are
** kept as each step ends and written when the run is over, into the folder
** the user names, under the next free NNN of that date there: the folder
** is locked (flock) while the numbers are taken, and every file is made
** whole under a temporary name and linked into place, which fails if the
** name exists (O_EXCL for a complete file), so parallel runs never take
** the same number and no file is ever seen half written.
**
** Times are UTC (ElizaOS: its own America/Los_Angeles).  SOURCE_DATE_EPOCH
** freezes them: every name and timestamp is that second, every duration 0,
** so the same run writes the same bytes (NNN aside). */
#include "eliza_logs.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <locale.h>
#include <wctype.h>

#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/fnv1a.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/bc_cjson.h"

typedef struct ElizaRun {
    uint32_t entry;
    char *name;                 /* the scenario's */
    cJSON *params;              /* parameters */
    char *combination;          /* a matrix's combo-NNN-HASH, NULL for a single run */
    cJSON *execs, *evalfiles;   /* per step: the execution object, the evaluation array (or null) */
    cJSON *evals;               /* every step's evaluations, as the run file has them */
    cJSON *trajectory;
    char *final_response;       /* the last step's stdout */
    char *error;                /* the first step in error's why */
    uint64_t ms;                /* the steps' time */
} ElizaRun;

struct ElizaLogs {
    char *file;
    ElizaRun *runs;
    size_t n, cap;
    bool frozen;                /* SOURCE_DATE_EPOCH */
    int64_t epoch;
    bool oom;
};

/* ---------- JSON as JavaScript writes it ---------- */

static void js_num(Buf *b, double x)
{
    if (!isfinite(x)) {
        buf_puts(b, "null");
        return;
    }
    if (x == 0) {
        buf_putc(b, '0');
        return;
    }
    /* the shortest digits that read back as x, then JavaScript's layout
    ** (Number.prototype.toString: exponent form below 1e-6 and from 1e21) */
    char e[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p - 1, x);
        if (strtod(e, NULL) == x)
            break;
    }
    bool neg = e[0] == '-';
    char digits[24];
    size_t k = 0;
    const char *s = e + neg;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9' && k < sizeof digits - 1)
            digits[k++] = *s;
    digits[k] = 0;
    while (k > 1 && digits[k - 1] == '0')
        digits[--k] = 0;
    int n = (*s == 'e' ? atoi(s + 1) : 0) + 1;      /* x = 0.DIGITS * 10^n */
    if (neg)
        buf_putc(b, '-');
    if ((int)k <= n && n <= 21) {
        buf_puts(b, digits);
        for (int i = (int)k; i < n; i++)
            buf_putc(b, '0');
    } else if (0 < n && n <= 21) {
        buf_put(b, digits, (size_t)n);
        buf_putc(b, '.');
        buf_puts(b, digits + n);
    } else if (-6 < n && n <= 0) {
        buf_puts(b, "0.");
        for (int i = n; i < 0; i++)
            buf_putc(b, '0');
        buf_puts(b, digits);
    } else {
        buf_putc(b, digits[0]);
        if (k > 1) {
            buf_putc(b, '.');
            buf_puts(b, digits + 1);
        }
        buf_printf(b, "e%c%d", n - 1 < 0 ? '-' : '+', abs(n - 1));
    }
}

static void js_str(Buf *b, const char *s)
{
    buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"': buf_puts(b, "\\\""); break;
        case '\\': buf_puts(b, "\\\\"); break;
        case '\b': buf_puts(b, "\\b"); break;
        case '\f': buf_puts(b, "\\f"); break;
        case '\n': buf_puts(b, "\\n"); break;
        case '\r': buf_puts(b, "\\r"); break;
        case '\t': buf_puts(b, "\\t"); break;
        default:
            if (c < 0x20)
                buf_printf(b, "\\u%04x", c);
            else
                buf_putc(b, c);
        }
    }
    buf_putc(b, '"');
}

static void js_indent(Buf *b, int indent, int level)
{
    if (!indent)
        return;
    buf_putc(b, '\n');
    for (int i = 0; i < indent * level; i++)
        buf_putc(b, ' ');
}

static void js_json(Buf *b, const cJSON *v, int indent, int level)
{
    if (!v || cJSON_IsNull(v)) {
        buf_puts(b, "null");
    } else if (cJSON_IsTrue(v)) {
        buf_puts(b, "true");
    } else if (cJSON_IsFalse(v)) {
        buf_puts(b, "false");
    } else if (cJSON_IsNumber(v)) {
        js_num(b, v->valuedouble);
    } else if (cJSON_IsString(v)) {
        js_str(b, v->valuestring);
    } else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
        bool obj = cJSON_IsObject(v);
        buf_putc(b, obj ? '{' : '[');
        const cJSON *c;
        bool first = true;
        cJSON_ArrayForEach(c, v) {
            if (!first)
                buf_putc(b, ',');
            first = false;
            js_indent(b, indent, level + 1);
            if (obj) {
                js_str(b, c->string ? c->string : "");
                buf_puts(b, indent ? ": " : ":");
            }
            js_json(b, c, indent, level + 1);
        }
        if (!first)
            js_indent(b, indent, level);
        buf_putc(b, obj ? '}' : ']');
    } else {
        buf_puts(b, "null");
    }
}

void eliza_js_json(Buf *b, const cJSON *value, int indent)
{
    js_json(b, value, indent, 0);
}

/* ---------- the scenario's facts ---------- */

/* The program's config member key, as cJSON (NULL: none). */
static cJSON *config_json(const BcProgram *p, const char *key, const char *sub)
{
    BcVal cfg = bc_val(p, p->meta.config), v, w;
    if (!bc_val_get(p, &cfg, key, &v))
        return NULL;
    if (sub) {
        if (!bc_val_get(p, &v, sub, &w))
            return NULL;
        v = w;
    }
    return bc_val_cjson_at(p, &v);
}

/* The settings of the program's k-th CASE (from 0), as cJSON. */
static cJSON *case_settings(const BcProgram *p, unsigned k)
{
    for (uint32_t i = 0; i < p->n_insn; i++) {
        if (p->insn[i].op == OP_CASE && !k--)
            return bc_val_cjson(p, p->insn[i].a[2]);
    }
    return NULL;
}

/* s with its letters lowered as JavaScript's toLowerCase lowers them, one
** code point for one (the C.UTF-8 locale's towlower: every script, not
** toLowerCase's few one-to-two mappings; A-Z only if that locale is
** missing), into a new string (NULL when out of memory).  Bytes that are
** not UTF-8 are kept as they are. */
static char *lower(const char *s)
{
    static locale_t utf8;
    static bool tried;
    if (!tried) {
        tried = true;
        utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    }
    size_t n = strlen(s);
    char *o = sc_malloc(n * 2 + 1), *w = o;     /* a lowered character at most doubles in bytes */
    if (!o)
        return NULL;
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint32_t cp = u[i], len = cp >= 0xf0 ? 4 : cp >= 0xe0 ? 3 : cp >= 0xc0 ? 2 : 1;
        bool ok = len == 1 ? cp < 0x80 : i + len <= n;
        for (uint32_t q = 1; ok && q < len; q++)
            ok = (u[i + q] & 0xc0) == 0x80;
        if (!ok) {
            *w++ = (char)u[i++];
            continue;
        }
        if (len > 1) {
            cp &= 0x3fu >> (len - 1);
            for (uint32_t q = 1; q < len; q++)
                cp = (cp << 6) | (u[i + q] & 63u);
        }
        uint32_t lc = cp >= 'A' && cp <= 'Z' ? cp + 32 : cp;
        if (utf8 && cp >= 0x80) {
            wint_t l = towlower_l((wint_t)cp, utf8);
            if (l > 0 && l <= 0x10ffff && (l < 0xd800 || l > 0xdfff))
                lc = (uint32_t)l;
        }
        if (lc < 0x80) {
            *w++ = (char)lc;
        } else if (lc < 0x800) {
            *w++ = (char)(0xc0 | (lc >> 6));
            *w++ = (char)(0x80 | (lc & 63));
        } else if (lc < 0x10000) {
            *w++ = (char)(0xe0 | (lc >> 12));
            *w++ = (char)(0x80 | ((lc >> 6) & 63));
            *w++ = (char)(0x80 | (lc & 63));
        } else {
            *w++ = (char)(0xf0 | (lc >> 18));
            *w++ = (char)(0x80 | ((lc >> 12) & 63));
            *w++ = (char)(0x80 | ((lc >> 6) & 63));
            *w++ = (char)(0x80 | (lc & 63));
        }
        i += len;
    }
    *w = 0;
    return o;
}

bool eliza_filter_match(const BcProgram *p, const char *pattern)
{
    cJSON *params = config_json(p, "matrix", "parameters");
    if (!params)
        return false;
    Buf b;
    buf_init(&b);
    js_json(&b, params, 0, 0);
    buf_putc(&b, 0);
    cJSON_Delete(params);
    char *hay = b.oom ? NULL : lower((const char *)b.data), *pat = lower(pattern);
    bool hit = hay && pat && strstr(hay, pat) != NULL;
    sc_free(hay);
    sc_free(pat);
    buf_fini(&b);
    return hit;
}

/* ElizaOS's combination id: combo-NNN-HASH, NNN the combination's index
** (from 0), HASH the first 8 hex digits of the absolute value of a 32-bit
** "h = h * 31 + unit" over the UTF-16 units of the parameters written as
** "KEY=JSON" in sorted key order, joined by '&'. */
static char *combination_id(const cJSON *params, long index)
{
    size_t n = (size_t)cJSON_GetArraySize(params);
    const cJSON **keys = sc_calloc(n ? n : 1, sizeof *keys), *c;
    if (!keys)
        return NULL;
    size_t k = 0;
    cJSON_ArrayForEach(c, params) keys[k++] = c;
    for (size_t i = 1; i < k; i++)      /* insertion sort: a handful of keys */
        for (size_t j = i; j > 0 && strcmp(keys[j - 1]->string, keys[j]->string) > 0; j--) {
            const cJSON *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    Buf s;
    buf_init(&s);
    for (size_t i = 0; i < k; i++) {
        if (i)
            buf_putc(&s, '&');
        buf_puts(&s, keys[i]->string);
        buf_putc(&s, '=');
        js_json(&s, keys[i], 0, 0);
    }
    sc_free(keys);
    int32_t h = 0;
    const unsigned char *u = s.data;
    for (size_t i = 0; u && i < s.len;) {
        /* a UTF-8 sequence's code point (a byte that starts none, or a
        ** sequence cut short, counts as itself) */
        uint32_t cp = u[i], len = cp >= 0xf0 ? 4 : cp >= 0xe0 ? 3 : cp >= 0xc0 ? 2 : 1;
        if (len > 1 && i + len <= s.len) {
            cp &= 0x3fu >> (len - 1);
            for (uint32_t q = 1; q < len; q++)
                cp = (cp << 6) | (u[i + q] & 63u);
        } else {
            len = 1;
        }
        i += len;
        uint32_t units[2] = { cp, 0 };
        int nu = 1;
        if (cp >= 0x10000) {
            units[0] = 0xd800 + ((cp - 0x10000) >> 10);
            units[1] = 0xdc00 + ((cp - 0x10000) & 0x3ff);
            nu = 2;
        }
        for (int q = 0; q < nu; q++)
            h = (int32_t)((uint32_t)h * 31u + units[q]);
    }
    buf_fini(&s);
    char hex[16], id[64];
    snprintf(hex, sizeof hex, "%x", h < 0 ? (uint32_t)0 - (uint32_t)h : (uint32_t)h);
    hex[8] = 0;
    snprintf(id, sizeof id, "combo-%03ld-%s", index, hex);
    return sc_strdup(id);
}

/* ---------- the runs ---------- */

ElizaLogs *eliza_logs_new(const char *file)
{
    ElizaLogs *l = sc_calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->file = sc_strdup(file ? file : "");
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    char *end;
    if (sde && *sde) {
        errno = 0;
        long long v = strtoll(sde, &end, 10);
        if (!errno && !*end && v >= 0 && v < 253402300800LL) {    /* before year 10000 */
            l->frozen = true;
            l->epoch = v;
        } else {
            fprintf(stderr, "scvm: warning: SOURCE_DATE_EPOCH '%s' is not a number of seconds: the logs use the clock\n",
                    sde);
        }
    }
    if (!l->file) {
        sc_free(l);
        return NULL;
    }
    return l;
}

static void run_fini(ElizaRun *r)
{
    sc_free(r->name);
    cJSON_Delete(r->params);
    sc_free(r->combination);
    cJSON_Delete(r->execs);
    cJSON_Delete(r->evalfiles);
    cJSON_Delete(r->evals);
    cJSON_Delete(r->trajectory);
    sc_free(r->final_response);
    sc_free(r->error);
}

void eliza_logs_free(ElizaLogs *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        run_fini(&l->runs[i]);
    sc_free(l->runs);
    sc_free(l->file);
    sc_free(l);
}

/* Now, in milliseconds since 1970 (UTC), or the frozen second. */
static int64_t now_ms(const ElizaLogs *l)
{
    if (l->frozen)
        return l->epoch * 1000;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void iso(char *out, size_t n, int64_t ms)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    snprintf(out, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

static ElizaRun *run_of(ElizaLogs *l, const BcProgram *p, uint32_t entry)
{
    if (l->n && l->runs[l->n - 1].entry == entry)
        return &l->runs[l->n - 1];
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        ElizaRun *nr = sc_realloc(l->runs, nc * sizeof *nr);
        if (!nr)
            return NULL;
        l->runs = nr;
        l->cap = nc;
    }
    ElizaRun *r = &l->runs[l->n];
    memset(r, 0, sizeof *r);
    r->entry = entry;
    r->name = sc_strdup(p->str[p->meta.name].s);
    cJSON *params = config_json(p, "matrix", "parameters");
    if (params) {
        cJSON *comb = config_json(p, "matrix", "combination");
        r->combination = combination_id(params, cJSON_IsNumber(comb) ? (long)comb->valuedouble - 1 : 0);
        cJSON_Delete(comb);
        r->params = params;
    } else {
        r->params = cJSON_CreateObject();
        cJSON_AddStringToObject(r->params, "scenario.file", l->file);
    }
    r->execs = cJSON_CreateArray();
    r->evalfiles = cJSON_CreateArray();
    r->evals = cJSON_CreateArray();
    r->trajectory = cJSON_CreateArray();
    if (!r->name || !r->params || (params && !r->combination) || !r->execs || !r->evalfiles || !r->evals ||
        !r->trajectory) {
        run_fini(r);
        return NULL;
    }
    l->n++;
    return r;
}

static const char *eliza_type(const char *t)
{
    return !strcmp(t, "contains") ? "string_contains" : !strcmp(t, "regex") ? "regex_match" : t;
}

/* The trajectory of a step's turns as ElizaOS rebuilds it: per turn, the
** user's message, the agent's actions, the agent's message. */
/* {type: observation, timestamp, content: "WHO message: TEXT"}, as
** ElizaOS's trajectory writes a turn's input and answer. */
static void observation(cJSON *to, const char *ts, const char *who, const char *text)
{
    size_t n = strlen(who) + strlen(text) + 16;
    char *msg = sc_malloc(n);
    if (!msg)
        return;
    snprintf(msg, n, "%s message: %s", who, text);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "type", "observation");
    cJSON_AddStringToObject(o, "timestamp", ts);
    cJSON_AddStringToObject(o, "content", msg);
    cJSON_AddItemToArray(to, o);
    sc_free(msg);
}

static void trajectory_of(cJSON *to, const char *turns_json, const char *ts)
{
    cJSON *turns = turns_json ? cJSON_Parse(turns_json) : NULL;
    const cJSON *tn;
    cJSON_ArrayForEach(tn, turns) {
        const char *in = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tn, "input"));
        const char *out = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tn, "output"));
        cJSON *o;
        if (in) {
            observation(to, ts, "User", in);
        }
        const cJSON *tc;
        cJSON_ArrayForEach(tc, cJSON_GetObjectItemCaseSensitive(tn, "tool_calls")) {
            o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "type", "action");
            cJSON_AddStringToObject(o, "timestamp", ts);
            cJSON *c = cJSON_AddObjectToObject(o, "content");
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tc, "name"));
            cJSON_AddStringToObject(c, "name", name ? name : "unknown");
            const cJSON *args = cJSON_GetObjectItemCaseSensitive(tc, "args");
            cJSON_AddItemToObject(c, "parameters", cJSON_IsObject(args) ? cJSON_Duplicate(args, true)
                                                                        : cJSON_CreateObject());
            cJSON_AddItemToArray(to, o);
        }
        if (out && *out) {
            observation(to, ts, "Agent", out);
        }
    }
    cJSON_Delete(turns);
}

void eliza_logs_scenario(ElizaLogs *l, const BcProgram *p, uint32_t entry)
{
    if (!l || l->oom)
        return;
    cJSON *d = config_json(p, "dialect", NULL);
    bool eliza = cJSON_IsString(d) && !strcmp(d->valuestring, "eliza");
    cJSON_Delete(d);
    if (eliza && !run_of(l, p, entry))
        l->oom = true;
}

void eliza_logs_step(ElizaLogs *l, const BcProgram *p, uint32_t entry, const AutCaseResult *c)
{
    if (!l || l->oom)
        return;
    ElizaRun *r = run_of(l, p, entry);
    if (!r) {
        l->oom = true;
        return;
    }
    unsigned k = (unsigned)cJSON_GetArraySize(r->execs);
    bool error = !strcmp(c->verdict, "error");
    bool code = !strcmp(c->type, "code"), conv = !strcmp(c->type, "conversation");
    uint64_t dur = l->frozen ? 0 : c->duration_ms;
    /* when the step ended (with -j its process said so), or the frozen second */
    int64_t end = l->frozen || c->ended_at_ms <= 0 ? now_ms(l) : c->ended_at_ms, start = end - (int64_t)dur;
    char ts[80];
    iso(ts, sizeof ts, end);
    const char *out = c->output ? c->output : "";

    /* the conversation's success: an agent reply in every turn */
    cJSON *turns = c->turns_json ? cJSON_Parse(c->turns_json) : NULL;
    bool replied = cJSON_GetArraySize(turns) > 0;
    const cJSON *tn;
    cJSON_ArrayForEach(tn, turns) {
        const char *o = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tn, "output"));
        replied &= o && *o;
    }
    cJSON_Delete(turns);

    cJSON *x = cJSON_CreateObject();
    int exit_code = code ? (c->has_exit_code ? c->exit_code : 1) : conv ? !replied : error;
    cJSON_AddNumberToObject(x, "exitCode", exit_code);
    cJSON_AddStringToObject(x, "stdout", out);
    const char *err = error && !(code && c->has_exit_code) ? (c->why ? c->why : "")
                      : conv && !replied                  ? "Conversation failed"
                                                          : "";
    cJSON_AddStringToObject(x, "stderr", err);
    cJSON *files = c->files_json ? cJSON_Parse(c->files_json) : NULL;
    cJSON_AddItemToObject(x, "files", files ? files : cJSON_CreateObject());
    cJSON_AddNumberToObject(x, "startedAtMs", (double)start);
    cJSON_AddNumberToObject(x, "endedAtMs", (double)end);
    cJSON_AddNumberToObject(x, "durationMs", (double)dur);
    cJSON *traj = NULL;
    if (!code) {
        traj = cJSON_AddArrayToObject(x, "trajectory");
        trajectory_of(traj, c->turns_json, ts);
    }

    /* the step's evaluations (scope step), and a conversation's final ones */
    cJSON *ev = cJSON_CreateArray(), *fin = cJSON_CreateArray();
    bool any = false;
    for (unsigned i = 0; i < c->checks; i++) {
        const char *scope = c->check_scopes ? c->check_scopes[i] : "step";
        const char *type = c->check_types ? c->check_types[i] : "legacy";
        bool ok = !strcmp(c->verdicts[i], "passed");
        bool final = !strcmp(scope, "final");
        if (!final && strcmp(scope, "step") != 0 && *scope)
            continue;
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "evaluator_type", eliza_type(type));
        cJSON_AddBoolToObject(e, "success", ok);
        cJSON_AddStringToObject(e, "summary", c->messages[i]);
        cJSON *d = cJSON_AddObjectToObject(e, "details");
        cJSON_AddStringToObject(d, "verdict", c->verdicts[i]);
        if (final) {
            cJSON_AddItemToArray(fin, e);   /* ElizaOS's EnhancedEvaluationResult, as the step's */
            continue;
        }
        any = true;
        cJSON *rec = cJSON_CreateObject();
        cJSON_AddBoolToObject(rec, "success", ok);
        cJSON_AddStringToObject(rec, "message", c->messages[i]);
        cJSON_AddItemToObject(rec, "_enhanced", cJSON_Duplicate(e, true));
        cJSON_AddItemToArray(ev, rec);
        cJSON_AddItemToArray(r->evals, e);
    }
    if (conv) {
        cJSON *settings = case_settings(p, k);
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(settings, "conversation"),
                                                           "max_turns");
        cJSON *m = cJSON_AddObjectToObject(x, "conversationMetadata");
        cJSON_AddNumberToObject(m, "turnCount", c->total_turns);
        cJSON_AddBoolToObject(m, "terminatedEarly", cJSON_IsNumber(mt) && c->total_turns < mt->valuedouble);
        /* ElizaOS looks again over the last two turns for the first condition
        ** that holds: the one that ended it, but never conversation_stuck
        ** (three turns needed); none: absent */
        if (c->termination && strcmp(c->termination, "conversation_stuck") != 0)
            cJSON_AddStringToObject(m, "terminationReason", c->termination);
        cJSON_AddItemToObject(m, "finalEvaluations", fin);
        fin = NULL;
        cJSON_Delete(settings);
    }
    cJSON_Delete(fin);
    cJSON_AddItemToArray(r->execs, x);
    if (any)
        cJSON_AddItemToArray(r->evalfiles, ev);
    else {
        cJSON_Delete(ev);
        cJSON_AddItemToArray(r->evalfiles, cJSON_CreateNull());
    }
    if (traj)
        cJSON_ArrayForEach(tn, traj) cJSON_AddItemToArray(r->trajectory, cJSON_Duplicate(tn, true));
    r->ms += dur;
    sc_free(r->final_response);
    r->final_response = sc_strdup(out);
    if (error && !r->error)
        r->error = sc_strdup(c->why && *c->why ? c->why : "error");
}

/* ---------- writing ---------- */

/* data as dir's file name, whole or not at all, never over a file that
** exists (EEXIST): written under a temporary name, then linked. */
static int write_new(int dirfd, const char *name, const void *data, size_t len)
{
    char tmp[600];
    int fd = -1;
    for (unsigned i = 0; fd < 0 && i < 100; i++) {
        snprintf(tmp, sizeof tmp, ".%.500s.%ld.%u.tmp", name, (long)getpid(), i);
        fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return errno;
    }
    if (fd < 0)
        return EEXIST;
    int e = 0;
    for (size_t off = 0; off < len && !e;) {
        ssize_t w = write(fd, (const char *)data + off, len - off);
        if (w < 0 && errno != EINTR)
            e = errno;
        else if (w > 0)
            off += (size_t)w;
    }
    if (!e && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && !e)
        e = errno;
    if (!e && linkat(dirfd, tmp, dirfd, name, 0) != 0)
        e = errno;
    unlinkat(dirfd, tmp, 0);
    return e;
}

/* The highest NNN of a run-DATE-NNN-... name in the folder (0: none). */
static long highest(int dirfd, const char *date)
{
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char prefix[64];
    int pl = snprintf(prefix, sizeof prefix, "run-%s-", date);
    long max = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, prefix, (size_t)pl) != 0)
            continue;
        char *end;
        long n = strtol(de->d_name + pl, &end, 10);
        if (end > de->d_name + pl && *end == '-' && n > max)
            max = n;
    }
    closedir(d);
    return max;
}

static Buf pretty(const cJSON *v)
{
    Buf b;
    buf_init(&b);
    js_json(&b, v, 2, 0);
    return b;
}

int eliza_logs_write(ElizaLogs *l, const char *dir)
{
    if (!l || !l->n)
        return 0;
    if (l->oom) {
        fprintf(stderr, "scvm: %s: out of memory: the logs are not written\n", dir);
        return SC_IO;
    }
    int e = file_mkdirs(dir);
    int dfd = e ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!e && dfd < 0)
        e = errno;
    if (!e && flock(dfd, LOCK_EX) != 0 && errno != ENOLCK && errno != EOPNOTSUPP)
        e = errno;
    if (e) {
        fprintf(stderr, "scvm: %s: cannot write the logs: %s\n", dir, strerror(e));
        if (dfd >= 0)
            close(dfd);
        return SC_IO;
    }
    int64_t ms = now_ms(l);
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char date[48], tod[48];
    snprintf(date, sizeof date, "%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
    snprintf(tod, sizeof tod, "%02d-%02d-%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
    long next = highest(dfd, date) + 1;
    int st = 0;
    for (size_t i = 0; i < l->n && !st; i++) {
        ElizaRun *r = &l->runs[i];
        char id[160];
        cJSON *run = cJSON_CreateObject();
        cJSON_AddStringToObject(run, "run_id", "");
        if (r->combination) {
            cJSON_AddStringToObject(run, "matrix_combination_id", r->combination);
        } else {
            /* ElizaOS: single-<ms>-<6 random base-36 digits>; here the digits
            ** come from the scenario's name, so the same run writes the same */
            uint64_t h = fnv1a64(r->name, strlen(r->name));
            char b36[7];
            for (int q = 0; q < 6; q++, h /= 36)
                b36[q] = "0123456789abcdefghijklmnopqrstuvwxyz"[h % 36];
            b36[6] = 0;
            char single[64];
            snprintf(single, sizeof single, "single-%lld-%s", (long long)ms, b36);
            cJSON_AddStringToObject(run, "matrix_combination_id", single);
        }
        cJSON_AddItemToObject(run, "parameters", cJSON_Duplicate(r->params, true));
        cJSON *m = cJSON_AddObjectToObject(run, "metrics");
        cJSON_AddNumberToObject(m, "execution_time_seconds", (double)r->ms / 1000);
        cJSON_AddNumberToObject(m, "llm_calls", 1);         /* ElizaOS's constants */
        cJSON_AddNumberToObject(m, "total_tokens", 500);
        if (!r->error && r->final_response && *r->final_response)
            cJSON_AddStringToObject(run, "final_agent_response", r->final_response);
        /* with an error ElizaOS keeps neither evaluations nor trajectory */
        cJSON_AddItemToObject(run, "evaluations", r->error ? cJSON_CreateArray() : cJSON_Duplicate(r->evals, true));
        cJSON_AddItemToObject(run, "trajectory", r->error ? cJSON_CreateArray()
                                                          : cJSON_Duplicate(r->trajectory, true));
        if (r->error)
            cJSON_AddStringToObject(run, "error", r->error);
        else
            cJSON_AddNullToObject(run, "error");
        /* the run file takes the number: the next that is free */
        for (int tries = 0;; tries++, next++) {
            snprintf(id, sizeof id, "run-%s-%03ld-%s", date, next, tod);
            cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(run, "run_id"), id);
            Buf b = pretty(run);
            char name[200];
            snprintf(name, sizeof name, "%s.json", id);
            e = b.oom ? ENOMEM : write_new(dfd, name, b.data, b.len);
            buf_fini(&b);
            if (e != EEXIST || tries > 1000)
                break;
        }
        next++;
        cJSON_Delete(run);
        if (e) {
            fprintf(stderr, "scvm: %s/%s.json: cannot write: %s\n", dir, id, strerror(e));
            st = SC_IO;
            break;
        }
        for (int k = 0; k < cJSON_GetArraySize(r->execs) && !st; k++) {
            const cJSON *f[2] = { cJSON_GetArrayItem(r->execs, k), cJSON_GetArrayItem(r->evalfiles, k) };
            static const char *const KIND[2] = { "execution", "evaluation" };
            for (int q = 0; q < 2 && !st; q++) {
                if (cJSON_IsNull(f[q]))
                    continue;
                char name[240];
                snprintf(name, sizeof name, "%s-step-%d-%s.json", id, k, KIND[q]);
                Buf b = pretty(f[q]);
                e = b.oom ? ENOMEM : write_new(dfd, name, b.data, b.len);
                buf_fini(&b);
                if (e) {
                    fprintf(stderr, "scvm: %s/%s: cannot write: %s\n", dir, name, strerror(e));
                    st = SC_IO;
                }
            }
        }
    }
    close(dfd);     /* and the lock with it */
    return st;
}
