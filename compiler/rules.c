/* SPDX-License-Identifier: MIT */
/* rules.c - the symbol table (-D, AH_SCENARIO_DEFINES) and `rules` resolution.
**
** Code map:
**   symtab_*        typed symbols, kept sorted by name (binary search)
**   cond_*          the condition language: `$name` or `$name OP literal`
**   merge           deep merge of configs (new arena maps, inputs untouched)
**   eval_block      one `rules` value: check every rule, pick the configs
**   resolve_*       the walk that evaluates live blocks and splices results
**   check_*         the walk over configs that were not chosen (checks only)
** Semantics and where they depart from the reference implementation:
** docs/rules.md. */
#include "rules.h"

#include "common/sc_alloc.h"
#include "common/vformat.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- symbols ---------------------------------------------------------- */

void symtab_init(Symtab *t) { memset(t, 0, sizeof *t); }

static void sym_free(Sym *s)
{
    sc_free(s->name);
    sc_free(s->s);
}

void symtab_fini(Symtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        sym_free(&t->v[i]);
    sc_free(t->v);
    memset(t, 0, sizeof *t);
}

static int name_cmp(const char *a, const char *b, size_t blen)
{
    int c = strncmp(a, b, blen);
    if (c)
        return c;
    return a[blen] ? 1 : 0;
}

/* Index of name, or ~index where it would be inserted. */
static size_t sym_find(const Symtab *t, const char *name, size_t len, bool *found)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = name_cmp(t->v[mid].name, name, len);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

const Sym *symtab_get(const Symtab *t, const char *name, size_t len)
{
    bool found;
    size_t i = sym_find(t, name, len, &found);
    return found ? &t->v[i] : NULL;
}

static bool name_start(int c) { return isalpha(c) || c == '_'; }
static bool name_char(int c) { return isalnum(c) || c == '_' || c == '.' || c == '-'; }

/* Takes ownership of sym's strings (frees them on failure). */
static bool sym_put(Symtab *t, Sym sym)
{
    bool found;
    size_t i = sym_find(t, sym.name, strlen(sym.name), &found);
    if (found) {
        sym_free(&t->v[i]);
        t->v[i] = sym;
        return true;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        Sym *v = sc_realloc(t->v, cap * sizeof *v);
        if (!v) {
            sym_free(&sym);
            return false;
        }
        t->v = v;
        t->cap = cap;
    }
    memmove(&t->v[i + 1], &t->v[i], (t->n - i) * sizeof *t->v);
    t->v[i] = sym;
    t->n++;
    return true;
}

/* A decimal int64 with an optional sign, nothing else (no spaces, no 0x). */
static bool parse_dec(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i == n)
        return false;
    for (size_t k = i; k < n; k++)
        if (s[k] < '0' || s[k] > '9')
            return false;
    char tmp[32];
    if (n >= sizeof tmp)
        return false;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    errno = 0;
    long long v = strtoll(tmp, NULL, 10);
    if (errno == ERANGE)
        return false;
    *out = (int64_t)v;
    return true;
}

static bool ieq(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n != m)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != b[i])
            return false;
    return true;
}

static bool define_n(Symtab *t, const char *def, size_t len, const char **why)
{
    const char *eq = memchr(def, '=', len);
    size_t nlen = eq ? (size_t)(eq - def) : len;
    if (nlen == 0) {
        *why = "empty symbol name";
        return false;
    }
    if (!name_start((unsigned char)def[0])) {
        *why = "invalid symbol name: expected a letter or '_' first, then letters, digits, '_', '.' or '-'";
        return false;
    }
    for (size_t i = 1; i < nlen; i++)
        if (!name_char((unsigned char)def[i])) {
            *why = "invalid symbol name: expected a letter or '_' first, then letters, digits, '_', '.' or '-'";
            return false;
        }
    Sym sym = { .name = sc_strndup(def, nlen), .type = SYM_BOOL, .b = true };
    if (!sym.name) {
        *why = "out of memory";
        return false;
    }
    if (eq) {
        const char *v = eq + 1;
        size_t vlen = len - nlen - 1;
        if (ieq(v, vlen, "true") || ieq(v, vlen, "false")) {
            sym.b = ieq(v, vlen, "true");
        } else if (parse_dec(v, vlen, &sym.i)) {
            sym.type = SYM_INT;
        } else {
            sym.type = SYM_STR;
            if (!(sym.s = sc_strndup(v, vlen))) {
                sym_free(&sym);
                *why = "out of memory";
                return false;
            }
        }
    }
    if (!sym_put(t, sym)) {
        *why = "out of memory";
        return false;
    }
    return true;
}

bool symtab_define(Symtab *t, const char *def, const char **why)
{
    return define_n(t, def, strlen(def), why);
}

bool symtab_define_list(Symtab *t, const char *list, const char **why)
{
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *s = p;
        while (n && isspace((unsigned char)*s))
            s++, n--;
        while (n && isspace((unsigned char)s[n - 1]))
            n--;
        if (n && !define_n(t, s, n, why))
            return false;
        if (!e)
            return true;
        p = e + 1;
    }
}

bool symtab_merge_missing(Symtab *dst, const Symtab *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const Sym *s = &src->v[i];
        if (symtab_get(dst, s->name, strlen(s->name)))
            continue;
        Sym c = *s;
        c.name = sc_strndup(s->name, strlen(s->name));
        c.s = s->s ? sc_strndup(s->s, strlen(s->s)) : NULL;
        if (!c.name || (s->s && !c.s)) {
            sym_free(&c);
            return false;
        }
        if (!sym_put(dst, c))
            return false;
    }
    return true;
}

/* ---- resolution state ------------------------------------------------- */

/* A collection that aliases share, once resolved.  An alias is a copy of
** the anchored node (yaml_tree.h) sharing its children array, which
** identifies the collection: the first copy resolved records its result,
** and the other copies take it instead of evaluating the blocks again. */
typedef struct Done {
    const void *orig;      /* the children array as parsed; NULL: free slot */
    YNode node;            /* the resolved node */
} Done;

typedef struct R {
    YDoc *doc;
    const Symtab *syms;
    Arena *arena;
    Diags *diags;
    bool failed;
    Done *done;            /* open addressing on orig, load at most 1/2 */
    size_t ndone, cap;
} R;

enum { RULES_MAX_DEPTH = 512 };

/* Keys whose values are free-form payloads: a `rules` key below them is
** data, not a rules block (docs/rules.md, "Payload keys"). */
#define PK(s) { s, sizeof s - 1 }
static const struct { const char *s; size_t n; } payload_keys[] = {
    PK("args"), PK("_meta"), PK("meta"), PK("details"), PK("expectedResponse"), PK("expectedPromptResponse"),
    PK("toolCall"), PK("clientCapabilities"), PK("agentCapabilities"), PK("result"), PK("data"),
    PK("contents"), PK("env"), PK("input"),
};
#undef PK

/* Asked for every key of every mapping: the lengths are known, so most
** keys are told apart without reading them (strlen per candidate was 4%
** of compiling a small scenario). */
static bool is_payload_key(const YNode *k)
{
    for (size_t i = 0; i < sizeof payload_keys / sizeof *payload_keys; i++)
        if (ytext_is(k, payload_keys[i].s, payload_keys[i].n))
            return true;
    return false;
}

static void err(R *r, const YNode *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err(R *r, const YNode *at, const char *fmt, ...)
{
    char msg[512];
    SC_VFORMAT(msg, sizeof msg, fmt);
    r->failed = true;
    diag_error(r->diags, r->doc->file, at ? at->line : 0, at ? at->col : 0, "%s", msg);
}

/* ---- conditions ------------------------------------------------------- */

typedef enum { OP_NONE, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE } CondOp;
typedef enum { LIT_INT, LIT_STR, LIT_BOOL } LitType;

static const char *const op_text[] = { "", "==", "!=", "<", "<=", ">", ">=" };
static const char *const lit_name[] = { "an integer", "a string", "a boolean" };
static const char *const sym_name[] = { "a boolean", "an integer", "a string" };

typedef struct Cond {
    const char *name;
    size_t nlen;
    CondOp op;
    size_t op_off, lit_off;
    LitType lt;
    int64_t i;
    bool b;
    const char *s;         /* unescaped (arena) */
    size_t slen;
} Cond;

/* Line and column of byte off of scalar n's text.  Exact when the scalar is
** written on one line with no escapes (the raw source then equals the value
** after the opening quote); otherwise the scalar's own position. */
static void scalar_pos(const R *r, const YNode *n, size_t off, uint32_t *line, uint32_t *col)
{
    *line = n->line;
    *col = n->col;
    const char *src = r->doc->src;
    size_t len = r->doc->src_len;
    if (!src || n->line == 0 ||
        (n->style != YS_PLAIN && n->style != YS_SINGLE && n->style != YS_DOUBLE))
        return;
    size_t i = 0;
    for (uint32_t l = 1; l < n->line; l++) {
        const char *nl = memchr(src + i, '\n', len - i);
        if (!nl)
            return;
        i = (size_t)(nl - src) + 1;
    }
    for (uint32_t c = 1; c < n->col; c++) {      /* columns count characters */
        if (i >= len || src[i] == '\n')
            return;
        i++;
        while (i < len && ((unsigned char)src[i] & 0xc0) == 0x80)
            i++;
    }
    size_t q = n->style == YS_PLAIN ? 0 : 1;
    char quote = n->style == YS_SINGLE ? '\'' : '"';
    if (q && (i >= len || src[i] != quote))
        return;
    if (len - i < q + n->n + q || memcmp(src + i + q, n->u.s, n->n) != 0 ||
        memchr(n->u.s, '\n', n->n) || (q && src[i + q + n->n] != quote))
        return;
    uint32_t chars = 0;
    for (size_t k = 0; k < off && k < n->n; k++)
        if (((unsigned char)n->u.s[k] & 0xc0) != 0x80)
            chars++;
    *col = n->col + (uint32_t)q + chars;
}

static void cond_err(R *r, const YNode *n, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void cond_err(R *r, const YNode *n, size_t off, const char *fmt, ...)
{
    char msg[512];
    SC_VFORMAT(msg, sizeof msg, fmt);
    uint32_t line, col;
    scalar_pos(r, n, off, &line, &col);
    r->failed = true;
    diag_error(r->diags, r->doc->file, line, col, "%s", msg);
}

static const char *char_show(char c)
{
    static _Thread_local char buf[8];
    if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
        snprintf(buf, sizeof buf, "\\x%02x", (unsigned char)c);
    else
        snprintf(buf, sizeof buf, "%c", c);
    return buf;
}

#define LIT_EXPECTED "an integer, a \"string\", a 'string', true or false"

/* Parses the text of a `when` scalar.  False (with a positioned error) on
** a malformed condition. */
static bool cond_parse(R *r, const YNode *n, Cond *c)
{
    const char *s = n->u.s;
    size_t len = n->n, i = 0;
    memset(c, 0, sizeof *c);
    while (i < len && isspace((unsigned char)s[i]))
        i++;
    if (i == len) {
        cond_err(r, n, i, "empty condition; expected '$name' or '$name OP literal'");
        return false;
    }
    if (s[i] != '$') {
        if (s[i] == '!')
            cond_err(r, n, i, "negation is not supported; expected '$name' or '$name OP literal' "
                              "(compare with false: '$name == false')");
        else
            cond_err(r, n, i, "expected '$' and a symbol name, found '%s'", char_show(s[i]));
        return false;
    }
    i++;
    if (i == len || !name_start((unsigned char)s[i])) {
        cond_err(r, n, i, "expected a symbol name after '$'");
        return false;
    }
    c->name = s + i;
    while (i < len && name_char((unsigned char)s[i]))
        i++;
    c->nlen = (size_t)(s + i - c->name);
    while (i < len && isspace((unsigned char)s[i]))
        i++;
    if (i == len)
        return true;                      /* existence test */
    c->op_off = i;
    char a = s[i], b = i + 1 < len ? s[i + 1] : 0;
    if (a == '=' && b == '=') c->op = OP_EQ, i += 2;
    else if (a == '!' && b == '=') c->op = OP_NE, i += 2;
    else if (a == '<' && b == '=') c->op = OP_LE, i += 2;
    else if (a == '>' && b == '=') c->op = OP_GE, i += 2;
    else if (a == '<') c->op = OP_LT, i += 1;
    else if (a == '>') c->op = OP_GT, i += 1;
    else {
        if (a == '=')
            cond_err(r, n, i, "expected a comparison operator (==, !=, <, <=, >, >=), found '='; "
                              "did you mean '=='?");
        else if (a == '&' || a == '|')
            cond_err(r, n, i, "'%c%c' is not supported: a condition tests one symbol", a,
                     b == a ? a : ' ');
        else
            cond_err(r, n, i, "expected a comparison operator (==, !=, <, <=, >, >=) or the end "
                              "of the condition, found '%s'", char_show(a));
        return false;
    }
    while (i < len && isspace((unsigned char)s[i]))
        i++;
    c->lit_off = i;
    if (i == len) {
        cond_err(r, n, i, "expected %s after '%s'", LIT_EXPECTED, op_text[c->op]);
        return false;
    }
    if (s[i] == '"' || s[i] == '\'') {
        char q = s[i++];
        char *out = arena_alloc(r->arena, len - i + 1);
        size_t o = 0;
        if (!out) {
            err(r, n, "out of memory");
            return false;
        }
        for (;;) {
            if (i == len) {
                cond_err(r, n, c->lit_off, "unterminated string literal; expected a closing %c", q);
                return false;
            }
            char ch = s[i];
            if (ch == q) {
                i++;
                break;
            }
            if (ch == '\\' && q == '"') {
                char e = i + 1 < len ? s[i + 1] : 0;
                if (e != '"' && e != '\\') {
                    cond_err(r, n, i, "unknown escape in string literal; only \\\" and \\\\ are allowed");
                    return false;
                }
                out[o++] = e;
                i += 2;
                continue;
            }
            out[o++] = ch;
            i++;
        }
        out[o] = 0;
        c->lt = LIT_STR;
        c->s = out;
        c->slen = o;
    } else if (s[i] == '-' || s[i] == '+' || isdigit((unsigned char)s[i])) {
        size_t st = i;
        i++;
        while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '.'))
            i++;
        if (!parse_dec(s + st, i - st, &c->i)) {
            cond_err(r, n, st, "invalid integer literal '%.*s'; expected decimal digits within 64 bits",
                     (int)(i - st), s + st);
            return false;
        }
        c->lt = LIT_INT;
    } else {
        size_t st = i;
        while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_'))
            i++;
        if (ieq(s + st, i - st, "true") || ieq(s + st, i - st, "false")) {
            c->lt = LIT_BOOL;
            c->b = ieq(s + st, i - st, "true");
        } else {
            if (i == st)
                i++;
            cond_err(r, n, st, "expected %s after '%s', found '%.*s'%s", LIT_EXPECTED,
                     op_text[c->op], (int)(i - st), s + st,
                     isalpha((unsigned char)s[st]) ? " (quote strings)" : "");
            return false;
        }
    }
    while (i < len && isspace((unsigned char)s[i]))
        i++;
    if (i < len) {
        cond_err(r, n, i, "unexpected '%s' after the literal; a condition is '$name OP literal' "
                          "(no &&, ||, parentheses)", char_show(s[i]));
        return false;
    }
    return true;
}

/* Evaluates a parsed condition: 1 true, 0 false, -1 type error (recorded). */
static int cond_eval(R *r, const YNode *n, const Cond *c)
{
    const Sym *sym = symtab_get(r->syms, c->name, c->nlen);
    if (!sym)
        return 0;                         /* undefined: the rule is skipped */
    if (c->op == OP_NONE)
        return !(sym->type == SYM_BOOL && !sym->b);
    bool ordering = c->op != OP_EQ && c->op != OP_NE;
    bool same = (sym->type == SYM_INT && c->lt == LIT_INT) ||
                (sym->type == SYM_STR && c->lt == LIT_STR) ||
                (sym->type == SYM_BOOL && c->lt == LIT_BOOL);
    if (!same) {
        cond_err(r, n, c->lit_off, "type mismatch: '$%.*s' is %s but the literal is %s",
                 (int)c->nlen, c->name, sym_name[sym->type], lit_name[c->lt]);
        return -1;
    }
    if (ordering && sym->type != SYM_INT) {
        cond_err(r, n, c->op_off, "type mismatch: '%s' compares integers, but '$%.*s' is %s and "
                 "the literal is %s; use == or !=", op_text[c->op], (int)c->nlen, c->name,
                 sym_name[sym->type], lit_name[c->lt]);
        return -1;
    }
    int cmp;
    if (sym->type == SYM_INT)
        cmp = sym->i < c->i ? -1 : sym->i > c->i;
    else if (sym->type == SYM_BOOL)
        cmp = sym->b != c->b;
    else
        cmp = !(strlen(sym->s) == c->slen && memcmp(sym->s, c->s, c->slen) == 0);
    switch (c->op) {
    case OP_EQ: return cmp == 0;
    case OP_NE: return cmp != 0;
    case OP_LT: return cmp < 0;
    case OP_LE: return cmp <= 0;
    case OP_GT: return cmp > 0;
    case OP_GE: return cmp >= 0;
    case OP_NONE: break;
    }
    return 0;
}

/* ---- deep merge ------------------------------------------------------- */

static bool is_null(const YNode *n)
{
    return !n || (n->kind == YN_SCALAR && n->type == YT_NULL);
}

static YNode *merge(R *r, YNode *base, YNode *over);

static bool same_key(const YNode *a, const YNode *b)
{
    return a->kind == YN_SCALAR && b->kind == YN_SCALAR && a->n == b->n &&
           memcmp(a->u.s, b->u.s, a->n) == 0;
}

/* Maps: key-wise, recursively; a new map at base's position.  Quadratic in
** the key counts, which is fine for configs (a few keys each). */
static YNode *merge_maps(R *r, YNode *base, YNode *over)
{
    size_t cap = (size_t)base->n + over->n;
    YNode *m = arena_alloc(r->arena, sizeof *m);
    YPair *pairs = cap ? arena_alloc_aligned(r->arena, cap * sizeof *pairs, _Alignof(YPair)) : NULL;
    if (!m || (cap && !pairs)) {
        err(r, over, "out of memory");
        return over;
    }
    *m = *base;
    m->flags &= (uint8_t)~YF_ALIASED;
    size_t k = 0;
    for (uint32_t i = 0; i < base->n; i++) {
        YPair p = base->u.pairs[i];
        for (uint32_t j = 0; j < over->n; j++)
            if (same_key(&p.key, &over->u.pairs[j].key)) {
                p.val = *merge(r, &p.val, &over->u.pairs[j].val);
                break;
            }
        pairs[k++] = p;
    }
    for (uint32_t j = 0; j < over->n; j++) {
        bool found = false;
        for (uint32_t i = 0; i < base->n && !found; i++)
            found = same_key(&base->u.pairs[i].key, &over->u.pairs[j].key);
        if (!found)
            pairs[k++] = over->u.pairs[j];
    }
    m->u.pairs = pairs;
    m->n = (uint32_t)k;
    return m;
}

/* Inside maps a later value replaces the earlier one unless both are maps. */
static YNode *merge(R *r, YNode *base, YNode *over)
{
    if (base && over && base->kind == YN_MAP && over->kind == YN_MAP)
        return merge_maps(r, base, over);
    return over;
}

/* ---- the walk --------------------------------------------------------- */

static void resolve(R *r, YNode *n, int depth);
static void check(R *r, YNode *n, int depth);

typedef struct Rule {
    const YNode *when;     /* scalar, or NULL */
    const YNode *defkey;   /* the `default` key when default: true */
    YNode *config;
    bool ok;               /* shape and condition valid */
    int match;             /* cond_eval result */
} Rule;

/* Evaluates (live) or only checks (!live) one `rules` value.  Returns the
** merged config of a live block, NULL when nothing applies. */
static YNode *eval_block(R *r, YNode *block, bool live, int depth)
{
    if (block->kind != YN_SEQ) {
        err(r, block, "'rules' must be a sequence of rules (mappings with 'when' or 'default', "
                      "and 'config'), got %s", ykind_name(block));
        return NULL;
    }
    Rule *rules = block->n ? arena_alloc(r->arena, block->n * sizeof *rules) : NULL;
    if (block->n && !rules) {
        err(r, block, "out of memory");
        return NULL;
    }
    const Rule *first_default = NULL;
    bool any = false;
    for (uint32_t i = 0; i < block->n; i++) {
        Rule *ru = &rules[i];
        YNode *item = &block->u.items[i];
        memset(ru, 0, sizeof *ru);
        if (item->kind != YN_MAP) {
            err(r, item, "a rule must be a mapping with 'when' or 'default', and 'config', got %s",
                ykind_name(item));
            continue;
        }
        const YNode *defval = NULL, *defkey = NULL;
        bool has_config = false;
        ru->ok = true;
        for (uint32_t j = 0; j < item->n; j++) {
            const YNode *k = &item->u.pairs[j].key;
            YNode *v = &item->u.pairs[j].val;
            if (yscalar_is(k, "when")) {
                ru->when = v;
            } else if (yscalar_is(k, "default")) {
                defkey = k;
                defval = v;
            } else if (yscalar_is(k, "config")) {
                ru->config = v;
                has_config = true;
            } else {
                diag_warn(r->diags, "unknown-key", r->doc->file, k->line, k->col,
                          "unknown rule key '%.64s'; expected 'when', 'default' or 'config'",
                          k->kind == YN_SCALAR ? k->u.s : "?");
            }
        }
        if (ru->when && (ru->when->kind != YN_SCALAR || ru->when->type != YT_STR)) {
            err(r, ru->when, "'when' must be a condition string such as '$name' or "
                             "'$name >= 3', got %s", ykind_name(ru->when));
            ru->ok = false;
            ru->when = NULL;
        }
        if (defval && (defval->kind != YN_SCALAR || defval->type != YT_BOOL)) {
            err(r, defval, "'default' must be true or false, got %s", ykind_name(defval));
            ru->ok = false;
        } else if (defval && ru->when) {
            err(r, defkey, "a rule cannot have both 'when' and 'default'; "
                           "a default applies only when no 'when' rule matches");
            ru->ok = false;
        } else if (defval && ybool(defval)) {
            ru->defkey = defkey;
            if (first_default) {
                err(r, defkey, "more than one 'default: true' rule in this 'rules' block");
                diag_note(r->diags, r->doc->file, first_default->defkey->line,
                          first_default->defkey->col, "the first default is here");
                ru->ok = false;
            } else {
                first_default = ru;
            }
        } else if (!defval && !ru->when && ru->ok) {
            err(r, item, "a rule needs a 'when' condition or 'default: true'");
            ru->ok = false;
        }
        if (!has_config) {
            err(r, item, "rule has no 'config'");
            ru->ok = false;
        }
        if (ru->when) {
            Cond c;
            if (!cond_parse(r, ru->when, &c)) {
                ru->ok = false;
            } else {
                ru->match = cond_eval(r, ru->when, &c);
                if (ru->match < 0)
                    ru->ok = false;
                else if (ru->match && ru->ok)
                    any = true;
            }
        }
    }
    YNode *acc = NULL;
    for (uint32_t i = 0; i < block->n; i++) {
        Rule *ru = &rules[i];
        if (!ru->config)
            continue;
        bool chosen = live && ru->ok &&
                      ((ru->when && ru->match > 0) || (ru == first_default && !any));
        if (!chosen) {
            check(r, ru->config, depth + 1);
            continue;
        }
        resolve(r, ru->config, depth + 1);
        if (!is_null(ru->config))
            acc = is_null(acc) ? ru->config : merge(r, acc, ru->config);
    }
    return acc;
}

static bool is_rules_item(const YNode *n)
{
    return n->kind == YN_MAP && n->n == 1 && yscalar_is(&n->u.pairs[0].key, "rules");
}

/* Items are resolved in place; from the first `- rules:` item on, the
** items are also copied to a new array with each block replaced by what
** it chose. */
static void resolve_seq(R *r, YNode *n, int depth)
{
    YNode *out = NULL;
    size_t k = 0, cap = 0;
    bool changed = false;
    for (uint32_t i = 0; i < n->n; i++) {
        YNode *it = &n->u.items[i];
        const YNode *many = it;
        size_t nadd = 1;
        if (is_rules_item(it)) {
            if (!changed) {
                changed = true;
                k = i;   /* the items before it, copied below */
            }
            YNode *cfg = eval_block(r, &it->u.pairs[0].val, true, depth);
            if (is_null(cfg)) {
                nadd = 0;
            } else if (cfg->kind == YN_SEQ) {
                many = cfg->u.items;
                nadd = cfg->n;
            } else {
                many = cfg;
            }
        } else {
            resolve(r, it, depth + 1);
            if (!changed)
                continue;
        }
        if (k + nadd > cap) {
            size_t nc = cap ? cap * 2 : n->n + 8;
            while (nc < k + nadd)
                nc *= 2;
            YNode *o = sc_realloc(out, nc * sizeof *o);
            if (!o) {
                sc_free(out);
                err(r, n, "out of memory");
                return;
            }
            if (!out && k)
                memcpy(o, n->u.items, k * sizeof *o);
            out = o;
            cap = nc;
        }
        if (nadd)       /* out may still be NULL when nothing is added */
            memcpy(out + k, many, nadd * sizeof *out);
        k += nadd;
    }
    if (changed) {
        YNode *items = k ? arena_alloc_aligned(r->arena, k * sizeof *items, _Alignof(YNode)) : NULL;
        if (k && !items)
            err(r, n, "out of memory");
        else {
            if (k)
                memcpy(items, out, k * sizeof *items);
            n->u.items = items;
            n->n = (uint32_t)k;
        }
    }
    sc_free(out);
}

static void resolve_map(R *r, YNode *n, int depth)
{
    YNode blockv, *block = NULL;   /* a copy: the pair moves below */
    uint32_t at = 0;
    for (uint32_t i = 0; i < n->n; i++) {
        YPair *p = &n->u.pairs[i];
        if (yscalar_is(&p->key, "rules")) {   /* no payload key is 'rules' */
            blockv = p->val;
            block = &blockv;
            at = i;
            continue;
        }
        /* below a scalar there is nothing to resolve: the payload keys are
        ** looked up only for collections (they were 6% of compiling the
        ** 1.5 MB benchmark scenario, callgrind) */
        if (p->val.kind != YN_SCALAR && !is_payload_key(&p->key))
            resolve(r, &p->val, depth + 1);
    }
    if (!block)
        return;
    /* Drop the `rules` key, then merge the chosen config over the siblings. */
    memmove(&n->u.pairs[at], &n->u.pairs[at + 1], (n->n - at - 1) * sizeof *n->u.pairs);
    n->n--;
    YNode *cfg = eval_block(r, block, true, depth);
    if (is_null(cfg))
        return;
    if (cfg->kind != YN_MAP) {
        err(r, cfg, "rules config must be a mapping here (it is merged into the enclosing mapping), "
                    "got %s", ykind_name(cfg));
        if (cfg->kind == YN_SEQ)
            diag_note(r->diags, r->doc->file, block->line, block->col,
                      "to add list items, write the rules as a list item of its own: '- rules: [...]'");
        return;
    }
    YNode *m = merge_maps(r, n, cfg);
    n->u.pairs = m->u.pairs;
    n->n = m->n;
}

static const void *children(const YNode *n)
{
    return n->kind == YN_SEQ ? (const void *)n->u.items : (const void *)n->u.pairs;
}

/* orig's entry in r->done, or the free slot for it (r->cap > 0). */
static Done *done_slot(const R *r, const void *orig)
{
    size_t mask = r->cap - 1;
    size_t i = (size_t)(((uint64_t)(uintptr_t)orig >> 2) * 0x9e3779b97f4a7c15u >> 32) & mask;
    while (r->done[i].orig && r->done[i].orig != orig)
        i = (i + 1) & mask;
    return &r->done[i];
}

/* When n is a copy of a shared collection that is already resolved, makes
** it the resolved one and returns true. */
static bool done_take(R *r, YNode *n)
{
    if (!(n->flags & YF_ALIASED) || n->n == 0 || r->ndone == 0)
        return false;
    const Done *d = done_slot(r, children(n));
    if (!d->orig)
        return false;
    n->u = d->node.u;
    n->n = d->node.n;
    n->flags |= YF_RESOLVED;
    return true;
}

static void done_put(R *r, const void *orig, const YNode *n)
{
    if (2 * (r->ndone + 1) > r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        Done *t = sc_calloc(cap, sizeof *t), *old = r->done;
        if (!t) {
            err(r, n, "out of memory");
            return;
        }
        size_t ocap = r->cap;
        r->done = t;
        r->cap = cap;
        for (size_t i = 0; i < ocap; i++)
            if (old[i].orig)
                *done_slot(r, old[i].orig) = old[i];
        sc_free(old);
    }
    Done *d = done_slot(r, orig);
    if (!d->orig)
        r->ndone++;
    d->orig = orig;
    d->node = *n;
}

static void resolve(R *r, YNode *n, int depth)
{
    if (!n || n->kind == YN_SCALAR || (n->flags & YF_RESOLVED) || done_take(r, n))
        return;
    if (depth > RULES_MAX_DEPTH) {
        err(r, n, "rules nest deeper than %d levels", RULES_MAX_DEPTH);
        return;
    }
    bool shared = (n->flags & YF_ALIASED) && n->n > 0;
    const void *orig = children(n);
    n->flags |= YF_RESOLVED;
    if (n->kind == YN_SEQ)
        resolve_seq(r, n, depth);
    else
        resolve_map(r, n, depth);
    if (shared)
        done_put(r, orig, n);
}

/* After resolving: copies of a shared collection that the walk did not
** reach (below payload keys) become the resolved one too, as they would
** be were they one node. */
static void fix_copies(R *r, YNode *n, int depth)
{
    if (n->kind == YN_SCALAR || depth > RULES_MAX_DEPTH + YAML_MAX_DEPTH)
        return;
    done_take(r, n);
    if (n->kind == YN_SEQ)
        for (uint32_t i = 0; i < n->n; i++)
            fix_copies(r, &n->u.items[i], depth + 1);
    else
        for (uint32_t i = 0; i < n->n; i++)
            fix_copies(r, &n->u.pairs[i].val, depth + 1);
}

/* Configs that were not chosen: every rules block below is checked (shape,
** condition syntax, types of defined symbols) but nothing is changed. */
static void check(R *r, YNode *n, int depth)
{
    if (!n || n->kind == YN_SCALAR || (n->flags & YF_RESOLVED) || done_take(r, n))
        return;
    if (depth > RULES_MAX_DEPTH) {
        err(r, n, "rules nest deeper than %d levels", RULES_MAX_DEPTH);
        return;
    }
    if (n->kind == YN_SEQ) {
        for (uint32_t i = 0; i < n->n; i++)
            check(r, &n->u.items[i], depth + 1);
        return;
    }
    for (uint32_t i = 0; i < n->n; i++) {
        YPair *p = &n->u.pairs[i];
        if (yscalar_is(&p->key, "rules"))   /* as in resolve_map */
            eval_block(r, &p->val, false, depth);
        else if (p->val.kind != YN_SCALAR && !is_payload_key(&p->key))
            check(r, &p->val, depth + 1);
    }
}

bool rules_resolve(YDoc *doc, const Symtab *syms, Arena *arena, Diags *diags)
{
    R r = { doc, syms, arena, diags, false, NULL, 0, 0 };
    if (!doc->root)
        return true;
    if (!doc->rules_key)   /* no block anywhere: the walk would change nothing */
        return !diags_failed(diags);
    resolve(&r, doc->root, 0);
    if (r.ndone)
        fix_copies(&r, doc->root, 0);
    sc_free(r.done);
    return !r.failed && !diags_failed(diags);
}
