/* SPDX-License-Identifier: MIT */
/* version.c - the one --version text (version.h). */
#include "version.h"

#include "bc.h"
#include "pack.h"

/* "1.2 (reads 1.0 to 1.2)", or "1.0 (reads 1.0)". */
static void format(FILE *f, const char *what, int major, int minor)
{
    if (minor == 0)
        fprintf(f, "%s %d.0 (reads %d.0)", what, major, major);
    else
        fprintf(f, "%s %d.%d (reads %d.0 to %d.%d)", what, major, minor, major, major, minor);
}

int sc_version_write(FILE *f, const char *prog)
{
    /* GNU's first line, "PROGRAM (PACKAGE) VERSION": one package, two programs. */
    fprintf(f, "%s (scc) %s\n", prog, SCC_VERSION);
    /* A reader takes every minor up to its own (docs/bytecode.md, "Versioning"); the
    ** writer writes the lowest minor that describes a file, at most its own. */
    format(f, "bytecode", BC_VERSION_MAJOR, BC_VERSION_MINOR);
    format(f, ", pack", PACK_VERSION_MAJOR, PACK_VERSION_MINOR);
    fputc('\n', f);
    fprintf(f, "license %s\n", SCC_LICENSE);
    return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
