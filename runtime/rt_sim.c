/* rt_sim.c - the simulation target (JSONL playback events) and the
** counting sink.
**
** The event writer is one loop over ops.def's table: at creation each op's
** constant text (`,"kind":"tool_start"`, `,"tool_name":`, ...) is rendered
** once, so writing an event is a few memcpys plus the operand values.
** Events accumulate in a Buf and reach the FILE in large writes. */
#include "rt_sim.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/sc_alloc.h"

/* How an operand is written; from its operand letter. */
typedef enum FieldKind { FK_STR, FK_VAL, FK_UINT } FieldKind;

typedef struct SimField {
    FieldKind kind;
    uint8_t operand;        /* index into BcInsn.a */
    uint8_t key_len;
    const char *key;        /* `,"name":` */
} SimField;

typedef struct SimFmt {
    bool silent;
    uint8_t n_fields;
    uint16_t head_len;
    const char *head;       /* `,"kind":"event"` */
    SimField field[BC_MAX_OPERANDS];
} SimFmt;

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
    char *text;             /* the rendered heads and keys */
    SimFmt fmt[OP__COUNT];
} Sim;

/* Writes v in decimal at d, returns the end.  At most 20 digits. */
static unsigned char *put_u64(unsigned char *d, uint64_t v)
{
    unsigned char tmp[20];
    size_t n = 0;
    do {
        tmp[n++] = (unsigned char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *d++ = tmp[--n];
    return d;
}

static void buf_u64dec(Buf *b, uint64_t v)
{
    if (buf_reserve(b, 20))
        b->len = (size_t)(put_u64(b->data + b->len, v) - b->data);
}

static int sim_flush(Sim *s)
{
    Buf *b = s->out;
    if (s->discard) {
        buf_reset(b);
        return 0;
    }
    if (!s->f || s->err)
        return s->err ? RT_STATUS_IO : 0;
    if (b->len && fwrite(b->data, 1, b->len, s->f) != b->len)
        s->err = errno ? errno : EIO;
    buf_reset(b);
    if (!s->err && s->line_flush && fflush(s->f) != 0)
        s->err = errno ? errno : EIO;
    return s->err ? RT_STATUS_IO : 0;
}

static int sim_begin(RtTarget *t, const BcProgram *p)
{
    (void)p;
    Sim *s = (Sim *)t;
    /* Reserve up front so the common case never grows mid-run. */
    if ((s->f || s->discard) && !buf_reserve(s->out, SIM_FLUSH + 4096))
        return RT_STATUS_RUNTIME;
    return 0;
}

static int sim_op(RtTarget *t, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    Sim *s = (Sim *)t;
    const SimFmt *f = &s->fmt[in->op];
    s->n.ops++;
    if (f->silent)
        return 0;
    Buf *b = s->out;
    size_t start = b->len;
    if (!buf_reserve(b, 9 + 20 + f->head_len))
        return RT_STATUS_RUNTIME;
    unsigned char *d = b->data + b->len;
    memcpy(d, "{\"at_ms\":", 9);
    d = put_u64(d + 9, at_ms);
    memcpy(d, f->head, f->head_len);
    b->len = (size_t)(d + f->head_len - b->data);
    for (unsigned i = 0; i < f->n_fields; i++) {
        const SimField *fl = &f->field[i];
        uint32_t a = in->a[fl->operand];
        buf_put(b, fl->key, fl->key_len);
        switch (fl->kind) {
        case FK_STR:
            buf_json_str(b, p->str[a].s, p->str[a].len);
            break;
        case FK_VAL:
            bc_val_json(p, a, b);
            break;
        case FK_UINT:
            buf_u64dec(b, a);
            break;
        }
    }
    buf_put(b, "}\n", 2);
    if (b->oom)
        return RT_STATUS_RUNTIME;
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
        st = RT_STATUS_IO;
    }
    return st;
}

static void sim_destroy(RtTarget *t)
{
    Sim *s = (Sim *)t;
    if (!s)
        return;
    buf_fini(&s->own);
    sc_free(s->text);
    sc_free(s);
}

static const RtTargetVtbl sim_vt = {
    .name = "sim",
    .begin = sim_begin,
    .op = sim_op,
    .end = sim_end,
    .destroy = sim_destroy,
};

/* Renders every op's head and keys from bc_op_info into one allocation. */
static bool sim_render(Sim *s)
{
    Buf t;
    buf_init(&t);
    size_t head_off[OP__COUNT], key_off[OP__COUNT][BC_MAX_OPERANDS];
    for (int op = 0; op < OP__COUNT; op++) {
        const BcOpInfo *oi = &bc_op_info[op];
        SimFmt *f = &s->fmt[op];
        f->silent = (oi->flags & OPF_SILENT) != 0;
        head_off[op] = t.len;
        buf_puts(&t, ",\"kind\":\"");
        buf_puts(&t, oi->event);
        buf_putc(&t, '"');
        f->head_len = (uint16_t)(t.len - head_off[op]);
        f->n_fields = 0;
        for (unsigned i = 0; i < oi->n_operands; i++) {
            if (!oi->field[i])
                continue;
            SimField *fl = &f->field[f->n_fields];
            key_off[op][f->n_fields++] = t.len;
            fl->operand = (uint8_t)i;
            fl->kind = oi->operands[i] == 'S' ? FK_STR : oi->operands[i] == 'K' ? FK_VAL : FK_UINT;
            buf_puts(&t, ",\"");
            buf_puts(&t, oi->field[i]);
            buf_puts(&t, "\":");
            fl->key_len = (uint8_t)(t.len - key_off[op][f->n_fields - 1]);
        }
    }
    if (t.oom) {
        buf_fini(&t);
        return false;
    }
    /* Pointers only once the text has stopped moving. */
    s->text = (char *)t.data;
    for (int op = 0; op < OP__COUNT; op++) {
        s->fmt[op].head = s->text + head_off[op];
        for (unsigned i = 0; i < s->fmt[op].n_fields; i++)
            s->fmt[op].field[i].key = s->text + key_off[op][i];
    }
    return true;
}

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
    if (!sim_render(s)) {
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
