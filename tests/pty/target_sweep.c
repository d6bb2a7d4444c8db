/* SPDX-License-Identifier: MIT */
/* target_sweep.c - every program that verifies is accepted by every
** target's preparation (issue 12, item 4).
**
** usage: target_sweep FILE...  (scenarios: Scenario-Format YAML or tui-use
** JSON).  Each is compiled (scc_compile), loaded by the verifier
** (bc_load), and then prepared by each target:
**
**   sim    played to the counting sink: status 0;
**   pty    begin() with /bin/true as the program (everything the target
**          checks happens before the spawn): never refused for what the
**          program holds (E_PROTOCOL, E_CLI_INVALID_ARG, E_TERMINAL_PARSE);
**   llm    llm_server_new on a suite of it: a server (scripts built).
**
** Exit 0 when all hold, 1 otherwise (each failure printed). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "compiler/compile.h"
#include "formats/suite.h"
#include "runtime/llm/llm.h"
#include "runtime/pty/rt_pty.h"
#include "runtime/rt_sim.h"
#include "vm/vm.h"

static int failures;

static void fail(const char *path, const char *target, const char *what, const char *msg)
{
    fprintf(stderr, "FAIL: %s: %s: %s%s\n", path, target, what, msg);
    failures++;
}

static void sweep(const char *path)
{
    char *src;
    size_t len;
    if (file_read_all(path, 1 << 24, &src, &len)) {
        fail(path, "read", "cannot read", "");
        return;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *sl = strrchr(dir, '/');
    if (sl)
        *sl = 0;
    else
        snprintf(dir, sizeof dir, ".");
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    Diags d;
    diags_init(&d);
    SccCompileOpts o = { .source_name = path, .meta_name = base, .base_dir = dir, .free_source = true };
    SccResult r = { 0 };
    SccStatus cs = scc_compile(src, len, &o, &d, &r);
    diags_fini(&d);
    if (cs != SCC_OK) {
        fail(path, "compile", "", cs == SCC_ERRORS ? "errors" : r.why);
        sc_free(r.bytes);
        return;
    }
    BcProgram *p = NULL;
    BcError be;
    if (bc_load(r.bytes, r.n_bytes, NULL, &p, &be) != BC_ERR_OK) {
        fail(path, "verify", "", be.msg);
        sc_free(r.bytes);
        return;
    }

    /* sim */
    RtTarget *t = rt_count_new();
    int st = vm_run(p, t, NULL, &(VmOpts){ .speed = 1.0 });
    t->vt->destroy(t);
    if (st)
        fail(path, "sim", "vm_run returned ", st == 1 ? "1" : "an error");

    /* pty: preparation only */
    char *argv[] = { "/bin/true", NULL };
    RtPtyOpts po = { .argv = argv, .scenario_dir = dir, .speed = 1.0 };
    t = rt_pty_new(&po);
    if (!t) {
        fail(path, "pty", "out of memory", "");
    } else {
        t->vt->begin(t, p);
        const char *msg = "";
        PtyErr e = rt_pty_result(t, &msg);
        if (e == PTY_E_PROTOCOL || e == PTY_E_CLI_INVALID_ARG || e == PTY_E_TERMINAL_PARSE)
            fail(path, "pty", "refused a verified program: ", msg);
        t->vt->destroy(t);
    }

    /* llm */
    Suite *s = suite_new();
    SuiteErr se;
    if (!s || suite_add_memory(s, r.bytes, r.n_bytes, base, &se) != 0) {
        fail(path, "llm", "", s ? se.msg : "out of memory");
    } else {
        int err = 0;
        LlmServeOpts lo = { .speed = 0 };
        LlmServer *srv = llm_server_new(s, &lo, &err);
        if (!srv)
            fail(path, "llm", "", err == EINVAL ? "empty suite" : "out of memory");
        llm_server_free(srv);
    }
    suite_free(s);
    bc_free(p);
    sc_free(r.bytes);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: target_sweep FILE...\n", stderr);
        return 2;
    }
    for (int i = 1; i < argc; i++)
        sweep(argv[i]);
    printf("target_sweep: %d programs, %d failures\n", argc - 1, failures);
    return failures ? 1 : 0;
}
