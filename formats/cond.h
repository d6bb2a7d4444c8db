/* SPDX-License-Identifier: MIT */
/* cond.h - the wait/check condition language: a {type, payload} value of
** a program, as WAIT and CHECK carry it (docs/pty.md, "Conditions").
**
** Parsed here, below every target, so the verifier checks each WAIT and
** CHECK operand once at load (an unknown type, a missing field, a pattern
** that does not compile) and the PTY target, which evaluates them, never
** refuses a program that verified. */
#ifndef SC_COND_H
#define SC_COND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/bc.h"
#include "formats/term/term_regex.h"

typedef enum CondKind {
    COND_CONTAINS, COND_NOT_CONTAINS, COND_MATCHES, COND_CURSOR_AT, COND_LINE_EQUALS, COND_LINE_CONTAINS,
    COND_LINE_STARTS, COND_LINE_ENDS, COND_LINE_MATCHES, COND_SCREEN_EMPTY, COND_CURSOR_VISIBLE,
    COND_CURSOR_HIDDEN, COND_EXITED, COND_EXIT_CODE, COND_STABLE, COND_ALT_SCREEN,
} CondKind;

typedef struct Cond {
    CondKind kind;
    const char *type;          /* the name as written (a program string) */
    const char *text;          /* text conditions: the program's string */
    size_t text_len;
    int64_t row, col, line, code, ms;
    bool on;                   /* payload.on (default true) */
    TermRegex *re;             /* pattern conditions: compiled */
} Cond;

/* The condition named name: false for an unknown one; else *needs the
** payload fields it requires and *optional those it may have, one letter
** each: t text, p pattern, r row and col, l line, c code (or exit_code),
** m ms (0-600000, default 200), o on.  The compiler checks sources with
** the same table (compiler/dialect_tuiuse.c). */
bool cond_lookup(const char *name, const char **needs, const char **optional);
/* The kind of the condition named name; false for an unknown one (for
** conditions that do not come from a program: scc/session.h's JSON). */
bool cond_kind(const char *name, CondKind *kind);
/* The i-th condition name, NULL past the last (for "known types" notes). */
const char *cond_name(size_t i);

/* Parses the condition value v of program p into *c (always cond_fini
** it).  Returns false with msg set ("unknown condition type 'x'",
** "line_matches: invalid pattern: ...", "cursor_at: payload needs 'row'
** and 'col'", ...). */
bool cond_parse(const BcProgram *p, const BcVal *v, Cond *c, char *msg, size_t n);
void cond_fini(Cond *c);

#endif
