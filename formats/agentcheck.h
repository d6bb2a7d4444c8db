/* SPDX-License-Identifier: MIT */
/* agentcheck.h - the agent-check language: the value an EVAL op carries
** (docs/bytecode.md, "Agent checks"; docs/eliza.md, docs/yao.md).
**
** One check is a map {type, scope, ...fields}.  The ElizaOS and Yao front
** ends lower their evaluations and assertions to it with every default
** made explicit (ElizaOS's string_contains is case-insensitive unless it
** says otherwise, Yao's contains is always case-sensitive: the value says
** `case_sensitive`), so the target that evaluates a check needs no idea of
** the dialect it came from.  Checked here, below every target, so the
** verifier refuses a malformed check at load (an unknown type or scope, a
** missing or mistyped field, an unknown field, a pattern that does not
** compile) and a target never refuses a program that verified.  The types
** themselves are one table, agentcheck.def. */
#ifndef SC_AGENTCHECK_H
#define SC_AGENTCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/bc.h"
#include "formats/term/term_regex.h"

/* Field kinds, one letter each: s string, p pattern (a string the
** linear-time regex engine compiles), i integer >= 0, n number, b bool,
** a array of strings, m map, v any value. */
typedef struct AcField {
    const char *name;
    char kind;
    bool required;
} AcField;

/* The check types, from agentcheck.def; AC__UNKNOWN for a name that is
** none of them. */
typedef enum AcType {
#define AC(id, name, fields, eliza, yao) AC_##id,
#include "formats/agentcheck.def"
#undef AC
    AC__UNKNOWN
} AcType;

/* The dialects whose types lower to check types (agentcheck.def's columns). */
typedef enum AcDialect { AC_ELIZA, AC_YAO } AcDialect;

/* The i-th check type's name (i an AcType), NULL past the last. */
const char *ac_type_name(size_t i);
/* The check type called name, or AC__UNKNOWN. */
AcType ac_type_of(const char *name);
/* The check type that dialect d's type `name` lowers to, or AC__UNKNOWN
** (a type the dialect does not have). */
AcType ac_dialect_type(AcDialect d, const char *name);
/* Fills out[0..cap) with dialect d's type names in the table's order and a
** NULL after them (cap > AC__UNKNOWN always suffices); returns how many. */
size_t ac_dialect_names(AcDialect d, const char **out, size_t cap);
/* The fields of check type `type` (ending with a NULL name), or NULL when
** the type is unknown.  Every check also has the common fields: type,
** scope (step, turn, final, case or checkpoint), negate, message,
** description, and for scope checkpoint id (required), after, required. */
const AcField *ac_fields(const char *type);
/* True when scope is one of the scopes above. */
bool ac_scope_ok(const char *scope);

/* Compiles a pattern as a check evaluates it: `(?i)` is put in front when
** case_sensitive is false and the pattern does not start with it.  NULL
** with err filled when it does not compile (term_regex_new). */
TermRegex *ac_regex_new(const char *pat, size_t len, bool case_sensitive, char *err, size_t errlen);

/* Verifies the check value v of program p.  Returns 1 when it is a
** check, 0 with msg set when not ("unknown check type 'x'", "contains:
** 'value' must be a string", ...), -1 when out of memory (compiling its
** pattern). */
int ac_verify(const BcProgram *p, const BcVal *v, char *msg, size_t n);

#endif
