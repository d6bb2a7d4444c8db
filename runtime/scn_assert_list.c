/* SPDX-License-Identifier: MIT */
/* scn_assert_list.c - the checks an `assert` holds, listed without
** evaluating them: what a target that evaluates nothing (the simulation)
** reports as not evaluated.  It lives in sc_runtime, apart from the
** evaluator (scn_assert.c, which needs cJSON and a workspace), and walks
** the same keys in the same order: text, fs, json, git. */
#include "scn_assert.h"

static const char *str_of(const BcProgram *p, const BcVal *v, size_t *len)
{
    if (v->tag != BC_V_STR)
        return NULL;
    *len = p->str[v->n].len;
    return p->str[v->n].s;
}

/* Each element of list (an array) under key of map: one check each; its
** subject the element itself when a string, else the element's path. */
static unsigned each_of(const BcProgram *p, const BcVal *map, const char *key, const char *check,
                        ScnAssertEachFn *fn, void *user)
{
    BcVal list;
    if (!bc_val_get(p, map, key, &list) || list.tag != BC_V_ARRAY)
        return 0;
    const unsigned char *q = list.p;
    for (uint32_t i = 0; i < list.n; i++) {
        BcVal e, pv;
        q = bc_val_decode(p, q, &e);
        size_t len = 0;
        const char *s = str_of(p, &e, &len);
        if (!s && e.tag == BC_V_MAP && bc_val_get(p, &e, "path", &pv))
            s = str_of(p, &pv, &len);
        fn(user, check, s, len);
    }
    return list.n;
}

unsigned scn_assert_each(const BcProgram *p, const BcVal *v, ScnAssertEachFn *fn, void *user)
{
    BcVal sub, f, x;
    unsigned n = 0;
    if (v->tag != BC_V_MAP)
        return 0;
    if (bc_val_get(p, v, "text", &sub) && sub.tag == BC_V_MAP)
        n += each_of(p, &sub, "contains", "text.contains", fn, user);
    if (bc_val_get(p, v, "fs", &sub) && sub.tag == BC_V_MAP) {
        n += each_of(p, &sub, "exists", "fs.exists", fn, user);
        n += each_of(p, &sub, "notExists", "fs.notExists", fn, user);
        n += each_of(p, &sub, "contains", "fs.contains", fn, user);
    }
    if (bc_val_get(p, v, "json", &sub) && sub.tag == BC_V_MAP && bc_val_get(p, &sub, "file", &f) &&
        f.tag == BC_V_MAP) {
        size_t len = 0;
        const char *s = bc_val_get(p, &f, "path", &x) ? str_of(p, &x, &len) : NULL;
        fn(user, "json.file", s, len);
        n++;
    }
    if (bc_val_get(p, v, "git", &sub) && sub.tag == BC_V_MAP && bc_val_get(p, &sub, "commit", &f) &&
        f.tag == BC_V_MAP && bc_val_get(p, &f, "messageContains", &x)) {
        size_t len = 0;
        const char *s = str_of(p, &x, &len);
        fn(user, "git.commit.messageContains", s, len);
        n++;
    }
    return n;
}
