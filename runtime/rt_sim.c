/* rt_sim.c - the simulation target (JSONL playback events) and the
** counting sink.
**
** Every op's event comes from the one event writer (events.c, driven by
** ops.def).  Events accumulate in a Buf and reach the FILE in large writes. */
#include "rt_sim.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "events.h"

/* Flush threshold for streamed output.  Blocks of this size keep write()
** calls negligible; larger ones gained nothing measurable. */
enum { SIM_FLUSH = 256 * 1024 };

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
    if (b->len && fwrite(b->data, 1, b->len, s->f) != b->len)
        s->err = errno ? errno : EIO;
    buf_reset(b);
    if (!s->err && s->line_flush && fflush(s->f) != 0)
        s->err = errno ? errno : EIO;
    return s->err ? SC_IO : 0;
}

static int sim_begin(RtTarget *t, const BcProgram *p)
{
    (void)p;
    Sim *s = (Sim *)t;
    /* Reserve up front so the common case never grows mid-run. */
    if ((s->f || s->discard) && !buf_reserve(s->out, SIM_FLUSH + 4096))
        return SC_RUNTIME;
    return 0;
}

static int sim_op(RtTarget *t, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    Sim *s = (Sim *)t;
    s->n.ops++;
    if (bc_op_info[in->op].flags & OPF_SILENT)
        return 0;
    Buf *b = s->out;
    size_t start = b->len;
    if (!events_op_write(s->ev, b, p, in, at_ms))
        return SC_RUNTIME;
    s->n.events++;
    s->n.bytes += b->len - start;
    if ((s->f || s->discard) && (b->len >= SIM_FLUSH || s->line_flush))
        return sim_flush(s);
    return 0;
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
    s->ev = events_ops_new();
    if (!s->ev) {
        sim_destroy(&s->base);
        return NULL;
    }
    return &s->base;
}

void rt_sim_counts(const RtTarget *t, RtCounts *out) { *out = ((const Sim *)t)->n; }
int rt_sim_errno(const RtTarget *t) { return ((const Sim *)t)->err; }

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
    for (unsigned i = 0; i < oi->n_operands; i++)
        if (oi->field[i] && oi->operands[i] == 'S')
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
