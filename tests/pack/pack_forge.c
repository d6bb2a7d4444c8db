/* SPDX-License-Identifier: MIT */
/* pack_forge.c - a hostile pack made byte by byte, not by scc.
**
**   pack_forge IN OUT FROM TO [FROM TO ...]
** Decompresses IN's content (any layout), replaces every occurrence of
** each FROM by its TO (the same length, so no size field moves: names,
** tags and paths in the index and in the bytecode alike), puts the blob
** hashes of the changed blobs right in the index, and writes the content
** as one solid frame with sizes and checksum right (pack_bytes.h).  What a
** loader then sees passes every checksum: only the verifier behind them
** can refuse it.  tests/pack/pack_cli.py's "forged" case uses it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "pack_bytes.h"

static unsigned char *content(const unsigned char *d, size_t n, size_t *cn)
{
    if (n < PACK_HEADER_SIZE)
        return NULL;
    uint32_t frames = rd_u32le(d + 40), dict = rd_u32le(d + 44);
    *cn = (size_t)rd_u64le(d + 16);
    const unsigned char *tab = d + PACK_HEADER_SIZE, *dic = tab + (size_t)frames * PACK_FRAME_ENTRY_SIZE;
    const unsigned char *f = dic + dict;
    unsigned char *c = malloc(*cn ? *cn : 1);
    size_t at = 0;
    ZSTD_DCtx *dx = ZSTD_createDCtx();
    for (uint32_t i = 0; c && i < frames; i++) {
        const unsigned char *t = tab + (size_t)i * PACK_FRAME_ENTRY_SIZE;
        size_t cs = (size_t)rd_u64le(t), us = (size_t)rd_u64le(t + 8);
        size_t r = (rd_u32le(t + 16) & PACK_FRAME_DICT) ? ZSTD_decompress_usingDict(dx, c + at, us, f, cs, dic, dict)
                                                          : ZSTD_decompressDCtx(dx, c + at, us, f, cs);
        if (ZSTD_isError(r) || r != us) {
            free(c);
            c = NULL;
        }
        at += us;
        f += cs;
    }
    ZSTD_freeDCtx(dx);
    return c;
}

int main(int argc, char **argv)
{
    if (argc < 5 || (argc - 3) % 2) {
        fputs("usage: pack_forge IN OUT FROM TO [FROM TO ...]\n", stderr);
        return 2;
    }
    char *d;
    size_t n, cn;
    Pack *p;
    if (file_read_all(argv[1], (size_t)1 << 30, &d, &n) || pack_load(d, n, NULL, &p, NULL)) {
        fprintf(stderr, "pack_forge: %s: not a valid pack to start from\n", argv[1]);
        return 1;
    }
    unsigned char *c = content((const unsigned char *)d, n, &cn);
    if (!c) {
        fprintf(stderr, "pack_forge: %s: cannot decompress\n", argv[1]);
        return 1;
    }
    /* Where each entry's code blob lies in the content, and its hash. */
    size_t ne = p->n_entries, *at = calloc(ne ? ne : 1, sizeof *at);
    uint64_t *old = calloc(ne ? ne : 1, sizeof *old);
    for (size_t k = 0; k < ne; k++) {
        const PackEntry *e = &p->entries[k];
        for (size_t i = p->index_size; i + e->code_size <= cn; i++)
            if (memcmp(c + i, e->code, e->code_size) == 0) {
                at[k] = i;
                break;
            }
        old[k] = XXH64(c + at[k], e->code_size, 0);
    }
    size_t hits = 0;
    for (int a = 3; a + 1 < argc; a += 2) {
        size_t fl = strlen(argv[a]);
        if (fl != strlen(argv[a + 1]) || fl == 0) {
            fprintf(stderr, "pack_forge: '%s' and '%s' differ in length\n", argv[a], argv[a + 1]);
            return 2;
        }
        for (size_t i = 0; i + fl <= cn; i++)
            if (memcmp(c + i, argv[a], fl) == 0) {
                memcpy(c + i, argv[a + 1], fl);
                hits++;
            }
    }
    for (size_t k = 0; k < ne; k++) {
        uint64_t nh = XXH64(c + at[k], p->entries[k].code_size, 0);
        for (size_t i = 0; nh != old[k] && i + 8 <= p->index_size; i++)
            if (rd_u64le(c + i) == old[k])
                for (int b = 0; b < 8; b++)
                    c[i + (size_t)b] = (unsigned char)(nh >> (8 * b));
    }
    size_t len;
    unsigned char *pk = repack(c, cn, &len);
    int st = file_write_atomic(argv[2], pk, len);
    fprintf(stderr, "pack_forge: %zu replacements, %s written\n", hits, argv[2]);
    free(pk);
    free(c);
    free(at);
    free(old);
    pack_free(p);
    sc_free(d);
    return st || !hits ? 1 : 0;
}
