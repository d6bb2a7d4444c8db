/* SPDX-License-Identifier: MIT */
/* bc_zstd.h - zstd contexts that allocate through sc_malloc, so the
** allocation-failure tests reach inside zstd too; the built-in dictionary.  Include after
** <zstd.h> with ZSTD_STATIC_LINKING_ONLY defined (ZSTD_customMem). */
#ifndef SC_BC_ZSTD_H
#define SC_BC_ZSTD_H

#include <pthread.h>

#include "common/sc_alloc.h"

static inline void *bc_zstd_alloc(void *opaque, size_t n)
{
    (void)opaque;
    return sc_malloc(n);
}

static inline void bc_zstd_free(void *opaque, void *p)
{
    (void)opaque;
    sc_free(p);
}

static inline ZSTD_customMem bc_zstd_mem(void)
{
    return (ZSTD_customMem){ bc_zstd_alloc, bc_zstd_free, NULL };
}

/* How every frame stores its literals (bc_zstd_pin); bc_writer_id names it. */
enum { BC_ZSTD_LITERALS = ZSTD_ps_disable };

/* The parameters every frame scc and packs write is pinned to
** (docs/bytecode.md section 3, docs/pack.md section 2): the level given,
** content size declared, no zstd checksum (the container's XXH64 covers
** the frame), no dictionary id (the container names the dictionary),
** literals stored raw (Huffman-coded, a small frame's literals decode one
** symbol at a time: half of zstd's time on a typical scenario, for 6-17%
** of the size; docs/performance.md, "Literals stored raw").
** Returns zstd's result code. */
static inline size_t bc_zstd_pin(ZSTD_CCtx *cc, int level)
{
    size_t r = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cc, ZSTD_c_literalCompressionMode, BC_ZSTD_LITERALS);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 0);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cc, ZSTD_c_dictIDFlag, 0);
    return r;
}

/* One spare zstd context kept for the next caller (bc_wrap's compression
** context, bc_load's decompression context): creating one runs zstd's CPU
** detection, two CPUID instructions that trap to the hypervisor on a
** virtual machine, then allocates and clears its tables.  A lock, so
** threads take the spare in turn or make their own. */
typedef struct BcSpare {
    pthread_mutex_t lock;
    void *p;
} BcSpare;
#define BC_SPARE_INIT { PTHREAD_MUTEX_INITIALIZER, NULL }

/* The spare, or NULL when there is none (the caller makes one). */
static inline void *bc_spare_take(BcSpare *s)
{
    pthread_mutex_lock(&s->lock);
    void *p = s->p;
    s->p = NULL;
    pthread_mutex_unlock(&s->lock);
    return p;
}

/* Keeps p as the spare and returns NULL, or returns p for the caller to
** free when there is a spare already. */
static inline void *bc_spare_keep(BcSpare *s, void *p)
{
    pthread_mutex_lock(&s->lock);
    if (!s->p) {
        s->p = p;
        p = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return p;
}

/* The pinned level of .scb frames (docs/bytecode.md section 3). */
enum { BC_DEFAULT_LEVEL = 3 };

/* The built-in dictionary's prepared forms (bc_dict.c; its bytes:
** bc_dict_bytes in bc.h), built once per process on first use; NULL when
** that runs out of memory (the next call tries again).  The CDict is at
** BC_DEFAULT_LEVEL. */
const ZSTD_DDict *bc_dict_ddict(void);
const ZSTD_CDict *bc_dict_cdict(void);

#endif
