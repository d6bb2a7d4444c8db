/* SPDX-License-Identifier: MIT */
/* sources.c - which files below a folder are scenarios (sources.h). */
#include "sources.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/arena.h"
#include "common/diag.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "yaml_tree.h"

bool scc_paths_add(SccPaths *l, const char *p)
{
    if (l->n == l->cap && !SC_GROW(l->v, l->cap, 16))
        return false;
    char *c = sc_strdup(p);
    if (!c)
        return false;
    l->v[l->n++] = c;
    return true;
}

void scc_paths_fini(SccPaths *l)
{
    for (size_t i = 0; i < l->n; i++)
        sc_free(l->v[i]);
    sc_free(l->v);
    *l = (SccPaths){ 0 };
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

bool scc_source_ext(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".json") == 0) || (n > 6 && strcmp(name + n - 6, ".jsonl") == 0);
}

bool scc_excluded(const char *rel, bool is_dir, const char *const *pat, size_t n)
{
    const char *base = strrchr(rel, '/');
    base = base ? base + 1 : rel;
    for (size_t k = 0; k < n; k++) {
        char p[PATH_MAX];
        snprintf(p, sizeof p, "%s", pat[k][0] == '/' ? pat[k] + 1 : pat[k]);
        size_t len = strlen(p);
        bool dir_only = len && p[len - 1] == '/';
        if (dir_only)
            p[--len] = 0;
        if (!len || (dir_only && !is_dir))
            continue;
        bool anchored = pat[k][0] == '/' || strchr(p, '/');
        if (anchored ? fnmatch(p, rel, FNM_PATHNAME) == 0 : fnmatch(p, base, 0) == 0)
            return true;
    }
    return false;
}

static int walk(SccPaths *out, const char *dir, const char *rel, int depth, const char *const *pat, size_t n_pat,
                char *bad, size_t cap)
{
    if (depth > 64)
        return 0;
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(bad, cap, "%s", dir);
        return errno;
    }
    SccPaths here = { 0 };
    int status = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        size_t dl = strlen(dir), n = dl + strlen(e->d_name) + 2;
        const char *sep = dl && dir[dl - 1] == '/' ? "" : "/";      /* "DIR/" names DIR/x, not DIR//x */
        char *p = sc_malloc(n);
        if (!p || !scc_paths_add(&here, (snprintf(p, n, "%s%s%s", dir, sep, e->d_name), p)))
            status = ENOMEM;
        sc_free(p);
    }
    closedir(d);
    if (here.n)
        qsort(here.v, here.n, sizeof *here.v, cmp_str);
    for (size_t i = 0; i < here.n; i++) {
        struct stat st;
        const char *name = strrchr(here.v[i], '/') + 1;
        char r[PATH_MAX];
        snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", name);
        if (lstat(here.v[i], &st) != 0 || scc_excluded(r, S_ISDIR(st.st_mode), pat, n_pat)) {
            sc_free(here.v[i]);
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            int s = walk(out, here.v[i], r, depth + 1, pat, n_pat, bad, cap);
            if (s && !status)
                status = s;
        } else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && scc_source_ext(here.v[i])) {
            if (!scc_paths_add(out, here.v[i]))
                status = ENOMEM;
        }
        sc_free(here.v[i]);
    }
    sc_free(here.v);
    return status;
}

int scc_walk_sources(SccPaths *out, const char *dir, const char *const *pat, size_t n_pat, char *bad, size_t cap)
{
    return walk(out, dir, "", 0, pat, n_pat, bad, cap);
}

int scc_read_ignore(const char *dir, const char ***pat, size_t *n, char **keep)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/.sccignore", dir);
    char *text = NULL;
    size_t len = 0;
    int e = file_read_all(path, 1 << 20, &text, &len);
    if (e == ENOENT)
        return 0;
    if (e)
        return e;
    *keep = text;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        size_t l = strlen(line);
        while (l && (line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t'))
            line[--l] = 0;
        if (!l || line[0] == '#')
            continue;
        const char **np = sc_realloc(*pat, (*n + 1) * sizeof *np);
        if (!np)
            return ENOMEM;
        *pat = np;
        (*pat)[(*n)++] = line;
    }
    return 0;
}

const char *scc_data_file(const char *path, size_t max, unsigned *name_line, unsigned *name_col)
{
    static const struct {
        const char *k1, *k2, *k3, *what;
    } SHAPES[] = {
        { "$schema", NULL, NULL, "a JSON Schema" },
        { "width", "height", NULL, "a Terminal-Config (what a scenario's terminalRef names)" },
        { "on", "jobs", NULL, "a GitHub Actions workflow" },
        { "true", "jobs", NULL, "a GitHub Actions workflow" },
        { "stages", NULL, NULL, "a GitLab CI configuration" },
        { "services", NULL, NULL, "a Compose file" },
        { "version", "dependencies", NULL, "a package.json" },
        { "version", "devDependencies", NULL, "a package.json" },
        { "version", "scripts", NULL, "a package.json" },
        { "compilerOptions", NULL, NULL, "a tsconfig.json" },
        { "apiVersion", "kind", NULL, "a Kubernetes manifest" },
        { "openapi", NULL, NULL, "an OpenAPI description" },
        { "swagger", NULL, NULL, "an OpenAPI description" },
        { "repos", NULL, NULL, "a pre-commit configuration" },
        { "updates", "version", NULL, "a Dependabot configuration" },
        { "policy_version", NULL, NULL, "a tui-use Policy (a scenario's run.policy refers to it)" },
        { "normalization_version", NULL, NULL, "a tui-use NormalizationRecord" },
        { "replay_version", NULL, NULL, "a tui-use ReplaySummary" },
        { "run_result_version", NULL, NULL, "a tui-use RunResult" },
        { "snapshot_version", NULL, NULL, "a tui-use ScreenSnapshot" },
    };
    *name_line = *name_col = 1;
    char *src = NULL;
    size_t len = 0;
    if (file_read_all(path, max, &src, &len) != 0)
        return NULL;
    const char *what = NULL;
    size_t n = strlen(path);
    if (n > 6 && strcmp(path + n - 6, ".jsonl") == 0) {
        /* the first line says whose: Yao's cases have "id" or "input" (as
        ** compile.c and yao_detect read them), the rest is data */
        src[strcspn(src, "\n")] = 0;
        if (strstr(src, "\"protocol_version\""))
            what = "tui-use driver protocol messages (NDJSON)";
        else if (!strstr(src, "\"id\"") && !strstr(src, "\"input\""))
            what = "JSON Lines data (not Yao test cases)";
        sc_free(src);
        return what;
    }
    Arena *a = arena_new();
    Diags d;
    diags_init(&d);
    YDoc doc;
    if (a && yaml_parse(src, len, path, a, &d, &doc) && doc.root) {
        const YNode *r = doc.root;
        if (r->kind == YN_MAP && !ymap_get(r, "timeline") && !ymap_get(r, "steps") && !ymap_get(r, "run")) {
            for (size_t i = 0; i < sizeof SHAPES / sizeof SHAPES[0] && !what; i++)
                if (ymap_get(r, SHAPES[i].k1) && (!SHAPES[i].k2 || ymap_get(r, SHAPES[i].k2)))
                    what = SHAPES[i].what;
        } else if (r->kind == YN_SEQ && r->n && r->u.items[0].kind == YN_MAP && ymap_get(&r->u.items[0], "entry") &&
                   ymap_get(&r->u.items[0], "id")) {
            what = "pre-commit hook definitions";
        }
        for (uint32_t i = 0; r->kind == YN_MAP && i < r->n; i++)
            if (yscalar_is(&r->u.pairs[i].key, "name")) {
                *name_line = r->u.pairs[i].key.line;
                *name_col = r->u.pairs[i].key.col;
            }
    }
    diags_fini(&d);
    arena_free(a);
    sc_free(src);
    return what;
}
