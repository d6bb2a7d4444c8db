/* SPDX-License-Identifier: MIT */
/* rules.h - symbols (-D, AH_SCENARIO_DEFINES) and `rules` resolution.
**
** The semantics, and where they depart from the reference implementation,
** are specified in docs/rules.md. */
#ifndef SC_RULES_H
#define SC_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "yaml_tree.h"

typedef enum SymType { SYM_BOOL, SYM_INT, SYM_STR } SymType;

typedef struct Sym {
    char *name;            /* owned */
    SymType type;
    bool b;
    int64_t i;
    char *s;               /* owned (SYM_STR) */
} Sym;

typedef struct Symtab {
    Sym *v;                /* sorted by name after symtab_finish() */
    size_t n, cap;
} Symtab;

void symtab_init(Symtab *t);
void symtab_fini(Symtab *t);

/* Defines one symbol from "NAME=VALUE" or "NAME" (boolean true).  Values
** are typed: true/false (any case) -> bool, a decimal integer -> int, else
** string (verbatim).  A later definition of the same name replaces the
** earlier one.  Returns false (and a message in *why) on an empty or
** malformed name. */
bool symtab_define(Symtab *t, const char *def, const char **why);
/* Parses "K=V,FLAG,N=3" (the AH_SCENARIO_DEFINES form).  Blank items are
** skipped. */
bool symtab_define_list(Symtab *t, const char *list, const char **why);
/* Adds every symbol of src that dst does not define (dst wins per key). */
bool symtab_merge_missing(Symtab *dst, const Symtab *src);
const Sym *symtab_get(const Symtab *t, const char *name, size_t len);

/* Resolves every `rules` block in the tree in place (docs/rules.md).
** Records positioned errors; returns false when any was recorded. */
bool rules_resolve(YDoc *doc, const Symtab *syms, Arena *arena, Diags *diags);

#endif
