/* cmd_serve.c - `scvm serve llm FILE...`: the mock LLM API server
** (runtime/llm/llm.h; docs/serve-llm.md) over one suite of every input.
**
** Loads and verifies every input first, binds, prints "listening on
** http://ADDR:PORT" on stdout (a script waits for that line), serves
** until SIGINT/SIGTERM/SIGHUP, then prints the summary and exits 0, or 1 when an
** assertion failed or strict tools mode rejected a request; the other
** statuses are scvm's (common/status.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/llm/llm.h"
#include "cli.h"
#include "scvm.h"

int scvm_serve(const Opts *o)
{
    if (o->n_ops == 0)
        return cli_usage(scvm_usage, "%s", "serve llm: no input file");
    Suite *suite = suite_new();
    if (!suite) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    int st = 0;
    SuiteErr e;
    for (size_t i = 0; i < o->n_ops && !st; i++)
        st = scvm_add(suite, o->ops[i], false, &e);
    if (!st && suite_count(suite) == 0) {
        fputs("scvm: serve llm: no scenarios in the inputs\n", stderr);
        st = SC_USAGE;
    }
    if (st) {
        suite_free(suite);
        return st;
    }
    /* -D / AH_SCENARIO_DEFINES: serve the variants they choose */
    uint32_t *only = NULL;
    size_t n_only = 0;
    if (o->n_defines || getenv("AH_SCENARIO_DEFINES")) {
        uint32_t count = suite_count(suite);
        bool *allowed = sc_calloc(count ? count : 1, sizeof *allowed);
        only = sc_calloc(count ? count : 1, sizeof *only);
        st = allowed && only ? scvm_variants(o, suite, allowed) : SC_RUNTIME;
        for (uint32_t i = 0; !st && i < count; i++)
            if (allowed[i])
                only[n_only++] = i;
        sc_free(allowed);
        if (st) {
            if (st == SC_RUNTIME)
                fputs("scvm: out of memory\n", stderr);
            sc_free(only);
            suite_free(suite);
            return st;
        }
    }
    /* --agent: the sessions speak that agent's tool vocabulary ("auto":
    ** each session's detected among the shipped profiles) */
    AgentProfile *profs[16];
    size_t n_profs = 0;
    if (o->agent) {
        char err[1024];
        bool all = strcmp(o->agent, "auto") == 0;
        for (size_t i = 0; all ? agent_profile_builtins[i] != NULL : i < 1; i++) {
            AgentProfile *p = agent_profile_load(all ? agent_profile_builtins[i] : o->agent, err, sizeof err);
            if (!p) {
                fprintf(stderr, "scvm: %s\n", err);
                st = SC_USAGE;
                break;
            }
            profs[n_profs++] = p;
        }
    }
    LlmServeOpts so = {
        .host = o->host, .port = o->port, .speed = o->speed, .workspace = o->workspace,
        .strict_tools = o->strict_tools, .loop = o->loop, .quiet = o->quiet, .max_body = o->max_body,
        .max_conns = o->max_conns, .timeout_ms = o->timeout_ms, .head_timeout_ms = o->head_timeout_ms,
        .idle_timeout_ms = o->idle_timeout_ms, .log = stderr, .only = only, .n_only = n_only,
        .profiles = profs, .n_profiles = n_profs,
    };
    int err = 0;
    LlmServer *s = st ? NULL : llm_server_new(suite, &so, &err);
    char why[1024];
    if (s && llm_server_check_tools(s, why, sizeof why) != 0) {
        fprintf(stderr, "scvm: serve llm: %s\n", why);
        llm_server_free(s);
        s = NULL;
        st = SC_USAGE;
    }
    if (!s && st) {
        for (size_t i = 0; i < n_profs; i++)
            agent_profile_free(profs[i]);
        sc_free(only);
        suite_free(suite);
        return st;
    }
    if (!s) {
        fputs(err == EINVAL ? "scvm: serve llm: the defines choose no scenario\n" : "scvm: out of memory\n", stderr);
        sc_free(only);
        suite_free(suite);
        return err == EINVAL ? SC_USAGE : SC_RUNTIME;
    }
    char bound[96];
    err = llm_server_listen(s, bound, sizeof bound);
    if (err) {
        fprintf(stderr, "scvm: serve llm: cannot listen on %s:%s: %s\n", o->host, o->port,
                err == EINVAL ? "not a numeric address and port" : strerror(err));
        llm_server_free(s);
        sc_free(only);
        suite_free(suite);
        return SC_IO;
    }
    printf("listening on http://%s\n", bound);
    fflush(stdout);
    err = llm_server_run(s);
    if (err)
        fprintf(stderr, "scvm: serve llm: %s\n", strerror(err));
    st = llm_server_finish(s);
    llm_server_free(s);
    for (size_t i = 0; i < n_profs; i++)
        agent_profile_free(profs[i]);
    sc_free(only);
    suite_free(suite);
    return err ? SC_RUNTIME : st;
}
