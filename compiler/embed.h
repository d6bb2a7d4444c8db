/* SPDX-License-Identifier: MIT */
/* embed.h - the files a scenario references, for packs and depfiles.
**
** Collected from the resolved YAML tree: terminalRef, repo.dir (every file
** below it), userEdits patches, image/audio content paths, and goldens next
** to the scenario (siblings named STEM.*, see docs/pack.md).  Every
** reference must stay inside the scenario's folder: absolute paths, '..'
** that leaves it and symbolic links that lead out are errors. */
#ifndef SC_EMBED_H
#define SC_EMBED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/diag.h"
#include "yaml_tree.h"

typedef struct EmbedFile {
    char *rel;              /* normalised, relative to the scenario's folder */
    char *full;             /* the path to read (folder + rel) */
    uint32_t mode;          /* PACK_FILE_EXEC when executable */
    unsigned char *data;    /* contents (when EmbedOpts.read) */
    size_t len;
    uint64_t hash;          /* XXH64 of the contents (when read) */
} EmbedFile;

typedef struct EmbedList {
    EmbedFile *v;
    size_t n, cap;
} EmbedList;

typedef struct EmbedOpts {
    size_t max_file;        /* per-file size limit in bytes */
    bool read;              /* read contents (packs); else only list (depfiles) */
    bool strict;            /* report problems as errors (packs) */
} EmbedOpts;

/* Adds scenario_path's references to out, sorted by rel, each once.
** Returns false when an error was recorded in d. */
bool embed_collect(const YDoc *doc, const char *scenario_path, const EmbedOpts *o, EmbedList *out,
                   Diags *d);
/* Adds one file that scenario_path references (ref, written at node at of
** doc: an ElizaOS matrix's base scenario), under the same rules. */
bool embed_reference(const YDoc *doc, const YNode *at, const char *ref, const char *scenario_path, const EmbedOpts *o,
                     EmbedList *out, Diags *d);

void embed_list_fini(EmbedList *l);

/* A hash of the names of the goldens next to scenario_path (for cache keys:
** a golden added or removed changes what a pack embeds). */
uint64_t embed_siblings_hash(const char *scenario_path);

#endif
