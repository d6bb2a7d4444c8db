/* SPDX-License-Identifier: MIT */
/* cmd_serve.c - `scvm serve llm FILE...`: the mock LLM API server
** (runtime/llm/llm.h; docs/serve-llm.md), and `scvm serve acp FILE...`:
** the mock ACP agent (runtime/acp/acp_agent.h; docs/serve-acp.md), over
** one suite of every input; --scenario, --tag and -D choose the scenarios
** served.
**
** serve llm loads and verifies every input first, binds, prints "listening
** on http://ADDR:PORT" on stdout (a script waits for that line), serves
** until SIGINT/SIGTERM/SIGHUP, then prints the summary and exits 0, or 1
** when an assertion failed, strict tools mode rejected a request, or
** (without --loop) a session was not asked for all its responses.
** serve acp speaks ACP on stdin/stdout (nothing else is written to stdout)
** until stdin ends or a signal, then prints its summary on stderr and
** exits 0, or 1 when a check of the client's answers failed.  The other
** statuses are scvm's (common/status.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/acp/acp_agent.h"
#include "runtime/agent/agent_profile.h"
#include "runtime/harness/harness_server.h"
#include "runtime/http/http_server.h"
#include "runtime/rest/rest_server.h"
#include "runtime/llm/llm.h"
#include "runtime/rt_cancel.h"
#include "cli.h"
#include "scvm.h"

/* serve acp: the suite's chosen entries (only, or all) to the client on
** stdin/stdout. */
static int serve_acp(const Opts *o, const Suite *suite, const uint32_t *only, size_t n_only)
{
    if (rt_cancel_install() != 0) {
        fprintf(stderr, "scvm: serve acp: cannot catch signals: %s\n", strerror(errno));
        return SC_RUNTIME;
    }
    signal(SIGPIPE, SIG_IGN);
    AcpServeOpts ao = {
        .speed = o->speed, .only = only, .n_only = n_only, .client_timeout_ms = o->client_timeout_ms,
        .tool_timeout_ms = o->tool_timeout_ms, .passthrough = o->passthrough, .cancel_fd = rt_cancel_fd(), .log = stderr, .quiet = o->quiet,
    };
    AcpCounts c;
    int err = acp_serve(suite, &ao, 0, 1, &c);
    if (err && err != EPIPE)
        fprintf(stderr, "scvm: serve acp: %s\n", strerror(err));
    else if (err)
        fputs("scvm: serve acp: the client stopped reading (stdout closed)\n", stderr);
    fprintf(stderr,
            "scvm serve acp: summary: %u messages, %u sessions, %u prompts, %u updates, %u client calls, %u "
            "protocol errors\n",
            c.messages, c.sessions, c.prompts, c.updates, c.client_calls, c.protocol_errors);
    fprintf(stderr, "scvm serve acp: summary: checks: %u passed, %u failed, %u skipped\n", c.passed, c.failed,
            c.skipped);
    fprintf(stderr, "scvm serve acp: summary: %s\n", err ? "ERROR" : c.failed ? "FAILED" : "ok");
    if (err)
        return err == EPIPE ? SC_IO : SC_RUNTIME;
    return c.failed ? SC_FAILED : SC_OK;
}

/* serve harness: the event server on --listen (default port 8080). */
static int serve_harness(const Opts *o, const Suite *suite, const uint32_t *only, size_t n_only)
{
    HarnessOpts ho = {
        .host = o->host, .port = o->listen_set ? o->port : "8080", .speed = o->speed, .only = only,
        .n_only = n_only, .heartbeat_ms = o->heartbeat_ms, .wall_clock = o->wall_clock, .quiet = o->quiet,
        .log = stderr, .max_body = o->max_body, .max_conns = o->max_conns, .timeout_ms = o->timeout_ms,
        .head_timeout_ms = o->head_timeout_ms, .idle_timeout_ms = o->idle_timeout_ms,
    };
    int err = 0;
    HarnessServer *h = harness_server_new(suite, &ho, &err);
    if (!h) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    char bound[96];
    err = harness_server_listen(h, bound, sizeof bound);
    if (err) {
        fprintf(stderr, "scvm: serve harness: cannot listen on %s:%s: %s\n", o->host, ho.port,
                err == EINVAL ? "no address of that host, or a bad port" : strerror(err));
        harness_server_free(h);
        return SC_IO;
    }
    printf("listening on http://%s\n", bound);
    fflush(stdout);
    err = http_server_run(harness_server_http(h));
    if (err)
        fprintf(stderr, "scvm: serve harness: %s\n", strerror(err));
    HarnessCounts c;
    harness_server_counts(h, &c);
    fprintf(stderr,
            "scvm serve harness: summary: %u requests, %u prompts (%u while busy), %u cancels, %u events, %u "
            "heartbeats, %u subscribers at most\n",
            c.requests, c.prompts, c.busy, c.cancels, c.events, c.heartbeats, c.max_subscribers);
    harness_server_free(h);
    return err ? SC_RUNTIME : SC_OK;
}

/* serve rest: the REST mock on --listen (default port 38180). */
static int serve_rest(const Opts *o, const Suite *suite, const uint32_t *only, size_t n_only)
{
    RestOpts ro = {
        .host = o->host, .port = o->listen_set ? o->port : "38180", .speed = o->speed, .only = only,
        .n_only = n_only, .keepalive_ms = o->keepalive_ms, .wall_clock = o->wall_clock, .quiet = o->quiet,
        .log = stderr, .max_body = o->max_body, .max_conns = o->max_conns, .timeout_ms = o->timeout_ms,
        .head_timeout_ms = o->head_timeout_ms, .idle_timeout_ms = o->idle_timeout_ms,
    };
    int err = 0;
    RestServer *r = rest_server_new(suite, &ro, &err);
    if (!r) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    char bound[96];
    err = rest_server_listen(r, bound, sizeof bound);
    if (err) {
        fprintf(stderr, "scvm: serve rest: cannot listen on %s:%s: %s\n", o->host, ro.port,
                err == EINVAL ? "no address of that host, or a bad port" : strerror(err));
        rest_server_free(r);
        return SC_IO;
    }
    printf("listening on http://%s\n", bound);
    fflush(stdout);
    err = http_server_run(rest_server_http(r));
    if (err)
        fprintf(stderr, "scvm: serve rest: %s\n", strerror(err));
    RestCounts c;
    rest_server_counts(r, &c);
    fprintf(stderr,
            "scvm serve rest: summary: %u requests, %u tasks, %u sessions (%u retired to make room), %u events, %u "
            "subscribers at most\n",
            c.requests, c.tasks, c.sessions, c.retired, c.events, c.max_subscribers);
    rest_server_free(r);
    return err ? SC_RUNTIME : SC_OK;
}

/* Whether the server list ("llm+rest+harness") names server. */
static bool names(const char *list, const char *server)
{
    size_t n = strlen(server);
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, "+");
        if (k == n && memcmp(p, server, n) == 0)
            return true;
        p += k + (p[k] == '+');
    }
    return false;
}

typedef struct Many {
    LlmServer *llm;
    RestServer *rest;
    HarnessServer *harness;
} Many;

/* serve llm+rest+harness (any two or three): the servers in one process,
** each on its own address, served by one loop on this thread
** (http_server_run_many), stopped together by a signal. */
static int serve_many(const Opts *o, const Suite *suite, const uint32_t *only, size_t n_only)
{
    Many m = { 0 };
    int st = 0, err = 0;
    bool want[3] = { names(o->server, "llm"), names(o->server, "rest"), names(o->server, "harness") };
    /* the servers share the process's descriptors: each gets its part of
    ** what the limit allows (each says its own on stderr) */
    unsigned n_want = (unsigned)want[0] + want[1] + want[2] + !(want[0] || want[1] || want[2]);
    unsigned long fds = http_fd_limit(), need = (unsigned long)n_want * (HTTP_SERVER_FD_RESERVE + 16);
    unsigned long each = fds > need ? (fds - (unsigned long)n_want * HTTP_SERVER_FD_RESERVE) / n_want : 16;
    unsigned max_conns = o->max_conns && o->max_conns < each ? o->max_conns : each > 65536 ? 65536 : (unsigned)each;
    if (want[0]) {
        LlmServeOpts lo = {
            .host = o->host, .port = o->port, .speed = o->speed, .workspace = o->workspace, .loop = o->loop,
            .quiet = o->quiet, .log_json = o->log_format && strcmp(o->log_format, "json") == 0, .max_body = o->max_body, .max_conns = max_conns, .timeout_ms = o->timeout_ms,
            .head_timeout_ms = o->head_timeout_ms, .idle_timeout_ms = o->idle_timeout_ms, .log = stderr,
            .only = only, .n_only = n_only, .no_signals = true,
        };
        m.llm = llm_server_new(suite, &lo, &err);
        st = m.llm ? 0 : SC_RUNTIME;
    }
    if (!st && want[1]) {
        RestOpts ro = {
            .host = o->rest_host, .port = o->rest_port, .speed = o->speed, .only = only, .n_only = n_only,
            .keepalive_ms = o->keepalive_ms, .wall_clock = o->wall_clock, .quiet = o->quiet, .log = stderr,
            .max_body = o->max_body, .max_conns = max_conns, .timeout_ms = o->timeout_ms,
            .head_timeout_ms = o->head_timeout_ms, .idle_timeout_ms = o->idle_timeout_ms, .no_signals = true,
        };
        m.rest = rest_server_new(suite, &ro, &err);
        st = m.rest ? 0 : SC_RUNTIME;
    }
    if (!st && want[2]) {
        HarnessOpts ho = {
            .host = o->harness_host, .port = o->harness_port, .speed = o->speed, .only = only, .n_only = n_only,
            .heartbeat_ms = o->heartbeat_ms, .wall_clock = o->wall_clock, .quiet = o->quiet, .log = stderr,
            .max_body = o->max_body, .max_conns = max_conns, .timeout_ms = o->timeout_ms,
            .head_timeout_ms = o->head_timeout_ms, .idle_timeout_ms = o->idle_timeout_ms, .no_signals = true,
        };
        m.harness = harness_server_new(suite, &ho, &err);
        st = m.harness ? 0 : SC_RUNTIME;
    }
    if (st)
        fputs("scvm: out of memory\n", stderr);
    /* signals are caught before the "listening" lines: a script that
    ** sends SIGTERM as soon as it reads them gets the summary, not a kill */
    if (!st && rt_cancel_install() != 0) {
        fprintf(stderr, "scvm: serve: cannot catch signals: %s\n", strerror(errno));
        st = SC_RUNTIME;
    }
    static const char *const label[3] = { "llm", "rest", "harness" };
    const char *host[3] = { o->host, o->rest_host, o->harness_host }, *port[3] = { o->port, o->rest_port,
                                                                                    o->harness_port };
    for (int k = 0; k < 3 && !st; k++) {
        if (!want[k])
            continue;
        char bound[96];
        err = k == 0 ? llm_server_listen(m.llm, bound, sizeof bound)
              : k == 1 ? rest_server_listen(m.rest, bound, sizeof bound)
                       : harness_server_listen(m.harness, bound, sizeof bound);
        if (err) {
            fprintf(stderr, "scvm: serve %s: cannot listen on %s:%s: %s\n", label[k], host[k], port[k],
                    err == EINVAL ? "no address of that host, or a bad port" : strerror(err));
            st = SC_IO;
        } else {
            printf("%s listening on http://%s\n", label[k], bound);
        }
    }
    fflush(stdout);
    if (!st) {
        signal(SIGPIPE, SIG_IGN);
        HttpServer *all[3] = { m.llm ? llm_server_http(m.llm) : NULL, m.rest ? rest_server_http(m.rest) : NULL,
                               m.harness ? harness_server_http(m.harness) : NULL };
        HttpServer *sv[3];
        int which[3], errs[3] = { 0 };
        size_t n = 0;
        for (int k = 0; k < 3; k++)
            if (want[k]) {
                which[n] = k;
                sv[n++] = all[k];
            }
        int le = http_server_run_many(sv, n, rt_cancel_fd(), errs);
        if (le && !errs[0] && !errs[n > 1] && !errs[n > 2 ? 2 : 0]) {
            fprintf(stderr, "scvm: serve: %s\n", strerror(le));
            st = SC_RUNTIME;
        }
        for (size_t i = 0; i < n; i++)
            if (errs[i]) {
                fprintf(stderr, "scvm: serve %s: %s\n", label[which[i]], strerror(errs[i]));
                st = SC_RUNTIME;
            }
        if (m.llm) {
            int ls = llm_server_finish(m.llm);
            if (ls > st)
                st = ls;
        }
        if (m.rest) {
            RestCounts c;
            rest_server_counts(m.rest, &c);
            fprintf(stderr, "scvm serve rest: summary: %u requests, %u tasks, %u sessions (%u retired to make room), "
                            "%u events, %u subscribers at most\n", c.requests, c.tasks, c.sessions, c.retired, c.events,
                    c.max_subscribers);
        }
        if (m.harness) {
            HarnessCounts c;
            harness_server_counts(m.harness, &c);
            fprintf(stderr, "scvm serve harness: summary: %u requests, %u prompts (%u while busy), %u cancels, %u "
                            "events, %u heartbeats, %u subscribers at most\n", c.requests, c.prompts, c.busy,
                    c.cancels, c.events, c.heartbeats, c.max_subscribers);
        }
    }
    llm_server_free(m.llm);
    rest_server_free(m.rest);
    harness_server_free(m.harness);
    return st;
}

int scvm_serve(const Opts *o)
{
    bool many = strchr(o->server, '+') != NULL;
    bool acp = strcmp(o->server, "acp") == 0, harness = names(o->server, "harness"), rest = names(o->server, "rest");
    if (o->n_ops == 0)
        return cli_usage(scvm_usage, "serve %s: no input file", o->server);
    /* which option applies to which server is the option table's (options.c,
    ** checked as the command line is read); what is left is about several */
    if (many && (o->agent || o->strict_tools))
        return cli_usage(scvm_usage, "serve %s: --agent and --strict-tools are options of serve llm alone", o->server);
    if (!many && (o->rest_set || o->harness_set))
        return cli_usage(scvm_usage, "serve %s: --rest-listen and --harness-listen are for serving several servers "
                         "(serve llm+rest+harness); use --listen", o->server);
    if (many && o->listen_set && !names(o->server, "llm"))
        return cli_usage(scvm_usage, "serve %s: --listen is the llm server's; use --rest-listen and --harness-listen",
                         o->server);
    Suite *suite = suite_new();
    if (!suite) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    int st = 0;
    SuiteErr e;
    bool sources = true;      /* every input a source: the defines are resolved at load */
    for (size_t i = 0; i < o->n_ops && !st; i++) {
        bool src = scvm_is_source(o->ops[i]);
        sources = sources && src;
        st = src ? scvm_add_source(suite, o, o->ops[i], false, &e) : scvm_add(suite, o->ops[i], false, &e);
    }
    if (!st && suite_count(suite) == 0) {
        fprintf(stderr, "scvm: serve %s: no scenarios in the inputs\n", o->server);
        st = SC_USAGE;
    }
    if (st) {
        suite_free(suite);
        return st;
    }
    /* -D / AH_SCENARIO_DEFINES: serve the variants they choose; --scenario
    ** and --tag: the scenarios they select */
    uint32_t *only = NULL;
    size_t n_only = 0;
    if (o->n_defines || getenv("AH_SCENARIO_DEFINES") || o->n_names || o->n_tags) {
        uint32_t count = suite_count(suite);
        bool *allowed = sc_calloc(count ? count : 1, sizeof *allowed);
        st = allowed ? 0 : SC_RUNTIME;
        if (!st && !sources && (o->n_defines || getenv("AH_SCENARIO_DEFINES")))
            st = scvm_variants(o, suite, allowed);
        else
            for (uint32_t i = 0; i < count && allowed; i++)
                allowed[i] = true;
        SuiteQuery q = { .names = o->names, .n_names = o->n_names, .tags = o->tags, .n_tags = o->n_tags,
                         .allowed = allowed };
        SuiteErr e2;
        if (!st && suite_select(suite, &q, &only, &n_only, &e2) != 0) {
            st = e2.status;
            if (st != SC_RUNTIME)
                fprintf(stderr, "scvm: serve %s: %s\n", o->server, e2.msg);
        }
        if (!st && n_only == 0) {
            fprintf(stderr, "scvm: serve %s: the selection chooses no scenario\n", o->server);
            st = SC_USAGE;
        }
        sc_free(allowed);
        if (st) {
            if (st == SC_RUNTIME)
                fputs("scvm: out of memory\n", stderr);
            sc_free(only);
            suite_free(suite);
            return st;
        }
    }
    if (many) {
        st = serve_many(o, suite, only, n_only);
        sc_free(only);
        suite_free(suite);
        return st;
    }
    if (acp || harness || rest) {
        st = acp ? serve_acp(o, suite, only, n_only)
             : harness ? serve_harness(o, suite, only, n_only) : serve_rest(o, suite, only, n_only);
        sc_free(only);
        suite_free(suite);
        return st;
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
        .strict_tools = o->strict_tools, .loop = o->loop, .quiet = o->quiet,
        .log_json = o->log_format && strcmp(o->log_format, "json") == 0, .max_body = o->max_body,
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
                err == EINVAL ? "no address of that host, or a bad port" : strerror(err));
        llm_server_free(s);
        sc_free(only);
        suite_free(suite);
        return SC_IO;
    }
    printf("listening on http://%s\n", bound);
    fflush(stdout);
    err = http_server_run(llm_server_http(s));
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
