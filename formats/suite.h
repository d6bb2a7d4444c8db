/* SPDX-License-Identifier: MIT */
/* suite.h - the one loader: compiled scenarios from .scb files and packs,
** as one list of entries, with selection and prompt matching.
**
** A .scb is a suite of one; a pack is a suite of its entries; several
** inputs (scvm serve takes many) are one suite of all their entries, in
** input order.  Everything is read, checked and verified when it is
** added (bc_load, pack_load): a Suite that exists is safe to select from
** and run.  Every caller (scvm's commands, scvm serve, the C API in
** lib/) opens files here, so a file is accepted or refused, and with
** which status, in one place.  Nothing here prints. */
#ifndef SC_SUITE_H
#define SC_SUITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/bc.h"
#include "formats/pack.h"

/* Largest file read: a pack's content limit plus zstd's worst-case
** expansion and room for the container.  Bigger files are refused (SIZE)
** without being read in full. */
#define SUITE_READ_MAX ((size_t)(PACK_MAX_CONTENT + PACK_MAX_CONTENT / 64 + 65536))

/* Prompts are compared on their first SUITE_PROMPT_CHARS code points, so
** matching a long conversation against a big pack stays cheap. */
enum { SUITE_PROMPT_CHARS = 1024 };

typedef struct Suite Suite;

/* Why an operation failed.  status is an ScStatus (common/status.h):
** SC_IO the file cannot be read, SC_REJECTED it is not a valid .scb or
** pack (or is larger than SUITE_READ_MAX), SC_RUNTIME out of memory,
** SC_USAGE a selection names a scenario that does not exist or two
** inputs hold the same name.  code is stable ("IO", "SIZE", "CHECKSUM",
** "NAME", ...: bc_err_name or pack_err_name, or one of ours); entry the
** failing pack entry or -1; msg says why, without the file name. */
typedef struct SuiteErr {
    int status;
    char code[24];
    int32_t entry;
    char msg[1024];
} SuiteErr;

Suite *suite_new(void);
void suite_free(Suite *s);

/* Adds every scenario of the file at path (a .scb or a pack).  Returns 0
** or the status, with err (if non-NULL) filled; on failure the suite is
** unchanged. */
int suite_add_file(Suite *s, const char *path, SuiteErr *err);
/* The same for bytes in memory; label names them in suite_entry_input. */
int suite_add_memory(Suite *s, const void *data, size_t len, const char *label, SuiteErr *err);

uint32_t suite_count(const Suite *s);
/* Entry i: for a .scb, name, source, prompt and tags come from the
** program's metadata, hash is the .scb checksum, code_size its content
** size, and there are no files. */
const PackEntry *suite_entry(const Suite *s, uint32_t i);
/* The path (or label) of the input entry i came from. */
const char *suite_entry_input(const Suite *s, uint32_t i);
/* The Pack when the suite is exactly one pack, else NULL. */
const Pack *suite_pack(const Suite *s);

/* Index of the entry named name (or name[0..len)), or -1. */
int32_t suite_find(const Suite *s, const char *name);
int32_t suite_find_n(const Suite *s, const char *name, size_t len);
/* The entry name nearest to name (at most 3 edits away), or NULL: for
** "did you mean" notes. */
const char *suite_nearest_name(const Suite *s, const char *name);

/* The reference's best_match (notes/reference-semantics.md section 7)
** over the entries listed in among[0..n) (all entries when among is
** NULL): the smallest Levenshtein distance (code points, case-sensitive)
** between an entry's prompt and text[0..len), both cut at
** SUITE_PROMPT_CHARS code points; ties keep the earliest; entries
** without a prompt are skipped; when none has one, the first listed
** entry, at distance 0.  Returns -1 when there is no entry. */
int32_t suite_best_prompt(const Suite *s, const uint32_t *among, size_t n, const char *text, size_t len,
                          size_t *distance);

typedef struct SuiteQuery {
    /* --scenario: every name must select something: the entry of that
    ** name, else the variants of the scenario of that name (NAME@V) */
    const char *const *names;
    size_t n_names;
    const char *const *tags;    /* --tag: an entry with any of them */
    size_t n_tags;
    const char *prompt;         /* --prompt: the best match among the rest, or NULL */
    unsigned shard_i, shard_n;  /* --shard I/N (1-based); shard_n 0 = all */
    /* --timings: each entry's expected duration (any unit, >= 0), indexed
    ** like the suite; NULL deals the selection out round robin.  With it,
    ** the shards are balanced: longest first, each to the shard with the
    ** least so far (ties: the longer first by index, the lower shard), so
    ** every machine of a CI matrix computes the same split. */
    const double *weights;
    const bool *allowed;        /* when non-NULL, only entries i with allowed[i] (scvm's -D variants) */
} SuiteQuery;

/* The selected entry indices in index order: the named entries (all
** entries when no name is given), those with any of the tags, then the
** best prompt match among them, then position k of the selection goes to
** shard k mod N + 1 (or, with weights, to the balanced shard).  *out is sc_free()d by the caller.  Returns 0, or
** SC_USAGE (code "NAME", msg "no scenario named 'X' (scenarios: ...; tags:
** ...)"; code "EMPTY" when names and tags together select nothing, before
** sharding: an empty shard is not an error) or SC_RUNTIME. */
int suite_select(const Suite *s, const SuiteQuery *q, uint32_t **out, size_t *n, SuiteErr *err);

#endif
