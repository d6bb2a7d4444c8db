/* SPDX-License-Identifier: MIT */
/* dialect_tuiuse.c - tui-use scenario -> bytecode (dialect_tuiuse.h).
**
**   checks     the scenario, run, policy (inline, or a file read here and
**              inlined), steps, actions, conditions; key names and regular
**              expressions with the languages of formats/term/, the ones the
**              verifier checks and the PTY target runs
**   emits      STEP, then the action's op, then one CHECK per assertion;
**              the metadata config: {dialect, scenario_version, metadata,
**              run, policy, terminal}
**
** Rules follow ptybox (the implementation of the tui-use data model)
** where it is stricter than the data model, so a file we accept also runs
** there, except where docs/tui-use.md says otherwise (step ids, relative
** policy paths, more conditions and keys). */
#define _DEFAULT_SOURCE 1   /* realpath */
#include "dialect_tuiuse.h"

#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "formats/term/term_keys.h"
#include "formats/cond.h"
#include "formats/term/term_regex.h"
#include "fe_kit.h"
#include "yaml_value.h"
#include "fe_tables.h"

/* The key and value lists this front end checks, shared with the schema
** generator (fe_tables.h, schema.c). */
const char *const TU_POLICY_KEYS[] = { "policy_version", "sandbox", "sandbox_unsafe_ack", "network", "network_unsafe_ack", "fs", "fs_write_unsafe_ack", "fs_strict_write", "exec", "env", "budgets", "artifacts", "replay", NULL };
const char *const TU_SANDBOXES[] = { "seatbelt", "none", NULL };
const char *const TU_NETWORKS[] = { "disabled", "enabled", NULL };
const char *const TU_POLICY_FS_KEYS[] = { "allowed_read", "allowed_write", "working_dir", NULL };
const char *const TU_POLICY_EXEC_KEYS[] = { "allowed_executables", "allow_shell", NULL };
const char *const TU_POLICY_ENV_KEYS[] = { "allowlist", "set", "inherit", NULL };
const char *const TU_POLICY_BUDGET_KEYS[] = { "max_runtime_ms", "max_steps", "max_output_bytes", "max_snapshot_bytes", "max_wait_ms", NULL };
const char *const TU_POLICY_ARTIFACT_KEYS[] = { "enabled", "dir", "overwrite", NULL };
const char *const TU_POLICY_REPLAY_KEYS[] = { "strict", "normalization_filters", "normalization_rules", NULL };
const char *const TU_ACTION_KEYS[] = { "type", "payload", NULL };
const char *const TU_ACTION_TYPES[] = { "key", "text", "resize", "wait", "terminate", "observe", NULL };
const char *const TU_STEP_KEYS[] = { "id", "name", "action", "assert", "timeout_ms", "retries", NULL };
const char *const TU_TOP_KEYS[] = { "scenario_version", "metadata", "run", "steps", NULL };
const char *const TU_META_KEYS[] = { "name", "description", NULL };
const char *const TU_RUN_KEYS[] = { "command", "args", "cwd", "initial_size", "policy", NULL };
const char *const TU_SIZE_KEYS[] = { "rows", "cols", NULL };

enum { MAX_SIZE = 500, MAX_POLICY_FILE = 1 << 20, POLICY_VERSION = 4, SCENARIO_VERSION = 1 };
const int TU_SCENARIO_VERSION = SCENARIO_VERSION, TU_POLICY_VERSION = POLICY_VERSION;

typedef struct T {
    const TuiUseOpts *o;
    BcBuilder *b;
    FeDiag fe;                  /* diagnostics; its file is the one being checked (scenario or policy) */
    uint32_t null_val;
} T;

/* ---- diagnostics: the front ends' kit (fe_kit.h) ---- */

/* ---- node helpers ---- */

static bool is_map(const YNode *n) { return n && n->kind == YN_MAP; }
static bool is_seq(const YNode *n) { return n && n->kind == YN_SEQ; }
static bool is_null(const YNode *n) { return !n || (n->kind == YN_SCALAR && n->type == YT_NULL); }
static bool is_str(const YNode *n) { return n && n->kind == YN_SCALAR && n->type == YT_STR; }
static bool is_int(const YNode *n) { return n && n->kind == YN_SCALAR && n->type == YT_INT; }
static bool is_bool(const YNode *n) { return n && n->kind == YN_SCALAR && n->type == YT_BOOL; }

/* Unknown keys are warned about and ignored (ptybox's serde ignores them too). */
static void check_keys(T *t, const YNode *map, const char *what, const char *const *keys)
{
    fe_unknown_keys(&t->fe, map, what, keys, NULL, NULL);
}

static const YNode *want_map(T *t, const YNode *n, const char *what)
{
    if (is_map(n))
        return n;
    if (n)
        fe_err(&t->fe, n, "%s must be a mapping (a JSON object), not %s", what, ykind_name(n));
    return NULL;
}

/* A required key: an error at the mapping when it is missing. */
static const YNode *req(T *t, const YNode *map, const char *key, const char *what)
{
    const YNode *v = ymap_get(map, key);
    if (!v)
        fe_err(&t->fe, map, "%s needs '%s' (required by the tui-use schema)", what, key);
    return v;
}

static const YNode *get_str(T *t, const YNode *map, const char *key, bool required, const char *what)
{
    const YNode *v = required ? req(t, map, key, what) : ymap_get(map, key);
    if (v && !is_str(v)) {
        fe_err(&t->fe, v, "'%s' in %s must be a string, not %s", key, what, ykind_name(v));
        return NULL;
    }
    return v;
}

static bool get_bool(T *t, const YNode *map, const char *key, const char *what)
{
    const YNode *v = ymap_get(map, key);
    if (v && !is_bool(v)) {
        fe_err(&t->fe, v, "'%s' in %s must be true or false, not %s", key, what, ykind_name(v));
        return false;
    }
    return true;
}

/* An integer in [lo, hi].  Returns the node (NULL when absent or bad). */
static const YNode *get_int(T *t, const YNode *map, const char *key, bool required, int64_t lo, int64_t hi,
                            const char *what)
{
    const YNode *v = required ? req(t, map, key, what) : ymap_get(map, key);
    if (!v)
        return NULL;
    if (!is_int(v)) {
        fe_err(&t->fe, v, "'%s' in %s must be an integer, not %s", key, what, ykind_name(v));
        return NULL;
    }
    int64_t i = yint(v);
    if (i < lo || i > hi) {
        fe_err(&t->fe, v, "'%s' in %s must be %" PRId64 "..%" PRId64 ", not %" PRId64, key, what, lo, hi, i);
        return NULL;
    }
    return v;
}

static void want_str_list(T *t, const YNode *map, const char *key, const char *what, bool absolute)
{
    const YNode *v = ymap_get(map, key);
    if (!v || is_null(v))
        return;
    if (!is_seq(v)) {
        fe_err(&t->fe, v, "'%s' in %s must be a list of strings, not %s", key, what, ykind_name(v));
        return;
    }
    for (uint32_t i = 0; i < v->n; i++) {
        const YNode *s = &v->u.items[i];
        if (!is_str(s))
            fe_err(&t->fe, s, "'%s' in %s must hold strings, not %s", key, what, ykind_name(s));
        else if (absolute && s->u.s[0] != '/')
            fe_err(&t->fe, s, "'%s' in %s must hold absolute paths; '%s' is relative", key, what, s->u.s);
    }
}

static void want_enum(T *t, const YNode *map, const char *key, const char *what, const char *const *vals)
{
    const YNode *v = get_str(t, map, key, false, what);
    if (v && !fe_in_list(v->u.s, vals)) {
        char list[200] = "";
        for (size_t i = 0; vals[i]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s'%s'", i ? ", " : "", vals[i]);
        fe_err(&t->fe, v, "'%s' in %s must be one of %s, not '%s'", key, what, list, v->u.s);
        fe_suggest(&t->fe, v, v->u.s, vals);
    }
}

/* ---- values ---- */

static uint32_t cs(T *t, const char *s) { return bcb_cstr(t->b, s); }

/* A map of two integers: {"rows": 24, "cols": 80} */
static void size_map(T *t, const char *k1, int64_t v1, const char *k2, int64_t v2)
{
    bcb_val_map(t->b, 2);
    bcb_val_key(t->b, cs(t, k1));
    bcb_val_int(t->b, v1);
    bcb_val_key(t->b, cs(t, k2));
    bcb_val_int(t->b, v2);
}
static uint32_t str_of(T *t, const YNode *n) { return bcb_str(t->b, n->u.s, n->n); }

static uint32_t val_of(T *t, const YNode *n)
{
    bcb_val_begin(t->b);
    yaml_value_emit(t->b, n);
    return bcb_val_end(t->b);
}

/* ---- policy ---- */

static void check_policy(T *t, const YNode *p)
{
    const char *const *keys = TU_POLICY_KEYS;
    const char *const *sandboxes = TU_SANDBOXES;
    const char *const *networks = TU_NETWORKS;
    const char *W = "the policy";
    check_keys(t, p, W, keys);
    const YNode *ver = req(t, p, "policy_version", W);
    if (ver && (!is_int(ver) || yint(ver) != POLICY_VERSION)) {
        fe_err(&t->fe, ver, "'policy_version' must be %d (the only version ptybox accepts), not %s", POLICY_VERSION,
               ver->kind == YN_SCALAR ? ver->u.s : ykind_name(ver));
    }
    want_enum(t, p, "sandbox", W, sandboxes);
    want_enum(t, p, "network", W, networks);
    get_bool(t, p, "sandbox_unsafe_ack", W);
    get_bool(t, p, "network_unsafe_ack", W);
    get_bool(t, p, "fs_write_unsafe_ack", W);
    get_bool(t, p, "fs_strict_write", W);
    const YNode *fs = want_map(t, ymap_get(p, "fs"), "'fs' in the policy");
    if (fs) {
        const char *const *fk = TU_POLICY_FS_KEYS;
        check_keys(t, fs, "policy.fs", fk);
        want_str_list(t, fs, "allowed_read", "policy.fs", true);
        want_str_list(t, fs, "allowed_write", "policy.fs", true);
        const YNode *wd = ymap_get(fs, "working_dir");
        if (wd && !is_null(wd) && (!is_str(wd) || wd->u.s[0] != '/'))
            fe_err(&t->fe, wd, "'working_dir' in policy.fs must be an absolute path or null");
    }
    const YNode *ex = want_map(t, ymap_get(p, "exec"), "'exec' in the policy");
    if (ex) {
        const char *const *ek = TU_POLICY_EXEC_KEYS;
        check_keys(t, ex, "policy.exec", ek);
        want_str_list(t, ex, "allowed_executables", "policy.exec", true);
        get_bool(t, ex, "allow_shell", "policy.exec");
    }
    const YNode *env = want_map(t, ymap_get(p, "env"), "'env' in the policy");
    if (env) {
        const char *const *vk = TU_POLICY_ENV_KEYS;
        check_keys(t, env, "policy.env", vk);
        want_str_list(t, env, "allowlist", "policy.env", false);
        get_bool(t, env, "inherit", "policy.env");
        const YNode *set = want_map(t, ymap_get(env, "set"), "'set' in policy.env");
        for (uint32_t i = 0; set && i < set->n; i++)
            if (!is_str(&set->u.pairs[i].val))
                fe_err(&t->fe, &set->u.pairs[i].val, "policy.env.set['%s'] must be a string, not %s",
                       set->u.pairs[i].key.u.s, ykind_name(&set->u.pairs[i].val));
    }
    const YNode *bu = want_map(t, ymap_get(p, "budgets"), "'budgets' in the policy");
    if (bu) {
        const char *const *bk = TU_POLICY_BUDGET_KEYS;
        check_keys(t, bu, "policy.budgets", bk);
        for (size_t i = 0; bk[i]; i++)
            get_int(t, bu, bk[i], false, 0, INT64_MAX, "policy.budgets");
    }
    const YNode *ar = want_map(t, ymap_get(p, "artifacts"), "'artifacts' in the policy");
    if (ar) {
        const char *const *ak = TU_POLICY_ARTIFACT_KEYS;
        check_keys(t, ar, "policy.artifacts", ak);
        get_bool(t, ar, "enabled", "policy.artifacts");
        get_bool(t, ar, "overwrite", "policy.artifacts");
        const YNode *dir = ymap_get(ar, "dir");
        if (dir && !is_null(dir) && (!is_str(dir) || dir->u.s[0] != '/'))
            fe_err(&t->fe, dir, "'dir' in policy.artifacts must be an absolute path or null");
    }
    const YNode *re = want_map(t, ymap_get(p, "replay"), "'replay' in the policy");
    if (re) {
        const char *const *rk = TU_POLICY_REPLAY_KEYS;
        check_keys(t, re, "policy.replay", rk);
        get_bool(t, re, "strict", "policy.replay");
        want_str_list(t, re, "normalization_filters", "policy.replay", false);
        const YNode *rules = ymap_get(re, "normalization_rules");
        if (rules && !is_null(rules) && !is_seq(rules))
            fe_err(&t->fe, rules, "'normalization_rules' in policy.replay must be a list or null");
    }
}

/* An absolute path beneath dir (as given, or resolved) made relative to
** it; NULL when it is elsewhere. */
static const char *strip_folder(const char *dir, const char *path)
{
    char real[PATH_MAX], cwd[PATH_MAX], abs[PATH_MAX * 2];
    const char *cands[3];
    int nc = 0;
    if (dir[0] == '/')
        cands[nc++] = dir;
    else if (getcwd(cwd, sizeof cwd)) {
        snprintf(abs, sizeof abs, "%s/%s", cwd, strcmp(dir, ".") == 0 ? "" : dir);
        cands[nc++] = abs;
    }
    if (realpath(dir, real))
        cands[nc++] = real;
    for (int i = 0; i < nc; i++) {
        size_t n = strlen(cands[i]);
        while (n > 1 && cands[i][n - 1] == '/')
            n--;
        if (strncmp(path, cands[i], n) == 0 && path[n] == '/') {
            const char *rel = path + n;
            while (*rel == '/')
                rel++;
            return *rel ? rel : NULL;
        }
    }
    return NULL;
}

/* Reads a policy file into the arena.  Returns its root, or NULL after an
** error at `at` (the path node in the scenario).  The file is confined to
** the scenario's folder (opened beneath its descriptor: no '..', absolute
** path or symbolic link out of it) unless o->policy_outside. */
static const YNode *load_policy(T *t, const YNode *at)
{
    const char *path = at->u.s;
    const TuiUseOpts *o = t->o;
    size_t dl = o->base_dir ? strlen(o->base_dir) : 0;
    char *full = arena_alloc(o->arena, dl + strlen(path) + 2);
    if (!full) {
        fe_err(&t->fe, at, "out of memory");
        return NULL;
    }
    if (path[0] == '/' || dl == 0)
        strcpy(full, path);
    else
        sprintf(full, "%s/%s", o->base_dir, path);
    char *src = NULL;
    size_t len = 0;
    int e;
    if (o->policy_outside) {
        e = file_read_all(full, MAX_POLICY_FILE, &src, &len);
    } else {
        const char *dir = dl ? o->base_dir : ".";
        const char *rel = path[0] == '/' ? strip_folder(dir, path) : path;
        e = rel ? file_read_beneath(dir, rel, MAX_POLICY_FILE, &src, &len) : EXDEV;
    }
    if (e == EXDEV) {
        fe_err(&t->fe, at, "the policy file '%s' is outside the scenario's folder (an absolute path, a '..' or a symbolic "
                      "link leads out of it)", full);
        fe_note(&t->fe, at, "a policy file is read beneath the scenario's folder; scc --policy-outside reads it anywhere");
        return NULL;
    }
    if (e) {
        fe_err(&t->fe, at, "cannot read the policy file '%s': %s", full, e == EFBIG ? "file too large" : strerror(e));
        return NULL;
    }
    char *text = arena_strndup(o->arena, src, len);
    sc_free(src);
    YDoc pd;
    if (!text || !yaml_parse(text, len, full, o->arena, t->fe.d, &pd)) {
        fe_note(&t->fe, at, "the policy file is referenced here");
        return NULL;
    }
    if (!is_map(pd.root)) {
        diag_error(t->fe.d, full, pd.root ? pd.root->line : 0, pd.root ? pd.root->col : 0,
                   "a policy file must hold a mapping (a JSON object)");
        fe_note(&t->fe, at, "the policy file is referenced here");
        return NULL;
    }
    const char *outer = t->fe.file;
    size_t before = t->fe.d->errors;
    t->fe.file = full;
    check_policy(t, pd.root);
    t->fe.file = outer;
    if (t->fe.d->errors > before)
        fe_note(&t->fe, at, "in the policy file referenced here");
    return pd.root;
}

/* run.policy: an inline Policy, {path}, or (before the rename) a path string. */
static const YNode *resolve_policy(T *t, const YNode *p)
{
    const YNode *path = NULL;
    if (is_str(p)) {
        fe_warn(&t->fe, "tui-use-compat", p, "a policy path as a bare string is the pre-rename schema; "
                                        "ptybox now wants {\"path\": ...}");
        path = p;
    } else if (is_map(p) && ymap_get(p, "path") && !ymap_get(p, "policy_version")) {
        static const char *const pk[] = { "path", NULL };
        check_keys(t, p, "a policy reference", pk);
        path = get_str(t, p, "path", true, "a policy reference");
        if (!path)
            return NULL;
    } else if (is_map(p)) {
        check_policy(t, p);
        return p;
    } else {
        fe_err(&t->fe, p, "'policy' in run must be a policy object or {\"path\": FILE}, not %s", ykind_name(p));
        return NULL;
    }
    if (path->n == 0) {
        fe_err(&t->fe, path, "the policy path is empty");
        return NULL;
    }
    if (path->u.s[0] != '/')
        fe_warn(&t->fe, "tui-use-compat", path, "relative policy path '%s' is read from the scenario's folder "
                                           "(the data model and ptybox want an absolute path)", path->u.s);
    return load_policy(t, path);
}

/* ---- conditions (wait conditions and assertions share one table:
** formats/cond.c, the one the verifier and the PTY target use) ---- */

static void check_condition(T *t, const YNode *c, const char *what)
{
    if (!want_map(t, c, what))
        return;
    static const char *const ck[] = { "type", "payload", NULL };
    const YNode *type = get_str(t, c, "type", true, what);
    if (!type)
        return;
    const char *needs, *optional;
    if (!cond_lookup(type->u.s, &needs, &optional)) {
        fe_err(&t->fe, type, "unknown %s type '%s'", what, type->u.s);
        char list[600] = "";
        const char *names[64];
        size_t n = 0;
        for (size_t i = 0; cond_name(i); i++) {
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", cond_name(i));
            if (n < sizeof names / sizeof names[0] - 1)
                names[n++] = cond_name(i);
        }
        names[n] = NULL;
        fe_suggest(&t->fe, type, type->u.s, names);
        fe_note(&t->fe, type, "known types: %s", list);
        return;
    }
    const YNode *pl = ymap_get(c, "payload");
    /* ptybox's Action::wait_for_* helpers put the fields beside `type`; its
    ** runner reads them from `payload`, so that shape never works there. */
    for (uint32_t i = 0; i < c->n; i++) {
        const YNode *key = &c->u.pairs[i].key;
        if (fe_in_list(key->u.s, ck))
            continue;
        fe_err(&t->fe, key, "'%s' belongs inside 'payload' of the %s", key->u.s, what);
    }
    if (pl && !is_null(pl) && !want_map(t, pl, "'payload'"))
        return;
    if (is_null(pl))
        pl = NULL;
    char allowed[8][12];
    const char *al[9];
    size_t na = 0;
    char fields[16];
    snprintf(fields, sizeof fields, "%s%s", needs, optional);
    for (const char *f = fields; *f; f++) {
        bool need = strchr(needs, *f) != NULL;
        char w[300];
        snprintf(w, sizeof w, "the payload of %s", type->u.s);
        const YNode *at = pl ? pl : c;
        switch (*f) {
        case 't':
            if (pl)
                get_str(t, pl, "text", need, w);
            else if (need)
                fe_err(&t->fe, at, "%s needs a payload with 'text'", type->u.s);
            snprintf(allowed[na], sizeof allowed[na], "text");
            break;
        case 'p': {
            const YNode *pat = pl ? get_str(t, pl, "pattern", true, w) : NULL;
            if (!pl)
                fe_err(&t->fe, at, "%s needs a payload with 'pattern'", type->u.s);
            if (pat) {
                char e[160];
                TermRegex *re = term_regex_new(pat->u.s, pat->n, e, sizeof e);
                if (!re)
                    fe_err(&t->fe, pat, "invalid pattern: %s", e);
                term_regex_free(re);
            }
            snprintf(allowed[na], sizeof allowed[na], "pattern");
            break;
        }
        case 'r':
            if (pl) {
                get_int(t, pl, "row", true, 0, MAX_SIZE - 1, w);
                get_int(t, pl, "col", true, 0, MAX_SIZE - 1, w);
            } else {
                fe_err(&t->fe, at, "%s needs a payload with 'row' and 'col'", type->u.s);
            }
            snprintf(allowed[na++], sizeof allowed[0], "row");
            snprintf(allowed[na], sizeof allowed[na], "col");
            break;
        case 'l':
            if (pl)
                get_int(t, pl, "line", true, 0, MAX_SIZE - 1, w);
            else
                fe_err(&t->fe, at, "%s needs a payload with 'line'", type->u.s);
            snprintf(allowed[na], sizeof allowed[na], "line");
            break;
        case 'c':
            if (pl && ymap_get(pl, "exit_code") && !ymap_get(pl, "code"))
                get_int(t, pl, "exit_code", true, INT32_MIN, INT32_MAX, w);
            else if (pl)
                get_int(t, pl, "code", true, INT32_MIN, INT32_MAX, w);
            else
                fe_err(&t->fe, at, "%s needs a payload with 'code'", type->u.s);
            snprintf(allowed[na++], sizeof allowed[0], "code");
            snprintf(allowed[na], sizeof allowed[na], "exit_code");
            break;
        case 'm':
            if (pl)
                get_int(t, pl, "ms", false, 0, 600000, w);
            snprintf(allowed[na], sizeof allowed[na], "ms");
            break;
        case 'o':
            if (pl)
                get_bool(t, pl, "on", w);
            snprintf(allowed[na], sizeof allowed[na], "on");
            break;
        default:
            break;
        }
        na++;
    }
    for (size_t i = 0; i < na; i++)
        al[i] = allowed[i];
    al[na] = NULL;
    if (pl) {
        char w[300];
        snprintf(w, sizeof w, "the payload of %s", type->u.s);
        check_keys(t, pl, w, al);
    }
}

/* ---- steps ---- */

static bool is_uuid(const char *s, size_t n)
{
    if (n != 36)
        return false;
    for (size_t i = 0; i < n; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        char c = s[i];
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (dash ? c != '-' : !hex)
            return false;
    }
    return true;
}

static void emit(T *t, BcOp op, const YNode *at, uint32_t a, uint32_t b2, uint32_t c, uint32_t d)
{
    uint32_t line = at ? at->line : 0, col = at ? at->col : 0;
    bool ok = true;
    switch (bc_op_info[op].n_operands) {
    case 0: ok = bcb_op(t->b, op, 0, line, col); break;
    case 1: ok = bcb_op(t->b, op, 0, line, col, a); break;
    case 2: ok = bcb_op(t->b, op, 0, line, col, a, b2); break;
    case 4: ok = bcb_op(t->b, op, 0, line, col, a, b2, c, d); break;
    default: ok = false; break;
    }
    if (!ok)
        fe_err(&t->fe, at, "internal error: %s", bcb_error(t->b) ? bcb_error(t->b) : "cannot emit an op");
}

/* One action.  Emits its op (none for observe). */
static void lower_action(T *t, const YNode *act)
{
    const char *const *ak = TU_ACTION_KEYS;
    const char *const *types = TU_ACTION_TYPES;
    if (!want_map(t, act, "'action'"))
        return;
    check_keys(t, act, "an action", ak);
    const YNode *type = get_str(t, act, "type", true, "an action");
    if (!type)
        return;
    if (!fe_in_list(type->u.s, types)) {
        fe_err(&t->fe, type, "unknown action type '%s'; expected key, text, resize, wait or terminate", type->u.s);
        fe_suggest(&t->fe, type, type->u.s, types);
        return;
    }
    const YNode *pl = ymap_get(act, "payload");
    if (pl && !is_null(pl) && !want_map(t, pl, "'payload'"))
        return;
    if (is_null(pl))
        pl = NULL;
    const char *ty = type->u.s;
    char w[64];
    snprintf(w, sizeof w, "the payload of a %s action", ty);
    if (strcmp(ty, "key") == 0 || strcmp(ty, "text") == 0) {
        bool key = ty[0] == 'k';
        const char *field = key ? "key" : "text";
        const char *const fk[] = { field, NULL };
        if (!pl) {
            fe_err(&t->fe, act, "a %s action needs a payload with '%s'", ty, field);
            return;
        }
        check_keys(t, pl, w, fk);
        const YNode *s = get_str(t, pl, field, true, w);
        if (!s)
            return;
        if (key) {
            TermKey k;
            if (strlen(s->u.s) != s->n || !term_key_parse(s->u.s, &k)) {
                fe_err(&t->fe, s, "unknown key name '%s'", s->u.s);
                fe_note(&t->fe, s, "keys: Enter, Tab, Escape, Backspace, Up, Down, Left, Right, Home, End, PageUp, "
                              "PageDown, Insert, Delete, F1-F24, Space or one character, with Ctrl+, Alt+, Shift+");
                return;
            }
            emit(t, OP_KEY, act, str_of(t, s), 0, 0, 0);
        } else {
            emit(t, OP_TYPE_TEXT, act, str_of(t, s), 0, 0, 0);
        }
    } else if (strcmp(ty, "resize") == 0) {
        static const char *const rk[] = { "rows", "cols", NULL };
        if (!pl) {
            fe_err(&t->fe, act, "a resize action needs a payload with 'rows' and 'cols'");
            return;
        }
        check_keys(t, pl, w, rk);
        const YNode *r = get_int(t, pl, "rows", true, 1, MAX_SIZE, w);
        const YNode *c = get_int(t, pl, "cols", true, 1, MAX_SIZE, w);
        if (r && c)
            emit(t, OP_RESIZE, act, (uint32_t)yint(r), (uint32_t)yint(c), 0, 0);
    } else if (strcmp(ty, "wait") == 0) {
        static const char *const wk[] = { "condition", NULL };
        const YNode *cond = pl ? ymap_get(pl, "condition") : NULL;
        if (!cond) {
            fe_err(&t->fe, pl ? pl : act, "a wait action needs 'condition' in its payload "
                                     "({\"type\": ..., \"payload\": {...}}); ptybox rejects a wait without one");
            if (pl && ymap_get(pl, "timeout_ms"))
                fe_note(&t->fe, ymap_get(pl, "timeout_ms"), "a wait is bounded by its step's 'timeout_ms'");
            return;
        }
        check_keys(t, pl, w, wk);
        size_t before = t->fe.d->errors;
        check_condition(t, cond, "wait condition");
        if (t->fe.d->errors == before)
            emit(t, OP_WAIT, act, val_of(t, cond), 0, 0, 0);
    } else if (strcmp(ty, "terminate") == 0) {
        static const char *const none[] = { NULL };
        check_keys(t, pl, w, none);
        emit(t, OP_TERMINATE, act, 0, 0, 0, 0);
    } else {
        /* observe (ptybox, not in the schema): the step's snapshot is the
        ** observation, so it needs no op. */
        static const char *const none[] = { NULL };
        check_keys(t, pl, w, none);
    }
}

typedef struct Seen {
    const YNode **v;
    size_t n;
} Seen;

static void lower_step(T *t, const YNode *st, Seen *ids)
{
    const char *const *sk = TU_STEP_KEYS;
    if (!want_map(t, st, "a step"))
        return;
    check_keys(t, st, "a step", sk);
    const YNode *id = get_str(t, st, "id", true, "a step");
    const YNode *name = get_str(t, st, "name", true, "a step");
    const YNode *act = req(t, st, "action", "a step");
    const YNode *to = get_int(t, st, "timeout_ms", true, 0, UINT32_MAX, "a step");
    const YNode *re = get_int(t, st, "retries", true, 0, UINT32_MAX, "a step");
    const YNode *as = ymap_get(st, "assert");
    if (id) {
        if (id->n == 0 || strlen(id->u.s) != id->n)
            fe_err(&t->fe, id, "a step id must be a non-empty string without NUL");
        else if (!is_uuid(id->u.s, id->n))
            fe_warn(&t->fe, "tui-use-compat", id, "step id '%s' is not a UUID; ptybox only parses UUIDs", id->u.s);
        for (size_t i = 0; i < ids->n; i++) {
            if (ids->v[i]->n == id->n && memcmp(ids->v[i]->u.s, id->u.s, id->n) == 0) {
                fe_err(&t->fe, id, "duplicate step id '%s'", id->u.s);
                fe_note(&t->fe, ids->v[i], "first used here");
                break;
            }
        }
        ids->v[ids->n++] = id;
    }
    if (as && !is_null(as) && !is_seq(as)) {
        fe_err(&t->fe, as, "'assert' must be a list of assertions, not %s", ykind_name(as));
        as = NULL;
    }
    if (!id || !name || !to || !re || !act)
        return;
    uint32_t name_s = str_of(t, name);
    emit(t, OP_STEP, st, str_of(t, id), name_s, (uint32_t)yint(to), (uint32_t)yint(re));
    lower_action(t, act);
    for (uint32_t i = 0; as && is_seq(as) && i < as->n; i++) {
        size_t before = t->fe.d->errors;
        check_condition(t, &as->u.items[i], "assertion");
        if (t->fe.d->errors == before)
            emit(t, OP_CHECK, &as->u.items[i], val_of(t, &as->u.items[i]), 0, 0, 0);
    }
}

/* ---- the scenario ---- */

/* Other tui-use documents are JSON too: what each is, by its version key. */
static const struct { const char *key, *what; } OTHER[] = {
    { "$schema", "a JSON Schema, not a scenario" },
    { "policy_version", "a Policy; reference it from a scenario's run.policy as {\"path\": FILE}" },
    { "protocol_version", "a driver protocol message (NDJSON), not a scenario" },
    { "normalization_version", "a NormalizationRecord, not a scenario" },
    { "replay_version", "a ReplaySummary, not a scenario" },
    { "run_result_version", "a RunResult (run.json), not a scenario" },
    { "snapshot_version", "a ScreenSnapshot, not a scenario" },
};

/* A tui-use document that is not a scenario: its entry in OTHER, or -1. */
static int other_doc(const YNode *r)
{
    if (ymap_get(r, "scenario_version") || ymap_get(r, "run") || ymap_get(r, "steps") || ymap_get(r, "timeline"))
        return -1;
    for (size_t i = 0; i < sizeof OTHER / sizeof OTHER[0]; i++)
        if (ymap_get(r, OTHER[i].key))
            return (int)i;
    return -1;
}

bool tuiuse_detect(const YDoc *doc)
{
    const YNode *r = doc->root;
    return is_map(r) && !ymap_get(r, "timeline") && ((ymap_get(r, "run") && ymap_get(r, "steps")) ||
                                                     other_doc(r) >= 0);
}

bool tuiuse_lower(const YDoc *doc, const TuiUseOpts *o, BcBuilder *b, Diags *diags)
{
    T t = { .o = o, .b = b, .fe = { .d = diags, .file = doc->file } };
    size_t errors_before = diags->errors;
    t.null_val = bcb_null(b);
    const YNode *root = doc->root;
    if (!is_map(root)) {
        diag_error(diags, doc->file, root ? root->line : 0, root ? root->col : 0,
                   "a tui-use scenario must be a mapping with scenario_version, metadata, run and steps");
        return false;
    }
    int other = other_doc(root);
    if (other >= 0) {
        fe_err(&t.fe, root, "not a tui-use scenario: this is %s", OTHER[other].what);
        return false;
    }
    const char *const *top = TU_TOP_KEYS;
    check_keys(&t, root, "the scenario", top);
    const YNode *ver = req(&t, root, "scenario_version", "a tui-use scenario");
    if (ver && (!is_int(ver) || yint(ver) != SCENARIO_VERSION))
        fe_err(&t.fe, ver, "'scenario_version' must be %d, not %s", SCENARIO_VERSION,
               ver->kind == YN_SCALAR ? ver->u.s : ykind_name(ver));

    BcMeta m = { 0 };
    const YNode *meta = want_map(&t, req(&t, root, "metadata", "a tui-use scenario"), "'metadata'");
    const YNode *name = NULL;
    if (meta) {
        const char *const *mk = TU_META_KEYS;
        check_keys(&t, meta, "metadata", mk);
        name = get_str(&t, meta, "name", true, "metadata");
        const YNode *desc = ymap_get(meta, "description");
        if (desc && !is_null(desc) && !is_str(desc))
            fe_err(&t.fe, desc, "'description' in metadata must be a string or null, not %s", ykind_name(desc));
        if (name && name->n == 0)
            fe_err(&t.fe, name, "'name' in metadata must not be empty");
    }
    m.name = name ? str_of(&t, name) : cs(&t, "");

    /* run */
    const YNode *run = want_map(&t, req(&t, root, "run", "a tui-use scenario"), "'run'");
    const YNode *cmd = NULL, *args = NULL, *cwd = NULL, *rows = NULL, *cols = NULL, *pol = NULL;
    if (run) {
        const char *const *rk = TU_RUN_KEYS;
        check_keys(&t, run, "run", rk);
        cmd = get_str(&t, run, "command", true, "run");
        if (cmd && cmd->u.s[0] != '/')
            fe_err(&t.fe, cmd, "'command' in run must be an absolute path, not '%s' (ptybox and the exec "
                            "allowlist compare absolute paths)", cmd->u.s);
        args = req(&t, run, "args", "run");
        if (args && !is_seq(args)) {
            fe_err(&t.fe, args, "'args' in run must be a list of strings, not %s", ykind_name(args));
            args = NULL;
        } else if (args) {
            want_str_list(&t, run, "args", "run", false);
        } else {
            fe_note(&t.fe, run, "use \"args\": [] for none (ptybox has no default)");
        }
        cwd = ymap_get(run, "cwd");
        if (is_null(cwd))
            cwd = NULL;
        else if (!is_str(cwd) || cwd->u.s[0] != '/')
            fe_err(&t.fe, cwd, "'cwd' in run must be an absolute path or null");
        const YNode *size = want_map(&t, req(&t, run, "initial_size", "run"), "'initial_size'");
        if (size) {
            const char *const *zk = TU_SIZE_KEYS;
            check_keys(&t, size, "initial_size", zk);
            rows = get_int(&t, size, "rows", true, 1, MAX_SIZE, "initial_size");
            cols = get_int(&t, size, "cols", true, 1, MAX_SIZE, "initial_size");
        }
        const YNode *p = req(&t, run, "policy", "run");
        if (p)
            pol = resolve_policy(&t, p);
    }
    m.term_height = rows ? (uint32_t)yint(rows) : 24;
    m.term_width = cols ? (uint32_t)yint(cols) : 80;

    /* steps */
    const YNode *steps = req(&t, root, "steps", "a tui-use scenario");
    if (steps && !is_seq(steps)) {
        fe_err(&t.fe, steps, "'steps' must be a list of steps, not %s", ykind_name(steps));
        steps = NULL;
    }
    Seen ids = { 0 };
    if (steps && steps->n) {
        ids.v = sc_calloc(steps->n, sizeof *ids.v);
        if (!ids.v) {
            diag_error(diags, doc->file, 0, 0, "out of memory");
            return false;
        }
    }
    for (uint32_t i = 0; steps && i < steps->n; i++)
        lower_step(&t, &steps->u.items[i], &ids);
    sc_free(ids.v);

    /* metadata */
    m.tags = bcb_empty_array(b);
    m.defines = bcb_empty_map(b);
    m.prompt = t.null_val;
    m.source = cs(&t, o->source_name ? o->source_name : "");
    /* config: what the PTY target reads (run, policy, terminal), plus the
    ** scenario's own identity, so `scvm info` shows where it came from. */
    bcb_val_begin(b);
    bcb_val_map(b, 4 + (run != NULL) + (pol != NULL) + (steps != NULL));
    bcb_val_key(b, cs(&t, "dialect"));
    bcb_val_str(b, cs(&t, "tui-use"));
    bcb_val_key(b, cs(&t, "scenario_version"));
    bcb_val_int(b, ver && is_int(ver) ? yint(ver) : SCENARIO_VERSION);
    bcb_val_key(b, cs(&t, "metadata"));
    yaml_value_emit(t.b, meta);
    if (run) {
        bcb_val_key(b, cs(&t, "run"));
        bcb_val_map(b, 3 + (cwd != NULL));
        bcb_val_key(b, cs(&t, "command"));
        if (cmd)
            bcb_val_str(b, str_of(&t, cmd));
        else
            bcb_val_null(b);
        bcb_val_key(b, cs(&t, "args"));
        if (args)
            yaml_value_emit(t.b, args);
        else
            bcb_val_array(b, 0);
        if (cwd) {
            bcb_val_key(b, cs(&t, "cwd"));
            yaml_value_emit(t.b, cwd);
        }
        bcb_val_key(b, cs(&t, "initial_size"));
        size_map(&t, "rows", m.term_height, "cols", m.term_width);
    }
    if (pol) {
        bcb_val_key(b, cs(&t, "policy"));
        yaml_value_emit(t.b, pol);
    }
    if (steps) {
        /* as written: scenario.json is the resolved scenario, steps and
        ** all (docs/tui-use.md, "What it compiles to") */
        bcb_val_key(b, cs(&t, "steps"));
        yaml_value_emit(t.b, steps);
    }
    bcb_val_key(b, cs(&t, "terminal"));
    size_map(&t, "width", m.term_width, "height", m.term_height);
    m.config = bcb_val_end(b);
    bcb_set_meta(b, &m);
    return diags->errors == errors_before && !diags_failed(diags);
}
