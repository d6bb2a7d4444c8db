/* SPDX-License-Identifier: MIT */
/* suite.c - the one loader (suite.h): .scb files and packs as one list
** of verified entries, selection, prompt matching. */
#include "formats/suite.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/fileio.h"
#include "common/levenshtein.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "common/vformat.h"

/* One input: a pack, or a .scb with the tag list its entry points to. */
typedef struct Input {
    char *label;
    Pack *pack;
    BcProgram *prog;
    const char **tags;
} Input;

struct Suite {
    Input *in;
    size_t n_in;
    PackEntry *e;           /* copies of the entries, in input order */
    uint32_t *from;         /* e[i] came from in[from[i]] */
    uint32_t n;
};

static int fail(SuiteErr *err, int status, const char *code, int32_t entry, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail(SuiteErr *err, int status, const char *code, int32_t entry, const char *fmt, ...)
{
    if (err) {
        err->status = status;
        snprintf(err->code, sizeof err->code, "%s", code);
        err->entry = entry;
        SC_VFORMAT(err->msg, sizeof err->msg, fmt);
    }
    return status;
}

Suite *suite_new(void)
{
    return sc_calloc(1, sizeof(Suite));
}

static void input_fini(Input *in)
{
    pack_free(in->pack);
    bc_free(in->prog);
    sc_free((void *)in->tags);
    sc_free(in->label);
}

void suite_free(Suite *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_in; i++)
        input_fini(&s->in[i]);
    sc_free(s->in);
    sc_free(s->e);
    sc_free(s->from);
    sc_free(s);
}

/* The entry of a standalone .scb: its metadata, as a pack would list it. */
static bool scb_entry(Input *in, PackEntry *o)
{
    const BcProgram *p = in->prog;
    memset(o, 0, sizeof *o);
    o->prog = p;
    o->name = p->str[p->meta.name].s;
    o->source = p->str[p->meta.source].s;
    BcVal v = bc_val(p, p->meta.prompt);
    if (v.tag == BC_V_STR) {
        o->prompt = p->str[v.n].s;
        o->prompt_len = p->str[v.n].len;
    }
    v = bc_val(p, p->meta.tags);
    uint32_t n = v.tag == BC_V_ARRAY ? v.n : 0;
    in->tags = sc_calloc(n ? n : 1, sizeof *in->tags);
    if (!in->tags)
        return false;
    const unsigned char *q = v.p;
    for (uint32_t k = 0; k < n; k++) {
        BcVal t;
        q = bc_val_decode(p, q, &t);
        in->tags[k] = p->str[t.n].s;   /* the verifier made tags strings */
    }
    o->tags = in->tags;
    o->n_tags = n;
    o->hash = p->checksum;
    o->code_size = p->content_size;
    o->scb_major = p->version_major;
    o->scb_minor = p->version_minor;
    o->scb_flags = p->flags;
    return true;
}

int suite_add_memory(Suite *s, const void *data, size_t len, const char *label, SuiteErr *err)
{
    Input in;
    memset(&in, 0, sizeof in);
    if (pack_is_pack(data, len)) {
        PackError pe;
        memset(&pe, 0, sizeof pe);
        PackErrCode c = pack_load(data, len, NULL, &in.pack, &pe);
        if (c)
            return fail(err, c == PACK_ERR_NOMEM ? SC_RUNTIME : SC_REJECTED, pack_err_name(c), pe.entry, "%s",
                        pe.msg[0] ? pe.msg : pack_err_text(c));
    } else {
        BcError be;
        memset(&be, 0, sizeof be);
        BcErrCode c = bc_load(data, len, NULL, &in.prog, &be);
        if (c)
            return fail(err, c == BC_ERR_NOMEM ? SC_RUNTIME : SC_REJECTED, bc_err_name(c), -1, "%s",
                        be.msg[0] ? be.msg : "rejected");
    }
    uint32_t add = in.pack ? in.pack->n_entries : 1;
    Input *ni = sc_realloc(s->in, (s->n_in + 1) * sizeof *ni);
    if (ni)
        s->in = ni;
    PackEntry *ne = ni ? sc_realloc(s->e, ((size_t)s->n + add) * sizeof *ne) : NULL;
    if (ne)
        s->e = ne;
    uint32_t *nf = ne ? sc_realloc(s->from, ((size_t)s->n + add) * sizeof *nf) : NULL;
    if (nf)
        s->from = nf;
    in.label = sc_strdup(label ? label : "<memory>");
    if (!nf || !in.label || (in.prog && !scb_entry(&in, &s->e[s->n]))) {
        input_fini(&in);
        return fail(err, SC_RUNTIME, "NOMEM", -1, "out of memory");
    }
    if (in.pack)
        memcpy(&s->e[s->n], in.pack->entries, add * sizeof *s->e);
    /* Names are unique in a pack; across inputs a name must stay unique
    ** too, or selecting and routing by name would be ambiguous. */
    for (uint32_t k = 0; k < add; k++) {
        int32_t dup = suite_find(s, s->e[s->n + k].name);
        if (dup >= 0) {
            int st = fail(err, SC_USAGE, "DUPLICATE", in.pack ? (int32_t)k : -1,
                          "scenario '%s' has the same name as one in %s", s->e[s->n + k].name, s->in[s->from[dup]].label);
            input_fini(&in);
            return st;
        }
    }
    for (uint32_t k = 0; k < add; k++)
        s->from[s->n + k] = (uint32_t)s->n_in;
    s->in[s->n_in++] = in;
    s->n += add;
    return 0;
}

int suite_add_file(Suite *s, const char *path, SuiteErr *err)
{
    char *data = NULL;
    size_t len = 0;
    int e = file_read_all(path, SUITE_READ_MAX, &data, &len);
    if (e == EFBIG)
        return fail(err, SC_REJECTED, "SIZE", -1, "file is larger than %zu bytes", SUITE_READ_MAX);
    if (e == ENOMEM)
        return fail(err, SC_RUNTIME, "NOMEM", -1, "out of memory");
    if (e)
        return fail(err, SC_IO, "IO", -1, "%s", strerror(e));
    int st = suite_add_memory(s, data, len, path, err);
    sc_free(data);
    return st;
}

uint32_t suite_count(const Suite *s)
{
    return s->n;
}

const PackEntry *suite_entry(const Suite *s, uint32_t i)
{
    return &s->e[i];
}

const char *suite_entry_input(const Suite *s, uint32_t i)
{
    return s->in[s->from[i]].label;
}

const Pack *suite_pack(const Suite *s)
{
    return s->n_in == 1 ? s->in[0].pack : NULL;
}

int32_t suite_find_n(const Suite *s, const char *name, size_t len)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (strlen(s->e[i].name) == len && memcmp(s->e[i].name, name, len) == 0)
            return (int32_t)i;
    return -1;
}

int32_t suite_find(const Suite *s, const char *name)
{
    return suite_find_n(s, name, strlen(name));
}

const char *suite_nearest_name(const Suite *s, const char *name)
{
    size_t best = SIZE_MAX;
    const char *near = NULL;
    for (uint32_t i = 0; i < s->n; i++) {
        size_t d = text_levenshtein(s->e[i].name, strlen(s->e[i].name), name, strlen(name));
        if (d < best)
            best = d, near = s->e[i].name;
    }
    return best <= 3 ? near : NULL;
}

int32_t suite_best_prompt(const Suite *s, const uint32_t *among, size_t n, const char *text, size_t len,
                          size_t *distance)
{
    if (!among)
        n = s->n;
    if (n == 0)
        return -1;
    int32_t best = -1;
    size_t bd = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t i = among ? among[k] : (uint32_t)k;
        const PackEntry *e = &s->e[i];
        if (!e->prompt)
            continue;
        size_t d = text_levenshtein_cut(e->prompt, e->prompt_len, text, len, SUITE_PROMPT_CHARS);
        if (best < 0 || d < bd)
            best = (int32_t)i, bd = d;
    }
    if (best < 0)
        best = (int32_t)(among ? among[0] : 0), bd = 0;
    if (distance)
        *distance = bd;
    return best;
}

static bool has_tag(const PackEntry *e, const SuiteQuery *q)
{
    for (size_t k = 0; k < q->n_tags; k++)
        for (uint32_t t = 0; t < e->n_tags; t++)
            if (strcmp(e->tags[t], q->tags[k]) == 0)
                return true;
    return false;
}

/* Entry e is a variant of the scenario called name: it is named
** "name@V" and tagged "variant:V" (scc --variant; docs/rules.md). */
static bool variant_of_name(const PackEntry *e, const char *name)
{
    size_t nl = strlen(name);
    if (strncmp(e->name, name, nl) != 0 || e->name[nl] != '@')
        return false;
    for (uint32_t t = 0; t < e->n_tags; t++)
        if (strncmp(e->tags[t], "variant:", 8) == 0 && strcmp(e->tags[t] + 8, e->name + nl + 1) == 0)
            return true;
    return false;
}

/* --scenario NAME: the entry of that name, or when there is none, the
** variants of the scenario NAME (the -D defines then choose among them). */
static bool name_selects(const Suite *s, const PackEntry *e, const char *name)
{
    if (strcmp(e->name, name) == 0)
        return true;
    return !strchr(name, '@') && suite_find(s, name) < 0 && variant_of_name(e, name);
}

/* Appends to err->msg what the suite offers, so a selection that matched
** nothing says what would have: " (tags: x, y; scenarios: a, b)", cut
** with "..." where the message is full.  Tags once each, in first-seen
** order, first: there are fewer of them. */
static void offer(const Suite *s, SuiteErr *err)
{
    if (!err)
        return;
    char *m = err->msg;
    size_t cap = sizeof err->msg - 4, len = strlen(m);   /* room for "..." */
    bool cut = false;
#define PUT(...) do { \
        if (!cut) { \
            int w_ = snprintf(m + len, cap - len, __VA_ARGS__); \
            if (w_ < 0 || (size_t)w_ >= cap - len) cut = true; else len += (size_t)w_; \
        } \
    } while (0)
    size_t tags = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        for (uint32_t t = 0; t < s->e[i].n_tags; t++) {
            const char *tag = s->e[i].tags[t];
            bool seen = false;
            for (uint32_t j = 0; j <= i && !seen; j++)
                for (uint32_t u = 0; u < (j == i ? t : s->e[j].n_tags) && !seen; u++)
                    seen = strcmp(s->e[j].tags[u], tag) == 0;
            if (!seen)
                PUT("%s %s", tags++ ? "," : " (tags:", tag);
        }
    }
    PUT("%s", tags ? "; scenarios:" : " (no tags; scenarios:");
    for (uint32_t i = 0; i < s->n; i++)
        PUT("%s %s", i ? "," : "", s->e[i].name);
    PUT(")");
#undef PUT
    if (cut)
        snprintf(m + len, sizeof err->msg - len, "...");
}

int suite_select(const Suite *s, const SuiteQuery *q, uint32_t **out, size_t *n_out, SuiteErr *err)
{
    *out = NULL;
    *n_out = 0;
    for (size_t k = 0; k < q->n_names; k++) {
        bool any = false;
        for (uint32_t i = 0; i < s->n && !any; i++)
            any = name_selects(s, &s->e[i], q->names[k]);
        if (!any) {
            fail(err, SC_USAGE, "NAME", -1, "no scenario named '%s'", q->names[k]);
            offer(s, err);
            return SC_USAGE;
        }
    }
    uint32_t *v = sc_calloc(s->n ? s->n : 1, sizeof *v);
    if (!v)
        return fail(err, SC_RUNTIME, "NOMEM", -1, "out of memory");
    size_t m = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (q->allowed && !q->allowed[i])
            continue;
        bool keep = q->n_names == 0;
        for (size_t k = 0; k < q->n_names && !keep; k++)
            keep = name_selects(s, &s->e[i], q->names[k]);
        if (keep && q->n_tags)
            keep = has_tag(&s->e[i], q);
        if (keep)
            v[m++] = i;
    }
    /* A selection that chooses nothing is a mistake (a misspelt tag), not
    ** an empty success; only a shard of a small suite may be empty. */
    if (m == 0 && (q->n_tags || q->n_names) && s->n) {
        sc_free(v);
        char want[200];
        size_t wl = 0;
        want[0] = 0;
        for (size_t k = 0; k < q->n_names && wl < sizeof want; k++)
            wl += (size_t)snprintf(want + wl, sizeof want - wl, "%s'%s'", wl ? ", " : "", q->names[k]);
        for (size_t k = 0; k < q->n_tags && wl < sizeof want; k++)
            wl += (size_t)snprintf(want + wl, sizeof want - wl, "%stag '%s'", wl ? ", " : "", q->tags[k]);
        fail(err, SC_USAGE, "EMPTY", -1, "the selection (%s) matches no scenario", want);
        offer(s, err);
        return SC_USAGE;
    }
    if (q->prompt && m) {
        v[0] = (uint32_t)suite_best_prompt(s, v, m, q->prompt, strlen(q->prompt), NULL);
        m = 1;
    }
    if (q->shard_n && q->weights && m) {
        /* longest first, each to the least loaded shard: keep ours */
        uint32_t *ord = sc_malloc(m * sizeof *ord);
        double *load = sc_calloc(q->shard_n, sizeof *load);
        bool *mine = sc_calloc(s->n ? s->n : 1, sizeof *mine);
        if (!ord || !load || !mine) {
            sc_free(ord);
            sc_free(load);
            sc_free(mine);
            sc_free(v);
            return fail(err, SC_RUNTIME, "NOMEM", -1, "out of memory");
        }
        memcpy(ord, v, m * sizeof *ord);
        for (size_t a = 1; a < m; a++) {    /* insertion sort: stable, by weight descending */
            uint32_t x = ord[a];
            size_t b = a;
            while (b > 0 && q->weights[ord[b - 1]] < q->weights[x]) {
                ord[b] = ord[b - 1];
                b--;
            }
            ord[b] = x;
        }
        for (size_t k = 0; k < m; k++) {
            unsigned best = 0;
            for (unsigned j = 1; j < q->shard_n; j++)
                if (load[j] < load[best])
                    best = j;
            load[best] += q->weights[ord[k]];
            mine[ord[k]] = best == q->shard_i - 1;
        }
        size_t w = 0;
        for (size_t k = 0; k < m; k++)
            if (mine[v[k]])
                v[w++] = v[k];
        m = w;
        sc_free(ord);
        sc_free(load);
        sc_free(mine);
    } else if (q->shard_n) {
        size_t w = 0;
        for (size_t k = 0; k < m; k++)
            if (k % q->shard_n == q->shard_i - 1)
                v[w++] = v[k];
        m = w;
    }
    *out = v;
    *n_out = m;
    return 0;
}
