/* SPDX-License-Identifier: MIT */
/* yaml_fast_diff.c - the fast YAML reader (compiler/yaml_fast.c) against the
** libyaml path, file by file.
**
**   yaml_fast_diff [--group NAME [--min-fast PERCENT]] FILE|DIR ... [--group NAME ...] ...
**
** For every .yaml, .yml and .json file (folders are walked): when the fast
** reader accepts the file, libyaml must accept it too and give the same
** tree, node for node (kind, scalar type, style, flags, line, column,
** length, text); and scc_compile() through each reader must give the same
** status, the same .scb bytes and the same diagnostics.  Prints, per group,
** how many files the fast reader took.  --min-fast: fail when the fast
** reader takes less than PERCENT of the group's files (the fixtures that
** show each construct it reads must all be read by it).  Exit 0 when all agree. */
#include "compiler/compile.h"
#include "compiler/yaml_tree.h"

#include "common/arena.h"
#include "common/diag.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures;

static bool same_tree(const YNode *a, const YNode *b, const char *file, int depth)
{
    if (!a || !b) {
        if (a != b)
            fprintf(stderr, "%s: one root is empty, the other not\n", file);
        return a == b;
    }
    if (a->kind != b->kind || a->type != b->type || a->style != b->style || a->flags != b->flags ||
        a->line != b->line || a->col != b->col || a->n != b->n ||
        (a->kind == YN_SCALAR && memcmp(a->u.s, b->u.s, a->n) != 0)) {
        fprintf(stderr,
                "%s: node differs: fast %u:%u kind %u type %u style %u flags %u n %u '%.40s' | "
                "libyaml %u:%u kind %u type %u style %u flags %u n %u '%.40s'\n",
                file, a->line, a->col, a->kind, a->type, a->style, a->flags, a->n,
                a->kind == YN_SCALAR ? a->u.s : "", b->line, b->col, b->kind, b->type, b->style, b->flags,
                b->n, b->kind == YN_SCALAR ? b->u.s : "");
        return false;
    }
    if (depth > 200)
        return true;
    for (uint32_t i = 0; i < a->n; i++) {
        if (a->kind == YN_SEQ && !same_tree(&a->u.items[i], &b->u.items[i], file, depth + 1))
            return false;
        if (a->kind == YN_MAP && (!same_tree(&a->u.pairs[i].key, &b->u.pairs[i].key, file, depth + 1) ||
                                  !same_tree(&a->u.pairs[i].val, &b->u.pairs[i].val, file, depth + 1)))
            return false;
    }
    return true;
}

typedef struct Compiled {
    SccStatus st;
    unsigned char *bytes;
    size_t n;
    char *diag;          /* diagnostics as scc prints them */
    size_t dlen;
} Compiled;

static char *dir_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? strndup(path, (size_t)(s - path)) : strdup(".");
}

static void compile_with(const char *path, const char *src, size_t len, YamlReader how, Compiled *c)
{
    yaml_default_reader = how;
    char *copy = malloc(len + 1);
    memcpy(copy, src, len);
    copy[len] = 0;
    char *dir = dir_of(path);
    const char *base = strrchr(path, '/');
    Diags d;
    diags_init(&d);
    SccCompileOpts o = { .source_name = path, .meta_name = base ? base + 1 : path, .base_dir = dir };
    SccResult r = { 0 };
    c->st = scc_compile(copy, len, &o, &d, &r);
    c->bytes = r.bytes;
    c->n = r.n_bytes;
    FILE *m = open_memstream(&c->diag, &c->dlen);
    DiagPrintOpts po = { .caret = true, .src = copy, .src_len = len };
    diags_print(&d, m, &po);
    fclose(m);
    diags_fini(&d);
    free(dir);
    free(copy);
    yaml_default_reader = YAML_READ_AUTO;
}

typedef struct Group {
    const char *name;
    int files, fast;
    double min_fast;
} Group;

static void check_file(const char *path, Group *g)
{
    char *src = NULL;
    size_t len = 0;
    if (file_read_all(path, (size_t)64 << 20, &src, &len) != 0) {
        fprintf(stderr, "%s: cannot read\n", path);
        failures++;
        return;
    }
    g->files++;
    Arena *fa = arena_new(), *la = arena_new();
    Diags fd, ld;
    diags_init(&fd);
    diags_init(&ld);
    YDoc fdoc, ldoc;
    bool fok = yaml_parse_with(src, len, path, fa, &fd, &fdoc, YAML_READ_FAST);
    bool lok = yaml_parse_with(src, len, path, la, &ld, &ldoc, YAML_READ_LIBYAML);
    if (fok) {
        g->fast++;
        if (!lok) {
            fprintf(stderr, "%s: the fast reader accepts what libyaml rejects\n", path);
            failures++;
        } else if (fd.n != 0) {
            fprintf(stderr, "%s: the fast reader recorded diagnostics\n", path);
            failures++;
        } else if (!same_tree(fdoc.root, ldoc.root, path, 0)) {
            failures++;
        } else if (fdoc.rules_key != ldoc.rules_key) {
            fprintf(stderr, "%s: the readers disagree on whether a key is 'rules'\n", path);
            failures++;
        } else {
            Compiled a, b;
            compile_with(path, src, len, YAML_READ_LIBYAML, &a);
            compile_with(path, src, len, YAML_READ_AUTO, &b);
            if (a.st != b.st || a.n != b.n || (a.n && memcmp(a.bytes, b.bytes, a.n) != 0) ||
                a.dlen != b.dlen || memcmp(a.diag, b.diag, a.dlen) != 0) {
                fprintf(stderr, "%s: scc's output differs between the readers (status %d/%d, %zu/%zu bytes)\n"
                        "--- libyaml:\n%s--- fast:\n%s", path, a.st, b.st, a.n, b.n, a.diag, b.diag);
                failures++;
            }
            sc_free(a.bytes);
            sc_free(b.bytes);
            free(a.diag);
            free(b.diag);
        }
    } else if (fd.n != 0 && lok) {
        fprintf(stderr, "%s: the fast reader declined with diagnostics\n", path);
        failures++;
    }
    diags_fini(&fd);
    diags_fini(&ld);
    arena_free(fa);
    arena_free(la);
    sc_free(src);
}

static bool wanted(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && !strcmp(name + n - 5, ".yaml")) || (n > 4 && !strcmp(name + n - 4, ".yml")) ||
           (n > 5 && !strcmp(name + n - 5, ".json"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *path, Group *g)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: missing\n", path);
        failures++;
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        check_file(path, g);
        return;
    }
    DIR *d = opendir(path);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "node_modules"))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
        }
        size_t l = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(l);
        snprintf(names[n], l, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        struct stat s2;
        const char *base = strrchr(names[i], '/') + 1;
        if (stat(names[i], &s2) == 0 && (S_ISDIR(s2.st_mode) || (S_ISREG(s2.st_mode) && wanted(base))))
            walk(names[i], g);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    Group groups[32];
    int ng = 0;
    groups[0] = (Group){ "files", 0, 0, 0 };
    ng = 1;
    bool named = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--min-fast") && i + 1 < argc) {
            groups[ng - 1].min_fast = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--group") && i + 1 < argc) {
            if (named && ng < 32)
                ng++;
            named = true;
            groups[ng - 1] = (Group){ argv[++i], 0, 0, 0 };
        } else {
            walk(argv[i], &groups[ng - 1]);
        }
    }
    for (int i = 0; i < ng; i++) {
        Group *g = &groups[i];
        double pct = g->files ? 100.0 * g->fast / g->files : 0;
        printf("%s: the fast reader took %d of %d files (%.1f%%)\n", g->name, g->fast, g->files, pct);
        if (g->files && pct < g->min_fast) {
            fprintf(stderr, "%s: fewer than %.1f%% of the files took the fast reader\n", g->name, g->min_fast);
            failures++;
        }
    }
    if (failures)
        fprintf(stderr, "%d disagreement(s)\n", failures);
    return failures ? 1 : 0;
}
