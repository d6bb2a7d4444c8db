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

/* True when src has the shape of a Yao test file of several lines: its
** first line that is not blank or a `//` comment holds one JSON object
** with an "id" or an "input" key (and is not a tui-use driver message,
** "protocol_version"), and more lines follow.  (A file of one line is
** parsed as a document; compile.c gives it to yao_lower() when its
** top-level keys are a case's.) */
bool yao_detect(const char *src, size_t len);

/* Parses every case line by line (as Yao does: one JSON object per line,
** blank and `//` lines skipped, at most 1 MB a line), checks it and emits
** per case a CASE (type standard or dynamic, with its settings),
** USER_INPUT for its input (and for each turn of a static multi-turn
** case), and one EVAL per assertion or checkpoint.  file is the name
** diagnostics show, source_name the base name recorded in the metadata.
** Returns false when an error was recorded. */
bool yao_lower(const char *src, size_t len, const char *file, const char *source_name, Arena *arena, BcBuilder *b,
               Diags *diags);

#endif
