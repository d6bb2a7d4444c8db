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

/* The pinned level of .scb frames (docs/bytecode.md section 3). */
enum { BC_DEFAULT_LEVEL = 3 };

/* The built-in dictionary's prepared forms (bc_dict.c; its bytes:
** bc_dict_bytes in bc.h), built once per process on first use; NULL when
** that runs out of memory (the next call tries again).  The CDict is at
** BC_DEFAULT_LEVEL. */
const ZSTD_DDict *bc_dict_ddict(void);
const ZSTD_CDict *bc_dict_cdict(void);

#endif
