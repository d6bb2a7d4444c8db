/* SPDX-License-Identifier: MIT */
/* agenttest.h - what the ElizaOS and Yao front ends share (dialect_eliza.c,
** dialect_yao.c): located diagnostics, typed field getters over the YAML
** tree, and the checks they lower to (EVAL values of the agent-check
** language, formats/agentcheck.h), built field by field and emitted with
** the source position of the evaluation they come from.  The diagnostics
** are the front ends' kit's (fe_kit.h) with a line offset and the
** dialect's name in the messages. */
#ifndef SC_AGENTTEST_H
#define SC_AGENTTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "common/diag.h"
#include "formats/bc_write.h"
#include "yaml_tree.h"

typedef struct At {
    BcBuilder *b;
    Diags *d;
    const char *file;          /* diagnostics' file name */
    const char *dialect;       /* "ElizaOS" or "Yao", for messages */
    const char *compat;        /* its -W flag: "eliza-compat" or "yao-ignored" */
    uint32_t line_offset;      /* added to every node's line (a JSON Lines line) */
    bool check_only;           /* the case already has errors: check the rest, emit nothing */
} At;

/* ---- diagnostics at a node (line + line_offset, col) ---- */
void at_err(At *t, const YNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void at_warn(At *t, const char *flag, const YNode *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void at_note(At *t, const YNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "did you mean 'x'?" at n when a name of list is close to word (fe_kit.h). */
bool at_suggest(At *t, const YNode *n, const char *word, const char *const *list);
/* A check type dialect (an AcDialect of formats/agentcheck.h) does not
** know, at n: "unknown WHAT 'ty'", "did you mean", and a note listing
** what WHO knows (agentcheck.def's column of that dialect). */
void at_unknown_type(At *t, const YNode *n, const char *ty, int dialect, const char *what, const char *who);

/* ---- nodes ---- */
static inline bool at_is_map(const YNode *n) { return n && n->kind == YN_MAP; }
static inline bool at_is_seq(const YNode *n) { return n && n->kind == YN_SEQ; }
static inline bool at_is_null(const YNode *n) { return !n || (n->kind == YN_SCALAR && n->type == YT_NULL); }
static inline bool at_is_str(const YNode *n) { return n && n->kind == YN_SCALAR && n->type == YT_STR; }
static inline bool at_is_int(const YNode *n) { return n && n->kind == YN_SCALAR && n->type == YT_INT; }
static inline bool at_is_num(const YNode *n)
{
    return n && n->kind == YN_SCALAR && (n->type == YT_INT || n->type == YT_FLOAT);
}
static inline bool at_is_bool(const YNode *n) { return n && n->kind == YN_SCALAR && n->type == YT_BOOL; }

/* Keys outside keys (NULL-terminated) get a -Wunknown-key warning saying
** the dialect's loader ignores them, and the closest key as a suggestion. */
void at_check_keys(At *t, const YNode *map, const char *what, const char *const *keys);
/* The value of key, required or not; NULL when absent (an error when
** required, naming what the dialect's schema requires). */
const YNode *at_req(At *t, const YNode *map, const char *key, const char *what);
/* A string (NULL when absent or not a string: an error then). */
const YNode *at_str(At *t, const YNode *map, const char *key, bool required, const char *what);
/* A bool; false when absent.  *ok cleared on a type error. */
const YNode *at_bool(At *t, const YNode *map, const char *key, const char *what);
/* An integer in [lo, hi]; NULL when absent or bad (an error). */
const YNode *at_int(At *t, const YNode *map, const char *key, bool required, int64_t lo, int64_t hi,
                    const char *what);
/* A number in [lo, hi]. */
const YNode *at_num(At *t, const YNode *map, const char *key, double lo, double hi, const char *what);
/* A list of strings (min_n or more); NULL when absent or bad. */
const YNode *at_strs(At *t, const YNode *map, const char *key, bool required, uint32_t min_n, const char *what);
/* A mapping; NULL when absent or bad. */
const YNode *at_map(At *t, const YNode *map, const char *key, bool required, const char *what);
/* s one of vals (NULL-terminated), else an error listing them (and the
** closest as a suggestion). */
bool at_enum(At *t, const YNode *s, const char *what, const char *const *vals);

/* ---- checks (EVAL values) ---- */
enum { AT_MAX_FIELDS = 16 };
typedef struct AtField {
    const char *key;
    char kind;                 /* n node (verbatim), s string, b bool, i int */
    const YNode *node;
    const char *s;
    size_t len;
    int64_t i;
} AtField;

typedef struct AtCheck {
    AtField f[AT_MAX_FIELDS];
    int n;
} AtCheck;

void at_check_init(AtCheck *c, const char *type, const char *scope);
void at_put_node(AtCheck *c, const char *key, const YNode *n);    /* n NULL: not put */
void at_put_str(AtCheck *c, const char *key, const char *s, size_t len);
void at_put_bool(AtCheck *c, const char *key, bool v);
void at_put_int(AtCheck *c, const char *key, int64_t v);
/* A pattern as the check will compile it (agentcheck.h): an error at n
** when it does not. */
bool at_pattern_ok(At *t, const YNode *n, bool case_sensitive);

/* Emits EVAL with the check at the position of `at`. */
void at_emit_eval(At *t, const AtCheck *c, const YNode *at);
/* Emits CASE id type settings (a value index) at `at`. */
void at_emit_case(At *t, const char *id, size_t id_len, const char *type, uint32_t settings, const YNode *at);
/* Emits USER_INPUT: to every target, text, the full input (a value index,
** or the null value), extras (a value index or null) at `at`. */
void at_emit_input(At *t, const char *text, size_t len, uint32_t input, uint32_t extras, const YNode *at);

#endif
