/* SPDX-License-Identifier: MIT */
/* agent_launch.c - a real agent's launch from its profile (agent_launch.h). */
#include "runtime/agent/agent_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"

/* Writes the profile's files (paths under home or ws). */
static int write_files(const AgentProfile *prof, const cJSON *vars, const char *home, const char *ws, char *err,
                       size_t cap)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, agent_profile_get(prof, "files")) {
        char why[512];
        Buf path, body;
        buf_init(&path);
        buf_init(&body);
        bool ok = agent_expand_str(f->string, vars, ws, &path, why, sizeof why);
        buf_putc(&path, 0);
        /* {home}/REL or {workspace}/REL; REL is written beneath its folder
        ** by file_write_beneath: no '..', nothing through a symbolic link */
        const char *pp = (const char *)path.data, *root = NULL;
        size_t hl = strlen(home), wl = strlen(ws);
        if (strncmp(pp, home, hl) == 0 && pp[hl] == '/')
            root = home;
        else if (strncmp(pp, ws, wl) == 0 && pp[wl] == '/')
            root = ws;
        if (ok && !root) {
            snprintf(why, sizeof why, "is not under {home} or {workspace}");
            ok = false;
        }
        if (ok && cJSON_IsString(f)) {
            ok = agent_expand_str(f->valuestring, vars, ws, &body, why, sizeof why);
        } else if (ok) {
            bool om;
            cJSON *v = agent_expand(f, vars, ws, &om, why, sizeof why);
            char *s = v ? cJSON_Print(v) : NULL;
            if (s) {
                buf_puts(&body, s);
                buf_putc(&body, '\n');
            }
            ok = s != NULL;
            cJSON_free(s);
            cJSON_Delete(v);
        }
        int e = 0, dfd = -1;
        if (ok && (dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
            e = errno;
        else if (ok)
            e = file_write_beneath(dfd, pp + strlen(root) + 1, body.data ? (const void *)body.data : "", body.len,
                                   0644);
        if (dfd >= 0)
            close(dfd);
        if (e == EINVAL || e == ELOOP || e == ENOTDIR) {
            snprintf(why, sizeof why, "%s",
                     e == EINVAL ? "has an empty, '.' or '..' component"
                                 : "a symbolic link or a file is in the way; nothing is written through one");
            ok = false;
            e = 0;
        }
        if (!ok || e)
            snprintf(err, cap, "agent profile '%s': file '%s': %s", agent_profile_name(prof), f->string,
                     ok ? strerror(e) : why);
        buf_fini(&path);
        buf_fini(&body);
        if (!ok || e)
            return ok ? SC_IO : SC_USAGE;
    }
    return 0;
}

/* Appends s (owned; NULL = out of memory) to the NULL-terminated *v. */
static int push_str(char ***v, size_t *n, char *s, char *err, size_t cap)
{
    char **nv = s ? sc_realloc(*v, (*n + 2) * sizeof *nv) : NULL;
    if (!nv) {
        sc_free(s);
        snprintf(err, cap, "out of memory");
        return SC_RUNTIME;
    }
    *v = nv;
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
    return 0;
}

/* Appends to *v the expansion of template t, prefixed with pfx
** ("NAME=" for the environment); what names it in an error. */
static int push_expanded(char ***v, size_t *n, const char *pfx, const char *t, const cJSON *vars, const char *ws,
                         const AgentProfile *prof, const char *what, char *err, size_t cap)
{
    Buf b;
    buf_init(&b);
    buf_puts(&b, pfx);
    char why[512];
    if (!agent_expand_str(t, vars, ws, &b, why, sizeof why)) {
        snprintf(err, cap, "agent profile '%s': %s '%s': %s", agent_profile_name(prof), what, t, why);
        buf_fini(&b);
        return SC_USAGE;
    }
    buf_putc(&b, 0);
    if (b.oom)
        buf_fini(&b);
    return push_str(v, n, b.oom ? NULL : (char *)b.data, err, cap);
}

/* --agent-bin as a path the agent's PTY can exec: the agent starts in its
** workspace, so a relative path with a slash (node_modules/...) is taken
** from scvm's folder, where the user wrote it; a bare name is looked up on
** PATH as given. */
static char *bin_path(const char *bin)
{
    char cwd[PATH_MAX];
    if (bin[0] == '/' || !strchr(bin, '/') || !getcwd(cwd, sizeof cwd))
        return sc_strdup(bin);
    Buf b;
    buf_init(&b);
    buf_printf(&b, "%s/%s", cwd, bin);
    buf_putc(&b, 0);
    return b.oom ? NULL : (char *)b.data;
}

int agent_launch_prepare(const AgentProfile *prof, bool interactive, const cJSON *vars, const char *home,
                         const char *ws, const char *bin, char *const *extra, AgentLaunch *out, char *err,
                         size_t cap)
{
    out->argv = out->envv = NULL;
    int st = write_files(prof, vars, home, ws, err, cap);
    size_t argc = 0, envc = 0;
    if (!st && bin)
        st = push_str(&out->argv, &argc, bin_path(bin), err, cap);
    else if (!st)
        st = push_expanded(&out->argv, &argc, "", agent_profile_get(prof, "command")->valuestring, vars, ws, prof,
                           "command", err, cap);
    const cJSON *args = interactive ? cJSON_GetObjectItemCaseSensitive(agent_profile_get(prof, "interactive"), "args")
                                    : agent_profile_get(prof, "headless"), *e;
    cJSON_ArrayForEach(e, args) if (!st) st = push_expanded(&out->argv, &argc, "", e->valuestring, vars, ws, prof,
                                                            interactive ? "interactive.args" : "headless", err, cap);
    for (char *const *c = extra; !st && c && *c; c++)     /* more arguments */
        st = push_str(&out->argv, &argc, sc_strdup(*c), err, cap);
    cJSON_ArrayForEach(e, agent_profile_get(prof, "env")) {
        char pfx[256];
        snprintf(pfx, sizeof pfx, "%s=", e->string);
        if (!st)
            st = push_expanded(&out->envv, &envc, pfx, e->valuestring, vars, ws, prof, "env", err, cap);
    }
    return st;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        sc_free(v[i]);
    sc_free(v);
}

void agent_launch_fini(AgentLaunch *l)
{
    free_strv(l->argv);
    free_strv(l->envv);
    l->argv = l->envv = NULL;
}
