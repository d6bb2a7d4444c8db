/* SPDX-License-Identifier: MIT */
/* bc.h - the compiled scenario (.scb): opcodes, the loaded program, values.
**
** The container is specified in docs/bytecode.md.  bc_load() checks the
** container AND verifies the code: a BcProgram that exists is safe to run.
** Nothing here links libyaml. */
#ifndef SC_BC_H
#define SC_BC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

enum {
    OPF_AGENT = 1 << 0,    /* track: agent activity */
    OPF_USER = 1 << 1,     /* track: user action */
    OPF_HARNESS = 1 << 2,  /* track: harness / test control */
    OPF_ACP = 1 << 3,      /* track: ACP protocol structure */
    OPF_SILENT = 1 << 4,   /* produces no playback event in simulation */
    OPF_CHECK = 1 << 5,    /* an assertion a target may evaluate */
    OPF_END = 1 << 6,      /* terminates the program */
    OPF_TERM = 1 << 7,     /* terminal-only: emitted by the tui-use front end
                           ** for the PTY target, never by Scenario-Format
                           ** (so its tests, not the stdlib's, cover it) */
    OPF_AGENTTEST = 1 << 8,/* agent tests: emitted by the ElizaOS and Yao
                           ** front ends, never by Scenario-Format (so
                           ** their tests, not the stdlib's, cover it) */
};

typedef enum BcOp {
#define OP(name, ops, flags, event, fields, syn) OP_##name,
#include "ops.def"
#undef OP
    OP__COUNT
} BcOp;

enum { BC_MAX_OPERANDS = 5 };

typedef struct BcOpInfo {
    const char *name;       /* "TOOL_START" */
    const char *operands;   /* "SKK" */
    unsigned flags;
    const char *event;      /* "tool_start" */
    const char *fields;     /* "tool_name args -" */
    const char *synopsis;
    uint8_t n_operands;
    const char *field[BC_MAX_OPERANDS];  /* split `fields`; NULL for "-" */
    uint8_t text_fields;    /* bit k: operand k is a string (S) and a field */
} BcOpInfo;

/* Indexed by BcOp; filled from ops.def. */
extern const BcOpInfo bc_op_info[OP__COUNT];
const char *bc_track_name(unsigned flags);   /* "agent", "user", "harness", "acp", "-" */
const char *bc_flags_name(uint32_t flags);   /* header flags: "lines", "dict", "lines, dict", "-" */

/* ---- container constants (docs/bytecode.md) ---- */
#define BC_MAGIC "\x89SCB\r\n\x1a\n"
enum {
    BC_MAGIC_LEN = 8,
    BC_HEADER_SIZE = 40,
    BC_VERSION_MAJOR = 1,
    BC_VERSION_MINOR = 2,
    BC_FIRST_OP_1_2 = OP_CASE,        /* ops from here on need minor 2 */
    BC_FLAG_LINES = 1u << 0,          /* a line table is present */
    BC_FLAG_DICT = 1u << 1,           /* (1.1) the frame uses the built-in dictionary */
    BC_FLAGS_KNOWN = BC_FLAG_LINES | BC_FLAG_DICT,   /* the others are reserved, must be 0 */
    BC_MAX_DEPTH = 64,                /* deepest nesting of a value */
};
#define BC_MAX_CONTENT ((uint64_t)256 << 20)  /* decompressed payload limit */

enum BcSection {
    BC_SEC_STRINGS = 1,
    BC_SEC_VALUES = 2,
    BC_SEC_CODE = 3,
    BC_SEC_LINES = 4,
    BC_SEC_META = 5,
};

/* Value encoding tags (docs/bytecode.md, "Values"). */
enum BcValTag {
    BC_V_NULL = 0, BC_V_FALSE = 1, BC_V_TRUE = 2, BC_V_INT = 3,
    BC_V_FLOAT = 4, BC_V_STR = 5, BC_V_ARRAY = 6, BC_V_MAP = 7,
};

/* ---- stable load/verify error codes ---- */
#define BC_ERRORS(X)                                                    \
    X(OK, 0, "ok")                                                      \
    X(IO, 1, "cannot read file")                                        \
    X(TRUNCATED, 2, "file is truncated")                                \
    X(MAGIC, 3, "not a compiled scenario (bad magic)")                  \
    X(VERSION, 4, "unsupported bytecode version")                       \
    X(FLAGS, 5, "reserved flag bits set")                               \
    X(SIZE, 6, "declared size out of bounds")                           \
    X(CHECKSUM, 7, "checksum mismatch")                                 \
    X(COMPRESSION, 8, "compressed payload is invalid")                  \
    X(SECTION, 9, "section table is invalid")                           \
    X(STRINGS, 10, "string pool is invalid")                            \
    X(VALUES, 11, "value pool is invalid")                              \
    X(CODE, 12, "code is invalid")                                      \
    X(LINES, 13, "line table is invalid")                               \
    X(META, 14, "metadata is invalid")                                  \
    X(NOMEM, 15, "out of memory")

typedef enum BcErrCode {
#define X(name, num, text) BC_ERR_##name = num,
    BC_ERRORS(X)
#undef X
} BcErrCode;

typedef struct BcError {
    BcErrCode code;
    char msg[256];         /* "string index 812 out of range (op 17)" */
} BcError;

const char *bc_err_name(BcErrCode c);   /* "CHECKSUM" */

/* Names that become paths (docs/security.md).  bc_component_ok: s[0..n) is
** one file-name component: 1-255 bytes of valid UTF-8 with no '/', '\\',
** NUL or control byte, not "." or "..", not starting with '-' (a variant's
** name: "name@VARIANT.scb").  bc_text_ok: a display name or tag (a
** scenario's name, which is free text in some dialects and becomes a path
** only through a sanitiser): valid UTF-8 without NUL or control bytes.
** The verifier checks both, so a program that loads has safe ones. */
bool bc_component_ok(const char *s, size_t n);
bool bc_text_ok(const char *s, size_t n);

/* ---- the loaded, verified program ---- */
typedef struct BcStr {
    const char *s;         /* NUL-terminated, valid UTF-8 */
    uint32_t len;
} BcStr;

typedef struct BcInsn {
    uint64_t t;            /* absolute time, ms, non-decreasing */
    uint32_t line, col;    /* source position; 0 when stripped/synthetic */
    uint8_t op;            /* BcOp */
    uint8_t n;             /* operand count (== bc_op_info[op].n_operands) */
    uint32_t a[BC_MAX_OPERANDS];  /* S: string index, K: value index, U: number */
} BcInsn;

typedef struct BcMeta {
    uint32_t name;          /* S: scenario name */
    uint32_t source;        /* S: source file base name */
    uint32_t prompt;        /* K: effective initial prompt (string or null) */
    uint32_t tags;          /* K: array of strings */
    uint32_t config;        /* K: map: the resolved top-level sections */
    uint32_t defines;       /* K: map: the symbols the compilation saw */
    uint32_t term_width;    /* 0 = not specified */
    uint32_t term_height;
} BcMeta;

typedef struct BcProgram {
    uint16_t version_major, version_minor;
    uint32_t flags;
    uint32_t n_str;
    const BcStr *str;
    uint32_t n_val;
    const unsigned char *const *val;  /* start of each encoded value */
    const unsigned char *val_end;     /* end of the value section */
    uint32_t n_insn;
    const BcInsn *insn;               /* last one is OP_END */
    BcMeta meta;
    size_t file_size, content_size;   /* file_size: 0 from bc_load_payload */
    uint64_t checksum;                /* the header's; 0 from bc_load_payload */
    void *mem_;                       /* private: the block to free, or NULL */
    struct Arena *arena_;             /* private: BcLoadOpts.arena */
    size_t arena_n_;                  /* private: the bytes taken from it */
} BcProgram;

typedef struct BcLoadOpts {
    uint64_t max_content;   /* 0 = BC_MAX_CONTENT; a larger value counts as it */
    /* When set, the program's one block comes from this arena and lives
    ** until the arena is freed; bc_free gives it back only if it is still
    ** the arena's last allocation.  A pack keeps its programs in one, not
    ** one heap block each (pack_read.c). */
    struct Arena *arena;
} BcLoadOpts;

/* Checks the container, decompresses, verifies every section and op.
** On success *out is a program the caller frees with bc_free().  On
** failure returns the error code and fills err (if non-NULL); never
** crashes, hangs, or allocates more than a bound derived from the
** declared, checked sizes. */
BcErrCode bc_load(const void *data, size_t size, const BcLoadOpts *opts,
                  BcProgram **out, BcError *err);
BcErrCode bc_load_file(const char *path, const BcLoadOpts *opts,
                       BcProgram **out, BcError *err);
void bc_free(BcProgram *p);

/* A reusable load context, for callers that load many programs (a runner
** playing a directory, a benchmark): it keeps a zstd decompression
** context, a file buffer and a payload buffer between calls.  (bc_load and
** bc_load_file share one spare zstd context between them, since creating
** one is dear next to a small scenario: it runs CPUID, which traps under a
** hypervisor; a BcLoadCtx also saves the buffers, and is one per thread
** where the spare is taken in turn.)  Loading through a context
** checks exactly what bc_load() checks and gives the same results; the
** programs it returns are independent of it (free them with bc_free(),
** before or after the context).  One context per thread. */
/* A payload without its container (a pack entry: docs/pack.md): the
** version and flags are checked as a header's would be, then the payload
** is verified (its strings and values copied into the program) exactly as
** bc_load verifies a decompressed one.
** The program's file_size and checksum are 0. */
BcErrCode bc_load_payload(const void *payload, size_t n, uint16_t major, uint16_t minor,
                          uint32_t flags, const BcLoadOpts *opts, BcProgram **out, BcError *err);

/* The built-in zstd dictionary of flag BC_FLAG_DICT (formats/scb-dict-1.zdict,
** docs/bytecode.md section 3): 8192 bytes, frozen. */
const void *bc_dict_bytes(size_t *len);

/* The container alone, the inverse of bc_wrap (bc_write.h): checks the
** header, checksum and frame as bc_load does, then decompresses the
** payload WITHOUT verifying it.  *payload is sc_malloc'd (sc_free it). */
BcErrCode bc_unwrap(const void *data, size_t size, unsigned char **payload, size_t *len,
                    BcError *err);

typedef struct BcLoadCtx BcLoadCtx;
BcLoadCtx *bc_load_ctx_new(void);          /* NULL when out of memory */
void bc_load_ctx_free(BcLoadCtx *c);       /* NULL is fine */
/* bc_load() / bc_load_file() through c; c NULL = as bc_load() / bc_load_file(). */
BcErrCode bc_load_with(BcLoadCtx *c, const void *data, size_t size, const BcLoadOpts *opts,
                       BcProgram **out, BcError *err);
BcErrCode bc_load_file_with(BcLoadCtx *c, const char *path, const BcLoadOpts *opts,
                            BcProgram **out, BcError *err);

/* ---- reading values (only valid on a verified program) ---- */
typedef struct BcVal {
    uint8_t tag;           /* BcValTag */
    uint32_t n;            /* STR: string index; ARRAY/MAP: element count */
    int64_t i;             /* INT */
    double f;              /* FLOAT */
    const unsigned char *p;/* ARRAY/MAP: first element */
} BcVal;

/* Decodes the value at p, and returns the byte after it (skipping children). */
const unsigned char *bc_val_decode(const BcProgram *prog, const unsigned char *p, BcVal *v);
static inline BcVal bc_val(const BcProgram *prog, uint32_t idx)
{
    BcVal v;
    bc_val_decode(prog, prog->val[idx], &v);
    return v;
}
/* Its tag alone (BC_V_*), without walking an array or a map to its end. */
static inline unsigned bc_val_tag(const BcProgram *prog, uint32_t idx) { return *prog->val[idx]; }
/* Map lookup by key; returns false when absent (or not a map). */
bool bc_val_get(const BcProgram *prog, const BcVal *map, const char *key, BcVal *out);
/* Appends the value as compact JSON (map keys in stored order). */
void bc_val_json(const BcProgram *prog, uint32_t idx, Buf *out);
void bc_val_json_at(const BcProgram *prog, const BcVal *v, Buf *out);

/* ---- listing (scc -l, scvm dis) ---- */
typedef struct BcListOpts {
    bool lines;             /* show source line:col */
    bool header;            /* show metadata first */
    const char *source;     /* file name to show, or NULL */
} BcListOpts;
void bc_list(const BcProgram *p, const BcListOpts *o, Buf *out);
/* One op's operands as the listing prints them, each after a space. */
void bc_list_operands(const BcProgram *p, const BcInsn *in, Buf *out);
/* The schedule as one self-contained HTML page (scc -l --html; bc_html.c):
** a lane per track on a time axis in ms, each op's payload as its hover
** text, and the listing as a table.  Deterministic. */
void bc_list_html(const BcProgram *p, const BcListOpts *o, Buf *out);

#endif
