/* cmd_report.c - `scvm report --merge -o OUT.xml SHARD.xml...`: the JUnit
** reports of a suite's shards (scvm run --shard ... --junit) made into the
** one report a single run writes (docs/ci.md, "Putting the reports back
** together").
**
** Every <testcase> element is kept as it was written, grouped by its
** <testsuite> (in the order the suites first appear) and put back in pack
** order: a pack's entries are sorted by source path, which each testcase
** carries as its file attribute.  The totals are counted again from the
** testcases; the shards' <properties> go (they named the shard).  A
** testcase found in two inputs is an error: the shards overlapped. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "cli.h"
#include "scvm.h"

typedef struct Case {
    char *text;                 /* the element, as written (with its indentation and newline) */
    char *file, *name;          /* attributes, escaped as written */
    unsigned suite;
    uint64_t ms;
    int kind;                   /* 0 passed, 1 failure, 2 error, 3 skipped */
} Case;

/* The value of attribute key (" name=\"") inside [p, end), or NULL. */
static char *attr(const char *p, const char *end, const char *key)
{
    const char *a = strstr(p, key);
    if (!a || a >= end)
        return NULL;
    a += strlen(key);
    const char *q = memchr(a, '"', (size_t)(end - a));
    return q ? sc_strndup(a, (size_t)(q - a)) : NULL;
}

static int by_pack_order(const void *x, const void *y)
{
    const Case *a = x, *b = y;
    if (a->suite != b->suite)
        return a->suite < b->suite ? -1 : 1;
    int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
    return c ? c : strcmp(a->name, b->name);
}

int scvm_report(const Opts *o)
{
    if (!o->merge)
        return cli_usage(scvm_usage, "%s", "report: what to do? (--merge)");
    if (!o->output)
        return cli_usage(scvm_usage, "%s", "report --merge: where to? (-o OUT.xml)");
    if (o->n_ops == 0)
        return cli_usage(scvm_usage, "%s", "report --merge: no input report");
    Case *cs = NULL;
    size_t n = 0, cap = 0;
    char *suites[256];
    unsigned n_suites = 0;
    int st = 0;
    for (size_t f = 0; f < o->n_ops && !st; f++) {
        char *x = NULL;
        size_t len = 0;
        int e = file_read_all(o->ops[f], 256u << 20, &x, &len);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot read: %s\n", o->ops[f], strerror(e));
            st = SC_IO;
            break;
        }
        if (!strstr(x, "<testsuites")) {
            fprintf(stderr, "scvm: %s: not a JUnit XML report (no <testsuites>)\n", o->ops[f]);
            st = SC_USAGE;
        }
        for (char *ts = x; !st && (ts = strstr(ts, "<testsuite ")) != NULL;) {
            char *ts_end = strchr(ts, '>'), *close = strstr(ts, "</testsuite>");
            char *sname = ts_end ? attr(ts, ts_end, " name=\"") : NULL;
            if (!sname || !close) {
                sc_free(sname);
                fprintf(stderr, "scvm: %s: a <testsuite> without a name or an end\n", o->ops[f]);
                st = SC_USAGE;
                break;
            }
            unsigned si = 0;
            while (si < n_suites && strcmp(suites[si], sname) != 0)
                si++;
            if (si == n_suites) {
                if (n_suites == sizeof suites / sizeof suites[0]) {
                    sc_free(sname);
                    fprintf(stderr, "scvm: %s: more than 256 test suites\n", o->ops[f]);
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
                const char *body = open_end;
                c->kind = strstr(body, "<failure") && strstr(body, "<failure") < end   ? 1
                          : strstr(body, "<error") && strstr(body, "<error") < end     ? 2
                          : strstr(body, "<skipped") && strstr(body, "<skipped") < end ? 3
                                                                                       : 0;
                c->text = sc_strndup(line0, (size_t)(end - line0));
                if (!c->name || !c->text) {
                    sc_free(c->name);
                    sc_free(c->file);
                    sc_free(c->text);
                    fprintf(stderr, "scvm: %s: a <testcase> without a name\n", o->ops[f]);
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
            fprintf(stderr, "scvm: report --merge: testcase '%s' of '%s' is in two reports: the shards overlap\n",
                    cs[k].name, suites[cs[k].suite]);
            st = SC_USAGE;
        }
    if (!st) {
        /* the totals, then each suite: the single run's layout */
        size_t cnt[4] = { 0 }, all = 0;
        uint64_t ms = 0;
        for (size_t k = 0; k < n; k++) {
            cnt[cs[k].kind]++;
            ms += cs[k].ms;
            all++;
        }
        Buf b;
        buf_init(&b);
        buf_printf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"scvm\" tests=\"%zu\" "
                       "failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n",
                   all, cnt[1], cnt[2], cnt[3], (double)ms / 1000.0);
        for (unsigned si = 0; si < n_suites; si++) {
            size_t c4[4] = { 0 }, sn = 0;
            uint64_t sms = 0;
            for (size_t k = 0; k < n; k++)
                if (cs[k].suite == si) {
                    c4[cs[k].kind]++;
                    sms += cs[k].ms;
                    sn++;
                }
            buf_printf(&b, "  <testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
                           "time=\"%.3f\">\n", suites[si], sn, c4[1], c4[2], c4[3], (double)sms / 1000.0);
            for (size_t k = 0; k < n; k++)
                if (cs[k].suite == si) {
                    buf_puts(&b, cs[k].text);
                    buf_putc(&b, '\n');
                }
            buf_puts(&b, "  </testsuite>\n");
        }
        buf_puts(&b, "</testsuites>\n");
        st = cli_put_output(o->output, &b);     /* prints its own errors */
        buf_fini(&b);
        if (!st && strcmp(o->output, "-") != 0)
            fprintf(stderr, "scvm: report --merge: %zu testcases of %zu reports in %s\n", n, o->n_ops, o->output);
    }
    if (st == SC_RUNTIME && !n_suites)
        fputs("scvm: out of memory\n", stderr);
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
