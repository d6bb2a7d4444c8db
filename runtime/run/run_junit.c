/* SPDX-License-Identifier: MIT */
/* run_junit.c - JUnit XML written, read and merged (run_junit.h).  Before
** this file the report was written in two places with two escapers that
** disagreed (the aut target dropped control characters and left ' as
** it was), read by a scanner in scvm.c and merged in cmd_report.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/run/run_junit.h"

void junit_esc(Buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
        switch (*p) {
        case '&': buf_puts(b, "&amp;"); break;
        case '<': buf_puts(b, "&lt;"); break;
        case '>': buf_puts(b, "&gt;"); break;
        case '"': buf_puts(b, "&quot;"); break;
        case '\'': buf_puts(b, "&apos;"); break;
        default:
            if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
                buf_puts(b, "&#xFFFD;");   /* not allowed in XML 1.0, even escaped */
            else
                buf_putc(b, *p);
        }
    }
}

static void counts(Buf *b, const JunitTotals *t)
{
    buf_printf(b, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", t->tests,
               t->failures, t->errors, t->skipped, (double)t->ms / 1000.0);
}

void junit_begin(Buf *b, const JunitTotals *t)
{
    buf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"scvm\"");
    counts(b, t);
}

/* A <testsuite> whose name is written as given (already escaped). */
static void suite_begin_raw(Buf *b, const char *name, const JunitTotals *t)
{
    buf_puts(b, "  <testsuite name=\"");
    buf_puts(b, name);
    buf_putc(b, '"');
    counts(b, t);
}

void junit_suite_begin(Buf *b, const char *name, const JunitTotals *t)
{
    buf_puts(b, "  <testsuite name=\"");
    junit_esc(b, name);
    buf_putc(b, '"');
    counts(b, t);
}

void junit_suite_end(Buf *b) { buf_puts(b, "  </testsuite>\n"); }

void junit_end(Buf *b) { buf_puts(b, "</testsuites>\n"); }

void junit_case(Buf *b, const JunitCase *c)
{
    static const char *const EL[] = { [JUNIT_FAILURE] = "failure", [JUNIT_ERROR] = "error",
                                      [JUNIT_SKIPPED] = "skipped" };
    buf_puts(b, "    <testcase classname=\"");
    junit_esc(b, c->classname);
    buf_puts(b, "\" name=\"");
    junit_esc(b, c->name);
    if (c->file) {
        buf_puts(b, "\" file=\"");
        junit_esc(b, c->file);
    }
    buf_printf(b, "\" time=\"%.3f\"", (double)c->ms / 1000.0);
    if (!c->props && !c->system_out && c->verdict == JUNIT_PASSED) {
        buf_puts(b, "/>\n");
        return;
    }
    buf_putc(b, '>');
    if (c->props) {
        buf_puts(b, "\n      <properties>");
        buf_puts(b, c->props);
        buf_puts(b, "</properties>");
    }
    if (c->verdict != JUNIT_PASSED) {
        buf_printf(b, "\n      <%s message=\"", EL[c->verdict]);
        junit_esc(b, c->message);
        if (c->type)
            buf_printf(b, "\" type=\"%s", c->type);
        buf_puts(b, "\"/>");
    }
    if (c->system_out) {
        buf_puts(b, "\n      <system-out>");
        junit_esc(b, c->system_out);
        buf_puts(b, "</system-out>");
    }
    buf_puts(b, "\n    </testcase>\n");
}

/* ---- reading ---- */

/* The value of attribute key (" name=\"") inside [p, end) as written, or
** NULL (also when out of memory). */
static char *attr(const char *p, const char *end, const char *key)
{
    const char *a = strstr(p, key);
    if (!a || a >= end)
        return NULL;
    a += strlen(key);
    const char *q = memchr(a, '"', (size_t)(end - a));
    return q ? sc_strndup(a, (size_t)(q - a)) : NULL;
}

/* The value of attribute key inside [t, end) into dst, entities decoded,
** cut to cap - 1 bytes ("" when absent). */
static void attr_decoded(const char *t, const char *end, const char *key, char *dst, size_t cap)
{
    static const struct { const char *ent; char c; } E[] = {
        { "&amp;", '&' }, { "&quot;", '"' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&apos;", '\'' } };
    size_t o = 0;
    const char *a = strstr(t, key);
    if (a && a <= end) {
        for (a += strlen(key); a < end && *a != '"' && o + 1 < cap; a++) {
            size_t j = 0;
            for (; j < 5 && strncmp(a, E[j].ent, strlen(E[j].ent)) != 0; j++)
                ;
            dst[o++] = j < 5 ? E[j].c : *a;
            if (j < 5)
                a += strlen(E[j].ent) - 1;
        }
    }
    dst[o] = 0;
}

size_t junit_times(const char *x, void (*each)(void *ctx, const char *name, double secs), void *ctx)
{
    static const char SCHED[] = "<property name=\"scheduled_time\" value=\"";
    size_t cases = 0;
    for (const char *t = x; (t = strstr(t, "<testcase")) != NULL;) {
        const char *end = strchr(t, '>');
        if (!end)
            break;
        char name[512], tm[64];
        attr_decoded(t, end, " name=\"", name, sizeof name);
        attr_decoded(t, end, " time=\"", tm, sizeof tm);
        cases++;
        char *stop;
        double d = strtod(tm, &stop);
        const char *close = strstr(end, "</testcase>"), *next = strstr(end, "<testcase");
        const char *sp = strstr(end, SCHED);
        if (sp && close && end[-1] != '/' && sp < close && (!next || sp < next)) {
            double sd = strtod(sp + strlen(SCHED), NULL);
            if (sd > d && sd < 1e12)
                d = sd;
        }
        if (name[0] && tm[0] && !*stop && d >= 0 && d < 1e12)
            each(ctx, name, d);
        t = end + 1;
    }
    return cases;
}

/* ---- merging ---- */

typedef struct Case {
    char *text;                 /* the element, as written (with its indentation and newline) */
    char *file, *name;          /* attributes, escaped as written */
    unsigned suite;
    uint64_t ms;
    int kind;                   /* 0 passed, 1 failure, 2 error, 3 skipped */
} Case;

static int by_pack_order(const void *x, const void *y)
{
    const Case *a = x, *b = y;
    if (a->suite != b->suite)
        return a->suite < b->suite ? -1 : 1;
    int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
    return c ? c : strcmp(a->name, b->name);
}

/* The first occurrence of s in [p, end), or NULL. */
static const char *before(const char *p, const char *end, const char *s)
{
    const char *f = strstr(p, s);
    return f && f < end ? f : NULL;
}

int junit_merge(const char *const *paths, size_t n_paths, Buf *out, size_t *cases, char *err, size_t errn)
{
    enum { MAX_SUITES = 256 };
    Case *cs = NULL;
    size_t n = 0, cap = 0;
    char *suites[MAX_SUITES];
    unsigned n_suites = 0;
    int st = 0;
    for (size_t f = 0; f < n_paths && !st; f++) {
        char *x = NULL;
        size_t len = 0;
        int e = file_read_all(paths[f], 256u << 20, &x, &len);
        if (e) {
            snprintf(err, errn, "%s: cannot read: %s", paths[f], strerror(e));
            st = SC_IO;
            break;
        }
        if (!strstr(x, "<testsuites")) {
            snprintf(err, errn, "%s: not a JUnit XML report (no <testsuites>)", paths[f]);
            st = SC_USAGE;
        }
        for (char *ts = x; !st && (ts = strstr(ts, "<testsuite ")) != NULL;) {
            char *ts_end = strchr(ts, '>'), *close = strstr(ts, "</testsuite>");
            char *sname = ts_end ? attr(ts, ts_end, " name=\"") : NULL;
            if (!sname || !close) {
                sc_free(sname);
                snprintf(err, errn, "%s: a <testsuite> without a name or an end", paths[f]);
                st = SC_USAGE;
                break;
            }
            unsigned si = 0;
            while (si < n_suites && strcmp(suites[si], sname) != 0)
                si++;
            if (si == n_suites) {
                if (n_suites == MAX_SUITES) {
                    sc_free(sname);
                    snprintf(err, errn, "%s: more than %d test suites", paths[f], MAX_SUITES);
                    st = SC_USAGE;
                    break;
                }
                suites[n_suites++] = sname;
            } else {
                sc_free(sname);
            }
            for (char *tc = ts; (tc = strstr(tc, "<testcase ")) != NULL && tc < close;) {
                char *open_end = strchr(tc, '>');
                if (!open_end || open_end > close)
                    break;
                char *end = open_end[-1] == '/' ? open_end + 1 : strstr(open_end, "</testcase>");
                if (!end || end > close)
                    break;
                if (open_end[-1] != '/')
                    end += strlen("</testcase>");
                char *line0 = tc;           /* the element with its indentation */
                while (line0 > x && line0[-1] == ' ')
                    line0--;
                if (n == cap) {
                    size_t nc = cap ? 2 * cap : 64;
                    Case *ncs = sc_realloc(cs, nc * sizeof *ncs);
                    if (!ncs) {
                        snprintf(err, errn, "out of memory");
                        st = SC_RUNTIME;
                        break;
                    }
                    cs = ncs;
                    cap = nc;
                }
                Case *c = &cs[n];
                memset(c, 0, sizeof *c);
                c->suite = si;
                c->name = attr(tc, open_end, " name=\"");
                c->file = attr(tc, open_end, " file=\"");
                char *t = attr(tc, open_end, " time=\"");
                double secs = t ? strtod(t, NULL) : 0;
                sc_free(t);
                c->ms = isfinite(secs) && secs > 0 && secs < 1e12 ? (uint64_t)llround(secs * 1000.0) : 0;
                c->kind = before(open_end, end, "<failure") ? 1
                          : before(open_end, end, "<error") ? 2
                          : before(open_end, end, "<skipped") ? 3
                                                              : 0;
                c->text = sc_strndup(line0, (size_t)(end - line0));
                if (!c->name || !c->text) {
                    sc_free(c->name);
                    sc_free(c->file);
                    sc_free(c->text);
                    snprintf(err, errn, "%s: a <testcase> without a name", paths[f]);
                    st = SC_USAGE;
                    break;
                }
                n++;
                tc = end;
            }
            ts = close + 1;
        }
        sc_free(x);
    }
    if (!st && n)
        qsort(cs, n, sizeof *cs, by_pack_order);
    for (size_t k = 1; !st && k < n; k++)
        if (cs[k].suite == cs[k - 1].suite && !strcmp(cs[k].name, cs[k - 1].name) &&
            !strcmp(cs[k].file ? cs[k].file : "", cs[k - 1].file ? cs[k - 1].file : "")) {
            snprintf(err, errn, "report --merge: testcase '%s' of '%s' is in two reports: the shards overlap",
                     cs[k].name, suites[cs[k].suite]);
            st = SC_USAGE;
        }
    if (!st) {
        /* the totals, then each suite: the single run's layout */
        JunitTotals all = { .tests = n };
        size_t *kinds[4] = { NULL, &all.failures, &all.errors, &all.skipped };
        for (size_t k = 0; k < n; k++) {
            if (kinds[cs[k].kind])
                (*kinds[cs[k].kind])++;
            all.ms += cs[k].ms;
        }
        junit_begin(out, &all);
        for (unsigned si = 0; si < n_suites; si++) {
            JunitTotals one = { 0 };
            size_t *k1[4] = { NULL, &one.failures, &one.errors, &one.skipped };
            for (size_t k = 0; k < n; k++)
                if (cs[k].suite == si) {
                    if (k1[cs[k].kind])
                        (*k1[cs[k].kind])++;
                    one.ms += cs[k].ms;
                    one.tests++;
                }
            suite_begin_raw(out, suites[si], &one);
            for (size_t k = 0; k < n; k++)
                if (cs[k].suite == si) {
                    buf_puts(out, cs[k].text);
                    buf_putc(out, '\n');
                }
            junit_suite_end(out);
        }
        junit_end(out);
        if (out->oom) {
            snprintf(err, errn, "out of memory");
            st = SC_RUNTIME;
        }
    }
    *cases = n;
    for (size_t k = 0; k < n; k++) {
        sc_free(cs[k].text);
        sc_free(cs[k].name);
        sc_free(cs[k].file);
    }
    sc_free(cs);
    for (unsigned si = 0; si < n_suites; si++)
        sc_free(suites[si]);
    return st;
}

void junit_classname(char *out, size_t cap, const char *suite, const char *scenario)
{
    const char *base = strrchr(suite, '/');
    base = base ? base + 1 : suite;
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    int k = snprintf(out, cap, "%.*s.", (int)n, base);
    for (const char *c = scenario; *c && k >= 0 && (size_t)k + 1 < cap; c++)
        out[k++] = *c == '.' ? '_' : *c;
    if (k >= 0 && (size_t)k < cap)
        out[k] = 0;
}

int junit_write(const char *path, const Buf *b)
{
    if (b->oom)
        return ENOMEM;
    int e = file_mkparents(path);
    if (e)
        return e;
    return file_write_atomic(path, b->data ? (const void *)b->data : "", b->len);
}
