/* SPDX-License-Identifier: MIT */
/* tape.c - recorded replies keyed by their request (tape.h, docs/tape.md).
**
** Entries live in an array; lookups are linear over it, which is fine for
** the tens to thousands of judge verdicts and simulated turns a suite has.
** Takings are counted per key in a second small array. */
#include "runtime/tape/tape.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/sha256.h"

typedef struct Entry {
    char *kind;
    char key[65];
    unsigned n;
    cJSON *request, *reply;
    bool used;
} Entry;

typedef struct Count {
    char key[65];
    unsigned n;
} Count;

struct Tape {
    bool changed;               /* tape_add since the load */
    Entry *e;
    size_t n, cap;
    Count *c;
    size_t nc, capc;
};

Tape *tape_new(void)
{
    return sc_calloc(1, sizeof(Tape));
}

size_t tape_size(const Tape *t)
{
    return t->n;
}

void tape_free(Tape *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++) {
        sc_free(t->e[i].kind);
        cJSON_Delete(t->e[i].request);
        cJSON_Delete(t->e[i].reply);
    }
    sc_free(t->e);
    sc_free(t->c);
    sc_free(t);
}

/* ---------- canonical JSON and keys ---------- */

/* The shortest of %.1g .. %.17g that reads back as the same double;
** integers up to 2^53 without a fraction or exponent. */
static void canon_num(double d, Buf *out)
{
    if (!isfinite(d)) {
        buf_puts(out, "null");          /* JSON has no NaN or infinity */
        return;
    }
    if (d == floor(d) && fabs(d) < 9007199254740992.0) {
        buf_printf(out, "%.0f", d == 0 ? 0.0 : d);
        return;
    }
    char b[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, d);
        if (strtod(b, NULL) == d)
            break;
    }
    buf_puts(out, b);
}

static int by_name(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    return strcmp(x->string, y->string);
}

static void canonical(const cJSON *v, JsonW *w)
{
    if ((cJSON_IsArray(v) || cJSON_IsObject(v)) && w->depth >= JW_MAX_DEPTH) {
        /* deeper than one writer tracks (a request may nest as deep as
        ** cJSON reads): the rest in a writer of its own, on the same Buf */
        jw_value(w);
        JsonW in;
        jw_init(&in, w->b);
        canonical(v, &in);
        return;
    }
    if (cJSON_IsNull(v) || !v) {
        jw_null(w);
    } else if (cJSON_IsTrue(v)) {
        jw_bool(w, true);
    } else if (cJSON_IsFalse(v)) {
        jw_bool(w, false);
    } else if (cJSON_IsNumber(v)) {
        jw_value(w);
        canon_num(v->valuedouble, w->b);
    } else if (cJSON_IsString(v)) {
        jw_cstr(w, v->valuestring);
    } else if (cJSON_IsArray(v)) {
        jw_arr(w);
        const cJSON *c;
        cJSON_ArrayForEach(c, v) canonical(c, w);
        jw_end(w);
    } else if (cJSON_IsObject(v)) {
        int n = cJSON_GetArraySize(v), k = 0;
        const cJSON **m = sc_calloc(n ? (size_t)n : 1, sizeof *m);
        if (!m) {
            w->b->oom = true;
            return;
        }
        const cJSON *c;
        cJSON_ArrayForEach(c, v) m[k++] = c;
        qsort(m, (size_t)n, sizeof *m, by_name);
        jw_obj(w);
        for (int i = 0; i < n; i++) {
            jw_key_str(w, m[i]->string, strlen(m[i]->string));
            canonical(m[i], w);
        }
        jw_end(w);
        sc_free(m);
    } else {
        jw_null(w);
    }
}

void tape_canonical(const cJSON *v, Buf *out)
{
    JsonW w;
    jw_init(&w, out);
    canonical(v, &w);
}

void tape_key(const char *kind, const cJSON *request, char key[65])
{
    Buf b;
    buf_init(&b);
    buf_puts(&b, kind);
    buf_putc(&b, '\n');
    tape_canonical(request, &b);
    sha256_hex(b.data ? b.data : (unsigned char *)"", b.len, key);
    buf_fini(&b);
}

static bool kind_ok(const char *k)
{
    if (!k || !*k || strlen(k) > 64)
        return false;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= '0' && *k <= '9') || *k == '_' || *k == '.' || *k == '-'))
            return false;
    return true;
}

/* ---------- entries ---------- */

static Entry *find(const Tape *t, const char *kind, const char *key, unsigned n)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->e[i].n == n && strcmp(t->e[i].key, key) == 0 && strcmp(t->e[i].kind, kind) == 0)
            return &t->e[i];
    return NULL;
}

static bool add(Tape *t, const char *kind, const char *key, cJSON *request, unsigned n, cJSON *reply, char *err,
                size_t errlen)
{
    if (find(t, kind, key, n)) {
        snprintf(err, errlen, "entry %s %.12s... #%u is there twice", kind, key, n);
        return false;
    }
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 32;
        Entry *ne = sc_realloc(t->e, nc * sizeof *ne);
        if (!ne) {
            snprintf(err, errlen, "out of memory");
            return false;
        }
        t->e = ne;
        t->cap = nc;
    }
    Entry *e = &t->e[t->n];
    e->kind = sc_strdup(kind);
    if (!e->kind) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    memcpy(e->key, key, 65);
    e->n = n;
    e->request = request;
    e->reply = reply;
    e->used = false;
    t->n++;
    return true;
}

bool tape_add(Tape *t, const char *kind, const cJSON *request, unsigned n, const cJSON *reply, char *err,
              size_t errlen)
{
    if (!kind_ok(kind)) {
        snprintf(err, errlen, "'%.80s' is not a kind (letters a-z, digits, _ . -)", kind ? kind : "");
        return false;
    }
    char key[65];
    tape_key(kind, request, key);
    cJSON *rq = cJSON_Duplicate(request, true), *rp = cJSON_Duplicate(reply, true);
    if ((request && !rq) || (reply && !rp) || !add(t, kind, key, rq, n, rp, err, errlen)) {
        if ((request && !rq) || (reply && !rp))
            snprintf(err, errlen, "out of memory");
        cJSON_Delete(rq);
        cJSON_Delete(rp);
        return false;
    }
    t->changed = true;
    return true;
}

Tape *tape_load(const char *path, bool missing_ok, char *err, size_t errlen)
{
    char *data = NULL;
    size_t len = 0;
    int e = file_read_all(path, (size_t)256 << 20, &data, &len);
    if (e == ENOENT && missing_ok)
        return tape_new();
    if (e) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(e));
        return NULL;
    }
    Tape *t = tape_new();
    bool ok = t != NULL, header = false;
    unsigned line = 0;
    char why[256] = "";
    for (char *p = data, *end = data + len; ok && p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end, *ls = p;
        line++;
        p = nl ? nl + 1 : end;
        bool blank = true;
        for (const char *x = ls; x < le; x++)
            blank &= *x == ' ' || *x == '\t' || *x == '\r';
        if (blank)
            continue;
        cJSON *j = cJSON_ParseWithLength(ls, (size_t)(le - ls));
        if (!j) {
            snprintf(why, sizeof why, "not JSON");
            ok = false;
            continue;
        }
        if (!header) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, "tape_version");
            if (!cJSON_IsNumber(v) || v->valuedouble != TAPE_VERSION) {
                snprintf(why, sizeof why, "the first line must be {\"tape_version\":%d}", TAPE_VERSION);
                ok = false;
            }
            header = true;
            cJSON_Delete(j);
            continue;
        }
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "kind"));
        const char *key = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "key"));
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(j, "n");
        cJSON *rq = cJSON_DetachItemFromObjectCaseSensitive(j, "request");
        cJSON *rp = cJSON_DetachItemFromObjectCaseSensitive(j, "reply");
        char want[65];
        if (!kind_ok(kind)) {
            snprintf(why, sizeof why, "no kind, or not a kind name (letters a-z, digits, _ . -)");
        } else if (!rq || !rp) {
            snprintf(why, sizeof why, "an entry needs its request and its reply");
        } else if (!cJSON_IsNumber(n) || n->valuedouble < 0 || n->valuedouble > 1e9 ||
                   n->valuedouble != floor(n->valuedouble)) {
            snprintf(why, sizeof why, "n must be a whole number from 0");
        } else if (tape_key(kind, rq, want), !key || strcmp(key, want) != 0) {
            snprintf(why, sizeof why, "the key is not its request's (it is %s)", want);
        } else if (add(t, kind, want, rq, (unsigned)n->valuedouble, rp, why, sizeof why)) {
            rq = rp = NULL;
            why[0] = 0;
        }
        cJSON_Delete(rq);
        cJSON_Delete(rp);
        cJSON_Delete(j);
        ok = !why[0];
    }
    if (ok && !header) {
        snprintf(why, sizeof why, "empty: no {\"tape_version\":%d} line", TAPE_VERSION);
        ok = false;
        line = 1;
    }
    sc_free(data);
    if (!ok) {
        snprintf(err, errlen, "%s:%u: %s", path, line, why[0] ? why : "out of memory");
        tape_free(t);
        return NULL;
    }
    return t;
}

/* ---------- taking ---------- */

static Count *count_of(Tape *t, const char *key)
{
    for (size_t i = 0; i < t->nc; i++)
        if (strcmp(t->c[i].key, key) == 0)
            return &t->c[i];
    if (t->nc == t->capc) {
        size_t nc = t->capc ? 2 * t->capc : 32;
        Count *n = sc_realloc(t->c, nc * sizeof *n);
        if (!n)
            return NULL;
        t->c = n;
        t->capc = nc;
    }
    Count *c = &t->c[t->nc++];
    memcpy(c->key, key, 65);
    c->n = 0;
    return c;
}

const cJSON *tape_reply(Tape *t, const char *kind, const char *key, unsigned n)
{
    Entry *e = find(t, kind, key, n);
    if (!e)
        return NULL;
    e->used = true;
    return e->reply;
}

bool tape_changed(const Tape *t)
{
    return t->changed;
}

unsigned tape_count(const Tape *t, const char *key)
{
    for (size_t i = 0; i < t->nc; i++)
        if (strcmp(t->c[i].key, key) == 0)
            return t->c[i].n;
    return 0;
}

const cJSON *tape_take(Tape *t, const char *kind, const cJSON *request, char key[65])
{
    tape_key(kind, request, key);
    Count *c = count_of(t, key);
    if (!c)
        return NULL;
    Entry *e = find(t, kind, key, c->n);
    c->n++;
    if (!e)
        return NULL;
    e->used = true;
    return e->reply;
}

void tape_restart(Tape *t)
{
    t->nc = 0;
}

size_t tape_merge(Tape *t, const Tape *from)
{
    size_t added = 0;
    char err[200];
    for (size_t i = 0; i < from->n; i++) {
        const Entry *e = &from->e[i];
        if (!find(t, e->kind, e->key, e->n) && tape_add(t, e->kind, e->request, e->n, e->reply, err, sizeof err))
            added++;
    }
    return added;
}

bool tape_unused(const Tape *t, size_t *cursor, const char **kind, const char **key, unsigned *n)
{
    while (*cursor < t->n) {
        const Entry *e = &t->e[(*cursor)++];
        if (!e->used) {
            *kind = e->kind;
            *key = e->key;
            *n = e->n;
            return true;
        }
    }
    return false;
}

/* ---------- writing ---------- */

static int by_entry(const void *a, const void *b)
{
    const Entry *x = *(const Entry *const *)a, *y = *(const Entry *const *)b;
    int c = strcmp(x->kind, y->kind);
    if (!c)
        c = strcmp(x->key, y->key);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

void tape_write(const Tape *t, Buf *out)
{
    JsonW w;
    jw_open_obj(&w, out);
    jw_ki64(&w, "tape_version", TAPE_VERSION);
    jw_end(&w);
    jw_nl(&w);
    const Entry **order = sc_calloc(t->n ? t->n : 1, sizeof *order);
    if (!order) {
        out->oom = true;
        return;
    }
    for (size_t i = 0; i < t->n; i++)
        order[i] = &t->e[i];
    qsort(order, t->n, sizeof *order, by_entry);
    for (size_t i = 0; i < t->n; i++) {
        const Entry *e = order[i];
        jw_obj(&w);
        jw_kcstr(&w, "kind", e->kind);
        jw_kcstr(&w, "key", e->key);
        jw_ku64(&w, "n", e->n);
        jw_key(&w, "request");
        canonical(e->request, &w);
        jw_key(&w, "reply");
        canonical(e->reply, &w);
        jw_end(&w);
        jw_nl(&w);
    }
    sc_free(order);
}

int tape_save(const Tape *t, const char *path)
{
    Buf b;
    buf_init(&b);
    tape_write(t, &b);
    int e = b.oom ? ENOMEM : file_write_atomic(path, b.data, b.len);
    buf_fini(&b);
    return e;
}
