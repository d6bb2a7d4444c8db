/* SPDX-License-Identifier: MIT */
/* diag.h - compiler diagnostics: recorded by library code, printed by main.
**
** GNU form, 1-based: "file:line:col: error: message [-Wname]".  A line of 0
** means "no position" (the whole file).  Library code never prints. */
#ifndef SC_DIAG_H
#define SC_DIAG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

typedef struct Diag {
    DiagLevel level;
    const char *file;      /* not owned: outlives the Diags */
    uint32_t line, col;    /* 1-based; 0 = unknown */
    const char *flag;      /* warning name without "-W", or NULL */
    const char *code;      /* its rule: the warning's flag, or the Diags' code when it was added */
    char *msg;             /* owned */
} Diag;

typedef struct Diags {
    Diag *v;
    size_t n, cap;
    size_t errors, warnings;
    size_t max_errors;        /* stop recording errors past this; 0 = 100 */
    bool werror;              /* warnings count as errors */
    const char **disabled;    /* warning names turned off (-Wno-NAME), not owned */
    size_t n_disabled;
    bool truncated;           /* max_errors was reached */
    bool oom;
    const char *code;         /* the rule of what is added now (a static string: the phase, "syntax",
                              ** "scenario", ...; SARIF's ruleId), or NULL */
    char **kept;              /* diags_keep's copies */
    size_t n_kept;
} Diags;

void diags_init(Diags *d);
void diags_fini(Diags *d);

/* Records a diagnostic.  A warning whose flag is disabled is dropped; under
** werror it is recorded as an error.  Notes attach to the diagnostic before. */
void diag_add(Diags *d, DiagLevel level, const char *file, uint32_t line,
              uint32_t col, const char *flag, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

#define diag_error(d, f, l, c, ...) diag_add((d), DIAG_ERROR, (f), (l), (c), NULL, __VA_ARGS__)
#define diag_note(d, f, l, c, ...) diag_add((d), DIAG_NOTE, (f), (l), (c), NULL, __VA_ARGS__)
#define diag_warn(d, flag, f, l, c, ...) diag_add((d), DIAG_WARNING, (f), (l), (c), (flag), __VA_ARGS__)

bool diags_failed(const Diags *d);

/* A copy of s that lives as long as d: a file name for diagnostics that
** its caller's storage does not outlive (NULL when out of memory). */
const char *diags_keep(Diags *d, const char *s);  /* any error (or promoted warning) */

typedef struct DiagPrintOpts {
    bool color;                /* ANSI colours */
    bool caret;                /* show the source line and a caret */
    const char *src;           /* source text of the file, for the caret */
    size_t src_len;
} DiagPrintOpts;

/* Prints every diagnostic, in the order recorded. */
void diags_print(const Diags *d, FILE *out, const DiagPrintOpts *o);
/* One JSON object per line per diagnostic. */
void diags_print_json(const Diags *d, FILE *out);

/* Formats a message into err (cap bytes; nothing when err is NULL or cap
** is 0) and returns code: the one "fill the caller's error buffer" for the
** libraries that report an error as a code and a text. */
int diag_errf(char *err, size_t cap, int code, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
