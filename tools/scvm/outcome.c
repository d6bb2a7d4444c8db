/* SPDX-License-Identifier: MIT */
/* outcome.c - what scvm's run targets share (cmd_run.c, cmd_agent.c): a
** single session's set-up (its folder, goldens folder, output and signals),
** CI mode, the default goldens folder, and the JUnit report of a run's
** results, written with runtime/run/run_junit.h.  Both commands call down
** into this file instead of into each other. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "compiler/sources.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/rt_cancel.h"
#include "runtime/rt_clock.h"
#include "runtime/run/run_junit.h"
#include "outcome.h"
#include "scvm.h"

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

/* The git work tree dir lies in: the nearest folder at or above it that
** holds a .git (a folder, or a worktree's file); false when none does. */
static bool git_toplevel(const char *dir, char *top, size_t cap)
{
    char p[PATH_MAX + 8];
    if (cap < PATH_MAX || !realpath(dir, top))
        return false;
    for (;;) {
        struct stat st;
        snprintf(p, sizeof p, "%s/.git", strcmp(top, "/") == 0 ? "" : top);
        if (lstat(p, &st) == 0)
            return true;
        char *sl = strrchr(top, '/');
        if (!sl || sl == top)
            return false;
        *sl = 0;
    }
}

const char *scvm_source_path(const Opts *o, const char *source, char *out, size_t cap)
{
    if (!o->source_dir)
        return source;
    char top[PATH_MAX], dir[PATH_MAX];
    if (git_toplevel(o->source_dir, top, sizeof top) && realpath(o->source_dir, dir)) {
        size_t tl = strlen(top);
        const char *rel = dir[tl] == '/' ? dir + tl + 1 : "";
        snprintf(out, cap, "%s%s%s", rel, *rel ? "/" : "", source);
    } else {
        snprintf(out, cap, "%s/%s", o->source_dir, source);
    }
    return out;
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

int scvm_one_session(const Opts *o, const char *path, const BcProgram *prog, char *dir, size_t dcap, char *goldens,
                     size_t gcap, FILE **out)
{
    if (o->source_dir)          /* its repo.dir, patches and goldens are where its source is */
        snprintf(dir, dcap, "%s", o->source_dir);
    else
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

/* What the simulation did not check, for stderr and JUnit's <skipped>:
** "3 assertions not evaluated in simulation; ..." (of how many scenarios
** when more than one). */
const char *scvm_unchecked_text(uint64_t n, size_t scenarios, char *out, size_t cap)
{
    char in[64] = "";
    if (scenarios > 1)
        snprintf(in, sizeof in, " in %zu scenarios", scenarios);
    snprintf(out, cap, "%llu assertion%s%s not evaluated in simulation; play with -t pty or -t agent to check them",
             (unsigned long long)n, n == 1 ? "" : "s", in);
    return out;
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
/* A source file compiled by scvm itself (srcload.c): its path from the
** root of the git work tree it is in, else as given. */
static const char *source_file(const char *input, char *out, size_t cap)
{
    char dir[PATH_MAX], top[PATH_MAX], real[PATH_MAX];
    scvm_folder_of(input, dir, sizeof dir);
    if (!realpath(input, real) || !git_toplevel(dir, top, sizeof top))
        return input;
    size_t tl = strlen(top);
    snprintf(out, cap, "%s", strncmp(real, top, tl) == 0 && real[tl] == '/' ? real + tl + 1 : input);
    return out;
}

static void junit_case_of(Buf *b, const Opts *o, const char *suite, const char *input, const PackEntry *e,
                          const Result *r)
{
    char cls[512], file[PATH_MAX];
    junit_classname(cls, sizeof cls, suite, e->name);
    const char *path = !o->source_dir && input && scc_source_ext(input) ? source_file(input, file, sizeof file)
                                                                        : scvm_source_path(o, e->source, file, sizeof file);
    JunitCase c = { .classname = cls, .name = e->name, .file = path,
                    .system_out = r->sysout.len && !r->sysout.oom ? (const char *)r->sysout.data : NULL };
    if (r->skipped) {
        c.verdict = JUNIT_SKIPPED;
        c.message = r->skip_why ? r->skip_why : "not run: an earlier scenario failed (--fail-fast)";
        junit_case(b, &c);
        return;
    }
    Buf props;
    buf_init(&props);
    buf_printf(&props, "<property name=\"scheduled_time\" value=\"%.3f\"/>", (double)r->duration / 1000.0);
    if (r->has_goldens) {
        /* the PTY target: what became of the screenshots */
        const RtPtyGoldens *g = &r->goldens;
        buf_printf(&props, "<property name=\"goldens\" value=\"compared=%u matched=%u mismatched=%u written=%u "
                           "missing=%u updated=%u\"/>",
                   g->matched + g->mismatched, g->matched, g->mismatched, g->written, g->missing, g->updated);
    }
    if (r->props)
        buf_puts(&props, r->props);
    buf_putc(&props, 0);
    c.ms = r->wall_ms;
    c.props = props.oom ? "" : (const char *)props.data;
    char m[160];
    if (r->status == SC_FAILED) {
        c.verdict = JUNIT_FAILURE;
        c.message = r->why ? r->why : "a check did not hold";
        c.type = "failed";
    } else if (r->status) {
        snprintf(m, sizeof m, "run failed (status %d)", r->status);
        c.verdict = JUNIT_ERROR;
        c.message = r->why ? r->why : m;
        c.type = r->status == SC_RUNTIME ? "setup" : "error";
    } else if (r->unchecked) {
        c.verdict = JUNIT_SKIPPED;
        c.message = scvm_unchecked_text(r->unchecked, 1, m, sizeof m);
    }
    junit_case(b, &c);
    buf_fini(&props);
}

/* The tail of a terminal's transcript as text: CSI, OSC and other escape
** sequences and carriage returns dropped, from a line's start. */
static void transcript_tail(Buf *out, const char *t, size_t n)
{
    size_t i = n > 2048 ? n - 2048 : 0;
    while (i > 0 && i < n && t[i - 1] != '\n')   /* from a line's start */
        i++;
    while (i < n) {
        unsigned char c = (unsigned char)t[i++];
        if (c == 0x1b && i < n) {
            unsigned char k = (unsigned char)t[i++];
            if (k == '[') {                      /* CSI: parameters, then a final byte */
                while (i < n && !((unsigned char)t[i] >= 0x40 && (unsigned char)t[i] <= 0x7e))
                    i++;
                i++;
            } else if (k == ']' || k == 'P' || k == '_') {   /* OSC, DCS, APC: to BEL or ST */
                while (i < n && t[i] != 0x07 && !(t[i] == 0x1b && i + 1 < n && t[i + 1] == '\\'))
                    i++;
                i += i < n && t[i] == 0x07 ? 1 : 2;
            } else if (k == '(' || k == ')') {   /* a character set: one more byte */
                i++;
            }
        } else if (c != '\r' && c != 0x07) {
            buf_putc(out, (char)c);
        }
    }
}

void scvm_system_out(Buf *out, const char *artifacts, int status, const char *diag, size_t n)
{
    buf_reset(out);
    if (artifacts) {
        char p[PATH_MAX + 32], *data;
        size_t len;
        snprintf(p, sizeof p, "%s/transcript.log", artifacts);
        if (file_read_all(p, (size_t)64 << 20, &data, &len) == 0) {
            if (len) {
                buf_puts(out, "transcript (its end):\n");
                transcript_tail(out, data, len);
                if (out->len && out->data[out->len - 1] != '\n')
                    buf_putc(out, '\n');
            }
            sc_free(data);
        }
    }
    if (status && n) {
        buf_puts(out, "diagnostics:\n");
        buf_put(out, diag, n);
    }
    if (out->len)
        buf_putc(out, 0);
}

int scvm_write_junit(const Opts *o, const Suite *s, const uint32_t *sel, size_t n, const Result *res,
                       size_t failed, size_t errors, size_t skipped)
{
    Buf b;
    buf_init(&b);
    /* the sum of the testcases' times, as `scvm report --merge` adds the
    ** shards' up */
    JunitTotals t = { .tests = n, .failures = failed, .errors = errors, .skipped = skipped };
    for (size_t k = 0; k < n; k++)
        t.ms += res[k].skipped ? 0 : res[k].wall_ms;
    const char *suite = base_name(o->ops[0]);
    junit_begin(&b, &t);
    junit_suite_begin(&b, suite, &t);
    if (o->shard_n)
        buf_printf(&b, "    <properties><property name=\"shard\" value=\"%u/%u\"/></properties>\n", o->shard_i,
                   o->shard_n);
    for (size_t k = 0; k < n; k++)
        junit_case_of(&b, o, suite, suite_entry_input(s, sel[k]), suite_entry(s, sel[k]), &res[k]);
    junit_suite_end(&b);
    junit_end(&b);
    int e = junit_write(o->junit, &b);
    buf_fini(&b);
    if (e) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", o->junit, strerror(e));
        return SC_IO;
    }
    return 0;
}

void result_why(Result *r, const char *why)
{
    sc_free(r->why);
    r->why = why && *why ? sc_strdup(why) : NULL;
}

void result_fini(Result *r)
{
    buf_fini(&r->out);
    buf_fini(&r->rec);
    buf_fini(&r->sysout);
    sc_free(r->why);
    r->why = NULL;
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
    result_why(&r, why);
    Buf msg;
    buf_init(&msg);
    if (r.why)
        buf_printf(&msg, "%s\n", r.why);
    scvm_system_out(&r.sysout, o->artifacts, status, (const char *)msg.data, msg.oom ? 0 : msg.len);
    int st = scvm_write_junit(o, s, &idx, 1, &r, status == SC_FAILED, status && status != SC_FAILED, 0);
    buf_fini(&msg);
    result_fini(&r);
    return st;
}
