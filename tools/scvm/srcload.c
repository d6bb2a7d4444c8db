/* SPDX-License-Identifier: MIT */
/* srcload.c - scvm's runners take scenario sources and folders of them
** (docs/scvm.md, "Sources, not only compiled files").
**
** A .yaml/.yml/.json/.jsonl file is compiled in memory by the compiler
** scc uses (scc_compile), its diagnostics on stderr as scc prints them and
** any error the status 1; a folder is walked by scc's own rule
** (compiler/sources.h: .sccignore honoured, data files skipped with a
** note).  -D / --scenario-define and AH_SCENARIO_DEFINES (-D wins per key)
** are the rules' symbols, resolved now.  The bytecode is kept in a cache,
** $XDG_CACHE_HOME/scc (else ~/.cache/scc), one file per key: scc's
** version, the writer's, the path, the source and the defines; written
** atomically (parallel runs share it), and a hit is verified like any .scb
** (suite_add_memory) and compiled again if it is not sound.  Only
** compilations without diagnostics are cached, so a hit never hides a
** warning. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/color.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "compiler/compile.h"
#include "compiler/rules.h"
#include "compiler/sources.h"
#include "formats/bc_write.h"
#include "formats/suite.h"
#include "cli.h"
#include "scvm.h"

enum { MAX_SOURCE = 64 << 20 };

/* The cache folder (made if missing), or false: no cache (no HOME). */
static bool cache_dir(char *out, size_t cap)
{
    const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (x && x[0] == '/')
        snprintf(out, cap, "%s/scc", x);
    else if (home && home[0] == '/')
        snprintf(out, cap, "%s/.cache/scc", home);
    else
        return false;
    return file_mkdirs(out) == 0;
}

static uint64_t cache_key(const char *path, const char *src, size_t len, const char *defs, size_t pick)
{
    XXH64_state_t *st = XXH64_createState();
    if (!st)
        return 0;
    XXH64_reset(st, 0x73636376);       /* "sccv": not scc's own keys */
    uint64_t writer = bc_writer_id();
    char real[PATH_MAX];
    const char *p = realpath(path, real) ? real : path;
    XXH64_update(st, SCC_VERSION, sizeof SCC_VERSION);
    XXH64_update(st, &writer, sizeof writer);
    XXH64_update(st, p, strlen(p) + 1);
    XXH64_update(st, defs, strlen(defs) + 1);
    XXH64_update(st, &pick, sizeof pick);
    XXH64_update(st, src, len);
    uint64_t h = XXH64_digest(st);
    XXH64_freeState(st);
    return h;
}

/* The rules' symbols: -D (and --scenario-define) first, then what
** AH_SCENARIO_DEFINES adds; *text gets them as written, for the key. */
static int symbols(const Opts *o, Symtab *t, char *text, size_t cap)
{
    const char *why = NULL;
    text[0] = 0;
    for (size_t i = 0; i < o->n_defines; i++) {
        if (!symtab_define(t, o->defines[i], &why)) {
            fprintf(stderr, "scvm: bad -D '%s': %s\n", o->defines[i], why ? why : "malformed");
            return SC_USAGE;
        }
        snprintf(text + strlen(text), cap - strlen(text), "-D%s\n", o->defines[i]);
    }
    const char *env = getenv("AH_SCENARIO_DEFINES");
    if (env && *env) {
        Symtab e;
        symtab_init(&e);
        bool ok = symtab_define_list(&e, env, &why) && symtab_merge_missing(t, &e);
        symtab_fini(&e);
        if (!ok) {
            fprintf(stderr, "scvm: bad AH_SCENARIO_DEFINES: %s\n", why ? why : "malformed");
            return SC_USAGE;
        }
        snprintf(text + strlen(text), cap - strlen(text), "env%s\n", env);
    }
    return 0;
}

/* Compiles scenario pick (an ElizaOS matrix's, 1-based; 0: the file's one)
** of path and adds it to s. */
static int compile_add(Suite *s, const char *path, char *src, size_t len, size_t pick,
                       const Symtab *syms, const char *defs, bool quiet, SuiteErr *err)
{
    char dir[PATH_MAX], cpath[PATH_MAX + 32];
    scvm_folder_of(path, dir, sizeof dir);
    bool cached = cache_dir(cpath, sizeof cpath);
    if (cached) {
        size_t dl = strlen(cpath);
        snprintf(cpath + dl, sizeof cpath - dl, "/%016llx.scb",
                 (unsigned long long)cache_key(path, src, len, defs, pick));
        char *data = NULL;
        size_t n = 0;
        if (file_read_all(cpath, (size_t)MAX_SOURCE * 4, &data, &n) == 0) {
            int st = suite_add_memory(s, data, n, path, err);
            sc_free(data);
            if (st == 0)
                return 0;
            /* not sound (a torn or tampered entry): compiled again below */
        }
    }
    const char *b = strrchr(path, '/');
    SccCompileOpts co = {
        .source_name = path, .meta_name = b ? b + 1 : path, .base_dir = dir, .syms = syms,
        .matrix_pick = pick,
    };
    Diags d;
    diags_init(&d);
    SccResult r = { 0 };
    /* scc_compile works on a writable copy; src stays for the carets */
    char *copy = sc_malloc(len + 1);
    if (!copy) {
        diags_fini(&d);
        return SC_RUNTIME;
    }
    memcpy(copy, src, len);
    copy[len] = 0;
    SccStatus cs = scc_compile(copy, len, &co, &d, &r);
    if (!quiet && d.n) {
        DiagPrintOpts po = { .color = sc_color(-1, STDERR_FILENO), .caret = true, .src = src, .src_len = len };
        diags_print(&d, stderr, &po);
    }
    int st = 0;
    if (cs == SCC_ERRORS) {
        st = SC_FAILED;
        snprintf(err->code, sizeof err->code, "COMPILE");
        snprintf(err->msg, sizeof err->msg, "the scenario has errors");
    } else if (cs == SCC_NOMEM) {
        st = SC_RUNTIME;
    } else if (cs == SCC_INTERNAL) {
        fprintf(stderr, "scvm: %s: internal compiler error: %s\n", cli_display_name(path), r.why);
        st = SC_RUNTIME;
    } else {
        st = suite_add_memory(s, r.bytes, r.n_bytes, path, err);
        if (!st && cached && d.n == 0)
            file_write_atomic(cpath, r.bytes, r.n_bytes);   /* a cache: a failed write only costs time */
    }
    sc_free(r.bytes);
    sc_free(copy);      /* scc_compile leaves it to us (no free_source) */
    diags_fini(&d);
    return st;
}

/* One source file: each scenario it makes. */
static int add_source(Suite *s, const char *path, const Symtab *syms, const char *defs, bool quiet,
                      SuiteErr *err)
{
    char *src = NULL;
    size_t len = 0;
    int e = file_read_all(path, MAX_SOURCE, &src, &len);
    if (e) {
        snprintf(err->code, sizeof err->code, "IO");
        snprintf(err->msg, sizeof err->msg, "%s", e == EFBIG ? "file too large" : strerror(e));
        if (!quiet)
            fprintf(stderr, "scvm: %s: cannot read: %s\n", cli_display_name(path), err->msg);
        return SC_IO;
    }
    SccCompileOpts mo = { .source_name = path, .syms = syms };
    size_t msize = scc_matrix_size(src, len, &mo);
    int worst = 0;
    for (size_t k = msize > 1 ? 1 : 0; k <= (msize > 1 ? msize : 0); k++) {
        int st = compile_add(s, path, src, len, k, syms, defs, quiet, err);
        if (st > worst)
            worst = st;
    }
    sc_free(src);
    return worst;
}

bool scvm_is_source(const char *path)
{
    struct stat st;
    return scc_source_ext(path) || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

int scvm_add_source(Suite *s, const Opts *o, const char *path, bool quiet, SuiteErr *err)
{
    memset(err, 0, sizeof *err);
    err->entry = -1;
    Symtab syms;
    symtab_init(&syms);
    char defs[4096];
    int st = symbols(o, &syms, defs, sizeof defs);
    struct stat sb;
    if (!st && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        SccPaths files = { 0 };
        const char **pat = NULL;
        size_t n_pat = 0;
        char *keep = NULL, bad[PATH_MAX + 16];
        int e = scc_read_ignore(path, &pat, &n_pat, &keep);
        if (e)
            snprintf(bad, sizeof bad, "%s/.sccignore", path);
        else
            e = scc_walk_sources(&files, path, pat, n_pat, bad, sizeof bad);
        if (e) {
            fprintf(stderr, "scvm: %s: %s\n", cli_display_name(bad), strerror(e));
            st = e == ENOMEM ? SC_RUNTIME : SC_IO;
        }
        size_t added = 0;
        for (size_t i = 0; !st && i < files.n; i++) {
            unsigned nl, nc;
            const char *what = scc_data_file(files.v[i], MAX_SOURCE, &nl, &nc);
            if (what) {
                if (!quiet)
                    fprintf(stderr, "scvm: note: %s: skipped: %s, not a scenario\n", cli_display_name(files.v[i]),
                            what);
                continue;
            }
            uint32_t before = suite_count(s);
            int fs = add_source(s, files.v[i], &syms, defs, quiet, err);
            added += suite_count(s) - before;
            if (fs > st)
                st = fs;
        }
        if (!st && !added) {
            fprintf(stderr, "scvm: %s: no scenarios in the folder\n", cli_display_name(path));
            st = SC_USAGE;
        }
        scc_paths_fini(&files);
        sc_free(pat);
        sc_free(keep);
    } else if (!st) {
        st = add_source(s, path, &syms, defs, quiet, err);
    }
    symtab_fini(&syms);
    return st;
}
