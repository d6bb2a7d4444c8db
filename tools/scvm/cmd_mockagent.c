/* SPDX-License-Identifier: MIT */
/* cmd_mockagent.c - `scvm agent FILE`: the Scenario-Format's mock agent
** (docs/mock-agent.md).  A program under test launches it as it would
** launch a coding agent; it prints the scenario's responses on its
** terminal at their times and executes the scenario's tool calls and
** edits for real in its work folder (runtime/mockagent/), checking each
** result against the scenario's, and exits with the verdict.
**
** Everything that can be refused is refused before the first op: the
** input (loaded and verified), the selection (exactly one scenario), the
** work folder, the profile, and every tool call (one the mock agent cannot
** execute, or with arguments it cannot honour, is a usage error naming
** its line). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/mockagent/ma_agent.h"
#include "runtime/rt_cancel.h"
#include "runtime/run/run_target.h"
#include "common/color.h"
#include "vm/vm.h"
#include "cli.h"
#include "scvm.h"

/* --color WHEN: always, never, or auto (the default): common/color.h's
** rule, as scc's, on stdout. */
static bool want_color(const char *when)
{
    return sc_color(when && strcmp(when, "always") == 0 ? 1 : when && strcmp(when, "never") == 0 ? 0 : -1,
                    STDOUT_FILENO);
}

static void summary_json(const Opts *o, const PackEntry *e, const RtTarget *t, const MaStats *s, int st)
{
    Buf b;
    JsonW w;
    buf_init(&b);
    jw_open_obj(&w, &b);
    jw_kcstr(&w, "file", cli_display_name(o->ops[0]));
    jw_kcstr(&w, "scenario", e->name);
    jw_kcstr(&w, "source", e->source);
    jw_ku64(&w, "status", (uint64_t)st);
    jw_ku64(&w, "tools", s->tools);
    jw_ku64(&w, "edits", s->edits);
    jw_ku64(&w, "asserts", s->asserts);
    jw_ku64(&w, "checkpoints", s->checkpoints);
    jw_ku64(&w, "inputs", s->inputs);
    jw_ku64(&w, "checks", s->checks);
    jw_ku64(&w, "passed", s->passed);
    jw_ku64(&w, "failed", s->failed);
    jw_ku64(&w, "refused", s->refused);
    if (s->signal)
        jw_ku64(&w, "signal", (uint64_t)s->signal);
    Buf f;
    buf_init(&f);
    ma_agent_failures_json(t, &f);
    jw_kraw(&w, "failures", f.data ? (const char *)f.data : "[]", f.data ? f.len : 2);
    buf_fini(&f);
    jw_end(&w);
    buf_putc(&b, '\n');
    cli_put_stdout(&b);
    buf_fini(&b);
}

int scvm_mockagent(const Opts *o)
{
    Suite *s = NULL;
    uint32_t *sel = NULL;
    size_t n = 0;
    int st = scvm_open(o, "agent", &s, &sel, &n);
    if (st)
        return st;
    const char *file = cli_display_name(o->ops[0]);
    AgentProfile *prof = NULL;
    RtTarget *t = NULL;
    const PackEntry *e = NULL;
    const char *root = o->cwd ? o->cwd : ".";
    struct stat sb;
    if (n != 1) {
        st = cli_usage(scvm_usage, "agent plays one scenario; %s has %zu%s", file, n,
                       n ? " selected (choose one with --scenario NAME)" : " selected");
        goto out;
    }
    e = suite_entry(s, sel[0]);
    const char *bad = stat(root, &sb) != 0 ? strerror(errno) : !S_ISDIR(sb.st_mode) ? "not a folder" : NULL;
    if (bad) {
        fprintf(stderr, "scvm: %s: cannot work there: %s\n", root, bad);
        st = SC_USAGE;
        goto out;
    }
    if (o->agent) {
        char err[1024];
        if (!(prof = agent_profile_load(o->agent, err, sizeof err))) {
            fprintf(stderr, "scvm: %s\n", err);
            st = SC_USAGE;
            goto out;
        }
    }
    Buf why;
    buf_init(&why);
    st = ma_agent_check(e->prog, prof, root, &why);
    for (const char *l = (const char *)why.data, *end = l ? l + why.len : NULL; l && l < end;) {
        const char *nl = memchr(l, '\n', (size_t)(end - l));
        size_t len = nl ? (size_t)(nl - l) : (size_t)(end - l);
        fprintf(stderr, "scvm: %s:%.*s\n", e->source, (int)len, l);
        l += len + 1;
    }
    buf_fini(&why);
    if (st)
        goto out;
    /* A UI that closes our stdout must not end the run half-way: writes
    ** fail instead, and the status says so at the end (SC_IO). */
    signal(SIGPIPE, SIG_IGN);
    if (rt_cancel_install() != 0) {
        fprintf(stderr, "scvm: cannot catch signals: %s\n", strerror(errno));
        st = SC_RUNTIME;
        goto out;
    }
    MaAgentOpts mo = { .root = root, .file = e->source, .out = o->json ? NULL : stdout, .diag = stderr,
                       .color = want_color(o->color), .checkpoint_cmd = o->checkpoint_cmd, .profile = prof,
                       .timeout_ms = o->timeout_ms, .input_fd = o->stdin_prompts ? 0 : -1 };
    if (!(t = run_target("mockagent")->create(&mo))) {
        fprintf(stderr, "scvm: %s: %s\n", root, errno == ENOMEM || !errno ? "out of memory" : strerror(errno));
        st = errno == ENOMEM || !errno ? SC_RUNTIME : SC_IO;
        goto out;
    }
    VmOpts vo = { .speed = o->speed };
    MaClock clock;
    RtClock *clk = rt_clock_virtual();
    if (o->speed > 0) {
        ma_clock_init(&clock);
        clk = &clock.clock;
    }
    st = vm_run(e->prog, t, clk, &vo);
    MaStats ms;
    ma_agent_stats(t, &ms);
    if (ms.signal) {
        st = 128 + ms.signal;
        fprintf(stderr, "scvm: agent: interrupted by signal %d\n", ms.signal);
    } else if (st == SC_RUNTIME) {
        fprintf(stderr, "scvm: agent: out of memory\n");
    }
    fprintf(stderr, "scvm agent: %u tool%s, %u edit%s, %u check%s: %u passed, %u failed\n", ms.tools,
            ms.tools == 1 ? "" : "s", ms.edits, ms.edits == 1 ? "" : "s", ms.checks, ms.checks == 1 ? "" : "s",
            ms.passed, ms.failed);
    if (o->json)
        summary_json(o, e, t, &ms, st);
out:
    if (t)
        t->vt->destroy(t);
    agent_profile_free(prof);
    sc_free(sel);
    suite_free(s);
    return st;
}
