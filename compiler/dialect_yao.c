/* SPDX-License-Identifier: MIT */
/* dialect_yao.c - Yao agent-test JSON Lines -> bytecode (dialect_yao.h).
**
**   reads      one case per line, as Yao's loader does (types.go: blank and
**              `//` lines skipped, 1 MB a line, pretty-printed JSON refused);
**              each line is parsed by yaml_tree (JSON is YAML), so every
**              node has a column and its line is the file's line
**   checks     a case (id, input, assert, expected, options, timeout,
**              simulator, checkpoints with their `after` order, max_turns)
**              and names what Yao's loader ignores (-Wyao-ignored):
**              `assertions` where it reads `assert`, a checkpoint's
**              `assertion`, tool_called's `name`, static `turns`
**   emits      CASE id standard|dynamic settings, USER_INPUT per input
**              (per turn of a static multi-turn case), one EVAL per
**              assertion (scope case or turn) or checkpoint (scope
**              checkpoint, with id, after and required)
**
** Yao's `contains`, `not_contains` and `regex` are case-sensitive (RE2:
** `(?i)` in the pattern for otherwise): every check says case_sensitive. */
#include "dialect_yao.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "agenttest.h"
#include "formats/agentcheck.h"
#include "yaml_tree.h"
#include "yaml_value.h"
#include "fe_tables.h"

/* The key and value lists this front end checks, shared with the schema
** generator (fe_tables.h, schema.c). */
const char *const YAO_ASSERT_KEYS[] = { "type", "value", "path", "script", "use", "options", "message", "negate", "name", "verdict", "pattern", NULL };
const char *const YAO_CASE_KEYS[] = { "id", "input", "expected", "assert", "assertions", "user", "team", "metadata", "options", "skip", "timeout", "before", "after", "simulator", "checkpoints", "max_turns", "name", "description", "turns", "mode", "interactive", NULL };

enum { MAX_LINE = 1 << 20, MAX_CHECKPOINTS = 200, DEFAULT_MAX_TURNS = 20 };

static const YNode NULL_NODE = { .kind = YN_SCALAR, .type = YT_NULL };

typedef struct Y {
    At at;
    uint32_t n_checks_case;    /* checks of the case being lowered */
    bool multi_line;           /* a case written over several lines was seen (said once) */
} Y;

static uint32_t cs(Y *y, const char *s) { return bcb_cstr(y->at.b, s); }

__attribute__((format(printf, 3, 4)))
static void yao_ignores(Y *y, const YNode *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    at_warn(&y->at, "yao-ignored", at, "%s", msg);
}

/* ---- assertions ---- */

/* The key node of key in map (for a position), else the map. */
static const YNode *key_node(const YNode *map, const char *key)
{
    for (uint32_t i = 0; i < map->n; i++)
        if (yscalar_is(&map->u.pairs[i].key, key))
            return &map->u.pairs[i].key;
    return map;
}


/* One assertion -> one EVAL.  extra: the checkpoint it belongs to (its
** mapping), or NULL. */
static void lower_assert(Y *y, const YNode *a, const char *scope, const YNode *cp, const YNode *at_node)
{
    At *t = &y->at;
    const YNode *typ = NULL;
    const YNode *map = NULL;
    if (at_is_str(a)) {
        typ = a;        /* "contains": the type alone */
    } else if (at_is_map(a)) {
        map = a;
        const char *const *k = YAO_ASSERT_KEYS;
        at_check_keys(t, a, "an assertion", k);
        typ = at_str(t, a, "type", false, "an assertion");
    } else {
        at_err(t, a, "an assertion must be an object or a type name, not %s", ykind_name(a));
        return;
    }
    const char *ty = typ && typ->n ? typ->u.s : "equals";   /* Yao: no type (or "") is equals */
    const YNode *where = typ ? typ : a;
    size_t errors = t->d->errors;
    const YNode *value = map ? ymap_get(map, "value") : NULL;
    AtCheck c;
    if (strcmp(ty, "equals") == 0) {
        at_check_init(&c, "equals", scope);
        at_put_node(&c, "value", value ? value : &NULL_NODE);
    } else if (strcmp(ty, "contains") == 0 || strcmp(ty, "not_contains") == 0) {
        if (!value) {
            at_err(t, where, "a %s assertion needs 'value'", ty);
        } else if (value->kind != YN_SCALAR || value->type == YT_NULL) {
            at_err(t, value, "'value' of a %s assertion must be a string, not %s", ty, ykind_name(value));
        }
        at_check_init(&c, ty, scope);
        if (value && value->kind == YN_SCALAR)
            at_put_str(&c, "value", value->u.s, value->n);   /* a number's text, as Yao compares it */
        at_put_bool(&c, "case_sensitive", true);
    } else if (strcmp(ty, "regex") == 0) {
        const YNode *pat = map ? ymap_get(map, "pattern") : NULL;
        if (!value && pat) {
            yao_ignores(y, key_node(map, "pattern"), "Yao reads a regex assertion's 'value', not '%s': there the "
                                                     "pattern is empty and matches anything; scc checks this one",
                        "pattern");
            value = pat;
        }
        if (!value)
            at_err(t, where, "a regex assertion needs 'value' (the pattern)");
        else if (!at_is_str(value))
            at_err(t, value, "'value' of a regex assertion must be a string, not %s", ykind_name(value));
        else
            at_pattern_ok(t, value, true);
        at_check_init(&c, "regex", scope);
        at_put_node(&c, "pattern", value);
        at_put_bool(&c, "case_sensitive", true);
    } else if (strcmp(ty, "json_path") == 0) {
        const YNode *path = at_str(t, map, "path", true, "a json_path assertion");
        if (!map)
            at_err(t, where, "a json_path assertion needs 'path'");
        at_check_init(&c, "json_path", scope);
        at_put_node(&c, "path", path);
        at_put_node(&c, "value", value ? value : &NULL_NODE);
    } else if (strcmp(ty, "type") == 0) {
        static const char *const types[] = { "string", "number", "boolean", "array", "object", "null", NULL };
        if (!value)
            at_err(t, where, "a type assertion needs 'value'");
        else
            at_enum(t, value, "'value' of a type assertion", types);
        const YNode *path = map ? at_str(t, map, "path", false, "a type assertion") : NULL;
        if (path)
            yao_ignores(y, key_node(map, "path"), "Yao's type assertion has no '%s' (it checks the whole output): "
                                                  "scc checks the value at this path, as the specification does",
                        "path");
        at_check_init(&c, "value_type", scope);
        at_put_node(&c, "value", value);
        at_put_node(&c, "path", path);
    } else if (strcmp(ty, "tool_called") == 0) {
        const YNode *name = map ? ymap_get(map, "name") : NULL;
        if (!value && name) {
            yao_ignores(y, name, "Yao reads a tool_called assertion's 'value', not '%s': there it fails (\"invalid "
                                 "tool_called value type: <nil>\"); scc checks this name",
                        "name");
            value = name;
        }
        if (!value) {
            at_err(t, where, "a tool_called assertion needs 'value': a name, a list of names, or {name, arguments}");
        } else if (at_is_seq(value)) {
            for (uint32_t i = 0; i < value->n; i++)
                if (!at_is_str(&value->u.items[i]))
                    at_err(t, &value->u.items[i], "a tool_called list must hold names, not %s",
                           ykind_name(&value->u.items[i]));
        } else if (at_is_map(value)) {
            static const char *const k[] = { "name", "arguments", NULL };
            at_check_keys(t, value, "tool_called's value", k);
            at_str(t, value, "name", true, "tool_called's value");
        } else if (!at_is_str(value)) {
            at_err(t, value, "a tool_called 'value' must be a name, a list or {name, arguments}, not %s",
                   ykind_name(value));
        }
        at_check_init(&c, "tool_called", scope);
        at_put_node(&c, "value", value);
    } else if (strcmp(ty, "tool_result") == 0) {
        if (!value || !at_is_map(value)) {
            at_err(t, value ? value : where, "a tool_result assertion needs 'value': {tool, result}");
        } else {
            static const char *const k[] = { "tool", "result", NULL };
            at_check_keys(t, value, "tool_result's value", k);
            at_str(t, value, "tool", true, "tool_result's value");
        }
        at_check_init(&c, "tool_result", scope);
        at_put_node(&c, "value", value);
    } else if (strcmp(ty, "script") == 0) {
        /* Yao's runner reads `script` (a process name); the specification
        ** writes `use: "scripts:NAME"`, as for agents */
        const YNode *use = map ? ymap_get(map, "use") : NULL;
        const YNode *sc = map && (ymap_get(map, "script") || !use) ? at_str(t, map, "script", true, "a script assertion")
                                                                    : NULL;
        char *name = NULL;
        if (!sc && at_is_str(use)) {
            if (strncmp(use->u.s, "scripts:", 8) != 0 || !use->u.s[8]) {
                at_err(t, use, "'use' of a script assertion must be 'scripts:NAME', not '%s'", use->u.s);
            } else {
                yao_ignores(y, use, "Yao's runner reads a script assertion's 'script', not '%s': there it fails "
                                    "(no process); scc takes the script's name from it, as the specification "
                                    "writes it",
                            "use");
                name = (char *)use->u.s + 8;
            }
        } else if (!sc && use) {
            at_err(t, use, "'use' of a script assertion must be a string, not %s", ykind_name(use));
        }
        if (!map)
            at_err(t, where, "a script assertion needs 'script' (a process name) or 'use' (\"scripts:NAME\")");
        at_check_init(&c, "script", scope);
        if (name)
            at_put_str(&c, "script", name, strlen(name));
        else
            at_put_node(&c, "script", sc);
        at_put_node(&c, "value", value);
        at_put_node(&c, "options", at_map(t, map, "options", false, "a script assertion"));
    } else if (strcmp(ty, "agent") == 0) {
        const YNode *use = at_str(t, map, "use", true, "an agent assertion");
        if (!map)
            at_err(t, where, "an agent assertion needs 'use' (\"agents:<id>\")");
        if (use && strncmp(use->u.s, "agents:", 7) != 0)
            at_err(t, use, "'use' of an agent assertion must start with 'agents:' (Yao refuses '%s')", use->u.s);
        at_check_init(&c, "agent", scope);
        at_put_node(&c, "use", use);
        at_put_node(&c, "value", value);
        at_put_node(&c, "options", at_map(t, map, "options", false, "an agent assertion"));
        /* an scc extension (Yao ignores unknown keys): the validator's
        ** {passed, reason} written in, instead of a tape's */
        at_put_node(&c, "verdict", at_map(t, map, "verdict", false, "an agent assertion"));
    } else if (strcmp(ty, "schema") == 0) {
        at_err(t, where, "Yao has no 'schema' assertion (documented, never implemented: it fails with \"unknown "
                         "assertion type: schema\")");
        return;
    } else {
        at_unknown_type(t, where, ty, AC_YAO, "assertion type", "Yao");
        return;
    }
    if (map) {
        at_put_node(&c, "message", at_str(t, map, "message", false, "an assertion"));
        at_put_node(&c, "negate", at_bool(t, map, "negate", "an assertion"));
    }
    if (cp) {
        const YNode *id = ymap_get(cp, "id"), *after = ymap_get(cp, "after"), *req = ymap_get(cp, "required");
        at_put_node(&c, "id", id);
        at_put_node(&c, "after", after);
        at_put_bool(&c, "required", !req || !at_is_bool(req) || ybool(req));
        at_put_node(&c, "description", at_is_str(ymap_get(cp, "description")) ? ymap_get(cp, "description") : NULL);
    }
    if (t->d->errors == errors) {
        at_emit_eval(t, &c, at_node ? at_node : a);
        y->n_checks_case++;
    }
}


/* `assert` (an assertion, a list, or a type name), or the doc-only
** `assertions` alias. */
static void lower_asserts(Y *y, const YNode *obj, const char *scope, const char *what)
{
    const YNode *as = ymap_get(obj, "assert"), *alias = ymap_get(obj, "assertions");
    if (alias && as) {
        yao_ignores(y, key_node(obj, "assertions"), "'assertions' is ignored: Yao reads 'assert', which %s has too",
                    what);
        alias = NULL;
    } else if (alias) {
        yao_ignores(y, key_node(obj, "assertions"), "Yao's loader reads 'assert', not '%s': Yao ignores these assertions (the case passes "
                            "there with no checks); scc checks them",
                    "assertions");
        as = alias;
    }
    if (!as || at_is_null(as))
        return;
    if (at_is_seq(as)) {
        for (uint32_t i = 0; i < as->n; i++)
            lower_assert(y, &as->u.items[i], scope, NULL, NULL);
    } else {
        lower_assert(y, as, scope, NULL, NULL);
    }
}

/* ---- input ---- */

static const char *const ROLES[] = { "user", "assistant", "system", "tool", "developer", NULL };
static const char *const PARTS[] = { "text", "image", "image_url", "audio", "input_audio", "file", "data", NULL };

static void check_parts(Y *y, const YNode *content)
{
    At *t = &y->at;
    for (uint32_t i = 0; i < content->n; i++) {
        const YNode *p = &content->u.items[i];
        if (!at_is_map(p)) {
            at_err(t, p, "a content part must be an object with a 'type', not %s", ykind_name(p));
            continue;
        }
        const YNode *ty = at_str(t, p, "type", true, "a content part");
        if (ty && at_enum(t, ty, "'type' of a content part", PARTS) && strcmp(ty->u.s, "text") == 0)
            at_str(t, p, "text", true, "a text part");
    }
}

static bool check_message(Y *y, const YNode *m)
{
    At *t = &y->at;
    size_t errors = t->d->errors;
    if (!at_is_map(m)) {
        at_err(t, m, "a message must be an object with 'role' and 'content', not %s", ykind_name(m));
        return false;
    }
    static const char *const k[] = { "role", "content", "name", "tool_calls", "tool_call_id", NULL };
    at_check_keys(t, m, "a message", k);
    const YNode *role = at_str(t, m, "role", true, "a message");
    if (role)
        at_enum(t, role, "'role' of a message", ROLES);
    const YNode *content = at_req(t, m, "content", "a message");
    if (content && at_is_seq(content))
        check_parts(y, content);
    else if (content && !at_is_str(content) && !at_is_null(content))
        at_err(t, content, "'content' must be a string or a list of parts, not %s", ykind_name(content));
    return t->d->errors == errors;
}

/* The text of a message's content: the string, or its first text part. */
static const YNode *content_text(const YNode *m)
{
    const YNode *c = ymap_get(m, "content");
    if (at_is_str(c))
        return c;
    for (uint32_t i = 0; at_is_seq(c) && i < c->n; i++)
        if (yscalar_is(ymap_get(&c->u.items[i], "type"), "text") && at_is_str(ymap_get(&c->u.items[i], "text")))
            return ymap_get(&c->u.items[i], "text");
    return NULL;
}

/* Checks an input (a string, a message, or a list of messages) and
** returns the node of the text the user sends: the string, or the last
** user message's text.  NULL after an error. */
static const YNode *check_input(Y *y, const YNode *in, bool *ok)
{
    At *t = &y->at;
    *ok = true;
    if (at_is_str(in))
        return in;
    if (at_is_map(in)) {
        *ok = check_message(y, in);
        return *ok ? content_text(in) : NULL;
    }
    if (at_is_seq(in)) {
        if (in->n == 0) {
            at_err(t, in, "'input' is an empty list of messages");
            *ok = false;
            return NULL;
        }
        const YNode *text = NULL;
        for (uint32_t i = 0; i < in->n; i++) {
            if (!check_message(y, &in->u.items[i])) {
                *ok = false;
                continue;
            }
            if (yscalar_is(ymap_get(&in->u.items[i], "role"), "user"))
                text = content_text(&in->u.items[i]);
        }
        return text;
    }
    at_err(t, in, "'input' must be a string, a message or a list of messages, not %s", ykind_name(in));
    *ok = false;
    return NULL;
}

/* ---- durations ---- */

/* A Go duration ("30s", "2m30s", "1h", "500ms", "1.5s") in ms; false when
** it does not parse (Yao then uses its default). */
static bool go_duration_ms(const char *s, int64_t *ms)
{
    double total = 0;
    if (!*s)
        return false;
    while (*s) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || v < 0)
            return false;
        s = end;
        double unit;
        if (strncmp(s, "ms", 2) == 0)
            unit = 1, s += 2;
        else if (strncmp(s, "us", 2) == 0)
            unit = 0.001, s += 2;
        else if (strncmp(s, "ns", 2) == 0)
            unit = 0.000001, s += 2;
        else if (*s == 'h')
            unit = 3600000, s++;
        else if (*s == 'm')
            unit = 60000, s++;
        else if (*s == 's')
            unit = 1000, s++;
        else
            return false;
        total += v * unit;
        if (total > 1e15)
            return false;
    }
    *ms = (int64_t)total;
    return true;
}

/* ---- checkpoints ---- */

/* Checks ids, `after` references and order: a checkpoint whose `after`
** chain loops can never be reached. */
/* A checkpoint's `after`: a list of ids, or one id on its own (a string,
** which at_strs accepts too): how many, and the k-th. */
static uint32_t after_n(const YNode *after)
{
    return !after ? 0 : after->kind == YN_SEQ ? after->n : 1;
}

static const YNode *after_at(const YNode *after, uint32_t k)
{
    return after->kind == YN_SEQ ? &after->u.items[k] : after;
}

static bool check_checkpoints(Y *y, const YNode *cps)
{
    At *t = &y->at;
    size_t errors = t->d->errors;
    uint32_t n = cps->n;
    if (n > MAX_CHECKPOINTS) {
        at_err(t, cps, "more than %d checkpoints", MAX_CHECKPOINTS);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        const YNode *cp = &cps->u.items[i];
        if (!at_is_map(cp)) {
            at_err(t, cp, "a checkpoint must be an object with 'id' and 'assert', not %s", ykind_name(cp));
            continue;
        }
        static const char *const k[] = { "id", "description", "assert", "assertion", "after", "required", NULL };
        at_check_keys(t, cp, "a checkpoint", k);
        const YNode *id = at_str(t, cp, "id", true, "a checkpoint");
        at_str(t, cp, "description", false, "a checkpoint");
        at_bool(t, cp, "required", "a checkpoint");
        at_strs(t, cp, "after", false, 0, "a checkpoint");
        if (!ymap_get(cp, "assert") && !ymap_get(cp, "assertion"))
            at_err(t, cp, "a checkpoint needs 'assert' (without one Yao marks it reached at once)");
        for (uint32_t j = 0; id && j < i; j++) {
            const YNode *o = ymap_get(&cps->u.items[j], "id");
            if (at_is_str(o) && o->n == id->n && memcmp(o->u.s, id->u.s, id->n) == 0) {
                at_err(t, id, "duplicate checkpoint id '%s'", id->u.s);
                at_note(t, o, "first used here");
                break;
            }
        }
    }
    if (t->d->errors != errors)
        return false;
    /* `after` ids: unknown ones are ignored by Yao; a cycle never ends.
    ** Each id is looked up once (dep: its checkpoint's index, or -1);
    ** then passes mark what can be reached, at most n of them, each linear
    ** in the `after` entries (at most 200 checkpoints: bounded work on a
    ** hostile file). */
    size_t n_dep = 0;
    for (uint32_t i = 0; i < n; i++) {
        const YNode *after = ymap_get(&cps->u.items[i], "after");
        n_dep += after_n(after);
    }
    bool *reach = sc_calloc(n ? n : 1, sizeof *reach);
    int32_t *dep = sc_calloc(n_dep ? n_dep : 1, sizeof *dep);
    if (!reach || !dep) {
        sc_free(reach);
        sc_free(dep);
        at_err(t, cps, "out of memory");
        return false;
    }
    size_t q = 0;
    for (uint32_t i = 0; i < n; i++) {
        const YNode *after = ymap_get(&cps->u.items[i], "after");
        for (uint32_t k = 0; k < after_n(after); k++, q++) {
            const YNode *ak = after_at(after, k);
            dep[q] = -1;
            for (uint32_t j = 0; j < n && dep[q] < 0; j++) {
                const YNode *id = ymap_get(&cps->u.items[j], "id");
                if (at_is_str(id) && at_is_str(ak) && id->n == ak->n && memcmp(id->u.s, ak->u.s, id->n) == 0)
                    dep[q] = (int32_t)j;
            }
            if (dep[q] < 0)
                yao_ignores(y, ak, "'after' names no checkpoint '%s': Yao ignores unknown ids here", ak->u.s);
        }
    }
    for (bool changed = true; changed;) {
        changed = false;
        q = 0;
        for (uint32_t i = 0; i < n; i++) {
            const YNode *after = ymap_get(&cps->u.items[i], "after");
            uint32_t na = after_n(after);
            bool ok = !reach[i];
            for (uint32_t k = 0; k < na && ok; k++)
                ok = dep[q + k] < 0 || reach[dep[q + k]];
            q += na;
            if (ok)
                reach[i] = changed = true;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (!reach[i])
            at_err(t, ymap_get(&cps->u.items[i], "after"), "checkpoint '%s' can never be reached: its 'after' ids "
                                                           "wait on each other",
                   ymap_get(&cps->u.items[i], "id")->u.s);
    sc_free(dep);
    sc_free(reach);
    return t->d->errors == errors;
}

/* ---- cases ---- */

typedef struct Kv {
    const char *key;
    const YNode *node;       /* verbatim, or NULL for i */
    int64_t i;
} Kv;

typedef struct Id {
    const YNode *n;
    uint32_t line_offset;      /* of the line it is on */
} Id;

static void lower_case(Y *y, const YNode *c, Id *ids, uint32_t *n_ids)
{
    At *t = &y->at;
    const char *W = "a case";
    const char *const *k = YAO_CASE_KEYS;
    if (!at_is_map(c)) {
        at_err(t, c, "a case must be a JSON object, not %s", ykind_name(c));
        return;
    }
    size_t errors = t->d->errors;
    at_check_keys(t, c, W, k);
    const YNode *id = at_str(t, c, "id", true, W);
    if (id && id->n == 0) {
        at_err(t, id, "a case's 'id' must not be empty");
        id = NULL;
    }
    for (uint32_t i = 0; id && i < *n_ids; i++) {
        if (ids[i].n->n == id->n && memcmp(ids[i].n->u.s, id->u.s, id->n) == 0) {
            at_err(t, id, "duplicate case id '%s'", id->u.s);
            diag_note(t->d, t->file, ids[i].n->line + ids[i].line_offset, ids[i].n->col, "first used here");
            break;
        }
    }
    if (id)
        ids[(*n_ids)++] = (Id){ id, t->line_offset };
    const YNode *turns = ymap_get(c, "turns");
    const YNode *input = ymap_get(c, "input");
    const YNode *text = NULL;
    bool in_ok = true;
    if (turns) {
        yao_ignores(y, key_node(c, "turns"), "Yao never implemented static '%s' (it reads a conversation's history from 'input'): "
                            "this case does not load there; scc plays the turns in order",
                    "turns");
        if (!at_is_seq(turns) || turns->n == 0) {
            at_err(t, turns, "'turns' must be a non-empty list of {input, assert}");
            turns = NULL;
        }
        if (input)
            at_err(t, input, "a case has either 'input' or 'turns', not both");
        const YNode *sim0 = ymap_get(c, "simulator"), *cps0 = ymap_get(c, "checkpoints");
        if (sim0 || cps0)
            at_err(t, sim0 ? sim0 : cps0, "a case has either static 'turns' or a simulator and checkpoints "
                                          "(dynamic), not both (the specification's \"choose one\")");
    } else if ((!input || at_is_null(input)) && at_is_map(ymap_get(c, "simulator")) &&
               at_is_seq(ymap_get(c, "checkpoints")) && ymap_get(c, "checkpoints")->n > 0) {
        /* dynamic: the simulator makes every input, the first too */
        yao_ignores(y, input ? input : key_node(c, "simulator"),
                    "Yao's loader requires 'input' even in a dynamic case: this case does not load there; scc asks "
                    "the simulator for the first message too, as the specification says");
        input = NULL;
    } else if (!input || at_is_null(input)) {
        at_err(t, input ? input : c, "a case needs a non-null 'input' (required by Yao)");
    } else {
        text = check_input(y, input, &in_ok);
    }
    const YNode *mode = at_str(t, c, "mode", false, W);
    if (mode && !turns)
        yao_ignores(y, mode, "Yao ignores '%s': a case is dynamic when it has a simulator and checkpoints", "mode");
    const YNode *opts = at_map(t, c, "options", false, W);
    if (opts) {
        static const char *const ok[] = { "connector", "skip", "disable_global_prompts", "search", "mode", "metadata",
                                          NULL };
        at_check_keys(t, opts, "options", ok);
        at_str(t, opts, "connector", false, "options");
        at_map(t, opts, "skip", false, "options");
        at_bool(t, opts, "disable_global_prompts", "options");
        at_str(t, opts, "mode", false, "options");
        at_map(t, opts, "metadata", false, "options");
    }
    const YNode *inter = at_map(t, c, "interactive", false, W);
    if (inter) {
        static const char *const ik[] = { "enabled", "timeout", NULL };
        at_check_keys(t, inter, "interactive", ik);
        at_bool(t, inter, "enabled", "interactive");
        const YNode *it = at_str(t, inter, "timeout", false, "interactive");
        int64_t ims;
        if (it && !go_duration_ms(it->u.s, &ims))
            at_err(t, it, "'%s' is not a Go duration (\"30s\", \"5m\")", it->u.s);
        yao_ignores(y, key_node(c, "interactive"), "Yao never implemented '%s' (the specification's human input): "
                                                    "scc keeps it for scvm run -t aut --interactive",
                    "interactive");
    }
    const YNode *skip = at_bool(t, c, "skip", W);
    const YNode *timeout = at_str(t, c, "timeout", false, W);
    int64_t timeout_ms = -1;
    if (timeout && !go_duration_ms(timeout->u.s, &timeout_ms)) {
        yao_ignores(y, timeout, "'%s' is not a Go duration (\"30s\", \"2m30s\"): Yao uses its default timeout",
                    timeout->u.s);
        timeout_ms = -1;
    }
    at_str(t, c, "before", false, W);
    at_str(t, c, "after", false, W);
    at_str(t, c, "user", false, W);
    at_str(t, c, "team", false, W);
    at_map(t, c, "metadata", false, W);
    const YNode *sim = at_map(t, c, "simulator", false, W);
    if (sim) {
        static const char *const sk[] = { "use", "options", "script", NULL };
        at_check_keys(t, sim, "simulator", sk);
        if (!at_str(t, sim, "use", false, "simulator"))
            yao_ignores(y, sim, "a simulator without '%s' does not run in Yao; scvm run -t aut asks the one "
                                "--simulator names (the specification's default simulator)", "use");
        const YNode *so = at_map(t, sim, "options", false, "simulator");
        if (so) {
            static const char *const sok[] = { "metadata", "connector", NULL };
            at_check_keys(t, so, "simulator options", sok);
            at_map(t, so, "metadata", false, "simulator options");
            at_str(t, so, "connector", false, "simulator options");
        }
        /* an scc extension: the simulator's turns written in, each a message
        ** or {message, goal_achieved} */
        const YNode *scr = ymap_get(sim, "script");
        if (scr && !at_is_seq(scr))
            at_err(t, scr, "a simulator 'script' is a list of messages, not %s", ykind_name(scr));
        for (uint32_t i = 0; scr && at_is_seq(scr) && i < scr->n; i++) {
            const YNode *m = &scr->u.items[i];
            if (!at_is_str(m) && !(at_is_map(m) && at_is_str(ymap_get(m, "message"))))
                at_err(t, m, "a simulator script's turn is a message or {message, goal_achieved}, not %s",
                       ykind_name(m));
        }
    }
    const YNode *cps = ymap_get(c, "checkpoints");
    if (cps && !at_is_seq(cps)) {
        at_err(t, cps, "'checkpoints' must be a list, not %s", ykind_name(cps));
        cps = NULL;
    }
    const YNode *max_turns = at_int(t, c, "max_turns", false, 1, 1000, W);
    bool dynamic = sim && cps && cps->n > 0;
    if (sim && !dynamic)
        yao_ignores(y, sim, "a %s without checkpoints is ignored: Yao runs this case as a standard one",
                    "simulator");
    if (cps && cps->n && !sim)
        yao_ignores(y, cps, "%s without a simulator are ignored: Yao runs this case as a standard one",
                    "checkpoints");
    if (cps && cps->n && sim)
        check_checkpoints(y, cps);
    if (t->d->errors != errors || !in_ok || !id) {
        /* nothing to emit; still check the assertions, for every error at once */
        t->check_only = true;
        lower_asserts(y, c, "case", "this case");
        t->check_only = false;
        return;
    }

    /* CASE settings: what the target needs, defaults written out */
    Kv kv[16];
    int n = 0;
    kv[n++] = (Kv){ "input", turns ? NULL : input, 0 };
    const char *copy[] = { "name", "user", "team", "metadata", "options", "before", "after", "interactive", NULL };
    for (size_t i = 0; copy[i]; i++)
        if (ymap_get(c, copy[i]))
            kv[n++] = (Kv){ copy[i], ymap_get(c, copy[i]), 0 };
    kv[n++] = (Kv){ "skip", skip ? skip : NULL, skip && ybool(skip) };
    if (timeout_ms >= 0)
        kv[n++] = (Kv){ "timeout_ms", NULL, timeout_ms };
    if (dynamic) {
        kv[n++] = (Kv){ "simulator", sim, 0 };
        kv[n++] = (Kv){ "max_turns", NULL, max_turns ? yint(max_turns) : DEFAULT_MAX_TURNS };
    }
    BcBuilder *b = t->b;
    bcb_val_begin(b);
    bcb_val_map(b, (uint32_t)n);
    for (int i = 0; i < n; i++) {
        bcb_val_key(b, cs(y, kv[i].key));
        if (strcmp(kv[i].key, "skip") == 0)
            bcb_val_bool(b, kv[i].i != 0);
        else if (kv[i].node)
            yaml_value_emit(b, kv[i].node);
        else if (strcmp(kv[i].key, "input") == 0)
            bcb_val_null(b);
        else
            bcb_val_int(b, kv[i].i);
    }
    uint32_t settings = bcb_val_end(b);
    at_emit_case(t, id->u.s, id->n, dynamic ? "dynamic" : "standard", settings, c);
    y->n_checks_case = 0;

    if (turns) {
        for (uint32_t i = 0; i < turns->n; i++) {
            const YNode *tn = &turns->u.items[i];
            if (!at_is_map(tn)) {
                at_err(t, tn, "a turn must be an object with 'input', not %s", ykind_name(tn));
                continue;
            }
            static const char *const tk[] = { "input", "assert", "assertions", "attachments", "options", NULL };
            at_check_keys(t, tn, "a turn", tk);
            const YNode *topts = at_map(t, tn, "options", false, "a turn");
            if (topts) {
                static const char *const ok[] = { "connector", "skip", "disable_global_prompts", "search", "mode",
                                                  "metadata", NULL };
                at_check_keys(t, topts, "a turn's options", ok);
                at_str(t, topts, "connector", false, "a turn's options");
                at_map(t, topts, "skip", false, "a turn's options");
                at_map(t, topts, "metadata", false, "a turn's options");
            }
            const YNode *ti = at_req(t, tn, "input", "a turn");
            bool ok = true;
            const YNode *tt = ti ? check_input(y, ti, &ok) : NULL;
            const YNode *att = ymap_get(tn, "attachments");
            if (att && !at_is_seq(att)) {
                at_err(t, att, "'attachments' must be a list of parts, not %s", ykind_name(att));
                att = NULL;
            } else if (att) {
                check_parts(y, att);
            }
            if (!ti || !ok)
                continue;
            bcb_val_begin(b);
            yaml_value_emit(b, ti);
            uint32_t iv = bcb_val_end(b);
            uint32_t extras = bcb_null(b);
            if (att || topts) {
                bcb_val_begin(b);
                bcb_val_map(b, (att != NULL) + (topts != NULL));
                if (att) {
                    bcb_val_key(b, cs(y, "attachments"));
                    yaml_value_emit(b, att);
                }
                if (topts) {
                    bcb_val_key(b, cs(y, "options"));
                    yaml_value_emit(b, topts);
                }
                extras = bcb_val_end(b);
            }
            at_emit_input(t, tt ? tt->u.s : "", tt ? tt->n : 0, iv, extras, ti);
            lower_asserts(y, tn, "turn", "this turn");
        }
    } else if (input) {     /* a dynamic case without one: the simulator's first message */
        bcb_val_begin(b);
        yaml_value_emit(b, input);
        uint32_t iv = bcb_val_end(b);
        at_emit_input(t, text ? text->u.s : "", text ? text->n : 0, iv, bcb_null(b), input);
    }
    if (dynamic) {
        for (uint32_t i = 0; i < cps->n; i++) {
            const YNode *cp = &cps->u.items[i];
            const YNode *as = ymap_get(cp, "assert");
            if (!as) {
                as = ymap_get(cp, "assertion");
                yao_ignores(y, as, "Yao reads a checkpoint's 'assert', not '%s': it ignores this one and marks the "
                                   "checkpoint reached at once; scc checks it",
                            "assertion");
            }
            if (at_is_seq(as)) {
                at_err(t, as, "a checkpoint's 'assert' is one assertion, not a list");
                continue;
            }
            lower_assert(y, as, "checkpoint", cp, cp);
        }
    }
    lower_asserts(y, c, "case", "this case");
    const YNode *expected = ymap_get(c, "expected");
    if (expected && !ymap_get(c, "assert") && !ymap_get(c, "assertions")) {
        AtCheck ck;
        at_check_init(&ck, "equals", "case");
        at_put_node(&ck, "value", expected);
        at_emit_eval(t, &ck, expected);
        y->n_checks_case++;
    }
    if (y->n_checks_case == 0)
        at_warn(t, "empty-case", id, "case '%s' checks nothing: Yao passes it whatever the agent answers", id->u.s);
}

/* ---- the file: a stream of JSON objects ---- */

/* Blanks and `//` comment lines from s[*i]; counts lines. */
static void skip_blank(const char *s, size_t len, size_t *i, size_t *line, size_t *line_start)
{
    while (*i < len) {
        char c = s[*i];
        if (c == '\n') {
            (*i)++;
            (*line)++;
            *line_start = *i;
        } else if (c == ' ' || c == '\t' || c == '\r') {
            (*i)++;
        } else if (c == '/' && *i + 1 < len && s[*i + 1] == '/') {
            while (*i < len && s[*i] != '\n')
                (*i)++;
        } else {
            break;
        }
    }
}

/* The end (one past its '}') of the JSON object at s[a] == '{', strings
** and their escapes stepped over; lines counted; 0 when it never closes. */
static size_t object_end(const char *s, size_t len, size_t a, size_t *lines)
{
    size_t depth = 0;
    bool str = false;
    for (size_t i = a; i < len; i++) {
        char c = s[i];
        if (c == '\n')
            (*lines)++;
        if (str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
    return 0;
}

/* Whether the object s[a, e) has the top-level key k (a key: a string at
** depth 1 followed by ':'). */
static bool top_key(const char *s, size_t a, size_t e, const char *k)
{
    size_t kl = strlen(k), depth = 0;
    for (size_t i = a; i < e; i++) {
        char c = s[i];
        if (c == '"') {
            size_t q = i + 1;
            while (q < e && s[q] != '"')
                q += s[q] == '\\' ? 2 : 1;
            if (q >= e)
                return false;
            if (depth == 1 && q - i - 1 == kl && memcmp(s + i + 1, k, kl) == 0) {
                size_t r = q + 1;
                while (r < e && (s[r] == ' ' || s[r] == '\t' || s[r] == '\r' || s[r] == '\n'))
                    r++;
                if (r < e && s[r] == ':')
                    return true;
            }
            i = q;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return false;
}

/* Yao's case keys that no other dialect's top level has with an "id"
** (Scenario-Format's has "timeline", tui-use's "steps" and "run", an
** ElizaOS scenario's "run"). */
static const char *const CASE_MARKS[] = { "input", "turns", "simulator", "checkpoints", "assert", "assertions",
                                          "expected", NULL };
static const char *const NOT_YAO[] = { "timeline", "steps", "run", "protocol_version", "scenario_version", NULL };

bool yao_detect(const char *s, size_t len)
{
    /* by content: the first JSON object (on one line or several) is a
    ** case: an "id" and a key only a case has, at its top level */
    size_t i = 0, line = 1, ls = 0;
    skip_blank(s, len, &i, &line, &ls);
    if (i >= len || s[i] != '{')
        return false;
    size_t lines = 0, e = object_end(s, len, i, &lines);
    if (!e || !top_key(s, i, e, "id"))
        return false;
    for (size_t k = 0; NOT_YAO[k]; k++)
        if (top_key(s, i, e, NOT_YAO[k]))
            return false;
    for (size_t k = 0; CASE_MARKS[k]; k++)
        if (top_key(s, i, e, CASE_MARKS[k]))
            return true;
    return false;
}

bool yao_detect_tree(const YDoc *doc)
{
    const YNode *r = doc->root;
    if (!r || r->kind != YN_MAP || !ymap_get(r, "id"))
        return false;
    for (size_t k = 0; NOT_YAO[k]; k++)
        if (ymap_get(r, NOT_YAO[k]))
            return false;
    for (size_t k = 0; CASE_MARKS[k]; k++)
        if (ymap_get(r, CASE_MARKS[k]))
            return true;
    return false;
}

bool yao_lower(const char *src, size_t len, const char *file, const char *source_name, Arena *arena, BcBuilder *b,
               Diags *diags)
{
    Y y = { .at = { .b = b, .d = diags, .file = file, .dialect = "Yao", .compat = "yao-ignored" } };
    At *t = &y.at;
    size_t errors_before = diags->errors;
    Id *ids = NULL;            /* the case ids so far, grown as cases come */
    uint32_t n_ids = 0, cap_ids = 0, n_cases = 0;
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < len && !diags->truncated;) {
        /* a stream of JSON objects: one a line as Yao's loader reads them,
        ** or written over several lines as its docs and the specification
        ** write them; blanks and `//` lines between them */
        skip_blank(src, len, &i, &line, &line_start);
        if (i >= len)
            break;
        uint32_t col = (uint32_t)(i - line_start + 1);
        if (src[i] != '{') {
            /* not JSON at all (a YAML file given --dialect=yao): one error,
            ** not one a line */
            diag_error(diags, file, (unsigned)line, col, "expected a JSON object ('{'): a Yao test file is a "
                                                         "stream of cases, each a JSON object");
            diag_note(diags, file, (unsigned)line, col, "each case one JSON object, on one line (as Yao's loader "
                                                        "reads them) or over several");
            break;
        }
        size_t lines = 0, e = object_end(src, len, i, &lines);
        if (!e) {
            diag_error(diags, file, (unsigned)line, col, "this JSON object is never closed (no matching '}')");
            break;
        }
        if (e - i > MAX_LINE) {
            diag_error(diags, file, (unsigned)line, col, "a case longer than 1 MB (Yao's limit for one line)");
        } else {
            /* the object alone, parsed where its lines and columns stay
            ** the file's: what is before it on its first line (the end of
            ** another object) blanked */
            size_t pre = i - line_start;
            char *one = sc_malloc(pre + (e - i) + 1);
            if (!one) {
                diag_error(diags, file, (unsigned)line, col, "out of memory");
                break;
            }
            memset(one, ' ', pre);
            memcpy(one + pre, src + i, e - i);
            one[pre + (e - i)] = 0;
            Diags tmp;
            diags_init(&tmp);
            YDoc doc;
            bool ok = yaml_parse(one, pre + (e - i), file, arena, &tmp, &doc);
            for (size_t k = 0; k < tmp.n; k++) {
                const Diag *dg = &tmp.v[k];
                diag_add(diags, dg->level, file, dg->line ? dg->line + (unsigned)line - 1 : (unsigned)line, dg->col,
                         dg->flag, "%s", dg->msg);
            }
            if (tmp.oom)
                diag_error(diags, file, (unsigned)line, col, "out of memory");
            diags_fini(&tmp);
            sc_free(one);
            if (ok && n_ids == cap_ids) {
                uint32_t nc = cap_ids ? cap_ids * 2 : 64;
                Id *ni = sc_realloc(ids, nc * sizeof *ni);
                if (!ni) {
                    diag_error(diags, file, (unsigned)line, col, "out of memory");
                    break;
                }
                ids = ni;
                cap_ids = nc;
            }
            if (ok) {
                t->line_offset = (uint32_t)line - 1;
                if (lines && !y.multi_line && at_is_map(doc.root)) {
                    y.multi_line = true;    /* said once a file */
                    yao_ignores(&y, doc.root, "Yao's loader reads one case per line: this case, written over %zu "
                                              "lines, does not load there (nor do the file's other such cases); "
                                              "scc reads them as the specification writes them", lines + 1);
                }
                lower_case(&y, doc.root, ids, &n_ids);
                n_cases++;
            }
        }
        line += lines;
        for (size_t k = e; k > i; k--)
            if (src[k - 1] == '\n') {
                line_start = k;
                break;
            }
        i = e;
    }
    sc_free(ids);
    t->line_offset = 0;
    if (n_cases == 0 && diags->errors == errors_before)
        diag_error(diags, file, 1, 1, "no cases: a Yao test file holds JSON objects, one case each");

    const char *base = source_name ? source_name : "";
    size_t bl = strlen(base);
    const char *dot = strrchr(base, '.');
    size_t nl = dot && dot != base ? (size_t)(dot - base) : bl;
    if (!bc_text_ok(base, nl))   /* the scenario is named after its file: shown and matched */
        diag_error(diags, file, 1, 1, "the file's name has a control character or is not UTF-8 "
                                      "(a Yao test file's scenario takes its name from it)");
    yao_set_meta(b, base, nl, base, n_cases);
    return diags->errors == errors_before && !diags_failed(diags);
}

void yao_set_meta(BcBuilder *b, const char *name, size_t nl, const char *source, int64_t n_cases)
{
    BcMeta m = { 0 };
    m.name = bcb_str(b, name, nl);
    m.source = bcb_cstr(b, source);
    m.prompt = bcb_null(b);
    m.tags = bcb_empty_array(b);
    m.defines = bcb_empty_map(b);
    bcb_val_begin(b);
    bcb_val_map(b, 2);
    bcb_val_key(b, bcb_cstr(b, "dialect"));
    bcb_val_str(b, bcb_cstr(b, "yao"));
    bcb_val_key(b, bcb_cstr(b, "cases"));
    bcb_val_int(b, n_cases);
    m.config = bcb_val_end(b);
    bcb_set_meta(b, &m);
}
