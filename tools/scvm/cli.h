/* SPDX-License-Identifier: MIT */
/* cli.h - what every scvm command's option parsing and output share:
** usage errors, option values, number parsing, writing results. */
#ifndef SC_VM_CLI_H
#define SC_VM_CLI_H

#include <stdbool.h>

#include "common/buf.h"

/* Prints "scvm: MESSAGE" and the usage text to stderr; returns SC_USAGE. */
int cli_usage(const char *usage_text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Matches argv[*i] against -s / --long, with the value in the same word
** ("-oFILE", "--output=FILE") or the next one.  Returns 1 and sets *val on a
** match, 0 when it is another option, -1 (after cli_usage) when the value
** is missing.  s may be NULL (no short form). */
int cli_opt_value(int argc, char **argv, int *i, const char *s, const char *l, const char **val,
                  const char *usage_text);

/* A decimal in 0..max, nothing else (no sign, no blanks).  */
bool cli_parse_uint(const char *s, unsigned max, unsigned *out);
bool cli_parse_u64(const char *s, unsigned long long max, unsigned long long *out);
/* A speed: a finite, non-negative decimal. */
bool cli_parse_speed(const char *s, double *out);

/* "<stdin>" for "-", else path. */
const char *cli_display_name(const char *path);

/* Writes b to stdout; 0, SC_IO, or SC_RUNTIME (b ran out of memory). */
int cli_put_stdout(const Buf *b);
/* Writes b to path ("-" or NULL = stdout), atomically for files. */
int cli_put_output(const char *path, const Buf *b);

#endif
