/* SPDX-License-Identifier: MIT */
/* rt_pty_ws.c - the workspace a Scenario-Format run plays in: `repo.init`
** makes a temporary git repository (branch, `dir` copied, inline `files`
** as text or base64), the program runs inside it, and `assert`
** (scn_assert.c), expect.artifacts, userEdits (patches) and userCommand
** are evaluated there.  Every scenario path goes through the one path
** policy, scn_path_resolve: relative, no '..', and not out of the root
** through a symbolic link. */
#include "rt_pty_int.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/base64.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "runtime/rt_proc.h"
#include "runtime/scn_assert.h"

enum { HELPER_TIMEOUT_MS = 30000 };

const char *pty_ws_root(const Pty *t)
{
    return t->ws[0] ? t->ws : t->cwd[0] ? t->cwd : ".";
}

/* Resolves rel below root by the scenario path policy (scn_assert.h);
** false (the run fails, E_POLICY_DENIED) when it refuses the path. */
static bool policy_path(Pty *t, const char *root, const char *rel, char *out, size_t n)
{
    Buf full;
    buf_init(&full);
    const char *why = scn_path_resolve(root, rel, &full);
    if (!why && full.len > n)
        why = "the path is too long";
    if (why) {
        pty_fail(t, PTY_E_POLICY_DENIED, "path '%s': %s", rel, why);
        buf_fini(&full);
        return false;
    }
    memcpy(out, full.data, full.len);
    buf_fini(&full);
    return true;
}

static bool ws_path(Pty *t, const char *rel, char *out, size_t n)
{
    return policy_path(t, pty_ws_root(t), rel, out, n);
}

/* Runs argv (absolute path) in cwd with the run's environment; output
** (stdout+stderr) into out when given.  Bounded by timeout_ms, on the one
** runner (runtime/rt_proc.h): whatever the helper started ends with it.
** Returns the exit code (128 + N for signal N), or -1 (t->err set). */
static int run_helper(Pty *t, char *const *argv, const char *cwd, Buf *out, uint64_t timeout_ms)
{
    static char *const no_env[] = { NULL };
    RtProcResult r;
    unsigned tmo = timeout_ms > UINT_MAX ? UINT_MAX : (unsigned)timeout_ms;
    if (rt_proc_run_env(argv, t->env.v ? t->env.v : no_env, cwd, tmo, out, (size_t)1 << 20, &r) != 0) {
        pty_fail(t, PTY_E_IO, "cannot run '%s': %s", argv[0], out && out->oom ? "out of memory" : strerror(errno));
        return -1;
    }
    switch (r.end) {
    case RT_PROC_EXITED: return r.code;
    case RT_PROC_SIGNALED: return 128 + r.code;
    case RT_PROC_TIMEOUT:
        pty_fail(t, PTY_E_TIMEOUT, "'%s' did not finish within %llu ms", argv[0], (unsigned long long)timeout_ms);
        return -1;
    case RT_PROC_CANCELLED:
        t->cancel_sig = r.code;
        pty_fail(t, PTY_E_INTERRUPTED, "interrupted by signal %d (%s)", r.code,
                 r.code == SIGTERM ? "SIGTERM" : r.code == SIGINT ? "SIGINT" : r.code == SIGHUP ? "SIGHUP" : "?");
        return -1;
    case RT_PROC_FAILED:
        pty_fail(t, PTY_E_IO, "cannot run '%s': %s", argv[0], strerror(r.code));
        return -1;
    }
    return -1;
}

static bool have_exe(const char *p)
{
    return access(p, X_OK) == 0;
}

static const char *git_path(void)
{
    return have_exe("/usr/bin/git") ? "/usr/bin/git" : have_exe("/bin/git") ? "/bin/git" : NULL;
}

static int git(Pty *t, Buf *out, const char *a1, const char *a2, const char *a3, const char *a4, const char *a5)
{
    const char *g = git_path();
    if (!g) {
        pty_fail(t, PTY_E_IO, "git is not installed (needed by repo.init)");
        return -1;
    }
    char *argv[] = { (char *)g, "-c", "user.name=scvm", "-c", "user.email=scvm@localhost", "-c",
                     "init.defaultBranch=main", "-c", "commit.gpgsign=false",
                     (char *)a1, (char *)a2, (char *)a3, (char *)a4, (char *)a5, NULL };
    return run_helper(t, argv, t->ws, out, HELPER_TIMEOUT_MS);
}

bool pty_ws_prepare(Pty *t)
{
    const BcProgram *p = t->p;
    BcVal cfg = bc_val(p, p->meta.config), repo, v;
    if (!vget(t, &cfg, "repo", &repo) || !vbool(t, &repo, "init", false)) {
        if (t->o.workspace && !t->cwd[0])
            snprintf(t->cwd, sizeof t->cwd, "%s", t->o.workspace);
        return true;
    }
    const char *tmp = getenv("TMPDIR");
    if (t->o.workspace)
        snprintf(t->ws, sizeof t->ws, "%s", t->o.workspace);
    else
        snprintf(t->ws, sizeof t->ws, "%s/scvm-ws-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!t->o.workspace && !mkdtemp(t->ws)) {
        pty_fail(t, PTY_E_IO, "cannot create a workspace: %s", strerror(errno));
        t->ws[0] = 0;
        return false;
    }
    if (git(t, NULL, "init", "-q", NULL, NULL, NULL) != 0)
        return t->err ? false : (pty_fail(t, PTY_E_IO, "git init failed"), false);
    const char *branch = vstr(t, &repo, "branch", NULL);
    if (branch && git(t, NULL, "checkout", "-q", "-b", branch, NULL) != 0)
        return t->err ? false : (pty_fail(t, PTY_E_IO, "cannot create branch '%s'", branch), false);
    const char *dir = vstr(t, &repo, "dir", NULL);
    if (dir) {
        char src[PATH_MAX];
        if (!policy_path(t, t->o.scenario_dir, dir, src, sizeof src - 2))
            return false;
        strcat(src, "/.");
        char *argv[] = { "/bin/cp", "-R", src, t->ws, NULL };
        if (run_helper(t, argv, NULL, NULL, HELPER_TIMEOUT_MS) != 0)
            return t->err ? false : (pty_fail(t, PTY_E_IO, "cannot copy repo.dir '%s'", dir), false);
    }
    if (vget(t, &repo, "files", &v) && v.tag == BC_V_ARRAY) {
        const unsigned char *q = v.p;
        for (uint32_t i = 0; i < v.n; i++) {
            BcVal f, c;
            q = bc_val_decode(p, q, &f);
            const char *path = vstr(t, &f, "path", NULL);
            char full[PATH_MAX];
            if (!path || !ws_path(t, path, full, sizeof full))
                return false;
            Buf data;
            buf_init(&data);
            size_t n;
            const char *text = vstr(t, &f, "contents", &n);
            const char *b64;
            if (text) {
                buf_put(&data, text, n);
            } else if (vget(t, &f, "contents", &c) && (b64 = vstr(t, &c, "base64", &n))) {
                if (n && !b64_decode(b64, n, &data, NULL)) {
                    buf_fini(&data);
                    pty_fail(t, PTY_E_PROTOCOL, "repo file '%s': invalid base64", path);
                    return false;
                }
            }
            int e = file_mkparents(full);
            if (!e)
                e = file_write_atomic(full, data.data ? (const void *)data.data : "", data.len);
            buf_fini(&data);
            if (e) {
                pty_fail(t, PTY_E_IO, "%s: cannot write: %s", full, strerror(e));
                return false;
            }
        }
    }
    if (git(t, NULL, "add", "-A", NULL, NULL, NULL) != 0 ||
        git(t, NULL, "commit", "-q", "--allow-empty", "-m", "scenario seed") != 0)
        return t->err ? false : (pty_fail(t, PTY_E_IO, "cannot commit the seeded workspace"), false);
    if (!t->cwd[0])
        snprintf(t->cwd, sizeof t->cwd, "%s", t->ws);
    return true;
}

void pty_ws_cleanup(Pty *t)
{
    if (!t->ws[0])
        return;
    if (!t->o.keep_workspace && !t->o.workspace)
        file_remove_tree(t->ws);
    t->ws[0] = 0;
}

bool pty_ws_user_edits(Pty *t, const char *patch)
{
    char full[PATH_MAX];
    snprintf(full, sizeof full, "%s/%s", t->o.scenario_dir ? t->o.scenario_dir : ".", patch);
    if (access(full, R_OK) != 0) {
        pty_fail(t, PTY_E_IO, "userEdits: cannot read patch '%s': %s", full, strerror(errno));
        return false;
    }
    char real[PATH_MAX];
    if (!realpath(full, real)) {
        pty_fail(t, PTY_E_IO, "userEdits: %s: %s", full, strerror(errno));
        return false;
    }
    Buf out;
    buf_init(&out);
    int r;
    const char *g = git_path();
    if (t->ws[0] && g) {
        r = git(t, &out, "apply", "--whitespace=nowarn", real, NULL, NULL);
    } else {
        char *argv[] = { "/usr/bin/patch", "-p1", "-s", "-i", real, NULL };
        r = run_helper(t, argv, pty_ws_root(t), &out, HELPER_TIMEOUT_MS);
    }
    ev_op(t);
    ev_int(t, "status", r);
    ev_end(t);
    if (r != 0 && !t->err)
        pty_fail(t, PTY_E_IO, "userEdits: patch '%s' does not apply: %.*s", patch, (int)(out.len > 300 ? 300 : out.len),
                 out.data ? (const char *)out.data : "");
    buf_fini(&out);
    return r == 0;
}

bool pty_ws_user_command(Pty *t, const char *cmd, const char *cwd)
{
    char dir[PATH_MAX];
    if (cwd) {
        if (!ws_path(t, cwd, dir, sizeof dir))
            return false;
    } else {
        snprintf(dir, sizeof dir, "%s", pty_ws_root(t));
    }
    Buf out;
    buf_init(&out);
    char *argv[] = { "/bin/sh", "-c", (char *)cmd, NULL };
    int r = run_helper(t, argv, dir, &out, t->max_wait_ms);
    ev_op(t);
    ev_int(t, "exit_code", r);
    ev_str(t, "output", out.data ? (const char *)out.data : "", out.len);
    ev_end(t);
    buf_fini(&out);
    return r >= 0;
}

bool pty_ws_expect(Pty *t)
{
    BcVal cfg = bc_val(t->p, t->p->meta.config), ex, list;
    if (!vget(t, &cfg, "expect", &ex) || !vget(t, &ex, "artifacts", &list) || list.tag != BC_V_ARRAY)
        return true;
    const unsigned char *q = list.p;
    for (uint32_t i = 0; i < list.n; i++) {
        BcVal a;
        q = bc_val_decode(t->p, q, &a);
        const char *pat = vstr(t, &a, "pattern", NULL);
        if (!pat)
            continue;
        char full[PATH_MAX];
        if (!ws_path(t, pat, full, sizeof full))
            return false;
        glob_t g;
        int r = glob(full, 0, NULL, &g);
        size_t n = r == 0 ? g.gl_pathc : 0;
        if (r == 0)
            globfree(&g);
        if (n == 0) {
            pty_fail(t, PTY_E_ASSERTION_FAILED, "expect.artifacts: nothing matches '%s' in the workspace", pat);
            return false;
        }
    }
    return true;
}
