/* SPDX-License-Identifier: MIT */
/* version.h - the one --version text of scc and scvm.
**
** The version is the CMake project's (SCC_VERSION, top CMakeLists.txt),
** the only place it is written; both programs print it alike, with the
** bytecode (.scb) and pack (.scp) format versions they write and the
** range they read, so a user comparing two machines sees at a glance
** whether their files travel between them. */
#ifndef SC_FORMATS_VERSION_H
#define SC_FORMATS_VERSION_H

#include <stdio.h>

/* Writes PROG's version text to f ("scc (scc) 0.1.0" and the format and
** license lines; docs/scc.md, "--version").  Returns 0, or -1 when f fails. */
int sc_version_write(FILE *f, const char *prog);

#endif
