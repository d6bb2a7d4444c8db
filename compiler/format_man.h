/* SPDX-License-Identifier: MIT */
/* format_man.h - scenario-format(5), the manual page of the scenario files
** scc reads, written from the compiler's own tables: the top-level keys
** and timeline events (lower.c), the tool shorthands (LW_TOOLS), the
** dialects (compile.c's front ends) and the warnings (warnings.h).  A key
** or event added to a table is in the page with nothing else to write;
** `scc --generate=scenario-man` prints it, the build installs it. */
#ifndef SC_COMPILER_FORMAT_MAN_H
#define SC_COMPILER_FORMAT_MAN_H

#include <stdio.h>

/* Writes the page (roff, man macros) to f; version goes in its footer.
** Returns 0, or -1 when f fails. */
int scc_write_format_man(FILE *f, const char *version);

#endif
