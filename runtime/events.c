/* SPDX-License-Identifier: MIT */
/* events.c - the one JSONL event writer (events.h).
**
** The op table is one loop over ops.def's table: at creation each op's
** constant text (`,"kind":"tool_start"`, `,"tool_name":`, ...) is rendered
** once, so writing an op's event is a few memcpys plus the operand values.
** Strings of a loaded program are valid UTF-8 (the reader checks them), so
** op fields are escaped without the lossy pass that program output needs. */
#include "events.h"

#include <string.h>

#include "common/sc_alloc.h"

/* How an operand is written; from its operand letter. */
typedef enum FieldKind { FK_STR, FK_VAL, FK_UINT } FieldKind;

typedef struct EvField {
    FieldKind kind;
    uint8_t operand;        /* index into BcInsn.a */
    uint8_t key_len;
    const char *key;        /* `,"name":` */
} EvField;

typedef struct EvFmt {
    uint8_t n_fields;
    uint16_t head_len;
    const char *head;       /* `,"kind":"event"` */
    EvField field[BC_MAX_OPERANDS];
} EvFmt;

struct EventsOps {
    char *text;             /* the rendered heads and keys */
    EvFmt fmt[OP__COUNT];
};

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

/* Renders every op's head and keys from bc_op_info into one allocation. */
EventsOps *events_ops_new(void)
{
    EventsOps *e = sc_calloc(1, sizeof *e);
    if (!e)
        return NULL;
    Buf t;
    buf_init(&t);
    size_t head_off[OP__COUNT], key_off[OP__COUNT][BC_MAX_OPERANDS];
    for (int op = 0; op < OP__COUNT; op++) {
        const BcOpInfo *oi = &bc_op_info[op];
        EvFmt *f = &e->fmt[op];
        head_off[op] = t.len;
        buf_puts(&t, ",\"kind\":\"");
        buf_puts(&t, oi->event);
        buf_putc(&t, '"');
        f->head_len = (uint16_t)(t.len - head_off[op]);
        f->n_fields = 0;
        for (unsigned i = 0; i < oi->n_operands; i++) {
            if (!oi->field[i])
                continue;
            EvField *fl = &f->field[f->n_fields];
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
        sc_free(e);
        return NULL;
    }
    /* Pointers only once the text has stopped moving. */
    e->text = (char *)t.data;
    for (int op = 0; op < OP__COUNT; op++) {
        e->fmt[op].head = e->text + head_off[op];
        for (unsigned i = 0; i < e->fmt[op].n_fields; i++)
            e->fmt[op].field[i].key = e->text + key_off[op][i];
    }
    return e;
}

void events_ops_free(EventsOps *e)
{
    if (!e)
        return;
    sc_free(e->text);
    sc_free(e);
}

bool events_op_begin(const EventsOps *e, Buf *b, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    const EvFmt *f = &e->fmt[in->op];
    if (!buf_reserve(b, 9 + 20 + f->head_len))
        return false;
    unsigned char *d = b->data + b->len;
    memcpy(d, "{\"at_ms\":", 9);
    d = put_u64(d + 9, at_ms);
    memcpy(d, f->head, f->head_len);
    b->len = (size_t)(d + f->head_len - b->data);
    for (unsigned i = 0; i < f->n_fields; i++) {
        const EvField *fl = &f->field[i];
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
    return !b->oom;
}

bool events_op_write(const EventsOps *e, Buf *b, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    if (!events_op_begin(e, b, p, in, at_ms))
        return false;
    buf_put(b, "}\n", 2);
    return !b->oom;
}

void events_begin(Buf *b, uint64_t at_ms, const char *kind)
{
    buf_puts(b, "{\"at_ms\":");
    buf_u64dec(b, at_ms);
    buf_puts(b, ",\"kind\":\"");
    buf_puts(b, kind);
    buf_putc(b, '"');
}

static void put_key(Buf *b, const char *key)
{
    buf_puts(b, ",\"");
    buf_puts(b, key);
    buf_puts(b, "\":");
}

void events_str(Buf *b, const char *key, const char *s, size_t n)
{
    put_key(b, key);
    buf_json_str_lossy(b, s, n);
}

void events_int(Buf *b, const char *key, int64_t v)
{
    put_key(b, key);
    if (v < 0) {
        buf_putc(b, '-');
        buf_u64dec(b, (uint64_t)0 - (uint64_t)v);
    } else {
        buf_u64dec(b, (uint64_t)v);
    }
}

void events_bool(Buf *b, const char *key, bool v)
{
    put_key(b, key);
    buf_puts(b, v ? "true" : "false");
}

void events_end(Buf *b)
{
    buf_put(b, "}\n", 2);
}
