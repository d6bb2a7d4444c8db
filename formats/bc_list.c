/* SPDX-License-Identifier: MIT */
/* bc_list.c - the listing (scc -l, scvm dis), in the spirit of luac -l and
** SQLite's EXPLAIN: one line per op, operands decoded, deterministic text
** (golden files compare it byte for byte).
**
**   index  time_ms  track  OPNAME  operands...   [line:col]
**
** S operands print as JSON strings (full, escaped: one op stays one line),
** K operands as compact JSON, U operands in decimal. */
#include "bc.h"

#include <inttypes.h>
#include <string.h>

static void put_str(const BcProgram *p, uint32_t i, Buf *out)
{
    buf_json_str(out, p->str[i].s, p->str[i].len);
}

/* "; clock spec" for a timeline compiled on the spec clock (recorded in
** config; the reference clock, the default, is not): times read
** differently there (docs/timing.md). */
static void put_clock(const BcProgram *p, Buf *out)
{
    BcVal cfg = bc_val(p, p->meta.config), ck;
    if (bc_val_get(p, &cfg, "clock", &ck) && ck.tag == BC_V_STR)
        buf_printf(out, "; clock     %s\n", p->str[ck.n].s);
}

static void header(const BcProgram *p, const BcListOpts *o, Buf *out)
{
    const BcMeta *m = &p->meta;
    if (o->source)
        buf_printf(out, "; file      %s\n", o->source);
    buf_puts(out, "; scenario  ");
    put_str(p, m->name, out);
    buf_puts(out, "\n; source    ");
    put_str(p, m->source, out);
    buf_printf(out, "\n; version   %u.%u\n", p->version_major, p->version_minor);
    buf_printf(out, "; flags     0x%" PRIx32 " (%s)\n", p->flags, bc_flags_name(p->flags));
    buf_printf(out, "; size      %zu bytes, payload %zu bytes\n", p->file_size, p->content_size);
    buf_printf(out, "; checksum  %016" PRIx64 "\n", p->checksum);
    buf_puts(out, "; prompt    ");
    bc_val_json(p, m->prompt, out);
    buf_puts(out, "\n; tags      ");
    bc_val_json(p, m->tags, out);
    if (m->term_width || m->term_height)
        buf_printf(out, "\n; terminal  %" PRIu32 "x%" PRIu32 "\n", m->term_width, m->term_height);
    else
        buf_puts(out, "\n; terminal  -\n");
    put_clock(p, out);
    buf_printf(out, "; counts    %" PRIu32 " strings, %" PRIu32 " values, %" PRIu32 " ops\n",
               p->n_str, p->n_val, p->n_insn);
}

void bc_list_operands(const BcProgram *p, const BcInsn *in, Buf *out)
{
    const BcOpInfo *info = &bc_op_info[in->op];
    for (int k = 0; k < in->n; k++) {
        buf_putc(out, ' ');
        switch (info->operands[k]) {
        case 'S':
            put_str(p, in->a[k], out);
            break;
        case 'K':
            bc_val_json(p, in->a[k], out);
            break;
        default:
            buf_printf(out, "%" PRIu32, in->a[k]);
            break;
        }
    }
}

void bc_list(const BcProgram *p, const BcListOpts *o, Buf *out)
{
    static const BcListOpts defaults;
    if (!o)
        o = &defaults;
    if (o->header)
        header(p, o, out);
    else
        put_clock(p, out);
    for (uint32_t i = 0; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        const BcOpInfo *info = &bc_op_info[in->op];
        buf_printf(out, "%5" PRIu32 " %9" PRIu64 "  %-7s %-13s", i, in->t,
                   bc_track_name(info->flags), info->name);
        bc_list_operands(p, in, out);
        /* no padding left dangling after an operand-less op: golden files
        ** stay diff-clean (the line always starts with a digit, so this
        ** never eats into the previous line) */
        while (out->len > 0 && out->data[out->len - 1] == ' ')
            out->len--;
        if (o->lines)
            buf_printf(out, "  [%" PRIu32 ":%" PRIu32 "]", in->line, in->col);
        buf_putc(out, '\n');
    }
}
