/* cmd_run.c - scvm run: play a suite's scenarios on the sim target, or
** one scenario on the pty target.
**
** A lone .scb run without a selection or suite option prints its events
** only, as it always has; a pack or a selection prints a
** {"kind":"scenario"} header line before each scenario's events and a
** summary on stderr ("N passed, N failed, N skipped").  -j N plays
** scenarios on worker threads into per-scenario buffers that are written
** in index order, so the output does not depend on N or on timing. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/rt_clock.h"
#include "runtime/rt_sim.h"
#include "vm/vm.h"
#include "cli.h"
#include "scvm.h"

/* --realtime: a monotonic clock started now; else NULL (virtual time). */
static RtClock *clock_of(const Opts *o, RtRealClock *rc)
{
    if (!o->realtime)
        return NULL;
    rt_clock_realtime_init(rc);
    return &rc->clock;
}

/* CI in the environment, as CI services set it ("true", "1", ...): not
** unset, empty, "0" or "false". */
static bool ci_env(void)
{
    const char *v = getenv("CI");
    return v && *v && strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0;
}

/* ---- one .scb ---- */

/* -t pty: the program in a PTY; events stream to stdout (or -o). */
static int run_pty(const Opts *o, const char *path, const BcProgram *prog)
{
    char dir[4096], goldens[8192];
    const char *sl = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", sl ? (int)(sl - path) : 1, sl ? path : ".");
    if (sl == path)
        snprintf(dir, sizeof dir, "/");
    if (!o->goldens) {
        /* <FILE's folder>/goldens/<scenario>/<terminal profile>/screenshots:
        ** where the stdlib keeps them and --artifacts writes them (the
        ** Scenario-Format's path; docs/golden-screens.md) */
        char sc[256], prof[128];
        rt_pty_safe_name(prog->str[prog->meta.name].s, sc, sizeof sc);
        rt_pty_profile_of(prog, prof, sizeof prof);
        snprintf(goldens, sizeof goldens, "%s/goldens/%s/%s/screenshots", dir, sc, prof);
    }
    FILE *out = stdout;
    if (o->output && strcmp(o->output, "-") != 0 && !(out = fopen(o->output, "w"))) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", o->output, strerror(errno));
        return SC_IO;
    }
    RtPtyOpts po = {
        .argv = o->command, .artifacts = o->artifacts, .goldens = o->goldens ? o->goldens : goldens,
        .update_goldens = o->update_goldens, .events = out, .diag = stderr, .cast = o->cast,
        .cancel_key = o->cancel_key, .cells = o->cells, .speed = o->speed, .scenario_dir = dir,
        .keep_workspace = o->keep_ws, .type_delay_ms = o->type_delay_ms, .ci = o->ci || ci_env(),
    };
    RtTarget *t = rt_pty_new(&po);
    if (!t) {
        fputs("scvm: out of memory\n", stderr);
        if (out != stdout)
            fclose(out);
        return SC_RUNTIME;
    }
    VmOpts vo = { .speed = o->speed };
    int st = vm_run(prog, t, rt_pty_clock(t), &vo);
    const char *msg;
    PtyErr e = rt_pty_result(t, &msg);
    t->vt->destroy(t);
    if (out != stdout && fclose(out) != 0 && !st)
        st = SC_IO;
    return o->dm_exit ? (int)e : st;
}

/* The sim target (or --count): events streamed to stdout unless -o names
** a file; then built in memory and written at the end (all or nothing). */
static int run_sim(const Opts *o, const char *path, const BcProgram *prog)
{
    bool to_file = o->output && strcmp(o->output, "-") != 0;
    Buf mem;
    buf_init(&mem);
    RtTarget *t;
    if (o->count) {
        t = rt_count_new();
    } else {
        RtSimOpts so = { .out = to_file ? NULL : stdout, .mem = to_file ? &mem : NULL,
                         .line_flush = o->realtime };
        t = rt_sim_new(&so);
    }
    if (!t) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    VmOpts vo = { .speed = o->speed };
    RtRealClock rc;
    RtClock *clock = clock_of(o, &rc);
    int st = vm_run(prog, t, clock, &vo);
    if (st == SC_IO && !o->count)
        fprintf(stderr, "scvm: %s: cannot write: %s\n", to_file ? o->output : "<stdout>",
                strerror(rt_sim_errno(t)));
    else if (st == SC_RUNTIME)
        fprintf(stderr, "scvm: %s: out of memory\n", cli_display_name(path));
    else if (st)
        fprintf(stderr, "scvm: %s: run failed (status %d)\n", cli_display_name(path), st);
    if (!st && o->count) {
        RtCounts n;
        rt_count_counts(t, &n);
        if (o->json)
            buf_printf(&mem, "{\"events\":%llu,\"ops\":%llu,\"string_bytes\":%llu}\n",
                       (unsigned long long)n.events, (unsigned long long)n.ops, (unsigned long long)n.bytes);
        else
            buf_printf(&mem, "%llu events\n", (unsigned long long)n.events);
        st = cli_put_output(o->output, &mem);
    } else if (!st && to_file) {
        st = cli_put_output(o->output, &mem);
    }
    t->vt->destroy(t);
    buf_fini(&mem);
    return st;
}

/* ---- a suite ---- */

typedef struct Result {
    Buf out;
    int status;            /* vm_run's */
    uint64_t duration;     /* scaled ms of the last op */
    bool done, skipped;
} Result;

typedef struct Runner {
    const Suite *s;
    const Opts *o;
    const uint32_t *sel;
    size_t n;
    Result *res;
    size_t next;           /* next scenario to start */
    bool stop;             /* --fail-fast saw a failure: start nothing after it */
    size_t stop_at;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} Runner;

static void header_line(Buf *b, const PackEntry *e, uint32_t idx)
{
    buf_printf(b, "{\"kind\":\"scenario\",\"index\":%u,\"name\":", (unsigned)idx);
    buf_json_str(b, e->name, strlen(e->name));
    buf_puts(b, ",\"source\":");
    buf_json_str(b, e->source, strlen(e->source));
    buf_puts(b, "}\n");
}

/* Plays scenario k of the selection into r->out (or straight to direct). */
static void play(const Runner *rn, size_t k, Result *r, FILE *direct)
{
    const Opts *o = rn->o;
    const PackEntry *e = suite_entry(rn->s, rn->sel[k]);
    const BcProgram *p = e->prog;
    r->duration = rt_clock_scale(p->insn[p->n_insn - 1].t, o->speed);
    RtTarget *t;
    if (o->count) {
        t = rt_count_new();
    } else {
        if (direct) {
            Buf h;
            buf_init(&h);
            header_line(&h, e, rn->sel[k]);
            if (h.len && fwrite(h.data, 1, h.len, direct) != h.len) {
                buf_fini(&h);
                r->status = SC_IO;
                return;
            }
            buf_fini(&h);
        } else {
            header_line(&r->out, e, rn->sel[k]);
        }
        RtSimOpts so = { .out = direct, .mem = direct ? NULL : &r->out, .line_flush = o->realtime && direct };
        t = rt_sim_new(&so);
    }
    if (!t) {
        r->status = SC_RUNTIME;
        return;
    }
    VmOpts vo = { .speed = o->speed };
    RtRealClock rc;
    RtClock *clock = clock_of(o, &rc);
    r->status = vm_run(p, t, clock, &vo);
    if (o->count) {
        RtCounts c;
        rt_count_counts(t, &c);
        if (o->json) {
            buf_puts(&r->out, "{\"name\":");
            buf_json_str(&r->out, e->name, strlen(e->name));
            buf_printf(&r->out, ",\"events\":%llu,\"ops\":%llu}\n", (unsigned long long)c.events,
                       (unsigned long long)c.ops);
        } else {
            buf_printf(&r->out, "%s: %llu events\n", e->name, (unsigned long long)c.events);
        }
    }
    if (r->out.oom && !r->status)
        r->status = SC_RUNTIME;
    t->vt->destroy(t);
}

static void *worker(void *arg)
{
    Runner *rn = arg;
    for (;;) {
        pthread_mutex_lock(&rn->mu);
        size_t k = rn->next;
        bool go = k < rn->n && !(rn->stop && k > rn->stop_at);
        if (go)
            rn->next++;
        pthread_mutex_unlock(&rn->mu);
        if (!go)
            break;
        Result *r = &rn->res[k];
        play(rn, k, r, NULL);
        pthread_mutex_lock(&rn->mu);
        r->done = true;
        if (r->status && rn->o->fail_fast && (!rn->stop || k < rn->stop_at)) {
            rn->stop = true;
            rn->stop_at = k;
        }
        pthread_cond_broadcast(&rn->cv);
        pthread_mutex_unlock(&rn->mu);
    }
    return NULL;
}

static void progress(size_t done, size_t n, const char *name)
{
    enum { W = 30 };
    size_t fill = n ? done * W / n : W;
    char bar[W + 1];
    for (size_t i = 0; i < W; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[W] = 0;
    fprintf(stderr, "\r\033[K[%s] %zu/%zu %.40s", bar, done, n, name);
    fflush(stderr);
}

static void xml_str(Buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
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

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int write_junit(const Opts *o, const Suite *s, const uint32_t *sel, size_t n, const Result *res,
                       size_t failed, size_t errors, size_t skipped)
{
    Buf b;
    buf_init(&b);
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++)
        total += res[k].skipped ? 0 : res[k].duration;
    const char *suite = base_name(o->ops[0]);
    buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"scvm\"");
    buf_printf(&b, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", n, failed,
               errors, skipped, (double)total / 1000.0);
    buf_puts(&b, "  <testsuite name=\"");
    xml_str(&b, suite);
    buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", n, failed,
               errors, skipped, (double)total / 1000.0);
    if (o->shard_n)
        buf_printf(&b, "    <properties><property name=\"shard\" value=\"%u/%u\"/></properties>\n", o->shard_i,
                   o->shard_n);
    for (size_t k = 0; k < n; k++) {
        const PackEntry *e = suite_entry(s, sel[k]);
        const Result *r = &res[k];
        buf_puts(&b, "    <testcase classname=\"");
        xml_str(&b, suite);
        buf_puts(&b, "\" name=\"");
        xml_str(&b, e->name);
        buf_puts(&b, "\" file=\"");
        xml_str(&b, e->source);
        buf_printf(&b, "\" time=\"%.3f\"", r->skipped ? 0.0 : (double)r->duration / 1000.0);
        if (r->skipped)
            buf_puts(&b, ">\n      <skipped message=\"not run: an earlier scenario failed (--fail-fast)\"/>\n"
                         "    </testcase>\n");
        else if (r->status == SC_FAILED)
            buf_puts(&b, ">\n      <failure message=\"a check did not hold\" type=\"failed\"/>\n    </testcase>\n");
        else if (r->status)
            buf_printf(&b, ">\n      <error message=\"run failed (status %d)\" type=\"error\"/>\n    </testcase>\n",
                       r->status);
        else
            buf_puts(&b, "/>\n");
    }
    buf_puts(&b, "  </testsuite>\n</testsuites>\n");
    int e = b.oom ? ENOMEM : file_write_atomic(o->junit, b.data, b.len);
    buf_fini(&b);
    if (e) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", o->junit, strerror(e));
        return SC_IO;
    }
    return 0;
}

/* Plays the selected entries: a header line before each scenario's
** events, a summary on stderr, JUnit on request. */
static int run_suite(const Opts *o, const Suite *s, const uint32_t *sel, size_t n)
{
    Result *res = sc_calloc(n ? n : 1, sizeof *res);
    if (!res) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    for (size_t k = 0; k < n; k++)
        buf_init(&res[k].out);
    bool to_file = o->output && strcmp(o->output, "-") != 0;
    bool bar = !o->no_progress && n > 1 && isatty(STDERR_FILENO) && (to_file || !isatty(STDOUT_FILENO));
    Buf all;
    buf_init(&all);
    Runner rn = { .s = s, .o = o, .sel = sel, .n = n, .res = res };
    pthread_mutex_init(&rn.mu, NULL);
    pthread_cond_init(&rn.cv, NULL);
    unsigned jobs = o->jobs > n ? (unsigned)(n ? n : 1) : o->jobs;
    pthread_t th[MAX_JOBS];
    unsigned started = 0;
    bool direct = jobs <= 1 && !to_file && !o->count;
    if (!direct)
        for (; started < jobs && jobs > 1; started++)
            if (pthread_create(&th[started], NULL, worker, &rn) != 0)
                break;
    size_t passed = 0, failed = 0, errors = 0, skipped = 0;
    bool stopped = false;
    int worst = 0;
    for (size_t k = 0; k < n; k++) {
        Result *r = &res[k];
        if (stopped) {
            r->skipped = true;
            skipped++;
            continue;
        }
        if (started) {
            pthread_mutex_lock(&rn.mu);
            while (!r->done && !(rn.stop && k > rn.stop_at))
                pthread_cond_wait(&rn.cv, &rn.mu);
            pthread_mutex_unlock(&rn.mu);
            if (!r->done) {   /* never started: --fail-fast */
                r->skipped = true;
                skipped++;
                stopped = true;
                continue;
            }
        } else {
            play(&rn, k, r, direct ? stdout : NULL);
        }
        if (to_file)
            buf_put(&all, r->out.data, r->out.len);
        else if (r->out.len && fwrite(r->out.data, 1, r->out.len, stdout) != r->out.len && !r->status)
            r->status = SC_IO;
        if (!to_file)
            fflush(stdout);
        buf_fini(&r->out);
        const PackEntry *e = suite_entry(s, sel[k]);
        if (r->status == 0) {
            passed++;
        } else {
            if (r->status == SC_FAILED)
                failed++;
            else
                errors++;
            if (bar)
                fputs("\r\033[K", stderr);
            fprintf(stderr, "scvm: %s: %s: %s\n", cli_display_name(o->ops[0]), e->name,
                    r->status == SC_FAILED ? "failed (a check did not hold)"
                    : r->status == SC_IO   ? "cannot write the events"
                                           : "run failed");
            if (r->status > worst)
                worst = r->status;
            if (o->fail_fast)
                stopped = true;
        }
        if (bar)
            progress(k + 1, n, e->name);
    }
    pthread_mutex_lock(&rn.mu);
    rn.stop = true;
    rn.stop_at = 0;
    pthread_mutex_unlock(&rn.mu);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (bar)
        fputs("\r\033[K", stderr);
    if (to_file && !worst) {
        int e = all.oom ? ENOMEM : file_write_atomic(o->output, all.data ? (const void *)all.data : "", all.len);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write: %s\n", o->output, strerror(e));
            worst = SC_IO;
        }
    }
    if (o->junit) {
        int js = write_junit(o, s, sel, n, res, failed, errors, skipped);
        if (js > worst)
            worst = js;
    }
    fprintf(stderr, "%zu passed, %zu failed, %zu skipped\n", passed, failed + errors, skipped);
    for (size_t k = 0; k < n; k++)
        buf_fini(&res[k].out);
    pthread_mutex_destroy(&rn.mu);
    pthread_cond_destroy(&rn.cv);
    buf_fini(&all);
    sc_free(res);
    return worst;
}

int scvm_run(const Opts *o)
{
    Suite *s;
    uint32_t *sel = NULL;
    size_t n = 0;
    int st = scvm_open(o, "run", &s, &sel, &n);
    if (st)
        return st;
    /* A lone .scb, nothing about suites asked for: its events only. */
    bool one = !o->selecting && !suite_pack(s);
    if (strcmp(o->target, "pty") == 0) {
        if (!one)
            st = cli_usage(scvm_usage, "%s", "target 'pty' plays one .scb (not a pack or a selection)");
        else
            st = run_pty(o, o->ops[0], suite_entry(s, 0)->prog);
    } else if (one) {
        st = run_sim(o, o->ops[0], suite_entry(s, 0)->prog);
    } else {
        st = run_suite(o, s, sel, n);
    }
    sc_free(sel);
    suite_free(s);
    return st;
}
