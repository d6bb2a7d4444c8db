/* SPDX-License-Identifier: MIT */
/* dialect_yao.h - the Yao front end: a Yao agent-test JSON Lines file
** (`yao agent test -i FILE`, `yao agent eval`) -> bytecode with CASE,
** USER_INPUT and EVAL ops.
**
** What is accepted, and where scc differs from Yao's loader, is in
** docs/yao.md. */
#ifndef SC_DIALECT_YAO_H
#define SC_DIALECT_YAO_H

#include <stdbool.h>
#include <stddef.h>

#include "common/arena.h"
#include "common/diag.h"
#include "formats/bc_write.h"
#include "yaml_tree.h"

/* True when src is a Yao test file by its content: its first JSON object
** (on one line or written over several, after blank and `//` lines) has
** at its top level an "id" and a key only a case has ("input", "turns",
** "simulator", "checkpoints", "assert", "assertions", "expected"), and
** none of another dialect's ("timeline", "steps", "run", ...). */
bool yao_detect(const char *src, size_t len);

/* The same test on a parsed tree (a case written as a YAML document). */
bool yao_detect_tree(const YDoc *doc);

/* Parses every case of the stream of JSON objects (one a line as Yao's
** loader reads them, or pretty-printed over several lines as the
** specification writes them: -Wyao-ignored says once that Yao does not
** load those; blank and `//` lines skipped, at most 1 MB a case), checks
** it and emits per case a CASE (type standard or dynamic, with its
** settings), USER_INPUT for its input (and for each turn of a static
** multi-turn case), and one EVAL per assertion or checkpoint.  Positions
** are the file's lines and columns.  file is the name diagnostics show,
** source_name the base name recorded in the metadata.
** Returns false when an error was recorded. */
/* A Yao suite's metadata: named name[0..nl), from source, n_cases cases
** (what yao_lower sets; scvm's inline -i case sets it too). */
void yao_set_meta(BcBuilder *b, const char *name, size_t nl, const char *source, int64_t n_cases);

bool yao_lower(const char *src, size_t len, const char *file, const char *source_name, Arena *arena, BcBuilder *b,
               Diags *diags);

#endif
