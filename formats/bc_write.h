/* SPDX-License-Identifier: MIT */
/* bc_write.h - building a .scb: string pool, values, code, line table, meta.
**
** The compiler (and every dialect front end) emits through this builder.
** bcb_op() checks each op against ops.def, so malformed code is caught
** where it is made.  Output is byte-identical for identical call sequences. */
#ifndef SC_BC_WRITE_H
#define SC_BC_WRITE_H

#include "bc.h"

typedef struct BcBuilder BcBuilder;

BcBuilder *bcb_new(void);            /* NULL when out of memory */
void bcb_free(BcBuilder *b);

/* Interns a string (may contain NULs; must be valid UTF-8); returns its index. */
uint32_t bcb_str(BcBuilder *b, const char *s, size_t len);
uint32_t bcb_cstr(BcBuilder *b, const char *s);

/* Values are written in pre-order between begin and end: a container's
** header (array/map with its element count) comes first, then its
** elements; a map element is bcb_val_key() followed by one value.
** bcb_val_end() returns the value's index; identical values share one. */
void bcb_val_begin(BcBuilder *b);
void bcb_val_null(BcBuilder *b);
void bcb_val_bool(BcBuilder *b, bool v);
void bcb_val_int(BcBuilder *b, int64_t v);
void bcb_val_float(BcBuilder *b, double v);
void bcb_val_str(BcBuilder *b, uint32_t str_index);
void bcb_val_array(BcBuilder *b, uint32_t n);
void bcb_val_map(BcBuilder *b, uint32_t n);
void bcb_val_key(BcBuilder *b, uint32_t str_index);
uint32_t bcb_val_end(BcBuilder *b);
/* Shorthands for one-scalar values. */
uint32_t bcb_null(BcBuilder *b);
uint32_t bcb_strval(BcBuilder *b, uint32_t str_index);
uint32_t bcb_empty_array(BcBuilder *b);
uint32_t bcb_empty_map(BcBuilder *b);

/* Appends an op at absolute time t (ms, must not be before the previous
** op's) from source line:col (0:0 = synthetic).  The operands follow as
** uint32_t, exactly as many as ops.def says.  Returns false (and records
** why, see bcb_error) on a contract violation: a compiler bug, not bad input. */
bool bcb_op(BcBuilder *b, BcOp op, uint64_t t, uint32_t line, uint32_t col, ...);

uint32_t bcb_n_ops(const BcBuilder *b);
uint64_t bcb_last_time(const BcBuilder *b);

void bcb_set_meta(BcBuilder *b, const BcMeta *m);

typedef struct BcWriteOpts {
    bool strip_lines;       /* omit the line table */
    int zstd_level;         /* 0 = the pinned default (docs/bytecode.md) */
    /* verify: the payload also goes through the verifier scvm uses
    ** (bc_load_payload) before it is compressed; a rejection is a builder
    ** error.  This is how scc checks everything it emits without
    ** decompressing what it just compressed.  verified (implies verify):
    ** the loaded program is returned here (bc_free it), with file_size
    ** and checksum filled in; without it the program is freed before
    ** compression, so it does not add to the peak. */
    bool verify;
    BcProgram **verified;
} BcWriteOpts;

/* Serialises everything into a new buffer (caller sc_free()s *out).  An
** END op is appended if the last op is not END.  Returns false on a
** builder error or out of memory. */
bool bcb_finish(BcBuilder *b, const BcWriteOpts *o, unsigned char **out, size_t *len);

/* Wraps a payload (docs/bytecode.md section 4) in the container: the
** 40-byte header (version major.minor, flags as given) and one zstd frame
** with the pinned parameters at `level` (0 = the default).  The one place
** the container is written: scc through bcb_finish, packs when they
** extract an entry.  On success *out (sc_free it) and *out_len; on failure
** returns false with *why the zstd error, or NULL when out of memory. */
bool bc_wrap(const void *payload, size_t len, uint16_t major, uint16_t minor, uint32_t flags,
             int level, unsigned char **out, size_t *out_len, const char **why);

/* Names everything besides the payload that decides a .scb's bytes: the
** bytecode version, the pinned level, the built-in dictionary, how
** literals are stored and the zstd library's version.  A cache of
** compiled output keys on it, so that a hit is byte-identical to
** compiling again. */
uint64_t bc_writer_id(void);

/* Why the builder failed, or NULL. */
const char *bcb_error(const BcBuilder *b);

#endif
