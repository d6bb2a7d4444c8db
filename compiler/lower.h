/* SPDX-License-Identifier: MIT */
/* lower.h - a resolved Scenario-Format tree -> bytecode.
**
** Checks the schema (every event of the spec, unknown keys warned,
** legacy shapes rejected with the modern form), resolves all timing to
** absolute milliseconds on the reference playback clock (docs/timing.md),
** and emits ops, values and metadata through the bytecode builder. */
#ifndef SC_LOWER_H
#define SC_LOWER_H

#include <stdbool.h>

#include "formats/bc_write.h"
#include "rules.h"
#include "yaml_tree.h"

typedef struct LowerOpts {
    const char *source_name;   /* base name recorded in the metadata */
    const char *base_dir;      /* the scenario's folder, for referenced files */
    const Symtab *syms;        /* recorded in the metadata */
    /* A variant (scc --variant NAME:...): the name becomes NAME@VARIANT
    ** and the tags gain "variant:VARIANT" (docs/rules.md, "Variants"). */
    const char *variant;
    /* The clock the timeline was written for when the file does not say
    ** (top-level `clock:`): false = the reference's (the default), true =
    ** the written spec's (docs/timing.md, "Two clocks"). */
    bool spec_clock;
} LowerOpts;

/* Emits the scenario into b.  Records every problem found in diags and
** returns false when any error was recorded. */
bool lower_scenario(const YDoc *doc, const LowerOpts *o, BcBuilder *b, Diags *diags);

/* The Scenario-Format's vocabulary, as the lowering knows it, for
** scenario-format(5) (format_man.h): the i-th top-level key or timeline
** event and its one line of help (for an event, also the lists it may
** stand in: "agentActions", or NULL); NULL past the last. */
const char *lower_top_key(size_t i, const char **help);
const char *lower_event(size_t i, const char **help, const char **also_in);

#endif
