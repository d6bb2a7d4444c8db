/* SPDX-License-Identifier: MIT */
/* eliza_matrix.h - ElizaOS scenario matrices (`elizaos scenario matrix`):
** a `*.matrix.yaml` names a base scenario and parameters, each a path into
** it with a list of values; every combination of values, run
** runs_per_combination times, is a scenario of its own.  scc compiles a
** matrix into a pack of those scenarios (docs/eliza.md, "Matrices").
**
** The combinations are ordered as odometer digits: the first parameter
** changes slowest, the last fastest; within a combination its runs are
** consecutive.  Scenario K (1-based) is named "MATRIX@K" ("MATRIX@C.R"
** when runs_per_combination > 1). */
#ifndef SC_ELIZA_MATRIX_H
#define SC_ELIZA_MATRIX_H

#include <stdbool.h>
#include <stddef.h>

#include "common/arena.h"
#include "common/diag.h"
#include "formats/bc_write.h"
#include "yaml_tree.h"

enum { ELIZA_MATRIX_MAX = 10000 };     /* scenarios a matrix may make */

/* True when the document is a matrix: a mapping with base_scenario and
** matrix, and no timeline. */
bool eliza_matrix_detect(const YDoc *doc);

typedef struct ElizaMatrix {
    const YDoc *doc;            /* the matrix */
    YDoc base;                  /* its base scenario, parsed (in the arena) */
    const char *base_path;      /* the base as read (the matrix's folder + base_scenario) */
    const char *base_rel;       /* base_scenario as written */
    const YNode *name;
    const YNode *params;        /* the matrix list */
    size_t runs, combinations, scenarios;
} ElizaMatrix;

/* Checks the matrix (its keys, name, runs_per_combination >= 1, at least
** one parameter, each with at least one value), reads and parses the base
** scenario (base_dir: the matrix's folder; shown_dir: that folder as
** diagnostics name it, "" for none) and checks that every parameter's
** path is in it.  True with m filled, else false with errors in d. */
bool eliza_matrix_load(const YDoc *doc, const char *base_dir, const char *shown_dir, Arena *arena, Diags *d,
                       ElizaMatrix *m);

/* Lowers scenario pick (1..m->scenarios): the base with the pick's values
** put in (an error there is reported at the base's node it replaces, with
** a note naming the combination), its metadata config holding
** `matrix: {name, scenario, combination, run, parameters}`; source_name is
** the matrix's name recorded as the source. */
bool eliza_matrix_lower(const ElizaMatrix *m, size_t pick, const char *source_name, Arena *arena, BcBuilder *b,
                        Diags *d);

#endif
