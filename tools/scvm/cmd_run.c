/* cmd_run.c - scvm run: play a suite's scenarios on the sim target, or
** one scenario on the pty target.
**
** A lone .scb run without a selection or suite option prints its events
** only, as it always has; a pack or a selection prints a
** {"kind":"scenario"} header line before each scenario's events and a
** summary on stderr ("N passed, N failed, N skipped").  -j N plays
** scenarios on worker threads into per-scenario buffers that are written
** in index order, so the output does not depend on N or on timing. */
#define _DEFAULT_SOURCE 1   /* syscall(2): pidfd_open */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/rt_cancel.h"
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

/* Monotonic milliseconds, for the wall times JUnit reports. */
static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

pid_t scvm_fork_tied(void)
{
    fflush(NULL);
    pid_t parent = getpid();
    pid_t p = fork();
    /* scvm killed (even by SIGKILL): the child ends as on SIGTERM, its
    ** programs and artifacts included */
    if (p == 0 && (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) != 0 || getppid() != parent))
        _exit(128 + SIGTERM);
    return p;
}

/* The variables CI systems set on every job, beside (or instead of) CI:
** Jenkins, GitLab, GitHub Actions, Buildkite, CircleCI, Azure Pipelines,
** TeamCity. */
const char *const scvm_ci_vars[] = { "JENKINS_URL", "GITLAB_CI", "GITHUB_ACTIONS", "BUILDKITE", "CIRCLECI",
                                     "TF_BUILD", "TEAMCITY_VERSION", NULL };

/* CI mode (docs/golden-screens.md): CI in the environment as CI services
** set it ("true", "1", ...), not empty, "0" or "false"; CI unset, any of
** scvm_ci_vars set and not empty. */
bool scvm_ci_env(void)
{
    /* CI itself decides when it is set: "0" or "false" is a way out of CI
    ** mode on a CI machine */
    const char *v = getenv("CI");
    if (v && *v)
        return strcmp(v, "0") != 0 && strcasecmp(v, "false") != 0;
    for (size_t k = 0; scvm_ci_vars[k]; k++) {
        const char *x = getenv(scvm_ci_vars[k]);
        if (x && *x)
            return true;
    }
    return false;
}

/* What became of one scenario of a suite. */
typedef struct Result {
    Buf out;
    int status;            /* vm_run's */
    uint64_t duration;     /* scaled ms of the last op */
    bool done, skipped;
    const char *skip_why;  /* why a skipped scenario was not run */
    bool has_goldens;      /* the PTY target: what became of the screenshots */
    RtPtyGoldens goldens;
    char why[300];         /* the PTY target's error message, if any */
    const char *props;     /* more <property> elements (escaped), or NULL */
    Buf rec;               /* --report: its report.json record */
    uint64_t unchecked;    /* the sim target: the assertions it did not evaluate */
    uint64_t wall_ms;      /* how long it really took */
} Result;

/* ---- one .scb ---- */

/* The goldens folder of prog by default: <base>/goldens/<scenario>/
** <terminal profile>/screenshots, where the stdlib keeps them and
** --artifacts writes them (the Scenario-Format's path;
** docs/golden-screens.md). */
void scvm_goldens_of(const BcProgram *prog, const char *base, char *out, size_t cap)
{
    char sc[256], prof[128];
    rt_pty_safe_name(prog->str[prog->meta.name].s, sc, sizeof sc);
    rt_pty_profile_of(prog, prof, sizeof prof);
    snprintf(out, cap, "%s/goldens/%s/%s/screenshots", base, sc, prof);
}

/* The folder of path ("." for a bare name). */
void scvm_folder_of(const char *path, char *out, size_t cap)
{
    const char *sl = strrchr(path, '/');
    if (!sl)
        snprintf(out, cap, ".");
    else if (sl == path)
        snprintf(out, cap, "/");
    else
        snprintf(out, cap, "%.*s", (int)(sl - path), path);
}

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
            if (r)
                snprintf(r->why, sizeof r->why, "%s: cannot read", o->policy_file);
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
    RtTarget *t = rt_pty_new(&po);
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
        snprintf(r->why, sizeof r->why, "%s", *dm ? msg : "");
    }
    t->vt->destroy(t);
    sc_free(overlay);
    sc_free(scb);
    return st;
}

int scvm_one_session(const Opts *o, const char *path, const BcProgram *prog, char *dir, size_t dcap, char *goldens,
                     size_t gcap, FILE **out)
{
    scvm_folder_of(path, dir, dcap);
    if (o->goldens)
        snprintf(goldens, gcap, "%s", o->goldens);
    else
        scvm_goldens_of(prog, dir, goldens, gcap);
    *out = stdout;
    if (o->output && strcmp(o->output, "-") != 0 && !(*out = fopen(o->output, "w"))) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", o->output, strerror(errno));
        *out = stdout;
        return SC_IO;
    }
    /* SIGTERM, SIGINT, SIGHUP: the session ends as on a budget, then
    ** 128 + the signal (docs/exit-status.md). */
    if (rt_cancel_install() != 0) {
        fprintf(stderr, "scvm: cannot catch signals: %s\n", strerror(errno));
        if (*out != stdout)
            fclose(*out);
        *out = stdout;
        return SC_RUNTIME;
    }
    return 0;
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

/* What the simulation did not check, for stderr and JUnit's <skipped>:
** "3 assertions not evaluated in simulation; ..." (of how many scenarios
** when more than one). */
static const char *unchecked_text(uint64_t n, size_t scenarios, char *out, size_t cap)
{
    char in[64] = "";
    if (scenarios > 1)
        snprintf(in, sizeof in, " in %zu scenarios", scenarios);
    snprintf(out, cap, "%llu assertion%s%s not evaluated in simulation; play with -t pty or -t agent to check them",
             (unsigned long long)n, n == 1 ? "" : "s", in);
    return out;
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
    if (!st && !o->count && rt_sim_unchecked(t)) {
        fprintf(stderr, "scvm: %s%s\n", unchecked_text(rt_sim_unchecked(t), 1, (char[160]){ 0 }, 160),
                o->allow_skipped ? " (allowed: --allow-skipped)" : ": not evaluated is not passed (--allow-skipped accepts it)");
        if (!o->allow_skipped)
            st = SC_FAILED;
    }
    t->vt->destroy(t);
    buf_fini(&mem);
    return st;
}

/* ---- a suite ---- */


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
        RtSimOpts so = { .out = direct, .mem = direct ? NULL : &r->out, .line_flush = o->realtime && direct,
                         .unchecked = true };
        t = rt_sim_new(&so);
    }
    if (!t) {
        r->status = SC_RUNTIME;
        return;
    }
    VmOpts vo = { .speed = o->speed };
    RtRealClock rc;
    RtClock *clock = clock_of(o, &rc);
    uint64_t t0 = now_ms();
    r->status = vm_run(p, t, clock, &vo);
    r->wall_ms = now_ms() - t0;
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
    if (!o->count)
        r->unchecked = rt_sim_unchecked(t);
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

/* One <testcase>'s verdict: <failure> only for a check that did not hold
** (status 1), <error> for every other status (a program that cannot be
** started, a target that failed: 5, ...), <skipped> for a scenario not
** run or whose assertions the simulation did not evaluate.  time is the
** wall time; the scheduled time (the last op's, at the run's speed) is the
** scheduled_time property. */
static void junit_case(Buf *b, const char *suite, const PackEntry *e, const Result *r)
{
    buf_puts(b, "    <testcase classname=\"");
    xml_str(b, suite);
    buf_puts(b, "\" name=\"");
    xml_str(b, e->name);
    buf_puts(b, "\" file=\"");
    xml_str(b, e->source);
    if (r->skipped) {
        buf_printf(b, "\" time=\"0.000\">\n      <skipped message=\"");
        xml_str(b, r->skip_why ? r->skip_why : "not run: an earlier scenario failed (--fail-fast)");
        buf_puts(b, "\"/>\n    </testcase>\n");
        return;
    }
    buf_printf(b, "\" time=\"%.3f\">\n      <properties><property name=\"scheduled_time\" value=\"%.3f\"/>",
               (double)r->wall_ms / 1000.0, (double)r->duration / 1000.0);
    if (r->has_goldens) {
        /* the PTY target: what became of the screenshots */
        const RtPtyGoldens *g = &r->goldens;
        buf_printf(b, "<property name=\"goldens\" value=\"compared=%u matched=%u mismatched=%u written=%u "
                      "missing=%u updated=%u\"/>",
                   g->matched + g->mismatched, g->matched, g->mismatched, g->written, g->missing, g->updated);
    }
    if (r->props)
        buf_puts(b, r->props);
    buf_puts(b, "</properties>");
    if (r->status == SC_FAILED) {
        buf_puts(b, "\n      <failure message=\"");
        xml_str(b, r->why[0] ? r->why : "a check did not hold");
        buf_puts(b, "\" type=\"failed\"/>");
    } else if (r->status) {
        char m[64];
        snprintf(m, sizeof m, "run failed (status %d)", r->status);
        buf_puts(b, "\n      <error message=\"");
        xml_str(b, r->why[0] ? r->why : m);
        buf_printf(b, "\" type=\"%s\"/>", r->status == SC_RUNTIME ? "setup" : "error");
    } else if (r->unchecked) {
        char m[160];
        buf_puts(b, "\n      <skipped message=\"");
        xml_str(b, unchecked_text(r->unchecked, 1, m, sizeof m));
        buf_puts(b, "\"/>");
    }
    buf_puts(b, "\n    </testcase>\n");
}

static int write_junit(const Opts *o, const Suite *s, const uint32_t *sel, size_t n, const Result *res,
                       size_t failed, size_t errors, size_t skipped)
{
    Buf b;
    buf_init(&b);
    /* the sum of the testcases' times, as `scvm report --merge` adds the
    ** shards' up */
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++)
        total += res[k].skipped ? 0 : res[k].wall_ms;
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
    for (size_t k = 0; k < n; k++)
        junit_case(&b, suite, suite_entry(s, sel[k]), &res[k]);
    buf_puts(&b, "  </testsuite>\n</testsuites>\n");
    int e = b.oom ? ENOMEM : file_write_atomic(o->junit, b.data, b.len);
    buf_fini(&b);
    if (e) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", o->junit, strerror(e));
        return SC_IO;
    }
    return 0;
}

int scvm_junit_one(const Opts *o, const Suite *s, uint32_t idx, int status, uint64_t wall_ms,
                   const RtPtyGoldens *g, const char *why, const char *props)
{
    Result r;
    memset(&r, 0, sizeof r);
    const BcProgram *p = suite_entry(s, idx)->prog;
    r.status = status;
    r.duration = rt_clock_scale(p->insn[p->n_insn - 1].t, o->speed);
    r.wall_ms = wall_ms;
    r.done = true;
    r.has_goldens = true;
    r.goldens = *g;
    r.props = props;
    snprintf(r.why, sizeof r.why, "%s", why ? why : "");
    return write_junit(o, s, &idx, 1, &r, status == SC_FAILED, status && status != SC_FAILED, 0);
}

/* Counts a finished scenario; a failure is named on stderr. */
typedef struct Tally {
    size_t passed, failed, errors, skipped;
    int worst;
    uint64_t unchecked;     /* the sim target: assertions not evaluated */
    size_t unchecked_in;    /* in how many scenarios (counted as skipped) */
} Tally;

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
                        const Buf *all, bool to_file)
{
    if (to_file && !t->worst) {
        int e = all->oom ? ENOMEM : file_write_atomic(o->output, all->data ? (const void *)all->data : "", all->len);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write: %s\n", o->output, strerror(e));
            t->worst = SC_IO;
        }
    }
    if (o->junit) {
        int js = write_junit(o, s, sel, n, res, t->failed, t->errors, t->skipped);
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
        fprintf(stderr, "scvm: %s%s\n", unchecked_text(t->unchecked, t->unchecked_in, m, sizeof m),
                o->allow_skipped ? " (allowed: --allow-skipped)" : ": not evaluated is not passed (--allow-skipped accepts it)");
        if (!o->allow_skipped && t->worst < SC_FAILED)
            t->worst = SC_FAILED;
    }
    fprintf(stderr, "%zu passed, %zu failed, %zu skipped\n", t->passed, t->failed + t->errors, t->skipped);
    return t->worst;
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
    for (size_t k = 0; k < n; k++) {
        buf_init(&res[k].out);
        buf_init(&res[k].rec);
    }
    int ro = scvm_report_open(o);
    if (ro) {
        sc_free(res);
        return ro;
    }
    bool to_file = o->output && strcmp(o->output, "-") != 0;
    bool bar = n > 1 && scvm_progress_on(o, n);
    Buf all;
    buf_init(&all);
    Runner rn = { .s = s, .o = o, .sel = sel, .n = n, .res = res };
    pthread_mutex_init(&rn.mu, NULL);
    pthread_cond_init(&rn.cv, NULL);
    unsigned jobs = o->jobs > n ? (unsigned)(n ? n : 1) : o->jobs;
    pthread_t th[MAX_JOBS];
    unsigned started = 0;
    bool direct = jobs <= 1 && !to_file && !o->count && !o->report;
    if (!direct)
        for (; started < jobs && jobs > 1; started++)
            if (pthread_create(&th[started], NULL, worker, &rn) != 0)
                break;
    Tally ty = { 0 };
    bool stopped = false;
    for (size_t k = 0; k < n; k++) {
        Result *r = &res[k];
        if (stopped) {
            r->skipped = true;
            ty.skipped++;
            continue;
        }
        if (started) {
            pthread_mutex_lock(&rn.mu);
            while (!r->done && !(rn.stop && k > rn.stop_at))
                pthread_cond_wait(&rn.cv, &rn.mu);
            pthread_mutex_unlock(&rn.mu);
            if (!r->done) {   /* never started: --fail-fast */
                r->skipped = true;
                ty.skipped++;
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
        if (o->report) {
            char um[160];
            ScvmRunReport rr = {
                .status = r->status, .duration_ms = r->duration, .events = (const char *)r->out.data,
                .events_len = r->out.len, .unjudged = !r->status && r->unchecked,
                .why = r->status == SC_FAILED ? "a check did not hold"
                       : r->status            ? "the run failed"
                       : r->unchecked         ? unchecked_text(r->unchecked, 1, um, sizeof um)
                                              : NULL,
            };
            int rs = scvm_report_run(o, s, sel[k], &rr, &r->rec);
            if (rs && !r->status)
                r->status = rs;
        }
        buf_fini(&r->out);
        const PackEntry *e = suite_entry(s, sel[k]);
        if (!r->status && r->unchecked) {   /* nothing judged: not a pass */
            ty.skipped++;
            ty.unchecked += r->unchecked;
            ty.unchecked_in++;
        } else {
            tally(&ty, o, e->name, r->status, bar);
        }
        if (r->status && o->fail_fast)
            stopped = true;
        if (bar)
            scvm_progress(k + 1, n, e->name);
    }
    pthread_mutex_lock(&rn.mu);
    rn.stop = true;
    rn.stop_at = 0;
    pthread_mutex_unlock(&rn.mu);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (bar)
        fputs("\r\033[K", stderr);
    int worst = finish_suite(o, s, sel, n, res, &ty, &all, to_file);
    for (size_t k = 0; k < n; k++) {
        buf_fini(&res[k].out);
        buf_fini(&res[k].rec);
    }
    pthread_mutex_destroy(&rn.mu);
    pthread_cond_destroy(&rn.cv);
    buf_fini(&all);
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
        snprintf(r.why, sizeof r.why, "%.299s", ao.why);
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
                g->recorded, r.why);
        fclose(f);
    }
    return rt_cancel_signal() ? 128 + rt_cancel_signal() : st;
}

/* Waits until a child of ours may have exited or a signal arrived
** (rt_cancel.h), without the race of a blocking waitpid that a signal
** just missed: each running child's pidfd and the cancel pipe, polled
** together.  Where pidfds are missing, polls the pipe 50 ms at a time. */
static void wait_children(const pid_t *pid, size_t from, size_t to, const Result *res)
{
    struct pollfd pf[64];
    nfds_t n = 0;
    int cfd = rt_cancel_fd();
    if (cfd >= 0)
        pf[n++] = (struct pollfd){ .fd = cfd, .events = POLLIN };
    bool all = true;
    for (size_t k = from; k < to; k++) {
        if (res[k].done || pid[k] <= 0)
            continue;
        int fd = n < sizeof pf / sizeof pf[0] ? (int)syscall(SYS_pidfd_open, pid[k], 0) : -1;
        if (fd < 0) {
            all = false;
            continue;
        }
        pf[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
    }
    poll(pf, n, all ? -1 : 50);
    for (nfds_t i = cfd >= 0 ? 1 : 0; i < n; i++)
        close(pf[i].fd);
}

/* -t pty with a pack or a selection: each selected scenario in its own
** session and process, -j at a time; each one's header line, events and
** diagnostics are written in index order, so the output does not depend
** on -j; summary and JUnit as for the sim target. */
static int run_pty_suite(const Opts *o, const Suite *s, const uint32_t *sel, size_t n)
{
    if (o->cast)
        return cli_usage(scvm_usage, "%s", "--cast records one session: not with a pack or a selection");
    if (o->dm_exit)
        return cli_usage(scvm_usage, "%s", "--data-model-exit needs one scenario: not a pack or a selection");
    if (o->explain)
        return cli_usage(scvm_usage, "%s", "--explain-policy needs one scenario: not a pack or a selection");
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
    pid_t *pid = sc_calloc(n ? n : 1, sizeof *pid);
    int ro = scvm_report_open(o);
    if (ro || !res || !pid) {
        sc_free(res);
        sc_free(pid);
        rmdir(tmp);
        if (ro)
            return ro;
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    bool to_file = o->output && strcmp(o->output, "-") != 0;
    bool bar = n > 1 && scvm_progress_on(o, n);
    Buf all, chunk, evs;
    buf_init(&all);
    buf_init(&chunk);
    buf_init(&evs);
    for (size_t k = 0; k < n; k++)
        buf_init(&res[k].rec);
    size_t next = 0, emitted = 0, running = 0;
    Tally ty = { 0 };
    bool stop = false;
    int passed_on = 0;      /* the signal forwarded to the running children */
    char ev[64 + sizeof tmp], dg[64 + sizeof tmp], rs[64 + sizeof tmp];
    while (emitted < n) {
        while (!stop && running < o->jobs && next < n) {
            const PackEntry *e = suite_entry(s, sel[next]);
            res[next].duration = rt_clock_scale(e->prog->insn[e->prog->n_insn - 1].t, o->speed);
            snprintf(ev, sizeof ev, "%s/ev-%zu", tmp, next);
            snprintf(dg, sizeof dg, "%s/dg-%zu", tmp, next);
            snprintf(rs, sizeof rs, "%s/rs-%zu", tmp, next);
            res[next].wall_ms = now_ms();     /* the start, until it is reaped */
            pid_t p = scvm_fork_tied();
            if (p == 0)
                _exit(pty_child(o, s, sel[next], tmp, ev, dg, rs));
            if (p < 0) {
                res[next].status = SC_RUNTIME;
                res[next].wall_ms = 0;
                res[next].done = true;
            } else {
                pid[next] = p;
                running++;
            }
            next++;
        }
        /* the next to emit may still run: wait for any child */
        while (emitted < next && !res[emitted].done) {
            int sig = rt_cancel_signal();
            if (sig && !passed_on) {
                /* each running session ends as on a budget, in its own
                ** process; nothing new starts */
                passed_on = sig;
                stop = true;
                for (size_t k = emitted; k < next; k++)
                    if (!res[k].done && pid[k] > 0)
                        kill(pid[k], sig);
            }
            int ws;
            pid_t p = waitpid(-1, &ws, WNOHANG);
            if (p == 0) {
                wait_children(pid, emitted, next, res);
                continue;
            }
            if (p < 0 && errno == EINTR)
                continue;
            if (p < 0)
                break;
            for (size_t k = 0; k < next; k++) {
                if (pid[k] != p || res[k].done)
                    continue;
                res[k].status = WIFEXITED(ws) ? WEXITSTATUS(ws) : SC_RUNTIME;
                res[k].wall_ms = now_ms() - res[k].wall_ms;
                res[k].done = true;
                running--;
                if (res[k].status && o->fail_fast)
                    stop = true;
            }
            break;
        }
        /* emit, in index order, what has finished */
        while (emitted < next && res[emitted].done) {
            size_t k = emitted++;
            Result *r = &res[k];
            const PackEntry *e = suite_entry(s, sel[k]);
            buf_reset(&chunk);
            header_line(&chunk, e, sel[k]);
            snprintf(ev, sizeof ev, "%s/ev-%zu", tmp, k);
            snprintf(dg, sizeof dg, "%s/dg-%zu", tmp, k);
            slurp(ev, &chunk);
            snprintf(rs, sizeof rs, "%s/rs-%zu", tmp, k);
            FILE *rf = fopen(rs, "r");
            if (rf) {
                RtPtyGoldens *g = &r->goldens;
                r->has_goldens = fscanf(rf, "%u %u %u %u %u %u ", &g->matched, &g->mismatched, &g->written,
                                        &g->missing, &g->updated, &g->recorded) == 6;
                size_t wl = fread(r->why, 1, sizeof r->why - 1, rf);
                r->why[wl] = 0;
                fclose(rf);
                remove(rs);
            }
            if (to_file)
                buf_put(&all, chunk.data, chunk.len);
            else if (chunk.len && fwrite(chunk.data, 1, chunk.len, stdout) != chunk.len && !r->status)
                r->status = SC_IO;
            if (!to_file)
                fflush(stdout);
            buf_reset(&evs);
            if (o->report)
                buf_put(&evs, chunk.data, chunk.len);
            buf_reset(&chunk);
            if (slurp(dg, &chunk) && chunk.len) {
                if (bar)
                    fputs("\r\033[K", stderr);
                fwrite(chunk.data, 1, chunk.len, stderr);
            }
            if (o->report) {
                char art[8192];
                ScvmRunReport rr = {
                    .status = r->status, .duration_ms = r->duration, .events = (const char *)evs.data,
                    .events_len = evs.len, .diag = (const char *)chunk.data, .diag_len = chunk.len,
                    .artifacts = scvm_artifacts_of(o, e->name, art, sizeof art),
                    .why = r->why[0] ? r->why : r->status == SC_FAILED ? "a check did not hold"
                                              : r->status                ? "the run failed"
                                                                         : NULL,
                };
                int rst = scvm_report_run(o, s, sel[k], &rr, &r->rec);
                if (rst && !r->status)
                    r->status = rst;
            }
            tally(&ty, o, e->name, r->status, bar);
            if (bar)
                scvm_progress(emitted, n, e->name);
        }
        if (stop && running == 0 && emitted == next) {
            for (size_t k = next; k < n; k++) {
                res[k].skipped = true, ty.skipped++;
                res[k].skip_why = passed_on ? "not run: the run was interrupted by a signal" : NULL;
            }
            break;
        }
        if (emitted == next && next == n)
            break;
    }
    if (bar)
        fputs("\r\033[K", stderr);
    file_remove_tree(tmp);
    int worst = finish_suite(o, s, sel, n, res, &ty, &all, to_file);
    if (rt_cancel_signal())
        worst = 128 + rt_cancel_signal();
    buf_fini(&chunk);
    buf_fini(&evs);
    buf_fini(&all);
    for (size_t k = 0; k < n; k++)
        buf_fini(&res[k].rec);
    sc_free(pid);
    sc_free(res);
    return worst;
}

int scvm_run(const Opts *o)
{
    Suite *s;
    uint32_t *sel = NULL;
    size_t n = 0;
    int st = scvm_open(o, "run", &s, &sel, &n);
    /* --data-model-exit: the data model's statuses from the first
    ** refusal on, loading included.  A scenario that does not parse
    ** (not a .scb or pack, or one that fails verification) is
    ** E_TERMINAL_PARSE, 7: the data model's parse failure (docs/pty.md,
    ** "Exit statuses"). */
    if (st && o->dm_exit && (strcmp(o->target, "pty") == 0 || strcmp(o->target, "agent") == 0))
        return st == SC_REJECTED ? PTY_E_TERMINAL_PARSE : st == SC_IO ? PTY_E_IO
               : st == SC_USAGE  ? PTY_E_CLI_INVALID_ARG : PTY_E_INTERNAL;
    if (st)
        return st;
    /* A lone .scb, nothing about suites asked for: its events only. */
    bool one = !o->selecting && !suite_pack(s);
    if (strcmp(o->target, "aut") == 0) {
        st = scvm_run_aut(o, s, sel, n);
    } else if (strcmp(o->target, "agent") == 0) {
        /* a .scb alone (artifacts in DIR itself); a pack as the PTY
        ** target's suites (each scenario in DIR/<scenario>) */
        st = !suite_pack(s) && n == 1 && !o->report ? scvm_run_agent(o, o->ops[0], s, sel ? sel[0] : 0) : run_pty_suite(o, s, sel, n);
    } else if (strcmp(o->target, "pty") == 0) {
        if (!one)
            st = run_pty_suite(o, s, sel, n);
        else
            st = run_pty(o, o->ops[0], suite_entry(s, 0)->name, suite_entry(s, 0)->prog);
    } else if (one) {
        st = run_sim(o, o->ops[0], suite_entry(s, 0)->prog);
    } else {
        st = run_suite(o, s, sel, n);
    }
    sc_free(sel);
    suite_free(s);
    return st;
}
