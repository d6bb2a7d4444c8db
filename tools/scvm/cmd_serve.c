/* cmd_serve.c - `scvm serve llm FILE...`: the mock LLM API server
** (runtime/llm/llm.h; docs/serve-llm.md) over one suite of every input.
**
** Loads and verifies every input first, binds, prints "listening on
** http://ADDR:PORT" on stdout (a script waits for that line), serves
** until SIGINT/SIGTERM, then prints the summary and exits 0, or 1 when an
** assertion failed or strict tools mode rejected a request; the other
** statuses are scvm's (common/status.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/status.h"
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
    LlmServeOpts so = {
        .host = o->host, .port = o->port, .speed = o->speed, .workspace = o->workspace,
        .strict_tools = o->strict_tools, .loop = o->loop, .quiet = o->quiet, .max_body = o->max_body,
        .max_conns = o->max_conns, .timeout_ms = o->timeout_ms, .log = stderr,
    };
    int err = 0;
    LlmServer *s = llm_server_new(suite, &so, &err);
    if (!s) {
        fputs("scvm: out of memory\n", stderr);
        suite_free(suite);
        return SC_RUNTIME;
    }
    char bound[96];
    err = llm_server_listen(s, bound, sizeof bound);
    if (err) {
        fprintf(stderr, "scvm: serve llm: cannot listen on %s:%s: %s\n", o->host, o->port,
                err == EINVAL ? "not a numeric address and port" : strerror(err));
        llm_server_free(s);
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
    suite_free(suite);
    return err ? SC_RUNTIME : st;
}
