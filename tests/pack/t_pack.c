/* SPDX-License-Identifier: MIT */
/* t_pack.c - packs: round trip, determinism, hostile input, the C API.
**
**   pack_unit PACK OUTDIR
** PACK is a pack of the stdlib scenarios built by scc.  Checks:
**   - the writer is deterministic and pack_load round-trips its entries;
**   - every byte flipped and every truncation is rejected without a crash
**     (run under ASan in CI);
**   - every byte of the decompressed index flipped, re-packed with valid
**     checksums, is rejected or loads consistently (exercises the index
**     verifier behind the checksum);
**   - a scenario corrupted behind valid checksums is rejected with its
**     entry named; that pack is written to OUTDIR/bad_entry.scp for the
**     CLI test;
**   - scc.h: opening, selection and events equal to a direct vm_run;
**   - every frame stores its literals raw (docs/pack.md section 2);
**   - every frame is what zstd gives with the parameters section 2 names
**     (level 19, no match under five bytes, raw literals), and not what it
**     gives with level 19's own 3-byte matches; in the solid layout scc
**     picks for the stdlib and in the dictionary layout, forced;
**   - a pack of many tiny blobs skips the dictionary layout that cannot
**     be smaller, and comes out as it did. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#define ZSTD_STATIC_LINKING_ONLY     /* ZSTD_c_literalCompressionMode */
#include <zstd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "formats/pack.h"
#include "include/scc/scc.h"
#include "pack_bytes.h"
#include "tests/check.h"
#include "tests/zstd_blocks.h"

/* The decompressed content of a pack (test input: trusted). */
static unsigned char *content_of(const unsigned char *d, size_t *n)
{
    Pack *p;
    if (pack_load(d, rd_u64le(d + 24) + PACK_HEADER_SIZE, NULL, &p, NULL))
        return NULL;
    *n = p->content_size;
    pack_free(p);
    unsigned char *c = malloc(*n);
    uint32_t frames = rd_u32le(d + 40), dict = rd_u32le(d + 44);
    CHECKF(dict == 0 && frames == 1, "the stdlib pack is expected to be one solid frame");
    const unsigned char *f = d + PACK_HEADER_SIZE + PACK_FRAME_ENTRY_SIZE;
    ZSTD_decompress(c, *n, f, rd_u64le(d + PACK_HEADER_SIZE));
    return c;
}

/* A frame's content compressed again with the parameters of docs/pack.md
** section 2, but min_match for the minimum match (0: level 19's own); with
** the pack's dictionary when dict is not NULL, made into a CDict as the
** writer makes it.  True when that gives the frame's bytes. */
static bool frame_recipe(const unsigned char *f, size_t cs, size_t content, const void *dict, size_t dict_len,
                         int min_match)
{
    unsigned char *plain = malloc(content + 1), *again = NULL;
    bool same = false;
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    ZSTD_CDict *cd = NULL;
    if (!plain || !cc || !dc)
        goto out;
    size_t got = dict ? ZSTD_decompress_usingDict(dc, plain, content, f, cs, dict, dict_len)
                      : ZSTD_decompressDCtx(dc, plain, content, f, cs);
    size_t bound = ZSTD_compressBound(content);
    if (got != content || !(again = malloc(bound)))
        goto out;
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 19);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 0);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_dictIDFlag, 0);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
    if (min_match)
        ZSTD_CCtx_setParameter(cc, ZSTD_c_minMatch, min_match);
    if (dict) {
        ZSTD_compressionParameters cp = ZSTD_getCParams(19, 0, dict_len);
        if (min_match)
            cp.minMatch = (unsigned)min_match;
        cd = ZSTD_createCDict_advanced(dict, dict_len, ZSTD_dlm_byRef, ZSTD_dct_auto, cp, ZSTD_defaultCMem);
        if (!cd)
            goto out;
        ZSTD_CCtx_refCDict(cc, cd);
    }
    size_t r = ZSTD_compress2(cc, again, bound, plain, content);
    same = !ZSTD_isError(r) && r == cs && memcmp(again, f, cs) == 0;
out:
    ZSTD_freeCDict(cd);
    ZSTD_freeDCtx(dc);
    ZSTD_freeCCtx(cc);
    free(again);
    free(plain);
    return same;
}

/* Every frame of 1 KiB or more is what section 2's parameters give, and
** at least one differs from what level 19's own minimum match gives (so
** the check can fail). */
static void check_frames(const unsigned char *d, const char *what)
{
    uint32_t frames = rd_u32le(d + 40), dict = rd_u32le(d + 44);
    const unsigned char *t = d + PACK_HEADER_SIZE, *dic = t + (size_t)frames * PACK_FRAME_ENTRY_SIZE;
    const unsigned char *f = dic + dict;
    uint32_t checked = 0, differ = 0;
    for (uint32_t i = 0; i < frames; i++, t += PACK_FRAME_ENTRY_SIZE) {
        size_t cs = (size_t)rd_u64le(t), content = (size_t)rd_u64le(t + 8);
        const void *dd = (rd_u32le(t + 16) & PACK_FRAME_DICT) ? dic : NULL;
        if (content >= 1024) {
            CHECKF(frame_recipe(f, cs, content, dd, dict, 5), "%s, frame %u%s: not level 19 with matches of five "
                   "bytes or more", what, i, dd ? " (dictionary)" : "");
            differ += !frame_recipe(f, cs, content, dd, dict, 0);
            checked++;
        }
        f += cs;
    }
    CHECKF(checked >= 1 && differ >= 1, "%s: %u frames of 1 KiB or more, %u of them not what level 19's own minimum "
           "gives", what, checked, differ);
}

static void test_raw_literals(const unsigned char *d);

static void test_dict_frames(const unsigned char *d)
{
    uint32_t frames = rd_u32le(d + 40), with = 0;
    const unsigned char *t = d + PACK_HEADER_SIZE;
    for (uint32_t i = 0; i < frames; i++, t += PACK_FRAME_ENTRY_SIZE)
        with += (rd_u32le(t + 16) & PACK_FRAME_DICT) != 0;
    CHECKF(with >= 1, "no frame uses the dictionary (%u frames)", frames);
    check_frames(d, "dictionary layout");
    test_raw_literals(d);
}

static void test_roundtrip(const Pack *p)
{
    PackWriter *w = pack_writer_new();
    for (uint32_t i = 0; i < p->n_entries; i++) {
        const PackEntry *e = &p->entries[i];
        unsigned char *scb;
        size_t n;
        CHECKF(pack_entry_scb(e, &scb, &n), "entry %u", i);
        PackFileIn *fi = calloc(e->n_files + 1, sizeof *fi);
        for (uint32_t k = 0; k < e->n_files; k++)
            fi[k] = (PackFileIn){ e->files[k].path, e->files[k].mode, e->files[k].data, e->files[k].len };
        PackEntryIn in = { e->source, e->source_hash, scb, n, fi, e->n_files };
        CHECKF(pack_writer_add(w, &in), "%s", pack_writer_error(w));
        CHECKF(!pack_writer_add(w, &in), "a duplicate name is refused");
        CHECKF(strstr(pack_writer_error(w), "duplicate scenario name") != NULL, "%s", pack_writer_error(w));
        sc_free(scb);
        free(fi);
    }
    unsigned char *a, *b;
    size_t na, nb;
    CHECKF(pack_writer_finish(w, NULL, &a, &na), "finish");
    CHECKF(pack_writer_finish(w, NULL, &b, &nb), "finish twice");
    CHECKF(na == nb && memcmp(a, b, na) == 0, "deterministic");
    Pack *q;
    PackError pe;
    CHECKF(pack_load(a, na, NULL, &q, &pe) == PACK_ERR_OK, "%s", pe.msg);
    CHECKF(q->n_entries == p->n_entries, "count");
    for (uint32_t i = 0; i < q->n_entries; i++) {
        CHECKF(strcmp(q->entries[i].name, p->entries[i].name) == 0, "name %u", i);
        CHECKF(q->entries[i].hash == p->entries[i].hash, "hash %u", i);
        CHECKF(q->entries[i].n_files == p->entries[i].n_files, "files %u", i);
    }
    pack_free(q);
    /* The dictionary layout, forced (for these blobs the solid frame is
    ** smaller, so the writer would not pick it): deterministic, it loads
    ** with the same entries, and its frames follow section 2's parameters. */
    unsigned char *c, *c2;
    size_t nc, nc2;
    PackWriteOpts fo = { .force_dict = true };
    CHECKF(pack_writer_finish(w, &fo, &c, &nc), "finish, dictionary layout");
    CHECKF(pack_writer_finish(w, &fo, &c2, &nc2) && nc == nc2 && memcmp(c, c2, nc) == 0, "deterministic");
    CHECKF((rd_u32le(c + 12) & 1) && rd_u32le(c + 40) > 1, "dictionary layout: %u frames", rd_u32le(c + 40));
    CHECKF(pack_load(c, nc, NULL, &q, &pe) == PACK_ERR_OK, "%s", pe.msg);
    for (uint32_t i = 0; i < q->n_entries && i < p->n_entries; i++) {
        CHECKF(q->entries[i].hash == p->entries[i].hash, "hash %u", i);
        CHECKF(q->entries[i].n_files == p->entries[i].n_files, "files %u", i);
        for (uint32_t k = 0; k < q->entries[i].n_files && k < p->entries[i].n_files; k++)
            CHECKF(q->entries[i].files[k].len == p->entries[i].files[k].len &&
                   memcmp(q->entries[i].files[k].data, p->entries[i].files[k].data, q->entries[i].files[k].len) == 0,
                   "entry %u file %u", i, k);
    }
    pack_free(q);
    test_dict_frames(c);
    sc_free(c2);
    sc_free(c);
    sc_free(b);
    sc_free(a);
    pack_writer_free(w);
}

/* A pack of many tiny blobs (one entry carrying 4,000 embedded files of
** a few bytes): the writer skips the dictionary layout when its frame
** table and the least its frames can take (28 bytes a frame) are no
** smaller than the solid layout (formats/pack_write.c, dict_floor), which
** must leave the pack as it was: the solid one, what no_dict gives.  The
** dictionary layout, forced, is still made, and bears the floor out:
** every frame at least 8 bytes, the whole at least 28 bytes a frame. */
static void test_dict_floor(const Pack *p)
{
    enum { FILES = 4000 };
    const PackEntry *e = &p->entries[0];
    unsigned char *scb;
    size_t n;
    CHECKF(pack_entry_scb(e, &scb, &n), "entry 0");
    PackFileIn *fi = calloc(FILES, sizeof *fi);
    char (*paths)[16] = calloc(FILES, sizeof *paths), (*data)[9] = calloc(FILES, sizeof *data);
    for (int k = 0; k < FILES; k++) {
        snprintf(paths[k], sizeof paths[k], "f/%04d", k);
        snprintf(data[k], sizeof data[k], "%07d", k);
        fi[k] = (PackFileIn){ paths[k], 0, data[k], strlen(data[k]) };
    }
    PackWriter *w = pack_writer_new();
    PackEntryIn in = { e->source, e->source_hash, scb, n, fi, FILES };
    CHECKF(pack_writer_add(w, &in), "%s", pack_writer_error(w));
    unsigned char *a = NULL, *s = NULL, *f = NULL;
    size_t na = 0, ns = 0, nf = 0;
    PackWriteOpts solid = { .no_dict = true }, forced = { .force_dict = true };
    bool ok = pack_writer_finish(w, NULL, &a, &na) && pack_writer_finish(w, &solid, &s, &ns) &&
              pack_writer_finish(w, &forced, &f, &nf);
    CHECKF(ok, "finish: %s", pack_writer_error(w));
    if (!ok)
        goto out;
    CHECKF(na == ns && memcmp(a, s, na) == 0, "many tiny blobs: the solid layout (%zu bytes, solid %zu)", na, ns);
    uint32_t frames = rd_u32le(f + 40);
    CHECKF((rd_u32le(f + 12) & 1) && frames > FILES / 2, "the dictionary layout, forced: %u frames", frames);
    CHECKF(nf - PACK_HEADER_SIZE >= (size_t)frames * 28 && (size_t)frames * 28 >= ns - PACK_HEADER_SIZE,
           "the forced layout's body (%zu) >= its floor (%u frames x 28) >= the solid body (%zu)",
           nf - PACK_HEADER_SIZE, frames, ns - PACK_HEADER_SIZE);
    const unsigned char *t = f + PACK_HEADER_SIZE;
    size_t small = 0;
    for (uint32_t i = 0; i < frames; i++, t += PACK_FRAME_ENTRY_SIZE)
        small += rd_u64le(t) < 8;
    CHECKF(small == 0, "%zu frames under 8 bytes", small);
    Pack *q;
    PackError pe;
    CHECKF(pack_load(a, na, NULL, &q, &pe) == PACK_ERR_OK, "%s", pe.msg);
    if (q) {
        CHECKF(q->n_entries == 1 && q->entries[0].n_files == FILES, "the files");
        pack_free(q);
    }
out:
    sc_free(a);
    sc_free(s);
    sc_free(f);
    pack_writer_free(w);
    sc_free(scb);
    free(fi);
    free(paths);
    free(data);
}

static void test_hostile(const unsigned char *d, size_t n)
{
    unsigned char *m = malloc(n);
    size_t rejected = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(m, d, n);
        m[i] ^= (unsigned char)(1u << (i % 8));
        Pack *p = NULL;
        if (pack_load(m, n, NULL, &p, NULL) != PACK_ERR_OK)
            rejected++;
        pack_free(p);
    }
    CHECKF(rejected == n, "every flipped byte is rejected (%zu of %zu)", rejected, n);
    for (size_t k = 0; k < n; k++) {
        Pack *p = NULL;
        CHECKF(pack_load(d, k, NULL, &p, NULL) != PACK_ERR_OK, "truncation to %zu rejected", k);
        pack_free(p);
    }
    free(m);
}

static void test_index_flips(const unsigned char *d)
{
    size_t cn;
    unsigned char *c = content_of(d, &cn);
    Pack *p;
    pack_load(d, rd_u64le(d + 24) + PACK_HEADER_SIZE, NULL, &p, NULL);
    size_t index = p->index_size;
    pack_free(p);
    size_t loaded = 0;
    for (size_t i = 0; i < index; i++) {
        for (int bit = 0; bit < 8; bit += 4) {
            c[i] ^= (unsigned char)(1u << bit);
            size_t len;
            unsigned char *pk = repack(c, cn, &len);
            Pack *q = NULL;
            PackError pe;
            if (pack_load(pk, len, NULL, &q, &pe) == PACK_ERR_OK) {
                loaded++;   /* a hash or flag bit that still makes sense: must be self-consistent */
                for (uint32_t k = 0; k < q->n_entries; k++)
                    CHECKF(q->entries[k].prog != NULL, "entry %u loaded", k);
            } else {
                CHECKF(pe.code != PACK_ERR_OK && pe.msg[0], "a message");
            }
            pack_free(q);
            free(pk);
            c[i] ^= (unsigned char)(1u << bit);
        }
    }
    CHECKF(loaded < index, "most index flips are rejected (%zu loaded of %zu)", loaded, index * 2);
    free(c);
}

static void test_bad_entry(const unsigned char *d, const char *outdir)
{
    size_t cn;
    unsigned char *c = content_of(d, &cn);
    Pack *p;
    pack_load(d, rd_u64le(d + 24) + PACK_HEADER_SIZE, NULL, &p, NULL);
    /* Entry 2's payload: make its CODE opcode byte invalid, then fix the blob
    ** hash in the index so only the bytecode verifier can catch it. */
    const PackEntry *e = &p->entries[2];
    size_t at = 0;
    for (size_t i = 0; i + e->code_size <= cn; i++)
        if (memcmp(c + i, e->code, e->code_size) == 0) {
            at = i;
            break;
        }
    uint64_t old = XXH64(c + at, e->code_size, 0);
    /* the section table's CODE entry: id 3 */
    const unsigned char *pl = c + at;
    uint32_t nsec = rd_u32le(pl), code_off = 0;
    for (uint32_t s = 0; s < nsec; s++)
        if (rd_u32le(pl + 4 + 12 * s) == 3)
            code_off = rd_u32le(pl + 8 + 12 * s);
    c[at + code_off + 1] = 0xee;   /* the first opcode, after the varint count (< 128 ops) */
    uint64_t nh = XXH64(c + at, e->code_size, 0);
    for (size_t i = 0; i + 8 <= p->index_size; i++)
        if (rd_u64le(c + i) == old)
            for (int k = 0; k < 8; k++)
                c[i + (size_t)k] = (unsigned char)(nh >> (8 * k));
    size_t len;
    unsigned char *pk = repack(c, cn, &len);
    Pack *q = NULL;
    PackError pe;
    CHECKF(pack_load(pk, len, NULL, &q, &pe) == PACK_ERR_ENTRY, "rejected as ENTRY: %s", pe.msg);
    CHECKF(pe.entry == 2 && strstr(pe.msg, e->name) != NULL, "names entry 2: %s", pe.msg);
    char path[4096];
    snprintf(path, sizeof path, "%s/bad_entry.scp", outdir);
    CHECKF(file_write_atomic(path, pk, len) == 0, "write %s", path);
    pack_free(q);
    pack_free(p);
    free(pk);
    free(c);
}

/* The pack d with entry 2's first opcode made invalid; with fix_hash the
** index's XXH64 of that payload is recomputed, so only the bytecode
** verifier can catch it; without, the payload no longer matches the hash
** the index gives for it.  Either way the container's checksums are
** valid (repack). */
static unsigned char *tampered(const unsigned char *d, bool fix_hash, size_t *len)
{
    size_t cn;
    unsigned char *c = content_of(d, &cn);
    Pack *p;
    pack_load(d, rd_u64le(d + 24) + PACK_HEADER_SIZE, NULL, &p, NULL);
    const PackEntry *e = &p->entries[2];
    size_t at = 0;
    for (size_t i = 0; i + e->code_size <= cn; i++)
        if (memcmp(c + i, e->code, e->code_size) == 0) {
            at = i;
            break;
        }
    uint64_t old = XXH64(c + at, e->code_size, 0);
    const unsigned char *pl = c + at;
    uint32_t nsec = rd_u32le(pl), code_off = 0;
    for (uint32_t s = 0; s < nsec; s++)
        if (rd_u32le(pl + 4 + 12 * s) == 3)
            code_off = rd_u32le(pl + 8 + 12 * s);
    c[at + code_off + 1] = 0xee;
    uint64_t nh = XXH64(c + at, e->code_size, 0);
    for (size_t i = 0; fix_hash && i + 8 <= p->index_size; i++)
        if (rd_u64le(c + i) == old)
            for (int k = 0; k < 8; k++)
                c[i + (size_t)k] = (unsigned char)(nh >> (8 * k));
    pack_free(p);
    unsigned char *pk = repack(c, cn, len);
    free(c);
    return pk;
}

/* Lazy packs (PackLoadOpts.lazy, docs/pack.md section 5): an entry is
** verified at its first use, completely, with the codes an eager load
** gives; an entry never used is never verified. */
static void test_lazy(const unsigned char *d)
{
    size_t n = rd_u64le(d + 24) + PACK_HEADER_SIZE;
    PackLoadOpts lazy = { .lazy = true };
    Pack *p = NULL;
    PackError pe, eager;
    const BcProgram *prog;
    /* An intact pack: nothing verified by the load, each entry at its first use. */
    CHECKF(pack_load(d, n, &lazy, &p, &pe) == PACK_ERR_OK, "%s", pe.msg);
    for (uint32_t i = 0; i < p->n_entries; i++)
        CHECKF(p->entries[i].prog == NULL, "entry %u not verified by a lazy load", i);
    CHECKF(pack_entry_load(p, 1, &prog, &pe) == PACK_ERR_OK && prog && p->entries[1].prog == prog, "%s", pe.msg);
    CHECKF(pack_entry_load(p, 1, &prog, &pe) == PACK_ERR_OK && prog == p->entries[1].prog, "kept");
    CHECKF(p->entries[0].prog == NULL && p->entries[2].prog == NULL, "only entry 1 verified");
    CHECKF(pack_entry_load(p, p->n_entries, &prog, &pe) == PACK_ERR_INDEX && !prog, "out of range");
    pack_free(p);   /* frees the verified program, leaks none of the others */

    /* (a) A payload broken behind valid hashes: the lazy load accepts the
    ** container and index; the entry fails at its first use with the code,
    ** bytecode code and message an eager load gives, every time. */
    size_t len;
    unsigned char *pk = tampered(d, true, &len);
    Pack *q = NULL;
    CHECKF(pack_load(pk, len, NULL, &q, &eager) == PACK_ERR_ENTRY && eager.entry == 2, "eager: %s", eager.msg);
    CHECKF(pack_load(pk, len, &lazy, &q, &pe) == PACK_ERR_OK, "lazy load: %s", pe.msg);
    CHECKF(pack_entry_load(q, 0, &prog, &pe) == PACK_ERR_OK, "entry 0: %s", pe.msg);
    for (int round = 0; round < 2; round++) {
        CHECKF(pack_entry_load(q, 2, &prog, &pe) == PACK_ERR_ENTRY && !prog, "entry 2 rejected at first use");
        CHECKF(pe.entry == 2 && pe.bc_code == eager.bc_code && strcmp(pe.msg, eager.msg) == 0,
               "the eager error: '%s' vs '%s'", pe.msg, eager.msg);
        CHECKF(q->entries[2].prog == NULL, "a rejected entry stays unverified");
    }
    /* Asking again and again costs no memory: the program block a failed
    ** verification took from the pack's arena is given back (without it,
    ** 10,000 attempts kept 31 MB).  mallinfo2 counts glibc's heap
    ** (under ASan it reports nothing, and LeakSanitizer watches instead). */
    size_t heap0 = mallinfo2().uordblks;
    for (int round = 0; round < 10000; round++)
        if (pack_entry_load(q, 2, &prog, &pe) != PACK_ERR_ENTRY)
            CHECKF(false, "round %d: %s", round, pe.msg);
    size_t heap1 = mallinfo2().uordblks;
    CHECKF(heap1 < heap0 + 64 * 1024, "10,000 failed attempts grew the heap by %zu bytes", heap1 - heap0);
    /* (c) The entries around it play; the broken one, never used, never
    ** fails: it was never verified. */
    CHECKF(pack_entry_load(q, 3, &prog, &pe) == PACK_ERR_OK, "entry 3: %s", pe.msg);
    pack_free(q);
    q = NULL;
    CHECKF(pack_load(pk, len, &lazy, &q, &pe) == PACK_ERR_OK, "%s", pe.msg);
    for (uint32_t i = 0; i < q->n_entries; i++)
        if (i != 2)
            CHECKF(pack_entry_load(q, i, &prog, &pe) == PACK_ERR_OK, "entry %u: %s", i, pe.msg);
    CHECKF(q->entries[2].prog == NULL, "entry 2, never used, never verified");
    pack_free(q);
    free(pk);

    /* (b) A payload that no longer matches its hash in the index: BLOB at
    ** its first use (eager: BLOB at load), the other entries unaffected. */
    pk = tampered(d, false, &len);
    q = NULL;
    CHECKF(pack_load(pk, len, NULL, &q, &eager) == PACK_ERR_BLOB, "eager: %s", eager.msg);
    CHECKF(pack_load(pk, len, &lazy, &q, &pe) == PACK_ERR_OK, "lazy load: %s", pe.msg);
    CHECKF(pack_entry_load(q, 2, &prog, &pe) == PACK_ERR_BLOB && pe.entry == 2 && !prog, "BLOB: %s", pe.msg);
    CHECKF(strstr(pe.msg, "does not match its hash") != NULL, "%s", pe.msg);
    CHECKF(q->entries[2].prog == NULL, "not verified");
    CHECKF(pack_entry_load(q, 1, &prog, &pe) == PACK_ERR_OK, "entry 1: %s", pe.msg);
    pack_free(q);
    free(pk);
}

static void test_api(const char *path)
{
    scc_suite *s;
    char err[256];
    CHECKF(scc_open_file(path, &s, err, sizeof err) == SCC_OK, "%s", err);
    CHECKF(scc_is_pack(s) && scc_count(s) >= 2, "a pack");
    long i = scc_find(s, "bugfix_with_tests");
    CHECKF(i >= 0, "find");
    CHECKF(scc_match_prompt(s, scc_prompt(s, (size_t)i), NULL) == i, "exact prompt matches itself");
    scc_events *it;
    CHECKF(scc_events_open(s, (size_t)i, 1.0, &it) == SCC_OK, "events");
    scc_event ev;
    size_t n = 0;
    uint64_t last = 0;
    while (scc_events_next(it, &ev)) {
        CHECKF(ev.json[0] == '{' && strstr(ev.json, ev.kind) != NULL, "event %zu: %s", n, ev.json);
        CHECKF(ev.at_ms >= last, "times non-decreasing");
        last = ev.at_ms;
        n++;
    }
    CHECKF(n > 5, "some events (%zu)", n);
    scc_events_close(it);
    scc_close(s);
    CHECKF(scc_open_memory("garbage!", 8, &s, err, sizeof err) == SCC_EREJECTED, "garbage rejected");
}

/* Every frame of the pack (section 2 of docs/pack.md: the frame table
** after the header, the dictionary, then the frames) stores its literals
** raw; a frame must hold compressed blocks for that to mean anything. */
static void test_raw_literals(const unsigned char *d)
{
    uint32_t frames = rd_u32le(d + 40), dict = rd_u32le(d + 44);
    const unsigned char *t = d + PACK_HEADER_SIZE, *f = t + (size_t)frames * PACK_FRAME_ENTRY_SIZE + dict;
    ZbCount c = { 0 };
    for (uint32_t i = 0; i < frames; i++, t += PACK_FRAME_ENTRY_SIZE) {
        size_t cs = (size_t)rd_u64le(t);
        CHECKF(zb_count(f, cs, &c), "frame %u is not one well-formed zstd frame", i);
        f += cs;
    }
    char why[160];
    CHECKF(frames >= 1 && zb_literals_raw(&c), "%u frames, %s", frames, zb_describe(&c, why, sizeof why));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: pack_unit PACK OUTDIR\n", stderr);
        return 2;
    }
    char *d;
    size_t n;
    if (file_read_all(argv[1], 1 << 26, &d, &n)) {
        perror(argv[1]);
        return 2;
    }
    Pack *p;
    PackError pe;
    CHECKF(pack_load(d, n, NULL, &p, &pe) == PACK_ERR_OK, "%s", pe.msg);
    test_roundtrip(p);
    test_dict_floor(p);
    pack_free(p);
    test_raw_literals((unsigned char *)d);
    check_frames((unsigned char *)d, "the stdlib pack");
    test_hostile((unsigned char *)d, n);
    test_index_flips((unsigned char *)d);
    test_bad_entry((unsigned char *)d, argv[2]);
    test_lazy((unsigned char *)d);
    test_api(argv[1]);
    sc_free(d);
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        puts("pack_unit: ok");
    return failures != 0;
}
