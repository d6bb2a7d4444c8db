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
** exit, so they stay outside sc_malloc's accounting and fault injection. */
#define ZSTD_STATIC_LINKING_ONLY   /* ZSTD_createDDict_advanced: by reference */
#include "bc.h"

#include <pthread.h>
#include <zstd.h>

#include "bc_write.h"
#include "bc_zstd.h"

extern const unsigned char bc_dict1[];
extern const size_t bc_dict1_len;

static pthread_once_t ddict_once = PTHREAD_ONCE_INIT, cdict_once = PTHREAD_ONCE_INIT;
static ZSTD_DDict *ddict;
static ZSTD_CDict *cdict;

static void make_ddict(void)
{
    ddict = ZSTD_createDDict_advanced(bc_dict1, bc_dict1_len, ZSTD_dlm_byRef, ZSTD_dct_fullDict,
                                      ZSTD_defaultCMem);
}

/* At the default level.  zstd sizes a CDict's tables for small inputs,
** the ones the dictionary is for, and for large ones falls back to the
** level's own parameters by itself. */
static void make_cdict(void)
{
    cdict = ZSTD_createCDict(bc_dict1, bc_dict1_len, BC_DEFAULT_LEVEL);
}

const void *bc_dict_bytes(size_t *len)
{
    *len = bc_dict1_len;
    return bc_dict1;
}

const ZSTD_DDict *bc_dict_ddict(void)
{
    pthread_once(&ddict_once, make_ddict);
    return ddict;
}

const ZSTD_CDict *bc_dict_cdict(void)
{
    pthread_once(&cdict_once, make_cdict);
    return cdict;
}
