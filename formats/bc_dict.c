/* SPDX-License-Identifier: MIT */
/* bc_dict.c - the built-in zstd dictionary of .scb 1.1 (BC_FLAG_DICT).
**
** A compiled scenario is small (the corpus's payloads are 0.2-2 KB), and a
** zstd frame that small spends most of its bytes and most of its decoding
** time on entropy tables and on strings it has not seen yet.  The format
** therefore names one dictionary, scb-dict-1.zdict (8 KiB, trained with
** `zstd --train` on the payloads of stdlib-scenarios/; docs/bytecode.md
** section 3), compiled in as bc_dict1[].  It is frozen: a different
** dictionary would be a new flag, never a new version of this one.
**
** Both prepared forms are built once per process, on first use, with
** zstd's default allocator: they are shared, read-only, and live until
** exit, so they stay outside sc_malloc's fault injection. */
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_createDDict_advanced: by reference */
#include "bc.h"

#include <pthread.h>
#include <zstd.h>

#include "bc_write.h"
#include "bc_zstd.h"

extern const unsigned char bc_dict1[];
extern const size_t bc_dict1_len;

/* Built on first use under a lock, so that a first attempt that ran out
** of memory is tried again by the next caller rather than remembered. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ZSTD_DDict *ddict;
static ZSTD_CDict *cdict;

const void *bc_dict_bytes(size_t *len)
{
    *len = bc_dict1_len;
    return bc_dict1;
}

const ZSTD_DDict *bc_dict_ddict(void)
{
    pthread_mutex_lock(&lock);
    if (!ddict)
        ddict = ZSTD_createDDict_advanced(bc_dict1, bc_dict1_len, ZSTD_dlm_byRef,
                                          ZSTD_dct_fullDict, ZSTD_defaultCMem);
    const ZSTD_DDict *d = ddict;
    pthread_mutex_unlock(&lock);
    return d;
}

/* At the default level.  zstd sizes a CDict's tables for small inputs, the
** ones the dictionary is for; docs/bytecode.md section 3.1 gives this exact
** recipe (ZSTD_createCDict, then ZSTD_CCtx_refCDict), which is what decides
** the frame bytes. */
const ZSTD_CDict *bc_dict_cdict(void)
{
    pthread_mutex_lock(&lock);
    if (!cdict)
        cdict = ZSTD_createCDict(bc_dict1, bc_dict1_len, BC_DEFAULT_LEVEL);
    const ZSTD_CDict *c = cdict;
    pthread_mutex_unlock(&lock);
    return c;
}
