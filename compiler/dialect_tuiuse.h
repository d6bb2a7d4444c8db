/* SPDX-License-Identifier: MIT */
/* dialect_tuiuse.h - the tui-use front end: a tui-use scenario (JSON, or
** YAML as ptybox also reads it) -> the same bytecode as Scenario-Format,
** through the builder (bc_write.h), for the PTY target.
**
** The input is parsed by yaml_tree (JSON is YAML), so every node has a
** line:col and duplicate keys are rejected there.  What is accepted, and
** every decision where the data model, the JSON schema and ptybox (the
** tool that implements it) disagree, is in docs/tui-use.md. */
#ifndef SC_DIALECT_TUIUSE_H
#define SC_DIALECT_TUIUSE_H

#include <stdbool.h>

#include "common/arena.h"
#include "common/diag.h"
#include "formats/bc_write.h"
#include "yaml_tree.h"

typedef struct TuiUseOpts {
    const char *source_name;   /* base name recorded in the metadata */
    const char *base_dir;      /* the scenario's folder: relative policy paths */
    Arena *arena;              /* the compilation's arena (policy files, names) */
    /* scc --policy-outside: read run.policy {path} wherever it points;
    ** false: only beneath base_dir (no '..', absolute path or symbolic link
    ** out of it; docs/tui-use.md). */
    bool policy_outside;
} TuiUseOpts;

/* True when the document has the tui-use shape: a top-level mapping with
** `run` and `steps` (what the schema requires besides `scenario_version`
** and `metadata`) and no Scenario-Format `timeline`. */
bool tuiuse_detect(const YDoc *doc);

/* Checks the scenario and emits it into b: one STEP op per step, then its
** action (KEY, TYPE_TEXT, RESIZE, WAIT, TERMINATE) and one CHECK per
** assertion, all at time 0 (the PTY target runs them in order, each wait
** bounded by the step's timeout and retries); the metadata config holds
** `run`, the resolved `policy` and `terminal`.  Records every problem in
** diags; returns false when an error was recorded. */
bool tuiuse_lower(const YDoc *doc, const TuiUseOpts *o, BcBuilder *b, Diags *diags);

#endif
