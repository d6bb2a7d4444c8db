/* SPDX-License-Identifier: MIT */
/* bc_write.c - BcBuilder: interns strings, dedups values, checks ops against
** ops.def, and serialises everything into a .scb (docs/bytecode.md).
**
** Determinism: strings and values get indices in first-use order; the hash
** tables are only ever probed, never iterated, so their layout cannot leak
** into the output.  The zstd parameters are pinned below. */
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_createCCtx_advanced: allocate via sc_malloc */
#include "bc_write.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "common/sc_alloc.h"
#include "bc_zstd.h"
#include "common/utf8.h"
#include "common/vformat.h"

/* Level 3 (BC_DEFAULT_LEVEL), not 9: on a 1.5 MB scenario level 9 spent a
** quarter of the compile and a 12.5 MB context (the peak of scc's memory)
** to make files 2.7% smaller (bench/, docs/performance.md).  Frames use the
** built-in dictionary (bc_dict.c).  docs/bytecode.md, "Compression". */
#define BC_MAX_SAFE ((uint64_t)9007199254740991)  /* 2^53-1 */

typedef struct Span {
    size_t off;
    uint32_t len;
} Span;

/* Open-addressing set of indices (stored +1; 0 = empty) keyed by a Span of
** some byte buffer.  Capacity is a power of two, load kept under 1/2. */
typedef struct Index {
    uint32_t *slot;
    size_t cap;
} Index;

typedef struct Pool {
    Buf data;              /* the items' bytes, back to back */
    Span *item;
    uint32_t n, cap;
    Index index;
} Pool;

typedef struct OpRec {
    uint64_t t;
    uint32_t line, col;
    uint8_t op;
    uint32_t a[BC_MAX_OPERANDS];
} OpRec;

typedef struct Level {
    uint32_t left;         /* elements still to come */
    bool map, want_key;
} Level;

struct BcBuilder {
    Pool str, val;
    Buf cur;               /* the value being built */
    bool in_val, root_done;
    int depth;
    Level stack[BC_MAX_DEPTH];
    OpRec *ops;
    uint32_t n_ops, cap_ops;
    BcMeta meta;
    bool meta_set;
    bool failed;
    char err[256];
};

static void fail(BcBuilder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(BcBuilder *b, const char *fmt, ...)
{
    if (b->failed)
        return;              /* keep the first error: later ones are fallout */
    b->failed = true;
    SC_VFORMAT(b->err, sizeof b->err, fmt);
}

static void oom(BcBuilder *b) { fail(b, "out of memory"); }

BcBuilder *bcb_new(void)
{
    BcBuilder *b = sc_calloc(1, sizeof *b);
    if (!b)
        return NULL;
    buf_init(&b->str.data);
    buf_init(&b->val.data);
    buf_init(&b->cur);
    return b;
}

static void pool_fini(Pool *p)
{
    buf_fini(&p->data);
    sc_free(p->item);
    sc_free(p->index.slot);
}

void bcb_free(BcBuilder *b)
{
    if (!b)
        return;
    pool_fini(&b->str);
    pool_fini(&b->val);
    buf_fini(&b->cur);
    sc_free(b->ops);
    sc_free(b);
}

const char *bcb_error(const BcBuilder *b) { return b->failed ? b->err : NULL; }

/* The bytes of a pool item.  An all-empty pool has never allocated, and
** NULL + 0 is undefined behaviour (clang's UBSan reports it). */
static const unsigned char *pool_at(const Pool *p, size_t off)
{
    return p->data.data ? p->data.data + off : (const unsigned char *)"";
}

/* The pools' hash: XXH3, not XXH64, as pool items are short (most strings
** under 32 bytes), where XXH3 takes a fraction of XXH64's time (XXH64 was
** 2.3% of compiling a small scenario, callgrind).  The tables are only
** probed, so the hash never reaches the output. */
static size_t pool_hash(const void *s, size_t len)
{
    return (size_t)XXH3_64bits(s, len);
}

static bool index_grow(Index *ix, const Pool *p)
{
    size_t cap = ix->cap ? ix->cap * 2 : 64;
    uint32_t *slot = sc_calloc(cap, sizeof *slot);
    if (!slot)
        return false;
    for (uint32_t i = 0; i < p->n; i++) {
        const Span *s = &p->item[i];
        size_t h = pool_hash(pool_at(p, s->off), s->len) & (cap - 1);
        while (slot[h])
            h = (h + 1) & (cap - 1);
        slot[h] = i + 1;
    }
    sc_free(ix->slot);
    ix->slot = slot;
    ix->cap = cap;
    return true;
}

/* Returns the index of bytes [s, s+len) in the pool, adding them if new;
** UINT32_MAX when out of memory. */
static uint32_t pool_intern(Pool *p, const void *s, size_t len)
{
    if (len >= UINT32_MAX || p->n >= UINT32_MAX - 1)
        return UINT32_MAX;
    if ((size_t)p->n * 2 >= p->index.cap && !index_grow(&p->index, p))
        return UINT32_MAX;
    size_t mask = p->index.cap - 1;
    size_t h = pool_hash(s, len) & mask;
    for (; p->index.slot[h]; h = (h + 1) & mask) {
        const Span *it = &p->item[p->index.slot[h] - 1];
        if (it->len == len && memcmp(pool_at(p, it->off), s, len) == 0)
            return p->index.slot[h] - 1;
    }
    if (p->n == p->cap && !SC_GROW(p->item, p->cap, 64))
        return UINT32_MAX;
    size_t off = p->data.len;
    buf_put(&p->data, s, len);
    if (p->data.oom)
        return UINT32_MAX;
    p->item[p->n] = (Span){ off, (uint32_t)len };
    p->index.slot[h] = p->n + 1;
    return p->n++;
}

uint32_t bcb_str(BcBuilder *b, const char *s, size_t len)
{
    if (b->failed)
        return 0;
    size_t bad;
    if (!utf8_valid((const unsigned char *)s, len, &bad)) {
        fail(b, "string is not valid UTF-8 (byte %zu)", bad);
        return 0;
    }
    uint32_t i = pool_intern(&b->str, s, len);
    if (i == UINT32_MAX) {
        oom(b);
        return 0;
    }
    return i;
}

uint32_t bcb_cstr(BcBuilder *b, const char *s) { return bcb_str(b, s, strlen(s)); }

/* ---- values ---- */

void bcb_val_begin(BcBuilder *b)
{
    if (b->failed)
        return;
    if (b->in_val) {
        fail(b, "bcb_val_begin inside a value");
        return;
    }
    buf_reset(&b->cur);
    b->in_val = true;
    b->root_done = false;
    b->depth = 0;
}

/* Checks that an item (a key when is_key) may come next. */
static bool val_slot(BcBuilder *b, bool is_key)
{
    if (b->failed)
        return false;
    if (!b->in_val) {
        fail(b, "value item outside bcb_val_begin/bcb_val_end");
        return false;
    }
    if (b->depth == 0) {
        if (b->root_done || is_key) {
            fail(b, b->root_done ? "a value has exactly one root" : "map key outside a map");
            return false;
        }
        return true;
    }
    Level *l = &b->stack[b->depth - 1];
    if (l->want_key != is_key) {
        fail(b, is_key ? "map key where a value is expected" : "map value where a key is expected");
        return false;
    }
    return true;
}

/* A complete value was written: count it in its container, closing every
** container it completes. */
static void val_done(BcBuilder *b)
{
    while (b->depth > 0) {
        Level *l = &b->stack[b->depth - 1];
        l->left--;
        l->want_key = l->map;
        if (l->left > 0)
            return;
        b->depth--;
    }
    b->root_done = true;
}

static void val_scalar(BcBuilder *b, int tag)
{
    if (val_slot(b, false)) {
        buf_putc(&b->cur, tag);
        val_done(b);
    }
}

void bcb_val_null(BcBuilder *b) { val_scalar(b, BC_V_NULL); }
void bcb_val_bool(BcBuilder *b, bool v) { val_scalar(b, v ? BC_V_TRUE : BC_V_FALSE); }

void bcb_val_int(BcBuilder *b, int64_t v)
{
    if (val_slot(b, false)) {
        buf_putc(&b->cur, BC_V_INT);
        buf_varint(&b->cur, zigzag_enc(v));
        val_done(b);
    }
}

void bcb_val_float(BcBuilder *b, double v)
{
    if (!val_slot(b, false))
        return;
    uint64_t bits;
    if (v != v)
        bits = 0x7ff8000000000000u;     /* one NaN, so equal calls dedup */
    else
        memcpy(&bits, &v, 8);
    buf_putc(&b->cur, BC_V_FLOAT);
    buf_u64le(&b->cur, bits);
    val_done(b);
}

static bool str_ok(BcBuilder *b, uint32_t s)
{
    if (s < b->str.n)
        return true;
    fail(b, "string index %u out of range (%u strings)", s, b->str.n);
    return false;
}

void bcb_val_str(BcBuilder *b, uint32_t str_index)
{
    if (val_slot(b, false) && str_ok(b, str_index)) {
        buf_putc(&b->cur, BC_V_STR);
        buf_varint(&b->cur, str_index);
        val_done(b);
    }
}

void bcb_val_key(BcBuilder *b, uint32_t str_index)
{
    if (val_slot(b, true) && str_ok(b, str_index)) {
        buf_putc(&b->cur, BC_V_STR);
        buf_varint(&b->cur, str_index);
        b->stack[b->depth - 1].want_key = false;
    }
}

static void val_container(BcBuilder *b, int tag, uint32_t n)
{
    if (!val_slot(b, false))
        return;
    if (b->depth == BC_MAX_DEPTH) {
        fail(b, "value nested deeper than %d", (int)BC_MAX_DEPTH);
        return;
    }
    buf_putc(&b->cur, tag);
    buf_varint(&b->cur, n);
    if (n == 0) {
        val_done(b);
        return;
    }
    b->stack[b->depth++] = (Level){ n, tag == BC_V_MAP, tag == BC_V_MAP };
}

void bcb_val_array(BcBuilder *b, uint32_t n) { val_container(b, BC_V_ARRAY, n); }
void bcb_val_map(BcBuilder *b, uint32_t n) { val_container(b, BC_V_MAP, n); }

uint32_t bcb_val_end(BcBuilder *b)
{
    if (b->failed)
        return 0;
    if (!b->in_val || !b->root_done) {
        fail(b, b->in_val ? "bcb_val_end before the value is complete"
                          : "bcb_val_end without bcb_val_begin");
        return 0;
    }
    b->in_val = false;
    if (b->cur.oom) {
        oom(b);
        return 0;
    }
    uint32_t i = pool_intern(&b->val, b->cur.data, b->cur.len);
    if (i == UINT32_MAX) {
        oom(b);
        return 0;
    }
    return i;
}

uint32_t bcb_empty_array(BcBuilder *b)
{
    bcb_val_begin(b);
    bcb_val_array(b, 0);
    return bcb_val_end(b);
}

uint32_t bcb_empty_map(BcBuilder *b)
{
    bcb_val_begin(b);
    bcb_val_map(b, 0);
    return bcb_val_end(b);
}

uint32_t bcb_null(BcBuilder *b)
{
    bcb_val_begin(b);
    bcb_val_null(b);
    return bcb_val_end(b);
}

uint32_t bcb_strval(BcBuilder *b, uint32_t str_index)
{
    bcb_val_begin(b);
    bcb_val_str(b, str_index);
    return bcb_val_end(b);
}

/* ---- code ---- */

bool bcb_op(BcBuilder *b, BcOp op, uint64_t t, uint32_t line, uint32_t col, ...)
{
    if (b->failed)
        return false;
    if (b->in_val) {
        fail(b, "bcb_op inside a value");
        return false;
    }
    if ((unsigned)op >= OP__COUNT) {
        fail(b, "opcode %u out of range", (unsigned)op);
        return false;
    }
    const BcOpInfo *info = &bc_op_info[op];
    if (b->n_ops > 0) {
        const OpRec *last = &b->ops[b->n_ops - 1];
        if (bc_op_info[last->op].flags & OPF_END) {
            fail(b, "%s after END (op %u)", info->name, b->n_ops);
            return false;
        }
        if (t < last->t) {
            fail(b, "%s at %llu ms goes back in time (previous op at %llu ms)", info->name,
                 (unsigned long long)t, (unsigned long long)last->t);
            return false;
        }
    }
    if (t > BC_MAX_SAFE) {
        fail(b, "%s at %llu ms: time exceeds 2^53-1", info->name, (unsigned long long)t);
        return false;
    }
    OpRec r = { .t = t, .line = line, .col = col, .op = (uint8_t)op };
    va_list ap;
    va_start(ap, col);
    for (int k = 0; k < info->n_operands; k++)
        r.a[k] = va_arg(ap, uint32_t);
    va_end(ap);
    for (int k = 0; k < info->n_operands; k++) {
        char kind = info->operands[k];
        uint32_t lim = kind == 'S' ? b->str.n : kind == 'K' ? b->val.n : UINT32_MAX;
        if (kind != 'U' && r.a[k] >= lim) {
            fail(b, "%s operand %d: %s index %u out of range (%u %s)", info->name, k + 1,
                 kind == 'S' ? "string" : "value", r.a[k], lim,
                 kind == 'S' ? "strings" : "values");
            return false;
        }
    }
    if (b->n_ops == b->cap_ops) {
        uint32_t cap = b->cap_ops ? b->cap_ops * 2 : 64;
        OpRec *ops = cap > b->cap_ops ? sc_realloc(b->ops, (size_t)cap * sizeof *ops) : NULL;
        if (!ops) {
            oom(b);
            return false;
        }
        b->ops = ops;
        b->cap_ops = cap;
    }
    b->ops[b->n_ops++] = r;
    return true;
}

uint32_t bcb_n_ops(const BcBuilder *b) { return b->n_ops; }
uint64_t bcb_last_time(const BcBuilder *b) { return b->n_ops ? b->ops[b->n_ops - 1].t : 0; }

void bcb_set_meta(BcBuilder *b, const BcMeta *m)
{
    b->meta = *m;
    b->meta_set = true;
}

/* ---- finishing ---- */

/* The tag of value i, and for an array whether every element is a string. */
static int val_tag(const BcBuilder *b, uint32_t i, bool *all_str)
{
    const unsigned char *p = pool_at(&b->val, b->val.item[i].off);
    const unsigned char *end = p + b->val.item[i].len;
    int tag = *p++;
    if (all_str && tag == BC_V_ARRAY) {
        uint64_t n, x;
        *all_str = varint_read(&p, end, &n);
        for (uint64_t k = 0; *all_str && k < n; k++)
            *all_str = p < end && *p++ == BC_V_STR && varint_read(&p, end, &x);
    }
    return tag;
}

static bool check_meta(BcBuilder *b)
{
    const BcMeta *m = &b->meta;
    if (m->name >= b->str.n || m->source >= b->str.n) {
        fail(b, "meta: name or source string index out of range");
        return false;
    }
    if (m->prompt >= b->val.n || m->tags >= b->val.n || m->config >= b->val.n ||
        m->defines >= b->val.n) {
        fail(b, "meta: value index out of range");
        return false;
    }
    int pt = val_tag(b, m->prompt, NULL);
    bool all_str = false;
    if (pt != BC_V_STR && pt != BC_V_NULL)
        fail(b, "meta: prompt must be a string or null");
    else if (val_tag(b, m->tags, &all_str) != BC_V_ARRAY || !all_str)
        fail(b, "meta: tags must be an array of strings");
    else if (val_tag(b, m->config, NULL) != BC_V_MAP)
        fail(b, "meta: config must be a map");
    else if (val_tag(b, m->defines, NULL) != BC_V_MAP)
        fail(b, "meta: defines must be a map");
    return !b->failed;
}

static uint32_t empty_container(BcBuilder *b, bool map)
{
    bcb_val_begin(b);
    if (map)
        bcb_val_map(b, 0);
    else
        bcb_val_array(b, 0);
    return bcb_val_end(b);
}

/* One compression context kept for the next bc_wrap (BcSpare: creating
** one was 3.7% of compiling a small scenario here, perf).  Reuse changes no
** byte of the output: parameters and dictionary are reset and set again
** for every frame (checked on 1,025 scenarios compiled in one process and
** one by one).  Only a context whose last frame succeeded is kept. */
static BcSpare spare = BC_SPARE_INIT;

static ZSTD_CCtx *cctx_take(void)
{
    ZSTD_CCtx *c = bc_spare_take(&spare);
    if (c && ZSTD_isError(ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters))) {
        ZSTD_freeCCtx(c);
        c = NULL;
    }
    return c ? c : ZSTD_createCCtx_advanced(bc_zstd_mem());
}

static void cctx_give(ZSTD_CCtx *c)
{
    ZSTD_freeCCtx(bc_spare_keep(&spare, c));
}

/* With BC_FLAG_DICT the frame is compressed with the built-in dictionary:
** the shared CDict at the default level, a per-call load at any other. */
bool bc_wrap(const void *payload, size_t len, uint16_t major, uint16_t minor, uint32_t flags,
             int level, unsigned char **out, size_t *out_len, const char **why)
{
    *out = NULL;
    *why = NULL;
    if (!level)
        level = BC_DEFAULT_LEVEL;
    const ZSTD_CDict *cd = NULL;
    if ((flags & BC_FLAG_DICT) && level == BC_DEFAULT_LEVEL && !(cd = bc_dict_cdict()))
        return false;
    size_t bound = ZSTD_compressBound(len);
    unsigned char *o = sc_malloc(BC_HEADER_SIZE + bound);
    ZSTD_CCtx *cc = o ? cctx_take() : NULL;
    if (!cc) {
        sc_free(o);
        return false;
    }
    size_t r = bc_zstd_pin(cc, level);
    if (!ZSTD_isError(r) && cd)
        r = ZSTD_CCtx_refCDict(cc, cd);
    else if (!ZSTD_isError(r) && (flags & BC_FLAG_DICT)) {
        size_t dn;
        const void *d = bc_dict_bytes(&dn);
        r = ZSTD_CCtx_loadDictionary_advanced(cc, d, dn, ZSTD_dlm_byRef, ZSTD_dct_fullDict);
    }
    if (!ZSTD_isError(r))
        r = ZSTD_compress2(cc, o + BC_HEADER_SIZE, bound, payload, len);
    if (ZSTD_isError(r))
        ZSTD_freeCCtx(cc);
    else
        cctx_give(cc);
    if (ZSTD_isError(r)) {
        sc_free(o);
        if (ZSTD_getErrorCode(r) != ZSTD_error_memory_allocation)
            *why = ZSTD_getErrorName(r);
        return false;
    }
    Buf h;
    buf_init(&h);
    buf_put(&h, BC_MAGIC, BC_MAGIC_LEN);
    buf_u16le(&h, major);
    buf_u16le(&h, minor);
    buf_u32le(&h, flags);
    buf_u64le(&h, len);
    buf_u64le(&h, r);
    buf_u64le(&h, XXH64(o + BC_HEADER_SIZE, r, 0));
    bool ok = !h.oom && h.len == BC_HEADER_SIZE;
    if (ok)
        memcpy(o, h.data, BC_HEADER_SIZE);
    buf_fini(&h);
    if (!ok) {
        sc_free(o);
        return false;
    }
    *out = o;
    *out_len = BC_HEADER_SIZE + r;
    return true;
}

uint64_t bc_writer_id(void)
{
    size_t dn;
    const void *d = bc_dict_bytes(&dn);
    uint64_t v[5] = { (uint64_t)BC_VERSION_MAJOR << 16 | BC_VERSION_MINOR, BC_DEFAULT_LEVEL,
                      XXH64(d, dn, 0), ZSTD_versionNumber(), BC_ZSTD_LITERALS };
    return XXH64(v, sizeof v, 0);
}

/* Compresses payload into one frame after a 40-byte header. */
static bool compress(BcBuilder *b, const Buf *payload, int level, uint16_t minor, uint32_t flags,
                     unsigned char **out, size_t *len)
{
    const char *why;
    if (bc_wrap(payload->data, payload->len, BC_VERSION_MAJOR, minor, flags, level,
                out, len, &why))
        return true;
    if (why)
        fail(b, "zstd: %s", why);
    else
        oom(b);
    return false;
}

static void put_u32le_at(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

bool bcb_finish(BcBuilder *b, const BcWriteOpts *o, unsigned char **out, size_t *len)
{
    static const BcWriteOpts defaults;
    if (!o)
        o = &defaults;
    *out = NULL;
    *len = 0;
    if (b->failed)
        return false;
    if (b->in_val) {
        fail(b, "bcb_finish inside a value");
        return false;
    }
    if (!b->meta_set) {
        BcMeta m = { 0 };
        m.name = m.source = bcb_str(b, "", 0);
        m.prompt = bcb_null(b);
        m.tags = empty_container(b, false);
        m.config = m.defines = empty_container(b, true);
        if (b->failed)
            return false;
        bcb_set_meta(b, &m);
    }
    if (!check_meta(b))
        return false;
    if ((b->n_ops == 0 || !(bc_op_info[b->ops[b->n_ops - 1].op].flags & OPF_END)) &&
        !bcb_op(b, OP_END, bcb_last_time(b), 0, 0))
        return false;

    /* The payload is written in one buffer, sized up front for the usual
    ** case: the section table (filled in once the sections' lengths are
    ** known), then each section in place.  Five section buffers, each grown
    ** from 256 bytes and then copied into the payload, were half of the
    ** reallocations of compiling a corpus file (callgrind). */
    static const uint32_t ids[5] = { BC_SEC_STRINGS, BC_SEC_VALUES, BC_SEC_CODE,
                                     BC_SEC_LINES, BC_SEC_META };
    static const unsigned char zero_table[4 + 12 * 5];
    uint32_t n_sec = o->strip_lines ? 4 : 5;
    size_t table_len = 4 + 12 * (size_t)n_sec, sec_end[5];
    Buf payload;
    BcProgram *prog = NULL;   /* o->verified's, until handed over */
    buf_init(&payload);
    Buf *s = &payload;
    buf_reserve(s, table_len + b->str.data.len + 5 * (size_t)b->str.n + b->val.data.len + 16 * (size_t)b->n_ops + 64);
    buf_put(s, zero_table, table_len);
    buf_varint(s, b->str.n);                            /* STRINGS */
    for (uint32_t i = 0; i < b->str.n; i++) {
        buf_varint(s, b->str.item[i].len);
        buf_put(s, pool_at(&b->str, b->str.item[i].off), b->str.item[i].len);
    }
    sec_end[0] = s->len;
    buf_varint(s, b->val.n);                            /* VALUES */
    buf_put(s, b->val.data.data, b->val.data.len);
    sec_end[1] = s->len;
    buf_varint(s, b->n_ops);                            /* CODE */
    uint64_t t = 0;
    for (uint32_t i = 0; i < b->n_ops; i++) {
        const OpRec *r = &b->ops[i];
        buf_putc(s, r->op);
        buf_varint(s, r->t - t);
        t = r->t;
        for (int k = 0; k < bc_op_info[r->op].n_operands; k++)
            buf_varint(s, r->a[k]);
    }
    sec_end[2] = s->len;
    if (!o->strip_lines) {                              /* LINES */
        buf_varint(s, b->n_ops);
        int64_t line = 0;
        for (uint32_t i = 0; i < b->n_ops; i++) {
            buf_varint(s, zigzag_enc((int64_t)b->ops[i].line - line));
            buf_varint(s, b->ops[i].col);
            line = b->ops[i].line;
        }
    }
    sec_end[3] = s->len;
    const BcMeta *m = &b->meta;                         /* META */
    const uint32_t mv[8] = { m->name, m->source, m->prompt, m->tags, m->config,
                             m->defines, m->term_width, m->term_height };
    for (int i = 0; i < 8; i++)
        buf_varint(s, mv[i]);
    sec_end[4] = s->len;
    bool ok = false;
    if (payload.oom) {
        oom(b);
        goto done;
    }
    if (payload.len > BC_MAX_CONTENT) {
        fail(b, "payload of %zu bytes exceeds the %llu-byte limit", payload.len,
             (unsigned long long)BC_MAX_CONTENT);
        goto done;
    }
    unsigned char *tp = payload.data;                   /* the section table */
    put_u32le_at(tp, n_sec);
    tp += 4;
    size_t from = table_len;
    for (int i = 0; i < 5; from = sec_end[i++]) {
        if (i == 3 && o->strip_lines)
            continue;
        put_u32le_at(tp, ids[i]);
        put_u32le_at(tp + 4, (uint32_t)from);
        put_u32le_at(tp + 8, (uint32_t)(sec_end[i] - from));
        tp += 12;
    }
    uint32_t flags = BC_FLAG_DICT | (o->strip_lines ? 0 : BC_FLAG_LINES);
    /* The lowest minor that describes the contents (docs/bytecode.md,
    ** "Versioning"): 1 for the dictionary, 2 when an op of 1.2 is used, so
    ** a file without them still loads in a 1.1 reader. */
    uint16_t minor = 1;
    for (uint32_t i = 0; i < b->n_ops; i++)
        if (b->ops[i].op >= BC_FIRST_OP_1_2)
            minor = 2;
    if (o->verified)
        *o->verified = NULL;
    if (o->verify || o->verified) {
        BcError be;
        BcErrCode e = bc_load_payload(payload.data, payload.len, BC_VERSION_MAJOR, minor,
                                      flags, NULL, &prog, &be);
        if (e == BC_ERR_NOMEM) {
            oom(b);
            goto done;
        }
        if (e != BC_ERR_OK) {
            fail(b, "emitted bytecode rejected: %s [%s]", be.msg, bc_err_name(e));
            goto done;
        }
        if (!o->verified) {         /* only checked: not kept through compression */
            bc_free(prog);
            prog = NULL;
        }
    }
    ok = compress(b, &payload, o->zstd_level ? o->zstd_level : BC_DEFAULT_LEVEL, minor, flags, out, len);
    if (ok && prog) {
        prog->file_size = *len;
        prog->checksum = rd_u64le(*out + 32);
        *o->verified = prog;
        prog = NULL;
    }
done:
    bc_free(prog);
    buf_fini(&payload);
    return ok;
}
