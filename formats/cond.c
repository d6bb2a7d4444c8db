/* SPDX-License-Identifier: MIT */
/* cond.c - the wait/check condition language (cond.h). */
#include "cond.h"

#include <stdio.h>
#include <string.h>

/* Names from ptybox (the tool that implements the tui-use data model) and
** its JSON schema (line_starts_with, line_ends_with); wait conditions and
** assertions share one table: every condition works in both places.
** Ours: screen_stable and alternate_screen. */
static const struct {
    const char *name;
    CondKind kind;
    const char *needs;      /* payload fields it requires (cond.h, cond_lookup) */
    const char *optional;   /* and those it may have */
} COND[] = {
    { "screen_contains", COND_CONTAINS, "t", "" },
    { "not_contains", COND_NOT_CONTAINS, "t", "" },
    { "screen_matches", COND_MATCHES, "p", "" },
    { "regex_match", COND_MATCHES, "p", "" },
    { "cursor_at", COND_CURSOR_AT, "r", "" },
    { "line_equals", COND_LINE_EQUALS, "lt", "" },
    { "line_contains", COND_LINE_CONTAINS, "lt", "" },
    { "line_starts_with", COND_LINE_STARTS, "lt", "" },
    { "line_ends_with", COND_LINE_ENDS, "lt", "" },
    { "line_matches", COND_LINE_MATCHES, "lp", "" },
    { "screen_empty", COND_SCREEN_EMPTY, "", "" },
    { "cursor_visible", COND_CURSOR_VISIBLE, "", "" },
    { "cursor_hidden", COND_CURSOR_HIDDEN, "", "" },
    { "process_exited", COND_EXITED, "", "" },
    { "exit_code", COND_EXIT_CODE, "c", "" },
    { "screen_stable", COND_STABLE, "", "m" },
    { "alternate_screen", COND_ALT_SCREEN, "", "o" },
};
enum { N_COND = sizeof COND / sizeof COND[0] };

static int find(const char *name)
{
    for (int k = 0; k < N_COND; k++)
        if (strcmp(COND[k].name, name) == 0)
            return k;
    return -1;
}

bool cond_lookup(const char *name, const char **needs, const char **optional)
{
    int k = find(name);
    if (k < 0)
        return false;
    *needs = COND[k].needs;
    *optional = COND[k].optional;
    return true;
}

bool cond_kind(const char *name, CondKind *kind)
{
    int k = find(name);
    if (k < 0)
        return false;
    *kind = COND[k].kind;
    return true;
}

const char *cond_name(size_t i)
{
    return i < N_COND ? COND[i].name : NULL;
}

/* m[key], when m is a map holding a non-null key. */
static bool get(const BcProgram *p, const BcVal *m, const char *key, BcVal *out)
{
    return m->tag == BC_V_MAP && bc_val_get(p, m, key, out) && out->tag != BC_V_NULL;
}

static const char *get_str(const BcProgram *p, const BcVal *m, const char *key, size_t *len)
{
    BcVal v;
    if (!get(p, m, key, &v) || v.tag != BC_V_STR)
        return NULL;
    *len = p->str[v.n].len;
    return p->str[v.n].s;
}

/* An integer, or a float with an integer value. */
static bool get_int(const BcProgram *p, const BcVal *m, const char *key, int64_t *out)
{
    BcVal v;
    if (!get(p, m, key, &v))
        return false;
    if (v.tag == BC_V_INT) {
        *out = v.i;
        return true;
    }
    if (v.tag == BC_V_FLOAT && v.f >= -9.2e18 && v.f <= 9.2e18 && v.f == (double)(int64_t)v.f) {
        *out = (int64_t)v.f;
        return true;
    }
    return false;
}

bool cond_parse(const BcProgram *p, const BcVal *v, Cond *c, char *msg, size_t n)
{
    memset(c, 0, sizeof *c);
    size_t tl;
    const char *type = get_str(p, v, "type", &tl);
    if (!type) {
        snprintf(msg, n, "a condition needs a 'type'");
        return false;
    }
    c->type = type;
    int k = find(type);
    if (k < 0) {
        snprintf(msg, n, "unknown condition type '%.100s'", type);
        return false;
    }
    c->kind = COND[k].kind;
    c->ms = 200;            /* screen_stable's default quiet period */
    BcVal pl, none = { .tag = BC_V_MAP };
    if (!get(p, v, "payload", &pl))
        pl = none;
    char fields[16];
    snprintf(fields, sizeof fields, "%s%s", COND[k].needs, COND[k].optional);
    for (const char *f = fields; *f; f++) {
        bool ok = true;
        switch (*f) {
        case 't':
            c->text = get_str(p, &pl, "text", &c->text_len);
            ok = c->text != NULL;
            break;
        case 'p': {
            size_t len;
            const char *pat = get_str(p, &pl, "pattern", &len);
            char err[160];
            if (!pat) {
                ok = false;
                break;
            }
            c->re = term_regex_new(pat, len, err, sizeof err);
            if (!c->re) {
                snprintf(msg, n, "%s: invalid pattern: %s", type, err);
                return false;
            }
            break;
        }
        case 'r':
            ok = get_int(p, &pl, "row", &c->row) && get_int(p, &pl, "col", &c->col);
            break;
        case 'l':
            ok = get_int(p, &pl, "line", &c->line);
            break;
        case 'c':
            ok = get_int(p, &pl, "code", &c->code) || get_int(p, &pl, "exit_code", &c->code);
            break;
        case 'm':
            if (get_int(p, &pl, "ms", &c->ms) || get_int(p, &pl, "quiet_ms", &c->ms))
                ok = c->ms >= 0 && c->ms <= 600000;
            break;
        default:
            break;
        }
        if (!ok) {
            static const char *const what[] = { "t", "'text'", "p", "'pattern'", "r", "'row' and 'col'",
                                                "l", "'line'", "c", "'code'", "m", "'ms' (0-600000)" };
            const char *w = "?";
            for (int i = 0; i < 12; i += 2)
                if (what[i][0] == *f)
                    w = what[i + 1];
            snprintf(msg, n, "%s: payload needs %s", type, w);
            return false;
        }
    }
    BcVal on;
    c->on = !get(p, &pl, "on", &on) || on.tag != BC_V_FALSE;
    return true;
}

void cond_fini(Cond *c)
{
    term_regex_free(c->re);
    c->re = NULL;
}
