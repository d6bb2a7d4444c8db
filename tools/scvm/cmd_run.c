/* SPDX-License-Identifier: MIT */
/* cmd_run.c - scvm run: play a suite's scenarios on the sim target, or
** one scenario on the pty target.
**
** A lone .scb run without a selection or suite option prints its events
** only, as it always has; a pack or a selection prints a
** {"kind":"scenario"} header line before each scenario's events and a
** summary on stderr ("N passed, N failed, N skipped").  -j N plays
** scenarios on the run library's worker pool (runtime/run/run_pool.h:
** threads for the simulation, a process each for the PTY and agent
** targets) into per-scenario buffers or files that are written in index
** order, so the output does not depend on N or on timing; JUnit is
** written by runtime/run/run_junit.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/rt_cancel.h"
#include "runtime/rt_clock.h"
#include "runtime/rt_sim.h"
#include "runtime/run/run_junit.h"
#include "runtime/run/run_pool.h"
#include "runtime/run/run_target.h"
#include "vm/vm.h"
#include "cli.h"
#include "outcome.h"
#include "scvm.h"

/* --realtime: a monotonic clock started now; else NULL (virtual time). */
static RtClock *clock_of(const Opts *o, RtRealClock *rc)
{
    if (!o->realtime)
        return NULL;
    rt_clock_realtime_init(rc);
    return &rc->clock;
}

/* ---- one .scb ---- */

/* Plays prog on the PTY target: events to out, diagnostics to diag.
** Returns the run's status; *dm the data model's error. */
static int pty_play(const Opts *o, const BcProgram *prog, const char *dir, const char *goldens,
                    const char *artifacts, bool art_tmp, char *used_art, size_t used_n, FILE *out, FILE *diag,
                    PtyErr *dm, Result *r, const char *scb_path)
{
    char cast[8192];
    RtPtyOpts po = {
        .argv = o->command, .artifacts = artifacts, .goldens = goldens, .update_goldens = o->update_goldens,
        .raw_goldens = o->raw_goldens,
        .events = out, .diag = diag, .cast = scvm_cast_of(o, artifacts, cast, sizeof cast), .cancel_key = o->cancel_key, .cells = o->cells,
        .ptybox_colors = scvm_ptybox_colors(o), .verbose = o->verbose,
        .speed = o->speed, .scenario_dir = dir, .keep_workspace = o->keep_ws, .type_delay_ms = o->type_delay_ms,
        .ci = o->ci || scvm_ci_env(), .explain = o->explain ? out : NULL, .explain_json = o->json,
        .artifacts_tmp = art_tmp,
    };
    if (o->explain)
        po.events = NULL;   /* the explanation is the output */
    *dm = PTY_E_INTERNAL;
    /* --policy FILE over the scenario's policy, then the flags
    ** (docs/driver.md, "The policy"; docs/pty.md). */
    char *overlay = NULL;
    if (o->policy_file) {
        size_t len;
        int e = file_read_all(o->policy_file, 1u << 20, &overlay, &len);
        if (e) {
            fprintf(diag, "scvm: %s: cannot read: %s\n", o->policy_file, e == EFBIG ? "larger than 1 MiB" : strerror(e));
            *dm = PTY_E_IO;
            if (r) {
                char m[PATH_MAX + 16];
                snprintf(m, sizeof m, "%s: cannot read", o->policy_file);
                result_why(r, m);
            }
            return SC_IO;
        }
        po.policy_overlay = overlay;
    }
    scvm_policy_flags(o, &po.policy_flags);
    /* The .scb itself goes into the artifacts, for `scvm replay` (the
    ** policy's artifacts.dir may name them when the command line does not). */
    char *scb = NULL;
    size_t scb_len = 0;
    if (scb_path && strcmp(scb_path, "-") != 0 &&
        file_read_all(scb_path, SUITE_READ_MAX, &scb, &scb_len) == 0) {
        po.scb = scb;
        po.scb_len = scb_len;
    }
    RtTarget *t = run_target("pty")->create(&po);
    if (!t) {
        sc_free(scb);
        sc_free(overlay);
        fputs("scvm: out of memory\n", diag);
        return SC_RUNTIME;
    }
    VmOpts vo = { .speed = o->speed };
    int st = o->explain ? rt_pty_explain(t, prog) : vm_run(prog, t, rt_pty_clock(t), &vo);
    const char *msg;
    *dm = rt_pty_result(t, &msg);
    if (used_art && used_n)
        snprintf(used_art, used_n, "%s", rt_pty_artifacts(t) ? rt_pty_artifacts(t) : "");
    if (r) {
        r->has_goldens = true;
        rt_pty_goldens(t, &r->goldens);
        result_why(r, *dm ? msg : NULL);
    }
    t->vt->destroy(t);
    sc_free(overlay);
    sc_free(scb);
    return st;
}

/* -t pty: the program in a PTY; events stream to stdout (or -o). */
static int run_pty(const Opts *o, const char *path, const char *name, const BcProgram *prog)
{
    char dir[4096], goldens[8192];
    FILE *out;
    int st = scvm_one_session(o, path, prog, dir, sizeof dir, goldens, sizeof goldens, &out);
    if (st)
        return st;
    PtyErr e;
    /* --json: the RunResult, as the data model's `run --json` prints it,
    ** instead of the event stream (from the artifacts, a temporary folder
    ** without --artifacts). */
    bool rr = o->json && !o->explain;
    char tmp[PATH_MAX];
    const char *art = o->artifacts;
    if (rr && !art) {
        int te = file_mkdtemp("scvm-run", tmp, sizeof tmp);
        if (te) {
            fprintf(stderr, "scvm: cannot make a temporary folder in %s: %s\n", tmp, strerror(te));
            if (out != stdout)
                fclose(out);
            return o->dm_exit ? PTY_E_IO : SC_IO;
        }
        art = tmp;
    }
    /* a session can take minutes: a progress line on a terminal */
    uint64_t total = rt_clock_scale(prog->insn[prog->n_insn - 1].t, o->speed);
    ScvmLive *live = o->explain ? NULL : scvm_live_start(o, name, total);
    char used[4096] = "";
    st = pty_play(o, prog, dir, goldens, art, art == tmp, used, sizeof used, rr ? NULL : out, scvm_live_diag(live),
                  &e, NULL, path);
    scvm_live_stop(live);
    if (rr) {
        char rp[4200], *text = NULL;
        size_t len = 0;
        snprintf(rp, sizeof rp, "%s/run.json", used[0] ? used : art);
        if (file_read_all(rp, 256u << 20, &text, &len) == 0) {
            if (fwrite(text, 1, len, out) != len && !st)
                st = SC_IO;
        }
        sc_free(text);
        if (art == tmp)
            file_remove_tree(tmp);
    }
    if (out != stdout && fclose(out) != 0 && !st)
        st = SC_IO;
    if (rt_cancel_signal())
        return 128 + rt_cancel_signal();
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
                         .line_flush = o->realtime, .unchecked = true };
        t = run_target("sim")->create(&so);
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
        if (o->json) {
            JsonW w;
            jw_open_obj(&w, &mem);
            jw_ku64(&w, "events", n.events);
            jw_ku64(&w, "ops", n.ops);
            jw_ku64(&w, "string_bytes", n.bytes);
            jw_end(&w);
            jw_nl(&w);
        } else
            buf_printf(&mem, "%llu events\n", (unsigned long long)n.events);
        st = cli_put_output(o->output, &mem);
    } else if (!st && to_file) {
        st = cli_put_output(o->output, &mem);
    }
    if (!st && !o->count && rt_sim_unchecked(t)) {
        fprintf(stderr, "scvm: %s%s\n", scvm_unchecked_text(rt_sim_unchecked(t), 1, (char[160]){ 0 }, 160),
                o->allow_skipped ? " (allowed: --allow-skipped)" : ": not evaluated is not passed (--allow-skipped accepts it)");
        if (!o->allow_skipped)
            st = SC_FAILED;
    }
    t->vt->destroy(t);
    buf_fini(&mem);
    return st;
}

/* ---- a suite ---- */


typedef struct Tally {
    size_t passed, failed, errors, skipped;
    int worst;
    uint64_t unchecked;     /* the sim target: assertions not evaluated */
    size_t unchecked_in;    /* in how many scenarios (counted as skipped) */
} Tally;

/* -o FILE of a suite: whole scenarios gathered in pend and written to
** the file's temporary RT_SIM_BATCH bytes at a time, as standard output
** gets them (not the whole run held in memory: its pages cost more than
** the run where faults are dear); renamed into place only when every
** scenario passed (common/fileio.h, FileAtomic). */
typedef struct OutFile {
    FileAtomic f;
    Buf pend;
} OutFile;

static void outfile_open(OutFile *of, const char *path)
{
    (void)file_atomic_open(&of->f, path);   /* an error is sticky: outfile_close reports it */
    buf_init(&of->pend);
}

static void outfile_put(OutFile *of, const void *data, size_t len)
{
    buf_put(&of->pend, data, len);
    if (of->pend.len >= RT_SIM_BATCH && !of->pend.oom) {
        (void)file_atomic_write(&of->f, of->pend.data, of->pend.len);
        buf_reset(&of->pend);
    }
}

/* keep: the rest written and the file committed (returns 0 or an errno);
** otherwise the temporary removed, the file left as it was. */
static int outfile_close(OutFile *of, bool keep)
{
    int e = 0;
    if (keep && of->pend.oom) {
        e = ENOMEM;
    } else if (keep) {
        (void)file_atomic_write(&of->f, of->pend.data, of->pend.len);   /* its error is the commit's */
        e = file_atomic_commit(&of->f);
    }
    file_atomic_abort(&of->f);   /* not kept, or out of memory: the temporary removed */
    buf_fini(&of->pend);
    return e;
}

typedef struct SimRun {
    const Suite *s;
    const Opts *o;
    const uint32_t *sel;
    size_t n;
    Result *res;
    bool direct;           /* --realtime, one at a time: straight to stdout, each event as it happens */
    bool batched;          /* stdout gets whole scenarios in blocks (settle()) */
    bool in_batch;         /* batched, one at a time: played straight into batch */
    bool to_file, bar;
    OutFile file;          /* to_file: -o FILE */
    Buf batch;             /* batched: the scenarios not yet written */
    size_t emitted;        /* scenarios 0 .. emitted-1 emitted, */
    size_t counted;        /* 0 .. counted-1 counted (passed, failed, skipped) */
    Tally ty;
} SimRun;

static void header_line(Buf *b, const PackEntry *e, uint32_t idx)
{
    JsonW w;
    jw_open_obj(&w, b);
    jw_kcstr(&w, "kind", "scenario");
    jw_ku64(&w, "index", idx);
    jw_kcstr(&w, "name", e->name);
    jw_kcstr(&w, "source", e->source);
    jw_end(&w);
    jw_nl(&w);
}

/* Plays scenario k of the selection into `into` (r->out, or the run's
** batch), or straight to direct. */
static void play(const SimRun *rn, size_t k, Result *r, Buf *into, FILE *direct)
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
            header_line(into, e, rn->sel[k]);
        }
        RtSimOpts so = { .out = direct, .mem = direct ? NULL : into, .line_flush = o->realtime && direct,
                         .unchecked = true };
        t = run_target("sim")->create(&so);
    }
    if (!t) {
        r->status = SC_RUNTIME;
        return;
    }
    VmOpts vo = { .speed = o->speed };
    RtRealClock rc;
    RtClock *clock = clock_of(o, &rc);
    uint64_t t0 = run_now_ms();
    r->status = vm_run(p, t, clock, &vo);
    r->wall_ms = run_now_ms() - t0;
    if (o->count) {
        RtCounts c;
        rt_count_counts(t, &c);
        if (o->json) {
            JsonW w;
            jw_open_obj(&w, into);
            jw_kcstr(&w, "name", e->name);
            jw_ku64(&w, "events", c.events);
            jw_ku64(&w, "ops", c.ops);
            jw_end(&w);
            jw_nl(&w);
        } else {
            buf_printf(into, "%s: %llu events\n", e->name, (unsigned long long)c.events);
        }
    }
    if (into->oom && !r->status)
        r->status = SC_RUNTIME;
    if (!o->count)
        r->unchecked = rt_sim_unchecked(t);
    t->vt->destroy(t);
}

/* Counts a finished scenario; a failure is named on stderr. */
static void tally(Tally *t, const Opts *o, const char *name, int status, bool bar)
{
    if (status == 0) {
        t->passed++;
        return;
    }
    if (status == SC_FAILED)
        t->failed++;
    else
        t->errors++;
    if (bar)
        fputs("\r\033[K", stderr);
    fprintf(stderr, "scvm: %s: %s: %s\n", cli_display_name(o->ops[0]), name,
            status == SC_FAILED ? "failed (a check did not hold)"
            : status == SC_IO   ? "cannot write the events"
            : status > 128      ? "interrupted"
                                : "run failed");
    if (status > t->worst)
        t->worst = status;
}

/* The end of a suite's run: the -o file (all or nothing), JUnit, the
** summary line.  Returns the run's status. */
static int finish_suite(const Opts *o, const Suite *s, const uint32_t *sel, size_t n, const Result *res, Tally *t,
                        OutFile *file, bool to_file)
{
    if (to_file) {
        int e = outfile_close(file, !t->worst);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write: %s\n", o->output, strerror(e));
            t->worst = SC_IO;
        }
    }
    if (o->junit) {
        int js = scvm_write_junit(o, s, sel, n, res, t->failed, t->errors, t->skipped);
        if (js > t->worst)
            t->worst = js;
    }
    if (o->report) {
        Buf *recs = sc_calloc(n ? n : 1, sizeof *recs);
        int rs = recs ? 0 : SC_RUNTIME;
        for (size_t k = 0; k < n && !rs; k++) {
            const Result *r = &res[k];
            if (r->skipped) {
                ScvmRunReport rr = {
                    .skipped = true, .duration_ms = r->duration,
                    .why = r->skip_why ? r->skip_why : "not run: an earlier scenario failed (--fail-fast)",
                };
                rs = scvm_report_run(o, s, sel[k], &rr, (Buf *)&r->rec);
            }
            recs[k] = r->rec;
        }
        if (!rs)
            rs = scvm_report_close(o, recs, n);
        sc_free(recs);
        if (rs > t->worst)
            t->worst = rs;
    }
    if (t->unchecked) {
        char m[200];
        fprintf(stderr, "scvm: %s%s\n", scvm_unchecked_text(t->unchecked, t->unchecked_in, m, sizeof m),
                o->allow_skipped ? " (allowed: --allow-skipped)" : ": not evaluated is not passed (--allow-skipped accepts it)");
        if (!o->allow_skipped && t->worst < SC_FAILED)
            t->worst = SC_FAILED;
    }
    fprintf(stderr, "%zu passed, %zu failed, %zu skipped\n", t->passed, t->failed + t->errors, t->skipped);
    return t->worst;
}

/* A suite on the simulation: the pool's hooks (runtime/run/run_pool.h). */
static int sim_work(void *ctx, size_t k)
{
    SimRun *rn = ctx;
    play(rn, k, &rn->res[k], rn->in_batch ? &rn->batch : &rn->res[k].out, rn->direct ? stdout : NULL);
    return rn->res[k].status;
}

static bool stop_on_failure(void *ctx, size_t k, int status)
{
    (void)k;
    return status && ((SimRun *)ctx)->o->fail_fast;
}

/* Counts scenario k, its status final: skipped when nothing was judged,
** else passed or failed (named on stderr). */
static void count_one(SimRun *rn, size_t k)
{
    const Result *r = &rn->res[k];
    if (!r->status && r->unchecked) {   /* nothing judged: not a pass */
        rn->ty.skipped++;
        rn->ty.unchecked += r->unchecked;
        rn->ty.unchecked_in++;
    } else {
        tally(&rn->ty, rn->o, suite_entry(rn->s, rn->sel[k])->name, r->status, rn->bar);
    }
}

/* Settles the scenarios emitted and not yet counted.  Batched (stdout,
** not --realtime or --report): writes the batch once it holds
** RT_SIM_BATCH bytes, or whatever it holds when all, and only then counts
** the scenarios in it, so a failure named on stderr comes after the
** events before it; a write that fails fails each of them (SC_IO), as a
** scenario's own write did before there were batches.  Returns whether
** one of those counted failed. */
static bool settle(SimRun *rn, bool all)
{
    int e = 0;
    if (rn->batched && rn->batch.oom) {
        e = ENOMEM;
        buf_fini(&rn->batch);
    } else if (rn->batched) {
        e = rt_sim_batch_write(&rn->batch, stdout, all);
        if (rn->batch.len)
            return false;       /* not written yet: counted with its block */
    }
    bool failed = false;
    for (; rn->counted < rn->emitted; rn->counted++) {
        Result *r = &rn->res[rn->counted];
        if (e && !r->status)
            r->status = e == ENOMEM ? SC_RUNTIME : SC_IO;
        failed |= r->status != 0;
        count_one(rn, rn->counted);
    }
    return failed;
}

static bool sim_emit(void *ctx, size_t k, int status, uint64_t wall_ms)
{
    SimRun *rn = ctx;
    const Opts *o = rn->o;
    Result *r = &rn->res[k];
    (void)status, (void)wall_ms;    /* play() keeps both */
    if (rn->to_file) {
        outfile_put(&rn->file, r->out.data, r->out.len);
    } else if (rn->direct) {
        fflush(stdout);
    } else if (rn->batched) {
        if (!rn->in_batch)
            buf_put(&rn->batch, r->out.data, r->out.len);
    } else if (r->out.len && file_write_stream(stdout, r->out.data, r->out.len) && !r->status) {
        r->status = SC_IO;
    }
    if (o->report) {
        char um[160];
        ScvmRunReport rr = {
            .status = r->status, .duration_ms = r->duration, .events = (const char *)r->out.data,
            .events_len = r->out.len, .unjudged = !r->status && r->unchecked,
            .why = r->status == SC_FAILED ? "a check did not hold"
                   : r->status            ? "the run failed"
                   : r->unchecked         ? scvm_unchecked_text(r->unchecked, 1, um, sizeof um)
                                          : NULL,
        };
        int rs = scvm_report_run(o, rn->s, rn->sel[k], &rr, &r->rec);
        if (rs && !r->status)
            r->status = rs;
    }
    buf_fini(&r->out);
    rn->emitted = k + 1;
    /* a failed scenario is written and named at once (and --fail-fast
    ** stops after it) */
    bool failed = settle(rn, !rn->batched || r->status != 0);
    if (rn->bar)
        scvm_progress(k + 1, rn->n, suite_entry(rn->s, rn->sel[k])->name);
    return failed && o->fail_fast;
}

static void sim_skip(void *ctx, size_t k, RunSkip why)
{
    SimRun *rn = ctx;
    (void)why;
    rn->res[k].skipped = true;
    rn->ty.skipped++;
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
    /* all zero is every Result's empty state: its pages are first touched
    ** when its scenario is played */
    int ro = scvm_report_open(o);
    if (ro) {
        sc_free(res);
        return ro;
    }
    bool to_file = o->output && strcmp(o->output, "-") != 0;
    SimRun rn = { .s = s, .o = o, .sel = sel, .n = n, .res = res, .to_file = to_file,
                  .bar = n > 1 && scvm_progress_on(o, n) };
    if (to_file)
        outfile_open(&rn.file, o->output);
    buf_init(&rn.batch);
    /* --realtime, one at a time to stdout: straight there, each event as
    ** it happens; otherwise stdout gets whole scenarios in blocks of
    ** RT_SIM_BATCH bytes (one write each, not one a scenario), played
    ** straight into the block when one at a time.  --report writes each
    ** scenario as it ends (its page records whether that worked). */
    rn.direct = o->realtime && o->jobs <= 1 && !to_file && !o->count && !o->report;
    rn.batched = !o->realtime && !to_file && !o->report;
    rn.in_batch = rn.batched && o->jobs <= 1;
    RunPool pool = { .mode = RUN_POOL_THREADS, .n = n, .jobs = rn.direct ? 1 : o->jobs, .ctx = &rn,
                     .work = sim_work, .finished = stop_on_failure, .emit = sim_emit, .skip = sim_skip };
    int worst;
    if (run_pool(&pool) != 0) {
        fputs("scvm: out of memory\n", stderr);
        worst = SC_RUNTIME;
    } else {
        settle(&rn, true);
        if (rn.bar)
            fputs("\r\033[K", stderr);
        worst = finish_suite(o, s, sel, n, res, &rn.ty, &rn.file, to_file);
    }
    for (size_t k = 0; k < n; k++)
        result_fini(&res[k]);
    if (to_file)
        (void)outfile_close(&rn.file, false);   /* not finished: nothing written */
    buf_fini(&rn.batch);
    sc_free(res);
    return worst;
}

/* ---- a suite on the PTY target ---- */

/* Appends the file at path to b (and removes it); false when it cannot
** be read. */
static bool slurp(const char *path, Buf *b)
{
    char *data;
    size_t len;
    if (file_read_all(path, (size_t)1 << 30, &data, &len) != 0)
        return false;
    buf_put(b, data, len);
    sc_free(data);
    remove(path);
    return true;
}

/* One scenario of the suite, in a child process: the PTY target's
** SIGCHLD handling and orphan sweep are process-wide, so sessions never
** share a process.  Events go to ev, diagnostics to dg. */
static int pty_child(const Opts *o, const Suite *s, uint32_t idx, const char *tmp, const char *ev, const char *dg,
                     const char *rs)
{
    /* this process's stderr is the scenario's diagnostics file */
    FILE *out = fopen(ev, "w"), *diag = fopen(dg, "w");
    if (!out || !diag || dup2(fileno(diag), STDERR_FILENO) < 0)
        return SC_IO;
    fclose(diag);
    if (rt_cancel_install() != 0) {     /* this process's own pipe */
        fprintf(stderr, "scvm: cannot catch signals: %s\n", strerror(errno));
        return SC_RUNTIME;
    }
    const PackEntry *e = suite_entry(s, idx);
    char dir[4096], goldens[8192], art[8192], sc[256];
    if (suite_pack(s)) {
        /* the entry's files where a PTY run needs them: beside it */
        char root[4096];
        snprintf(root, sizeof root, "%s/%u", tmp, (unsigned)idx);
        int st = scvm_write_entry(e, root, dir, sizeof dir);
        if (st)
            return st;
    } else if (o->source_dir) {     /* a .scb: its files are where its source is */
        snprintf(dir, sizeof dir, "%s", o->source_dir);
    } else {
        scvm_folder_of(o->ops[0], dir, sizeof dir);
    }
    rt_pty_safe_name(e->name, sc, sizeof sc);
    if (o->goldens) {
        char prof[128];
        rt_pty_profile_of(e->prog, prof, sizeof prof);
        snprintf(goldens, sizeof goldens, "%s/%s/%s/screenshots", o->goldens, sc, prof);
    } else {
        char base[4096];
        if (o->source_dir)
            snprintf(base, sizeof base, "%s", o->source_dir);
        else
            scvm_folder_of(o->ops[0], base, sizeof base);
        scvm_goldens_of(e->prog, base, goldens, sizeof goldens);
    }
    const char *arts = scvm_artifacts_of(o, e->name, art, sizeof art);
    PtyErr dm;
    Result r;
    memset(&r, 0, sizeof r);
    int st;
    if (strcmp(o->target, "agent") == 0) {     /* the same, against a real agent */
        AgentOutcome ao;
        st = scvm_agent_play(o, s, idx, e->source, dir, goldens, arts, out, &ao);
        r.goldens = ao.goldens;
        result_why(&r, ao.why);
    } else {
        st = pty_play(o, e->prog, dir, goldens, arts, false, NULL, 0, out, stderr, &dm, &r, NULL);
    }
    if (fclose(out) != 0 && !st)
        st = SC_IO;
    fflush(stderr);
    /* for the parent's JUnit: the screenshots' fates, then the message */
    FILE *f = fopen(rs, "w");
    if (f) {
        const RtPtyGoldens *g = &r.goldens;
        fprintf(f, "%u %u %u %u %u %u\n%s", g->matched, g->mismatched, g->written, g->missing, g->updated,
                g->recorded, r.why ? r.why : "");
        fclose(f);
    }
    result_fini(&r);
    return rt_cancel_signal() ? 128 + rt_cancel_signal() : st;
}

/* A suite on the PTY (or agent) target, each scenario in a child: the
** pool's hooks.  The child's files are tmp/ev-K (events), dg-K (its
** stderr) and rs-K (the screenshots' fates and the message). */
typedef struct PtyRun {
    const Opts *o;
    const Suite *s;
    const uint32_t *sel;
    size_t n;
    Result *res;
    const char *tmp;
    bool to_file, bar;
    OutFile file;          /* to_file: -o FILE */
    Buf chunk, evs;
    Tally ty;
} PtyRun;

static void pty_paths(const PtyRun *pr, size_t k, char *ev, char *dg, char *rs, size_t cap)
{
    snprintf(ev, cap, "%s/ev-%zu", pr->tmp, k);
    snprintf(dg, cap, "%s/dg-%zu", pr->tmp, k);
    snprintf(rs, cap, "%s/rs-%zu", pr->tmp, k);
}

static int pty_work(void *ctx, size_t k)
{
    PtyRun *pr = ctx;
    char ev[PATH_MAX], dg[PATH_MAX], rs[PATH_MAX];
    pty_paths(pr, k, ev, dg, rs, PATH_MAX);
    return pty_child(pr->o, pr->s, pr->sel[k], pr->tmp, ev, dg, rs);
}

static bool pty_finished(void *ctx, size_t k, int status)
{
    (void)k;
    return status && ((PtyRun *)ctx)->o->fail_fast;
}

/* Emits, in index order, a scenario that has finished. */
static bool pty_emit(void *ctx, size_t k, int status, uint64_t wall_ms)
{
    PtyRun *pr = ctx;
    const Opts *o = pr->o;
    Result *r = &pr->res[k];
    const PackEntry *e = suite_entry(pr->s, pr->sel[k]);
    r->status = status;
    r->wall_ms = wall_ms;
    r->done = true;
    r->duration = rt_clock_scale(e->prog->insn[e->prog->n_insn - 1].t, o->speed);
    char ev[PATH_MAX], dg[PATH_MAX], rs[PATH_MAX];
    pty_paths(pr, k, ev, dg, rs, PATH_MAX);
    Buf *chunk = &pr->chunk, *evs = &pr->evs;
    buf_reset(chunk);
    header_line(chunk, e, pr->sel[k]);
    slurp(ev, chunk);
    FILE *rf = fopen(rs, "r");
    if (rf) {
        RtPtyGoldens *g = &r->goldens;
        r->has_goldens = fscanf(rf, "%u %u %u %u %u %u ", &g->matched, &g->mismatched, &g->written, &g->missing,
                                &g->updated, &g->recorded) == 6;
        char why[300];
        size_t wl = fread(why, 1, sizeof why - 1, rf);
        why[wl] = 0;
        result_why(r, why);
        fclose(rf);
        remove(rs);
    }
    if (pr->to_file)
        outfile_put(&pr->file, chunk->data, chunk->len);
    else if (chunk->len && fwrite(chunk->data, 1, chunk->len, stdout) != chunk->len && !r->status)
        r->status = SC_IO;
    if (!pr->to_file)
        fflush(stdout);
    buf_reset(evs);
    if (o->report)
        buf_put(evs, chunk->data, chunk->len);
    buf_reset(chunk);
    if (slurp(dg, chunk) && chunk->len) {
        if (pr->bar)
            fputs("\r\033[K", stderr);
        fwrite(chunk->data, 1, chunk->len, stderr);
    }
    {
        char art[8192];
        scvm_system_out(&r->sysout, scvm_artifacts_of(o, e->name, art, sizeof art), r->status,
                         (const char *)chunk->data, chunk->len);
    }
    if (o->report) {
        char art[8192];
        ScvmRunReport rr = {
            .status = r->status, .duration_ms = r->duration, .events = (const char *)evs->data,
            .events_len = evs->len, .diag = (const char *)chunk->data, .diag_len = chunk->len,
            .artifacts = scvm_artifacts_of(o, e->name, art, sizeof art),
            .why = r->why ? r->why : r->status == SC_FAILED ? "a check did not hold"
                                   : r->status                ? "the run failed"
                                                              : NULL,
        };
        int rst = scvm_report_run(o, pr->s, pr->sel[k], &rr, &r->rec);
        if (rst && !r->status)
            r->status = rst;
    }
    tally(&pr->ty, o, e->name, r->status, pr->bar);
    if (pr->bar)
        scvm_progress(k + 1, pr->n, e->name);
    return false;           /* --fail-fast: the running ones end and are reported */
}

static void pty_skip(void *ctx, size_t k, RunSkip why)
{
    PtyRun *pr = ctx;
    pr->res[k].skipped = true;
    pr->ty.skipped++;
    pr->res[k].skip_why = why == RUN_SKIP_SIGNAL ? "not run: the run was interrupted by a signal" : NULL;
}

/* -t pty with a pack or a selection: each selected scenario in its own
** session and process, -j at a time; each one's header line, events and
** diagnostics are written in index order, so the output does not depend
** on -j; summary and JUnit as for the sim target. */
static int run_pty_suite(const Opts *o, const Suite *s, const uint32_t *sel, size_t n)
{
    const RunTarget *tg = run_target(o->target);
    unsigned given = (o->cast ? RUN_OPT_CAST : 0) | (o->dm_exit ? RUN_OPT_DM_EXIT : 0) |
                     (o->explain ? RUN_OPT_EXPLAIN : 0);
    const char *refused = tg && tg->check ? tg->check(given, true) : NULL;
    if (refused)
        return cli_usage(scvm_usage, "%s", refused);
    if (rt_cancel_install() != 0) {
        fprintf(stderr, "scvm: cannot catch signals: %s\n", strerror(errno));
        return SC_RUNTIME;
    }
    char tmp[PATH_MAX - 64];
    int te = file_mkdtemp("scvm-pty", tmp, sizeof tmp);
    if (te) {
        fprintf(stderr, "scvm: cannot make a temporary folder %s: %s\n", tmp, strerror(te));
        return SC_IO;
    }
    Result *res = sc_calloc(n ? n : 1, sizeof *res);
    int ro = scvm_report_open(o);
    if (ro || !res) {
        sc_free(res);
        rmdir(tmp);
        if (ro)
            return ro;
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    PtyRun pr = { .o = o, .s = s, .sel = sel, .n = n, .res = res, .tmp = tmp,
                  .to_file = o->output && strcmp(o->output, "-") != 0, .bar = n > 1 && scvm_progress_on(o, n) };
    if (pr.to_file)
        outfile_open(&pr.file, o->output);
    buf_init(&pr.chunk);
    buf_init(&pr.evs);
    RunPool pool = { .mode = RUN_POOL_PROCESSES, .n = n, .jobs = o->jobs, .ctx = &pr, .work = pty_work,
                     .finished = pty_finished, .emit = pty_emit, .skip = pty_skip };
    int worst;
    if (run_pool(&pool) != 0) {
        fputs("scvm: out of memory\n", stderr);
        file_remove_tree(tmp);
        worst = SC_RUNTIME;
    } else {
        if (pr.bar)
            fputs("\r\033[K", stderr);
        file_remove_tree(tmp);
        worst = finish_suite(o, s, sel, n, res, &pr.ty, &pr.file, pr.to_file);
        if (rt_cancel_signal())
            worst = 128 + rt_cancel_signal();
    }
    buf_fini(&pr.chunk);
    buf_fini(&pr.evs);
    if (pr.to_file)
        (void)outfile_close(&pr.file, false);
    for (size_t k = 0; k < n; k++)
        result_fini(&res[k]);
    sc_free(res);
    return worst;
}

int scvm_run(const Opts *o)
{
    if (o->inline_input) {
        /* Yao's -i: a generator, a file, or the message of one case */
        const char *in = o->inline_input;
        if (!strncmp(in, "agents:", 7) || !strncmp(in, "scripts:", 8))
            return cli_usage(scvm_usage, "-i %s: %s generators cannot run here (%s); run it in Yao with "
                                         "--dry-run -o cases.jsonl and compile that file",
                             in, in[0] == 'a' ? "agent" : "script",
                             in[0] == 'a' ? "the generator is a Yao agent, which only Yao's runtime can call"
                                          : "scripts run in Yao's V8 engine, which scvm does not have");
        if (o->n_ops)
            return cli_usage(scvm_usage, "-i '%s' is the suite: no FILE besides it", in);
        Opts one = *o;
        const char *op[1];
        char path[4096] = "";
        struct stat st;
        if (stat(in, &st) == 0 && S_ISREG(st.st_mode)) {
            op[0] = in;             /* -i FILE: the operand */
        } else {
            int e = scvm_aut_inline(in, path, sizeof path);
            if (e)
                return e;
            op[0] = path;
        }
        one.ops = op;
        one.n_ops = 1;
        one.inline_input = NULL;
        int r = scvm_run(&one);
        if (path[0])
            unlink(path);
        return r;
    }
    Suite *s;
    uint32_t *sel = NULL;
    size_t n = 0;
    int st = scvm_open(o, "run", &s, &sel, &n);
    /* --data-model-exit: the data model's statuses from the first
    ** refusal on, loading included.  A scenario that does not parse
    ** (a source with errors, not a .scb or pack, or one that fails
    ** verification) is E_TERMINAL_PARSE, 7: the data model's parse failure
    ** (docs/pty.md, "Exit statuses"). */
    if (st && o->dm_exit && (strcmp(o->target, "pty") == 0 || strcmp(o->target, "agent") == 0))
        return st == SC_REJECTED || st == SC_FAILED ? PTY_E_TERMINAL_PARSE : st == SC_IO ? PTY_E_IO
               : st == SC_USAGE  ? PTY_E_CLI_INVALID_ARG : PTY_E_INTERNAL;
    if (st)
        return st;
    /* A lone .scb, nothing about suites asked for: its events only. */
    bool one = !o->selecting && !suite_pack(s);
    /* a suite: on the pool, as the target's row says (run_target.h) */
    const RunTarget *tg = run_target(o->target);
    int (*suite)(const Opts *, const Suite *, const uint32_t *, size_t) =
        tg && run_target_pool(tg) == RUN_POOL_PROCESSES ? run_pty_suite : run_suite;
    if (strcmp(o->target, "aut") == 0) {
        st = scvm_run_aut(o, s, sel, n);      /* its cases, not its scenarios, are the units */
    } else if (strcmp(o->target, "agent") == 0) {
        /* a .scb alone (artifacts in DIR itself); a pack as the PTY
        ** target's suites (each scenario in DIR/<scenario>) */
        st = !suite_pack(s) && n == 1 && !o->report ? scvm_run_agent(o, o->ops[0], s, sel ? sel[0] : 0) : suite(o, s, sel, n);
    } else if (!one) {
        st = suite(o, s, sel, n);
    } else if (strcmp(o->target, "pty") == 0) {
        st = run_pty(o, o->ops[0], suite_entry(s, 0)->name, suite_entry(s, 0)->prog);
    } else {
        st = run_sim(o, o->ops[0], suite_entry(s, 0)->prog);
    }
    sc_free(sel);
    suite_free(s);
    return st;
}
