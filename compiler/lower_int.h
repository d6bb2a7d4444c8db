/* SPDX-License-Identifier: MIT */
/* lower_int.h - what the files of the Scenario-Format front end share
** (lower.c: the timeline and the top level; lower_util.c: reading the tree,
** values and ops, paths; lower_content.c: content blocks, steps,
** llmResponse, tool use; lower_events.c: user, harness and control events).
** Private to them: the one public entry point is lower.h's lower_scenario().
** Diagnostics are the front ends' kit's (fe_kit.h). */
#ifndef SC_LOWER_INT_H
#define SC_LOWER_INT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "fe_kit.h"
#include "lower.h"

typedef struct L {
    const YDoc *doc;
    const LowerOpts *o;
    BcBuilder *b;
    FeDiag fe;                   /* diagnostics: the Diags, the file name */
    uint64_t t;                  /* the playback clock, ms */
    uint64_t seg_start;          /* clock right after the last baseTimeDelta */
    uint64_t seg_user;           /* furthest userInputs offset in this segment */
    const YNode *seg_user_node;
    bool completed;              /* a `complete` op was emitted */
    unsigned session_starts;
    const YNode *session_node;
    bool after_session;
    const char *prompt_any, *prompt_after;   /* effective initial prompt */
    uint32_t prompt_any_len, prompt_after_len;
    int load_session;            /* acp.capabilities.loadSession: -1 absent */
    int cap_image, cap_audio, cap_embedded;  /* promptCapabilities: -1 absent */
    char term_name[128];         /* Terminal-Config name ("" = none) */
    const YNode *load_session_node;
    bool unstable;               /* acp.unstable */
    uint32_t null_val;
    /* The spec clock (docs/timing.md): user events are concurrent, at
    ** seg_start + relativeTime, so ops are collected and emitted in time
    ** order at the end (stable: timeline order breaks ties). */
    bool spec;
    struct PendOp *pend;
    size_t n_pend, cap_pend;
    uint64_t last_user;          /* spec: user input times must not decrease */
    const YNode *last_user_node;
} L;

typedef struct PendOp {
    uint64_t t;
    size_t seq;
    BcOp op;
    uint32_t line, col, a[BC_MAX_OPERANDS];
} PendOp;

/* ---- reading the tree (lower_util.c) ---- */

static inline bool is_map(const YNode *n) { return n && n->kind == YN_MAP; }
static inline bool is_seq(const YNode *n) { return n && n->kind == YN_SEQ; }
static inline bool is_scalar(const YNode *n) { return n && n->kind == YN_SCALAR; }
static inline bool is_null(const YNode *n) { return !n || (n->kind == YN_SCALAR && n->type == YT_NULL); }
static inline bool is_str(const YNode *n) { return is_scalar(n) && n->type == YT_STR; }

/* ---- reading the tree, values and ops, paths (lower_util.c) ---- */

void lw_check_keys2(L *l, const YNode *map, const char *what,
                    const char *const *known, const char *const *also);
void lw_check_keys(L *l, const YNode *map, const char *what, const char *const *known);
const char *lw_a_or_an(const char *w);
void lw_want_kind(L *l, const YNode *n, const char *what, const char *expected);
const YNode *lw_get_text(L *l, const YNode *map, const char *key, bool required, const char *what);
/* A whole number of milliseconds (0 to 2^53) -> *out; else an error that
** names the field by what_fmt, formatted only then (building the name
** every time, with snprintf, was 2% of compiling a small scenario). */
bool lw_uint_of(L *l, const YNode *n, uint64_t *out, const char *what_fmt, ...)
    __attribute__((format(printf, 4, 5)));
bool lw_get_uint(L *l, const YNode *map, const char *key, bool required,
                 const char *what, uint64_t *out);
bool lw_get_bool(L *l, const YNode *map, const char *key, bool dflt, const char *what);
void lw_check_enum(L *l, const YNode *n, const char *what, const char *const *allowed, bool error);
uint32_t lw_str_of(L *l, const YNode *n);
uint32_t lw_val_of(L *l, const YNode *n);
void lw_ynode_json(Buf *b, const YNode *n);
uint32_t lw_cs(L *l, const char *s);
void lw_op(L *l, const YNode *at, BcOp o, ...);
void lw_op_at(L *l, uint64_t t, const YNode *at, BcOp o, ...);
size_t lw_ops_so_far(const L *l);
uint64_t lw_flush_pending(L *l);
const YNode *lw_get_meta(L *l, const YNode *ev, const YNode *item);
bool lw_check_rel_path(L *l, const YNode *n, const char *what, bool must_exist);

/* ---- content blocks, steps, llmResponse, tool use (lower_content.c) ---- */

typedef struct ToolDef {
    const char *name;
    const char *required[3];
    const char *optional[10];
} ToolDef;
enum { LW_N_TOOLS = 17 };
extern const ToolDef LW_TOOLS[];
const char *lw_check_block(L *l, const YNode *blk, uint32_t *len);
void lower_llm(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_tool_use(L *l, const YNode *key, const YNode *v, const YNode *item);
const ToolDef *lw_tool_def(const char *name);
void lower_tool_shorthand(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_edits(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_plan(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_mode(L *l, const YNode *key, const YNode *v, const YNode *item);

/* ---- user, harness and control events (lower_events.c) ---- */

void lower_inputs(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_user_edits(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_user_command(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_cancel(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_delta(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_screenshot(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_log(L *l, const YNode *key, const YNode *v, const YNode *item);
void lw_want_str_list(L *l, const YNode *n, const char *what);
void lower_assert(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_complete(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_merge(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_status(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_session_start(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_initialize(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_file_reads(L *l, const YNode *key, const YNode *v, const YNode *item);
void lower_permission(L *l, const YNode *key, const YNode *v, const YNode *item);

/* ---- the timeline (lower.c) ---- */

void lower_actions(L *l, const YNode *key, const YNode *v, const YNode *item);

#endif
