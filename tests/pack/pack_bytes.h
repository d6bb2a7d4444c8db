/* SPDX-License-Identifier: MIT */
/* pack_bytes.h - packs made byte by byte, for tests that play an attacker
** (t_pack.c, pack_forge.c): a content re-packed as one frame with sizes and
** checksum right, so only the checks behind the checksum can catch it. */
#ifndef SC_TEST_PACK_BYTES_H
#define SC_TEST_PACK_BYTES_H

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "common/buf.h"
#include "formats/pack.h"

/* Re-packs content as one frame (level 1) with correct sizes and checksum. */
static inline unsigned char *repack(const unsigned char *content, size_t n, size_t *len)
{
    size_t bound = ZSTD_compressBound(n);
    unsigned char *o = malloc(PACK_HEADER_SIZE + PACK_FRAME_ENTRY_SIZE + bound);
    size_t cs = ZSTD_compress(o + PACK_HEADER_SIZE + PACK_FRAME_ENTRY_SIZE, bound, content, n, 1);
    Buf h;
    buf_init(&h);
    buf_put(&h, PACK_MAGIC, PACK_MAGIC_LEN);
    buf_u16le(&h, 1);
    buf_u16le(&h, 0);
    buf_u32le(&h, 0);
    buf_u64le(&h, n);
    buf_u64le(&h, PACK_FRAME_ENTRY_SIZE + cs);
    buf_u64le(&h, 0);
    buf_u32le(&h, 1);
    buf_u32le(&h, 0);
    memcpy(o, h.data, PACK_HEADER_SIZE);
    buf_fini(&h);
    unsigned char *t = o + PACK_HEADER_SIZE;
    for (int i = 0; i < 8; i++) {
        t[i] = (unsigned char)(cs >> (8 * i));
        t[8 + i] = (unsigned char)((uint64_t)n >> (8 * i));
    }
    memset(t + 16, 0, 4);
    uint64_t x = XXH64(t, PACK_FRAME_ENTRY_SIZE + cs, 0);
    for (int i = 0; i < 8; i++)
        o[32 + i] = (unsigned char)(x >> (8 * i));
    *len = PACK_HEADER_SIZE + PACK_FRAME_ENTRY_SIZE + cs;
    return o;
}

#endif
