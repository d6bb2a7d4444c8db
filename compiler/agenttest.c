/* SPDX-License-Identifier: MIT */
/* agenttest.c - shared by the ElizaOS and Yao front ends (agenttest.h);
** its diagnostics are the front ends' kit's (fe_kit.h). */
#include "agenttest.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fe_kit.h"
#include "formats/agentcheck.h"
#include "yaml_value.h"

/* ---- diagnostics: the front ends' kit (fe_kit.h) with the line offset ---- */

static FeDiag fe_of(const At *t) { return (FeDiag){ .d = t->d, .file = t->file, .line_offset = t->line_offset }; }

/* The body of at_err, at_warn and at_note: the arguments after fmt
** reported at n with level and flag. */
#define AT_REPORT(level, flag)                          \
    do {                                                \
        FeDiag f_ = fe_of(t);                           \
        va_list ap_;                                    \
        va_start(ap_, fmt);                             \
        fe_vreport(&f_, (level), (flag), n, fmt, ap_);  \
        va_end(ap_);                                    \
    } while (0)

void at_err(At *t, const YNode *n, const char *fmt, ...) { AT_REPORT(DIAG_ERROR, NULL); }

void at_warn(At *t, const char *flag, const YNode *n, const char *fmt, ...) { AT_REPORT(DIAG_WARNING, flag); }

void at_note(At *t, const YNode *n, const char *fmt, ...) { AT_REPORT(DIAG_NOTE, NULL); }

bool at_suggest(At *t, const YNode *n, const char *word, const char *const *list)
{
    FeDiag f = fe_of(t);
    return fe_suggest(&f, n, word, list);
}

void at_unknown_type(At *t, const YNode *n, const char *ty, int dialect, const char *what, const char *who)
{
    at_err(t, n, "unknown %s '%s'", what, ty);
    const char *types[AC__UNKNOWN + 1];
    ac_dialect_names((AcDialect)dialect, types, sizeof types / sizeof types[0]);
    at_suggest(t, n, ty, types);
    char list[600] = "";
    for (size_t i = 0; types[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", types[i]);
    at_note(t, n, "%s knows: %s", who, list);
}

/* ---- getters ---- */

void at_check_keys(At *t, const YNode *map, const char *what, const char *const *keys)
{
    FeDiag f = fe_of(t);
    fe_unknown_keys(&f, map, what, keys, NULL, t->dialect);
}

const YNode *at_req(At *t, const YNode *map, const char *key, const char *what)
{
    const YNode *v = at_is_map(map) ? ymap_get(map, key) : NULL;
    if (!v && at_is_map(map))
        at_err(t, map, "%s needs '%s' (required by %s)", what, key, t->dialect);
    return v;
}

/* The value at key of map (required: an error when it is missing) when it
** is of the kind is() accepts; else an error naming want, and NULL. */
static const YNode *at_kind(At *t, const YNode *map, const char *key, bool required, const char *what,
                            bool (*is)(const YNode *), const char *want)
{
    const YNode *v = required ? at_req(t, map, key, what) : at_is_map(map) ? ymap_get(map, key) : NULL;
    if (v && !is(v)) {
        at_err(t, v, "'%s' in %s must be %s, not %s", key, what, want, ykind_name(v));
        return NULL;
    }
    return v;
}

const YNode *at_str(At *t, const YNode *map, const char *key, bool required, const char *what)
{
    return at_kind(t, map, key, required, what, at_is_str, "a string");
}

const YNode *at_bool(At *t, const YNode *map, const char *key, const char *what)
{
    return at_kind(t, map, key, false, what, at_is_bool, "true or false");
}

const YNode *at_int(At *t, const YNode *map, const char *key, bool required, int64_t lo, int64_t hi,
                    const char *what)
{
    const YNode *v = at_kind(t, map, key, required, what, at_is_int, "an integer");
    int64_t i = v ? yint(v) : 0;
    if (v && (i < lo || i > hi)) {
        at_err(t, v, "'%s' in %s must be %" PRId64 "..%" PRId64 ", not %" PRId64, key, what, lo, hi, i);
        return NULL;
    }
    return v;
}

const YNode *at_num(At *t, const YNode *map, const char *key, double lo, double hi, const char *what)
{
    const YNode *v = at_kind(t, map, key, false, what, at_is_num, "a number");
    double f = v ? yfloat(v) : 0;
    if (v && !(f >= lo && f <= hi)) {
        at_err(t, v, "'%s' in %s must be %g..%g, not %s", key, what, lo, hi, v->u.s);
        return NULL;
    }
    return v;
}

const YNode *at_strs(At *t, const YNode *map, const char *key, bool required, uint32_t min_n, const char *what)
{
    const YNode *v = at_kind(t, map, key, required, what, at_is_seq, "a list of strings");
    if (!v)
        return NULL;
    bool ok = true;
    for (uint32_t i = 0; i < v->n; i++) {
        if (!at_is_str(&v->u.items[i])) {
            at_err(t, &v->u.items[i], "'%s' in %s must hold strings, not %s", key, what,
                   ykind_name(&v->u.items[i]));
            ok = false;
        }
    }
    if (ok && v->n < min_n) {
        at_err(t, v, "'%s' in %s needs at least %u entr%s", key, what, min_n, min_n == 1 ? "y" : "ies");
        ok = false;
    }
    return ok ? v : NULL;
}

const YNode *at_map(At *t, const YNode *map, const char *key, bool required, const char *what)
{
    return at_kind(t, map, key, required, what, at_is_map, "a mapping");
}

bool at_enum(At *t, const YNode *s, const char *what, const char *const *vals)
{
    if (!s)
        return false;
    if (at_is_str(s) && fe_in_list(s->u.s, vals))
        return true;
    char list[400] = "";
    for (size_t i = 0; vals[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s'", i ? ", " : "", vals[i]);
    at_err(t, s, "%s must be one of %s, not %s%s%s", what, list, at_is_str(s) ? "'" : "",
           s->kind == YN_SCALAR ? s->u.s : ykind_name(s), at_is_str(s) ? "'" : "");
    if (at_is_str(s))
        at_suggest(t, s, s->u.s, vals);
    return false;
}

/* ---- checks ---- */

static AtField *put(AtCheck *c, const char *key, char kind)
{
    if (c->n >= AT_MAX_FIELDS)
        return NULL;      /* the table has fewer fields than this: never reached */
    AtField *f = &c->f[c->n++];
    memset(f, 0, sizeof *f);
    f->key = key;
    f->kind = kind;
    return f;
}

void at_check_init(AtCheck *c, const char *type, const char *scope)
{
    c->n = 0;
    at_put_str(c, "type", type, strlen(type));
    at_put_str(c, "scope", scope, strlen(scope));
}

void at_put_node(AtCheck *c, const char *key, const YNode *n)
{
    AtField *f = n ? put(c, key, 'n') : NULL;
    if (f)
        f->node = n;
}

void at_put_str(AtCheck *c, const char *key, const char *s, size_t len)
{
    AtField *f = put(c, key, 's');
    if (f)
        f->s = s, f->len = len;
}

void at_put_bool(AtCheck *c, const char *key, bool v)
{
    AtField *f = put(c, key, 'b');
    if (f)
        f->i = v;
}

void at_put_int(AtCheck *c, const char *key, int64_t v)
{
    AtField *f = put(c, key, 'i');
    if (f)
        f->i = v;
}

bool at_pattern_ok(At *t, const YNode *n, bool case_sensitive)
{
    char err[160];
    /* as written first, so an offset in the message is the pattern's own */
    TermRegex *re = ac_regex_new(n->u.s, n->n, true, err, sizeof err);
    if (re && !case_sensitive) {
        term_regex_free(re);
        re = ac_regex_new(n->u.s, n->n, false, err, sizeof err);
    }
    if (re) {
        term_regex_free(re);
        return true;
    }
    at_err(t, n, "pattern '%s' does not compile in scc's linear-time regex engine: %s", n->u.s, err);
    at_note(t, n, "it supports literals, '.', classes, \\d \\w \\s and their negations, \\b \\B, groups, '|', "
                  "quantifiers, '^' '$' and a leading (?i) or (?m); no lookaround or backreferences");
    return false;
}

static void emit_op(At *t, const YNode *at, bool ok, const char *what)
{
    if (!ok)
        at_err(t, at, "internal error emitting %s: %s", what, bcb_error(t->b) ? bcb_error(t->b) : "out of memory");
}

void at_emit_eval(At *t, const AtCheck *c, const YNode *at)
{
    if (t->check_only)
        return;
    BcBuilder *b = t->b;
    bcb_val_begin(b);
    bcb_val_map(b, (uint32_t)c->n);
    for (int i = 0; i < c->n; i++) {
        const AtField *f = &c->f[i];
        bcb_val_key(b, bcb_cstr(b, f->key));
        switch (f->kind) {
        case 'n': yaml_value_emit(b, f->node); break;
        case 's': bcb_val_str(b, bcb_str(b, f->s, f->len)); break;
        case 'b': bcb_val_bool(b, f->i != 0); break;
        default: bcb_val_int(b, f->i); break;
        }
    }
    uint32_t v = bcb_val_end(b);
    emit_op(t, at, bcb_op(b, OP_EVAL, 0, at ? at->line + t->line_offset : 0, at ? at->col : 0, v), "EVAL");
}

void at_emit_case(At *t, const char *id, size_t id_len, const char *type, uint32_t settings, const YNode *at)
{
    BcBuilder *b = t->b;
    uint32_t ids = bcb_str(b, id, id_len);
    uint32_t types = bcb_cstr(b, type);
    emit_op(t, at, bcb_op(b, OP_CASE, 0, at ? at->line + t->line_offset : 0, at ? at->col : 0, ids, types, settings),
            "CASE");
}

void at_emit_input(At *t, const char *text, size_t len, uint32_t input, uint32_t extras, const YNode *at)
{
    BcBuilder *b = t->b;
    uint32_t null = bcb_null(b);
    uint32_t texts = bcb_str(b, text, len);
    emit_op(t, at, bcb_op(b, OP_USER_INPUT, 0, at ? at->line + t->line_offset : 0, at ? at->col : 0, null, texts,
                          input, extras), "USER_INPUT");
}
