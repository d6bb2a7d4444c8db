/* SPDX-License-Identifier: MIT */
/* pack.h - packs (.scp): many compiled scenarios and the files they
** reference, in one hermetic file.
**
** The container is specified in docs/pack.md.  pack_load() checks the
** container, every hash, the index, and loads and verifies every scenario
** with bc_load_payload() (the bytecode verifier): a Pack that exists is
** safe to select from and run.  With PackLoadOpts.lazy each entry is
** verified the same way at its first use instead (pack_entry_load).  The writer is deterministic: the same
** entries in the same order give byte-identical packs.  Nothing here
** links libyaml. */
#ifndef SC_PACK_H
#define SC_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bc.h"

#define PACK_MAGIC "\x89SCP\r\n\x1a\n"
enum {
    PACK_MAGIC_LEN = 8,
    PACK_HEADER_SIZE = 48,
    PACK_VERSION_MAJOR = 1,
    PACK_VERSION_MINOR = 0,
    PACK_FLAG_DICT = 1u << 0,          /* a zstd dictionary follows the frame table */
    PACK_FLAGS_KNOWN = PACK_FLAG_DICT,
    PACK_FRAME_DICT = 1u << 0,         /* this frame was compressed with the dictionary */
    PACK_FRAME_ENTRY_SIZE = 20,        /* u64 compressed, u64 content, u32 flags */
    PACK_FILE_EXEC = 1u << 0,          /* embedded file mode: executable */
    PACK_MAX_PATH = 4096,              /* bytes in an embedded path */
};
#define PACK_MAX_CONTENT ((uint64_t)1 << 30)   /* decompressed content limit: 1 GiB */

#define PACK_ERRORS(X)                                                  \
    X(OK, 0, "ok")                                                      \
    X(IO, 1, "cannot read file")                                        \
    X(TRUNCATED, 2, "file is truncated")                                \
    X(MAGIC, 3, "not a pack (bad magic)")                               \
    X(VERSION, 4, "unsupported pack version")                           \
    X(FLAGS, 5, "reserved flag bits set")                               \
    X(SIZE, 6, "declared size out of bounds")                           \
    X(CHECKSUM, 7, "checksum mismatch")                                 \
    X(FRAMES, 8, "frame table is invalid")                              \
    X(COMPRESSION, 9, "compressed data is invalid")                     \
    X(INDEX, 10, "index is invalid")                                    \
    X(BLOB, 11, "blob hash mismatch")                                   \
    X(ENTRY, 12, "a scenario is invalid")                               \
    X(NOMEM, 13, "out of memory")

typedef enum PackErrCode {
#define X(name, num, text) PACK_ERR_##name = num,
    PACK_ERRORS(X)
#undef X
} PackErrCode;

typedef struct PackError {
    PackErrCode code;
    BcErrCode bc_code;     /* ENTRY: the scenario's bc_load error */
    int32_t entry;         /* index of the failing entry, or -1 */
    char msg[320];         /* "entry 3 'login': string index 812 out of range (op 17) [STRINGS]" */
} PackError;

const char *pack_err_name(PackErrCode c);   /* "CHECKSUM" */
const char *pack_err_text(PackErrCode c);   /* "checksum mismatch" */

/* ---- the loaded pack ---- */
typedef struct PackFile {
    const char *path;       /* relative to the scenario's folder, '/'-separated, safe */
    uint32_t mode;          /* PACK_FILE_* */
    const unsigned char *data;
    size_t len;
    uint64_t hash;          /* XXH64 of data */
} PackFile;

typedef struct PackEntry {
    const char *name;       /* unique in the pack; == the program's meta name */
    const char *source;     /* source path relative to the pack inputs */
    const char *prompt;     /* effective initial prompt, or NULL */
    uint32_t prompt_len;
    const char *const *tags;
    uint32_t n_tags;
    uint64_t source_hash;   /* XXH64 of the scenario's YAML */
    uint64_t hash;          /* XXH64 of the compiled payload (content hash) */
    const unsigned char *code;  /* the compiled payload (docs/bytecode.md section 4) */
    size_t code_size;           /* its bytes */
    uint16_t scb_major, scb_minor;
    uint32_t scb_flags;         /* the .scb header fields it was compiled with */
    const BcProgram *prog;  /* loaded and verified */
    const PackFile *files;  /* sorted by path */
    uint32_t n_files;
} PackEntry;

typedef struct Pack {
    uint16_t version_major, version_minor;
    uint32_t flags;
    uint32_t n_frames, dict_size;
    uint32_t n_blobs;
    size_t file_size, content_size, index_size;
    uint64_t checksum;
    uint32_t n_entries;
    const PackEntry *entries;   /* in index order (sorted by source path) */
    void *mem_;                 /* private */
} Pack;

typedef struct PackLoadOpts {
    uint64_t max_content;   /* 0 = PACK_MAX_CONTENT */
    /* Verify each entry at its first use (pack_entry_load) instead of all
    ** of them in pack_load.  pack_load still checks the container, the
    ** body's checksum, every frame and the whole index; entries' prog is
    ** NULL until pack_entry_load has verified them (docs/pack.md §5). */
    bool lazy;
} PackLoadOpts;

/* True when data starts with the pack magic. */
bool pack_is_pack(const void *data, size_t size);

/* Checks the container, the frames, the index and every blob's hash, and
** verifies every scenario with bc_load_payload().  On success *out is a
** pack the caller frees with pack_free(); it does not point into data.  On failure
** returns the error and fills err (if non-NULL); never crashes, hangs, or
** allocates beyond a bound derived from the checked sizes. */
PackErrCode pack_load(const void *data, size_t size, const PackLoadOpts *opts, Pack **out,
                      PackError *err);
void pack_free(Pack *p);

/* Entry i verified and ready to play: with a lazy pack, the first call
** checks the XXH64 the index gives for its payload and each of its files
** (BLOB), runs the payload through the complete bytecode verifier and
** compares its metadata with the index (ENTRY, bc_code set), exactly as an
** eager pack_load does, and keeps the program in the entry (entries[i].prog);
** later calls return it.  A failed entry stays unverified (its prog NULL)
** and fails the same way again.  An entry already verified (every entry of
** an eager pack) returns at once.  Use an entry's prog, code or files only
** after this returned PACK_ERR_OK for it.  Not safe to call on one pack
** from two threads at once. */
PackErrCode pack_entry_load(const Pack *p, uint32_t i, const BcProgram **out, PackError *err);

/* Entry e as a standalone .scb, compressed with the parameters scc uses, so
** it is byte-identical to what scc wrote (same zstd version).  Caller
** sc_free()s *out. */
bool pack_entry_scb(const PackEntry *e, unsigned char **out, size_t *len);

/* Index of the entry named name, or -1.  (Selection and prompt matching
** over packs and .scb files alike: formats/suite.h.) */
int32_t pack_find(const Pack *p, const char *name);

/* ---- writing ---- */
typedef struct PackWriter PackWriter;

typedef struct PackFileIn {
    const char *path;       /* relative, '/'-separated, no '.' or '..' components */
    uint32_t mode;
    const void *data;
    size_t len;
} PackFileIn;

typedef struct PackEntryIn {
    const char *source;     /* path relative to the pack inputs */
    uint64_t source_hash;
    const void *scb;        /* a complete .scb file (verified by the caller) */
    size_t scb_len;
    const PackFileIn *files;
    size_t n_files;
} PackEntryIn;

typedef struct PackWriteOpts {
    int zstd_level;         /* 0 = the pinned default (19) */
    bool no_dict;           /* never try the dictionary layout */
    bool force_dict;        /* the dictionary layout whenever it can be made
                            ** (8 blobs, 8 KiB), even when larger: tests */
} PackWriteOpts;

PackWriter *pack_writer_new(void);
void pack_writer_free(PackWriter *w);
/* Adds a scenario; name, prompt and tags come from its metadata.  Copies
** everything it needs.  Returns false (see pack_writer_error) on an invalid
** .scb, a duplicate name, a bad path, or out of memory. */
bool pack_writer_add(PackWriter *w, const PackEntryIn *e);
/* Serialises the pack into a new buffer (caller sc_free()s *out). */
bool pack_writer_finish(PackWriter *w, const PackWriteOpts *o, unsigned char **out, size_t *len);
const char *pack_writer_error(const PackWriter *w);

/* True when p is a safe embedded path (relative, no empty, '.' or '..'
** components, no backslash, NUL or control byte, valid UTF-8, <=
** PACK_MAX_PATH bytes).  The loader checks every source and file path with
** it; scvm writes them only below the target folder, never through a link
** (file_write_beneath). */
bool pack_path_ok(const char *p, size_t n);

#endif
