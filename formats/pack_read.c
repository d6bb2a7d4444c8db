/* SPDX-License-Identifier: MIT */
/* pack_read.c - pack_load: checks a pack completely before anything uses it.
**
** In order, each step bounded by what the previous one checked:
**   1. the header (sizes before any allocation) and the XXH64 of the body;
**   2. the frame table (contiguous, in bounds, content sizes summing to the
**      declared content size);
**   3. every zstd frame decompressed into its exact slice of the content;
**   4. the index, parsed twice (count, then fill) so tables are sized from
**      counts already bounded by the index bytes;
**   5. every blob's XXH64, then every scenario through bc_load(), and its
**      metadata compared with the index (a pack cannot select one scenario
**      by name and run another).
** Also here: safe paths and the prompt matcher. */
#define ZSTD_STATIC_LINKING_ONLY
#include "pack.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "common/arena.h"
#include "common/buf.h"
#include "common/sc_alloc.h"
#include "bc_zstd.h"
#include "bc_write.h"
#include "common/utf8.h"
#include "common/vformat.h"

enum { MIN_ENTRY = 24, MIN_BLOB = 9, MIN_FILE = 3 };

typedef struct Mem {
    unsigned char *content;
    char *strs;
    PackEntry *entries;
    const char **tags;
    PackFile *files;
    Arena *arena;       /* content and the verified programs (BcLoadOpts.arena) */
} Mem;

/* n zeroed elements of size bytes from a (n * size bounded by the
** content, which is at most SIZE_MAX / 4). */
static void *arena_zalloc(Arena *a, size_t n, size_t size)
{
    void *p = arena_alloc(a, n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

typedef struct Ld {
    PackError *err;
    const unsigned char *p, *end;   /* index cursor */
    Pack *pack;
    Mem *m;
    char *s_next;                   /* string copies (fill pass) */
    /* the blob table (pointers into content, after the index) */
    uint32_t n_blobs;
    size_t *blob_off, *blob_len;
    uint64_t *blob_hash;
    size_t total_tags, total_files;
} Ld;

static PackErrCode fail(Ld *ld, PackErrCode code, int32_t entry, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static PackErrCode fail(Ld *ld, PackErrCode code, int32_t entry, const char *fmt, ...)
{
    SC_VFORMAT(ld->err->msg, sizeof ld->err->msg, fmt);
    ld->err->code = code;
    ld->err->entry = entry;
    return code;
}

const char *pack_err_name(PackErrCode c)
{
    switch (c) {
#define X(name, num, text) case PACK_ERR_##name: return #name;
        PACK_ERRORS(X)
#undef X
    }
    return "UNKNOWN";
}

const char *pack_err_text(PackErrCode c)
{
    switch (c) {
#define X(name, num, text) case PACK_ERR_##name: return text;
        PACK_ERRORS(X)
#undef X
    }
    return "unknown error";
}

bool pack_is_pack(const void *data, size_t size)
{
    return size >= PACK_MAGIC_LEN && memcmp(data, PACK_MAGIC, PACK_MAGIC_LEN) == 0;
}

bool pack_path_ok(const char *p, size_t n)
{
    if (n == 0 || n > PACK_MAX_PATH || p[0] == '/' || memchr(p, 0, n) || memchr(p, '\\', n))
        return false;
    if (!bc_text_ok(p, n))   /* valid UTF-8, no control bytes */
        return false;
    for (size_t i = 0; i <= n;) {
        const char *s = p + i;
        const char *e = memchr(s, '/', n - i);
        size_t len = e ? (size_t)(e - s) : n - i;
        if (len == 0 || (len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
            return false;
        i += len + 1;
    }
    return true;
}

/* ---- 1-3. header, frame table, frames ---- */

static PackErrCode check_header(Ld *ld, const unsigned char *d, size_t size, uint64_t max)
{
    if (size < PACK_HEADER_SIZE)
        return fail(ld, PACK_ERR_TRUNCATED, -1, "file is %zu bytes, shorter than the %d-byte header",
                    size, PACK_HEADER_SIZE);
    if (memcmp(d, PACK_MAGIC, PACK_MAGIC_LEN) != 0)
        return fail(ld, PACK_ERR_MAGIC, -1, "not a pack (bad magic)");
    unsigned major = rd_u16le(d + 8), minor = rd_u16le(d + 10);
    if (major != PACK_VERSION_MAJOR || minor > PACK_VERSION_MINOR)
        return fail(ld, PACK_ERR_VERSION, -1, "pack version %u.%u is not supported (this reader: %d.%d)",
                    major, minor, PACK_VERSION_MAJOR, PACK_VERSION_MINOR);
    uint32_t flags = rd_u32le(d + 12);
    if (flags & ~(uint32_t)PACK_FLAGS_KNOWN)
        return fail(ld, PACK_ERR_FLAGS, -1, "reserved flag bits set (0x%08x)", (unsigned)flags);
    uint64_t content = rd_u64le(d + 16), body = rd_u64le(d + 24);
    if (content == 0 || content > max)
        return fail(ld, PACK_ERR_SIZE, -1, "content size %llu is out of bounds (1..%llu)",
                    (unsigned long long)content, (unsigned long long)max);
    if (body > size - PACK_HEADER_SIZE)
        return fail(ld, PACK_ERR_TRUNCATED, -1, "the header says %llu bytes follow, the file has %zu",
                    (unsigned long long)body, size - PACK_HEADER_SIZE);
    if (body < size - PACK_HEADER_SIZE)
        return fail(ld, PACK_ERR_SIZE, -1, "%zu bytes after the pack", size - PACK_HEADER_SIZE - (size_t)body);
    uint64_t want = rd_u64le(d + 32), got = XXH64(d + PACK_HEADER_SIZE, (size_t)body, 0);
    if (want != got)
        return fail(ld, PACK_ERR_CHECKSUM, -1, "checksum is %016llx, the header says %016llx",
                    (unsigned long long)got, (unsigned long long)want);
    uint32_t n_frames = rd_u32le(d + 40), dict = rd_u32le(d + 44);
    if (n_frames == 0 || n_frames > body / PACK_FRAME_ENTRY_SIZE)
        return fail(ld, PACK_ERR_FRAMES, -1, "frame count %u is out of bounds", (unsigned)n_frames);
    if ((uint64_t)n_frames * PACK_FRAME_ENTRY_SIZE + dict > body)
        return fail(ld, PACK_ERR_FRAMES, -1, "frame table and dictionary (%llu bytes) exceed the body",
                    (unsigned long long)n_frames * PACK_FRAME_ENTRY_SIZE + dict);
    if (!(flags & PACK_FLAG_DICT) != !dict)
        return fail(ld, PACK_ERR_FLAGS, -1, "dictionary flag and dictionary size (%u) disagree", (unsigned)dict);
    return PACK_ERR_OK;
}

static PackErrCode check_frames(Ld *ld, const unsigned char *d)
{
    uint64_t content = rd_u64le(d + 16), body = rd_u64le(d + 24);
    uint32_t n = rd_u32le(d + 40), dict = rd_u32le(d + 44), flags = rd_u32le(d + 12);
    const unsigned char *t = d + PACK_HEADER_SIZE;
    uint64_t avail = body - (uint64_t)n * PACK_FRAME_ENTRY_SIZE - dict, csum = 0, dsum = 0;
    for (uint32_t i = 0; i < n; i++, t += PACK_FRAME_ENTRY_SIZE) {
        uint64_t cs = rd_u64le(t), ds = rd_u64le(t + 8);
        uint32_t ff = rd_u32le(t + 16);
        if (ff & ~(uint32_t)PACK_FRAME_DICT)
            return fail(ld, PACK_ERR_FRAMES, -1, "frame %u: reserved flag bits set", (unsigned)i);
        if ((ff & PACK_FRAME_DICT) && !(flags & PACK_FLAG_DICT))
            return fail(ld, PACK_ERR_FRAMES, -1, "frame %u uses a dictionary the pack does not have", (unsigned)i);
        if (cs == 0 || cs > avail - csum)
            return fail(ld, PACK_ERR_FRAMES, -1, "frame %u: compressed size %llu out of bounds", (unsigned)i,
                        (unsigned long long)cs);
        if (ds == 0 || ds > content - dsum)
            return fail(ld, PACK_ERR_FRAMES, -1, "frame %u: content size %llu out of bounds", (unsigned)i,
                        (unsigned long long)ds);
        csum += cs;
        dsum += ds;
    }
    if (csum != avail)
        return fail(ld, PACK_ERR_FRAMES, -1, "frames cover %llu bytes, the body has %llu",
                    (unsigned long long)csum, (unsigned long long)avail);
    if (dsum != content)
        return fail(ld, PACK_ERR_FRAMES, -1, "frames decode to %llu bytes, the header says %llu",
                    (unsigned long long)dsum, (unsigned long long)content);
    return PACK_ERR_OK;
}

/* One zstd context kept from one pack_load to the next (BcSpare,
** bc_zstd.h): creating one runs zstd's CPU detection (CPUID traps to the
** hypervisor here) and allocates and clears about 100 KB.  Every frame
** with the dictionary begins warm (decompress_all), so reuse changes no
** judgement. */
static BcSpare spare = BC_SPARE_INIT;

static PackErrCode decompress_all(Ld *ld, const unsigned char *d, unsigned char *dst)
{
    uint32_t n = rd_u32le(d + 40), dict = rd_u32le(d + 44);
    const unsigned char *t = d + PACK_HEADER_SIZE;
    const unsigned char *dict_p = t + (size_t)n * PACK_FRAME_ENTRY_SIZE;
    const unsigned char *f = dict_p + dict;
    ZSTD_customMem mem = bc_zstd_mem();
    ZSTD_DCtx *dc = bc_spare_take(&spare);
    if (!dc)
        dc = ZSTD_createDCtx_advanced(mem);
    const ZSTD_DDict *dd = NULL;
    void *dd_mem = NULL;
    PackErrCode e = PACK_ERR_OK;
    if (!dc)
        return fail(ld, PACK_ERR_NOMEM, -1, "out of memory (zstd context)");
    /* ZSTD_createDDict returns NULL for out of memory and for a corrupt
    ** dictionary alike: allocate first, then only the dictionary can fail */
    if (dict) {
        size_t dd_size = ZSTD_estimateDDictSize(dict, ZSTD_dlm_byRef);
        if (!(dd_mem = sc_malloc(dd_size))) {
            ZSTD_freeDCtx(dc);
            return fail(ld, PACK_ERR_NOMEM, -1, "out of memory (zstd dictionary)");
        }
        if (!(dd = ZSTD_initStaticDDict(dd_mem, dd_size, dict_p, dict, ZSTD_dlm_byRef, ZSTD_dct_auto))) {
            sc_free(dd_mem);
            ZSTD_freeDCtx(bc_spare_keep(&spare, dc));
            return fail(ld, PACK_ERR_COMPRESSION, -1, "the dictionary is invalid");
        }
    }
    size_t at = 0;
    for (uint32_t i = 0; i < n && !e; i++, t += PACK_FRAME_ENTRY_SIZE) {
        size_t cs = (size_t)rd_u64le(t), ds = (size_t)rd_u64le(t + 8);
        bool use_dict = rd_u32le(t + 16) & PACK_FRAME_DICT;
        if (cs < 4 || rd_u32le(f) != ZSTD_MAGICNUMBER) {
            e = fail(ld, PACK_ERR_COMPRESSION, -1, "frame %u is not a zstd frame", (unsigned)i);
            break;
        }
        size_t fs = ZSTD_findFrameCompressedSize(f, cs);
        unsigned long long fc = ZSTD_getFrameContentSize(f, cs);
        if (ZSTD_isError(fs) || fs != cs)
            e = fail(ld, PACK_ERR_COMPRESSION, -1, "frame %u: not exactly one zstd frame of %zu bytes",
                     (unsigned)i, cs);
        else if (fc != ds)
            e = fail(ld, PACK_ERR_COMPRESSION, -1, "frame %u: zstd content size is not the declared %zu",
                     (unsigned)i, ds);
        if (e)
            break;
        /* Every dictionary frame begins warm, as in bc_load (bc_read.c):
        ** zstd's two sequence decoders (the context used this dictionary
        ** last, or not) disagree on some corrupt frames, and with the
        ** context kept from pack to pack the judgement would otherwise
        ** depend on the pack loaded before (fuzz_load found it). */
        size_t r = use_dict ? ZSTD_decompressBegin_usingDDict(dc, dd) : 0;
        if (!ZSTD_isError(r))
            r = use_dict ? ZSTD_decompress_usingDDict(dc, dst + at, ds, f, cs, dd)
                         : ZSTD_decompressDCtx(dc, dst + at, ds, f, cs);
        if (ZSTD_isError(r))
            e = ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation
                    ? fail(ld, PACK_ERR_NOMEM, -1, "out of memory (zstd)")
                    : fail(ld, PACK_ERR_COMPRESSION, -1, "frame %u: zstd: %s", (unsigned)i, ZSTD_getErrorName(r));
        else if (r != ds)
            e = fail(ld, PACK_ERR_COMPRESSION, -1, "frame %u decodes to %zu bytes, expected %zu", (unsigned)i, r, ds);
        f += cs;
        at += ds;
    }
    sc_free(dd_mem);   /* dd lives in it */
    ZSTD_freeDCtx(bc_spare_keep(&spare, dc));
    return e;
}

/* ---- 4. the index ---- */

/* Names are unique: each goes into an open-addressed table (twice the
** entries, rounded up to a power of two) of its entry number beside 32
** bits of its hash, and is compared in full only with an entry whose
** hash bits are the same.  The entry reported is the later one of the
** first pair found in index order.  A sort by name did this before and
** took 6% of a 1,000-entry pack_load + play (glibc's merge sort calling
** strcmp through a pointer 10,000 times). */
static PackErrCode unique_names(Ld *ld, const PackEntry *en, uint32_t n)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap <<= 1;
    struct { uint32_t at1, h; } *slot = sc_calloc(cap, sizeof *slot);
    if (!slot)
        return fail(ld, PACK_ERR_NOMEM, -1, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const char *name = en[i].name;
        uint64_t h = XXH3_64bits(name, strlen(name));
        size_t j = (size_t)h & (cap - 1);
        for (; slot[j].at1; j = (j + 1) & (cap - 1))
            if (slot[j].h == (uint32_t)(h >> 32) && strcmp(en[slot[j].at1 - 1].name, name) == 0) {
                sc_free(slot);
                return fail(ld, PACK_ERR_INDEX, (int32_t)i, "entry %d: duplicate name '%s'", (int)i, name);
            }
        slot[j].at1 = i + 1;
        slot[j].h = (uint32_t)(h >> 32);
    }
    sc_free(slot);
    return PACK_ERR_OK;
}

static inline bool rd_varint(Ld *ld, uint64_t *v)
{
    VarintAt r = varint_at(ld->p, ld->end);
    if (!r.p)
        return false;   /* varint_at refuses an overlong one, as in the bytecode */
    *v = r.v;
    ld->p = r.p;
    return true;
}

static inline bool rd_fixed(Ld *ld, size_t n, const unsigned char **at)
{
    if ((size_t)(ld->end - ld->p) < n)
        return false;
    *at = ld->p;
    ld->p += n;
    return true;
}

/* A string: varint length, bytes (valid UTF-8, no NUL).  In the fill pass
** it is copied, NUL-terminated, to the string area. */
static inline bool rd_str(Ld *ld, bool fill, const char **out, uint32_t *len)
{
    uint64_t n;
    const unsigned char *s;
    if (!rd_varint(ld, &n) || n > UINT32_MAX || !rd_fixed(ld, (size_t)n, &s))
        return false;
    /* The count pass checked these very bytes; the fill pass reads them again. */
    if (!fill && !utf8_valid_nonul(s, (size_t)n))
        return false;
    if (fill) {
        memcpy(ld->s_next, s, (size_t)n);
        ld->s_next[n] = 0;
        *out = ld->s_next;
        ld->s_next += n + 1;
    }
    if (len)
        *len = (uint32_t)n;
    return true;
}

#define m_entry(ld, i) ((ld)->m->entries[i])
#define BAD(what) return fail(ld, PACK_ERR_INDEX, (int32_t)i, "entry %u: %s", (unsigned)i, what)

static PackErrCode parse_entries(Ld *ld, bool fill, uint32_t n)
{
    size_t tag_at = 0, file_at = 0;
    for (uint32_t i = 0; i < n; i++) {
        PackEntry e;
        memset(&e, 0, sizeof e);
        const unsigned char *fx;
        uint32_t len;
        if (!rd_str(ld, fill, &e.name, &len) || len == 0)
            BAD("bad name");
        if (!rd_str(ld, fill, &e.source, &len))
            BAD("bad source path");
        if (fill && !pack_path_ok(e.source, len))
            BAD("source path is not a safe relative path");
        if (!rd_fixed(ld, 1, &fx) || fx[0] > 1)
            BAD("bad prompt flag");
        if (fx[0] && !rd_str(ld, fill, &e.prompt, &e.prompt_len))
            BAD("bad prompt");
        uint64_t nt;
        if (!rd_varint(ld, &nt) || nt > (uint64_t)(ld->end - ld->p))
            BAD("bad tag count");
        e.n_tags = (uint32_t)nt;
        if (fill)
            e.tags = ld->m->tags + tag_at;
        for (uint64_t k = 0; k < nt; k++)
            if (!rd_str(ld, fill, fill ? &ld->m->tags[tag_at + k] : NULL, NULL))
                BAD("bad tag");
        tag_at += (size_t)nt;
        if (!rd_fixed(ld, 16, &fx))
            BAD("truncated");
        e.source_hash = rd_u64le(fx);
        uint16_t major = rd_u16le(fx + 8), minor = rd_u16le(fx + 10);
        uint32_t flags = rd_u32le(fx + 12);
        uint64_t code, nf;
        if (!rd_varint(ld, &code) || code >= ld->n_blobs)
            BAD("code blob index out of range");
        if (!rd_varint(ld, &nf) || nf > (uint64_t)(ld->end - ld->p) / MIN_FILE)
            BAD("bad file count");
        e.n_files = (uint32_t)nf;
        if (fill) {
            e.files = ld->m->files + file_at;
            e.code_size = ld->blob_len[code];
            e.code = ld->m->content + ld->blob_off[code];
            e.scb_major = major;
            e.scb_minor = minor;
            e.scb_flags = flags;
            e.hash = ld->blob_hash[code];
        }
        for (uint64_t k = 0; k < nf; k++) {
            PackFile *f = fill ? &ld->m->files[file_at + k] : NULL;
            const char *path = NULL;
            uint64_t blob;
            if (!rd_str(ld, fill, &path, &len))
                BAD("bad file path");
            if (!rd_fixed(ld, 1, &fx) || (fx[0] & ~PACK_FILE_EXEC))
                BAD("bad file mode");
            if (!rd_varint(ld, &blob) || blob >= ld->n_blobs)
                BAD("file blob index out of range");
            if (fill) {
                if (!pack_path_ok(path, len))
                    return fail(ld, PACK_ERR_INDEX, (int32_t)i, "entry %u: file '%s' is not a safe relative path",
                                (unsigned)i, path);
                if (k && strcmp(f[-1].path, path) >= 0)
                    return fail(ld, PACK_ERR_INDEX, (int32_t)i, "entry %u: files not sorted or duplicated at '%s'",
                                (unsigned)i, path);
                f->path = path;
                f->mode = fx[0];
                f->data = ld->m->content + ld->blob_off[blob];
                f->len = ld->blob_len[blob];
                f->hash = ld->blob_hash[blob];
            }
        }
        file_at += (size_t)nf;
        if (fill) {
            m_entry(ld, i) = e;
        }
    }
    ld->total_tags = tag_at;
    ld->total_files = file_at;
    return PACK_ERR_OK;
}
#undef BAD

static PackErrCode parse_index(Ld *ld, size_t content)
{
    Mem *m = ld->m;
    ld->p = m->content;
    ld->end = m->content + content;
    uint64_t nb;
    if (!rd_varint(ld, &nb) || nb == 0 || nb > (uint64_t)(ld->end - ld->p) / MIN_BLOB)
        return fail(ld, PACK_ERR_INDEX, -1, "blob count is out of bounds");
    ld->n_blobs = (uint32_t)nb;
    const unsigned char *blobs_at = ld->p;
    uint64_t total = 0;
    for (uint64_t i = 0; i < nb; i++) {
        uint64_t sz;
        const unsigned char *h;
        if (!rd_varint(ld, &sz) || !rd_fixed(ld, 8, &h) || sz > content)
            return fail(ld, PACK_ERR_INDEX, -1, "blob %llu: bad size", (unsigned long long)i);
        total += sz;
        if (total > content)
            return fail(ld, PACK_ERR_INDEX, -1, "blob sizes exceed the content");
    }
    uint64_t ne;
    if (!rd_varint(ld, &ne) || ne == 0 || ne > (uint64_t)(ld->end - ld->p) / MIN_ENTRY)
        return fail(ld, PACK_ERR_INDEX, -1, "entry count is out of bounds");
    const unsigned char *entries_at = ld->p;
    PackErrCode e = parse_entries(ld, false, (uint32_t)ne);
    if (e)
        return e;
    size_t index_size = (size_t)(ld->p - m->content);
    if (index_size + total != content)
        return fail(ld, PACK_ERR_INDEX, -1, "index (%zu bytes) and blobs (%llu bytes) do not fill the content (%zu)",
                    index_size, (unsigned long long)total, content);
    /* Allocate tables sized from the counts just bounded, then fill. */
    ld->blob_off = sc_calloc((size_t)nb, sizeof *ld->blob_off);
    ld->blob_len = sc_calloc((size_t)nb, sizeof *ld->blob_len);
    ld->blob_hash = sc_calloc((size_t)nb, sizeof *ld->blob_hash);
    m->strs = arena_alloc_aligned(m->arena, index_size * 2 + 1, 1);
    m->entries = arena_zalloc(m->arena, (size_t)ne, sizeof *m->entries);
    m->tags = arena_zalloc(m->arena, ld->total_tags ? ld->total_tags : 1, sizeof *m->tags);
    m->files = arena_zalloc(m->arena, ld->total_files ? ld->total_files : 1, sizeof *m->files);
    if (!ld->blob_off || !ld->blob_len || !ld->blob_hash || !m->strs || !m->entries || !m->tags || !m->files)
        return fail(ld, PACK_ERR_NOMEM, -1, "out of memory (index tables)");
    ld->p = blobs_at;
    size_t off = index_size;
    for (uint64_t i = 0; i < nb; i++) {
        uint64_t sz = 0;
        const unsigned char *h = NULL;
        if (!rd_varint(ld, &sz) || !rd_fixed(ld, 8, &h))
            return fail(ld, PACK_ERR_INDEX, -1, "blob table changed between passes");   /* cannot happen */
        ld->blob_off[i] = off;
        ld->blob_len[i] = (size_t)sz;
        ld->blob_hash[i] = rd_u64le(h);
        off += (size_t)sz;
    }
    ld->p = entries_at;
    ld->s_next = m->strs;
    ld->pack->entries = m->entries;
    ld->pack->n_entries = (uint32_t)ne;
    ld->pack->n_blobs = (uint32_t)nb;
    ld->pack->index_size = index_size;
    if ((e = parse_entries(ld, true, (uint32_t)ne)))
        return e;
    return unique_names(ld, m->entries, (uint32_t)ne);
}

/* ---- 5. blobs and scenarios ---- */

static bool bcstr_eq(const BcProgram *p, uint32_t s, const char *c, size_t n)
{
    return p->str[s].len == n && memcmp(p->str[s].s, c, n) == 0;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static PackErrCode check_meta(Ld *ld, uint32_t i, const PackEntry *e, const BcProgram *p)
{
    const BcMeta *m = &p->meta;
    if (!bcstr_eq(p, m->name, e->name, strlen(e->name)))
        return fail(ld, PACK_ERR_ENTRY, (int32_t)i, "entry %u '%s': the bytecode's name differs from the index",
                    (unsigned)i, e->name);
    const char *b = base(e->source);
    if (!bcstr_eq(p, m->source, b, strlen(b)))
        return fail(ld, PACK_ERR_ENTRY, (int32_t)i, "entry %u '%s': the bytecode's source differs from the index",
                    (unsigned)i, e->name);
    BcVal v = bc_val(p, m->prompt);
    bool same = e->prompt ? v.tag == BC_V_STR && bcstr_eq(p, v.n, e->prompt, e->prompt_len) : v.tag == BC_V_NULL;
    if (!same)
        return fail(ld, PACK_ERR_ENTRY, (int32_t)i, "entry %u '%s': the bytecode's prompt differs from the index",
                    (unsigned)i, e->name);
    v = bc_val(p, m->tags);
    same = v.tag == BC_V_ARRAY && v.n == e->n_tags;
    const unsigned char *q = v.p;
    for (uint32_t k = 0; same && k < e->n_tags; k++) {
        BcVal t;
        q = bc_val_decode(p, q, &t);
        same = t.tag == BC_V_STR && bcstr_eq(p, t.n, e->tags[k], strlen(e->tags[k]));
    }
    if (!same)
        return fail(ld, PACK_ERR_ENTRY, (int32_t)i, "entry %u '%s': the bytecode's tags differ from the index",
                    (unsigned)i, e->name);
    return PACK_ERR_OK;
}

/* The arena of the content and the verified programs, kept from one pack
** to the next as the zstd context is: freeing a 2 MB arena at every
** pack_free let glibc give its blocks back to the system and fault them
** in again at the next pack_load (bench_vm pack, 1,000 entries: half the
** speed).  Only an arena of at most SPARE_ARENA_MAX bytes is kept. */
static BcSpare spare_arena = BC_SPARE_INIT;
enum { SPARE_ARENA_MAX = 16 << 20 };
/* What pack_load reserves in the arena a byte of content: the content
** itself, the index's tables (its strings with their NULs, up to twice
** the index) and its verified programs (2.2x the content for the corpus
** pack, 2.5x for the 1,000 generated scenarios of bench/run.py; in all
** 3.2x and 3.9x).  Room never touched costs nothing. */
enum { RESERVE_PER_BYTE = 5 };

/* Entry i's payload through the bytecode verifier, straight from the
** content (bc_load_payload), then its metadata against the index; on
** success the entry holds the program.  The payload is the one the index
** points to (e->code): its hash has been checked by the caller. */
static PackErrCode verify_entry(Ld *ld, Mem *m, uint32_t i)
{
    PackEntry *e = &m->entries[i];
    BcError be;   /* bc_load_payload sets it */
    BcProgram *p = NULL;
    BcLoadOpts o = { .arena = m->arena };
    BcErrCode c = bc_load_payload(e->code, e->code_size, e->scb_major, e->scb_minor, e->scb_flags, &o, &p, &be);
    if (c == BC_ERR_NOMEM)
        return fail(ld, PACK_ERR_NOMEM, (int32_t)i, "out of memory");
    if (c != BC_ERR_OK) {
        ld->err->bc_code = c;
        return fail(ld, PACK_ERR_ENTRY, (int32_t)i, "entry %u '%s': %s [%s]", (unsigned)i, e->name,
                    be.msg[0] ? be.msg : "rejected", bc_err_name(c));
    }
    PackErrCode pe = check_meta(ld, i, e, p);
    if (pe) {
        bc_free(p);   /* the arena's last allocation: given back */
        return pe;
    }
    e->prog = p;
    return PACK_ERR_OK;
}

/* Eager: every blob's hash, then every entry verified, in index order. */
static PackErrCode load_entries(Ld *ld)
{
    Mem *m = ld->m;
    for (uint32_t i = 0; i < ld->n_blobs; i++)
        if (XXH64(m->content + ld->blob_off[i], ld->blob_len[i], 0) != ld->blob_hash[i])
            return fail(ld, PACK_ERR_BLOB, -1, "blob %u: content does not match its hash", (unsigned)i);
    for (uint32_t i = 0; i < ld->pack->n_entries; i++) {
        PackErrCode pe = verify_entry(ld, m, i);
        if (pe)
            return pe;
    }
    return PACK_ERR_OK;
}

/* A loader reporting into err: cleared, no entry named yet. */
static void ld_init(Ld *ld, PackError *err)
{
    memset(ld, 0, sizeof *ld);
    ld->err = err;
    memset(err, 0, sizeof *err);
    err->entry = -1;
}

PackErrCode pack_entry_load(const Pack *pk, uint32_t i, const BcProgram **out, PackError *err)
{
    PackError scratch;
    Ld ld;
    ld_init(&ld, err ? err : &scratch);
    if (out)
        *out = NULL;
    if (i >= pk->n_entries)
        return fail(&ld, PACK_ERR_INDEX, -1, "no entry %u (the pack has %u)", (unsigned)i, (unsigned)pk->n_entries);
    Mem *m = pk->mem_;
    PackEntry *e = &m->entries[i];
    if (!e->prog) {
        /* The index's hashes of this entry's blobs: the bytes about to be
        ** verified are those the index names, whoever wrote it. */
        if (XXH64(e->code, e->code_size, 0) != e->hash)
            return fail(&ld, PACK_ERR_BLOB, (int32_t)i, "entry %u '%s': its payload does not match its hash",
                        (unsigned)i, e->name);
        for (uint32_t k = 0; k < e->n_files; k++)
            if (XXH64(e->files[k].data, e->files[k].len, 0) != e->files[k].hash)
                return fail(&ld, PACK_ERR_BLOB, (int32_t)i, "entry %u '%s': file '%s' does not match its hash",
                            (unsigned)i, e->name, e->files[k].path);
        PackErrCode pe = verify_entry(&ld, m, i);
        if (pe)
            return pe;
    }
    if (out)
        *out = e->prog;
    return PACK_ERR_OK;
}

static void mem_free(Mem *m)
{
    if (!m)
        return;
    if (m->arena && arena_footprint(m->arena) <= SPARE_ARENA_MAX) {   /* the content, every verified program */
        arena_reset(m->arena);
        m->arena = bc_spare_keep(&spare_arena, m->arena);
    }
    arena_free(m->arena);
    sc_free(m);
}

PackErrCode pack_load(const void *data, size_t size, const PackLoadOpts *opts, Pack **out, PackError *err)
{
    PackError scratch;
    Ld ld;
    ld_init(&ld, err ? err : &scratch);
    *out = NULL;
    const unsigned char *d = data;
    uint64_t max = opts && opts->max_content ? opts->max_content : PACK_MAX_CONTENT;
    if (max > SIZE_MAX / 4)
        max = SIZE_MAX / 4;
    PackErrCode e = check_header(&ld, d, size, max);
    if (e || (e = check_frames(&ld, d)))
        return e;
    Pack *pk = sc_calloc(1, sizeof *pk);
    Mem *m = sc_calloc(1, sizeof *m);
    size_t content = (size_t)rd_u64le(d + 16);
    if (pk && m && (m->arena = bc_spare_take(&spare_arena)) == NULL)
        m->arena = arena_new();
    if (m && m->arena) {
        /* The content, the index's tables and, verified, the programs
        ** in one block: untouched room costs nothing, and a large block
        ** is touched in huge pages (sc_alloc_big), a page fault per 2 MiB
        ** instead of per 4 KiB.  Without the block the arena grows as it
        ** would have. */
        (void)arena_reserve(m->arena, content * RESERVE_PER_BYTE);
        m->content = arena_alloc(m->arena, content);
    }
    if (!pk || !m || !m->content) {
        sc_free(pk);
        mem_free(m);
        return fail(&ld, PACK_ERR_NOMEM, -1, "out of memory (%zu bytes of content)", content);
    }
    ld.pack = pk;
    ld.m = m;
    pk->mem_ = m;
    pk->version_major = rd_u16le(d + 8);
    pk->version_minor = rd_u16le(d + 10);
    pk->flags = rd_u32le(d + 12);
    pk->n_frames = rd_u32le(d + 40);
    pk->dict_size = rd_u32le(d + 44);
    pk->file_size = size;
    pk->content_size = content;
    pk->checksum = rd_u64le(d + 32);
    if (!(e = decompress_all(&ld, d, m->content)) && !(e = parse_index(&ld, content)) && !(opts && opts->lazy))
        e = load_entries(&ld);
    sc_free(ld.blob_off);
    sc_free(ld.blob_len);
    sc_free(ld.blob_hash);
    if (e) {
        pack_free(pk);
        return e;
    }
    *out = pk;
    return PACK_ERR_OK;
}

void pack_free(Pack *p)
{
    if (!p)
        return;
    mem_free(p->mem_);
    sc_free(p);
}

bool pack_entry_scb(const PackEntry *e, unsigned char **out, size_t *len)
{
    const char *why;
    return bc_wrap(e->code, e->code_size, e->scb_major, e->scb_minor, e->scb_flags, 0, out, len, &why);
}

int32_t pack_find(const Pack *p, const char *name)
{
    for (uint32_t i = 0; i < p->n_entries; i++)
        if (strcmp(p->entries[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}
