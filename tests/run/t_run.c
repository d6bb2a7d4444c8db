/* SPDX-License-Identifier: MIT */
/* t_run.c - the run library (runtime/run/): the table of targets; the
** worker pool hands items back in index order whatever -j, stops,
** discards and skips as --fail-fast and signals need, in threads and in
** tied children; JUnit is written with the one escaper, read for
** --timings and merged. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/status.h"
#include "runtime/rt_cancel.h"
#include "runtime/run/run_junit.h"
#include "runtime/run/run_pool.h"
#include "runtime/run/run_target.h"
#include "runtime/rt_sim.h"

static int failures;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                      \
        }                                                                    \
    } while (0)

/* ---- the pool ---- */

enum { N = 40 };

typedef struct T {
    int worked[N];              /* how often item k's work ran (threads) */
    size_t order[N], n_order;   /* the emitted items, in emit order */
    int status[N];
    size_t skipped[N], n_skipped;
    RunSkip why[N];
    int fail_at;                /* this item's work returns SC_FAILED; -1 none */
    int stop_emit_at;           /* emit returns true here; -1 never */
    int signal_at;              /* emit raises SIGTERM here; -1 never */
    bool block_after;           /* processes: items after 0 wait for a signal */
    pthread_t caller;
    bool off_caller;            /* some work ran off the caller's thread */
    pthread_mutex_t mu;
} T;

static int work(void *ctx, size_t k)
{
    T *t = ctx;
    pthread_mutex_lock(&t->mu);
    t->worked[k]++;
    if (!pthread_equal(pthread_self(), t->caller))
        t->off_caller = true;
    pthread_mutex_unlock(&t->mu);
    return (int)k == t->fail_at ? SC_FAILED : 0;
}

/* In a child: item k's status is 10 + k; after item 0, with block_after,
** it waits for a signal (the pool passes it on, or kills it). */
static int child_work(void *ctx, size_t k)
{
    T *t = ctx;
    t->worked[k] = 1;           /* in the child's copy only */
    if (t->block_after && k > 0) {
        if (rt_cancel_install() != 0)
            return 99;
        struct pollfd pf = { .fd = rt_cancel_fd(), .events = POLLIN };
        while (!rt_cancel_signal())
            poll(&pf, 1, -1);
        return 128 + rt_cancel_signal();
    }
    return (int)k == t->fail_at ? SC_FAILED : 10 + (int)k;
}

static bool finished(void *ctx, size_t k, int status)
{
    (void)ctx, (void)k;
    return status == SC_FAILED;
}

static bool emit(void *ctx, size_t k, int status, uint64_t wall_ms)
{
    T *t = ctx;
    (void)wall_ms;
    t->order[t->n_order++] = k;
    t->status[k] = status;
    if ((int)k == t->signal_at)
        kill(getpid(), SIGTERM);
    return (int)k == t->stop_emit_at;
}

static void skip(void *ctx, size_t k, RunSkip why)
{
    T *t = ctx;
    t->why[t->n_skipped] = why;
    t->skipped[t->n_skipped++] = k;
}

static void t_init(T *t)
{
    memset(t, 0, sizeof *t);
    t->fail_at = t->stop_emit_at = t->signal_at = -1;
    t->caller = pthread_self();
    pthread_mutex_init(&t->mu, NULL);
}

/* emitted 0 .. e-1 in order, then skipped e .. n-1 in order */
static bool in_order(const T *t, size_t e, size_t n)
{
    if (t->n_order != e || t->n_skipped != n - e)
        return false;
    for (size_t k = 0; k < e; k++)
        if (t->order[k] != k)
            return false;
    for (size_t k = 0; k < n - e; k++)
        if (t->skipped[k] != e + k)
            return false;
    return true;
}

static void test_threads(void)
{
    static const unsigned JOBS[] = { 0, 1, 2, 7, 64 };
    for (size_t j = 0; j < sizeof JOBS / sizeof JOBS[0]; j++) {
        T t;
        t_init(&t);
        RunPool p = { .mode = RUN_POOL_THREADS, .n = N, .jobs = JOBS[j], .ctx = &t, .work = work,
                      .finished = finished, .emit = emit, .skip = skip };
        CHECK(run_pool(&p) == 0);
        CHECK(in_order(&t, N, N));
        for (size_t k = 0; k < N; k++)
            CHECK(t.worked[k] == 1);
        /* -j 1 plays in the caller's thread; more on workers */
        CHECK(t.off_caller == (JOBS[j] > 1));
        pthread_mutex_destroy(&t.mu);
    }
    /* --fail-fast: the emit of the failure stops the rest, whatever ran */
    for (unsigned jobs = 1; jobs <= 4; jobs += 3) {
        T t;
        t_init(&t);
        t.fail_at = t.stop_emit_at = 5;
        RunPool p = { .mode = RUN_POOL_THREADS, .n = N, .jobs = jobs, .ctx = &t, .work = work,
                      .finished = finished, .emit = emit, .skip = skip };
        CHECK(run_pool(&p) == 0);
        CHECK(in_order(&t, 6, N));
        CHECK(t.status[5] == SC_FAILED);
        for (size_t k = 0; k < t.n_skipped; k++)
            CHECK(t.why[k] == RUN_SKIP_STOPPED);
        /* nothing started after the failure was known, -j 1 nothing at all */
        size_t ran = 0;
        for (size_t k = 6; k < N; k++)
            ran += (size_t)t.worked[k];
        CHECK(jobs == 1 ? ran == 0 : ran <= jobs);
        pthread_mutex_destroy(&t.mu);
    }
    /* finished() alone (the emit goes on): nothing after the failure starts */
    {
        T t;
        t_init(&t);
        t.fail_at = 0;
        RunPool p = { .mode = RUN_POOL_THREADS, .n = N, .jobs = 1, .ctx = &t, .work = work,
                      .finished = finished, .emit = emit, .skip = skip };
        CHECK(run_pool(&p) == 0);
        CHECK(in_order(&t, 1, N));
        pthread_mutex_destroy(&t.mu);
    }
}

static bool no_children(void)
{
    return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

static void test_processes(void)
{
    /* statuses come back from the children, in order, for any -j; the
    ** work ran in the children, not here */
    for (unsigned jobs = 1; jobs <= 5; jobs += 2) {
        T t;
        t_init(&t);
        RunPool p = { .mode = RUN_POOL_PROCESSES, .n = 9, .jobs = jobs, .ctx = &t, .work = child_work,
                      .finished = finished, .emit = emit, .skip = skip };
        CHECK(run_pool(&p) == 0);
        CHECK(in_order(&t, 9, 9));
        for (size_t k = 0; k < 9; k++) {
            CHECK(t.status[k] == 10 + (int)k);
            CHECK(t.worked[k] == 0);
        }
        CHECK(no_children());
    }
    /* finished() (the PTY suite's --fail-fast): the running ones are
    ** reported, nothing new starts, the rest are skipped as stopped */
    {
        T t;
        t_init(&t);
        t.fail_at = 0;
        RunPool p = { .mode = RUN_POOL_PROCESSES, .n = 6, .jobs = 1, .ctx = &t, .work = child_work,
                      .finished = finished, .emit = emit, .skip = skip };
        CHECK(run_pool(&p) == 0);
        CHECK(in_order(&t, 1, 6) && t.status[0] == SC_FAILED && t.why[0] == RUN_SKIP_STOPPED);
    }
    /* emit() stops (the aut target's --fail-fast): the running children
    ** get SIGTERM and are reaped, never emitted; the rest are skipped */
    {
        T t;
        t_init(&t);
        t.block_after = true;
        t.stop_emit_at = 0;
        RunPool p = { .mode = RUN_POOL_PROCESSES, .n = 6, .jobs = 3, .ctx = &t, .work = child_work,
                      .emit = emit, .skip = skip };
        CHECK(run_pool(&p) == 0);
        CHECK(in_order(&t, 1, 6) && t.status[0] == 10);
        for (size_t k = 0; k < t.n_skipped; k++)
            CHECK(t.why[k] == RUN_SKIP_STOPPED);
        CHECK(no_children());
    }
    /* the cancel pipe is the process's that made it: a forked child has
    ** none until it installs its own (rt_cancel_fd asks no getpid: a
    ** fork handler forgets the parent's), and the parent keeps its own */
    {
        CHECK(rt_cancel_install() == 0);
        int mine = rt_cancel_fd();
        CHECK(mine >= 0);
        pid_t c = fork();
        if (c == 0) {
            bool none = rt_cancel_fd() == -1;
            bool own = rt_cancel_install() == 0 && rt_cancel_fd() >= 0;
            _exit(none && own ? 0 : 1);
        }
        int st = 0;
        CHECK(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        CHECK(rt_cancel_fd() == mine);
    }
    /* a signal: passed on to the running children, which end and are
    ** emitted with their status; nothing new starts */
    {
        CHECK(rt_cancel_install() == 0);
        T t;
        t_init(&t);
        t.block_after = true;
        t.signal_at = 0;
        RunPool p = { .mode = RUN_POOL_PROCESSES, .n = 6, .jobs = 2, .ctx = &t, .work = child_work,
                      .emit = emit, .skip = skip };
        CHECK(run_pool(&p) == 0);
        /* 0 and 1 started together, 2 as 0 was emitted; then the signal */
        CHECK(in_order(&t, 3, 6));
        CHECK(t.status[1] == 128 + SIGTERM && t.status[2] == 128 + SIGTERM);
        for (size_t k = 0; k < t.n_skipped; k++)
            CHECK(t.why[k] == RUN_SKIP_SIGNAL);
        CHECK(no_children());
        CHECK(rt_cancel_signal() == SIGTERM);
    }
    /* run_fork_tied + run_wait_child */
    pid_t c = run_fork_tied();
    if (c == 0)
        _exit(7);
    CHECK(c > 0 && run_wait_child(c) == 7);
    c = run_fork_tied();
    if (c == 0) {
        signal(SIGUSR1, SIG_DFL);
        raise(SIGUSR1);
        _exit(0);
    }
    CHECK(c > 0 && run_wait_child(c) == 128 + SIGUSR1);
    CHECK(run_wait_child(c) == -1 && errno == ECHILD);
}

/* ---- a child of its own ---- */

static int child_three(void *ctx)
{
    /* stdout is /dev/null: what the child prints goes nowhere */
    *(int *)ctx = 1;
    return puts("not on the test's stdout") >= 0 && !isatty(1) ? 3 : 4;
}

static int child_killed(void *ctx)
{
    (void)ctx;
    signal(SIGUSR1, SIG_DFL);
    raise(SIGUSR1);
    return 0;
}

static void test_in_child(void)
{
    int touched = 0;
    CHECK(run_in_child(child_three, &touched) == 3 && touched == 0);
    CHECK(run_in_child(child_killed, NULL) == 128 + SIGUSR1);
}

/* ---- the table of targets ---- */

static void test_targets(void)
{
    static const char *const NAMES[] = { "sim", "pty", "agent", "aut", "mockagent" };
    CHECK(run_n_targets == sizeof NAMES / sizeof NAMES[0]);
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++) {
        const RunTarget *t = run_target(NAMES[i]);
        CHECK(t && !strcmp(t->name, NAMES[i]) && t->create);
        /* only the simulation shares a process: -j is threads there */
        CHECK(t && run_target_pool(t) == (i == 0 ? RUN_POOL_THREADS : RUN_POOL_PROCESSES));
    }
    CHECK(!run_target("count") && !run_target(NULL) && !run_target(""));
    /* a session's options name one scenario */
    const RunTarget *pty = run_target("pty"), *sim = run_target("sim");
    CHECK(pty->check(RUN_OPT_CAST, false) == NULL);
    CHECK(pty->check(0, true) == NULL);
    CHECK(strstr(pty->check(RUN_OPT_CAST | RUN_OPT_EXPLAIN, true), "--cast records one session"));
    CHECK(strstr(pty->check(RUN_OPT_DM_EXIT, true), "--data-model-exit"));
    CHECK(strstr(run_target("agent")->check(RUN_OPT_EXPLAIN, true), "--explain-policy"));
    CHECK(sim->check == NULL);
    /* create makes the row's target from its own options */
    Buf mem;
    buf_init(&mem);
    RtSimOpts so = { .mem = &mem };
    RtTarget *t = sim->create(&so);
    CHECK(t && t->vt && t->vt->destroy);
    if (t)
        t->vt->destroy(t);
    buf_fini(&mem);
}

/* ---- JUnit ---- */

static bool buf_is(const Buf *b, const char *s)
{
    bool ok = b->len == strlen(s) && memcmp(b->data, s, b->len) == 0;
    if (!ok)
        fprintf(stderr, "got: %.*s\nwant: %s\n", (int)b->len, b->data ? (const char *)b->data : "", s);
    return ok;
}

static void test_junit_write(void)
{
    Buf b;
    buf_init(&b);
    junit_esc(&b, "a&b<c>\"d'\x01\t\n\r\x7f\xc3\xa9");
    CHECK(buf_is(&b, "a&amp;b&lt;c&gt;&quot;d&apos;&#xFFFD;\t\n\r\x7f\xc3\xa9"));
    buf_reset(&b);
    junit_esc(&b, NULL);
    CHECK(b.len == 0);
    JunitTotals t = { .tests = 3, .failures = 1, .errors = 0, .skipped = 1, .ms = 1234 };
    junit_begin(&b, &t);
    junit_suite_begin(&b, "s'1", &t);
    junit_case(&b, &(JunitCase){ .classname = "s", .name = "ok", .ms = 5 });
    junit_case(&b, &(JunitCase){ .classname = "s", .name = "bad", .file = "a/b.yaml", .ms = 1000,
                                 .props = "<property name=\"p\" value=\"1\"/>", .verdict = JUNIT_FAILURE,
                                 .message = "x < y", .type = "failed" });
    junit_case(&b, &(JunitCase){ .classname = "s", .name = "sk", .verdict = JUNIT_SKIPPED, .message = "why" });
    junit_suite_end(&b);
    junit_end(&b);
    CHECK(buf_is(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<testsuites name=\"scvm\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"1.234\">\n"
                     "  <testsuite name=\"s&apos;1\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" time=\"1.234\">\n"
                     "    <testcase classname=\"s\" name=\"ok\" time=\"0.005\"/>\n"
                     "    <testcase classname=\"s\" name=\"bad\" file=\"a/b.yaml\" time=\"1.000\">\n"
                     "      <properties><property name=\"p\" value=\"1\"/></properties>\n"
                     "      <failure message=\"x &lt; y\" type=\"failed\"/>\n"
                     "    </testcase>\n"
                     "    <testcase classname=\"s\" name=\"sk\" time=\"0.000\">\n"
                     "      <skipped message=\"why\"/>\n"
                     "    </testcase>\n"
                     "  </testsuite>\n"
                     "</testsuites>\n"));
    buf_fini(&b);
}

typedef struct Times {
    char names[8][64];
    double secs[8];
    size_t n;
} Times;

static void each(void *ctx, const char *name, double secs)
{
    Times *t = ctx;
    if (t->n < 8) {
        snprintf(t->names[t->n], sizeof t->names[0], "%s", name);
        t->secs[t->n++] = secs;
    }
}

static void test_junit_times(void)
{
    const char *x =
        "<testsuites><testsuite name=\"s\">\n"
        "<testcase classname=\"s\" name=\"a&amp;b&apos;\" time=\"1.500\"/>\n"
        "<testcase classname=\"s\" name=\"sched\" time=\"0.001\">"
        "<properties><property name=\"scheduled_time\" value=\"9.000\"/></properties></testcase>\n"
        "<testcase classname=\"s\" name=\"short\" time=\"2.000\">"
        "<properties><property name=\"scheduled_time\" value=\"1.000\"/></properties></testcase>\n"
        "<testcase classname=\"s\" name=\"bad\" time=\"x\"/>\n"
        "<testcase classname=\"s\" name=\"notime\"/>\n"
        "</testsuite></testsuites>\n";
    Times t = { .n = 0 };
    CHECK(junit_times(x, each, &t) == 5);
    CHECK(t.n == 3);
    CHECK(!strcmp(t.names[0], "a&b'") && t.secs[0] == 1.5);
    CHECK(!strcmp(t.names[1], "sched") && t.secs[1] == 9.0);
    CHECK(!strcmp(t.names[2], "short") && t.secs[2] == 2.0);
    CHECK(junit_times("<testsuites/>", each, &t) == 0);
}

static void test_junit_merge(void)
{
    char dir[4096];
    CHECK(file_mkdtemp("t-run", dir, sizeof dir) == 0);
    char a[4200], b2[4200], c[4200], missing[4200];
    snprintf(a, sizeof a, "%s/a.xml", dir);
    snprintf(b2, sizeof b2, "%s/b.xml", dir);
    snprintf(c, sizeof c, "%s/c.xml", dir);
    snprintf(missing, sizeof missing, "%s/none.xml", dir);
    const char *xa = "<?xml version=\"1.0\"?>\n<testsuites name=\"scvm\">\n"
                     "  <testsuite name=\"p&amp;q\" tests=\"1\">\n"
                     "    <properties><property name=\"shard\" value=\"1/2\"/></properties>\n"
                     "    <testcase classname=\"p\" name=\"z\" file=\"b.yaml\" time=\"1.000\">\n"
                     "      <failure message=\"m\" type=\"failed\"/>\n"
                     "    </testcase>\n"
                     "  </testsuite>\n</testsuites>\n";
    const char *xb = "<testsuites name=\"scvm\">\n"
                     "  <testsuite name=\"p&amp;q\" tests=\"1\">\n"
                     "    <testcase classname=\"p\" name=\"y\" file=\"a.yaml\" time=\"0.250\"/>\n"
                     "  </testsuite>\n</testsuites>\n";
    CHECK(file_write_atomic(a, xa, strlen(xa)) == 0);
    CHECK(file_write_atomic(b2, xb, strlen(xb)) == 0);
    CHECK(file_write_atomic(c, "<html/>", 7) == 0);
    Buf out;
    buf_init(&out);
    char err[512];
    size_t n = 0;
    const char *ab[] = { a, b2 };
    CHECK(junit_merge(ab, 2, &out, &n, err, sizeof err) == 0 && n == 2);
    CHECK(buf_is(&out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                       "<testsuites name=\"scvm\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"1.250\">\n"
                       "  <testsuite name=\"p&amp;q\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"1.250\">\n"
                       "    <testcase classname=\"p\" name=\"y\" file=\"a.yaml\" time=\"0.250\"/>\n"
                       "    <testcase classname=\"p\" name=\"z\" file=\"b.yaml\" time=\"1.000\">\n"
                       "      <failure message=\"m\" type=\"failed\"/>\n"
                       "    </testcase>\n"
                       "  </testsuite>\n"
                       "</testsuites>\n"));
    buf_reset(&out);
    const char *aa[] = { a, a };
    CHECK(junit_merge(aa, 2, &out, &n, err, sizeof err) == SC_USAGE && strstr(err, "the shards overlap"));
    buf_reset(&out);
    const char *ac[] = { a, c };
    CHECK(junit_merge(ac, 2, &out, &n, err, sizeof err) == SC_USAGE && strstr(err, "not a JUnit XML report"));
    buf_reset(&out);
    const char *am[] = { a, missing };
    CHECK(junit_merge(am, 2, &out, &n, err, sizeof err) == SC_IO && strstr(err, "cannot read"));
    buf_fini(&out);
    file_remove_tree(dir);
}

int main(void)
{
    test_targets();
    test_threads();
    test_processes();
    test_in_child();
    test_junit_write();
    test_junit_times();
    test_junit_merge();
    if (failures)
        fprintf(stderr, "%d failure(s)\n", failures);
    else
        puts("run: targets, pool and JUnit ok");
    return failures ? 1 : 0;
}
