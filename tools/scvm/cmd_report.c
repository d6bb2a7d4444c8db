/* SPDX-License-Identifier: MIT */
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
** back together"), by junit_merge (runtime/run/run_junit.h). */
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
#include "runtime/run/run_junit.h"
#include "cli.h"
#include "scvm.h"

/* report --merge of JUnit reports: runtime/run/run_junit.h does it. */
static int merge_junit(const Opts *o)
{
    Buf b;
    buf_init(&b);
    char err[1024];
    size_t n = 0;
    int st = junit_merge(o->ops, o->n_ops, &b, &n, err, sizeof err);
    if (st)
        fprintf(stderr, "scvm: %s\n", err);
    else
        st = cli_put_output(o->output, &b);     /* prints its own errors */
    buf_fini(&b);
    if (!st && strcmp(o->output, "-") != 0)
        fprintf(stderr, "scvm: report --merge: %zu testcases of %zu reports in %s\n", n, o->n_ops, o->output);
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
