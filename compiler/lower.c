/* lower.c - Scenario-Format tree -> ops on the reference playback clock.
**
** One walk over the (rules-resolved) tree: the top-level sections are
** checked and recorded as metadata, every timeline event is checked and
** emitted as ops at absolute times.  The clock semantics are those of the
** reference player (docs/timing.md):
**   think/assistant steps   offsets from the start of their element
**   progress steps          cumulative deltas
**   toolExecution events    offsets from the execution start
**   userInputs              absolute; the clock moves to them
**   baseTimeDelta           adds to the clock
** Errors are recorded with line:col and the walk goes on, so one run
** reports every problem. */
#include "lower.h"

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
#include "fe_kit.h"
#include "yaml_value.h"

typedef struct L {
    const YDoc *doc;
    const LowerOpts *o;
    BcBuilder *b;
    FeDiag fe;                   /* diagnostics: the Diags, the file name */
    uint64_t t;                  /* the playback clock, ms */
    uint64_t seg_start;          /* clock right after the last baseTimeDelta */
    uint64_t seg_user;           /* furthest userInputs offset in this segment */
    const YNode *seg_user_node;
    bool completed;              /* a `complete` op was emitted */
    unsigned session_starts;
    const YNode *session_node;
    bool after_session;
    const char *prompt_any, *prompt_after;   /* effective initial prompt */
    uint32_t prompt_any_len, prompt_after_len;
    int load_session;            /* acp.capabilities.loadSession: -1 absent */
    int cap_image, cap_audio, cap_embedded;  /* promptCapabilities: -1 absent */
    char term_name[128];         /* Terminal-Config name ("" = none) */
    const YNode *load_session_node;
    bool unstable;               /* acp.unstable */
    uint32_t null_val;
    /* The spec clock (docs/timing.md): user events are concurrent, at
    ** seg_start + relativeTime, so ops are collected and emitted in time
    ** order at the end (stable: timeline order breaks ties). */
    bool spec;
    struct PendOp *pend;
    size_t n_pend, cap_pend;
    uint64_t last_user;          /* spec: user input times must not decrease */
    const YNode *last_user_node;
} L;

typedef struct PendOp {
    uint64_t t;
    size_t seq;
    BcOp op;
    uint32_t line, col, a[BC_MAX_OPERANDS];
} PendOp;

/* ------------------------------------------------------------------ */
/* diagnostics                                                        */

/* The helpers are the front ends' kit (fe_kit.h): err, warn and note at a
** node, suggest the closest of a list of names. */

/* ------------------------------------------------------------------ */
/* reading the tree                                                   */

static bool is_map(const YNode *n) { return n && n->kind == YN_MAP; }
static bool is_seq(const YNode *n) { return n && n->kind == YN_SEQ; }
static bool is_scalar(const YNode *n) { return n && n->kind == YN_SCALAR; }
static bool is_null(const YNode *n) { return !n || (n->kind == YN_SCALAR && n->type == YT_NULL); }
static bool is_str(const YNode *n) { return is_scalar(n) && n->type == YT_STR; }

static const char *const NO_KEYS[] = { NULL };

/* Warns about every key of map that is neither in known nor in also. */
static void check_keys2(L *l, const YNode *map, const char *what,
                        const char *const *known, const char *const *also)
{
    fe_unknown_keys(&l->fe, map, what, known, also, NULL);
}

static void check_keys(L *l, const YNode *map, const char *what, const char *const *known)
{
    check_keys2(l, map, what, known, NO_KEYS);
}

static const char *a_or_an(const char *w) { return strchr("aeiou", w[0]) ? "an" : "a"; }

static void want_kind(L *l, const YNode *n, const char *what, const char *expected)
{
    const char *got = ykind_name(n);
    fe_err(&l->fe, n, "%s must be %s %s, not %s %s", what, a_or_an(expected), expected, a_or_an(got), got);
}

/* A text field: any non-null scalar, taken verbatim (a plain `2024` label
** is text here).  Returns NULL (after an error when required) otherwise. */
static const YNode *get_text(L *l, const YNode *map, const char *key, bool required, const char *what)
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
        want_kind(l, n, w, "string");
        return NULL;
    }
    return n;
}

static bool uint_of(L *l, const YNode *n, const char *what, uint64_t *out)
{
    int64_t v = yint(n);
    if (is_scalar(n) && n->type == YT_INT && v >= 0 && v <= (int64_t)1 << 53) {
        *out = (uint64_t)v;
        return true;
    }
    if (is_scalar(n) && n->type == YT_INT)
        fe_err(&l->fe, n, "%s must be a whole number of milliseconds from 0 to 2^53, not %lld",
            what, (long long)v);
    else if (is_scalar(n) && n->type == YT_FLOAT)
        fe_err(&l->fe, n, "%s must be a whole number, not '%s'", what, n->u.s);
    else
        want_kind(l, n, what, "non-negative integer");
    return false;
}

static bool get_uint(L *l, const YNode *map, const char *key, bool required,
                     const char *what, uint64_t *out)
{
    const YNode *n = ymap_get(map, key);
    if (!n) {
        if (required)
            fe_err(&l->fe, map, "%s needs '%s'", what, key);
        return false;
    }
    char w[128];
    snprintf(w, sizeof w, "'%s' in %s", key, what);
    return uint_of(l, n, w, out);
}

/* Booleans: absent -> dflt; true/false; anything else is an error. */
static bool get_bool(L *l, const YNode *map, const char *key, bool dflt, const char *what)
{
    const YNode *n = ymap_get(map, key);
    if (!n || is_null(n))
        return dflt;
    if (is_scalar(n) && n->type == YT_BOOL)
        return ybool(n);
    char w[128];
    snprintf(w, sizeof w, "'%s' in %s", key, what);
    want_kind(l, n, w, "boolean");
    return dflt;
}

/* Checks that a text field is one of the allowed words. */
static void check_enum(L *l, const YNode *n, const char *what, const char *const *allowed, bool error)
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

static uint32_t str_of(L *l, const YNode *n) { return bcb_str(l->b, n->u.s, n->n); }

static uint32_t val_of(L *l, const YNode *n)
{
    if (!n)
        return l->null_val;
    bcb_val_begin(l->b);
    yaml_value_emit(l->b, n);
    return bcb_val_end(l->b);
}

/* Compact JSON of a subtree, for display text (map keys in source order). */
static void ynode_json(Buf *b, const YNode *n)
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
            ynode_json(b, &n->u.items[i]);
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
            ynode_json(b, &n->u.pairs[i].val);
        }
        buf_putc(b, '}');
        break;
    }
}

static uint32_t cs(L *l, const char *s) { return bcb_cstr(l->b, s); }

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

static void op(L *l, const YNode *at, BcOp o, ...)
{
    va_list ap;
    va_start(ap, o);
    vop_at(l, l->t, at, o, ap);
    va_end(ap);
}

static void op_at(L *l, uint64_t t, const YNode *at, BcOp o, ...)
{
    va_list ap;
    va_start(ap, o);
    vop_at(l, t, at, o, ap);
    va_end(ap);
}

/* Ops emitted (or, on the spec clock, collected) so far. */
static size_t ops_so_far(const L *l)
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
static uint64_t flush_pending(L *l)
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
static const YNode *get_meta(L *l, const YNode *ev, const YNode *item)
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
                want_kind(l, m, "_meta", "mapping");
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
static bool check_rel_path(L *l, const YNode *n, const char *what, bool must_exist)
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

/* ------------------------------------------------------------------ */
/* content blocks                                                     */

static const char *const CONTENT_TYPES[] = {
    "text", "image", "audio", "resource", "resource_link", "diff", "plan", NULL
};
static const char *const PLAN_PRIORITIES[] = { "high", "medium", "low", NULL };
static const char *const PLAN_STATUSES[] = { "pending", "in_progress", "completed", NULL };

static void check_plan_entries(L *l, const YNode *entries, const YNode *owner)
{
    static const char *const keys[] = { "content", "priority", "status", "_meta", NULL };
    if (!entries) {
        fe_err(&l->fe, owner, "plan needs 'entries'");
        return;
    }
    if (!is_seq(entries)) {
        want_kind(l, entries, "plan 'entries'", "sequence");
        return;
    }
    for (uint32_t i = 0; i < entries->n; i++) {
        const YNode *e = &entries->u.items[i];
        if (!is_map(e)) {
            want_kind(l, e, "a plan entry", "mapping");
            continue;
        }
        check_keys(l, e, "a plan entry", keys);
        const YNode *c = get_text(l, e, "content", true, "a plan entry");
        if (c && c->n == 0)
            fe_err(&l->fe, c, "plan entry 'content' is empty");
        check_enum(l, get_text(l, e, "priority", true, "a plan entry"), "plan priority", PLAN_PRIORITIES, true);
        check_enum(l, get_text(l, e, "status", true, "a plan entry"), "plan status", PLAN_STATUSES, true);
    }
}

/* A field spelled the spec's way (camelCase) or the reference crate's way
** (snake_case); the latter is accepted with a warning. */
static const YNode *get_alias(L *l, const YNode *map, const char *spec, const char *ref)
{
    const YNode *n = ymap_get(map, spec);
    if (n)
        return n;
    n = ymap_get(map, ref);
    if (n) {
        const YNode *k = NULL;
        for (uint32_t i = 0; i < map->n; i++)
            if (&map->u.pairs[i].val == n)
                k = &map->u.pairs[i].key;
        fe_warn(&l->fe, "deprecated", k ? k : n, "'%s' is the reference implementation's spelling; the spec says '%s'", ref, spec);
    }
    return n;
}

static void check_media(L *l, const YNode *blk, const char *type)
{
    const YNode *path = get_alias(l, blk, "path", "path");
    const YNode *data = ymap_get(blk, "data");
    const YNode *mime = get_alias(l, blk, "mimeType", "mime_type");
    if (!path && !data)
        fe_err(&l->fe, blk, "%s content needs 'path' or 'data'", type);
    if (mime && !is_str(mime))
        want_kind(l, mime, "'mimeType'", "string");
    else if (mime && strncmp(mime->u.s, type, strlen(type)) != 0)
        fe_err(&l->fe, mime, "%s content has MIME type '%s'; expected %s/...", type, mime->u.s, type);
    if (path) {
        if (!is_str(path))
            want_kind(l, path, "'path'", "string");
        else
            check_rel_path(l, path, "content path", true);
    }
    if (data) {
        size_t bad;
        if (!is_str(data))
            want_kind(l, data, "'data'", "string");
        else if (!b64_decode(data->u.s, data->n, NULL, &bad)) {
            if (bad < data->n)
                fe_err(&l->fe, data, "'data' is not valid base64: character '%c' at offset %zu", data->u.s[bad], bad);
            else
                fe_err(&l->fe, data, "'data' is not valid base64 (length or padding is wrong)");
        }
    }
}

/* MCP/ACP Annotations: {audience[], priority 0..1, lastModified}; the
** spec shows both a mapping and a list of them. */
static void check_annotation(L *l, const YNode *a)
{
    static const char *const keys[] = { "audience", "priority", "lastModified", NULL };
    static const char *const roles[] = { "user", "assistant", NULL };
    if (!is_map(a)) {
        want_kind(l, a, "an annotation", "mapping");
        return;
    }
    check_keys(l, a, "annotations", keys);
    const YNode *p = ymap_get(a, "priority");
    if (p && !(is_scalar(p) && (p->type == YT_INT || p->type == YT_FLOAT)))
        want_kind(l, p, "annotation 'priority'", "number");
    else if (p && (p->type == YT_INT ? (yint(p) < 0 || yint(p) > 1) : !(yfloat(p) >= 0 && yfloat(p) <= 1)))
        fe_err(&l->fe, p, "annotation priority %s is outside 0..1", p->u.s);
    const YNode *aud = ymap_get(a, "audience");
    if (aud && !is_seq(aud))
        want_kind(l, aud, "annotation 'audience'", "sequence");
    for (uint32_t i = 0; is_seq(aud) && i < aud->n; i++)
        if (is_scalar(&aud->u.items[i]))
            check_enum(l, &aud->u.items[i], "audience", roles, true);
}

static void check_annotations(L *l, const YNode *a)
{
    if (!a)
        return;
    if (is_seq(a))
        for (uint32_t i = 0; i < a->n; i++)
            check_annotation(l, &a->u.items[i]);
    else
        check_annotation(l, a);
}

/* Checks a rich content block; returns the text a playback event shows for it. */
static const char *check_block(L *l, const YNode *blk, uint32_t *len)
{
    static const char *const keys_common[] = { "type", "annotations", "_meta", NULL };
    static const char *const k_text[] = { "text", NULL };
    static const char *const k_media[] = { "mimeType", "mime_type", "path", "data", "uri", NULL };
    static const char *const k_res[] = { "resource", NULL };
    static const char *const k_link[] = { "uri", "name", "mimeType", "title", "description", "size", NULL };
    static const char *const k_diff[] = { "path", "oldText", "newText", "old_text", "new_text", NULL };
    static const char *const k_plan[] = { "entries", NULL };
    *len = 0;
    if (!is_map(blk)) {
        want_kind(l, blk, "a content block", "mapping");
        return "";
    }
    const YNode *type = get_text(l, blk, "type", true, "a content block");
    check_annotations(l, ymap_get(blk, "annotations"));
    if (!type)
        return "";
    const char *t = type->u.s;
    if (strcmp(t, "resourceLink") == 0) {
        fe_warn(&l->fe, "deprecated", type, "'resourceLink' is the reference implementation's spelling; the spec says 'resource_link'");
        t = "resource_link";
    }
    if (strcmp(t, "text") == 0) {
        check_keys2(l, blk, "a text block", k_text, keys_common);
        const YNode *x = get_text(l, blk, "text", true, "a text block");
        if (x && x->n == 0)
            fe_err(&l->fe, x, "text content is empty");
        if (x) {
            *len = x->n;
            return x->u.s;
        }
    } else if (strcmp(t, "image") == 0 || strcmp(t, "audio") == 0) {
        check_keys2(l, blk, t[0] == 'i' ? "an image block" : "an audio block", k_media, keys_common);
        check_media(l, blk, t);
    } else if (strcmp(t, "resource") == 0) {
        static const char *const rk[] = { "uri", "mimeType", "text", "blob", "_meta", NULL };
        check_keys2(l, blk, "a resource block", k_res, keys_common);
        const YNode *r = ymap_get(blk, "resource");
        if (!r) {
            fe_err(&l->fe, blk, "resource content needs 'resource'");
        } else if (!is_map(r)) {
            want_kind(l, r, "'resource'", "mapping");
        } else {
            check_keys(l, r, "an embedded resource", rk);
            const YNode *uri = get_text(l, r, "uri", true, "an embedded resource");
            if (uri && uri->n == 0)
                fe_err(&l->fe, uri, "embedded resource 'uri' is empty");
            const YNode *x = get_text(l, r, "text", false, "an embedded resource");
            if (!x && !ymap_get(r, "blob"))
                fe_err(&l->fe, r, "embedded resource needs 'text' or 'blob'");
            if (x) {
                *len = x->n;
                return x->u.s;
            }
        }
    } else if (strcmp(t, "resource_link") == 0) {
        check_keys2(l, blk, "a resource_link block", k_link, keys_common);
        const YNode *uri = get_text(l, blk, "uri", true, "a resource_link block");
        const YNode *name = get_text(l, blk, "name", true, "a resource_link block");
        if (uri && uri->n == 0)
            fe_err(&l->fe, uri, "resource_link 'uri' is empty");
        if (name && name->n == 0)
            fe_err(&l->fe, name, "resource_link 'name' is empty");
        if (uri) {
            *len = uri->n;
            return uri->u.s;
        }
    } else if (strcmp(t, "diff") == 0) {
        check_keys2(l, blk, "a diff block", k_diff, keys_common);
        const YNode *p = get_text(l, blk, "path", true, "a diff block");
        if (p && p->u.s[0] != '/')
            fe_err(&l->fe, p, "diff path '%s' must be absolute", p->u.s);
        const YNode *nt = get_alias(l, blk, "newText", "new_text");
        if (!nt)
            fe_err(&l->fe, blk, "a diff block needs 'newText'");
        get_alias(l, blk, "oldText", "old_text");
        if (p) {
            *len = p->n;
            return p->u.s;
        }
    } else if (strcmp(t, "plan") == 0) {
        check_keys2(l, blk, "a plan block", k_plan, keys_common);
        check_plan_entries(l, ymap_get(blk, "entries"), blk);
    } else {
        fe_err(&l->fe, type, "unknown content type '%s'", t);
        fe_suggest(&l->fe, type, t, CONTENT_TYPES);
    }
    return "";
}

/* ------------------------------------------------------------------ */
/* steps: [ms, body] or {relativeTime|timestamp: ms, <body key>: body}  */

typedef struct Step {
    uint64_t ms;
    const YNode *at;       /* the step node */
    const YNode *time;     /* the time node */
    const YNode *body;
} Step;

static bool parse_step(L *l, const YNode *s, const char *what, const char *const *body_keys, Step *out)
{
    out->at = s;
    out->body = NULL;
    if (is_seq(s)) {
        if (s->n != 2) {
            fe_err(&l->fe, s, "%s step must be [milliseconds, %s], not %u items", what, body_keys[0], s->n);
            return false;
        }
        out->time = &s->u.items[0];
        out->body = &s->u.items[1];
    } else if (is_map(s)) {
        static const char *const tkeys[] = { "relativeTime", "timestamp", NULL };
        static const char *const extra[] = { "expectOutput", "_meta", NULL };
        out->time = ymap_get(s, "relativeTime");
        if (!out->time)
            out->time = ymap_get(s, "timestamp");
        for (size_t i = 0; body_keys[i] && !out->body; i++)
            out->body = ymap_get(s, body_keys[i]);
        const char *known[8];
        size_t k = 0;
        for (size_t i = 0; tkeys[i]; i++)
            known[k++] = tkeys[i];
        for (size_t i = 0; body_keys[i] && k < 7; i++)
            known[k++] = body_keys[i];
        known[k] = NULL;
        check_keys2(l, s, what, known, extra);
        if (!out->time) {
            fe_err(&l->fe, s, "%s step needs 'relativeTime'", what);
            return false;
        }
        if (!out->body) {
            fe_err(&l->fe, s, "%s step needs '%s'", what, body_keys[0]);
            return false;
        }
    } else {
        fe_err(&l->fe, s, "%s step must be [milliseconds, %s] or a mapping with relativeTime and %s, not %s %s",
            what, body_keys[0], body_keys[0], a_or_an(ykind_name(s)), ykind_name(s));
        return false;
    }
    char w[96];
    snprintf(w, sizeof w, "%s relativeTime", what);
    return uint_of(l, out->time, w, &out->ms);
}

/* ------------------------------------------------------------------ */
/* llmResponse                                                        */

static void lower_steps(L *l, const YNode *steps, bool assistant)
{
    static const char *const think_keys[] = { "content", "text", NULL };
    const char *what = assistant ? "assistant" : "think";
    if (!is_seq(steps)) {
        char w[64];
        snprintf(w, sizeof w, "'%s'", what);
        want_kind(l, steps, w, "sequence of steps");
        return;
    }
    uint64_t base = l->t, prev = 0;
    const YNode *prev_node = NULL;
    for (uint32_t i = 0; i < steps->n; i++) {
        Step s;
        if (!parse_step(l, &steps->u.items[i], what, think_keys, &s))
            continue;
        if (l->spec) {
            /* deltas from the clock: each step after the one before */
            l->t += s.ms;
            prev_node = s.time;
        } else if (prev_node && s.ms < prev) {
            fe_err(&l->fe, s.time, "%s relativeTime %llu is earlier than the step before it (%llu)",
                what, (unsigned long long)s.ms, (unsigned long long)prev);
            fe_note(&l->fe, s.time, "%s times are offsets from the start of their llmResponse element, so they must not decrease",
                 what);
            continue;
        } else {
            prev = s.ms;
            prev_node = s.time;
            uint64_t at = base + s.ms;
            if (at > l->t)
                l->t = at;
        }
        if (!assistant) {
            if (!is_scalar(s.body) || is_null(s.body)) {
                want_kind(l, s.body, "think content", "string");
                continue;
            }
            op(l, s.at, OP_THINK, str_of(l, s.body));
        } else if (is_scalar(s.body) && !is_null(s.body)) {
            op(l, s.at, OP_ASSISTANT, str_of(l, s.body), l->null_val);
        } else if (is_map(s.body)) {
            uint32_t len;
            const char *text = check_block(l, s.body, &len);
            uint32_t body = val_of(l, s.body);
            op(l, s.at, OP_ASSISTANT, bcb_str(l->b, text, len), body);
        } else {
            want_kind(l, s.body, "assistant content", "string or content block");
        }
    }
}

static void lower_llm_error(L *l, const YNode *e)
{
    static const char *const keys[] = { "errorType", "statusCode", "message", "details", "retryAfterSeconds", NULL };
    if (!is_map(e)) {
        want_kind(l, e, "'error'", "mapping");
        return;
    }
    check_keys(l, e, "an llmResponse error", keys);
    const YNode *type = get_text(l, e, "errorType", true, "an llmResponse error");
    const YNode *msg = get_text(l, e, "message", true, "an llmResponse error");
    uint64_t status = 400, retry = 0;
    const YNode *sn = ymap_get(e, "statusCode");
    if (sn && uint_of(l, sn, "'statusCode'", &status) && (status < 100 || status > 599))
        fe_err(&l->fe, sn, "'statusCode' %llu is not an HTTP status (100-599)", (unsigned long long)status);
    uint32_t retry_val = l->null_val;
    const YNode *rn = ymap_get(e, "retryAfterSeconds");
    if (rn && uint_of(l, rn, "'retryAfterSeconds'", &retry))
        retry_val = val_of(l, rn);
    if (type && msg) {
        uint32_t details = val_of(l, ymap_get(e, "details")), msg_s = str_of(l, msg);
        op(l, e, OP_LLM_ERROR, str_of(l, type), (uint32_t)status, msg_s, retry_val, details);
    }
}

static void lower_llm(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const elems[] = { "think", "assistant", "error", NULL };
    static const char *const inline_tools[] = {
        "agent_tool_use", "agentToolUse", "agent_edits", "agentEdits", "tool_result",
        "agent_plan", "agentPlan", "tool", NULL
    };
    const YNode *meta = get_meta(l, NULL, item);
    const YNode *list = v;
    if (is_map(v)) {
        /* {_meta: ..., elements...}: not in the spec; a mapping of elements */
        fe_err(&l->fe, v, "llmResponse must be a sequence of elements (think, assistant, error)");
        fe_note(&l->fe, v, "write it as:  llmResponse: [{think: [...]}, {assistant: [...]}]");
        return;
    }
    if (!is_seq(list)) {
        want_kind(l, v, "llmResponse", "sequence");
        return;
    }
    op(l, key, OP_LLM_BEGIN, val_of(l, meta));
    for (uint32_t i = 0; i < list->n; i++) {
        const YNode *el = &list->u.items[i];
        if (!is_map(el)) {
            want_kind(l, el, "an llmResponse element", "mapping");
            continue;
        }
        const YNode *ekey = NULL, *ev = NULL;
        for (uint32_t k = 0; k < el->n; k++) {
            const YNode *kk = &el->u.pairs[k].key;
            if (strcmp(kk->u.s, "_meta") == 0 || strcmp(kk->u.s, "meta") == 0)
                continue;
            if (fe_in_list(kk->u.s, inline_tools)) {
                fe_err(&l->fe, kk, "inline tool use inside llmResponse ('%s') is not supported", kk->u.s);
                fe_note(&l->fe, kk, "move it after the llmResponse as its own timeline event: - agentToolUse: {toolName: ..., args: ...}");
                ekey = kk;
                ev = NULL;
                continue;
            }
            if (!fe_in_list(kk->u.s, elems)) {
                fe_err(&l->fe, kk, "unknown llmResponse element '%s'", kk->u.s);
                fe_suggest(&l->fe, kk, kk->u.s, elems);
                continue;
            }
            if (ekey) {
                fe_err(&l->fe, kk, "llmResponse element has two kinds, '%s' and '%s'; put each in its own list item",
                    ekey->u.s, kk->u.s);
                continue;
            }
            ekey = kk;
            ev = &el->u.pairs[k].val;
        }
        get_meta(l, NULL, el);
        if (!ekey) {
            if (el->n == 0 || ymap_get(el, "_meta") || ymap_get(el, "meta"))
                fe_err(&l->fe, el, "llmResponse element needs think, assistant or error");
            continue;
        }
        if (!ev)
            continue;
        if (strcmp(ekey->u.s, "think") == 0)
            lower_steps(l, ev, false);
        else if (strcmp(ekey->u.s, "assistant") == 0)
            lower_steps(l, ev, true);
        else
            lower_llm_error(l, ev);
    }
    op(l, NULL, OP_LLM_END);
}

/* ------------------------------------------------------------------ */
/* tool use                                                           */

static const char *const TOOL_FIELDS[] = {
    "toolName", "args", "progress", "result", "status", "toolExecution", "toolCallId", "_meta", "meta", NULL
};
static const char *const TOOL_STATUSES[] = { "ok", "error", NULL };
static const char *const EXEC_TYPES[] = { "stdout", "stderr", "progress", "completion", NULL };

/* The part of a tool use after TOOL_START: progress, execution, result. */
static void lower_tool_body(L *l, const YNode *tu, uint32_t name, const YNode *at)
{
    static const char *const prog_keys[] = { "message", "text", "content", NULL };
    const YNode *progress = ymap_get(tu, "progress");
    if (progress && !is_seq(progress)) {
        want_kind(l, progress, "'progress'", "sequence of steps");
    } else if (progress) {
        for (uint32_t i = 0; i < progress->n; i++) {
            Step s;
            if (!parse_step(l, &progress->u.items[i], "progress", prog_keys, &s))
                continue;
            if (!is_scalar(s.body) || is_null(s.body)) {
                want_kind(l, s.body, "progress message", "string");
                continue;
            }
            l->t += s.ms;
            uint32_t kind = cs(l, "progress");
            op(l, s.at, OP_TOOL_PROGRESS, name, str_of(l, s.body), kind);
        }
    }
    const YNode *result = ymap_get(tu, "result");
    const YNode *status = get_text(l, tu, "status", false, "agentToolUse");
    check_enum(l, status, "tool status", TOOL_STATUSES, false);
    const YNode *ex = ymap_get(tu, "toolExecution");
    if (!ex) {
        uint32_t res = val_of(l, result);
        op(l, status ? status : at, OP_TOOL_RESULT, name, status ? str_of(l, status) : cs(l, "ok"), res);
        return;
    }
    static const char *const ex_keys[] = { "startTimeMs", "events", NULL };
    static const char *const ev_keys[] = { "type", "timeMs", "content", "exitCode", NULL };
    if (!is_map(ex)) {
        want_kind(l, ex, "'toolExecution'", "mapping");
        return;
    }
    check_keys(l, ex, "toolExecution", ex_keys);
    uint64_t start;
    if (ymap_get(ex, "startTimeMs"))
        get_uint(l, ex, "startTimeMs", false, "toolExecution", &start);
    const YNode *evs = ymap_get(ex, "events");
    if (!evs)
        return;
    if (!is_seq(evs)) {
        want_kind(l, evs, "toolExecution 'events'", "sequence");
        return;
    }
    uint64_t last = 0;
    for (uint32_t i = 0; i < evs->n; i++) {
        const YNode *e = &evs->u.items[i];
        if (!is_map(e)) {
            want_kind(l, e, "a toolExecution event", "mapping");
            continue;
        }
        check_keys(l, e, "a toolExecution event", ev_keys);
        const YNode *type = get_text(l, e, "type", true, "a toolExecution event");
        uint64_t tm = 0;
        if (!get_uint(l, e, "timeMs", true, "a toolExecution event", &tm))
            continue;
        if (tm < last) {
            const YNode *tn = ymap_get(e, "timeMs");
            fe_err(&l->fe, tn, "toolExecution timeMs %llu is earlier than the event before it (%llu)",
                (unsigned long long)tm, (unsigned long long)last);
            fe_note(&l->fe, tn, "timeMs values are offsets from the start of the execution, so they must not decrease");
            continue;
        }
        l->t += tm - last;
        last = tm;
        if (!type)
            continue;
        check_enum(l, type, "toolExecution event type", EXEC_TYPES, true);
        const YNode *content = get_text(l, e, "content", false, "a toolExecution event");
        if (strcmp(type->u.s, "completion") == 0) {
            uint64_t code = 0;
            const YNode *cn = ymap_get(e, "exitCode");
            if (cn && !(is_scalar(cn) && cn->type == YT_INT))
                want_kind(l, cn, "'exitCode'", "integer");
            else if (cn)
                code = yint(cn) != 0;
            uint32_t res = val_of(l, result);
            op(l, e, OP_TOOL_RESULT, name, cs(l, code ? "error" : "success"), res);
        } else if (fe_in_list(type->u.s, EXEC_TYPES) && content) {
            uint32_t kind = str_of(l, type);
            op(l, e, OP_TOOL_PROGRESS, name, str_of(l, content), kind);
        }
    }
}

static void lower_tool_use(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_map(v)) {
        want_kind(l, v, "agentToolUse", "mapping");
        return;
    }
    check_keys(l, v, "agentToolUse", TOOL_FIELDS);
    const YNode *name = get_text(l, v, "toolName", true, "agentToolUse");
    const YNode *args = ymap_get(v, "args");
    if (args && !is_map(args) && !is_null(args)) {
        want_kind(l, args, "'args'", "mapping");
        args = NULL;
    }
    const YNode *id = get_text(l, v, "toolCallId", false, "agentToolUse");
    get_meta(l, v, NULL);
    if (!name)
        return;
    uint32_t n = str_of(l, name);
    uint32_t argv;
    if (args && is_map(args)) {
        argv = val_of(l, args);
    } else {
        bcb_val_begin(l->b);
        bcb_val_map(l->b, 0);
        argv = bcb_val_end(l->b);
    }
    op(l, key, OP_TOOL_START, n, argv, id ? bcb_strval(l->b, str_of(l, id)) : l->null_val);
    lower_tool_body(l, v, n, key);
}

/* Tool shorthands: `runCmd: {cmd: ...}` is agentToolUse with toolName
** runCmd and the tool's fields as args; tool-use fields (result, status,
** progress, toolExecution, toolCallId, _meta) may sit beside them. */
typedef struct ToolDef {
    const char *name;
    const char *required[3];
    const char *optional[10];
} ToolDef;

static const ToolDef TOOLS[] = {
    { "runCmd", { "cmd" }, { "cwd", "timeout", "description", "run_in_background" } },
    { "grep", { "pattern" }, { "path", "glob", "output_mode", "-B", "-A", "-C", "-n", "-i", "type", "head_limit" } },
    { "readFile", { "path" }, { "encoding", "offset", "limit" } },
    { "listDir", { "path" }, { "recursive", "pattern" } },
    { "find", { "path" }, { "name", "type" } },
    { "sed", { "expression", "path" }, { "inplace" } },
    { "editFile", { "path", "old_string", "new_string" }, { "replace_all" } },
    { "writeFile", { "path", "content" }, { NULL } },
    { "task", { "description", "prompt" }, { "subagent_type" } },
    { "webFetch", { "url", "prompt" }, { NULL } },
    { "webSearch", { "query" }, { "allowed_domains", "blocked_domains" } },
    { "todoWrite", { "todos" }, { NULL } },
    { "notebookEdit", { "notebook_path", "new_source" }, { "cell_id", "cell_type", "edit_mode" } },
    { "exitPlanMode", { "plan" }, { NULL } },
    { "bashOutput", { "bash_id" }, { "filter" } },
    { "killShell", { "shell_id" }, { NULL } },
    { "slashCommand", { "command" }, { NULL } },
};
enum { N_TOOLS = sizeof TOOLS / sizeof TOOLS[0] };

static const ToolDef *tool_def(const char *name)
{
    for (size_t i = 0; i < N_TOOLS; i++)
        if (strcmp(TOOLS[i].name, name) == 0)
            return &TOOLS[i];
    return NULL;
}

static bool tool_field(const char *k)
{
    return fe_in_list(k, (const char *const[]){ "progress", "result", "status", "toolExecution",
                                             "toolCallId", "_meta", "meta", NULL });
}

static void lower_tool_shorthand(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    const ToolDef *td = tool_def(key->u.s);
    if (!is_map(v)) {
        want_kind(l, v, key->u.s, "mapping of its fields");
        return;
    }
    uint32_t n_args = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        const char *k = v->u.pairs[i].key.u.s;
        if (tool_field(k))
            continue;
        n_args++;
        bool known = false;
        for (size_t r = 0; r < 3 && td->required[r]; r++)
            known |= strcmp(k, td->required[r]) == 0;
        for (size_t r = 0; r < 10 && td->optional[r]; r++)
            known |= strcmp(k, td->optional[r]) == 0;
        if (!known)
            fe_warn(&l->fe, "unknown-key", &v->u.pairs[i].key, "'%s' is not a field of the %s tool", k, td->name);
    }
    for (size_t r = 0; r < 3 && td->required[r]; r++)
        if (!ymap_get(v, td->required[r]))
            fe_err(&l->fe, v, "%s needs '%s'", td->name, td->required[r]);
    const YNode *id = get_text(l, v, "toolCallId", false, key->u.s);
    get_meta(l, v, NULL);
    bcb_val_begin(l->b);
    bcb_val_map(l->b, n_args);
    for (uint32_t i = 0; i < v->n; i++) {
        if (tool_field(v->u.pairs[i].key.u.s))
            continue;
        bcb_val_key(l->b, str_of(l, &v->u.pairs[i].key));
        yaml_value_emit(l->b, &v->u.pairs[i].val);
    }
    uint32_t args = bcb_val_end(l->b);
    uint32_t name = str_of(l, key);
    op(l, key, OP_TOOL_START, name, args, id ? bcb_strval(l->b, str_of(l, id)) : l->null_val);
    lower_tool_body(l, v, name, key);
}

static void lower_edits(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const keys[] = { "path", "linesAdded", "linesRemoved", "_meta", NULL };
    (void)item;
    if (!is_map(v)) {
        want_kind(l, v, "agentEdits", "mapping");
        return;
    }
    check_keys(l, v, "agentEdits", keys);
    const YNode *path = get_text(l, v, "path", true, "agentEdits");
    uint64_t add = 0, del = 0;
    get_uint(l, v, "linesAdded", false, "agentEdits", &add);
    get_uint(l, v, "linesRemoved", false, "agentEdits", &del);
    if (path)
        op(l, key, OP_FILE_EDIT, str_of(l, path), (uint32_t)(add > UINT32_MAX ? UINT32_MAX : add),
           (uint32_t)(del > UINT32_MAX ? UINT32_MAX : del));
}

static void lower_plan(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const keys[] = { "entries", "planUpdate", "_meta", NULL };
    if (!is_map(v)) {
        want_kind(l, v, "agentPlan", "mapping");
        return;
    }
    check_keys(l, v, "agentPlan", keys);
    get_bool(l, v, "planUpdate", true, "agentPlan");
    get_meta(l, v, item);
    const YNode *entries = ymap_get(v, "entries");
    check_plan_entries(l, entries, v);
    if (is_seq(entries))
        op(l, key, OP_PLAN_UPDATE, entries->n, val_of(l, entries));
}

static void lower_mode(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    bool model = strcmp(key->u.s, "setModel") == 0;
    const char *field = model ? "modelId" : "modeId";
    const char *const keys[] = { field, "_meta", NULL };
    if (!is_map(v)) {
        want_kind(l, v, key->u.s, "mapping");
        return;
    }
    check_keys(l, v, key->u.s, keys);
    const YNode *id = get_text(l, v, field, true, key->u.s);
    const YNode *meta = get_meta(l, v, item);
    if (model && !l->unstable) {
        fe_err(&l->fe, key, "setModel is an unstable ACP method; enable it with 'unstable: true' in the acp section");
    }
    if (id) {
        uint32_t m = val_of(l, meta);
        op(l, key, model ? OP_SET_MODEL : OP_SET_MODE, str_of(l, id), m);
    }
}

static void lower_actions(L *l, const YNode *key, const YNode *v, const YNode *item);

/* ------------------------------------------------------------------ */
/* user events                                                        */

static const char *const TARGETS[] = { "tui", "webui", "cli", NULL };

/* The text a prompt shows: a string input, else the first text block,
** else the first resource block's text.  NULL when there is none. */
static const YNode *input_text(const YNode *input)
{
    if (is_scalar(input) && !is_null(input))
        return input;
    if (!is_seq(input))
        return NULL;
    for (uint32_t i = 0; i < input->n; i++) {
        const YNode *b = &input->u.items[i];
        const YNode *t = ymap_get(b, "type");
        if (is_map(b) && t && yscalar_is(t, "text") && is_scalar(ymap_get(b, "text")))
            return ymap_get(b, "text");
    }
    for (uint32_t i = 0; i < input->n; i++) {
        const YNode *b = &input->u.items[i];
        const YNode *t = ymap_get(b, "type");
        const YNode *r = ymap_get(b, "resource");
        if (is_map(b) && t && yscalar_is(t, "resource") && is_map(r) && is_scalar(ymap_get(r, "text")))
            return ymap_get(r, "text");
    }
    return NULL;
}

static void check_expected_response(L *l, const YNode *er, const char *what)
{
    static const char *const keys[] = { "sessionId", "stopReason", "usage", "_meta", NULL };
    if (!er)
        return;
    if (!is_map(er)) {
        want_kind(l, er, what, "mapping");
        return;
    }
    check_keys(l, er, what, keys);
    const YNode *sr = get_text(l, er, "stopReason", false, what);
    if (sr && sr->n == 0)
        fe_err(&l->fe, sr, "%s 'stopReason' is empty", what);
    const YNode *sid = get_text(l, er, "sessionId", false, what);
    if (sid && sid->n == 0)
        fe_err(&l->fe, sid, "%s 'sessionId' is empty", what);
}

/* The ACP baseline is text and resource_link; image, audio and embedded
** resources in a prompt need the matching prompt capability.  Checked only
** when the scenario says the capability is off (absent: no claim made). */
static void check_capability(L *l, const YNode *blk)
{
    const YNode *t = is_map(blk) ? ymap_get(blk, "type") : NULL;
    if (!t || !is_scalar(t))
        return;
    static const struct { const char *type, *cap; size_t off; } gates[] = {
        { "image", "image", offsetof(L, cap_image) },
        { "audio", "audio", offsetof(L, cap_audio) },
        { "resource", "embeddedContext", offsetof(L, cap_embedded) },
    };
    for (size_t i = 0; i < sizeof gates / sizeof gates[0]; i++) {
        if (strcmp(t->u.s, gates[i].type) != 0)
            continue;
        if (*(const int *)((const char *)l + gates[i].off) == 0)
            fe_err(&l->fe, t, "%s content in a prompt needs the '%s' prompt capability, which acp.capabilities turns off",
                gates[i].type, gates[i].cap);
    }
}

static void lower_inputs(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const entry_keys[] = { "relativeTime", "input", "_meta", "expectedResponse", "target", NULL };
    const YNode *item_meta = get_meta(l, NULL, item);
    const YNode *item_target = is_map(item) ? get_text(l, item, "target", false, "userInputs") : NULL;
    check_enum(l, item_target, "target", TARGETS, true);
    if (!is_seq(v)) {
        want_kind(l, v, "userInputs", "sequence of inputs");
        return;
    }
    bool took_prompt = false;
    for (uint32_t i = 0; i < v->n; i++) {
        const YNode *e = &v->u.items[i], *time, *input, *target = item_target;
        const YNode *extras = NULL;
        if (is_seq(e)) {
            if (e->n != 2) {
                fe_err(&l->fe, e, "a userInputs entry must be [milliseconds, input], not %u items", e->n);
                continue;
            }
            time = &e->u.items[0];
            input = &e->u.items[1];
        } else if (is_map(e)) {
            check_keys(l, e, "a userInputs entry", entry_keys);
            time = ymap_get(e, "relativeTime");
            input = ymap_get(e, "input");
            if (!time)
                fe_err(&l->fe, e, "a userInputs entry needs 'relativeTime'");
            if (!input)
                fe_err(&l->fe, e, "a userInputs entry needs 'input'");
            if (!time || !input)
                continue;
            const YNode *tg = get_text(l, e, "target", false, "a userInputs entry");
            if (tg) {
                check_enum(l, tg, "target", TARGETS, true);
                target = tg;
            }
            check_expected_response(l, ymap_get(e, "expectedResponse"), "expectedResponse");
            extras = e;
        } else {
            fe_err(&l->fe, e, "a userInputs entry must be {relativeTime, input} or [milliseconds, input], not %s %s",
                a_or_an(ykind_name(e)), ykind_name(e));
            continue;
        }
        uint64_t at;
        if (!uint_of(l, time, "userInputs relativeTime", &at))
            continue;
        if (is_seq(input)) {
            for (uint32_t k = 0; k < input->n; k++) {
                uint32_t len;
                const YNode *blk = &input->u.items[k];
                check_block(l, blk, &len);
                check_capability(l, blk);
            }
        } else if (!is_scalar(input) || is_null(input)) {
            want_kind(l, input, "'input'", "string or sequence of content blocks");
            continue;
        }
        uint64_t rel = at;
        if (l->spec) {
            /* concurrent with the agent: from the segment's start, and the
            ** clock does not move; inputs alone must not go back in time */
            at = l->seg_start + rel;
            if (l->last_user_node && at < l->last_user) {
                fe_err(&l->fe, time, "userInputs relativeTime %llu (%llu ms from the start) is earlier than the input before "
                             "it (%llu ms)", (unsigned long long)rel, (unsigned long long)at,
                    (unsigned long long)l->last_user);
                fe_note(&l->fe, time, "on the spec clock userInputs times count from the last baseTimeDelta, and inputs "
                              "are sent in order");
                continue;
            }
            l->last_user = at;
            l->last_user_node = time;
        } else if (at < l->t) {
            fe_err(&l->fe, time, "userInputs relativeTime %llu is earlier than the timeline position %llu",
                (unsigned long long)at, (unsigned long long)l->t);
            fe_note(&l->fe, time, "userInputs times are absolute (from the scenario start) and the events before this one end at %llu ms",
                 (unsigned long long)l->t);
            continue;
        } else {
            l->t = at;
        }
        if (at - l->seg_start >= l->seg_user) {
            l->seg_user = at - l->seg_start;
            l->seg_user_node = time;
        }
        const YNode *text = input_text(input);
        uint32_t text_s;
        if (text) {
            text_s = str_of(l, text);
        } else {
            /* No text to show: the input as compact JSON (docs/timing.md). */
            Buf js;
            buf_init(&js);
            ynode_json(&js, input);
            text_s = bcb_str(l->b, js.oom ? "" : (const char *)js.data, js.oom ? 0 : js.len);
            buf_fini(&js);
        }
        if (text && !took_prompt) {
            took_prompt = true;
            if (!l->prompt_any) {
                l->prompt_any = text->u.s;
                l->prompt_any_len = text->n;
            }
            if (l->after_session && !l->prompt_after) {
                l->prompt_after = text->u.s;
                l->prompt_after_len = text->n;
            }
        }
        /* Extras: the entry's _meta (else the one beside userInputs, which
        ** then applies to every entry) and expectedResponse. */
        const YNode *meta = extras ? get_meta(l, extras, NULL) : NULL;
        const YNode *er = extras ? ymap_get(extras, "expectedResponse") : NULL;
        if (!meta)
            meta = item_meta;
        uint32_t extra_val = l->null_val;
        if (meta || er) {
            bcb_val_begin(l->b);
            bcb_val_map(l->b, (meta != NULL) + (er != NULL));
            if (meta) {
                bcb_val_key(l->b, cs(l, "_meta"));
                yaml_value_emit(l->b, meta);
            }
            if (er) {
                bcb_val_key(l->b, cs(l, "expectedResponse"));
                yaml_value_emit(l->b, er);
            }
            extra_val = bcb_val_end(l->b);
        }
        uint32_t in = val_of(l, input);
        op_at(l, at, is_seq(e) || is_map(e) ? e : key, OP_USER_INPUT,
              target ? bcb_strval(l->b, str_of(l, target)) : l->null_val, text_s, in, extra_val);
    }
}

static void lower_user_edits(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const keys[] = { "patch", NULL };
    (void)item;
    if (!is_map(v)) {
        want_kind(l, v, "userEdits", "mapping");
        return;
    }
    check_keys(l, v, "userEdits", keys);
    const YNode *p = get_text(l, v, "patch", true, "userEdits");
    if (p && check_rel_path(l, p, "patch", true))
        op(l, key, OP_USER_EDITS, str_of(l, p));
}

/* Shell-quotes one word for the display form of a command. */
static void shell_word(Buf *b, const char *s, size_t n)
{
    bool plain = n > 0;
    for (size_t i = 0; i < n && plain; i++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", s[i]) != NULL;
    if (plain) {
        buf_put(b, s, n);
        return;
    }
    buf_putc(b, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            buf_puts(b, "'\\''");
        else
            buf_putc(b, s[i]);
    }
    buf_putc(b, '\'');
}

static void lower_user_command(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const keys[] = { "cmd", "cwd", "program", "args", "expect", "_meta", NULL };
    (void)item;
    if (is_scalar(v) && !is_null(v)) {
        uint32_t whole = val_of(l, v);
        op(l, key, OP_USER_COMMAND, str_of(l, v), l->null_val, whole);
        return;
    }
    if (!is_map(v)) {
        want_kind(l, v, "userCommand", "mapping");
        return;
    }
    check_keys(l, v, "userCommand", keys);
    const YNode *cmd = get_text(l, v, "cmd", false, "userCommand");
    const YNode *cwd = get_text(l, v, "cwd", false, "userCommand");
    const YNode *args = ymap_get(v, "args");
    const YNode *prog = get_text(l, v, "program", false, "userCommand");
    if (cwd)
        check_rel_path(l, cwd, "userCommand cwd", false);
    uint32_t cmd_s;
    if (cmd) {
        if (args || prog)
            fe_err(&l->fe, cmd, "userCommand has both 'cmd' and 'program'/'args'; use one form");
        cmd_s = str_of(l, cmd);
    } else if (args) {
        /* The Agent Harbor test-runner form: program (default `ah`) + args. */
        if (!is_seq(args)) {
            want_kind(l, args, "userCommand 'args'", "sequence of strings");
            return;
        }
        Buf b;
        buf_init(&b);
        if (prog)
            shell_word(&b, prog->u.s, prog->n);
        else
            buf_puts(&b, "ah");
        for (uint32_t i = 0; i < args->n; i++) {
            const YNode *a = &args->u.items[i];
            if (!is_scalar(a) || is_null(a)) {
                want_kind(l, a, "a userCommand argument", "string");
                continue;
            }
            buf_putc(&b, ' ');
            shell_word(&b, a->u.s, a->n);
        }
        cmd_s = bcb_str(l->b, b.oom ? "" : (const char *)b.data, b.oom ? 0 : b.len);
        buf_fini(&b);
    } else {
        fe_err(&l->fe, v, "userCommand needs 'cmd'");
        return;
    }
    const YNode *ex = ymap_get(v, "expect");
    if (ex && !is_map(ex))
        want_kind(l, ex, "userCommand 'expect'", "mapping");
    uint32_t whole = val_of(l, v);
    op(l, key, OP_USER_COMMAND, cmd_s, cwd ? bcb_strval(l->b, str_of(l, cwd)) : l->null_val, whole);
}

/* `event: true`, bare `- event`, `event: {}` or `event:` all mean "on". */
static bool flag_event(L *l, const YNode *key, const YNode *v)
{
    if (is_null(v) || (is_map(v) && v->n == 0))
        return true;
    if (is_scalar(v) && v->type == YT_BOOL)
        return ybool(v);
    char w[64];
    snprintf(w, sizeof w, "'%s'", key->u.s);
    want_kind(l, v, w, "boolean");
    return false;
}

static void lower_cancel(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (flag_event(l, key, v))
        op(l, key, OP_USER_CANCEL);
}

/* ------------------------------------------------------------------ */
/* harness and control events                                         */

static void lower_delta(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    uint64_t d;
    if (!uint_of(l, v, key->u.s, &d))
        return;
    if (d < l->seg_user) {
        fe_err(&l->fe, v, "%s %llu is smaller than the concurrent user activity it must cover (%llu ms)",
            key->u.s, (unsigned long long)d, (unsigned long long)l->seg_user);
        fe_note(&l->fe, l->seg_user_node, "this userInputs entry is %llu ms after the segment's start",
             (unsigned long long)l->seg_user);
    }
    if (l->spec) {
        /* the segment starts d after the last one; agent events are
        ** sequential, so the clock does not go back if they ran longer */
        l->seg_start += d;
        if (l->t < l->seg_start)
            l->t = l->seg_start;
    } else {
        l->t += d;
        l->seg_start = l->t;
    }
    l->seg_user = 0;
    l->seg_user_node = NULL;
}

static void lower_screenshot(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_scalar(v) || is_null(v) || v->n == 0) {
        fe_err(&l->fe, v, "screenshot needs a label (a non-empty string)");
        return;
    }
    op(l, key, OP_SCREENSHOT, str_of(l, v));
}

static void lower_log(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    const YNode *msg = v, *meta = get_meta(l, NULL, item);
    if (is_map(v)) {
        static const char *const keys[] = { "message", "_meta", NULL };
        check_keys(l, v, "log", keys);
        msg = get_text(l, v, "message", true, "log");
        meta = get_meta(l, v, item);
        if (!msg)
            return;
    } else if (!is_scalar(v) || is_null(v)) {
        want_kind(l, v, "log", "string");
        return;
    }
    uint32_t m = val_of(l, meta);
    op(l, key, OP_LOG, str_of(l, msg), m);
}

static void want_str_list(L *l, const YNode *n, const char *what)
{
    if (!n)
        return;
    if (!is_seq(n)) {
        want_kind(l, n, what, "sequence of strings");
        return;
    }
    for (uint32_t i = 0; i < n->n; i++)
        if (!is_scalar(&n->u.items[i]) || is_null(&n->u.items[i]))
            want_kind(l, &n->u.items[i], what, "string");
}

static void lower_assert(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const keys[] = { "fs", "text", "json", "git", NULL };
    static const char *const fs_keys[] = { "exists", "notExists", "contains", NULL };
    static const char *const fc_keys[] = { "path", "text", NULL };
    static const char *const text_keys[] = { "contains", NULL };
    static const char *const json_keys[] = { "file", NULL };
    static const char *const jf_keys[] = { "path", "pointer", "equals", NULL };
    static const char *const git_keys[] = { "commit", NULL };
    static const char *const gc_keys[] = { "messageContains", NULL };
    (void)item;
    if (!is_map(v)) {
        want_kind(l, v, "assert", "mapping");
        return;
    }
    check_keys(l, v, "assert", keys);
    const YNode *fs = ymap_get(v, "fs"), *text = ymap_get(v, "text");
    const YNode *json = ymap_get(v, "json"), *git = ymap_get(v, "git");
    if (fs) {
        if (!is_map(fs))
            want_kind(l, fs, "assert.fs", "mapping");
        check_keys(l, fs, "assert.fs", fs_keys);
        want_str_list(l, ymap_get(fs, "exists"), "assert.fs.exists");
        want_str_list(l, ymap_get(fs, "notExists"), "assert.fs.notExists");
        /* scc's extension (docs/scenario.md): [{path, text}], the file holds text */
        const YNode *fc = ymap_get(fs, "contains");
        if (fc && !is_seq(fc)) {
            want_kind(l, fc, "assert.fs.contains", "sequence of {path, text}");
        } else if (fc) {
            for (uint32_t i = 0; i < fc->n; i++) {
                const YNode *e = &fc->u.items[i];
                if (!is_map(e)) {
                    want_kind(l, e, "an assert.fs.contains entry", "mapping {path, text}");
                    continue;
                }
                check_keys(l, e, "an assert.fs.contains entry", fc_keys);
                get_text(l, e, "path", true, "an assert.fs.contains entry");
                get_text(l, e, "text", true, "an assert.fs.contains entry");
            }
        }
    }
    if (text) {
        if (!is_map(text))
            want_kind(l, text, "assert.text", "mapping");
        check_keys(l, text, "assert.text", text_keys);
        want_str_list(l, ymap_get(text, "contains"), "assert.text.contains");
    }
    if (json) {
        if (!is_map(json))
            want_kind(l, json, "assert.json", "mapping");
        check_keys(l, json, "assert.json", json_keys);
        const YNode *f = ymap_get(json, "file");
        if (f && !is_map(f))
            want_kind(l, f, "assert.json.file", "mapping");
        if (is_map(f)) {
            check_keys(l, f, "assert.json.file", jf_keys);
            get_text(l, f, "path", true, "assert.json.file");
            const YNode *p = get_text(l, f, "pointer", true, "assert.json.file");
            if (p && p->n && p->u.s[0] != '/')
                fe_err(&l->fe, p, "JSON pointer '%s' must be empty or start with '/'", p->u.s);
            if (!ymap_get(f, "equals"))
                fe_err(&l->fe, f, "assert.json.file needs 'equals'");
        }
    }
    if (git) {
        if (!is_map(git))
            want_kind(l, git, "assert.git", "mapping");
        check_keys(l, git, "assert.git", git_keys);
        const YNode *c = ymap_get(git, "commit");
        if (c && !is_map(c))
            want_kind(l, c, "assert.git.commit", "mapping");
        if (is_map(c)) {
            check_keys(l, c, "assert.git.commit", gc_keys);
            get_text(l, c, "messageContains", true, "assert.git.commit");
        }
    }
    op(l, key, OP_ASSERT, val_of(l, v));
}

static void lower_complete(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!flag_event(l, key, v))
        return;
    op(l, key, OP_COMPLETE);
    op(l, key, OP_STATUS, cs(l, "completed"));
    l->completed = true;
}

static void lower_merge(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (flag_event(l, key, v))
        op(l, key, OP_MERGE);
}

static void lower_status(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    if (!is_scalar(v) || is_null(v) || v->n == 0) {
        fe_err(&l->fe, v, "status needs a value (a non-empty string)");
        return;
    }
    op(l, key, OP_STATUS, str_of(l, v));
}

static void lower_session_start(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const keys[] = { "sessionId", "expectedPromptResponse", "_meta", NULL };
    if (!is_null(v) && !is_map(v)) {
        want_kind(l, v, "sessionStart", "mapping");
        return;
    }
    check_keys(l, v, "sessionStart", keys);
    const YNode *sid = is_map(v) ? get_text(l, v, "sessionId", false, "sessionStart") : NULL;
    if (sid && sid->n == 0)
        fe_err(&l->fe, sid, "sessionStart 'sessionId' is empty");
    if (is_map(v))
        check_expected_response(l, ymap_get(v, "expectedPromptResponse"), "expectedPromptResponse");
    get_meta(l, v, item);
    l->session_starts++;
    if (l->session_starts == 2) {
        fe_err(&l->fe, key, "only one sessionStart is allowed in a timeline");
        fe_note(&l->fe, l->session_node, "the first sessionStart is here");
    }
    if (!l->session_node)
        l->session_node = key;
    l->after_session = true;
    op(l, key, OP_SESSION_START, is_map(v) ? val_of(l, v) : l->null_val);
}

static void lower_initialize(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const keys[] = { "protocolVersion", "clientCapabilities", "clientInfo", "_meta", NULL };
    if (!is_map(v) && !is_null(v)) {
        want_kind(l, v, "initialize", "mapping");
        return;
    }
    check_keys(l, v, "initialize", keys);
    const YNode *er = is_map(item) ? ymap_get(item, "expectedResponse") : NULL;
    if (!er && is_map(v))
        er = ymap_get(v, "expectedResponse");
    if (er && !is_map(er))
        want_kind(l, er, "initialize expectedResponse", "mapping");
    get_meta(l, v, NULL);
    bcb_val_begin(l->b);
    bcb_val_map(l->b, 2);
    bcb_val_key(l->b, cs(l, "request"));
    yaml_value_emit(l->b, v);
    bcb_val_key(l->b, cs(l, "expectedResponse"));
    yaml_value_emit(l->b, er);
    op(l, key, OP_INITIALIZE, bcb_val_end(l->b));
}

static void lower_file_reads(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const keys[] = { "files", "_meta", NULL };
    static const char *const fkeys[] = { "path", "expectedContent", NULL };
    (void)item;
    if (!is_map(v)) {
        want_kind(l, v, "agentFileReads", "mapping");
        return;
    }
    check_keys(l, v, "agentFileReads", keys);
    const YNode *files = ymap_get(v, "files");
    if (!files) {
        fe_err(&l->fe, v, "agentFileReads needs 'files'");
        return;
    }
    if (!is_seq(files)) {
        want_kind(l, files, "agentFileReads 'files'", "sequence");
        return;
    }
    for (uint32_t i = 0; i < files->n; i++) {
        const YNode *f = &files->u.items[i];
        if (!is_map(f)) {
            want_kind(l, f, "an agentFileReads file", "mapping");
            continue;
        }
        check_keys(l, f, "an agentFileReads file", fkeys);
        const YNode *p = get_text(l, f, "path", true, "an agentFileReads file");
        if (p && p->u.s[0] != '/')
            fe_err(&l->fe, p, "agentFileReads path '%s' must be absolute", p->u.s);
    }
    op(l, key, OP_FILE_READS, val_of(l, files));
}

static void lower_permission(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    static const char *const keys[] = { "sessionId", "toolCall", "options", "decision", "granted", "_meta", NULL };
    static const char *const okeys[] = { "id", "label", "kind", NULL };
    static const char *const kinds[] = { "allow_once", "allow_always", "reject_once", "reject_always", NULL };
    static const char *const outcomes[] = { "selected", "cancelled", NULL };
    (void)item;
    if (!is_map(v)) {
        want_kind(l, v, "agentPermissionRequest", "mapping");
        return;
    }
    check_keys(l, v, "agentPermissionRequest", keys);
    get_meta(l, v, NULL);
    const YNode *opts = ymap_get(v, "options");
    const YNode *dec = ymap_get(v, "decision"), *granted = ymap_get(v, "granted");
    if (opts && !is_seq(opts)) {
        want_kind(l, opts, "'options'", "sequence");
        opts = NULL;
    }
    for (uint32_t i = 0; opts && i < opts->n; i++) {
        const YNode *o = &opts->u.items[i];
        if (!is_map(o)) {
            want_kind(l, o, "a permission option", "mapping");
            continue;
        }
        check_keys(l, o, "a permission option", okeys);
        get_text(l, o, "id", true, "a permission option");
        check_enum(l, get_text(l, o, "kind", true, "a permission option"), "permission option kind", kinds, true);
    }
    if (dec && granted) {
        fe_err(&l->fe, granted, "agentPermissionRequest has both 'granted' and 'decision'; use one");
    } else if (!dec && !granted) {
        fe_err(&l->fe, v, "agentPermissionRequest needs 'decision' or 'granted'");
    } else if (granted) {
        bool g = get_bool(l, v, "granted", false, "agentPermissionRequest");
        const char *want = g ? "allow_once" : "reject_once";
        bool found = false;
        for (uint32_t i = 0; opts && i < opts->n; i++) {
            const YNode *k = ymap_get(&opts->u.items[i], "kind");
            found |= k && yscalar_is(k, want);
        }
        if (!found)
            fe_err(&l->fe, granted, "'granted: %s' selects the first '%s' option, and there is none", g ? "true" : "false", want);
    } else if (!is_map(dec)) {
        want_kind(l, dec, "'decision'", "mapping");
    } else {
        static const char *const dkeys[] = { "outcome", "optionId", NULL };
        check_keys(l, dec, "decision", dkeys);
        const YNode *out = get_text(l, dec, "outcome", true, "decision");
        check_enum(l, out, "decision outcome", outcomes, true);
        const YNode *oid = get_text(l, dec, "optionId", false, "decision");
        if (out && yscalar_is(out, "selected") && !oid)
            fe_err(&l->fe, dec, "decision with outcome 'selected' needs 'optionId'");
        if (oid) {
            bool found = false;
            for (uint32_t i = 0; opts && i < opts->n; i++) {
                const YNode *id = ymap_get(&opts->u.items[i], "id");
                found |= id && is_scalar(id) && strcmp(id->u.s, oid->u.s) == 0;
            }
            if (!found)
                fe_err(&l->fe, oid, "decision optionId '%s' is not among the options", oid->u.s);
        }
    }
    op(l, key, OP_PERMISSION, val_of(l, v));
}

/* ------------------------------------------------------------------ */
/* the timeline                                                       */

typedef void (*EvFn)(L *l, const YNode *key, const YNode *v, const YNode *item);

enum { IN_TIMELINE = 1, IN_AGENT = 2, IN_USER = 4 };

static const struct Event {
    const char *name;
    EvFn fn;
    unsigned where;
} EVENTS[] = {
    { "llmResponse", lower_llm, IN_TIMELINE },
    { "agentToolUse", lower_tool_use, IN_TIMELINE | IN_AGENT },
    { "agentEdits", lower_edits, IN_TIMELINE | IN_AGENT },
    { "agentActions", lower_actions, IN_TIMELINE },
    { "userActions", lower_actions, IN_TIMELINE },
    { "agentPlan", lower_plan, IN_TIMELINE | IN_AGENT },
    { "setMode", lower_mode, IN_TIMELINE | IN_AGENT | IN_USER },
    { "setModel", lower_mode, IN_TIMELINE | IN_AGENT | IN_USER },
    { "userInputs", lower_inputs, IN_TIMELINE | IN_USER },
    { "userEdits", lower_user_edits, IN_TIMELINE | IN_USER },
    { "userCommand", lower_user_command, IN_TIMELINE | IN_USER },
    { "userCancelSession", lower_cancel, IN_TIMELINE | IN_USER },
    { "baseTimeDelta", lower_delta, IN_TIMELINE },
    { "advanceMs", lower_delta, IN_TIMELINE },
    { "screenshot", lower_screenshot, IN_TIMELINE },
    { "log", lower_log, IN_TIMELINE },
    { "assert", lower_assert, IN_TIMELINE },
    { "complete", lower_complete, IN_TIMELINE },
    { "merge", lower_merge, IN_TIMELINE },
    { "status", lower_status, IN_TIMELINE },
    { "sessionStart", lower_session_start, IN_TIMELINE },
    { "initialize", lower_initialize, IN_TIMELINE },
    { "agentFileReads", lower_file_reads, IN_TIMELINE | IN_AGENT },
    { "agentPermissionRequest", lower_permission, IN_TIMELINE | IN_AGENT },
};
enum { N_EVENTS = sizeof EVENTS / sizeof EVENTS[0] };

/* Keys that may stand beside the event key in a timeline item. */
static const char *const COMPANIONS[] = { "_meta", "meta", "target", "expectedResponse", NULL };

static const char *event_names[N_EVENTS + N_TOOLS + 1];

static const char *const *all_event_names(void)
{
    if (!event_names[0]) {
        size_t k = 0;
        for (size_t i = 0; i < N_EVENTS; i++)
            event_names[k++] = EVENTS[i].name;
        for (size_t i = 0; i < N_TOOLS; i++)
            event_names[k++] = TOOLS[i].name;
        event_names[k] = NULL;
    }
    return event_names;
}

/* Legacy and foreign shapes: an error that shows the modern form. */
static bool legacy_event(L *l, const YNode *k)
{
    const char *s = k->u.s;
    if (strcmp(s, "think") == 0 || strcmp(s, "assistant") == 0) {
        fe_err(&l->fe, k, "top-level '%s' is a legacy timeline shape and is not supported", s);
        fe_note(&l->fe, k, "wrap it in an llmResponse:  - llmResponse: [{%s: [[ms, \"text\"], ...]}]", s);
    } else if (strcmp(s, "type") == 0) {
        fe_err(&l->fe, k, "type-tagged timeline items are a legacy shape and are not supported");
        fe_note(&l->fe, k, "name the event by its key, e.g.  - agentToolUse: {toolName: ..., args: ...}");
    } else if (strcmp(s, "assertGit") == 0) {
        fe_err(&l->fe, k, "'assertGit' is not a Scenario-Format event");
        fe_note(&l->fe, k, "git checks are written  - assert: {git: {commit: {messageContains: \"...\"}}}");
    } else if (strcmp(s, "applyPatch") == 0) {
        fe_err(&l->fe, k, "'applyPatch' is not a Scenario-Format event");
        fe_note(&l->fe, k, "a patch the user applies is written  - userEdits: {patch: path/to/file.patch}");
    } else if (strcmp(s, "tool") == 0) {
        fe_err(&l->fe, k, "'tool' is a legacy timeline shape and is not supported");
        fe_note(&l->fe, k, "write  - agentToolUse: {toolName: ..., args: {...}}");
    } else {
        return false;
    }
    return true;
}

static void lower_item(L *l, const YNode *item, unsigned where, const char *ctx)
{
    if (is_scalar(item) && item->type == YT_STR) {
        /* The spec writes `- sessionStart` bare; events without fields may be. */
        static const char *const bare[] = { "sessionStart", "userCancelSession", "complete", "merge", NULL };
        if (fe_in_list(item->u.s, bare)) {
            for (size_t i = 0; i < N_EVENTS; i++)
                if (strcmp(EVENTS[i].name, item->u.s) == 0)
                    EVENTS[i].fn(l, item, NULL, NULL);
            return;
        }
    }
    if (!is_map(item)) {
        fe_err(&l->fe, item, "%s item must be a mapping with one event key, not %s %s", ctx,
            a_or_an(ykind_name(item)), ykind_name(item));
        if (is_scalar(item) && item->type == YT_STR)
            fe_suggest(&l->fe, item, item->u.s, all_event_names());
        return;
    }
    /* A type-tagged item ({type: think, text: ...}) is one legacy shape:
    ** one error, not one per key. */
    for (uint32_t i = 0; i < item->n; i++)
        if (strcmp(item->u.pairs[i].key.u.s, "type") == 0) {
            legacy_event(l, &item->u.pairs[i].key);
            return;
        }
    const YNode *ek = NULL, *ev = NULL;
    const struct Event *e = NULL;
    bool tool = false, bad = false;
    for (uint32_t i = 0; i < item->n; i++) {
        const YNode *k = &item->u.pairs[i].key;
        if (fe_in_list(k->u.s, COMPANIONS))
            continue;
        const struct Event *found = NULL;
        bool is_tool = false;
        for (size_t j = 0; j < N_EVENTS && !found; j++)
            if (strcmp(EVENTS[j].name, k->u.s) == 0)
                found = &EVENTS[j];
        if (!found && tool_def(k->u.s))
            is_tool = true;
        if (!found && !is_tool) {
            if (!legacy_event(l, k)) {
                fe_err(&l->fe, k, "unknown event '%s' in %s", k->u.s, ctx);
                fe_suggest(&l->fe, k, k->u.s, all_event_names());
            }
            bad = true;
            continue;
        }
        if (ek) {
            fe_err(&l->fe, k, "%s item has two events, '%s' and '%s'; give each its own list item", ctx, ek->u.s, k->u.s);
            bad = true;
            continue;
        }
        unsigned w = is_tool ? IN_TIMELINE | IN_AGENT : found->where;
        if (!(w & where)) {
            fe_err(&l->fe, k, "'%s' cannot appear in %s", k->u.s, ctx);
            bad = true;
            continue;
        }
        ek = k;
        ev = &item->u.pairs[i].val;
        e = found;
        tool = is_tool;
    }
    if (!ek) {
        if (!bad)
            fe_err(&l->fe, item, "%s item has no event", ctx);
        return;
    }
    const YNode *tgt = ymap_get(item, "target");
    if (tgt && strcmp(ek->u.s, "userInputs") != 0)
        fe_warn(&l->fe, "unknown-key", tgt, "'target' only applies to userInputs; it is ignored here");
    const YNode *er = ymap_get(item, "expectedResponse");
    if (er && strcmp(ek->u.s, "initialize") != 0)
        fe_warn(&l->fe, "unknown-key", er, "'expectedResponse' beside '%s' is ignored (it belongs to initialize or a userInputs entry)", ek->u.s);
    if (tool)
        lower_tool_shorthand(l, ek, ev, item);
    else
        e->fn(l, ek, ev, item);
}

static void lower_actions(L *l, const YNode *key, const YNode *v, const YNode *item)
{
    (void)item;
    bool agent = strcmp(key->u.s, "agentActions") == 0;
    if (!is_seq(v)) {
        want_kind(l, v, key->u.s, "sequence of events");
        return;
    }
    for (uint32_t i = 0; i < v->n; i++)
        lower_item(l, &v->u.items[i], agent ? IN_AGENT : IN_USER, agent ? "agentActions" : "userActions");
}

/* ------------------------------------------------------------------ */
/* top level                                                          */

static void check_repo(L *l, const YNode *r)
{
    static const char *const keys[] = { "init", "branch", "dir", "files", NULL };
    static const char *const fkeys[] = { "path", "contents", NULL };
    if (!is_map(r)) {
        want_kind(l, r, "repo", "mapping");
        return;
    }
    check_keys(l, r, "repo", keys);
    get_bool(l, r, "init", false, "repo");
    get_text(l, r, "branch", false, "repo");
    const YNode *dir = get_text(l, r, "dir", false, "repo");
    if (dir)
        check_rel_path(l, dir, "repo.dir", false);
    const YNode *files = ymap_get(r, "files");
    if (files && !is_seq(files))
        want_kind(l, files, "repo.files", "sequence");
    for (uint32_t i = 0; is_seq(files) && i < files->n; i++) {
        const YNode *f = &files->u.items[i];
        if (!is_map(f)) {
            want_kind(l, f, "a repo file", "mapping");
            continue;
        }
        check_keys(l, f, "a repo file", fkeys);
        const YNode *p = get_text(l, f, "path", true, "a repo file");
        if (p)
            check_rel_path(l, p, "repo file path", false);
        const YNode *c = ymap_get(f, "contents");
        if (!c) {
            fe_err(&l->fe, f, "a repo file needs 'contents'");
        } else if (is_map(c)) {
            const YNode *b64 = ymap_get(c, "base64");
            size_t bad;
            if (!b64 || !is_str(b64) || c->n != 1)
                fe_err(&l->fe, c, "repo file contents must be a string or {base64: \"...\"}");
            else if (b64->n && !b64_decode(b64->u.s, b64->n, NULL, &bad))
                fe_err(&l->fe, b64, "repo file contents are not valid base64");
        } else if (!is_scalar(c)) {
            want_kind(l, c, "repo file contents", "string");
        }
    }
}

static void check_ah(L *l, const YNode *a)
{
    static const char *const keys[] = { "cmd", "flags", "env", NULL };
    if (!is_map(a)) {
        want_kind(l, a, "ah", "mapping");
        return;
    }
    check_keys(l, a, "ah", keys);
    get_text(l, a, "cmd", false, "ah");
    want_str_list(l, ymap_get(a, "flags"), "ah.flags");
    const YNode *env = ymap_get(a, "env");
    if (env && !is_map(env))
        want_kind(l, env, "ah.env", "mapping");
    for (uint32_t i = 0; is_map(env) && i < env->n; i++)
        if (!is_scalar(&env->u.pairs[i].val))
            want_kind(l, &env->u.pairs[i].val, "an environment value", "string");
}

static void check_server(L *l, const YNode *s)
{
    static const char *const keys[] = { "mode", "llmApiStyle", "coalesceThinkingWithToolUse", NULL };
    static const char *const modes[] = { "none", "mock", "real", NULL };
    static const char *const styles[] = { "openai", "anthropic", NULL };
    if (!is_map(s)) {
        want_kind(l, s, "server", "mapping");
        return;
    }
    check_keys(l, s, "server", keys);
    check_enum(l, get_text(l, s, "mode", false, "server"), "server mode", modes, true);
    check_enum(l, get_text(l, s, "llmApiStyle", false, "server"), "llmApiStyle", styles, true);
    get_bool(l, s, "coalesceThinkingWithToolUse", true, "server");
}

static void check_acp(L *l, const YNode *a)
{
    static const char *const keys[] = { "capabilities", "cwd", "mcpServers", "unstable", NULL };
    static const char *const ckeys[] = { "loadSession", "promptCapabilities", "mcpCapabilities", NULL };
    static const char *const pkeys[] = { "image", "audio", "embeddedContext", NULL };
    static const char *const mkeys[] = { "http", "sse", NULL };
    if (!is_map(a)) {
        want_kind(l, a, "acp", "mapping");
        return;
    }
    check_keys(l, a, "acp", keys);
    l->unstable = get_bool(l, a, "unstable", false, "acp");
    const YNode *cwd = get_text(l, a, "cwd", false, "acp");
    if (cwd && cwd->u.s[0] != '/')
        fe_err(&l->fe, cwd, "acp.cwd '%s' must be an absolute path", cwd->u.s);
    const YNode *c = ymap_get(a, "capabilities");
    bool http = false, sse = false;
    if (c) {
        if (!is_map(c)) {
            want_kind(l, c, "acp.capabilities", "mapping");
        } else {
            check_keys(l, c, "acp.capabilities", ckeys);
            const YNode *ls = ymap_get(c, "loadSession");
            if (ls) {
                l->load_session = get_bool(l, c, "loadSession", false, "acp.capabilities");
                l->load_session_node = ls;
            }
            const YNode *p = ymap_get(c, "promptCapabilities");
            if (p && !is_map(p))
                want_kind(l, p, "promptCapabilities", "mapping");
            check_keys(l, p, "promptCapabilities", pkeys);
            int *caps[] = { &l->cap_image, &l->cap_audio, &l->cap_embedded };
            for (size_t i = 0; is_map(p) && pkeys[i]; i++)
                if (ymap_get(p, pkeys[i]))
                    *caps[i] = get_bool(l, p, pkeys[i], false, "promptCapabilities");
            const YNode *m = ymap_get(c, "mcpCapabilities");
            if (m && !is_map(m))
                want_kind(l, m, "mcpCapabilities", "mapping");
            check_keys(l, m, "mcpCapabilities", mkeys);
            if (is_map(m)) {
                http = get_bool(l, m, "http", false, "mcpCapabilities");
                sse = get_bool(l, m, "sse", false, "mcpCapabilities");
                if (sse)
                    fe_warn(&l->fe, "deprecated", ymap_get(m, "sse"), "the SSE transport for MCP is deprecated in ACP");
            }
        }
    }
    const YNode *servers = ymap_get(a, "mcpServers");
    if (servers && !is_seq(servers))
        want_kind(l, servers, "acp.mcpServers", "sequence");
    for (uint32_t i = 0; is_seq(servers) && i < servers->n; i++) {
        static const char *const skeys[] = { "name", "command", "args", "env", "url", "type", "headers", "transport", NULL };
        const YNode *s = &servers->u.items[i];
        if (!is_map(s)) {
            want_kind(l, s, "an MCP server", "mapping");
            continue;
        }
        check_keys(l, s, "an MCP server", skeys);
        const YNode *name = get_text(l, s, "name", true, "an MCP server");
        if (name && name->n == 0)
            fe_err(&l->fe, name, "MCP server 'name' is empty");
        const YNode *cmd = get_text(l, s, "command", false, "an MCP server");
        if (cmd && cmd->n == 0)
            fe_err(&l->fe, cmd, "MCP server '%s' has an empty command", name ? name->u.s : "");
        if (!cmd) {
            const YNode *tn = get_text(l, s, "type", false, "an MCP server");
            if (!tn)
                tn = get_text(l, s, "transport", false, "an MCP server");
            bool is_sse = tn && strcmp(tn->u.s, "sse") == 0;
            if (is_sse ? !sse : !http)
                fe_err(&l->fe, s, "MCP server '%s' uses the %s transport, which mcpCapabilities does not allow",
                    name ? name->u.s : "", is_sse ? "sse" : "http");
        }
        const YNode *env = ymap_get(s, "env");
        if (env && !is_map(env) && !is_seq(env))
            want_kind(l, env, "MCP server env", "mapping or sequence");
    }
}

static void check_expect(L *l, const YNode *e)
{
    static const char *const keys[] = { "exitCode", "artifacts", NULL };
    static const char *const akeys[] = { "type", "pattern", NULL };
    if (!is_map(e)) {
        want_kind(l, e, "expect", "mapping");
        return;
    }
    check_keys(l, e, "expect", keys);
    const YNode *ec = ymap_get(e, "exitCode");
    if (ec && !(is_scalar(ec) && ec->type == YT_INT))
        want_kind(l, ec, "expect.exitCode", "integer");
    const YNode *arts = ymap_get(e, "artifacts");
    if (arts && !is_seq(arts))
        want_kind(l, arts, "expect.artifacts", "sequence");
    for (uint32_t i = 0; is_seq(arts) && i < arts->n; i++) {
        const YNode *a = &arts->u.items[i];
        if (!is_map(a)) {
            want_kind(l, a, "an artifact", "mapping");
            continue;
        }
        check_keys(l, a, "an artifact", akeys);
        get_text(l, a, "pattern", true, "an artifact");
    }
}

/* Terminal-Config: {name?, width, height} in a JSON (or YAML-as-JSON) file. */
static void load_terminal(L *l, const YNode *ref, BcMeta *m)
{
    if (!check_rel_path(l, ref, "terminalRef", true))
        return;
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", l->o->base_dir ? l->o->base_dir : ".", ref->u.s);
    char *text;
    size_t len;
    int e = file_read_all(full, 1 << 20, &text, &len);
    if (e) {
        fe_err(&l->fe, ref, "cannot read terminalRef '%s': %s", ref->u.s, strerror(e));
        return;
    }
    cJSON *j = cJSON_ParseWithLength(text, len);
    sc_free(text);
    const cJSON *w = j ? cJSON_GetObjectItemCaseSensitive(j, "width") : NULL;
    const cJSON *h = j ? cJSON_GetObjectItemCaseSensitive(j, "height") : NULL;
    if (!j || !cJSON_IsObject(j))
        fe_err(&l->fe, ref, "terminalRef '%s' is not a JSON object", ref->u.s);
    else if (!cJSON_IsNumber(w) || !cJSON_IsNumber(h) || w->valuedouble < 1 || h->valuedouble < 1 ||
             w->valuedouble > 500 || h->valuedouble > 500)
        /* 500: what the PTY target and the tui-use data model allow, and
        ** what the verifier checks (term_width, term_height). */
        fe_err(&l->fe, ref, "terminalRef '%s' needs numeric 'width' and 'height' (1-500)", ref->u.s);
    else {
        m->term_width = (uint32_t)w->valuedouble;
        m->term_height = (uint32_t)h->valuedouble;
    }
    /* The profile name names screenshot folders (<scenario>/<name>/...). */
    const cJSON *name = j ? cJSON_GetObjectItemCaseSensitive(j, "name") : NULL;
    if (name && (!cJSON_IsString(name) || !*name->valuestring ||
                 strlen(name->valuestring) >= sizeof l->term_name || strchr(name->valuestring, '/')))
        fe_err(&l->fe, ref, "terminalRef '%s': 'name' must be a non-empty string under %zu bytes, without '/'",
            ref->u.s, sizeof l->term_name);
    else if (name)
        snprintf(l->term_name, sizeof l->term_name, "%s", name->valuestring);
    cJSON_Delete(j);
}

static const char *const TOP_KEYS[] = {
    "name", "tags", "terminalRef", "compat", "repo", "ah", "server", "acp", "timeline", "expect",
    "initialPrompt", "clock", NULL
};

static uint32_t defines_value(L *l)
{
    const Symtab *t = l->o->syms;
    size_t n = t ? t->n : 0;
    bcb_val_begin(l->b);
    bcb_val_map(l->b, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        const Sym *s = &t->v[i];
        bcb_val_key(l->b, cs(l, s->name));
        switch (s->type) {
        case SYM_BOOL: bcb_val_bool(l->b, s->b); break;
        case SYM_INT: bcb_val_int(l->b, s->i); break;
        case SYM_STR: bcb_val_str(l->b, cs(l, s->s)); break;
        }
    }
    return bcb_val_end(l->b);
}

/* The key node of map[name] (for positions), or NULL. */
static const YNode *key_node(const YNode *map, const char *name)
{
    for (uint32_t i = 0; is_map(map) && i < map->n; i++)
        if (strcmp(map->u.pairs[i].key.u.s, name) == 0)
            return &map->u.pairs[i].key;
    return NULL;
}

/* A mapping without a 'timeline' is not a Scenario-Format scenario:
** compiled, it would play nothing and check nothing, and a run of it
** would pass.  Say what it looks like instead (docs/dialects.md). */
static bool no_timeline(L *l, const YNode *root)
{
    static const struct {
        const char *key1, *key2;  /* both present (key2 NULL: key1 alone) */
        const char *what;
    } SHAPES[] = {
        { "base_scenario", "matrix", "an ElizaOS scenario matrix ('base_scenario', 'matrix')" },
        { "run", "judgment", "an ElizaOS scenario ('run', 'judgment')" },
        { "run", "environment", "an ElizaOS scenario ('run', 'environment')" },
        { "id", "input", "a Yao agent-test case ('id', 'input')" },
        { "turns", NULL, "an Agent Harbor mock-agent playbook ('turns')" },
        { "steps", NULL, "a file whose 'steps' are not tui-use steps (a tui-use scenario has 'run' and 'steps')" },
    };
    for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0]; i++) {
        const YNode *k1 = key_node(root, SHAPES[i].key1);
        if (!k1 || (SHAPES[i].key2 && !ymap_get(root, SHAPES[i].key2)))
            continue;
        fe_err(&l->fe, k1, "this looks like %s, not a scenario scc compiles: it has no 'timeline'", SHAPES[i].what);
        fe_note(&l->fe, k1, "as a Scenario-Format scenario (--dialect=scenario); scc also compiles tui-use, ElizaOS and "
                    "Yao files (--dialect=tui-use, eliza, yao); docs/dialects.md says what it does with the others");
        return false;
    }
    fe_err(&l->fe, root, "a scenario needs a 'timeline' (a sequence of events); without one it would play nothing "
                 "and check nothing");
    return false;
}

bool lower_scenario(const YDoc *doc, const LowerOpts *o, BcBuilder *b, Diags *diags)
{
    L l = { .doc = doc, .o = o, .b = b, .fe = { .d = diags, .file = doc->file }, .load_session = -1,
            .cap_image = -1, .cap_audio = -1, .cap_embedded = -1 };
    size_t errors_before = diags->errors;
    l.null_val = bcb_null(b);
    const YNode *root = doc->root;
    if (!root || is_null(root)) {
        diag_error(diags, doc->file, 0, 0, "empty scenario: expected a mapping with 'name' and 'timeline'");
        return false;
    }
    if (!is_map(root)) {
        want_kind(&l, root, "a scenario", "mapping");
        return false;
    }
    if (!ymap_get(root, "timeline") && !ymap_get(root, "events") && !ymap_get(root, "assertions"))
        return no_timeline(&l, root);
    for (uint32_t i = 0; i < root->n; i++) {
        const YNode *k = &root->u.pairs[i].key;
        if (strcmp(k->u.s, "events") == 0 || strcmp(k->u.s, "assertions") == 0) {
            fe_err(&l.fe, k, "'%s' is a legacy key; only 'timeline' is supported", k->u.s);
            fe_note(&l.fe, k, "put the events in  timeline: [...]  and the checks in  - assert: {...}  events");
        } else if (!fe_in_list(k->u.s, TOP_KEYS)) {
            fe_warn(&l.fe, "unknown-key", k, "unknown top-level key '%s'; it is ignored", k->u.s);
            fe_suggest(&l.fe, k, k->u.s, TOP_KEYS);
        }
    }
    BcMeta m = { 0 };
    const YNode *name = get_text(&l, root, "name", false, "a scenario");
    if (!name || name->n == 0 || strspn(name->u.s, " \t\r\n") == name->n) {
        fe_err(&l.fe, name ? name : root, "a scenario needs a non-empty 'name'");
        m.name = cs(&l, "");
    } else if (o->variant) {
        Buf full;
        buf_init(&full);
        buf_printf(&full, "%s@%s", name->u.s, o->variant);
        m.name = full.oom ? str_of(&l, name) : bcb_str(b, (const char *)full.data, full.len);
        buf_fini(&full);
    } else {
        m.name = str_of(&l, name);
    }
    /* The name and the tags are shown and matched; a "variant:NAME" tag is
    ** what scc --variant adds, and its NAME becomes part of a file name
    ** (scvm extract: <stem>@NAME.scb), so a scenario may not write one of
    ** its own (docs/security.md; the verifier refuses what gets past). */
    if (name && name->n && !bc_text_ok(name->u.s, name->n))
        fe_err(&l.fe, name, "the scenario's name has a control character");
    const YNode *tags = ymap_get(root, "tags");
    want_str_list(&l, tags, "tags");
    for (uint32_t i = 0; is_seq(tags) && i < tags->n; i++) {
        const YNode *t = &tags->u.items[i];
        if (!is_str(t))
            continue;
        if (t->n >= 8 && memcmp(t->u.s, "variant:", 8) == 0)
            fe_err(&l.fe, t, "the tag '%.60s' is reserved: 'variant:' tags are made by scc --pack --variant NAME:DEFINES",
                t->u.s);
        else if (!bc_text_ok(t->u.s, t->n))
            fe_err(&l.fe, t, "the tag has a control character");
    }
    if (o->variant) {
        /* the scenario's tags and "variant:NAME" */
        uint32_t nt = is_seq(tags) ? tags->n : 0;
        Buf vt;
        buf_init(&vt);
        buf_printf(&vt, "variant:%s", o->variant);
        uint32_t vs = vt.oom ? cs(&l, "variant") : bcb_str(b, (const char *)vt.data, vt.len);
        buf_fini(&vt);
        bcb_val_begin(b);
        bcb_val_array(b, nt + 1);
        for (uint32_t i = 0; i < nt; i++)
            bcb_val_str(b, is_str(&tags->u.items[i]) ? str_of(&l, &tags->u.items[i]) : cs(&l, ""));
        bcb_val_str(b, vs);
        m.tags = bcb_val_end(b);
    } else if (is_seq(tags)) {
        m.tags = val_of(&l, tags);
    } else {
        bcb_val_begin(b);
        bcb_val_array(b, 0);
        m.tags = bcb_val_end(b);
    }
    const YNode *sec;
    if ((sec = ymap_get(root, "repo")))
        check_repo(&l, sec);
    if ((sec = ymap_get(root, "ah")))
        check_ah(&l, sec);
    if ((sec = ymap_get(root, "server")))
        check_server(&l, sec);
    if ((sec = ymap_get(root, "acp")))
        check_acp(&l, sec);
    if ((sec = ymap_get(root, "expect")))
        check_expect(&l, sec);
    if ((sec = ymap_get(root, "compat"))) {
        static const char *const ck[] = { "allowInlineTerminal", "allowTypeSteps", NULL };
        if (!is_map(sec))
            want_kind(&l, sec, "compat", "mapping");
        check_keys(&l, sec, "compat", ck);
    }
    const YNode *term = get_text(&l, root, "terminalRef", false, "a scenario");
    if (term)
        load_terminal(&l, term, &m);
    const YNode *legacy_prompt = get_text(&l, root, "initialPrompt", false, "a scenario");
    if (legacy_prompt)
        fe_warn(&l.fe, "deprecated", legacy_prompt,
             "'initialPrompt' is not part of the Scenario-Format; the prompt is the first userInputs");

    /* The clock the timeline was written for: the file says, else the
    ** command line (docs/timing.md, "Two clocks"). */
    l.spec = o->spec_clock;
    const YNode *clock = get_text(&l, root, "clock", false, "a scenario");
    if (clock && strcmp(clock->u.s, "spec") == 0) {
        l.spec = true;
    } else if (clock && strcmp(clock->u.s, "reference") == 0) {
        l.spec = false;
    } else if (clock) {
        fe_err(&l.fe, clock, "clock must be 'spec' or 'reference', not '%s'", clock->u.s);
        fe_note(&l.fe, clock, "docs/timing.md describes both");
    }

    /* The reference player always starts with these two statuses. */
    op(&l, NULL, OP_STATUS, cs(&l, "queued"));
    op(&l, NULL, OP_STATUS, cs(&l, "running"));
    const YNode *tl = ymap_get(root, "timeline");
    if (tl && !is_seq(tl))
        want_kind(&l, tl, "timeline", "sequence of events");
    size_t ops_before = ops_so_far(&l);
    for (uint32_t i = 0; is_seq(tl) && i < tl->n; i++)
        lower_item(&l, &tl->u.items[i], IN_TIMELINE, "timeline");
    /* Only when nothing else is wrong: then it is the one thing to say. */
    if (is_seq(tl) && ops_so_far(&l) == ops_before && diags->errors == errors_before)
        fe_warn(&l.fe, "empty-scenario", key_node(root, "timeline"), "the timeline plays nothing and checks nothing; a run of it passes "
                                       "without testing anything");
    if (l.spec) {
        /* the run ends with its last event, a concurrent user input too */
        for (size_t i = 0; i < l.n_pend; i++)
            if (l.pend[i].t > l.t)
                l.t = l.pend[i].t;
    }
    if (!l.completed)
        op(&l, NULL, OP_STATUS, cs(&l, "completed"));
    if (l.spec)
        flush_pending(&l);
    op(&l, NULL, OP_END);

    if (l.load_session == 1 && l.session_starts == 0) {
        fe_err(&l.fe, l.load_session_node, "acp.capabilities.loadSession is true, so the timeline needs a sessionStart");
    } else if (l.session_starts && l.load_session != 1) {
        if (l.load_session == 0)
            fe_err(&l.fe, l.session_node, "the timeline has a sessionStart but acp.capabilities.loadSession is false");
        else
            fe_warn(&l.fe, "session-start", l.session_node,
                 "the timeline has a sessionStart but acp.capabilities.loadSession is not set; the spec requires it");
    }

    /* Metadata: the prompt, the resolved top-level sections, the defines. */
    if (l.prompt_after)
        m.prompt = bcb_strval(b, bcb_str(b, l.prompt_after, l.prompt_after_len));
    else if (l.prompt_any)
        m.prompt = bcb_strval(b, bcb_str(b, l.prompt_any, l.prompt_any_len));
    else if (legacy_prompt)
        m.prompt = bcb_strval(b, str_of(&l, legacy_prompt));
    else
        m.prompt = l.null_val;
    static const char *const config_keys[] = { "terminalRef", "compat", "repo", "ah", "server", "acp", "expect", NULL };
    /* config: the top-level sections as written (rules resolved), plus
    ** `terminal: {name?, width, height}` when terminalRef was loaded. */
    uint32_t n_config = (m.term_width != 0) + l.spec;
    for (size_t i = 0; config_keys[i]; i++)
        n_config += ymap_get(root, config_keys[i]) != NULL;
    bcb_val_begin(b);
    bcb_val_map(b, n_config);
    for (size_t i = 0; config_keys[i]; i++) {
        const YNode *v = ymap_get(root, config_keys[i]);
        if (v) {
            bcb_val_key(b, cs(&l, config_keys[i]));
            yaml_value_emit(l.b, v);
        }
    }
    if (l.spec) {
        /* recorded only when not the default, so reference bytecode is unchanged */
        bcb_val_key(b, cs(&l, "clock"));
        bcb_val_str(b, cs(&l, "spec"));
    }
    if (m.term_width) {
        bcb_val_key(b, cs(&l, "terminal"));
        bcb_val_map(b, 2 + (l.term_name[0] != 0));
        if (l.term_name[0]) {
            bcb_val_key(b, cs(&l, "name"));
            bcb_val_str(b, cs(&l, l.term_name));
        }
        bcb_val_key(b, cs(&l, "width"));
        bcb_val_int(b, m.term_width);
        bcb_val_key(b, cs(&l, "height"));
        bcb_val_int(b, m.term_height);
    }
    m.config = bcb_val_end(b);
    m.defines = defines_value(&l);
    m.source = cs(&l, o->source_name ? o->source_name : "");
    bcb_set_meta(b, &m);
    return diags->errors == errors_before && !diags->oom;
}
