/* SPDX-License-Identifier: MIT */
/* eliza_matrix.c - ElizaOS scenario matrices (eliza_matrix.h). */
#include "eliza_matrix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "formats/bc.h"
#include "agenttest.h"
#include "dialect_eliza.h"
#include "fe_tables.h"

/* The keys this front end checks, shared with the schema generator (fe_tables.h). */
const char *const EZ_MATRIX_KEYS[] = { "name", "description", "base_scenario", "runs_per_combination", "matrix", NULL };
const char *const EZ_MATRIX_ENTRY_KEYS[] = { "parameter", "values", NULL };

bool eliza_matrix_detect(const YDoc *doc)
{
    const YNode *r = doc->root;
    return at_is_map(r) && !ymap_get(r, "timeline") && ymap_get(r, "base_scenario") && ymap_get(r, "matrix");
}

/* ---- parameter paths: `a.b[2].c` ---- */

typedef struct Seg {
    const char *key;            /* NULL: an index */
    size_t len, index;
} Seg;

/* Splits a path into at most cap segments; 0 when it is malformed. */
static size_t split_path(const char *p, Seg *v, size_t cap)
{
    size_t n = 0;
    while (*p) {
        if (n == cap)
            return 0;
        if (*p == '[') {
            char *end;
            errno = 0;
            unsigned long i = strtoul(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || errno || p[1] == '-' || p[1] == '+' || p[1] == ' ')
                return 0;
            v[n++] = (Seg){ NULL, 0, (size_t)i };
            p = end + 1;
        } else {
            size_t k = strcspn(p, ".[");
            if (k == 0)
                return 0;
            v[n++] = (Seg){ p, k, 0 };
            p += k;
        }
        if (*p == '.') {
            if (!p[1] || p[1] == '.' || p[1] == '[')
                return 0;
            p++;
        }
    }
    return n;
}

/* The node at the path, or NULL with what is missing in why. */
static const YNode *walk(const YNode *n, const Seg *s, size_t ns, char *why, size_t cap)
{
    for (size_t i = 0; i < ns; i++) {
        if (s[i].key) {
            const YNode *c = at_is_map(n) ? ymap_getn(n, s[i].key, s[i].len) : NULL;
            if (!c) {
                snprintf(why, cap, at_is_map(n) ? "the base scenario has no '%.*s' there"
                                                : "'%.*s' is a key, but the base scenario has %s there",
                         (int)s[i].len, s[i].key, at_is_map(n) ? "" : ykind_name(n));
                return NULL;
            }
            n = c;
        } else {
            if (!at_is_seq(n) || s[i].index >= n->n) {
                if (at_is_seq(n))
                    snprintf(why, cap, "[%zu] is past the end of a list of %u", s[i].index, (unsigned)n->n);
                else
                    snprintf(why, cap, "[%zu] is an index, but the base scenario has %s there", s[i].index,
                             n ? ykind_name(n) : "nothing");
                return NULL;
            }
            n = &n->u.items[s[i].index];
        }
    }
    return n;
}

bool eliza_matrix_load(const YDoc *doc, const char *base_dir, const char *shown_dir, Arena *arena, Diags *d,
                       ElizaMatrix *m)
{
    At at = { .d = d, .file = doc->file, .dialect = "ElizaOS", .compat = "eliza-compat" };
    At *t = &at;
    size_t errors = d->errors;
    const YNode *root = doc->root;
    memset(m, 0, sizeof *m);
    m->doc = doc;
    const char *const *keys = EZ_MATRIX_KEYS;
    const char *W = "an ElizaOS matrix";
    at_check_keys(t, root, "the matrix", keys);
    m->name = at_str(t, root, "name", true, W);
    if (m->name && m->name->n == 0)
        at_err(t, m->name, "the matrix's name must not be empty");
    else if (m->name && !bc_text_ok(m->name->u.s, m->name->n))   /* it names every scenario of the pack */
        at_err(t, m->name, "the matrix's name has a control character");
    at_str(t, root, "description", false, W);
    const YNode *base = at_str(t, root, "base_scenario", true, W);
    const YNode *runs = at_int(t, root, "runs_per_combination", false, 1, ELIZA_MATRIX_MAX, W);
    m->runs = runs ? (size_t)yint(runs) : 1;
    const YNode *mx = at_req(t, root, "matrix", W);
    if (mx && (!at_is_seq(mx) || mx->n == 0)) {
        at_err(t, mx, "'matrix' must be a list of at least one {parameter, values}");
        mx = NULL;
    }
    m->params = mx;
    m->combinations = 1;
    for (uint32_t i = 0; mx && i < mx->n; i++) {
        const YNode *p = &mx->u.items[i];
        if (!at_is_map(p)) {
            at_err(t, p, "a matrix entry must be {parameter, values}, not %s", ykind_name(p));
            continue;
        }
        const char *const *pk = EZ_MATRIX_ENTRY_KEYS;
        at_check_keys(t, p, "a matrix entry", pk);
        const YNode *path = at_str(t, p, "parameter", true, "a matrix entry");
        Seg seg[64];
        if (path && split_path(path->u.s, seg, 64) == 0)
            at_err(t, path, "'%s' is not a parameter path (keys joined by '.', list indexes as [N], e.g. "
                            "run[0].input)", path->u.s);
        for (uint32_t j = 0; path && j < i; j++) {
            const YNode *o = ymap_get(&mx->u.items[j], "parameter");
            if (at_is_str(o) && strcmp(o->u.s, path->u.s) == 0)
                at_err(t, path, "parameter '%s' is varied twice in this matrix", path->u.s);
        }
        const YNode *vals = ymap_get(p, "values");
        if (!vals)
            at_err(t, p, "a matrix entry needs 'values'");
        else if (!at_is_seq(vals) || vals->n == 0)
            at_err(t, vals, "'values' must be a list of at least one value");
        else if (m->combinations <= ELIZA_MATRIX_MAX)
            m->combinations *= vals->n;
    }
    m->scenarios = m->combinations * m->runs;
    if (d->errors == errors && m->scenarios > ELIZA_MATRIX_MAX)
        at_err(t, mx, "this matrix makes %s%zu scenarios; at most %d can be compiled",
               m->combinations > ELIZA_MATRIX_MAX ? "over " : "", m->scenarios, ELIZA_MATRIX_MAX);
    if (!base)
        return false;

    /* the base scenario, relative to the matrix's folder */
    const char *b = base->u.s;
    size_t pl = strlen(base_dir) + strlen(b) + 2, sl = strlen(shown_dir) + strlen(b) + 2;
    char *path = arena_alloc(arena, pl), *shown = arena_alloc(arena, sl);
    if (!path || !shown) {
        d->oom = true;
        return false;
    }
    snprintf(path, pl, "%s%s%s", b[0] == '/' ? "" : base_dir, b[0] == '/' || !base_dir[0] ? "" : "/", b);
    snprintf(shown, sl, "%s%s%s", b[0] == '/' ? "" : shown_dir, b[0] == '/' || !shown_dir[0] ? "" : "/", b);
    char *src = NULL;
    size_t len = 0;
    int e = file_read_all(path, (size_t)64 << 20, &src, &len);
    if (e) {
        at_err(t, base, "cannot read the base scenario '%s': %s", shown, e == EFBIG ? "file too large" : strerror(e));
        return false;
    }
    char *kept = arena_alloc(arena, len + 1);
    if (kept) {
        memcpy(kept, src, len);
        kept[len] = 0;
    }
    sc_free(src);
    if (!kept) {
        d->oom = true;
        return false;
    }
    m->base_path = path;
    m->base_rel = b;
    const char *name = diags_keep(d, shown);   /* its diagnostics outlive the arena */
    if (!name)
        return false;
    if (!yaml_parse(kept, len, name, arena, d, &m->base))
        return false;
    if (!at_is_map(m->base.root) || eliza_matrix_detect(&m->base)) {
        at_err(t, base, "the base scenario '%s' is not an ElizaOS scenario%s", name,
               at_is_map(m->base.root) ? " (it is a matrix)" : "");
        return false;
    }
    /* every path is in the base */
    for (uint32_t i = 0; mx && i < mx->n; i++) {
        const YNode *path_n = ymap_get(&mx->u.items[i], "parameter");
        Seg seg[64];
        size_t ns = at_is_str(path_n) ? split_path(path_n->u.s, seg, 64) : 0;
        if (!ns)
            continue;           /* said above */
        char why[300];
        if (!walk(m->base.root, seg, ns, why, sizeof why))
            at_err(t, path_n, "parameter '%s' is not in the base scenario '%s': %s", path_n->u.s, shown, why);
    }
    return d->errors == errors;
}

/* A copy of n (and everything under it) placed at line:col. */
static YNode *moved(Arena *a, const YNode *n, uint32_t line, uint32_t col)
{
    YNode *c = arena_alloc_aligned(a, sizeof *c, 4);
    if (!c)
        return NULL;
    *c = *n;
    c->line = line;
    c->col = col;
    if (n->kind == YN_SEQ && n->n) {
        YNode *items = arena_alloc_aligned(a, n->n * sizeof *items, 4);
        for (uint32_t i = 0; items && i < n->n; i++) {
            YNode *k = moved(a, &n->u.items[i], line, col);
            if (!k)
                return NULL;
            items[i] = *k;
        }
        c->u.items = items;
        if (!items)
            return NULL;
    } else if (n->kind == YN_MAP && n->n) {
        YPair *pairs = arena_alloc_aligned(a, n->n * sizeof *pairs, 4);
        for (uint32_t i = 0; pairs && i < n->n; i++) {
            YNode *v = moved(a, &n->u.pairs[i].val, line, col);
            if (!v)
                return NULL;
            pairs[i].key = n->u.pairs[i].key;
            pairs[i].key.line = line;
            pairs[i].key.col = col;
            pairs[i].val = *v;
        }
        c->u.pairs = pairs;
        if (!pairs)
            return NULL;
    }
    return c;
}

/* Puts val at the path below *n, copying the collections on the way so the
** base itself is left as it is.  False when out of memory. */
static bool put(Arena *a, YNode *n, const Seg *s, size_t ns, const YNode *val)
{
    if (ns == 0) {
        YNode *v = moved(a, val, n->line, n->col);   /* its errors show where the base had it */
        if (!v)
            return false;
        *n = *v;
        return true;
    }
    if (s->key) {
        YPair *pairs = arena_alloc_aligned(a, n->n * sizeof *pairs, 4);
        if (!pairs)
            return false;
        memcpy(pairs, n->u.pairs, n->n * sizeof *pairs);
        n->u.pairs = pairs;
        for (uint32_t i = 0; i < n->n; i++)
            if (pairs[i].key.n == s->len && memcmp(pairs[i].key.u.s, s->key, s->len) == 0)
                return put(a, &pairs[i].val, s + 1, ns - 1, val);
        return true;                /* checked by eliza_matrix_load: not reached */
    }
    YNode *items = arena_alloc_aligned(a, n->n * sizeof *items, 4);
    if (!items)
        return false;
    memcpy(items, n->u.items, n->n * sizeof *items);
    n->u.items = items;
    return put(a, &items[s->index], s + 1, ns - 1, val);
}

bool eliza_matrix_lower(const ElizaMatrix *m, size_t pick, const char *source_name, Arena *arena, BcBuilder *b,
                        Diags *d)
{
    size_t combo = (pick - 1) / m->runs, run = (pick - 1) % m->runs;
    uint32_t np = m->params->n;
    size_t *value = arena_alloc(arena, np * sizeof *value);
    YNode *root = arena_alloc_aligned(arena, sizeof *root, 4);
    if (!value || !root) {
        d->oom = true;
        return false;
    }
    *root = *m->base.root;
    /* odometer digits: the last parameter changes fastest */
    size_t rest = combo;
    for (uint32_t i = np; i-- > 0;) {
        const YNode *vals = ymap_get(&m->params->u.items[i], "values");
        value[i] = rest % vals->n;
        rest /= vals->n;
    }
    for (uint32_t i = 0; i < np; i++) {
        const YNode *pm = &m->params->u.items[i];
        Seg seg[64];
        size_t ns = split_path(ymap_get(pm, "parameter")->u.s, seg, 64);
        if (!put(arena, root, seg, ns, &ymap_get(pm, "values")->u.items[value[i]])) {
            d->oom = true;
            return false;
        }
    }
    /* what the combination sets, for the notes */
    char set[600] = "";
    for (uint32_t i = 0, k = 0; i < np && k + 1 < sizeof set; i++) {
        const YNode *pm = &m->params->u.items[i], *v = &ymap_get(pm, "values")->u.items[value[i]];
        k += (size_t)snprintf(set + k, sizeof set - k, "%s%s = %.60s%s", i ? ", " : "", ymap_get(pm, "parameter")->u.s,
                              v->kind == YN_SCALAR ? v->u.s : ykind_name(v), v->kind == YN_SCALAR && v->n > 60 ? "..." : "");
    }
    /* at most 1,000 bytes of the matrix's name, cut between characters */
    size_t nl = m->name->n > 1000 ? 1000 : m->name->n;
    while (nl && nl < m->name->n && ((unsigned char)m->name->u.s[nl] & 0xC0) == 0x80)
        nl--;
    char name[1200];
    if (m->runs > 1)
        snprintf(name, sizeof name, "%.*s@%zu.%zu", (int)nl, m->name->u.s, combo + 1, run + 1);
    else
        snprintf(name, sizeof name, "%.*s@%zu", (int)nl, m->name->u.s, combo + 1);
    ElizaPick ep = { .name = name, .matrix_name = m->name, .combination = (unsigned)combo + 1,
                     .run = (unsigned)run + 1, .params = m->params, .value = value };
    YDoc doc = m->base;
    doc.root = root;
    /* lowered into a Diags of its own, so each of its problems can be
    ** followed by a note saying which combination has it */
    Diags own;
    diags_init(&own);
    own.werror = d->werror;
    own.disabled = d->disabled;
    own.n_disabled = d->n_disabled;
    bool ok = eliza_lower_pick(&doc, source_name, &ep, b, &own);
    At at = { .d = d, .file = m->doc->file, .dialect = "ElizaOS", .compat = "eliza-compat" };
    for (size_t i = 0; i < own.n; i++) {
        const Diag *g = &own.v[i];
        diag_add(d, g->level, g->file, g->line, g->col, g->flag, "%s", g->msg);
        if (i + 1 == own.n || own.v[i + 1].level != DIAG_NOTE)     /* after the diagnostic's own notes */
            at_note(&at, m->name, "in scenario %zu of this matrix ('%s': %s)", pick, name, set);
    }
    d->oom |= own.oom;
    diags_fini(&own);
    return ok;
}
