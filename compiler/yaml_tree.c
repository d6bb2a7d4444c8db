/* SPDX-License-Identifier: MIT */
/* yaml_tree.c - libyaml events -> arena tree with positions and core-schema types.
**
** One pass over yaml_parser_parse() events.  Open collections live on a
** fixed frame stack (depth is bounded by YAML_MAX_DEPTH); their children are
** pushed, by value, on one growable scratch stack and copied into an
** exact-size arena array when the collection ends, so the tree costs one
** arena allocation per collection and per distinct scalar text (short texts
** are interned while parsing), and no malloc per node.
** Anchors are recorded in a scratch table; an alias becomes a copy of the
** anchored node (YF_ALIASED), sharing its children.  Every anchored node's expanded size
** (what a copying loader would build) is known when it closes; the nodes
** aliases add are summed, so billion-laughs input is rejected at the alias
** that takes the sum past YAML_MAX_EXPANSION, in time and memory linear in
** the input.  The typing rules
** are written down in docs/yaml.md. */
#include "yaml_tree.h"
#include "yaml_int.h"

#include "common/buf.h"
#include "common/fnv1a.h"
#include "common/sc_alloc.h"
#include "common/utf8.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

_Static_assert(sizeof(YNode) == 20, "YNode grew: see the comment in yaml_tree.h");
/* close_collection() hands a mapping its children as they are. */
_Static_assert(sizeof(YPair) == 2 * sizeof(YNode), "YPair is not a key node and a value node");

#define TAG_PREFIX "tag:yaml.org,2002:"
#define TAG_PREFIX_LEN (sizeof TAG_PREFIX - 1)

/* Maps with more pairs than this check duplicate keys with a hash table;
** below it the quadratic scan is cheaper than building the table. */
enum { DUP_LINEAR_MAX = 16 };

/* Scalar texts up to this many bytes are stored once per distinct text:
** keys and short values repeat (the 1.5 MB benchmark scenario has 95,900
** scalars, 1.05 MB of text, but 18,950 distinct texts, 0.42 MB, all of
** them at most 32 bytes).  Longer texts are prose that rarely repeats;
** hashing them would cost time and table space for nothing. */
enum { INTERN_MAX = 64 };

typedef struct Frame {
    YNode node;            /* the collection being built */
    size_t base;           /* its first child in Parser.stack */
    uint64_t count;        /* expanded node count of the subtree so far */
    int anchor;            /* index in Parser.anchors, or -1 */
} Frame;

typedef struct Anchor {
    char *name;            /* arena */
    YNode node;            /* what an alias copies; valid when !open */
    uint64_t count;        /* expanded node count; valid when !open */
    bool open;             /* the anchored collection is still being parsed */
} Anchor;

typedef struct Interned {
    const char *s;         /* arena; NULL for a free slot */
    uint32_t len, hash;
} Interned;

typedef struct Parser Parser;
struct Parser {
    const char *file;
    const char *src;
    size_t len;
    Arena *arena;
    Diags *diags;
    bool failed;
    bool stop;             /* unrecoverable: stop reading events */
    bool quiet;            /* the fast reader's attempt: record no diagnostics */
    Frame frames[YAML_MAX_DEPTH + 1];
    int depth;
    YNode *stack;          /* children of the open collections, by value */
    size_t sp, scap;
    Anchor *anchors;
    size_t na, acap;
    uint32_t *hash;        /* duplicate-key table, reused */
    size_t hcap;
    Interned *itab;        /* interned scalar texts */
    size_t icap, icount;
    uint64_t aliased;      /* nodes added by aliases, were they expanded */
    YNode *root;
    int docs;
    bool rules_key;        /* YDoc.rules_key */
};

/* Records a positioned error; parsing goes on (see p->stop for the fatal ones). */
/* PERR/PNOTE record nothing for a quiet parser: the fast reader's
** (yaml_fast.c) failures only send the file to the libyaml path, which
** then reports whatever is wrong with it. */
#define PERR(p, line, col, ...) \
    do { if (!(p)->quiet) diag_error((p)->diags, (p)->file, (line), (col), __VA_ARGS__); } while (0)
#define PNOTE(p, line, col, ...) \
    do { if (!(p)->quiet) diag_note((p)->diags, (p)->file, (line), (col), __VA_ARGS__); } while (0)
#define ERR_AT(p, line, col, ...) \
    do { (p)->failed = true; PERR((p), (line), (col), __VA_ARGS__); } while (0)

static void oom(Parser *p)
{
    p->failed = p->stop = true;
    PERR(p, 0, 0, "out of memory while parsing YAML");
}

/* 1-based line and column (in characters) of byte offset off, counting
** line breaks as libyaml does for the common cases (\n, \r\n, lone \r). */
static void offset_pos(const char *src, size_t len, size_t off, uint32_t *line, uint32_t *col)
{
    uint32_t l = 1, c = 1;
    if (off > len)
        off = len;
    for (size_t i = 0; i < off; i++) {
        unsigned char ch = (unsigned char)src[i];
        if (ch == '\n' || (ch == '\r' && (i + 1 >= len || src[i + 1] != '\n'))) {
            l++;
            c = 1;
        } else if ((ch & 0xc0) != 0x80 && ch != '\r') {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static bool push(Parser *p, const YNode *n)
{
    if (p->sp == p->scap) {
        size_t cap = p->scap ? p->scap * 2 : 256;
        YNode *s = sc_realloc(p->stack, cap * sizeof *s);
        if (!s) {
            oom(p);
            return false;
        }
        p->stack = s;
        p->scap = cap;
    }
    p->stack[p->sp++] = *n;
    return true;
}

/* The intern table's hash: 8 bytes a step, as texts are short (FNV-1a,
** a byte a step, made parsing the benchmark scenario 3% slower). */
static size_t hash_text(const char *s, size_t n)
{
    const uint64_t k = 0xff51afd7ed558ccdu;
    uint64_t h = 0x9e3779b97f4a7c15u ^ n, w;
    for (; n >= 8; s += 8, n -= 8) {
        memcpy(&w, s, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    if (n) {
        w = 0;
        for (size_t i = 0; i < n; i++)
            w = w << 8 | (unsigned char)s[i];
        h = (h ^ w) * k;
    }
    h ^= h >> 32;
    return (size_t)h;
}

/* Doubles the intern table (open addressing, load at most 3/4). */
static bool intern_grow(Parser *p)
{
    size_t cap = p->icap ? p->icap * 2 : 64;
    Interned *t = sc_calloc(cap, sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < p->icap; i++) {
        const Interned *e = &p->itab[i];
        if (!e->s)
            continue;
        size_t j = e->hash & (cap - 1);
        while (t[j].s)
            j = (j + 1) & (cap - 1);
        t[j] = *e;
    }
    sc_free(p->itab);
    p->itab = t;
    p->icap = cap;
    return true;
}

/* Sets scalar n's text: the arena copy of an earlier scalar with the same
** text when there is one, else a new copy.  Scalars are never modified, so
** sharing the text is invisible to the passes.  False when out of memory. */
static bool set_text(Parser *p, YNode *n, const char *s, size_t len)
{
    n->n = (uint32_t)len;
    Interned *slot = NULL;
    uint32_t h = 0;
    if (len <= INTERN_MAX && (p->icount < p->icap / 4 * 3 || intern_grow(p))) {
        size_t mask = p->icap - 1;
        h = (uint32_t)hash_text(s, len);
        size_t j = h & mask;
        for (Interned *e; (e = &p->itab[j])->s; j = (j + 1) & mask)
            if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0) {
                n->u.s = e->s;
                return true;
            }
        slot = &p->itab[j];
    }
    char *t = arena_strndup(p->arena, s, len);
    if (!t)
        return false;
    n->u.s = t;
    if (slot) {
        *slot = (Interned){ t, (uint32_t)len, h };
        p->icount++;
    }
    return true;
}

static void init_node(YNode *n, YKind kind, const yaml_mark_t *m)
{
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)kind;
    n->line = (uint32_t)m->line + 1;
    n->col = (uint32_t)m->column + 1;
}

/* A copy of *n in the arena (NULL when out of memory). */
static YNode *arena_node(Parser *p, const YNode *n)
{
    YNode *a = arena_alloc_aligned(p->arena, sizeof *a, _Alignof(YNode));
    if (!a) {
        oom(p);
        return NULL;
    }
    *a = *n;
    return a;
}

/* True when the next child of the open collection is a mapping key. */
static bool at_key(const Parser *p)
{
    if (p->depth == 0)
        return false;
    const Frame *f = &p->frames[p->depth - 1];
    return f->node.kind == YN_MAP && (p->sp - f->base) % 2 == 0;
}

/* Adds count expanded nodes to the open collection.  Only nodes that aliases
** add are limited (p->aliased): the source nodes themselves are bounded by
** the input size, and a large alias-free file must not be rejected. */
static bool account(Parser *p, uint64_t count, bool via_alias, const yaml_mark_t *m)
{
    if (p->depth > 0)
        p->frames[p->depth - 1].count += count;
    if (!via_alias)
        return true;
    p->aliased += count;
    if (p->aliased > YAML_MAX_EXPANSION) {
        p->failed = p->stop = true;
        PERR(p, (uint32_t)m->line + 1, (uint32_t)m->column + 1,
                   "alias expansion exceeds %u nodes", (unsigned)YAML_MAX_EXPANSION);
        return false;
    }
    return true;
}

static int anchor_add(Parser *p, const yaml_char_t *name, YNode *n, bool open, uint64_t count)
{
    if (p->na == p->acap) {
        size_t cap = p->acap ? p->acap * 2 : 16;
        Anchor *a = sc_realloc(p->anchors, cap * sizeof *a);
        if (!a) {
            oom(p);
            return -1;
        }
        p->anchors = a;
        p->acap = cap;
    }
    char *s = arena_strdup(p->arena, (const char *)name);
    if (!s) {
        oom(p);
        return -1;
    }
    n->flags |= YF_ALIASED;
    p->anchors[p->na] = (Anchor){ s, *n, count, open };
    return (int)p->na++;
}

/* The latest definition wins, as in YAML; hence the search from the end. */
static Anchor *anchor_find(Parser *p, const char *name)
{
    for (size_t i = p->na; i-- > 0;)
        if (strcmp(p->anchors[i].name, name) == 0)
            return &p->anchors[i];
    return NULL;
}

/* "tag:yaml.org,2002:int" -> "!!int" for messages. */
static const char *tag_show(const char *tag)
{
    static _Thread_local char buf[128];
    if (strncmp(tag, TAG_PREFIX, TAG_PREFIX_LEN) == 0) {
        snprintf(buf, sizeof buf, "!!%s", tag + TAG_PREFIX_LEN);
        return buf;
    }
    return tag;
}

static bool is_digits(const char *s, const char *e, int base)
{
    if (s == e)
        return false;
    for (; s < e; s++) {
        int c = (unsigned char)*s;
        bool ok = base == 8 ? (c >= '0' && c <= '7')
                : base == 10 ? (c >= '0' && c <= '9')
                : ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'));
        if (!ok)
            return false;
    }
    return true;
}

typedef enum { NUM_NO, NUM_OK, NUM_RANGE } NumResult;

/* Core-schema int: [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+, within int64. */
static NumResult parse_int(const char *s, size_t n, int64_t *out)
{
    const char *e = s + n;
    if (n > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
        int base = s[1] == 'o' ? 8 : 16;
        if (!is_digits(s + 2, e, base))
            return NUM_NO;
        errno = 0;
        unsigned long long v = strtoull(s + 2, NULL, base);
        if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
            return NUM_RANGE;
        *out = (int64_t)v;
        return NUM_OK;
    }
    const char *d = s;
    if (d < e && (*d == '-' || *d == '+'))
        d++;
    if (!is_digits(d, e, 10))
        return NUM_NO;
    if (e - d <= 18) {   /* fits: skip strtoll, which yint() would call again */
        int64_t v = 0;
        for (; d < e; d++)
            v = v * 10 + (*d - '0');
        *out = *s == '-' ? -v : v;
        return NUM_OK;
    }
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE)
        return NUM_RANGE;
    *out = (int64_t)v;
    return NUM_OK;
}

/* Core-schema float: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?,
** [-+]?\.(inf|Inf|INF), \.(nan|NaN|NAN).  Ints are floats too (for !!float). */
static bool parse_float(const char *s, size_t n, double *out)
{
    const char *p = s, *e = s + n;
    bool neg = false;
    if (p < e && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    size_t r = (size_t)(e - p);
    if (r == 4 && (!memcmp(p, ".inf", 4) || !memcmp(p, ".Inf", 4) || !memcmp(p, ".INF", 4))) {
        *out = neg ? -HUGE_VAL : HUGE_VAL;
        return true;
    }
    if (p == s && r == 4 && (!memcmp(p, ".nan", 4) || !memcmp(p, ".NaN", 4) || !memcmp(p, ".NAN", 4))) {
        *out = NAN;
        return true;
    }
    const char *q = p;
    size_t ip = 0, fp = 0;
    while (q < e && *q >= '0' && *q <= '9')
        q++, ip++;
    if (q < e && *q == '.') {
        q++;
        while (q < e && *q >= '0' && *q <= '9')
            q++, fp++;
        if (ip == 0 && fp == 0)
            return false;
    } else if (ip == 0) {
        return false;
    }
    if (q < e && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < e && (*q == '-' || *q == '+'))
            q++;
        if (!is_digits(q, e, 10))
            return false;
        q = e;
    }
    if (q != e)
        return false;
    *out = strtod(s, NULL);   /* s is NUL-terminated right after e */
    return true;
}

static bool parse_bool(const char *s, size_t n, bool *out)
{
    if ((n == 4 && (!memcmp(s, "true", 4) || !memcmp(s, "True", 4) || !memcmp(s, "TRUE", 4)))) {
        *out = true;
        return true;
    }
    if ((n == 5 && (!memcmp(s, "false", 5) || !memcmp(s, "False", 5) || !memcmp(s, "FALSE", 5)))) {
        *out = false;
        return true;
    }
    return false;
}

static bool is_null(const char *s, size_t n)
{
    return n == 0 || (n == 1 && s[0] == '~') ||
           (n == 4 && (!memcmp(s, "null", 4) || !memcmp(s, "Null", 4) || !memcmp(s, "NULL", 4)));
}

static void int_range_error(Parser *p, YNode *n)
{
    p->failed = true;
    PERR(p, n->line, n->col,
               "integer '%.64s' does not fit in 64 bits; quote it to keep it as a string", n->u.s);
}

/* Plain scalar, no explicit tag: the core schema. */
static void type_plain(Parser *p, YNode *n)
{
    const char *s = n->u.s;
    size_t len = n->n;
    n->type = YT_STR;
    /* Most scalars are words: one test on the first byte settles them
    ** (a switch, not strchr: a call per scalar). */
    if (len) {
        switch (s[0]) {
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
        case '+': case '-': case '.': case '~': case 'n': case 'N': case 't': case 'T': case 'f': case 'F':
            break;
        default:
            return;
        }
    }
    bool b;
    int64_t i;
    double f;
    if (is_null(s, len)) {
        n->type = YT_NULL;
    } else if (parse_bool(s, len, &b)) {
        n->type = YT_BOOL;
    } else {
        NumResult r = parse_int(s, len, &i);
        if (r == NUM_OK)
            n->type = YT_INT;
        else if (r == NUM_RANGE)
            int_range_error(p, n);
        else if (parse_float(s, len, &f))
            n->type = YT_FLOAT;
    }
}

/* Scalar with an explicit tag; the value must fit the tag. */
static void type_tagged(Parser *p, YNode *n, const char *tag)
{
    const char *s = n->u.s;
    size_t len = n->n;
    const char *t = strncmp(tag, TAG_PREFIX, TAG_PREFIX_LEN) == 0 ? tag + TAG_PREFIX_LEN : NULL;
    bool b;
    int64_t i;
    double f;
    n->type = YT_STR;
    if (strcmp(tag, "!") == 0 || (t && strcmp(t, "str") == 0))
        return;
    if (t && strcmp(t, "int") == 0) {
        NumResult r = parse_int(s, len, &i);
        if (r == NUM_OK)
            n->type = YT_INT;
        else if (r == NUM_RANGE)
            int_range_error(p, n);
        else
            ERR_AT(p, n->line, n->col, "expected an integer for !!int, got '%.64s'", s);
    } else if (t && strcmp(t, "float") == 0) {
        if (parse_float(s, len, &f))
            n->type = YT_FLOAT;
        else
            ERR_AT(p, n->line, n->col, "expected a number for !!float, got '%.64s'", s);
    } else if (t && strcmp(t, "bool") == 0) {
        if (parse_bool(s, len, &b))
            n->type = YT_BOOL;
        else
            ERR_AT(p, n->line, n->col, "expected true or false for !!bool, got '%.64s'", s);
    } else if (t && strcmp(t, "null") == 0) {
        if (is_null(s, len))
            n->type = YT_NULL;
        else
            ERR_AT(p, n->line, n->col, "expected null, ~ or nothing for !!null, got '%.64s'", s);
    } else if (t && (strcmp(t, "map") == 0 || strcmp(t, "seq") == 0)) {
        ERR_AT(p, n->line, n->col, "tag '%s' on a scalar", tag_show(tag));
    } else {
        ERR_AT(p, n->line, n->col, "unsupported YAML tag '%s'", tag_show(tag));
    }
}

static void check_collection_tag(Parser *p, YNode *n, const yaml_char_t *tag, const char *want)
{
    const char *t = (const char *)tag;
    if (!t || strcmp(t, "!") == 0)
        return;
    const char *core = strncmp(t, TAG_PREFIX, TAG_PREFIX_LEN) == 0 ? t + TAG_PREFIX_LEN : NULL;
    if (core && strcmp(core, want) == 0)
        return;
    p->failed = true;
    if (core && (!strcmp(core, "map") || !strcmp(core, "seq") || !strcmp(core, "str") ||
                 !strcmp(core, "int") || !strcmp(core, "float") || !strcmp(core, "bool") ||
                 !strcmp(core, "null")))
        PERR(p, n->line, n->col, "tag '%s' on a %s",
                   tag_show(t), n->kind == YN_MAP ? "mapping" : "sequence");
    else
        PERR(p, n->line, n->col, "unsupported YAML tag '%s'", tag_show(t));
}

/* Copies a finished node into the open collection (or the arena, for the
** root). */
static void attach(Parser *p, const YNode *n)
{
    if (p->depth == 0) {
        p->root = arena_node(p, n);
        return;
    }
    if (at_key(p)) {
        if (n->kind != YN_SCALAR) {
            ERR_AT(p, n->line, n->col, "mapping keys must be scalars, not a %s", ykind_name(n));
        } else if (n->style == YS_PLAIN && n->n == 2 && memcmp(n->u.s, "<<", 2) == 0) {
            ERR_AT(p, n->line, n->col,
                   "merge keys ('<<') are not supported; write the merged keys out");
        } else if (n->n == 5 && memcmp(n->u.s, "rules", 5) == 0) {
            p->rules_key = true;
        }
    }
    push(p, n);
}

static uint32_t hash_key(const YNode *k)
{
    return fnv1a32(k->u.s, k->n);
}

static bool same_key(const YNode *a, const YNode *b)
{
    return a->kind == YN_SCALAR && b->kind == YN_SCALAR && a->n == b->n &&
           memcmp(a->u.s, b->u.s, a->n) == 0;
}

static void dup_error(Parser *p, const YNode *second, const YNode *first)
{
    p->failed = true;
    PERR(p, second->line, second->col, "duplicate mapping key '%.64s'",
               second->u.s);
    PNOTE(p, first->line, first->col, "first defined here");
}

static void check_dups(Parser *p, const YNode *map)
{
    uint32_t n = map->n;
    const YPair *pr = map->u.pairs;
    if (n <= DUP_LINEAR_MAX) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = 0; j < i; j++)
                if (same_key(&pr[i].key, &pr[j].key)) {
                    dup_error(p, &pr[i].key, &pr[j].key);
                    break;
                }
        return;
    }
    size_t cap = 64;
    while (cap < (size_t)n * 2)
        cap *= 2;
    if (cap > p->hcap) {
        uint32_t *h = sc_realloc(p->hash, cap * sizeof *h);
        if (!h) {
            oom(p);
            return;
        }
        p->hash = h;
        p->hcap = cap;
    }
    memset(p->hash, 0, cap * sizeof *p->hash);
    for (uint32_t i = 0; i < n; i++) {
        const YNode *k = &pr[i].key;
        if (k->kind != YN_SCALAR)
            continue;
        size_t slot = hash_key(k) & (cap - 1);
        for (;;) {
            uint32_t e = p->hash[slot];
            if (e == 0) {
                p->hash[slot] = i + 1;
                break;
            }
            if (same_key(&pr[e - 1].key, k)) {
                dup_error(p, k, &pr[e - 1].key);
                break;
            }
            slot = (slot + 1) & (cap - 1);
        }
    }
}

static void open_collection(Parser *p, YKind kind, const yaml_event_t *ev)
{
    const yaml_mark_t *m = &ev->start_mark;
    if (p->depth >= YAML_MAX_DEPTH) {
        p->failed = p->stop = true;
        PERR(p, (uint32_t)m->line + 1, (uint32_t)m->column + 1,
                   "YAML nesting deeper than %d levels", (int)YAML_MAX_DEPTH);
        return;
    }
    YNode node, *n = &node;
    init_node(n, kind, m);
    const yaml_char_t *anchor, *tag;
    int style;
    if (kind == YN_MAP) {
        anchor = ev->data.mapping_start.anchor;
        tag = ev->data.mapping_start.tag;
        style = ev->data.mapping_start.style;
        check_collection_tag(p, n, tag, "map");
    } else {
        anchor = ev->data.sequence_start.anchor;
        tag = ev->data.sequence_start.tag;
        style = ev->data.sequence_start.style;
        check_collection_tag(p, n, tag, "seq");
    }
    n->style = style == YAML_FLOW_MAPPING_STYLE || style == YAML_FLOW_SEQUENCE_STYLE ? YS_FLOW : YS_BLOCK;
    int ai = -1;
    if (anchor && (ai = anchor_add(p, anchor, n, true, 0)) < 0)
        return;
    p->frames[p->depth++] = (Frame){ *n, p->sp, 0, ai };
}

static void close_collection(Parser *p)
{
    Frame f = p->frames[--p->depth];
    YNode *n = &f.node;
    size_t cnt = p->sp - f.base;
    /* The children, keys and values alternating in a mapping (libyaml
    ** always pairs them), become the collection's array as they are: a
    ** YPair is a key node and a value node. */
    YNode *kids = cnt ? arena_alloc_aligned(p->arena, cnt * sizeof *kids, _Alignof(YNode)) : NULL;
    if (cnt && !kids) {
        oom(p);
        return;
    }
    if (cnt)
        memcpy(kids, p->stack + f.base, cnt * sizeof *kids);
    if (n->kind == YN_MAP) {
        n->u.pairs = (YPair *)kids;
        n->n = (uint32_t)(cnt / 2);
        check_dups(p, n);
    } else {
        n->u.items = kids;
        n->n = (uint32_t)cnt;
    }
    p->sp = f.base;
    uint64_t count = f.count + 1;
    if (f.anchor >= 0) {
        p->anchors[f.anchor].node = *n;
        p->anchors[f.anchor].open = false;
        p->anchors[f.anchor].count = count;
    }
    if (p->depth > 0)
        p->frames[p->depth - 1].count += count;
    attach(p, n);
}

static void on_scalar(Parser *p, const yaml_event_t *ev)
{
    YNode node, *n = &node;
    init_node(n, YN_SCALAR, &ev->start_mark);
    if (!set_text(p, n, (const char *)ev->data.scalar.value, ev->data.scalar.length)) {
        oom(p);
        return;
    }
    switch (ev->data.scalar.style) {
    case YAML_SINGLE_QUOTED_SCALAR_STYLE: n->style = YS_SINGLE; break;
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: n->style = YS_DOUBLE; break;
    case YAML_LITERAL_SCALAR_STYLE: n->style = YS_LITERAL; break;
    case YAML_FOLDED_SCALAR_STYLE: n->style = YS_FOLDED; break;
    case YAML_ANY_SCALAR_STYLE:
    case YAML_PLAIN_SCALAR_STYLE: n->style = YS_PLAIN; break;
    }
    const char *tag = (const char *)ev->data.scalar.tag;
    if (tag)
        type_tagged(p, n, tag);
    else if (n->style == YS_PLAIN)
        type_plain(p, n);
    else
        n->type = YT_STR;
    if (ev->data.scalar.anchor && anchor_add(p, ev->data.scalar.anchor, n, false, 1) < 0)
        return;
    account(p, 1, false, &ev->start_mark);
    attach(p, n);
}

static void on_alias(Parser *p, const yaml_event_t *ev)
{
    const yaml_mark_t *m = &ev->start_mark;
    const char *name = (const char *)ev->data.alias.anchor;
    Anchor *a = anchor_find(p, name);
    if (!a) {
        ERR_AT(p, (uint32_t)m->line + 1, (uint32_t)m->column + 1, "undefined alias '%s'", name);
        p->stop = true;   /* the collection would be missing a child */
        return;
    }
    if (a->open) {
        ERR_AT(p, (uint32_t)m->line + 1, (uint32_t)m->column + 1,
               "alias '%s' refers to a node that contains it", name);
        p->stop = true;
        return;
    }
    if (!account(p, a->count, true, m))
        return;
    attach(p, &a->node);
}

static void syntax_error(Parser *p, const yaml_parser_t *yp)
{
    p->failed = p->stop = true;
    if (yp->error == YAML_MEMORY_ERROR) {
        oom(p);
        return;
    }
    uint32_t line, col;
    if (yp->error == YAML_READER_ERROR) {
        offset_pos(p->src, p->len, yp->problem_offset, &line, &col);
    } else {
        line = (uint32_t)yp->problem_mark.line + 1;
        col = (uint32_t)yp->problem_mark.column + 1;
    }
    PERR(p, line, col, "%s", yp->problem ? yp->problem : "invalid YAML");
    if (yp->context)
        PNOTE(p, (uint32_t)yp->context_mark.line + 1,
                  (uint32_t)yp->context_mark.column + 1, "%s", yp->context);
}

static bool check_encoding(Parser *p)
{
    const unsigned char *s = (const unsigned char *)p->src;
    size_t n = p->len;
    if ((n >= 4 && ((s[0] == 0 && s[1] == 0 && s[2] == 0xfe && s[3] == 0xff) ||
                    (s[0] == 0xff && s[1] == 0xfe && s[2] == 0 && s[3] == 0))) ) {
        ERR_AT(p, 1, 1, "UTF-32 input is not supported; convert the file to UTF-8");
        return false;
    }
    if (n >= 2 && ((s[0] == 0xfe && s[1] == 0xff) || (s[0] == 0xff && s[1] == 0xfe))) {
        ERR_AT(p, 1, 1, "UTF-16 input is not supported; convert the file to UTF-8");
        return false;
    }
    size_t bad;
    if (!utf8_valid(s, n, &bad)) {
        uint32_t line, col;
        offset_pos(p->src, n, bad, &line, &col);
        p->failed = true;
        PERR(p, line, col, "invalid UTF-8 (byte 0x%02x); expected UTF-8 text",
                   s[bad]);
        return false;
    }
    return true;
}

/* ---- the fast reader's side (yaml_int.h): the same tree, built the same way ---- */

void ysink_open(Parser *p, YKind kind, bool flow, uint32_t line, uint32_t col)
{
    if (p->depth >= YAML_MAX_DEPTH) {
        p->failed = p->stop = true;
        PERR(p, line, col, "YAML nesting deeper than %d levels", (int)YAML_MAX_DEPTH);
        return;
    }
    YNode n;
    memset(&n, 0, sizeof n);
    n.kind = (uint8_t)kind;
    n.line = line;
    n.col = col;
    n.style = flow ? YS_FLOW : YS_BLOCK;
    p->frames[p->depth++] = (Frame){ n, p->sp, 0, -1 };
}

void ysink_close(Parser *p)
{
    if (p->depth > 0)
        close_collection(p);
}

void ysink_scalar(Parser *p, const char *s, size_t len, YStyle style, uint32_t line, uint32_t col)
{
    YNode n;
    memset(&n, 0, sizeof n);
    n.kind = YN_SCALAR;
    n.line = line;
    n.col = col;
    if (!set_text(p, &n, s, len)) {
        oom(p);
        return;
    }
    n.style = style;
    if (style == YS_PLAIN)
        type_plain(p, &n);
    else
        n.type = YT_STR;
    if (p->depth > 0)
        p->frames[p->depth - 1].count += 1;
    attach(p, &n);
}

bool ysink_ok(const Parser *p)
{
    return !p->failed && !p->stop;
}

/* ---- the libyaml path ---- */

static void read_libyaml(Parser *p)
{
    yaml_parser_t yp;
    if (!yaml_parser_initialize(&yp)) {
        oom(p);
        return;
    }
    yaml_parser_set_input_string(&yp, (const unsigned char *)p->src, p->len);
    yaml_parser_set_encoding(&yp, YAML_UTF8_ENCODING);
    bool done = false;
    while (!done && !p->stop) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&yp, &ev)) {
            syntax_error(p, &yp);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++p->docs > 1) {
                p->failed = p->stop = true;
                PERR(p, (uint32_t)ev.start_mark.line + 1, (uint32_t)ev.start_mark.column + 1,
                     "multiple YAML documents are not supported; expected one document per file");
            }
            break;
        case YAML_SCALAR_EVENT:
            on_scalar(p, &ev);
            break;
        case YAML_ALIAS_EVENT:
            on_alias(p, &ev);
            break;
        case YAML_SEQUENCE_START_EVENT:
            open_collection(p, YN_SEQ, &ev);
            break;
        case YAML_MAPPING_START_EVENT:
            open_collection(p, YN_MAP, &ev);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            close_collection(p);
            break;
        case YAML_NO_EVENT:
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&yp);
}

static void parser_fini(Parser *p)
{
    sc_free(p->stack);
    sc_free(p->anchors);
    sc_free(p->hash);
    sc_free(p->itab);
}

YamlReader yaml_default_reader = YAML_READ_AUTO;

bool yaml_parse(const char *src, size_t len, const char *file, Arena *arena,
                Diags *diags, YDoc *doc)
{
    return yaml_parse_with(src, len, file, arena, diags, doc, yaml_default_reader);
}

static void parser_init(Parser *p, const char *src, size_t len, const char *file, Arena *arena, Diags *diags)
{
    memset(p, 0, sizeof *p);
    p->file = file;
    p->src = src;
    p->len = len;
    p->arena = arena;
    p->diags = diags;
}

bool yaml_parse_with(const char *src, size_t len, const char *file, Arena *arena,
                     Diags *diags, YDoc *doc, YamlReader how)
{
    Parser p;
    parser_init(&p, src, len, file, arena, diags);
    doc->root = NULL;
    doc->file = file;
    doc->src = src;
    doc->src_len = len;
    doc->rules_key = false;
    if (len > YAML_MAX_INPUT) {
        diag_error(diags, file, 0, 0, "YAML input of %zu bytes is larger than the %u bytes supported",
                   len, (unsigned)YAML_MAX_INPUT);
        return false;
    }
    bool fast = false;
    if (how != YAML_READ_LIBYAML) {
        /* The fast reader either builds the whole tree or declines, and
        ** then its partial tree is dropped (left in the arena) and the file
        ** is read again by libyaml, which reports any error. */
        p.quiet = true;
        /* one table for the file's distinct short texts, sized up front
        ** (a table grown from 64 slots was 3 callocs for a 1 KB file), a
        ** slot for every 8 bytes: the generated scenarios and the corpus
        ** files have a distinct text every 14 bytes or more, and clearing a
        ** table twice that size took 2% of the instructions of compiling a
        ** corpus file (callgrind); the 1.5 MB scenario's is as large as before */
        size_t cap = 64;
        while (cap < len / 8 && cap < ((size_t)1 << 16))
            cap *= 2;
        p.itab = sc_calloc(cap, sizeof *p.itab);
        p.icap = p.itab ? cap : 0;
        fast = yaml_fast_read(&p, src, len) && ysink_ok(&p) && p.depth == 0;
        if (!fast) {
            parser_fini(&p);
            if (how == YAML_READ_FAST)
                return false;
            parser_init(&p, src, len, file, arena, diags);
        }
    }
    /* The fast reader checks the encoding on its own; it declines what
    ** check_encoding() would reject. */
    if (!fast && !check_encoding(&p))
        return false;
    if (!fast)
        read_libyaml(&p);
    parser_fini(&p);

    /* An empty document ("---" alone) is the same as an empty file. */
    YNode *r = p.root;
    if (r && r->kind == YN_SCALAR && r->type == YT_NULL && r->n == 0 && r->style == YS_PLAIN)
        r = NULL;
    doc->root = p.failed ? NULL : r;
    doc->rules_key = p.rules_key;
    return !p.failed && !diags->oom;
}

int64_t yint(const YNode *n)
{
    int64_t v = 0;
    if (n && n->kind == YN_SCALAR && n->type == YT_INT && parse_int(n->u.s, n->n, &v) != NUM_OK)
        v = 0;
    return v;
}

double yfloat(const YNode *n)
{
    double v = 0;
    if (n && n->kind == YN_SCALAR && (n->type == YT_FLOAT || n->type == YT_INT) &&
        !parse_float(n->u.s, n->n, &v))
        v = 0;
    return v;
}

bool ybool(const YNode *n)
{
    bool v = false;
    return n && n->kind == YN_SCALAR && n->type == YT_BOOL && parse_bool(n->u.s, n->n, &v) && v;
}

YNode *ymap_getn(const YNode *map, const char *key, size_t len)
{
    if (!map || map->kind != YN_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->n; i++) {
        if (ytext_is(&map->u.pairs[i].key, key, len))
            return (YNode *)&map->u.pairs[i].val;
    }
    return NULL;
}

const char *ykind_name(const YNode *n)
{
    if (!n)
        return "nothing";
    if (n->kind == YN_MAP)
        return "mapping";
    if (n->kind == YN_SEQ)
        return "sequence";
    switch ((YType)n->type) {
    case YT_NULL: return "null";
    case YT_BOOL: return "boolean";
    case YT_INT: return "integer";
    case YT_FLOAT: return "float";
    case YT_STR: return "string";
    }
    return "scalar";
}
