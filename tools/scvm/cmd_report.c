/* cmd_report.c - `scvm report`: the reports of a run (docs/report.md).
**
**   scvm report --merge -o OUT.xml SHARD.xml...   JUnit reports merged
**   scvm report --merge -o OUT_DIR SHARD_DIR...   --report folders merged
**   scvm report [-o OUT.html] FILE.scb|FILE.scp   the schedule as a page
**
** and the glue between `scvm run --report DIR` and runtime/report: a page
** per run as it finishes, report.json and the index at the end.
**
** JUnit: the reports of a suite's shards (scvm run --shard ... --junit) made
** into the one report a single run writes (docs/ci.md, "Putting the reports
** back together").
**
** Every <testcase> element is kept as it was written, grouped by its
** <testsuite> (in the order the suites first appear) and put back in pack
** order: a pack's entries are sorted by source path, which each testcase
** carries as its file attribute.  The totals are counted again from the
** testcases; the shards' <properties> go (they named the shard).  A
** testcase found in two inputs is an error: the shards overlapped. */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/report/report.h"
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

static int merge_junit(const Opts *o)
{
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

/* ---- scvm run --report DIR ---- */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

const char *scvm_artifacts_of(const Opts *o, const char *scenario, char *out, size_t n)
{
    const char *root = o->artifacts ? o->artifacts : o->report;
    if (!root)
        return NULL;
    char sc[256];
    rt_pty_safe_name(scenario, sc, sizeof sc);
    snprintf(out, n, "%s/%s", root, sc);
    return out;
}

const char *scvm_cast_of(const Opts *o, const char *artifacts, char *out, size_t n)
{
    if (o->cast || !o->report || !artifacts)
        return o->cast;
    snprintf(out, n, "%s/session.cast", artifacts);
    return out;
}

int scvm_report_open(const Opts *o)
{
    if (!o->report)
        return 0;
    int e = file_mkdirs(o->report);
    if (e) {
        fprintf(stderr, "scvm: %s: cannot make the report folder: %s\n", o->report, strerror(e));
        return SC_IO;
    }
    return 0;
}

int scvm_report_run(const Opts *o, const Suite *s, uint32_t idx, const ScvmRunReport *rr, Buf *record)
{
    if (!o->report)
        return 0;
    const PackEntry *e = suite_entry(s, idx);
    ReportRun r = {
        .index = idx, .name = e->name, .source = e->source, .suite = base_name(o->ops[0]), .target = o->target,
        .status = rr->status, .skipped = rr->skipped, .unjudged = rr->unjudged, .why = rr->why,
        .duration_ms = rr->duration_ms,
        .events = rr->events, .events_len = rr->events_len, .diag = rr->diag, .diag_len = rr->diag_len,
        .artifacts = rr->artifacts,
    };
    buf_reset(record);
    report_run_record(&r, record);
    if (rr->skipped)
        return record->oom ? SC_RUNTIME : 0;
    char name[300], path[4096];
    report_page_name(&r, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", o->report, name);
    Buf page;
    buf_init(&page);
    report_run_page(&r, &page);
    int err = page.oom || record->oom ? ENOMEM : file_write_atomic(path, page.data, page.len);
    buf_fini(&page);
    if (err) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", path, strerror(err));
        return SC_IO;
    }
    return 0;
}

/* report.json and index.html into dir, from report.json's text. */
static int write_index(const char *dir, const Buf *json)
{
    char path[4096], why[256];
    Buf page;
    buf_init(&page);
    int err = 0;
    if (!report_index_page((const char *)json->data, json->len, &page, why, sizeof why)) {
        fprintf(stderr, "scvm: internal error: the report does not read back: %s\n", why);
        buf_fini(&page);
        return SC_RUNTIME;
    }
    snprintf(path, sizeof path, "%s/report.json", dir);
    err = json->oom ? ENOMEM : file_write_atomic(path, json->data, json->len);
    if (!err) {
        snprintf(path, sizeof path, "%s/index.html", dir);
        err = page.oom ? ENOMEM : file_write_atomic(path, page.data, page.len);
    }
    buf_fini(&page);
    if (err) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", path, strerror(err));
        return SC_IO;
    }
    return 0;
}

int scvm_report_close(const Opts *o, const Buf *records, size_t n)
{
    if (!o->report)
        return 0;
    Buf json;
    buf_init(&json);
    report_json(base_name(o->ops[0]), o->target, records, n, &json);
    int st = write_index(o->report, &json);
    buf_fini(&json);
    if (!st && !o->quiet)
        fprintf(stderr, "scvm: report: %s/index.html\n", o->report);
    return st;
}

/* ---- report --merge -o OUT_DIR SHARD_DIR... ---- */

/* Copies the tree at from to to (files and folders; links as the files
** they name are not followed: they are skipped). */
static int copy_tree(const char *from, const char *to)
{
    int e = file_mkdirs(to);
    if (e)
        return e;
    DIR *d = opendir(from);
    if (!d)
        return errno;
    struct dirent *de;
    while (!e && (de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char a[4096], b[4096];
        if ((size_t)snprintf(a, sizeof a, "%s/%s", from, de->d_name) >= sizeof a ||
            (size_t)snprintf(b, sizeof b, "%s/%s", to, de->d_name) >= sizeof b) {
            e = ENAMETOOLONG;
            break;
        }
        struct stat st;
        if (lstat(a, &st) != 0) {
            e = errno;
        } else if (S_ISDIR(st.st_mode)) {
            e = copy_tree(a, b);
        } else if (S_ISREG(st.st_mode)) {
            char *data;
            size_t len;
            e = file_read_all(a, (size_t)1 << 30, &data, &len);
            if (!e) {
                e = file_write_atomic(b, data, len);
                if (!e && (st.st_mode & 0111))
                    chmod(b, st.st_mode & 07777);
                sc_free(data);
            }
        }
    }
    closedir(d);
    return e;
}

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int merge_reports(const Opts *o)
{
    if (!strcmp(o->output, "-")) {
        return cli_usage(scvm_usage, "%s", "report --merge of report folders: -o names a folder");
    }
    size_t n = o->n_ops;
    char **text = sc_calloc(n, sizeof *text);
    size_t *len = sc_calloc(n, sizeof *len);
    int st = text && len ? 0 : SC_RUNTIME;
    for (size_t f = 0; f < n && !st; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/report.json", o->ops[f]);
        int e = is_dir(o->ops[f]) ? file_read_all(path, (size_t)256 << 20, &text[f], &len[f]) : ENOTDIR;
        if (e) {
            fprintf(stderr, "scvm: %s: cannot read: %s (not a --report folder?)\n", path, strerror(e));
            st = e == ENOENT || e == ENOTDIR ? SC_USAGE : SC_IO;
        }
    }
    Buf json;
    buf_init(&json);
    char why[512];
    if (!st && !report_merge((const char *const *)text, len, n, &json, why, sizeof why)) {
        fprintf(stderr, "scvm: report --merge: %s\n", why);
        st = SC_USAGE;
    }
    /* each shard's pages and artifact folders, then the merged index */
    if (!st) {
        int e = file_mkdirs(o->output);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot make the folder: %s\n", o->output, strerror(e));
            st = SC_IO;
        }
    }
    size_t runs = 0;
    for (size_t f = 0; f < n && !st; f++) {
        DIR *d = opendir(o->ops[f]);
        struct dirent *de;
        while (d && !st && (de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.' || !strcmp(de->d_name, "report.json") || !strcmp(de->d_name, "index.html"))
                continue;
            char a[4096], b[4096];
            snprintf(a, sizeof a, "%s/%s", o->ops[f], de->d_name);
            snprintf(b, sizeof b, "%s/%s", o->output, de->d_name);
            struct stat sa;
            if (lstat(a, &sa) != 0 || !(S_ISDIR(sa.st_mode) || S_ISREG(sa.st_mode)))
                continue;
            int e = S_ISDIR(sa.st_mode) ? copy_tree(a, b) : 0;
            if (S_ISREG(sa.st_mode)) {
                char *data;
                size_t l;
                e = file_read_all(a, (size_t)1 << 30, &data, &l);
                if (!e) {
                    e = file_write_atomic(b, data, l);
                    sc_free(data);
                }
                runs += strstr(de->d_name, ".html") != NULL;
            }
            if (e) {
                fprintf(stderr, "scvm: %s: cannot copy to %s: %s\n", a, b, strerror(e));
                st = SC_IO;
            }
        }
        if (d)
            closedir(d);
    }
    if (!st)
        st = write_index(o->output, &json);
    if (!st)
        fprintf(stderr, "scvm: report --merge: %zu run pages of %zu reports in %s/index.html\n", runs, n, o->output);
    buf_fini(&json);
    for (size_t f = 0; text && f < n; f++)
        sc_free(text[f]);
    sc_free(text);
    sc_free(len);
    return st;
}

/* ---- report FILE: the schedule ---- */

static int schedule_page(const Opts *o)
{
    Suite *s;
    uint32_t *sel = NULL;
    size_t n = 0;
    int st = scvm_open(o, "report", &s, &sel, &n);
    if (st)
        return st;
    if (n != 1) {
        fprintf(stderr, "scvm: %s: %zu scenarios selected: name one with --scenario\n", cli_display_name(o->ops[0]),
                n);
        st = SC_USAGE;
    } else {
        const PackEntry *e = suite_entry(s, sel ? sel[0] : 0);
        Buf b;
        buf_init(&b);
        BcListOpts lo = { .lines = true, .source = e->source };
        bc_list_html(e->prog, &lo, &b);
        st = cli_put_output(o->output ? o->output : "-", &b);
        buf_fini(&b);
    }
    sc_free(sel);
    suite_free(s);
    return st;
}

int scvm_report(const Opts *o)
{
    if (!o->merge) {
        if (o->n_ops != 1)
            return cli_usage(scvm_usage, "%s", "report: one FILE.scb or FILE.scp (or --merge)");
        return schedule_page(o);
    }
    if (!o->output)
        return cli_usage(scvm_usage, "%s", "report --merge: where to? (-o OUT.xml, or -o OUT_DIR for --report folders)");
    if (o->n_ops == 0)
        return cli_usage(scvm_usage, "%s", "report --merge: no input report");
    return is_dir(o->ops[0]) ? merge_reports(o) : merge_junit(o);
}
