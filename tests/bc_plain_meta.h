/* SPDX-License-Identifier: MIT */
/* bc_plain_meta.h - the metadata of a hand-built test program, in one
** place for the tests that build programs with formats/bc_write.h. */
#ifndef SC_TEST_BC_PLAIN_META_H
#define SC_TEST_BC_PLAIN_META_H

#include "formats/bc_write.h"

/* name and source as given, prompt null, tags [], config = defines = {}. */
static inline void bc_plain_meta(BcBuilder *b, const char *name, const char *source)
{
    BcMeta m = { .name = bcb_cstr(b, name), .source = bcb_cstr(b, source), .prompt = bcb_null(b) };
    bcb_val_begin(b);
    bcb_val_array(b, 0);
    m.tags = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_map(b, 0);
    m.config = m.defines = bcb_val_end(b);
    bcb_set_meta(b, &m);
}

#endif
