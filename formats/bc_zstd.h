/* bc_zstd.h - zstd contexts that allocate through sc_malloc, so the
** allocation-failure tests reach inside zstd too; the built-in dictionary.  Include after
** <zstd.h> with ZSTD_STATIC_LINKING_ONLY defined (ZSTD_customMem). */
#ifndef SC_BC_ZSTD_H
#define SC_BC_ZSTD_H

#include "sc_alloc.h"

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

/* The parameters every frame scc and packs write is pinned to
** (docs/bytecode.md section 3, docs/pack.md section 2): the level given,
** content size declared, no zstd checksum (the container's XXH64 covers
** the frame), no dictionary id (the container names the dictionary).
** Returns zstd's result code. */
static inline size_t bc_zstd_pin(ZSTD_CCtx *cc, int level)
{
    size_t r = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 1);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 0);
    if (!ZSTD_isError(r))
        r = ZSTD_CCtx_setParameter(cc, ZSTD_c_dictIDFlag, 0);
    return r;
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
