/* SPDX-License-Identifier: MIT */
/* zstd_blocks.h - walks a zstd frame's blocks (RFC 8878 section 3.1) and
** counts its literal sections by type, so a test can say how scc's frames
** store their literals (docs/bytecode.md section 3: raw). */
#ifndef SC_TEST_ZSTD_BLOCKS_H
#define SC_TEST_ZSTD_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ZbCount {
    unsigned blocks;        /* every block of the frame */
    unsigned compressed;    /* those of type Compressed_Block */
    unsigned lit[4];        /* their literal sections: Raw, RLE, Compressed, Treeless */
} ZbCount;

/* Adds one frame of f[0..n) to c; false when the bytes are not exactly one
** well-formed frame header, its blocks and its optional checksum. */
static inline bool zb_count(const unsigned char *f, size_t n, ZbCount *c)
{
    if (n < 5 || f[0] != 0x28 || f[1] != 0xb5 || f[2] != 0x2f || f[3] != 0xfd)
        return false;
    unsigned fhd = f[4];
    static const unsigned did_size[4] = { 0, 1, 2, 4 }, fcs_size[4] = { 1, 2, 4, 8 };
    bool single = (fhd >> 5) & 1;
    unsigned fcs = fhd >> 6;
    size_t at = 5 + (single ? 0 : 1) + did_size[fhd & 3] + (fcs == 0 && !single ? 0 : fcs_size[fcs]);
    for (;;) {
        if (at > n || n - at < 3)
            return false;
        unsigned long h = f[at] | (unsigned long)f[at + 1] << 8 | (unsigned long)f[at + 2] << 16;
        unsigned type = (h >> 1) & 3;
        size_t size = h >> 3, body = type == 1 ? 1 : size;
        at += 3;
        if (type == 3 || body > n - at || (type == 2 && body == 0))
            return false;
        c->blocks++;
        if (type == 2) {
            c->compressed++;
            c->lit[f[at] & 3]++;
        }
        at += body;
        if (h & 1)
            break;
    }
    at += (fhd >> 2) & 1 ? 4 : 0;
    return at == n;
}

/* The frames counted held compressed blocks, and every literal section of
** them is raw (an RLE one may stand among them): what scc writes. */
static inline bool zb_literals_raw(const ZbCount *c)
{
    return c->compressed >= 1 && c->lit[0] >= 1 && c->lit[2] == 0 && c->lit[3] == 0;
}

/* The counts, for a failed check's message. */
static inline const char *zb_describe(const ZbCount *c, char *buf, size_t n)
{
    snprintf(buf, n, "%u blocks, %u compressed; literal sections raw %u, RLE %u, Huffman %u, treeless %u",
             c->blocks, c->compressed, c->lit[0], c->lit[1], c->lit[2], c->lit[3]);
    return buf;
}

#endif
