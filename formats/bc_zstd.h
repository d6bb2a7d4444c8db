/* bc_zstd.h - zstd contexts that allocate through sc_malloc, so the
** allocation-failure tests reach inside zstd too.  Include after
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

#endif
