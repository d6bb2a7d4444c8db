/* SPDX-License-Identifier: MIT */
/* bc_value.c - reading values of a verified program: decode, map lookup,
** compact JSON.
**
** Only valid on a program bc_load() verified: the walks here trust the
** encoding (tags, counts, string refs, depth) and so need no error paths;
** varints are still read against the end of the value section. */
#include "bc.h"
#include "common/jsonw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Skips `need` complete values starting at p (a map entry is two values). */
static const unsigned char *skip(const unsigned char *p, const unsigned char *end, uint64_t need)
{
    uint64_t v;
    while (need > 0 && p < end) {
        need--;
        unsigned tag = *p++;
        switch (tag) {
        case BC_V_INT:
        case BC_V_STR:
            if (!varint_read(&p, end, &v))
                return end;
            break;
        case BC_V_FLOAT:
            p += 8;
            break;
        case BC_V_ARRAY:
        case BC_V_MAP:
            if (!varint_read(&p, end, &v))
                return end;
            need += tag == BC_V_MAP ? 2 * v : v;
            break;
        default:
            break;
        }
    }
    return p;
}

const unsigned char *bc_val_decode(const BcProgram *prog, const unsigned char *p, BcVal *v)
{
    const unsigned char *end = prog->val_end;
    uint64_t u = 0;
    memset(v, 0, sizeof *v);
    v->tag = *p++;
    switch (v->tag) {
    case BC_V_INT:
        varint_read(&p, end, &u);
        v->i = zigzag_dec(u);
        return p;
    case BC_V_FLOAT:
        u = rd_u64le(p);
        memcpy(&v->f, &u, 8);
        return p + 8;
    case BC_V_STR:
        varint_read(&p, end, &u);
        v->n = (uint32_t)u;
        return p;
    case BC_V_ARRAY:
    case BC_V_MAP:
        varint_read(&p, end, &u);
        v->n = (uint32_t)u;
        v->p = p;
        return skip(p, end, v->tag == BC_V_MAP ? 2 * u : u);
    default:
        return p;
    }
}

bool bc_val_get(const BcProgram *prog, const BcVal *map, const char *key, BcVal *out)
{
    if (map->tag != BC_V_MAP)
        return false;
    size_t klen = strlen(key);
    const unsigned char *p = map->p;
    for (uint32_t i = 0; i < map->n; i++) {
        BcVal k;
        p = bc_val_decode(prog, p, &k);
        const BcStr *s = &prog->str[k.n];
        if (s->len == klen && memcmp(s->s, key, klen) == 0) {
            bc_val_decode(prog, p, out);
            return true;
        }
        p = skip(p, prog->val_end, 1);
    }
    return false;
}

/* The shortest %.*g that reads back as the same double, marked as a float
** (".0" appended when it would read as an integer).  Assumes the C locale
** for LC_NUMERIC, which nothing in scc/scvm changes. */
static void put_double(Buf *out, double d)
{
    if (!isfinite(d)) {
        buf_puts(out, "null");
        return;
    }
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    buf_puts(out, tmp);
    if (!strpbrk(tmp, ".eE"))
        buf_puts(out, ".0");
}

static void val_json(const BcProgram *prog, const BcVal *v, JsonW *w)
{
    switch (v->tag) {
    case BC_V_NULL:
        jw_null(w);
        return;
    case BC_V_FALSE:
    case BC_V_TRUE:
        jw_bool(w, v->tag == BC_V_TRUE);
        return;
    case BC_V_INT:
        jw_i64(w, v->i);
        return;
    case BC_V_FLOAT:
        jw_value(w);
        put_double(w->b, v->f);
        return;
    case BC_V_STR:
        jw_str(w, prog->str[v->n].s, prog->str[v->n].len);
        return;
    case BC_V_ARRAY:
    case BC_V_MAP: {
        if (w->depth >= JW_MAX_DEPTH) {
            /* values nest to BC_MAX_DEPTH, deeper than one writer tracks:
            ** the rest in a writer of its own, on the same Buf */
            jw_value(w);
            JsonW in;
            jw_init(&in, w->b);
            val_json(prog, v, &in);
            return;
        }
        /* recursion is bounded by BC_MAX_DEPTH, which the verifier enforced;
        ** so are map keys being strings */
        bool map = v->tag == BC_V_MAP;
        const unsigned char *p = v->p;
        if (map)
            jw_obj(w);
        else
            jw_arr(w);
        for (uint32_t i = 0; i < v->n; i++) {
            BcVal e;
            if (map) {
                p = bc_val_decode(prog, p, &e);
                if (e.tag == BC_V_STR)
                    jw_key_str(w, prog->str[e.n].s, prog->str[e.n].len);
                else
                    jw_key_str(w, "", 0);   /* the verifier lets none through */
            }
            p = bc_val_decode(prog, p, &e);
            val_json(prog, &e, w);
        }
        jw_end(w);
        return;
    }
    default:
        jw_null(w);
        return;
    }
}

void bc_val_json_at(const BcProgram *prog, const BcVal *v, Buf *out)
{
    JsonW w;
    jw_init(&w, out);
    val_json(prog, v, &w);
}

void bc_val_json(const BcProgram *prog, uint32_t idx, Buf *out)
{
    BcVal v = bc_val(prog, idx);
    bc_val_json_at(prog, &v, out);
}
