/* SPDX-License-Identifier: MIT */
/* embed.c - collects and reads the files a scenario references (embed.h).
**
** Paths are checked twice: lexically (no absolute path, no '..' leaving the
** folder, normalised so one file has one name), then physically (realpath
** of the file must be inside realpath of the folder, so a symbolic link
** cannot lead out). */
#define _XOPEN_SOURCE 700   /* realpath */
#include "embed.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <xxhash.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/vformat.h"
#include "formats/pack.h"

enum { MAX_TREE_DEPTH = 32, MAX_TREE_FILES = 100000 };

typedef struct Ctx {
    const YDoc *doc;
    const EmbedOpts *o;
    EmbedList *out;
    Diags *d;
    char base[PATH_MAX];        /* the scenario's folder as given */
    char real_base[PATH_MAX];   /* and resolved */
    bool ok;
} Ctx;

void embed_list_fini(EmbedList *l)
{
    for (size_t i = 0; i < l->n; i++) {
        sc_free(l->v[i].rel);
        sc_free(l->v[i].full);
        sc_free(l->v[i].data);
    }
    sc_free(l->v);
    memset(l, 0, sizeof *l);
}

static void error_at(Ctx *c, const YNode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void error_at(Ctx *c, const YNode *n, const char *fmt, ...)
{
    c->ok = false;
    if (!c->o->strict)
        return;
    char msg[PATH_MAX + 256];
    SC_VFORMAT(msg, sizeof msg, fmt);
    diag_error(c->d, c->doc->file, n ? n->line : 0, n ? n->col : 0, "%s", msg);
}

/* Lexical normalisation: "a/./b//c" -> "a/b/c", "a/../b" -> "b".  False
** when the path is absolute or leaves the folder. */
static bool normalise(const char *p, char *out, size_t cap)
{
    if (p[0] == '/' || strlen(p) >= cap)
        return false;
    size_t n = 0;
    for (const char *s = p; *s;) {
        const char *e = strchr(s, '/');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len == 2 && s[0] == '.' && s[1] == '.') {
            if (n == 0)
                return false;
            while (n > 0 && out[n - 1] != '/')
                n--;
            if (n > 0)
                n--;
        } else if (!(len == 0 || (len == 1 && s[0] == '.'))) {
            if (n)
                out[n++] = '/';
            memcpy(out + n, s, len);
            n += len;
        }
        s += len + (e != NULL);
    }
    out[n] = 0;
    return true;
}

static bool inside(const Ctx *c, const char *real)
{
    size_t n = strlen(c->real_base);
    if (strcmp(c->real_base, "/") == 0)
        return true;
    return strncmp(real, c->real_base, n) == 0 && (real[n] == '/' || real[n] == 0);
}

static void add_file(Ctx *c, const YNode *n, const char *rel, const char *full, const struct stat *st)
{
    for (size_t i = 0; i < c->out->n; i++)
        if (strcmp(c->out->v[i].rel, rel) == 0)
            return;
    if (c->o->strict && (size_t)st->st_size > c->o->max_file) {
        char lim[32];
        snprintf(lim, sizeof lim, "%zu", c->o->max_file);
        error_at(c, n, "'%s' is larger than the embedded file limit (%s bytes; see --max-file-size)", rel, lim);
        return;
    }
    if (!pack_path_ok(rel, strlen(rel))) {
        error_at(c, n, "'%s' cannot be embedded (not a portable relative path)%s", rel, "");
        return;
    }
    if (c->out->n == c->out->cap) {
        size_t cap = c->out->cap ? c->out->cap * 2 : 16;
        EmbedFile *v = sc_realloc(c->out->v, cap * sizeof *v);
        if (!v) {
            error_at(c, n, "out of memory%s%s", "", "");
            return;
        }
        c->out->v = v;
        c->out->cap = cap;
    }
    EmbedFile f = { .rel = sc_strdup(rel), .full = sc_strdup(full), .mode = (st->st_mode & S_IXUSR) ? PACK_FILE_EXEC : 0 };
    if (!f.rel || !f.full) {
        sc_free(f.rel);
        sc_free(f.full);
        error_at(c, n, "out of memory%s%s", "", "");
        return;
    }
    if (c->o->read) {
        char *data = NULL;
        int e = file_read_all(full, c->o->max_file, &data, &f.len);
        if (e) {
            error_at(c, n, "cannot read '%s': %s", rel, e == EFBIG ? "larger than the embedded file limit" : strerror(e));
            sc_free(f.rel);
            sc_free(f.full);
            return;
        }
        f.data = (unsigned char *)data;
        f.hash = XXH64(data, f.len, 0);
    }
    c->out->v[c->out->n++] = f;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dd that keep() accepts (NULL: all but "." and ".."),
** sorted, and dd closed.  Returns the array (the caller frees each name
** and it; NULL when empty) and *count; *oom says memory ran out, in which
** case nothing is returned, so a listing is never silently short. */
static char **sorted_entries(DIR *dd, bool (*keep)(const char *, const void *), const void *arg,
                             size_t *count, bool *oom)
{
    char **names = NULL;
    size_t k = 0, cap = 0;
    *oom = false;
    for (struct dirent *e; (e = readdir(dd));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 || (keep && !keep(e->d_name, arg)))
            continue;
        if (k == cap) {
            cap = cap ? cap * 2 : 32;
            char **v = sc_realloc(names, cap * sizeof *v);
            if (!v) {
                *oom = true;
                break;
            }
            names = v;
        }
        if (!(names[k] = sc_strdup(e->d_name))) {
            *oom = true;
            break;
        }
        k++;
    }
    closedir(dd);
    if (*oom) {
        for (size_t i = 0; i < k; i++)
            sc_free(names[i]);
        sc_free(names);
        names = NULL;
        k = 0;
    }
    if (names)
        qsort(names, k, sizeof *names, cmp_str);
    *count = k;
    return names;
}

static void walk_tree(Ctx *c, const YNode *n, const char *rel, int depth);

/* One reference: a file (dir == false) or a whole tree. */
static void reference(Ctx *c, const YNode *n, const char *p, bool dir)
{
    char rel[PATH_MAX], full[PATH_MAX * 2], real[PATH_MAX];
    if (p[0] == '/') {
        error_at(c, n, "'%s' is an absolute path; a pack only embeds files inside the scenario's folder%s", p, "");
        return;
    }
    if (!normalise(p, rel, sizeof rel)) {
        error_at(c, n, "'%s' leaves the scenario's folder%s", p, "");
        return;
    }
    snprintf(full, sizeof full, "%s/%s", c->base, rel[0] ? rel : ".");
    struct stat st;
    if (stat(full, &st) != 0) {
        error_at(c, n, "'%s' does not exist: %s", p, strerror(errno));
        return;
    }
    if (!realpath(full, real) || !inside(c, real)) {
        error_at(c, n, "'%s' leads out of the scenario's folder (through a symbolic link)%s", p, "");
        return;
    }
    if (dir) {
        if (!S_ISDIR(st.st_mode)) {
            error_at(c, n, "'%s' is not a directory%s", p, "");
            return;
        }
        walk_tree(c, n, rel, 0);
    } else if (!S_ISREG(st.st_mode)) {
        error_at(c, n, "'%s' is not a regular file%s", p, "");
    } else {
        add_file(c, n, rel, full, &st);
    }
}

static void walk_tree(Ctx *c, const YNode *n, const char *rel, int depth)
{
    char full[PATH_MAX * 2];
    snprintf(full, sizeof full, "%s/%s", c->base, rel[0] ? rel : ".");
    if (depth > MAX_TREE_DEPTH) {
        error_at(c, n, "'%s' is nested too deeply%s", rel, "");
        return;
    }
    DIR *dd = opendir(full);
    if (!dd) {
        error_at(c, n, "cannot open '%s': %s", rel, strerror(errno));
        return;
    }
    size_t k;
    bool oom;
    char **names = sorted_entries(dd, NULL, NULL, &k, &oom);
    if (oom)
        error_at(c, n, "out of memory listing '%s'%s", rel, "");
    for (size_t i = 0; i < k; i++) {
        char sub[PATH_MAX], fp[PATH_MAX * 2], real[PATH_MAX];
        if (c->out->n >= MAX_TREE_FILES) {
            error_at(c, n, "more than 100000 files below '%s'%s", rel, "");
            break;
        }
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", names[i]);
        snprintf(fp, sizeof fp, "%s/%s", c->base, sub);
        struct stat lst, st;
        if (lstat(fp, &lst) != 0 || stat(fp, &st) != 0) {
            error_at(c, n, "'%s' cannot be read (a dangling symbolic link?)%s", sub, "");
            continue;
        }
        if (S_ISLNK(lst.st_mode) && (!realpath(fp, real) || !inside(c, real))) {
            error_at(c, n, "'%s' is a symbolic link leading out of the scenario's folder%s", sub, "");
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            if (S_ISLNK(lst.st_mode))
                error_at(c, n, "'%s' is a symbolic link to a directory; packs embed regular files only%s", sub, "");
            else
                walk_tree(c, n, sub, depth + 1);
        } else if (S_ISREG(st.st_mode)) {
            add_file(c, n, sub, fp, &st);
        }
    }
    for (size_t i = 0; i < k; i++)
        sc_free(names[i]);
    sc_free(names);
}

static bool is_str(const YNode *n)
{
    return n && n->kind == YN_SCALAR && n->type == YT_STR;
}

static void patch_of(Ctx *c, const YNode *v)
{
    const YNode *p = v && v->kind == YN_MAP ? ymap_get(v, "patch") : NULL;
    if (is_str(p))
        reference(c, p, p->u.s, false);
}

/* Every node: userEdits patches and image/audio content paths. */
static void walk(Ctx *c, const YNode *n, int depth)
{
    if (!n || depth > YAML_MAX_DEPTH + 1)
        return;
    if (n->kind == YN_SEQ) {
        for (uint32_t i = 0; i < n->n; i++)
            walk(c, &n->u.items[i], depth + 1);
        return;
    }
    if (n->kind != YN_MAP)
        return;
    const YNode *type = ymap_get(n, "type");
    const YNode *path = ymap_get(n, "path");
    if (is_str(path) && (yscalar_is(type, "image") || yscalar_is(type, "audio")))
        reference(c, path, path->u.s, false);
    for (uint32_t i = 0; i < n->n; i++) {
        const YPair *pr = &n->u.pairs[i];
        if (yscalar_is(&pr->key, "userEdits")) {
            if (pr->val.kind == YN_SEQ)
                for (uint32_t k = 0; k < pr->val.n; k++)
                    patch_of(c, &pr->val.u.items[k]);
            else
                patch_of(c, &pr->val);
        }
        walk(c, &pr->val, depth + 1);
    }
}

typedef struct GoldenFilter {
    const char *stem;
    size_t sl;
    const char *self;      /* the scenario's own file name */
} GoldenFilter;

static bool golden_keep(const char *name, const void *arg)
{
    static const char *const skip[] = { "yaml", "yml", "json", "scb", "scp", "d" };
    const GoldenFilter *f = arg;
    if (strncmp(name, f->stem, f->sl) != 0 || name[f->sl] != '.' || strcmp(name, f->self) == 0)
        return false;
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (strcmp(name + f->sl + 1, skip[i]) == 0)
            return false;
    return true;
}

/* The last folder listed, kept while the folder is unchanged: a pack of N
** scenarios in one folder reads it once, not twice per scenario (which made
** `scc --pack DIR` quadratic).  "Unchanged" is the same device, inode and
** modification time; a listing taken less than two seconds after the
** folder last changed is not kept, since a change within the same clock
** tick would leave the time as it was (git's "racily clean" rule).  One
** entry behind a lock: the compiler is a library, and callers may be
** threads. */
typedef struct Listing {
    char path[PATH_MAX];
    dev_t dev;
    ino_t ino;
    struct timespec mtime;
    char **names;
    size_t n;
} Listing;

static Listing listing;
static atomic_flag listing_lock = ATOMIC_FLAG_INIT;

static void listing_drop(Listing *l)
{
    for (size_t i = 0; i < l->n; i++)
        sc_free(l->names[i]);
    sc_free(l->names);
    l->names = NULL;
    l->n = 0;
    l->path[0] = 0;
}

static bool same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

/* The first name in l's sorted listing that is not below key (of len
** bytes) in its first len bytes: the names beginning with key follow it. */
static size_t first_with(const Listing *l, const char *key, size_t len)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strncmp(l->names[mid], key, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Goldens: siblings named STEM.SUFFIX, except other scenario sources and
** scc's own outputs.  Returns the sorted names (caller frees each and the
** array), or NULL when there are none. */
static char **golden_names(const char *base, const char *scenario_path, size_t *count)
{
    const char *b = strrchr(scenario_path, '/');
    b = b ? b + 1 : scenario_path;
    char stem[NAME_MAX + 2];
    snprintf(stem, sizeof stem - 1, "%s", b);
    char *dot = strrchr(stem, '.');
    if (dot)
        *dot = 0;
    size_t sl = strlen(stem);
    stem[sl] = '.';      /* the goldens begin "STEM.": the key, for a moment */
    stem[sl + 1] = 0;
    *count = 0;
    struct stat st;
    if (stat(base, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    while (atomic_flag_test_and_set_explicit(&listing_lock, memory_order_acquire))
        ;
    Listing *l = &listing;
    if (!l->names || strcmp(l->path, base) != 0 || l->dev != st.st_dev || l->ino != st.st_ino ||
        !same_time(l->mtime, st.st_mtim)) {
        listing_drop(l);
        DIR *dd = opendir(base);
        bool oom = !dd;
        char **all = dd ? sorted_entries(dd, NULL, NULL, &l->n, &oom) : NULL;
        if (oom) {
            atomic_flag_clear_explicit(&listing_lock, memory_order_release);
            return NULL;
        }
        l->names = all;
        snprintf(l->path, sizeof l->path, "%s", base);
        l->dev = st.st_dev;
        l->ino = st.st_ino;
        l->mtime = st.st_mtim;
    }
    size_t i = first_with(l, stem, sl + 1), end = i;
    while (end < l->n && strncmp(l->names[end], stem, sl + 1) == 0)
        end++;
    stem[sl] = 0;
    GoldenFilter f = { stem, sl, b };
    char **names = NULL;
    size_t k = 0, cap = 0;
    bool oom = false;
    for (; i < end && !oom; i++) {
        if (!golden_keep(l->names[i], &f))
            continue;
        if (k == cap) {
            cap = cap ? cap * 2 : 8;
            char **v = sc_realloc(names, cap * sizeof *v);
            oom = !v;
            if (v)
                names = v;
        }
        if (!oom && !(names[k] = sc_strdup(l->names[i])))
            oom = true;
        if (!oom)
            k++;
    }
    /* a folder changed less than two seconds ago may change again within
    ** its clock tick: list it afresh next time */
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0 || now.tv_sec - st.st_mtim.tv_sec < 2)
        listing_drop(l);
    atomic_flag_clear_explicit(&listing_lock, memory_order_release);
    if (oom) {
        while (k)
            sc_free(names[--k]);
        sc_free(names);
        return NULL;
    }
    *count = k;
    return names;
}

static void base_of(const char *scenario_path, char *base, size_t cap)
{
    const char *s = strrchr(scenario_path, '/');
    if (!s)
        snprintf(base, cap, ".");
    else if (s == scenario_path)
        snprintf(base, cap, "/");
    else
        snprintf(base, cap, "%.*s", (int)(s - scenario_path), scenario_path);
}

uint64_t embed_siblings_hash(const char *scenario_path)
{
    char base[PATH_MAX];
    base_of(scenario_path, base, sizeof base);
    size_t k;
    char **names = golden_names(base, scenario_path, &k);
    XXH64_state_t *st = XXH64_createState();
    XXH64_reset(st, 0);
    for (size_t i = 0; i < k; i++) {
        XXH64_update(st, names[i], strlen(names[i]) + 1);
        sc_free(names[i]);
    }
    sc_free(names);
    uint64_t h = XXH64_digest(st);
    XXH64_freeState(st);
    return h;
}

static void goldens(Ctx *c, const char *scenario_path)
{
    size_t k;
    char **names = golden_names(c->base, scenario_path, &k);
    for (size_t i = 0; i < k; i++) {
        char full[PATH_MAX * 2];
        snprintf(full, sizeof full, "%s/%s", c->base, names[i]);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
            reference(c, NULL, names[i], false);
        sc_free(names[i]);
    }
    sc_free(names);
}

static int cmp_file(const void *a, const void *b)
{
    return strcmp(((const EmbedFile *)a)->rel, ((const EmbedFile *)b)->rel);
}

/* A context for scenario_path's references; false when its folder cannot
** be resolved (an error when strict). */
static bool ctx_open(Ctx *c, const YDoc *doc, const char *scenario_path, const EmbedOpts *o, EmbedList *out, Diags *d)
{
    *c = (Ctx){ .doc = doc, .o = o, .out = out, .d = d, .ok = true };
    base_of(scenario_path, c->base, sizeof c->base);
    if (!realpath(c->base, c->real_base)) {
        if (o->strict)
            diag_error(d, doc->file, 0, 0, "cannot resolve the scenario's folder '%s': %s", c->base, strerror(errno));
        return false;
    }
    return true;
}

bool embed_collect(const YDoc *doc, const char *scenario_path, const EmbedOpts *o, EmbedList *out, Diags *d)
{
    Ctx c;
    if (!ctx_open(&c, doc, scenario_path, o, out, d))
        return false;
    const YNode *root = doc->root;
    if (root && root->kind == YN_MAP) {
        const YNode *t = ymap_get(root, "terminalRef");
        if (is_str(t))
            reference(&c, t, t->u.s, false);
        const YNode *repo = ymap_get(root, "repo");
        const YNode *dir = repo && repo->kind == YN_MAP ? ymap_get(repo, "dir") : NULL;
        if (is_str(dir))
            reference(&c, dir, dir->u.s, true);
        walk(&c, root, 0);
    }
    if (strcmp(scenario_path, "-") != 0)
        goldens(&c, scenario_path);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cmp_file);
    return c.ok || !o->strict;
}

bool embed_reference(const YDoc *doc, const YNode *at, const char *ref, const char *scenario_path, const EmbedOpts *o,
                     EmbedList *out, Diags *d)
{
    Ctx c;
    if (!ctx_open(&c, doc, scenario_path, o, out, d))
        return false;
    reference(&c, at, ref, false);
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cmp_file);
    return c.ok || !o->strict;
}
