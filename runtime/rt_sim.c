/* SPDX-License-Identifier: MIT */
/* rt_sim.c - the simulation target (JSONL playback events) and the
** counting sink.
**
** Every op's event comes from the one event writer (events.c, driven by
** ops.def).  Events accumulate in a Buf and reach the FILE in large writes. */
#include "rt_sim.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "events.h"
#include "scn_assert.h"

typedef struct Sim {
    RtTarget base;
    FILE *f;
    Buf *out;               /* opts.mem, or &own */
    Buf own;
    bool line_flush;
    bool discard;           /* no sink: drop the text after counting it */
    int err;
    RtCounts n;
    EventsOps *ev;
    bool unchecked;         /* opts.unchecked: a not_evaluated event per check */
    uint64_t n_unchecked;
    uint64_t at_ms;         /* of the op being played */
} Sim;

static int sim_flush(Sim *s)
{
    Buf *b = s->out;
    if (s->discard) {
        buf_reset(b);
        return 0;
    }
    if (!s->f || s->err)
        return s->err ? SC_IO : 0;
    /* one write(2), after what the stream holds (a suite's header line):
    ** not a copy into stdio's buffer and a write cut where it ends */
    if (b->len)
        s->err = file_write_stream(s->f, b->data, b->len);
    buf_reset(b);
    return s->err ? SC_IO : 0;
}

int rt_sim_batch_write(Buf *b, FILE *f, bool all)
{
    if (!b->len || (!all && b->len < RT_SIM_BATCH))
        return 0;
    int e = file_write_stream(f, b->data, b->len);
    buf_reset(b);
    return e;
}

static int sim_begin(RtTarget *t, const BcProgram *p)
{
    (void)p;
    Sim *s = (Sim *)t;
    /* Reserve up front so the common case never grows mid-run. */
    if ((s->f || s->discard) && !buf_reserve(s->out, RT_SIM_BLOCK + 4096))
        return SC_RUNTIME;
    return 0;
}

/* One check the simulation did not evaluate (docs/events.md,
** "not_evaluated"). */
static void unchecked_event(Sim *s, const char *op, const char *check, size_t check_len, const char *subject,
                            size_t subject_len)
{
    JsonW w;
    jw_open_obj(&w, s->out);
    jw_ku64(&w, "at_ms", s->at_ms);
    jw_kcstr(&w, "kind", "not_evaluated");
    jw_kcstr(&w, "op", op);
    jw_key(&w, "check");
    if (check)
        jw_str(&w, check, check_len);
    else
        jw_null(&w);
    jw_key(&w, "subject");
    if (subject)
        jw_str(&w, subject, subject_len);
    else
        jw_null(&w);
    jw_end(&w);
    jw_nl(&w);
    s->n_unchecked++;
}

static void assert_check(void *user, const char *check, const char *subject, size_t len)
{
    unchecked_event(user, "assert", check, strlen(check), subject, len);
}

/* The checks of a check op (OPF_CHECK), each as not evaluated: an assert's
** every fs/text/json/git check; a wait's, a check's or an eval's one
** check, named by its type (the subject: a payload that is a string). */
static void list_unchecked(Sim *s, const BcProgram *p, const BcInsn *in)
{
    BcVal v = bc_val(p, in->a[0]), ty, pl;
    if (in->op == OP_ASSERT) {
        scn_assert_each(p, &v, assert_check, s);
        return;
    }
    const char *check = NULL, *subject = NULL;
    size_t cl = 0, sl = 0;
    if (v.tag == BC_V_MAP && bc_val_get(p, &v, "type", &ty) && ty.tag == BC_V_STR)
        check = p->str[ty.n].s, cl = p->str[ty.n].len;
    if (v.tag == BC_V_MAP && bc_val_get(p, &v, "payload", &pl) && pl.tag == BC_V_STR)
        subject = p->str[pl.n].s, sl = p->str[pl.n].len;
    unchecked_event(s, bc_op_info[in->op].event, check, cl, subject, sl);
}

/* An op's playback event: every op has one, from its row of ops.def
** (events.c), except the silent ones. */
static int sim_event(void *ctx, const BcProgram *p, const BcInsn *in)
{
    Sim *s = ctx;
    Buf *b = s->out;
    size_t start = b->len;
    if (!events_op_write(s->ev, b, p, in, s->at_ms))
        return SC_RUNTIME;
    if (s->unchecked && (bc_op_info[in->op].flags & OPF_CHECK)) {
        list_unchecked(s, p, in);
        if (b->oom)
            return SC_RUNTIME;
    }
    s->n.events++;
    s->n.bytes += b->len - start;
    if ((s->f || s->discard) && (b->len >= RT_SIM_BLOCK || s->line_flush))
        return sim_flush(s);
    return 0;
}

/* The simulation's table (runtime/player.h): driven by ops.def's columns,
** so a new op gets its event with no change here. */
const Player rt_sim_player = {
    .name = "sim",
    .ignore = { { OPF_SILENT, "silent in ops.def: no playback event" } },
    .every = sim_event,
};

static int sim_op(RtTarget *t, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    Sim *s = (Sim *)t;
    s->n.ops++;
    s->at_ms = at_ms;
    return player_op(&rt_sim_player, s, p, in);
}

static int sim_end(RtTarget *t, const BcProgram *p)
{
    (void)p;
    Sim *s = (Sim *)t;
    int st = sim_flush(s);
    if (!st && s->f && fflush(s->f) != 0) {
        s->err = errno ? errno : EIO;
        st = SC_IO;
    }
    return st;
}

static void sim_destroy(RtTarget *t)
{
    Sim *s = (Sim *)t;
    if (!s)
        return;
    buf_fini(&s->own);
    events_ops_free(s->ev);
    sc_free(s);
}

static const RtTargetVtbl sim_vt = {
    .name = "sim",
    .begin = sim_begin,
    .op = sim_op,
    .end = sim_end,
    .destroy = sim_destroy,
};

RtTarget *rt_sim_new(const RtSimOpts *o)
{
    Sim *s = sc_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->base.vt = &sim_vt;
    buf_init(&s->own);
    s->f = o ? o->out : NULL;
    s->out = o && o->mem && !s->f ? o->mem : &s->own;
    s->discard = !s->f && !(o && o->mem);
    s->line_flush = o && o->line_flush;
    s->unchecked = o && o->unchecked;
    s->ev = events_ops_new();
    if (!s->ev) {
        sim_destroy(&s->base);
        return NULL;
    }
    return &s->base;
}

void rt_sim_counts(const RtTarget *t, RtCounts *out) { *out = ((const Sim *)t)->n; }
int rt_sim_errno(const RtTarget *t) { return ((const Sim *)t)->err; }
uint64_t rt_sim_unchecked(const RtTarget *t) { return ((const Sim *)t)->n_unchecked; }

/* ---- counting sink ---- */

typedef struct Count {
    RtTarget base;
    RtCounts n;
} Count;

static int count_op(RtTarget *t, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    (void)at_ms;
    Count *c = (Count *)t;
    const BcOpInfo *oi = &bc_op_info[in->op];
    c->n.ops++;
    if (oi->flags & OPF_SILENT)
        return 0;
    c->n.events++;
    for (unsigned m = oi->text_fields, i = 0; m; m >>= 1, i++)   /* the text fields only */
        if (m & 1)
            c->n.bytes += p->str[in->a[i]].len;
    return 0;
}

static void count_destroy(RtTarget *t) { sc_free(t); }

static const RtTargetVtbl count_vt = {
    .name = "count",
    .begin = NULL,
    .op = count_op,
    .end = NULL,
    .destroy = count_destroy,
};

RtTarget *rt_count_new(void)
{
    Count *c = sc_calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->base.vt = &count_vt;
    return &c->base;
}

void rt_count_counts(const RtTarget *t, RtCounts *out) { *out = ((const Count *)t)->n; }
