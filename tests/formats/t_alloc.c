/* SPDX-License-Identifier: MIT */
/* t_alloc.c - allocation-failure injection: for N = 1, 2, ... make the Nth
** allocation fail (and every later one) while building, finishing, loading
** (from memory and from a file) and listing, until a run needs fewer than N
** allocations and succeeds.  Every failure must be reported as out of
** memory, never as another error, a crash or a leak (LeakSanitizer checks
** each child in the sanitizer build).
**
** sc_alloc's counter cannot be reset (and only runs while armed), so each N
** runs in a fork()ed child that starts from a count of zero. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "tf.h"

enum { DONE = 0, OOM = 10, WRONG = 20 };

static const char *path;

static int scenario(void)
{
    BcBuilder *b = bcb_new();
    if (!b)
        return OOM;
    bool built = tf_build_sample(b, 0);
    const char *why = bcb_error(b);
    if (!built) {
        bool oom = why && strcmp(why, "out of memory") == 0;
        if (!oom)
            fprintf(stderr, "builder failed: %s\n", why ? why : "(no message)");
        bcb_free(b);
        return oom ? OOM : WRONG;
    }
    unsigned char *f;
    size_t len;
    BcProgram *v = NULL;   /* scc's path: the payload verified before compression */
    bool ok = bcb_finish(b, &(BcWriteOpts){ .zstd_level = 3, .verified = &v }, &f, &len);
    why = bcb_error(b);
    if (ok && (!v || v->file_size != len)) {
        fprintf(stderr, "finish: no verified program\n");
        sc_free(f);
        ok = false, why = "no program";
    }
    bc_free(v);
    int st = ok ? DONE : why && strcmp(why, "out of memory") == 0 ? OOM : WRONG;
    if (st == WRONG)
        fprintf(stderr, "finish failed: %s\n", why ? why : "(no message)");
    bcb_free(b);
    if (!ok)
        return st;
    BcProgram *p = NULL;
    BcError err;
    BcErrCode e = bc_load(f, len, NULL, &p, &err);
    if (e == BC_ERR_OK) {
        Buf out;
        buf_init(&out);
        bc_list(p, &(BcListOpts){ .lines = true, .header = true }, &out);
        st = out.oom ? OOM : DONE;
        buf_fini(&out);
        bc_free(p);
    } else {
        st = e == BC_ERR_NOMEM ? OOM : WRONG;
        if (st == WRONG)
            fprintf(stderr, "load failed: %s: %s\n", bc_err_name(e), err.msg);
    }
    if (st == DONE) {
        /* the file path: file_read_all allocates too */
        int w = file_write_atomic(path, f, len);
        if (w != 0) {
            st = w == ENOMEM ? OOM : WRONG;
        } else {
            e = bc_load_file(path, NULL, &p, &err);
            st = e == BC_ERR_OK ? DONE : e == BC_ERR_NOMEM ? OOM : WRONG;
            if (st == WRONG)
                fprintf(stderr, "load_file failed: %s: %s\n", bc_err_name(e), err.msg);
            bc_free(p);
        }
    }
    sc_free(f);
    return st;
}

/* scenario() in a child with allocation n failing (0: none): its status,
** minus the signal that ended it, or -1000 when fork or wait failed. */
static int run_child(unsigned long n)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1000;
    if (pid == 0) {
        sc_alloc_fail_after = n;
        exit(scenario());
    }
    int ws;
    if (waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws))
        return WIFSIGNALED(ws) ? -WTERMSIG(ws) : -1000;
    return WEXITSTATUS(ws);
}

int main(void)
{
    char tmp[] = "/tmp/t_alloc_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return 1;
    close(fd);
    path = tmp;
    /* sanity: the scenario succeeds without injection.  In a child too, as
    ** every run is: the parent must not load anything itself, or each child
    ** would inherit what the first load makes once per process (the spare
    ** zstd contexts, the prepared dictionary) and never see it fail. */
    CHECK(run_child(0) == DONE);
    unsigned long n;
    int oom_runs = 0;
    for (n = 1; n < 100000; n++) {
        int st = run_child(n);
        if (st == -1000) {
            CHECKF(0, "allocation %lu failing: fork or wait failed", n);
            break;
        }
        if (st < 0) {
            CHECKF(0, "allocation %lu failing: child crashed (signal %d)", n, -st);
            continue;
        }
        CHECKF(st == DONE || st == OOM, "allocation %lu failing: status %d", n, st);
        if (st == OOM)
            oom_runs++;
        if (st == DONE)
            break;
    }
    unlink(tmp);
    CHECK(oom_runs > 10);   /* the injection really reached the code */
    printf("t_alloc: %d failing allocation points, success from allocation %lu on\n", oom_runs, n);
    return tf_result("t_alloc");
}
