/* SPDX-License-Identifier: MIT */
/* bc_html.c - the compiled schedule as a picture (scc -l --html): one
** self-contained HTML page, no script and nothing fetched.
**
** An inline SVG has a lane per track (ops.def's OPF_AGENT, OPF_USER,
** OPF_HARNESS, OPF_ACP) on one time axis in ms; each op is a mark at its
** resolved time, and its SVG <title> (the browser's hover text) is the
** listing's line for it: index, time, op, operands, source position.  Ops
** whose marks would touch are stacked in the lane.  An LLM response is a
** bar from its LLM_BEGIN to its LLM_END.  Below, the listing as a table, so
** every payload can also be read (and searched) without hovering.
** The bytes depend on the program only. */
#include "bc.h"

#include <inttypes.h>
#include <string.h>

#include "formats/term/term_svg.h"

#define LABEL_W 80          /* px: the lanes' names */
#define PLOT_W 1000         /* px: the time axis */
#define SUB_H 14            /* px: one stacked row of marks */
#define SUBS 4              /* stacked rows a lane has */
#define LANE_H (SUB_H * SUBS + 8)
#define AXIS_H 28
#define HOVER_MAX 2000      /* bytes of operands in a hover text */
#define CELL_MAX 300        /* bytes of operands in a table cell */

static const struct {
    unsigned flag;
    const char *name, *colour;
} lanes[] = {
    { OPF_AGENT, "agent", "#2f6fbf" },
    { OPF_USER, "user", "#2e8b3a" },
    { OPF_HARNESS, "test", "#b5651d" },
    { OPF_ACP, "acp", "#7b4fa8" },
};
#define N_LANES (int)(sizeof lanes / sizeof lanes[0])

static int lane_of(unsigned flags)
{
    for (int i = 0; i < N_LANES; i++)
        if (flags & lanes[i].flag)
            return i;
    return -1;
}

/* A step of 1, 2 or 5 times a power of ten giving at most 10 ticks. */
static uint64_t tick_step(uint64_t span)
{
    uint64_t step = 1;
    for (;;) {
        if (span / step <= 10)
            return step;
        if (span / (step * 2) <= 10)
            return step * 2;
        if (span / (step * 5) <= 10)
            return step * 5;
        step *= 10;
    }
}

static double x_of(uint64_t t, uint64_t span)
{
    return LABEL_W + (double)t * PLOT_W / (double)span;
}

/* Escaped text, cut at max bytes (on a character boundary) with an ellipsis. */
static void esc_cut(Buf *out, const char *s, size_t n, size_t max)
{
    bool cut = n > max;
    if (cut) {
        n = max;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    term_xml_esc(out, s, n);
    if (cut)
        buf_puts(out, "\xe2\x80\xa6");
}

static void op_line(const BcProgram *p, uint32_t i, Buf *tmp)
{
    const BcInsn *in = &p->insn[i];
    buf_reset(tmp);
    buf_puts(tmp, bc_op_info[in->op].name);
    bc_list_operands(p, in, tmp);
}

void bc_list_html(const BcProgram *p, const BcListOpts *o, Buf *out)
{
    const BcMeta *m = &p->meta;
    uint64_t end = p->n_insn ? p->insn[p->n_insn - 1].t : 0;
    uint64_t step = tick_step(end ? end : 1);
    uint64_t span = (end + step - 1) / step * step;
    if (span == 0)
        span = step;
    Buf tmp;
    buf_init(&tmp);

    buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    term_xml_esc(out, p->str[m->name].s, p->str[m->name].len);
    buf_puts(out, " - schedule</title>\n<style>\n"
                  "body{margin:16px;background:#fafafa;color:#202020;font:14px system-ui,sans-serif}\n"
                  "h1{font-size:18px;margin:0 0 4px}\n.meta{color:#555;margin:0 0 12px}\n"
                  "svg{display:block;background:#fff;border:1px solid #ccc}\n"
                  "svg text{font:12px system-ui,sans-serif}\n"
                  "svg .op:hover rect,svg .op:hover circle{stroke:#000;stroke-width:2}\n"
                  "table{border-collapse:collapse;margin-top:16px;font:12px monospace}\n"
                  "td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}\n"
                  "td.n{text-align:right}\ntd.args{white-space:pre-wrap;word-break:break-all;max-width:800px}\n"
                  "</style>\n</head>\n<body>\n<h1>");
    term_xml_esc(out, p->str[m->name].s, p->str[m->name].len);
    buf_puts(out, "</h1>\n<p class=\"meta\">");
    if (o && o->source) {
        term_xml_esc(out, o->source, strlen(o->source));
        buf_puts(out, " &#183; ");
    }
    buf_printf(out, "%" PRIu32 " ops over %" PRIu64 " ms", p->n_insn, end);
    if (m->term_width || m->term_height)
        buf_printf(out, " &#183; terminal %" PRIu32 "x%" PRIu32, m->term_width, m->term_height);
    buf_puts(out, " &#183; tags ");
    buf_reset(&tmp);
    bc_val_json(p, m->tags, &tmp);
    term_xml_esc(out, (const char *)tmp.data, tmp.len);
    buf_puts(out, " &#183; hover a mark for its op and payload</p>\n");

    /* the picture */
    int h = N_LANES * LANE_H + AXIS_H;
    int w = LABEL_W + PLOT_W + 40;
    buf_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n",
               w, h, w, h);
    for (int l = 0; l < N_LANES; l++) {
        int y = l * LANE_H;
        buf_printf(out, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", y, w, LANE_H,
                   l % 2 ? "#ffffff" : "#f3f5f8");
        buf_printf(out, "<text x=\"8\" y=\"%d\" fill=\"%s\" font-weight=\"bold\">%s</text>\n", y + LANE_H / 2 + 4,
                   lanes[l].colour, lanes[l].name);
    }
    /* the axis: grid lines and labels in ms */
    for (uint64_t t = 0; t <= span; t += step) {
        double x = x_of(t, span);
        buf_printf(out, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d8d8d8\"/>\n", x, x,
                   N_LANES * LANE_H);
        buf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#444\">%" PRIu64 "%s</text>\n", x,
                   N_LANES * LANE_H + 18, t, t == 0 ? " ms" : "");
    }
    /* LLM responses: a bar from LLM_BEGIN to LLM_END */
    uint64_t llm_t = 0;
    uint32_t llm_i = 0;
    bool in_llm = false;
    for (uint32_t i = 0; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        if (in->op == OP_LLM_BEGIN) {
            llm_t = in->t;
            llm_i = i;
            in_llm = true;
        } else if (in->op == OP_LLM_END && in_llm) {
            double x0 = x_of(llm_t, span), x1 = x_of(in->t, span);
            buf_printf(out, "<rect x=\"%.1f\" y=\"2\" width=\"%.1f\" height=\"4\" fill=\"%s\" fill-opacity=\"0.5\">"
                            "<title>LLM response, ops %" PRIu32 "-%" PRIu32 ", %" PRIu64 "-%" PRIu64 " ms</title></rect>\n",
                       x0, x1 - x0 < 1 ? 1 : x1 - x0, lanes[0].colour, llm_i, i, llm_t, in->t);
            in_llm = false;
        }
    }
    /* the ops: a mark each, stacked where they would touch */
    double last_x[N_LANES][SUBS];
    for (int l = 0; l < N_LANES; l++)
        for (int s = 0; s < SUBS; s++)
            last_x[l][s] = -1e9;
    int next_sub[N_LANES] = { 0 };
    for (uint32_t i = 0; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        const BcOpInfo *info = &bc_op_info[in->op];
        double x = x_of(in->t, span);
        if (info->flags & OPF_END) {
            buf_printf(out, "<g class=\"op\"><title>#%" PRIu32 " %" PRIu64 " ms end</title>"
                            "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\" stroke-dasharray=\"4 3\"/>"
                            "</g>\n",
                       i, in->t, x, x, N_LANES * LANE_H);
            continue;
        }
        int l = lane_of(info->flags);
        if (l < 0)
            continue;
        /* the first stacked row free at x, else the next in turn */
        int s = -1;
        for (int k = 0; k < SUBS; k++)
            if (x - last_x[l][k] >= 10) {
                s = k;
                break;
            }
        if (s < 0)
            s = next_sub[l]++ % SUBS;
        last_x[l][s] = x;
        int y = l * LANE_H + 4 + s * SUB_H + SUB_H / 2;
        op_line(p, i, &tmp);
        buf_printf(out, "<g class=\"op\"><title>#%" PRIu32 " %" PRIu64 " ms %s ", i, in->t, lanes[l].name);
        esc_cut(out, (const char *)tmp.data, tmp.len, HOVER_MAX);
        if (in->line)
            buf_printf(out, " [%" PRIu32 ":%" PRIu32 "]", in->line, in->col);
        buf_puts(out, "</title>");
        if (info->flags & OPF_CHECK)
            buf_printf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"9\" height=\"9\" fill=\"%s\" transform=\"rotate(45 %.1f %d)\"/>",
                       x - 4.5, y - 4, lanes[l].colour, x, y);
        else
            buf_printf(out, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4.5\" fill=\"%s\"%s/>", x, y, lanes[l].colour,
                       info->flags & OPF_SILENT ? " fill-opacity=\"0.4\"" : "");
        buf_puts(out, "</g>\n");
    }
    buf_puts(out, "</svg>\n");

    /* the listing as a table */
    buf_puts(out, "<table>\n<tr><th>#</th><th>ms</th><th>track</th><th>op</th><th>operands</th><th>line</th></tr>\n");
    for (uint32_t i = 0; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        const BcOpInfo *info = &bc_op_info[in->op];
        buf_reset(&tmp);
        bc_list_operands(p, in, &tmp);
        const char *a = (const char *)tmp.data;
        size_t al = tmp.len;
        if (al && a[0] == ' ') {
            a++;
            al--;
        }
        buf_printf(out, "<tr id=\"op%" PRIu32 "\"><td class=\"n\">%" PRIu32 "</td><td class=\"n\">%" PRIu64
                        "</td><td>%s</td><td>%s</td><td class=\"args\"",
                   i, i, in->t, bc_track_name(info->flags), info->name);
        if (al > CELL_MAX) {
            buf_puts(out, " title=\"");
            esc_cut(out, a, al, HOVER_MAX);
            buf_putc(out, '"');
        }
        buf_putc(out, '>');
        esc_cut(out, a, al, CELL_MAX);
        buf_printf(out, "</td><td>%" PRIu32 ":%" PRIu32 "</td></tr>\n", in->line, in->col);
    }
    buf_puts(out, "</table>\n</body>\n</html>\n");
    buf_fini(&tmp);
}
