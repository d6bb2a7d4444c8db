/* SPDX-License-Identifier: MIT */
/* ma_tool.c - the mock agent's tools (ma_tool.h): argument checks, the
** path policy for reading and writing, a sorted walk of the work folder,
** and one executor per tool. */
#include "ma_tool.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/vformat.h"
#include "formats/term/term_regex.h"
#include "runtime/http/http_client.h"
#include "runtime/rt_cancel.h"
#include "runtime/scn_assert.h"
#include "ma_shell.h"

/* Files larger than this are not read (readFile, editFile, grep). */
#define FILE_MAX ((size_t)16 << 20)
/* A walk stops with an error beyond this many entries; a name pattern
** has at most MAX_STARS stars. */
enum { WALK_MAX = 100000, MAX_STARS = 16 };

const char *const ma_tools[] = { "runCmd", "readFile", "writeFile", "editFile", "grep", "glob",
                                 "listDir", "find", "sed", "bashOutput", "killShell", "notebookEdit",
                                 "webFetch", "task", "webSearch", "todoWrite", "exitPlanMode",
                                 "slashCommand", NULL };

/* webFetch reads at most this much of a response. */
#define FETCH_MAX ((size_t)4 << 20)

void ma_tool_result_init(MaToolResult *r)
{
    memset(r, 0, sizeof *r);
    buf_init(&r->text);
}

void ma_tool_result_fini(MaToolResult *r) { buf_fini(&r->text); }

/* ---- arguments ---- */

typedef enum ArgKind { A_STR, A_UINT, A_BOOL, A_ARR, A_ANY } ArgKind;

typedef struct ArgDef {
    const char *name;
    ArgKind kind;
    bool required;
} ArgDef;

typedef struct ToolDef {
    const char *name;
    ArgDef args[9];
} ToolDef;

/* What each tool takes; `description` is for the person reading only. */
static const ToolDef TOOLS[] = {
    { "runCmd", { { "cmd", A_STR, true }, { "cwd", A_STR, false }, { "timeout", A_UINT, false },
                  { "description", A_ANY, false }, { "run_in_background", A_BOOL, false } } },
    { "readFile", { { "path", A_STR, true }, { "offset", A_UINT, false }, { "limit", A_UINT, false },
                    { "encoding", A_STR, false } } },
    { "writeFile", { { "path", A_STR, true }, { "content", A_STR, true } } },
    { "editFile", { { "path", A_STR, true }, { "old_string", A_STR, true }, { "new_string", A_STR, true },
                    { "replace_all", A_BOOL, false }, { "description", A_ANY, false } } },
    { "grep", { { "pattern", A_STR, true }, { "path", A_STR, false }, { "glob", A_STR, false },
                { "output_mode", A_STR, false }, { "-i", A_BOOL, false }, { "-n", A_BOOL, false },
                { "head_limit", A_UINT, false } } },
    { "glob", { { "pattern", A_STR, true }, { "path", A_STR, false } } },
    { "listDir", { { "path", A_STR, true }, { "recursive", A_BOOL, false }, { "pattern", A_STR, false } } },
    { "find", { { "path", A_STR, true }, { "name", A_STR, false }, { "type", A_STR, false } } },
    { "sed", { { "expression", A_STR, true }, { "path", A_STR, true }, { "inplace", A_BOOL, false } } },
    { "bashOutput", { { "bash_id", A_STR, true }, { "filter", A_STR, false } } },
    { "killShell", { { "shell_id", A_STR, true } } },
    { "notebookEdit", { { "notebook_path", A_STR, true }, { "new_source", A_STR, false },
                        { "cell_id", A_STR, false }, { "cell_type", A_STR, false },
                        { "edit_mode", A_STR, false } } },
    { "webFetch", { { "url", A_STR, true }, { "prompt", A_STR, false } } },
    /* scripted: the scenario's result is theirs */
    { "task", { { "description", A_STR, true }, { "prompt", A_STR, true }, { "subagent_type", A_STR, false } } },
    { "webSearch", { { "query", A_STR, true }, { "allowed_domains", A_ARR, false },
                     { "blocked_domains", A_ARR, false } } },
    { "todoWrite", { { "todos", A_ARR, true } } },
    { "exitPlanMode", { { "plan", A_STR, true } } },
    { "slashCommand", { { "command", A_STR, true } } },
};

bool ma_tool_scripted(const char *tool)
{
    static const char *const s[] = { "task", "webSearch", "todoWrite", "exitPlanMode", "slashCommand" };
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        if (strcmp(s[i], tool) == 0)
            return true;
    return false;
}

static const ToolDef *tool_def(const char *name)
{
    for (size_t i = 0; i < sizeof TOOLS / sizeof TOOLS[0]; i++)
        if (strcmp(TOOLS[i].name, name) == 0)
            return &TOOLS[i];
    return NULL;
}

static const char *kind_name(ArgKind k)
{
    switch (k) {
    case A_STR: return "a string";
    case A_UINT: return "a whole number >= 0";
    case A_BOOL: return "true or false";
    case A_ARR: return "an array";
    case A_ANY: return "any value";
    }
    return "?";
}

static bool is_uint(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 4294967295.0 &&
           floor(v->valuedouble) == v->valuedouble;
}

bool ma_tool_check(const char *tool, const cJSON *args, char *why, size_t cap)
{
    const ToolDef *td = tool_def(tool);
    if (!td) {
        snprintf(why, cap, "the mock agent cannot execute tool '%s' (it executes runCmd, readFile, writeFile, "
                           "editFile, grep, glob, listDir, find, sed, bashOutput, killShell, notebookEdit, "
                           "webFetch, and plays task, webSearch, todoWrite, exitPlanMode, slashCommand)", tool);
        return false;
    }
    if (!cJSON_IsObject(args)) {
        snprintf(why, cap, "%s: the arguments are not an object", tool);
        return false;
    }
    for (const cJSON *a = args->child; a; a = a->next) {
        const ArgDef *d = NULL;
        for (size_t k = 0; k < sizeof td->args / sizeof td->args[0] && td->args[k].name && !d; k++)
            if (strcmp(td->args[k].name, a->string) == 0)
                d = &td->args[k];
        if (!d) {
            snprintf(why, cap, "%s: argument '%s' is not supported by the mock agent", tool, a->string);
            return false;
        }
        bool ok = d->kind == A_ANY || (d->kind == A_STR && cJSON_IsString(a)) ||
                  (d->kind == A_BOOL && cJSON_IsBool(a)) || (d->kind == A_UINT && is_uint(a)) ||
                  (d->kind == A_ARR && cJSON_IsArray(a));
        if (!ok) {
            snprintf(why, cap, "%s: argument '%s' must be %s", tool, a->string, kind_name(d->kind));
            return false;
        }
    }
    for (size_t k = 0; k < sizeof td->args / sizeof td->args[0] && td->args[k].name; k++)
        if (td->args[k].required && !cJSON_GetObjectItemCaseSensitive(args, td->args[k].name)) {
            snprintf(why, cap, "%s: argument '%s' is missing", tool, td->args[k].name);
            return false;
        }
    const cJSON *bg = cJSON_GetObjectItemCaseSensitive(args, "run_in_background");
    if (strcmp(tool, "runCmd") == 0 && cJSON_IsTrue(bg) && cJSON_GetObjectItemCaseSensitive(args, "timeout")) {
        snprintf(why, cap, "runCmd: a background command has no timeout (killShell ends it, and the run's end)");
        return false;
    }
    if (strcmp(tool, "notebookEdit") == 0) {
        const char *mode = cJSON_IsString(cJSON_GetObjectItemCaseSensitive(args, "edit_mode"))
                               ? cJSON_GetObjectItemCaseSensitive(args, "edit_mode")->valuestring : "replace";
        const cJSON *ct = cJSON_GetObjectItemCaseSensitive(args, "cell_type");
        if (strcmp(mode, "replace") != 0 && strcmp(mode, "insert") != 0 && strcmp(mode, "delete") != 0) {
            snprintf(why, cap, "notebookEdit: edit_mode '%s' is not replace, insert or delete", mode);
            return false;
        }
        if (ct && strcmp(ct->valuestring, "code") != 0 && strcmp(ct->valuestring, "markdown") != 0) {
            snprintf(why, cap, "notebookEdit: cell_type '%s' is not code or markdown", ct->valuestring);
            return false;
        }
        if (strcmp(mode, "delete") != 0 && !cJSON_GetObjectItemCaseSensitive(args, "new_source")) {
            snprintf(why, cap, "notebookEdit: argument 'new_source' is missing (edit_mode %s)", mode);
            return false;
        }
        if (strcmp(mode, "insert") == 0 && !ct) {
            snprintf(why, cap, "notebookEdit: edit_mode insert needs cell_type");
            return false;
        }
    }
    if (strcmp(tool, "todoWrite") == 0) {
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(args, "todos")) {
            const cJSON *c = cJSON_GetObjectItemCaseSensitive(t, "content");
            const cJSON *st = cJSON_GetObjectItemCaseSensitive(t, "status");
            if (!cJSON_IsString(c) || !cJSON_IsString(st) ||
                (strcmp(st->valuestring, "pending") != 0 && strcmp(st->valuestring, "in_progress") != 0 &&
                 strcmp(st->valuestring, "completed") != 0)) {
                snprintf(why, cap, "todoWrite: each todo is {content, status: pending | in_progress | completed}");
                return false;
            }
        }
    }
    /* fnmatch and `**` backtrack: a pattern of many stars could take
    ** exponential time on a deep tree, so their number is bounded */
    static const char *const pats[] = { "pattern", "glob", "name" };
    for (size_t k = 0; k < 3; k++) {
        const cJSON *pv = cJSON_GetObjectItemCaseSensitive(args, pats[k]);
        bool regex = k == 0 && strcmp(tool, "grep") == 0;     /* the linear-time regex */
        size_t stars = 0;
        for (const char *c = cJSON_IsString(pv) && !regex ? pv->valuestring : ""; *c; c++)
            stars += *c == '*';
        if (stars > MAX_STARS) {
            snprintf(why, cap, "%s: '%s' has more than %d '*'", tool, pats[k], MAX_STARS);
            return false;
        }
    }
    const cJSON *enc = cJSON_GetObjectItemCaseSensitive(args, "encoding");
    if (enc && strcmp(enc->valuestring, "utf-8") != 0 && strcmp(enc->valuestring, "utf8") != 0) {
        snprintf(why, cap, "readFile: encoding '%s' is not supported (utf-8 only)", enc->valuestring);
        return false;
    }
    const cJSON *om = cJSON_GetObjectItemCaseSensitive(args, "output_mode");
    if (om && strcmp(om->valuestring, "content") != 0 && strcmp(om->valuestring, "files_with_matches") != 0 &&
        strcmp(om->valuestring, "count") != 0) {
        snprintf(why, cap, "grep: output_mode '%s' is not content, files_with_matches or count", om->valuestring);
        return false;
    }
    const cJSON *ty = cJSON_GetObjectItemCaseSensitive(args, "type");
    if (ty && strcmp(tool, "find") == 0 && strcmp(ty->valuestring, "file") != 0 && strcmp(ty->valuestring, "dir") != 0 &&
        strcmp(ty->valuestring, "f") != 0 && strcmp(ty->valuestring, "d") != 0) {
        snprintf(why, cap, "find: type '%s' is not file or dir", ty->valuestring);
        return false;
    }
    return true;
}

static const char *sarg(const cJSON *args, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static unsigned long uarg(const cJSON *args, const char *k, unsigned long dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, k);
    return is_uint(v) ? (unsigned long)v->valuedouble : dflt;
}

static bool barg(const cJSON *args, const char *k) { return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, k)); }

/* ---- paths ---- */

static const char *root_of(const MaEnv *env) { return env->root && env->root[0] ? env->root : "."; }

/* An error result. */
static void fail(MaToolResult *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(MaToolResult *r, const char *fmt, ...)
{
    char msg[1024];
    SC_VFORMAT(msg, sizeof msg, fmt);
    buf_reset(&r->text);
    buf_puts(&r->text, msg);
    r->error = true;
}

/* rel resolved below the root into full; false (r filled) when refused. */
static bool resolve(const MaEnv *env, const char *tool, const char *rel, Buf *full, MaToolResult *r)
{
    const char *why = scn_path_resolve(root_of(env), rel, full);
    if (why) {
        fail(r, "%s: '%s': %s", tool, rel, why);
        r->refused = true;
        return false;
    }
    return true;
}

const char *ma_path_for_write(const char *root, const char *rel, Buf *full, char *err, size_t cap)
{
    const char *why = scn_path_resolve(root, rel, full);
    if (why)
        return why;
    struct stat st;
    if (lstat((const char *)full->data, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return "it is a folder";
        if (S_ISLNK(st.st_mode) && stat((const char *)full->data, &st) != 0)
            return "refused: a symbolic link that leads nowhere";
        return NULL;
    }
    /* a new file: each missing folder on the way is made inside a checked one */
    Buf part;
    buf_init(&part);
    const char *ret = NULL;
    for (const char *s = strchr(rel, '/'); s && !ret; s = strchr(s + 1, '/')) {
        char *pre = sc_strndup(rel, (size_t)(s - rel));
        if (!pre) {
            ret = "out of memory";
            break;
        }
        const char *w = scn_path_resolve(root, pre, &part);
        if (w) {
            ret = w;
        } else if (lstat((const char *)part.data, &st) != 0) {
            if (mkdir((const char *)part.data, 0777) != 0) {
                snprintf(err, cap, "cannot make folder '%s': %s", pre, strerror(errno));
                ret = err;
            }
        } else if (S_ISLNK(st.st_mode) && stat((const char *)part.data, &st) != 0) {
            ret = "refused: a symbolic link that leads nowhere";
        } else if (!S_ISDIR(st.st_mode)) {
            snprintf(err, cap, "'%s' is not a folder", pre);
            ret = err;
        }
        sc_free(pre);
    }
    buf_fini(&part);
    return ret ? ret : scn_path_resolve(root, rel, full);
}

int ma_file_write(const char *full, const char *data, size_t n)
{
    int fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return errno;
    while (n) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            return e;
        }
        data += w;
        n -= (size_t)w;
    }
    return close(fd) == 0 ? 0 : errno;
}

/* Reads a regular file below the root; false (r filled) when it cannot. */
static bool read_file(const MaEnv *env, const char *tool, const char *rel, Buf *full, char **data, size_t *n,
                      MaToolResult *r)
{
    if (!resolve(env, tool, rel, full, r))
        return false;
    struct stat st;
    if (stat((const char *)full->data, &st) != 0) {
        fail(r, "%s: '%s': %s", tool, rel, strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        fail(r, "%s: '%s': not a regular file", tool, rel);
        return false;
    }
    int e = file_read_all((const char *)full->data, FILE_MAX, data, n);
    if (e) {
        fail(r, "%s: '%s': %s", tool, rel, e == EFBIG ? "larger than 16 MiB" : strerror(e));
        return false;
    }
    return true;
}

/* ---- a sorted walk ---- */

typedef struct Entry {
    char *path;         /* relative to the work folder */
    bool dir;
} Entry;

typedef struct Walk {
    Entry *v;
    size_t n, cap;
    bool oom, too_many;
} Walk;

static void walk_add(Walk *w, const char *path, bool dir)
{
    if (w->n == WALK_MAX) {
        w->too_many = true;
        return;
    }
    if (w->n == w->cap) {
        size_t c = w->cap ? w->cap * 2 : 64;
        Entry *nv = sc_realloc(w->v, c * sizeof *nv);
        if (!nv) {
            w->oom = true;
            return;
        }
        w->v = nv;
        w->cap = c;
    }
    char *p = sc_strdup(path);
    if (!p) {
        w->oom = true;
        return;
    }
    w->v[w->n++] = (Entry){ p, dir };
}

static void walk_fini(Walk *w)
{
    for (size_t i = 0; i < w->n; i++)
        sc_free(w->v[i].path);
    sc_free(w->v);
}

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const Entry *)a)->path, ((const Entry *)b)->path);
}

/* Every entry below the folder full (shown as rel, "" for the root), not
** following symbolic links and skipping .git; recursive or one level. */
static void walk_dir(Walk *w, const char *full, const char *rel, bool recursive)
{
    DIR *d = opendir(full);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && !w->oom && !w->too_many) {
        const char *nm = de->d_name;
        if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0)
            continue;
        Buf f, r;
        buf_init(&f);
        buf_init(&r);
        buf_printf(&f, "%s/%s", full, nm);
        buf_printf(&r, "%s%s%s", rel, rel[0] ? "/" : "", nm);
        buf_putc(&f, 0);
        buf_putc(&r, 0);
        struct stat st;
        if (f.oom || r.oom) {
            w->oom = true;
        } else if (lstat((const char *)f.data, &st) == 0) {
            bool dir = S_ISDIR(st.st_mode);
            if (!(dir && strcmp(nm, ".git") == 0)) {
                walk_add(w, (const char *)r.data, dir);
                if (dir && recursive)
                    walk_dir(w, (const char *)f.data, (const char *)r.data, true);
            }
        }
        buf_fini(&f);
        buf_fini(&r);
    }
    closedir(d);
}

/* Walks the folder (or lists the one file) rel; false (r filled) on error. */
static bool walk(const MaEnv *env, const char *tool, const char *rel, bool recursive, Walk *w, MaToolResult *r)
{
    Buf full;
    buf_init(&full);
    bool ok = resolve(env, tool, rel, &full, r);
    struct stat st;
    if (ok && stat((const char *)full.data, &st) != 0) {
        fail(r, "%s: '%s': %s", tool, rel, strerror(errno));
        ok = false;
    }
    const char *shown = strcmp(rel, ".") == 0 ? "" : rel;
    if (ok && S_ISDIR(st.st_mode))
        walk_dir(w, (const char *)full.data, shown, recursive);
    else if (ok)
        walk_add(w, shown, false);
    buf_fini(&full);
    if (ok && w->too_many) {
        fail(r, "%s: '%s': more than %d entries", tool, rel, WALK_MAX);
        ok = false;
    }
    if (ok)
        qsort(w->v, w->n, sizeof *w->v, entry_cmp);
    return ok;
}

/* A folder argument as the walks show it: leading "./" and trailing '/'
** dropped, nothing as "." (a path too long for buf stays as it is). */
static const char *walk_root(const char *path, char *buf, size_t cap)
{
    if (!path)
        return ".";
    while (path[0] == '.' && path[1] == '/') {
        path += 2;
        while (*path == '/')
            path++;
    }
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (n == 0)
        return ".";
    if (n >= cap)
        return path;
    memcpy(buf, path, n);
    buf[n] = 0;
    return buf;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* glob: pattern segments against path segments, `**` any number of them. */
static bool glob_match(const char *pat, const char *path)
{
    if (!*pat)
        return !*path;
    const char *ps = strchr(pat, '/');
    size_t pl = ps ? (size_t)(ps - pat) : strlen(pat);
    if (pl == 2 && pat[0] == '*' && pat[1] == '*') {
        const char *rest = ps ? ps + 1 : "";
        for (const char *p = path;;) {
            if (glob_match(rest, p))
                return true;
            const char *s = strchr(p, '/');
            if (!s)
                return !*rest;
            p = s + 1;
        }
    }
    if (!*path)
        return false;
    const char *ss = strchr(path, '/');
    size_t sl = ss ? (size_t)(ss - path) : strlen(path);
    char segp[NAME_MAX + 1], segs[NAME_MAX + 1];
    if (pl > NAME_MAX || sl > NAME_MAX)
        return false;
    memcpy(segp, pat, pl);
    segp[pl] = 0;
    memcpy(segs, path, sl);
    segs[sl] = 0;
    if (fnmatch(segp, segs, 0) != 0)
        return false;
    if (!ps)
        return !ss;
    return ss && glob_match(ps + 1, ss + 1);
}

/* ---- the tools ---- */

static int run_cmd(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    const char *cwd = sarg(args, "cwd");
    Buf dir;
    buf_init(&dir);
    if (cwd && !resolve(env, "runCmd", cwd, &dir, r)) {
        buf_fini(&dir);
        return 0;
    }
    if (barg(args, "run_in_background")) {
        char id[16];
        int e = env->shells ? ma_shell_start(env->shells, sarg(args, "cmd"), cwd ? (const char *)dir.data
                                                                                : root_of(env), id, sizeof id)
                            : ENOSYS;
        buf_fini(&dir);
        if (e == ENOMEM)
            return -1;
        if (e)
            fail(r, "runCmd: cannot start a background shell: %s", strerror(e));
        else
            buf_printf(&r->text, "Command running in background with ID: %s\n", id);
        snprintf(r->note, sizeof r->note, "%s", e ? "not started" : id);
        return r->text.oom ? -1 : 0;
    }
    unsigned tmo = (unsigned)uarg(args, "timeout", env->timeout_ms ? env->timeout_ms : MA_RUN_TIMEOUT_MS);
    char *argv[] = { "sh", "-c", (char *)sarg(args, "cmd"), NULL };
    MaProcResult pr;
    int rc = ma_proc_run(argv, cwd ? (const char *)dir.data : root_of(env), tmo, &r->text, &pr);
    buf_fini(&dir);
    if (rc && r->text.oom)
        return -1;
    if (rc) {
        fail(r, "runCmd: cannot make a pipe: %s", strerror(errno));
        return 0;
    }
    ma_proc_describe(&pr, tmo, r->note, sizeof r->note);
    if (pr.dropped)
        buf_printf(&r->text, "\n[%zu more bytes of output]\n", pr.dropped);
    if (pr.end == MA_PROC_TIMEOUT || pr.end == MA_PROC_FAILED || pr.end == MA_PROC_CANCELLED) {
        if (r->text.len && r->text.data[r->text.len - 1] != '\n')
            buf_putc(&r->text, '\n');
        buf_printf(&r->text, "runCmd: %s\n", r->note);
    }
    r->error = !(pr.end == MA_PROC_EXITED && pr.code == 0);
    r->cancelled = pr.end == MA_PROC_CANCELLED;
    return r->text.oom ? -1 : 0;
}

static int read_tool(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    const char *path = sarg(args, "path");
    Buf full;
    buf_init(&full);
    char *data = NULL;
    size_t n = 0;
    if (read_file(env, "readFile", path, &full, &data, &n, r)) {
        unsigned long skip = uarg(args, "offset", 0), limit = uarg(args, "limit", ULONG_MAX);
        size_t from = 0, line = 0;
        while (from < n && line < skip) {
            const char *nl = memchr(data + from, '\n', n - from);
            from = nl ? (size_t)(nl - data) + 1 : n;
            line++;
        }
        size_t to = from;
        for (unsigned long k = 0; to < n && k < limit; k++) {
            const char *nl = memchr(data + to, '\n', n - to);
            to = nl ? (size_t)(nl - data) + 1 : n;
        }
        buf_put(&r->text, data + from, to - from);
        int64_t lines = 0;
        for (size_t i = from; i < to; i++)
            lines += data[i] == '\n';
        lines += to > from && data[to - 1] != '\n';
        snprintf(r->note, sizeof r->note, "%lld line%s", (long long)lines, lines == 1 ? "" : "s");
    }
    sc_free(data);
    buf_fini(&full);
    return r->text.oom ? -1 : 0;
}

static int write_tool(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    const char *path = sarg(args, "path");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(args, "content");
    Buf full;
    buf_init(&full);
    char err[300];
    const char *why = ma_path_for_write(root_of(env), path, &full, err, sizeof err);
    if (why) {
        fail(r, "writeFile: '%s': %s", path, why);
        r->refused = strncmp(why, "refused", 7) == 0;
    } else {
        size_t n = strlen(c->valuestring);
        int e = ma_file_write((const char *)full.data, c->valuestring, n);
        if (e)
            fail(r, "writeFile: '%s': %s", path, strerror(e));
        else
            buf_printf(&r->text, "wrote %zu bytes to %s\n", n, path);
    }
    buf_fini(&full);
    return r->text.oom ? -1 : 0;
}

static size_t count_occ(const char *h, size_t hn, const char *nd, size_t nn)
{
    size_t k = 0;
    for (size_t i = 0; nn && i + nn <= hn;) {
        const char *p = memmem(h + i, hn - i, nd, nn);
        if (!p)
            break;
        k++;
        i = (size_t)(p - h) + nn;
    }
    return k;
}

static int edit_tool(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    const char *path = sarg(args, "path"), *old = sarg(args, "old_string"), *neu = sarg(args, "new_string");
    bool all = barg(args, "replace_all");
    size_t on = strlen(old), nn = strlen(neu);
    if (!on) {
        fail(r, "editFile: '%s': old_string is empty", path);
        return 0;
    }
    if (on == nn && memcmp(old, neu, on) == 0) {
        fail(r, "editFile: '%s': old_string and new_string are the same: no change to make", path);
        return 0;
    }
    Buf full, out;
    buf_init(&full);
    buf_init(&out);
    char *data = NULL;
    size_t n = 0;
    if (read_file(env, "editFile", path, &full, &data, &n, r)) {
        size_t k = count_occ(data, n, old, on);
        if (k == 0) {
            fail(r, "editFile: '%s': old_string not found in the file", path);
        } else if (k > 1 && !all) {
            fail(r, "editFile: '%s': old_string occurs %zu times; give more context to make it unique, or set "
                    "replace_all", path, k);
        } else {
            size_t i = 0, done = 0;
            while (i < n) {
                const char *p = done < k ? memmem(data + i, n - i, old, on) : NULL;
                if (!p) {
                    buf_put(&out, data + i, n - i);
                    break;
                }
                buf_put(&out, data + i, (size_t)(p - (data + i)));
                buf_put(&out, neu, nn);
                i = (size_t)(p - data) + on;
                done++;
            }
            int e = out.oom ? ENOMEM : ma_file_write((const char *)full.data, out.data ? (const char *)out.data : "",
                                                      out.len);
            if (e)
                fail(r, "editFile: '%s': %s", path, strerror(e));
            else
                buf_printf(&r->text, "edited %s: %zu replacement%s\n", path, done, done == 1 ? "" : "s");
        }
    }
    sc_free(data);
    buf_fini(&full);
    bool oom = out.oom || r->text.oom;
    buf_fini(&out);
    return oom ? -1 : 0;
}

static int grep_tool(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    char pb[PATH_MAX];
    const char *pat = sarg(args, "pattern"), *path = walk_root(sarg(args, "path"), pb, sizeof pb);
    const char *g = sarg(args, "glob"), *mode = sarg(args, "output_mode");
    if (!mode)
        mode = "files_with_matches";
    bool numbers = barg(args, "-n");
    unsigned long head = uarg(args, "head_limit", 0);
    Buf p;
    buf_init(&p);
    if (barg(args, "-i"))
        buf_puts(&p, "(?i)");
    buf_puts(&p, pat);
    char err[200];
    TermRegex *re = p.oom ? NULL : term_regex_new((const char *)p.data, p.len, err, sizeof err);
    buf_fini(&p);
    if (!re) {
        fail(r, "grep: bad pattern '%s': %s", pat, err);
        return 0;
    }
    Walk w = { 0 };
    unsigned long shown = 0, matches = 0, files = 0;
    if (walk(env, "grep", path, true, &w, r)) {
        Buf full;
        buf_init(&full);
        for (size_t i = 0; i < w.n && !(head && shown >= head); i++) {
            const Entry *e = &w.v[i];
            if (e->dir || (g && !(strchr(g, '/') ? glob_match(g, e->path) : fnmatch(g, base_name(e->path), 0) == 0)))
                continue;
            struct stat st;
            char *data = NULL;
            size_t n = 0;
            if (scn_path_resolve(root_of(env), e->path[0] ? e->path : ".", &full) ||
                lstat((const char *)full.data, &st) != 0 || !S_ISREG(st.st_mode) ||
                file_read_all((const char *)full.data, FILE_MAX, &data, &n) != 0)
                continue;
            if (memchr(data, 0, n < 8192 ? n : 8192)) {     /* binary */
                sc_free(data);
                continue;
            }
            unsigned long here = 0, line = 0;
            for (size_t s = 0; s < n && !(head && shown >= head);) {
                const char *nl = memchr(data + s, '\n', n - s);
                size_t end = nl ? (size_t)(nl - data) : n;
                line++;
                if (term_regex_search(re, data + s, end - s)) {
                    here++;
                    if (mode[0] == 'c' && mode[1] == 'o' && mode[2] == 'n') {
                        buf_printf(&r->text, "%s:", e->path);
                        if (numbers)
                            buf_printf(&r->text, "%lu:", line);
                        buf_put(&r->text, data + s, end - s);
                        buf_putc(&r->text, '\n');
                        shown++;
                    }
                }
                s = end + 1;
            }
            sc_free(data);
            if (!here)
                continue;
            files++;
            matches += here;
            if (strcmp(mode, "files_with_matches") == 0) {
                buf_printf(&r->text, "%s\n", e->path);
                shown++;
            } else if (strcmp(mode, "count") == 0) {
                buf_printf(&r->text, "%s:%lu\n", e->path, here);
                shown++;
            }
        }
        buf_fini(&full);
        if (!files)
            buf_puts(&r->text, "no matches\n");
        snprintf(r->note, sizeof r->note, "%lu match%s in %lu file%s", matches, matches == 1 ? "" : "es", files,
                 files == 1 ? "" : "s");
    }
    term_regex_free(re);
    walk_fini(&w);
    return r->text.oom || w.oom ? -1 : 0;
}

static int glob_tool(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    char pb[PATH_MAX];
    const char *pat = sarg(args, "pattern"), *path = walk_root(sarg(args, "path"), pb, sizeof pb);
    Walk w = { 0 };
    size_t k = 0;
    size_t pre = strcmp(path, ".") == 0 ? 0 : strlen(path) + 1;   /* the pattern is below path */
    if (walk(env, "glob", path, true, &w, r)) {
        for (size_t i = 0; i < w.n; i++)
            if (!w.v[i].dir && strlen(w.v[i].path) >= pre && glob_match(pat, w.v[i].path + pre)) {
                buf_printf(&r->text, "%s\n", w.v[i].path);
                k++;
            }
        if (!k)
            buf_puts(&r->text, "no files found\n");
        snprintf(r->note, sizeof r->note, "%zu file%s", k, k == 1 ? "" : "s");
    }
    walk_fini(&w);
    return r->text.oom || w.oom ? -1 : 0;
}

/* listDir and find: entries below path, filtered. */
static int list_tool(const MaEnv *env, const char *tool, const cJSON *args, MaToolResult *r)
{
    bool find = tool[0] == 'f';
    char pb[PATH_MAX];
    const char *path = walk_root(sarg(args, "path"), pb, sizeof pb);
    const char *pat = sarg(args, find ? "name" : "pattern"), *type = sarg(args, "type");
    bool recursive = find || barg(args, "recursive");
    Walk w = { 0 };
    size_t k = 0;
    if (walk(env, tool, path, recursive, &w, r)) {
        for (size_t i = 0; i < w.n; i++) {
            const Entry *e = &w.v[i];
            if (pat && fnmatch(pat, base_name(e->path), 0) != 0)
                continue;
            if (type && (type[0] == 'd') != e->dir)
                continue;
            /* listDir shows names relative to the folder listed */
            size_t pre = find || strcmp(path, ".") == 0 ? 0 : strlen(path) + 1;
            buf_printf(&r->text, "%s%s\n", strlen(e->path) >= pre ? e->path + pre : e->path,
                       !find && e->dir ? "/" : "");
            k++;
        }
        snprintf(r->note, sizeof r->note, "%zu entr%s", k, k == 1 ? "y" : "ies");
    }
    walk_fini(&w);
    return r->text.oom || w.oom ? -1 : 0;
}

static int sed_tool(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    const char *path = sarg(args, "path");
    Buf full;
    buf_init(&full);
    struct stat st;
    if (!resolve(env, "sed", path, &full, r)) {
        buf_fini(&full);
        return 0;
    }
    const char *bad = stat((const char *)full.data, &st) != 0 ? strerror(errno)
                      : !S_ISREG(st.st_mode)                    ? "not a regular file"
                                                                : NULL;
    if (bad) {
        fail(r, "sed: '%s': %s", path, bad);
        buf_fini(&full);
        return 0;
    }
    char *argv[8];
    int a = 0;
    argv[a++] = "sed";
    if (barg(args, "inplace"))
        argv[a++] = "-i";
    argv[a++] = "-e";
    argv[a++] = (char *)sarg(args, "expression");
    argv[a++] = "--";
    argv[a++] = (char *)full.data;
    argv[a] = NULL;
    MaProcResult pr;
    unsigned tmo = env->timeout_ms ? env->timeout_ms : MA_RUN_TIMEOUT_MS;
    int rc = ma_proc_run(argv, root_of(env), tmo, &r->text, &pr);
    buf_fini(&full);
    if (rc)
        return r->text.oom ? -1 : (fail(r, "sed: cannot make a pipe: %s", strerror(errno)), 0);
    ma_proc_describe(&pr, tmo, r->note, sizeof r->note);
    r->error = !(pr.end == MA_PROC_EXITED && pr.code == 0);
    r->cancelled = pr.end == MA_PROC_CANCELLED;
    return r->text.oom ? -1 : 0;
}

/* ---- background shells ---- */

static const char *shell_state(MaShellState st, int code, char *buf, size_t cap)
{
    switch (st) {
    case MA_SHELL_RUNNING: return "running";
    case MA_SHELL_EXITED: snprintf(buf, cap, "exit %d", code); return buf;
    case MA_SHELL_SIGNALED: snprintf(buf, cap, "killed by signal %d", code); return buf;
    case MA_SHELL_KILLED: return "killed";
    }
    return "?";
}

static unsigned wait_of(const MaEnv *env) { return env->timeout_ms ? env->timeout_ms : MA_RUN_TIMEOUT_MS; }

static int bash_output(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    const char *id = sarg(args, "bash_id");
    MaShellState st;
    int code = 0;
    char err[200] = "", sb[48];
    int rc = ma_shell_output(env->shells, id, sarg(args, "filter"), wait_of(env), &r->text, &st, &code, err,
                             sizeof err);
    if (rc == -1)
        return -1;
    if (rc == 1) {
        fail(r, "bashOutput: no background shell '%s'", id);
        return 0;
    }
    if (rc == -2) {
        fail(r, "bashOutput: filter: %s", err);
        return 0;
    }
    const char *s = shell_state(st, code, sb, sizeof sb);
    if (r->text.len && r->text.data[r->text.len - 1] != '\n')
        buf_putc(&r->text, '\n');
    buf_printf(&r->text, "[%s: %s]\n", id, s);
    snprintf(r->note, sizeof r->note, "%s", s);
    r->error = (st == MA_SHELL_EXITED && code != 0) || st == MA_SHELL_SIGNALED;
    return r->text.oom ? -1 : 0;
}

static int kill_shell(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    const char *id = sarg(args, "shell_id");
    MaShellState st;
    int code = 0;
    char sb[48];
    int rc = ma_shell_kill(env->shells, id, &st, &code);
    if (rc == 1)
        fail(r, "killShell: no background shell '%s'", id);
    else if (rc == 2)
        fail(r, "killShell: shell '%s' is not running (%s)", id, shell_state(st, code, sb, sizeof sb));
    else
        buf_printf(&r->text, "killed shell %s\n", id);
    return r->text.oom ? -1 : 0;
}

/* ---- notebookEdit ---- */

/* text as nbformat stores a source: an array of lines, each with its '\n'
** but the last. */
static cJSON *nb_source(const char *text)
{
    cJSON *a = cJSON_CreateArray();
    for (const char *p = text; a && *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) + 1 : strlen(p);
        char *line = sc_strndup(p, l);
        cJSON *it = line ? cJSON_CreateString(line) : NULL;
        sc_free(line);
        if (!it) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, it);
        p += l;
    }
    return a;
}

/* A cell of type `type` with source src: a code cell gets no outputs and
** no execution count, as after an edit in Jupyter. */
static bool nb_set(cJSON *cell, const char *type, const char *src)
{
    cJSON *s = nb_source(src);
    if (!s)
        return false;
    cJSON_DeleteItemFromObjectCaseSensitive(cell, "cell_type");
    cJSON_DeleteItemFromObjectCaseSensitive(cell, "source");
    cJSON_DeleteItemFromObjectCaseSensitive(cell, "outputs");
    cJSON_DeleteItemFromObjectCaseSensitive(cell, "execution_count");
    if (!cJSON_AddStringToObject(cell, "cell_type", type)) {
        cJSON_Delete(s);
        return false;
    }
    if (!cJSON_GetObjectItemCaseSensitive(cell, "metadata"))
        cJSON_AddObjectToObject(cell, "metadata");
    cJSON_AddItemToObject(cell, "source", s);
    if (strcmp(type, "code") == 0) {
        cJSON_AddNullToObject(cell, "execution_count");
        cJSON_AddArrayToObject(cell, "outputs");
    }
    return true;
}

/* The index of the cell cell_id names: its `id`, else a whole number (the
** 0-based index) or `cell-N`; -1 when none. */
static int nb_find(const cJSON *cells, const char *cell_id)
{
    int i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cells) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(c, "id");
        if (cJSON_IsString(id) && strcmp(id->valuestring, cell_id) == 0)
            return i;
        i++;
    }
    const char *d = strncmp(cell_id, "cell-", 5) == 0 ? cell_id + 5 : cell_id;
    char *end;
    errno = 0;
    long k = *d >= '0' && *d <= '9' ? strtol(d, &end, 10) : -1;
    return k >= 0 && !errno && *end == 0 && k < cJSON_GetArraySize(cells) ? (int)k : -1;
}

static int notebook_edit(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    const char *path = sarg(args, "notebook_path"), *cid = sarg(args, "cell_id"), *src = sarg(args, "new_source");
    const char *mode = sarg(args, "edit_mode") ? sarg(args, "edit_mode") : "replace";
    const char *type = sarg(args, "cell_type");
    Buf full;
    buf_init(&full);
    char *data = NULL, *out = NULL;
    size_t n = 0;
    cJSON *nb = NULL;
    if (!read_file(env, "notebookEdit", path, &full, &data, &n, r))
        goto done;
    nb = cJSON_ParseWithLength(data, n);
    cJSON *cells = nb ? cJSON_GetObjectItemCaseSensitive(nb, "cells") : NULL;
    if (!cJSON_IsArray(cells)) {
        fail(r, "notebookEdit: '%s': not a Jupyter notebook (JSON with a 'cells' array)", path);
        goto done;
    }
    int at = cid ? nb_find(cells, cid) : -1;
    if (cid && at < 0) {
        fail(r, "notebookEdit: '%s': no cell '%s'", path, cid);
        goto done;
    }
    if (!cid && strcmp(mode, "insert") != 0) {
        fail(r, "notebookEdit: '%s': edit_mode %s needs cell_id", path, mode);
        goto done;
    }
    int shown = at;
    if (strcmp(mode, "delete") == 0) {
        cJSON_DeleteItemFromArray(cells, at);
    } else if (strcmp(mode, "insert") == 0) {
        /* after the cell cell_id names, or first */
        cJSON *c = cJSON_CreateObject();
        if (!c || !nb_set(c, type, src)) {
            cJSON_Delete(c);
            goto oom;
        }
        const cJSON *minor = cJSON_GetObjectItemCaseSensitive(nb, "nbformat_minor");
        if (cJSON_IsNumber(minor) && minor->valuedouble >= 5) {     /* nbformat 4.5: cells have ids */
            char id[32];
            for (int k = cJSON_GetArraySize(cells) + 1;; k++) {
                snprintf(id, sizeof id, "cell-%d", k);
                const cJSON *e;
                bool used = false;
                cJSON_ArrayForEach(e, cells) {
                    const cJSON *eid = cJSON_GetObjectItemCaseSensitive(e, "id");
                    used |= cJSON_IsString(eid) && strcmp(eid->valuestring, id) == 0;
                }
                if (!used)
                    break;
            }
            cJSON_AddStringToObject(c, "id", id);
        }
        shown = at + 1;
        /* rebuilt in order (cJSON_InsertItemInArray of cJSON 1.7.15 appends) */
        int total = cJSON_GetArraySize(cells);
        cJSON *tail = cJSON_CreateArray();
        if (!tail) {
            cJSON_Delete(c);
            goto oom;
        }
        for (int k = shown; k < total; k++)
            cJSON_AddItemToArray(tail, cJSON_DetachItemFromArray(cells, shown));
        cJSON_AddItemToArray(cells, c);
        while (cJSON_GetArraySize(tail))
            cJSON_AddItemToArray(cells, cJSON_DetachItemFromArray(tail, 0));
        cJSON_Delete(tail);
    } else {
        cJSON *c = cJSON_GetArrayItem(cells, at);
        const cJSON *ot = cJSON_GetObjectItemCaseSensitive(c, "cell_type");
        char keep[16];      /* nb_set replaces the item ot */
        snprintf(keep, sizeof keep, "%s", type ? type : cJSON_IsString(ot) ? ot->valuestring : "code");
        if (!cJSON_IsObject(c)) {
            fail(r, "notebookEdit: '%s': cell %d is not an object", path, at);
            goto done;
        }
        if (!nb_set(c, keep, src))
            goto oom;
    }
    out = cJSON_Print(nb);
    if (!out)
        goto oom;
    size_t on = strlen(out);
    out[on] = '\n';     /* cJSON_Print's buffer: the NUL becomes the last line's end */
    int e = ma_file_write((const char *)full.data, out, on + 1);
    if (e) {
        fail(r, "notebookEdit: '%s': %s", path, strerror(e));
        goto done;
    }
    buf_printf(&r->text, "%s cell %d of %s\n", mode[0] == 'd' ? "deleted" : mode[0] == 'i' ? "inserted" : "replaced",
               shown, path);
    snprintf(r->note, sizeof r->note, "%d cells", cJSON_GetArraySize(cells));
done:
    cJSON_free(out);
    cJSON_Delete(nb);
    sc_free(data);
    buf_fini(&full);
    return r->text.oom ? -1 : 0;
oom:
    r->text.oom = true;
    goto done;
}

/* ---- webFetch ---- */

static int web_fetch(const MaEnv *env, const cJSON *args, MaToolResult *r)
{
    const char *url = sarg(args, "url");
    HttpResponse res;
    char err[300];
    int rc = http_request("GET", url, NULL, NULL, 0, wait_of(env), rt_cancel_fd(), FETCH_MAX, &res, err,
                          sizeof err);
    if (rc == HTTP_CLIENT_CANCELLED) {
        r->cancelled = true;
        fail(r, "webFetch: %s", err);
        return 0;
    }
    if (rc) {
        fail(r, "webFetch: %s: %s", url, err);
        return 0;
    }
    if (res.body.len)
        buf_put(&r->text, res.body.data, res.body.len);
    snprintf(r->note, sizeof r->note, "HTTP %d, %zu bytes", res.status, res.body.len);
    r->error = res.status < 200 || res.status > 299;
    buf_fini(&res.body);
    return r->text.oom ? -1 : 0;
}

/* ---- scripted ---- */

static int scripted(const MaEnv *env, const char *tool, MaToolResult *r)
{
    if (env->script && env->script_len)
        buf_put(&r->text, env->script, env->script_len);
    r->error = env->script_error;
    snprintf(r->note, sizeof r->note, "scripted");
    (void)tool;
    return r->text.oom ? -1 : 0;
}

int ma_tool_exec(const MaEnv *env, const char *tool, const cJSON *args, MaToolResult *r)
{
    char why[400];
    if (!ma_tool_check(tool, args, why, sizeof why)) {
        fail(r, "%s", why);
        return 0;
    }
    if (strcmp(tool, "runCmd") == 0)
        return run_cmd(env, args, r);
    if (strcmp(tool, "readFile") == 0)
        return read_tool(env, args, r);
    if (strcmp(tool, "writeFile") == 0)
        return write_tool(env, args, r);
    if (strcmp(tool, "editFile") == 0)
        return edit_tool(env, args, r);
    if (strcmp(tool, "grep") == 0)
        return grep_tool(env, args, r);
    if (strcmp(tool, "glob") == 0)
        return glob_tool(env, args, r);
    if (strcmp(tool, "sed") == 0)
        return sed_tool(env, args, r);
    if (strcmp(tool, "bashOutput") == 0)
        return bash_output(env, args, r);
    if (strcmp(tool, "killShell") == 0)
        return kill_shell(env, args, r);
    if (strcmp(tool, "notebookEdit") == 0)
        return notebook_edit(env, args, r);
    if (strcmp(tool, "webFetch") == 0)
        return web_fetch(env, args, r);
    if (ma_tool_scripted(tool))
        return scripted(env, tool, r);
    return list_tool(env, tool, args, r);
}
