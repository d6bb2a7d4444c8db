/* SPDX-License-Identifier: MIT */
/* lower_util.c - the Scenario-Format front end's helpers (lower_int.h):
** reading typed fields of the tree, values and ops on the playback clock
** (with the spec clock's pending ops), referenced paths. */
#include "lower_int.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/vformat.h"
#include "fe_kit.h"
#include "yaml_value.h"

/* ------------------------------------------------------------------ */
/* reading the tree                                                   */


static const char *const NO_KEYS[] = { NULL };

/* Warns about every key of map that is neither in known nor in also. */
void lw_check_keys2(L *l, const YNode *map, const char *what,
                       const char *const *known, const char *const *also)
{
    fe_unknown_keys(&l->fe, map, what, known, also, NULL);
}

void lw_check_keys(L *l, const YNode *map, const char *what, const char *const *known)
{
    lw_check_keys2(l, map, what, known, NO_KEYS);
}

const char *lw_a_or_an(const char *w) { return strchr("aeiou", w[0]) ? "an" : "a"; }

void lw_want_kind(L *l, const YNode *n, const char *what, const char *expected)
{
    const char *got = ykind_name(n);
    fe_err(&l->fe, n, "%s must be %s %s, not %s %s", what, lw_a_or_an(expected), expected, lw_a_or_an(got), got);
}

/* A text field: any non-null scalar, taken verbatim (a plain `2024` label
** is text here).  Returns NULL (after an error when required) otherwise. */
const YNode *lw_get_text(L *l, const YNode *map, const char *key, bool required, const char *what)
{
    const YNode *n = ymap_get(map, key);
    if (!n || is_null(n)) {
        if (required)
            fe_err(&l->fe, n ? n : map, "%s needs '%s'", what, key);
        return NULL;
    }
    if (!is_scalar(n)) {
        char w[128];
        snprintf(w, sizeof w, "'%s' in %s", key, what);
        lw_want_kind(l, n, w, "string");
        return NULL;
    }
    return n;
}

bool lw_uint_of(L *l, const YNode *n, uint64_t *out, const char *what_fmt, ...)
{
    int64_t v = yint(n);
    if (is_scalar(n) && n->type == YT_INT && v >= 0 && v <= (int64_t)1 << 53) {
        *out = (uint64_t)v;
        return true;
    }
    char what[128];
    SC_VFORMAT(what, sizeof what, what_fmt);
    if (is_scalar(n) && n->type == YT_INT)
        fe_err(&l->fe, n, "%s must be a whole number of milliseconds from 0 to 2^53, not %lld",
               what, (long long)v);
    else if (is_scalar(n) && n->type == YT_FLOAT)
        fe_err(&l->fe, n, "%s must be a whole number, not '%s'", what, n->u.s);
    else
        lw_want_kind(l, n, what, "non-negative integer");
    return false;
}

bool lw_get_uint(L *l, const YNode *map, const char *key, bool required,
                    const char *what, uint64_t *out)
{
    const YNode *n = ymap_get(map, key);
    if (!n) {
        if (required)
            fe_err(&l->fe, map, "%s needs '%s'", what, key);
        return false;
    }
    return lw_uint_of(l, n, out, "'%s' in %s", key, what);
}

/* Booleans: absent -> dflt; true/false; anything else is an error. */
bool lw_get_bool(L *l, const YNode *map, const char *key, bool dflt, const char *what)
{
    const YNode *n = ymap_get(map, key);
    if (!n || is_null(n))
        return dflt;
    if (is_scalar(n) && n->type == YT_BOOL)
        return ybool(n);
    char w[128];
    snprintf(w, sizeof w, "'%s' in %s", key, what);
    lw_want_kind(l, n, w, "boolean");
    return dflt;
}

/* Checks that a text field is one of the allowed words. */
void lw_check_enum(L *l, const YNode *n, const char *what, const char *const *allowed, bool error)
{
    if (!n || fe_in_list(n->u.s, allowed))
        return;
    char list[256] = "";
    for (size_t i = 0; allowed[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, allowed[i], sizeof list - strlen(list) - 1);
    }
    if (error)
        fe_err(&l->fe, n, "%s '%s' is not one of %s", what, n->u.s, list);
    else
        fe_warn(&l->fe, "nonstandard", n, "%s '%s' is not one of %s", what, n->u.s, list);
    fe_suggest(&l->fe, n, n->u.s, allowed);
}

/* ------------------------------------------------------------------ */
/* values                                                             */

uint32_t lw_str_of(L *l, const YNode *n) { return bcb_str(l->b, n->u.s, n->n); }

uint32_t lw_val_of(L *l, const YNode *n)
{
    if (!n)
        return l->null_val;
    bcb_val_begin(l->b);
    yaml_value_emit(l->b, n);
    return bcb_val_end(l->b);
}

/* Compact JSON of a subtree, for display text (map keys in source order). */
void lw_ynode_json(Buf *b, const YNode *n)
{
    if (is_null(n)) {
        buf_puts(b, "null");
        return;
    }
    switch ((YKind)n->kind) {
    case YN_SCALAR: {
        double f = n->type == YT_FLOAT ? yfloat(n) : 0;
        if (n->type == YT_STR)
            buf_json_str(b, n->u.s, n->n);
        else if (n->type == YT_FLOAT && (f != f || f * 0 != 0))
            buf_puts(b, "null");
        else if (n->type == YT_FLOAT)
            buf_printf(b, "%.17g", f);
        else if (n->type == YT_INT)
            buf_printf(b, "%lld", (long long)yint(n));
        else
            buf_puts(b, ybool(n) ? "true" : "false");
        break;
    }
    case YN_SEQ:
        buf_putc(b, '[');
        for (uint32_t i = 0; i < n->n; i++) {
            if (i)
                buf_putc(b, ',');
            lw_ynode_json(b, &n->u.items[i]);
        }
        buf_putc(b, ']');
        break;
    case YN_MAP:
        buf_putc(b, '{');
        for (uint32_t i = 0; i < n->n; i++) {
            if (i)
                buf_putc(b, ',');
            buf_json_str(b, n->u.pairs[i].key.u.s, n->u.pairs[i].key.n);
            buf_putc(b, ':');
            lw_ynode_json(b, &n->u.pairs[i].val);
        }
        buf_putc(b, '}');
        break;
    }
}

uint32_t lw_cs(L *l, const char *s) { return bcb_cstr(l->b, s); }

/* Emits op o at time t: the clock, unless a user event of the spec clock
** says otherwise. */
static void vop_at(L *l, uint64_t t, const YNode *at, BcOp o, va_list ap)
{
    uint32_t a[BC_MAX_OPERANDS] = { 0 };
    for (unsigned i = 0; i < bc_op_info[o].n_operands; i++)
        a[i] = va_arg(ap, uint32_t);
    uint32_t line = at ? at->line : 0, col = at ? at->col : 0;
    if (l->spec && o != OP_END) {
        if (l->n_pend == l->cap_pend) {
            size_t c = l->cap_pend ? l->cap_pend * 2 : 64;
            PendOp *np = sc_realloc(l->pend, c * sizeof *np);
            if (!np) {
                fe_err(&l->fe, at, "out of memory");
                return;
            }
            l->pend = np;
            l->cap_pend = c;
        }
        PendOp *p = &l->pend[l->n_pend];
        *p = (PendOp){ .t = t, .seq = l->n_pend, .op = o, .line = line, .col = col };
        memcpy(p->a, a, sizeof a);
        l->n_pend++;
        return;
    }
    if (!bcb_op(l->b, o, t, line, col, a[0], a[1], a[2], a[3], a[4]))
        fe_err(&l->fe, at, "internal error: %s", bcb_error(l->b) ? bcb_error(l->b) : "emit failed");
}

void lw_op(L *l, const YNode *at, BcOp o, ...)
{
    va_list ap;
    va_start(ap, o);
    vop_at(l, l->t, at, o, ap);
    va_end(ap);
}

void lw_op_at(L *l, uint64_t t, const YNode *at, BcOp o, ...)
{
    va_list ap;
    va_start(ap, o);
    vop_at(l, t, at, o, ap);
    va_end(ap);
}

/* Ops emitted (or, on the spec clock, collected) so far. */
size_t lw_ops_so_far(const L *l)
{
    return l->spec ? l->n_pend : bcb_n_ops(l->b);
}

static int pend_cmp(const void *x, const void *y)
{
    const PendOp *a = x, *b = y;
    return a->t < b->t ? -1 : a->t > b->t ? 1 : a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The spec clock: every collected op, in time order (ties in timeline
** order).  Returns the time of the last one (0 without any). */
uint64_t lw_flush_pending(L *l)
{
    qsort(l->pend, l->n_pend, sizeof *l->pend, pend_cmp);
    uint64_t last = 0;
    for (size_t i = 0; i < l->n_pend; i++) {
        const PendOp *p = &l->pend[i];
        if (!bcb_op(l->b, p->op, p->t, p->line, p->col, p->a[0], p->a[1], p->a[2], p->a[3], p->a[4]))
            diag_add(l->fe.d, DIAG_ERROR, l->fe.file, p->line, p->col, NULL, "internal error: %s",
                     bcb_error(l->b) ? bcb_error(l->b) : "emit failed");
        last = p->t;
    }
    sc_free(l->pend);
    l->pend = NULL;
    l->n_pend = l->cap_pend = 0;
    return last;
}

/* _meta of an event: inside the event mapping, or beside it in the item.
** `meta` is the reference implementation's spelling: accepted, warned. */
const YNode *lw_get_meta(L *l, const YNode *ev, const YNode *item)
{
    const char *const keys[] = { "_meta", "meta" };
    for (int w = 0; w < 2; w++) {
        const YNode *holder = w == 0 ? ev : item;
        for (int k = 0; k < 2; k++) {
            const YNode *m = is_map(holder) ? ymap_get(holder, keys[k]) : NULL;
            if (!m)
                continue;
            if (k == 1)
                fe_warn(&l->fe, "deprecated", m, "'meta' is the reference implementation's spelling; the spec says '_meta'");
            if (!is_map(m) && !is_null(m)) {
                lw_want_kind(l, m, "_meta", "mapping");
                return NULL;
            }
            return m;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* paths                                                              */

/* A path the scenario references: relative, inside the scenario folder. */
bool lw_check_rel_path(L *l, const YNode *n, const char *what, bool must_exist)
{
    const char *p = n->u.s;
    if (p[0] == '/') {
        fe_err(&l->fe, n, "%s '%s' is absolute; paths are relative to the scenario's folder", what, p);
        return false;
    }
    int depth = 0;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 2 && s[0] == '.' && s[1] == '.')
            depth--;
        else if (!(len == 0 || (len == 1 && s[0] == '.')))
            depth++;
        if (depth < 0) {
            fe_err(&l->fe, n, "%s '%s' leaves the scenario's folder", what, p);
            return false;
        }
        s += len + (e != NULL);
    }
    if (!must_exist)
        return true;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", l->o->base_dir ? l->o->base_dir : ".", p);
    struct stat st;
    if (stat(full, &st) != 0) {
        fe_err(&l->fe, n, "%s '%s' does not exist (looked for %s)", what, p, full);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        fe_err(&l->fe, n, "%s '%s' is not a regular file", what, p);
        return false;
    }
    return true;
}
