/* SPDX-License-Identifier: MIT */
/* pack_write.c - building a pack: index, deduplicated blobs, compression.
**
** Entries keep the order they were added in (scc adds them sorted by source
** path).  Blobs (each scenario's payload, each embedded file) are stored
** once per distinct content, numbered in first-use order.  The content is
** then compressed in one of two layouts, whichever is smaller (ties go to
** the first): one solid zstd frame, or one frame per blob with a zstd
** dictionary trained over the blobs.  Every zstd parameter is pinned so
** the output is byte-identical for the same inputs (docs/pack.md). */
#define ZSTD_STATIC_LINKING_ONLY
#include "pack.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "common/buf.h"
#include "common/sc_alloc.h"
#include "common/vformat.h"
#include "bc_zstd.h"

enum { LEVEL_DEFAULT = 19, DICT_MIN_BLOBS = 8, DICT_MIN_BYTES = 8192, DICT_MAX = 112 * 1024 };

/* No match shorter than this in a pack's frames (docs/pack.md section 2):
** level 19 takes 3-byte matches, which cut a frame into many short
** sequences for zstd's decoder.  5 made the corpus pack's frame 1.5x as
** fast to decode and its load 1.2x as fast, for 11% more bytes
** (docs/performance.md, "Packs: no match shorter than five bytes").
** Levels whose own minimum is longer keep theirs. */
enum { PACK_MIN_MATCH = 5 };

/* zstd's parameters for level, a source of n bytes and a dictionary of
** dict bytes, with that minimum. */
static ZSTD_compressionParameters pack_cparams(int level, size_t n, size_t dict)
{
    ZSTD_compressionParameters cp = ZSTD_getCParams(level, n, dict);
    if (cp.minMatch < PACK_MIN_MATCH)
        cp.minMatch = PACK_MIN_MATCH;
    return cp;
}

typedef struct Blob {
    unsigned char *data;
    size_t len;
    uint64_t hash;
} Blob;

typedef struct WFile {
    char *path;
    uint32_t mode;
    uint32_t blob;
} WFile;

typedef struct WEntry {
    char *name, *source, *prompt;   /* prompt NULL when absent */
    char **tags;
    uint32_t n_tags;
    uint64_t source_hash;
    uint16_t major, minor;
    uint32_t flags;
    uint32_t code;
    WFile *files;
    uint32_t n_files;
} WEntry;

/* Where to look for a blob or a name: an open-addressed table of
** positions (stored plus one; 0 is an empty slot) probed from a hash, so
** an entry is found among N in constant time (a linear scan made a pack of
** N scenarios quadratic).  The caller compares what the slot leads to. */
typedef struct Index {
    uint32_t *slot;
    size_t cap;       /* a power of two; at most half full */
} Index;

struct PackWriter {
    Blob *blobs;
    size_t n_blobs, cap_blobs;
    WEntry *entries;
    size_t n_entries, cap_entries;
    Index blob_ix, name_ix;
    char err[512];
};

static uint64_t name_hash(const char *s, size_t len)
{
    return XXH64(s, len, 0x6e616d65);
}

/* The first slot for hash h in ix: one that holds a position for the
** caller to compare, or the empty slot that ends its probe sequence. */
static size_t index_first(const Index *ix, uint64_t h)
{
    return (size_t)h & (ix->cap - 1);
}

static size_t index_next(const Index *ix, size_t i)
{
    return (i + 1) & (ix->cap - 1);
}

/* Room for n positions in ix (rehashing what it holds with key(w, pos)). */
static bool index_reserve(PackWriter *w, Index *ix, size_t n, uint64_t (*key)(const PackWriter *, uint32_t))
{
    if (ix->cap && n * 2 <= ix->cap)
        return true;
    size_t cap = ix->cap ? ix->cap * 2 : 64;
    while (n * 2 > cap)
        cap *= 2;
    uint32_t *slot = sc_calloc(cap, sizeof *slot);
    if (!slot)
        return false;
    Index grown = { slot, cap };
    for (size_t i = 0; i < ix->cap; i++)
        if (ix->slot[i]) {
            size_t j = index_first(&grown, key(w, ix->slot[i] - 1));
            while (slot[j])
                j = index_next(&grown, j);
            slot[j] = ix->slot[i];
        }
    sc_free(ix->slot);
    *ix = grown;
    return true;
}

static uint64_t blob_key(const PackWriter *w, uint32_t pos)
{
    return w->blobs[pos].hash;
}

static uint64_t name_key(const PackWriter *w, uint32_t pos)
{
    return name_hash(w->entries[pos].name, strlen(w->entries[pos].name));
}

static bool fail(PackWriter *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(PackWriter *w, const char *fmt, ...)
{
    SC_VFORMAT(w->err, sizeof w->err, fmt);
    return false;
}

PackWriter *pack_writer_new(void)
{
    return sc_calloc(1, sizeof(PackWriter));
}

static void entry_fini(WEntry *e)
{
    sc_free(e->name);
    sc_free(e->source);
    sc_free(e->prompt);
    for (uint32_t i = 0; i < e->n_tags; i++)
        sc_free(e->tags[i]);
    sc_free(e->tags);
    for (uint32_t i = 0; i < e->n_files; i++)
        sc_free(e->files[i].path);
    sc_free(e->files);
}

void pack_writer_free(PackWriter *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n_blobs; i++)
        sc_free(w->blobs[i].data);
    sc_free(w->blobs);
    sc_free(w->blob_ix.slot);
    sc_free(w->name_ix.slot);
    for (size_t i = 0; i < w->n_entries; i++)
        entry_fini(&w->entries[i]);
    sc_free(w->entries);
    sc_free(w);
}

const char *pack_writer_error(const PackWriter *w)
{
    return w && w->err[0] ? w->err : NULL;
}

/* Stores data once; returns its blob index or UINT32_MAX when out of memory. */
static uint32_t blob_add(PackWriter *w, const void *data, size_t len)
{
    uint64_t h = XXH64(data, len, 0);
    if (w->n_blobs >= UINT32_MAX - 1 || !index_reserve(w, &w->blob_ix, w->n_blobs + 1, blob_key))
        return UINT32_MAX;
    size_t at = index_first(&w->blob_ix, h);
    for (; w->blob_ix.slot[at]; at = index_next(&w->blob_ix, at)) {
        const Blob *b = &w->blobs[w->blob_ix.slot[at] - 1];
        if (b->hash == h && b->len == len && (len == 0 || memcmp(b->data, data, len) == 0))
            return w->blob_ix.slot[at] - 1;
    }
    if (w->n_blobs == w->cap_blobs && !SC_GROW(w->blobs, w->cap_blobs, 32))
        return UINT32_MAX;
    unsigned char *c = sc_malloc(len ? len : 1);
    if (!c)
        return UINT32_MAX;
    if (len)
        memcpy(c, data, len);
    w->blobs[w->n_blobs] = (Blob){ c, len, h };
    w->blob_ix.slot[at] = (uint32_t)w->n_blobs + 1;
    return (uint32_t)w->n_blobs++;
}

static int cmp_wfile(const void *a, const void *b)
{
    return strcmp(((const WFile *)a)->path, ((const WFile *)b)->path);
}

/* The .scb's payload, decompressed. */
static bool scb_payload(PackWriter *w, const unsigned char *d, size_t n, unsigned char **out,
                        size_t *len)
{
    BcError be;
    BcErrCode c = bc_unwrap(d, n, out, len, &be);
    if (c == BC_ERR_NOMEM)
        return fail(w, "out of memory");
    if (c != BC_ERR_OK)
        return fail(w, "cannot decompress the bytecode: %s", be.msg);
    return true;
}

bool pack_writer_add(PackWriter *w, const PackEntryIn *in)
{
    BcProgram *prog = NULL;
    BcError be;
    if (bc_load(in->scb, in->scb_len, NULL, &prog, &be) != BC_ERR_OK)
        return fail(w, "%s: bytecode rejected: %s", in->source, be.msg);
    const BcMeta *m = &prog->meta;
    const BcStr *name = &prog->str[m->name];
    bool ok = false;
    WEntry e;
    memset(&e, 0, sizeof e);
    unsigned char *payload = NULL;
    size_t plen = 0;
    if (name->len == 0 || memchr(name->s, 0, name->len)) {
        fail(w, "%s: the scenario has no usable name", in->source);
        goto out;
    }
    if (!pack_path_ok(in->source, strlen(in->source))) {
        fail(w, "'%s' is not a relative source path", in->source);
        goto out;
    }
    if (w->n_entries >= UINT32_MAX - 1 || !index_reserve(w, &w->name_ix, w->n_entries + 1, name_key)) {
        fail(w, "out of memory");
        goto out;
    }
    size_t at = index_first(&w->name_ix, name_hash(name->s, name->len));
    for (; w->name_ix.slot[at]; at = index_next(&w->name_ix, at)) {
        const WEntry *o = &w->entries[w->name_ix.slot[at] - 1];
        if (strcmp(o->name, name->s) == 0) {
            fail(w, "duplicate scenario name '%s' in %s and %s", name->s, o->source, in->source);
            goto out;
        }
    }
    if (w->n_entries == w->cap_entries) {
        size_t cap = w->cap_entries ? w->cap_entries * 2 : 32;
        WEntry *v = sc_realloc(w->entries, cap * sizeof *v);
        if (!v) {
            fail(w, "out of memory");
            goto out;
        }
        w->entries = v;
        w->cap_entries = cap;
    }
    e.name = sc_strndup(name->s, name->len);
    e.source = sc_strndup(in->source, strlen(in->source));
    if (!e.name || !e.source)
        goto oom;
    BcVal pv = bc_val(prog, m->prompt);
    if (pv.tag == BC_V_STR) {
        const BcStr *s = &prog->str[pv.n];
        if (memchr(s->s, 0, s->len)) {
            fail(w, "%s: the initial prompt contains NUL", in->source);
            goto out;
        }
        if (!(e.prompt = sc_strndup(s->s, s->len)))
            goto oom;
    }
    BcVal tv = bc_val(prog, m->tags);
    if (tv.n) {
        e.tags = sc_calloc(tv.n, sizeof *e.tags);
        if (!e.tags)
            goto oom;
        const unsigned char *p = tv.p;
        for (uint32_t i = 0; i < tv.n; i++) {
            BcVal t;
            p = bc_val_decode(prog, p, &t);
            const BcStr *s = &prog->str[t.n];
            if (memchr(s->s, 0, s->len)) {
                fail(w, "%s: a tag contains NUL", in->source);
                goto out;
            }
            if (!(e.tags[e.n_tags++] = sc_strndup(s->s, s->len)))
                goto oom;
        }
    }
    e.source_hash = in->source_hash;
    e.major = prog->version_major;
    e.minor = prog->version_minor;
    e.flags = prog->flags;
    if (!scb_payload(w, in->scb, in->scb_len, &payload, &plen))
        goto out;
    if ((e.code = blob_add(w, payload, plen)) == UINT32_MAX)
        goto oom;
    if (in->n_files) {
        e.files = sc_calloc(in->n_files, sizeof *e.files);
        if (!e.files)
            goto oom;
    }
    for (size_t i = 0; i < in->n_files; i++) {
        const PackFileIn *f = &in->files[i];
        size_t n = strlen(f->path);
        if (!pack_path_ok(f->path, n)) {
            fail(w, "%s: '%s' is not a safe relative path", in->source, f->path);
            goto out;
        }
        if (f->mode & ~(uint32_t)PACK_FILE_EXEC) {
            fail(w, "%s: '%s': unknown mode bits", in->source, f->path);
            goto out;
        }
        WFile *wf = &e.files[e.n_files];
        if (!(wf->path = sc_strndup(f->path, n)))
            goto oom;
        e.n_files++;
        wf->mode = f->mode;
        if ((wf->blob = blob_add(w, f->data, f->len)) == UINT32_MAX)
            goto oom;
    }
    if (e.n_files)
        qsort(e.files, e.n_files, sizeof *e.files, cmp_wfile);
    for (uint32_t i = 1; i < e.n_files; i++)
        if (strcmp(e.files[i - 1].path, e.files[i].path) == 0) {
            fail(w, "%s: '%s' is embedded twice", in->source, e.files[i].path);
            goto out;
        }
    w->name_ix.slot[at] = (uint32_t)w->n_entries + 1;     /* nothing else probed it since */
    w->entries[w->n_entries++] = e;
    memset(&e, 0, sizeof e);
    ok = true;
    goto out;
oom:
    fail(w, "out of memory");
out:
    entry_fini(&e);
    sc_free(payload);
    bc_free(prog);
    return ok;
}

static void put_str(Buf *b, const char *s)
{
    size_t n = strlen(s);
    buf_varint(b, n);
    buf_put(b, s, n);
}

static void put_index(const PackWriter *w, Buf *b)
{
    buf_varint(b, w->n_blobs);
    for (size_t i = 0; i < w->n_blobs; i++) {
        buf_varint(b, w->blobs[i].len);
        buf_u64le(b, w->blobs[i].hash);
    }
    buf_varint(b, w->n_entries);
    for (size_t i = 0; i < w->n_entries; i++) {
        const WEntry *e = &w->entries[i];
        put_str(b, e->name);
        put_str(b, e->source);
        buf_putc(b, e->prompt != NULL);
        if (e->prompt)
            put_str(b, e->prompt);
        buf_varint(b, e->n_tags);
        for (uint32_t k = 0; k < e->n_tags; k++)
            put_str(b, e->tags[k]);
        buf_u64le(b, e->source_hash);
        buf_u16le(b, e->major);
        buf_u16le(b, e->minor);
        buf_u32le(b, e->flags);
        buf_varint(b, e->code);
        buf_varint(b, e->n_files);
        for (uint32_t k = 0; k < e->n_files; k++) {
            put_str(b, e->files[k].path);
            buf_putc(b, (int)e->files[k].mode);
            buf_varint(b, e->files[k].blob);
        }
    }
}

/* One compressed frame, appended to out.  Returns false on a zstd error. */
static bool compress_frame(ZSTD_CCtx *cc, const ZSTD_CDict *cd, int level, const void *src,
                           size_t n, Buf *out, size_t *csize)
{
    size_t bound = ZSTD_compressBound(n);
    if (!buf_reserve(out, bound))
        return false;
    ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
    size_t r = bc_zstd_pin(cc, level);
    /* With a dictionary zstd mostly takes the parameters its CDict was made
    ** with, so layout_dict makes it with the same minimum (pack_cparams) */
    if (!ZSTD_isError(r) && ZSTD_getCParams(level, n, 0).minMatch < PACK_MIN_MATCH)
        r = ZSTD_CCtx_setParameter(cc, ZSTD_c_minMatch, PACK_MIN_MATCH);
    if (!ZSTD_isError(r) && cd)
        r = ZSTD_CCtx_refCDict(cc, cd);
    if (!ZSTD_isError(r))
        r = ZSTD_compress2(cc, out->data + out->len, bound, src, n);
    if (ZSTD_isError(r))
        return false;
    out->len += r;
    *csize = r;
    return true;
}

typedef struct Layout {
    Buf table, dict, frames;
    uint32_t n_frames;
} Layout;

static void layout_fini(Layout *l)
{
    buf_fini(&l->table);
    buf_fini(&l->dict);
    buf_fini(&l->frames);
}

static void table_add(Layout *l, size_t csize, size_t content, uint32_t flags)
{
    buf_u64le(&l->table, csize);
    buf_u64le(&l->table, content);
    buf_u32le(&l->table, flags);
    l->n_frames++;
}

static size_t layout_size(const Layout *l)
{
    return l->table.len + l->dict.len + l->frames.len;
}

/* The least the dictionary layout can take, before anything is trained or
** compressed: its frame table (PACK_FRAME_ENTRY_SIZE a frame) and its
** frames, each at least a zstd frame's magic number, header descriptor
** and one block header (ZSTD_FRAME_MIN).  When that is no smaller than
** the solid layout, the dictionary layout cannot win (docs/pack.md
** section 2): a pack of many
** small scenarios skips it (20,000 of 122 bytes of YAML: 1.1 s of 3.4 s
** spent on a layout 3.2x the solid one's size). */
enum { ZSTD_FRAME_MIN = 4 + 1 + 3 };

static size_t dict_floor(const PackWriter *w)
{
    size_t frames = 1;      /* the index */
    for (size_t i = 0; i < w->n_blobs; i++)
        frames += w->blobs[i].len != 0;
    return frames * (PACK_FRAME_ENTRY_SIZE + ZSTD_FRAME_MIN);
}

/* The dictionary layout: frame 0 is the index (no dictionary), then one
** frame per blob, with the dictionary when that frame comes out smaller. */
static bool layout_dict(const PackWriter *w, ZSTD_CCtx *cc, int level, const Buf *index, Layout *l)
{
    size_t total = 0;
    for (size_t i = 0; i < w->n_blobs; i++)
        total += w->blobs[i].len;
    if (w->n_blobs < DICT_MIN_BLOBS || total < DICT_MIN_BYTES)
        return false;
    unsigned char *samples = sc_malloc(total);
    size_t *sizes = sc_malloc(w->n_blobs * sizeof *sizes);
    size_t cap = total / 16;
    if (cap > DICT_MAX)
        cap = DICT_MAX;
    if (cap < 1024)
        cap = 1024;
    bool ok = samples && sizes && buf_reserve(&l->dict, cap);
    size_t pos = 0;
    for (size_t i = 0; ok && i < w->n_blobs; i++) {
        memcpy(samples + pos, w->blobs[i].data, w->blobs[i].len);
        pos += w->blobs[i].len;
        sizes[i] = w->blobs[i].len;
    }
    if (ok) {
        size_t r = ZDICT_trainFromBuffer(l->dict.data, cap, samples, sizes, (unsigned)w->n_blobs);
        ok = !ZDICT_isError(r);
        if (ok)
            l->dict.len = r;
    }
    sc_free(samples);
    sc_free(sizes);
    if (!ok)
        return false;
    ZSTD_customMem mem = bc_zstd_mem();
    ZSTD_CDict *cd = ZSTD_createCDict_advanced(l->dict.data, l->dict.len, ZSTD_dlm_byRef,
                                               ZSTD_dct_auto, pack_cparams(level, 0, l->dict.len), mem);
    if (!cd)
        return false;
    size_t cs;
    ok = compress_frame(cc, NULL, level, index->data, index->len, &l->frames, &cs);
    if (ok)
        table_add(l, cs, index->len, 0);
    Buf plain;
    buf_init(&plain);
    for (size_t i = 0; ok && i < w->n_blobs; i++) {
        const Blob *bl = &w->blobs[i];
        if (bl->len == 0)
            continue;   /* an empty blob takes no frame: it is in the previous one's zero bytes */
        size_t cd_size, pl_size;
        size_t mark = l->frames.len;
        buf_reset(&plain);
        ok = compress_frame(cc, cd, level, bl->data, bl->len, &l->frames, &cd_size) &&
             compress_frame(cc, NULL, level, bl->data, bl->len, &plain, &pl_size);
        if (!ok)
            break;
        if (pl_size < cd_size) {
            l->frames.len = mark;
            buf_put(&l->frames, plain.data, plain.len);
            table_add(l, pl_size, bl->len, 0);
        } else {
            table_add(l, cd_size, bl->len, PACK_FRAME_DICT);
        }
    }
    buf_fini(&plain);
    ZSTD_freeCDict(cd);
    return ok && !l->frames.oom && !l->table.oom;
}

bool pack_writer_finish(PackWriter *w, const PackWriteOpts *o, unsigned char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (w->n_entries == 0)
        return fail(w, "no scenarios to pack");
    int level = o && o->zstd_level ? o->zstd_level : LEVEL_DEFAULT;
    Buf index, content;
    buf_init(&index);
    buf_init(&content);
    put_index(w, &index);
    buf_put(&content, index.data, index.len);
    for (size_t i = 0; i < w->n_blobs; i++)
        buf_put(&content, w->blobs[i].data, w->blobs[i].len);
    Layout solid, dict;
    memset(&solid, 0, sizeof solid);
    memset(&dict, 0, sizeof dict);
    bool ok = false;
    ZSTD_customMem mem = bc_zstd_mem();
    ZSTD_CCtx *cc = ZSTD_createCCtx_advanced(mem);
    if (!cc || index.oom || content.oom) {
        fail(w, "out of memory");
        goto done;
    }
    size_t cs;
    if (!compress_frame(cc, NULL, level, content.data, content.len, &solid.frames, &cs)) {
        fail(w, "zstd compression failed");
        goto done;
    }
    table_add(&solid, cs, content.len, 0);
    const Layout *pick = &solid;
    bool force = o && o->force_dict;
    if (!(o && o->no_dict) && (force || dict_floor(w) < layout_size(&solid)) &&
        layout_dict(w, cc, level, &index, &dict) &&
        (force || layout_size(&dict) < layout_size(&solid)))
        pick = &dict;
    Buf f;
    buf_init(&f);
    size_t body = layout_size(pick);
    buf_put(&f, PACK_MAGIC, PACK_MAGIC_LEN);
    buf_u16le(&f, PACK_VERSION_MAJOR);
    buf_u16le(&f, PACK_VERSION_MINOR);
    buf_u32le(&f, pick->dict.len ? PACK_FLAG_DICT : 0);
    buf_u64le(&f, content.len);
    buf_u64le(&f, body);
    size_t sum_at = f.len;
    buf_u64le(&f, 0);
    buf_u32le(&f, pick->n_frames);
    buf_u32le(&f, (uint32_t)pick->dict.len);
    buf_put(&f, pick->table.data, pick->table.len);
    buf_put(&f, pick->dict.data, pick->dict.len);
    buf_put(&f, pick->frames.data, pick->frames.len);
    if (f.oom || solid.table.oom) {
        buf_fini(&f);
        fail(w, "out of memory");
        goto done;
    }
    uint64_t h = XXH64(f.data + PACK_HEADER_SIZE, body, 0);
    for (int i = 0; i < 8; i++)
        f.data[sum_at + (size_t)i] = (unsigned char)(h >> (8 * i));
    *out = f.data;
    *len = f.len;
    ok = true;
done:
    ZSTD_freeCCtx(cc);
    layout_fini(&solid);
    layout_fini(&dict);
    buf_fini(&index);
    buf_fini(&content);
    return ok;
}
