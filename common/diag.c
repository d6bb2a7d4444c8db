/* SPDX-License-Identifier: MIT */
/* diag.c - recording and printing diagnostics. */
#include "diag.h"
#include "utf8.h"
#include "buf.h"
#include "jsonw.h"
#include "sc_alloc.h"

#include <stdarg.h>
#include <string.h>

#include "common/vformat.h"

void diags_init(Diags *d) { memset(d, 0, sizeof *d); }

void diags_fini(Diags *d)
{
    for (size_t i = 0; i < d->n; i++)
        sc_free(d->v[i].msg);
    sc_free(d->v);
    for (size_t i = 0; i < d->n_kept; i++)
        sc_free(d->kept[i]);
    sc_free(d->kept);
    memset(d, 0, sizeof *d);
}

const char *diags_keep(Diags *d, const char *s)
{
    char **nk = sc_realloc(d->kept, (d->n_kept + 1) * sizeof *nk);
    char *c = nk ? sc_strdup(s) : NULL;
    if (nk)
        d->kept = nk;
    if (!c) {
        d->oom = true;
        return NULL;
    }
    d->kept[d->n_kept++] = c;
    return c;
}

static bool disabled(const Diags *d, const char *flag)
{
    for (size_t i = 0; flag && i < d->n_disabled; i++)
        if (strcmp(d->disabled[i], flag) == 0)
            return true;
    return false;
}

void diag_add(Diags *d, DiagLevel level, const char *file, uint32_t line,
              uint32_t col, const char *flag, const char *fmt, ...)
{
    size_t max = d->max_errors ? d->max_errors : 100;
    if (level == DIAG_WARNING && disabled(d, flag))
        return;
    if (level == DIAG_WARNING && d->werror)
        level = DIAG_ERROR;
    if (level == DIAG_NOTE && (d->n == 0 || d->truncated))
        return;
    /* Past the limit errors are counted, not kept: a reader that compares
    ** the count before and after a check must see its error (fuzz_eliza:
    ** a mock without 'method' passed its check after 100 errors, and its
    ** missing method was read). */
    if (d->truncated || (level == DIAG_ERROR && d->errors >= max)) {
        d->truncated = true;
        d->errors += level == DIAG_ERROR;
        return;
    }
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        Diag *v = sc_realloc(d->v, cap * sizeof *v);
        if (!v) {
            d->oom = true;
            d->errors++;
            return;
        }
        d->v = v;
        d->cap = cap;
    }
    Buf b;
    buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    buf_puts(&b, tmp);
    buf_putc(&b, 0);
    if (b.oom) {
        buf_fini(&b);
        d->oom = true;
        d->errors++;
        return;
    }
    d->v[d->n++] = (Diag){ level, file, line, col, flag, flag ? flag : d->code, (char *)b.data };
    if (level == DIAG_ERROR)
        d->errors++;
    else if (level == DIAG_WARNING)
        d->warnings++;
}

bool diags_failed(const Diags *d) { return d->errors > 0 || d->oom; }

static const char *level_name(DiagLevel l)
{
    return l == DIAG_ERROR ? "error" : l == DIAG_WARNING ? "warning" : "note";
}

static const char *level_color(DiagLevel l)
{
    return l == DIAG_ERROR ? "\033[1;31m" : l == DIAG_WARNING ? "\033[1;35m" : "\033[1;36m";
}

/* Finds line `line` (1-based) in src; returns its start and length. */
static bool find_line(const char *src, size_t n, uint32_t line, const char **start, size_t *len)
{
    size_t i;
    if (!line || !text_line_start(src, n, line - 1, &i))
        return false;
    const char *nl = memchr(src + i, '\n', n - i);
    *start = src + i;
    *len = nl ? (size_t)(nl - (src + i)) : n - i;
    if (*len && (*start)[*len - 1] == '\r')
        (*len)--;
    return true;
}

/* A warning (by name) printed more often than this shows its first
** DIAG_REPEAT_SHOWN and then a count: 1,000 identical complaints bury the
** one error that matters.  JSON and SARIF keep every one. */
enum { DIAG_REPEAT_SHOWN = 3, DIAG_MAX_FLAGS = 32 };

typedef struct FlagCount {
    const char *flag;
    const Diag *hidden;      /* the first warning not shown */
    size_t n;
} FlagCount;

/* The entry of flag in t (added when new and there is room), or NULL. */
static FlagCount *flag_count(FlagCount *t, size_t *nt, const char *flag)
{
    for (size_t i = 0; i < *nt; i++)
        if (strcmp(t[i].flag, flag) == 0)
            return &t[i];
    if (*nt == DIAG_MAX_FLAGS)
        return NULL;
    t[*nt] = (FlagCount){ flag, NULL, 0 };
    return &t[(*nt)++];
}

void diags_print(const Diags *d, FILE *out, const DiagPrintOpts *o)
{
    FlagCount seen[DIAG_MAX_FLAGS];
    size_t n_seen = 0;
    bool hide = false;       /* the warning before (and so its notes) is hidden */
    for (size_t i = 0; i < d->n; i++) {
        const Diag *g = &d->v[i];
        if (g->level == DIAG_WARNING && g->flag) {
            FlagCount *c = flag_count(seen, &n_seen, g->flag);
            hide = c && ++c->n > DIAG_REPEAT_SHOWN;
            if (hide && !c->hidden)
                c->hidden = g;
        } else if (g->level != DIAG_NOTE) {
            hide = false;
        }
        if (hide)
            continue;
        if (o && o->color)
            fputs("\033[1m", out);
        if (g->file)
            fprintf(out, "%s:", g->file);
        if (g->line)
            fprintf(out, "%u:%u:", g->line, g->col);
        if (o && o->color)
            fprintf(out, " %s%s:\033[0m\033[1m %s", level_color(g->level), level_name(g->level), g->msg);
        else
            fprintf(out, " %s: %s", level_name(g->level), g->msg);
        if (g->flag && g->level != DIAG_NOTE)
            fprintf(out, " [-W%s%s]", d->werror && g->level == DIAG_ERROR ? "error=" : "", g->flag);
        if (o && o->color)
            fputs("\033[0m", out);
        fputc('\n', out);
        const char *ls;
        size_t ll;
        if (o && o->caret && o->src && g->line && find_line(o->src, o->src_len, g->line, &ls, &ll)) {
            fprintf(out, "%5u | %.*s\n      | ", g->line, (int)ll, ls);
            for (uint32_t c = 1; c < g->col && c <= ll; c++)
                fputc(ls[c - 1] == '\t' ? '\t' : ' ', out);
            fputs(o->color ? "\033[1;32m^\033[0m\n" : "^\n", out);
        }
    }
    for (size_t i = 0; i < n_seen; i++) {
        const Diag *h = seen[i].hidden;
        if (!h)
            continue;
        fprintf(out, "%s:", h->file ? h->file : "scc");
        if (h->line)
            fprintf(out, "%u:%u:", h->line, h->col);
        fprintf(out, " note: %zu more [-W%s] warnings like these, from here on, are not shown "
                     "(--diagnostics-format=json lists every one)\n",
                seen[i].n - DIAG_REPEAT_SHOWN, seen[i].flag);
    }
    if (d->truncated)
        fprintf(out, "%s: note: too many errors, stopping\n",
                d->n && d->v[0].file ? d->v[0].file : "scc");
}

void diags_print_json(const Diags *d, FILE *out)
{
    Buf b;
    buf_init(&b);
    for (size_t i = 0; i < d->n; i++) {
        const Diag *g = &d->v[i];
        buf_reset(&b);
        JsonW w;
        jw_open_obj(&w, &b);
        jw_kcstr(&w, "file", g->file);
        jw_ku64(&w, "line", g->line);
        jw_ku64(&w, "column", g->col);
        jw_kcstr(&w, "severity", level_name(g->level));
        jw_kcstr(&w, "message", g->msg);
        jw_kcstr(&w, "flag", g->flag);
        jw_end(&w);
        jw_nl(&w);
        fwrite(b.data, 1, b.len, out);
    }
    buf_fini(&b);
}

int diag_errf(char *err, size_t cap, int code, const char *fmt, ...)
{
    if (err && cap) {
        SC_VFORMAT(err, cap, fmt);
    }
    return code;
}
