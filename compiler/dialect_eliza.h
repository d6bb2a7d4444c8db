/* SPDX-License-Identifier: MIT */
/* dialect_eliza.h - the ElizaOS front end: an ElizaOS `.scenario.yaml`
** (elizaos scenario run) -> bytecode with CASE, USER_INPUT and EVAL ops.
**
** What is accepted, and where scc differs from ElizaOS's loader (its zod
** schema and runner), is in docs/eliza.md. */
#ifndef SC_DIALECT_ELIZA_H
#define SC_DIALECT_ELIZA_H

#include <stdbool.h>

#include "common/diag.h"
#include "formats/bc_write.h"
#include "yaml_tree.h"

/* True when the document has the shape of an ElizaOS scenario: a mapping
** with `run` that is a list (tui-use's is a mapping), or with `run` and
** `judgment` or `environment`, and neither a Scenario-Format `timeline`
** nor tui-use `steps`. */
bool eliza_detect(const YDoc *doc);

/* Checks the scenario and emits it into b: per run step a CASE (type
** input, code or conversation, with its settings), the step's input as
** USER_INPUT, and one EVAL per evaluation (scope step, turn or final);
** the metadata config holds the dialect, description, plugins,
** environment, setup (mocks ordered as ElizaOS tries them, virtual_fs)
** and judgment.  source_name is the base name recorded in the metadata.
** Returns false when an error was recorded. */
bool eliza_lower(const YDoc *doc, const char *source_name, BcBuilder *b, Diags *diags);

/* One scenario of a matrix (eliza_matrix.h): its name in the pack, and
** what the metadata config records under `matrix`. */
typedef struct ElizaPick {
    const char *name;           /* "MATRIX@K" */
    const YNode *matrix_name;
    unsigned combination, run;  /* 1-based */
    const YNode *params;        /* the matrix's parameter list */
    const size_t *value;        /* the value each parameter takes (an index into its values) */
} ElizaPick;
bool eliza_lower_pick(const YDoc *doc, const char *source_name, const ElizaPick *pick, BcBuilder *b, Diags *diags);

#endif
