/* SPDX-License-Identifier: MIT */
/* schema.h - JSON Schemas (draft-07) of the files scc reads, made from the
** front ends' own tables (fe_tables.h, lower.h, formats/agentcheck.def),
** for editors (docs/editors.md): `scc --print-schema DIALECT` prints one,
** the build installs them all. */
#ifndef SC_COMPILER_SCHEMA_H
#define SC_COMPILER_SCHEMA_H

#include <stdio.h>

/* The i-th schema's name (scenario, tui-use, tui-use-policy, eliza, yao),
** NULL past the last. */
const char *scc_schema_name(size_t i);

/* Writes the schema called name to f (pretty JSON, a final newline).
** Returns 0, 1 when name is no schema's, -1 when out of memory or f fails. */
int scc_write_schema(FILE *f, const char *name);

#endif
