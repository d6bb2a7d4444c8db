/* SPDX-License-Identifier: MIT */
/* fe_kit.h - the kit every front end uses: Scenario-Format (lower.c),
** tui-use (dialect_tuiuse.c), ElizaOS and Yao (through agenttest.h:
** dialect_eliza.c, eliza_matrix.c, dialect_yao.c).
**
**   diagnostics   at a YAML node, 1-based line:col, in the file being
**                 read (plus a line offset: a Yao JSON Lines case is a
**                 document of its own on line N of the file)
**   suggestions   "did you mean 'x'?" as a note after the diagnostic, the
**                 closest of a NULL-terminated list of names by
**                 name_distance (common/levenshtein.h), so a misspelt key,
**                 event name, check type or enum value gets the same help
**                 in every dialect (docs/dialects.md, "Did you mean")
**
** A new front end keeps a FeDiag in its state and calls these; it writes
** no diagnostics helper of its own. */
#ifndef SC_FE_KIT_H
#define SC_FE_KIT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/diag.h"
#include "yaml_tree.h"

typedef struct FeDiag {
    Diags *d;
    const char *file;          /* the file name diagnostics show */
    uint32_t line_offset;      /* added to every node's line */
} FeDiag;

/* A diagnostic at n (line 0 when n is NULL); flag names a warning's -W. */
void fe_vreport(const FeDiag *f, DiagLevel lv, const char *flag, const YNode *n, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
void fe_err(const FeDiag *f, const YNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void fe_warn(const FeDiag *f, const char *flag, const YNode *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void fe_note(const FeDiag *f, const YNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* strcmp(a, b) == 0, the first bytes compared inline first: the lowering
** compares every key and event name with lists of names, and most differ
** in their first byte (strcmp calls were 3% of compiling a small
** scenario, perf). */
static inline bool fe_streq(const char *a, const char *b)
{
    return a[0] == b[0] && strcmp(a, b) == 0;
}

/* True when s is one of list (NULL-terminated). */
bool fe_in_list(const char *s, const char *const *list);

/* The name of list closest to word, or NULL when none is close: at most
** 1 edit for words under 4 bytes, 2 under 9, 3 beyond. */
const char *fe_closest(const char *word, const char *const *list);

/* Adds the note "did you mean 'x'?" at n when some name of list is close
** to word; returns whether it did. */
bool fe_suggest(const FeDiag *f, const YNode *n, const char *word, const char *const *list);

/* Warns (-Wunknown-key) about every key of map that is neither in known
** nor in also (NULL for none), and suggests the closest known one:
**   unknown key 'K' in WHAT; it is ignored                 (ignored_by NULL)
**   unknown key 'K' in WHAT; IGNORED_BY ignores it, and so does scc */
void fe_unknown_keys(const FeDiag *f, const YNode *map, const char *what, const char *const *known,
                     const char *const *also, const char *ignored_by);

#endif
