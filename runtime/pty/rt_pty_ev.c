/* SPDX-License-Identifier: MIT */
/* rt_pty_ev.c - the small pieces every part of the PTY target uses: the
** run's error (pty_fail), its event lines (on runtime/events.c, so an op's
** event is the one every target writes), reading the scenario's values,
** and argv/env lists. */
#include "rt_pty_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "common/vformat.h"
#include "runtime/events.h"

const char *pty_err_code(PtyErr e)
{
    switch (e) {
#define X(name, code, num) case PTY_E_##name: return code;
        PTY_ERRORS(X)
#undef X
    }
    return "E_INTERNAL";
}

/* ---- errors and events ---- */

void pty_fail(Pty *t, PtyErr e, const char *fmt, ...)
{
    if (t->err)
        return;         /* the first error is the run's error */
    t->err = e;
    SC_VFORMAT(t->msg, sizeof t->msg, fmt);
}

uint64_t pty_elapsed(const Pty *t)
{
    return pty_now_ms() - t->t0;
}

/* Starts an event that is not an op's: {"at_ms":N,"kind":"K" (the caller
** adds fields and calls ev_end).  at_ms is the time since the spawn. */
void ev_begin(Pty *t, const char *kind)
{
    t->ev_start = t->events.len;
    events_begin(&t->events, pty_elapsed(t), kind);
}

/* Starts the event of the op being played: its kind and fields from
** ops.def, as on every target (events.h); the caller adds what the
** terminal observed. */
void ev_op(Pty *t)
{
    t->ev_start = t->events.len;
    events_op_begin(t->evops, &t->events, t->p, t->op, pty_elapsed(t));
}

void ev_end(Pty *t)
{
    events_end(&t->events);
    /* buffered: pty_pump flushes before it waits, the run's end after the
    ** last event, so a reader following the file sees each event before
    ** scvm waits for anything */
    if (t->o.events && !t->events.oom)
        fwrite(t->events.data + t->ev_start, 1, t->events.len - t->ev_start, t->o.events);
}

void ev_str(Pty *t, const char *key, const char *s, size_t n)
{
    events_str(&t->events, key, s, n);
}

void ev_int(Pty *t, const char *key, int64_t v)
{
    events_int(&t->events, key, v);
}

void ev_bool(Pty *t, const char *key, bool v)
{
    events_bool(&t->events, key, v);
}

/* ---- values ---- */

bool vget(const Pty *t, const BcVal *m, const char *key, BcVal *out)
{
    return m && m->tag == BC_V_MAP && bc_val_get(t->p, m, key, out) && out->tag != BC_V_NULL;
}

const char *vstr(const Pty *t, const BcVal *m, const char *key, size_t *len)
{
    BcVal v;
    if (!vget(t, m, key, &v) || v.tag != BC_V_STR)
        return NULL;
    if (len)
        *len = t->p->str[v.n].len;
    return t->p->str[v.n].s;
}

bool vint(const Pty *t, const BcVal *m, const char *key, int64_t *out)
{
    BcVal v;
    if (!vget(t, m, key, &v))
        return false;
    if (v.tag == BC_V_INT) {
        *out = v.i;
        return true;
    }
    if (v.tag == BC_V_FLOAT && v.f == (double)(int64_t)v.f) {
        *out = (int64_t)v.f;
        return true;
    }
    return false;
}

bool vbool(const Pty *t, const BcVal *m, const char *key, bool dflt)
{
    BcVal v;
    if (!vget(t, m, key, &v))
        return dflt;
    return v.tag == BC_V_TRUE ? true : v.tag == BC_V_FALSE ? false : dflt;
}

/* ---- argv / env storage ---- */

bool strv_push(StrV *v, const char *s, size_t n)
{
    if (v->n + 2 > v->cap && !SC_GROW(v->v, v->cap, 16))
        return false;
    char *d = sc_strndup(s, n);
    if (!d)
        return false;
    v->v[v->n++] = d;
    v->v[v->n] = NULL;
    return true;
}

void strv_free(StrV *v)
{
    for (size_t i = 0; i < v->n; i++)
        sc_free(v->v[i]);
    sc_free(v->v);
    memset(v, 0, sizeof *v);
}
