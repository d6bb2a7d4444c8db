/* SPDX-License-Identifier: MIT */
/* bench_compile.c - scc's compile pipeline in-process, on bytes in memory.
**
** scc_compile() (compiler/compile.c), the pipeline scc runs: YAML tree,
** rules, lowering, and finishing: the verifier on the payload, then zstd.
** Only reading the file and writing the result are left out, as the libyaml
** baseline (yaml_bare.c) leaves them out, so the two throughputs compare.
**
**   bench_compile [--runs N --warmup N --min-time S] FILE...
**       bytes, scb_bytes, sec (median per pass over all files), mbps, and
**       the share of time in each phase (phase_parse ... phase_finish)
**   bench_compile --fresh [--runs N ...] FILE...
**       the same with the C library's default, which gives the memory of
**       each compilation back (a one-shot scc); without it the process
**       keeps it for the next, as scc does for more than one file
**       (sc_alloc_keep_freed, docs/performance.md "Keeping freed memory")
**   bench_compile --level N [--runs N ...] FILE...
**       the same with another zstd level (evidence for docs/performance.md:
**       what the pinned level 9 costs; scc itself always uses the default)
**   bench_compile --mem FILE
**       one compilation with the heap in use after each phase (mallinfo2)
**       and the arena's footprint, to show where the memory goes */
#include <malloc.h>
#include <sys/resource.h>

#include "common/arena.h"
#include "common/diag.h"
#include "common/sc_alloc.h"
#include "compiler/compile.h"
#include "bench_util.h"

enum { PH__N = SCC_PHASE__N };
static const char *const phase_name[PH__N] = { "parse", "rules", "lower", "finish" };

typedef struct Ctx {
    BenchFile *f;
    int n;
    size_t scb_bytes;
    double phase[PH__N];
    bool timing;          /* accumulate phase times */
    bool mem;             /* print the heap after each phase */
    int level;            /* zstd level; 0 = scc's (the pinned default) */
    double t;             /* when the last phase ended */
} Ctx;

static void mark(void *p, SccPhase ph, const Arena *a)
{
    Ctx *c = p;
    double now = bench_now();
    if (c->timing)
        c->phase[ph] += now - c->t;
    c->t = now;
    if (c->mem) {
        struct mallinfo2 mi = mallinfo2();
        printf("heap_after_%s %zu\n", phase_name[ph], mi.uordblks + mi.hblkhd);
        if (a)
            printf("arena_after_%s %zu\n", phase_name[ph], arena_footprint(a));
    }
}

static size_t compile_one(Ctx *c, const BenchFile *f)
{
    Symtab syms;
    symtab_init(&syms);
    Diags d;
    diags_init(&d);
    const char *base = strrchr(f->path, '/');
    base = base ? base + 1 : f->path;
    SccCompileOpts o = { .source_name = f->path, .meta_name = base, .base_dir = ".", .syms = &syms,
                         .zstd_level = c->level, .on_phase = mark, .phase_ctx = c };
    SccResult r = { 0 };
    c->t = bench_now();
    if (scc_compile(f->data, f->len, &o, &d, &r) != SCC_OK) {
        fprintf(stderr, "bench_compile: %s does not compile (scc %s shows why)\n", f->path, f->path);
        exit(1);
    }
    sc_free(r.bytes);
    diags_fini(&d);
    symtab_fini(&syms);
    return r.n_bytes;
}

static void compile_all(void *p)
{
    Ctx *c = p;
    c->scb_bytes = 0;
    for (int i = 0; i < c->n; i++)
        c->scb_bytes += compile_one(c, &c->f[i]);
}

int main(int argc, char **argv)
{
    BenchOpts o = { 0 };
    Ctx c = { 0 };
    int i = 1;
    bool fresh = false;
    if (argc == 3 && strcmp(argv[1], "--mem") == 0) {
        c.mem = true;
        i = 2;
    } else {
        if (argc > 2 && strcmp(argv[1], "--fresh") == 0) {
            fresh = true;
            argv++;
            argc--;
        }
        if (argc > 3 && strcmp(argv[1], "--level") == 0) {
            c.level = atoi(argv[2]);
            argv += 2;
            argc -= 2;
        }
        i = bench_opts(argc, argv, &o);
    }
    /* What scc does when it compiles more than one file, as this does
    ** again and again; --fresh, and --mem's one compilation, keep the C
    ** library's default, under which each compilation faults its memory
    ** in anew as a one-shot scc does. */
    if (!c.mem && !fresh)
        sc_alloc_keep_freed();
    c.f = calloc((size_t)argc, sizeof(BenchFile));
    size_t bytes = 0;
    for (; i < argc; i++) {
        bench_read(argv[i], &c.f[c.n]);
        bytes += c.f[c.n++].len;
    }
    if (c.n == 0) {
        free(c.f);
        fputs("usage: bench_compile [--fresh] [--runs N --warmup N --min-time S] FILE...\n"
              "       bench_compile --mem FILE\n", stderr);
        return 2;
    }
    if (c.mem) {
        struct mallinfo2 mi = mallinfo2();
        printf("bytes %zu\nheap_before %zu\n", bytes, mi.uordblks + mi.hblkhd);
        compile_all(&c);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("scb_bytes %zu\nmaxrss_kb %ld\n", c.scb_bytes, ru.ru_maxrss);
        bench_free_files(c.f, c.n);
        return 0;
    }
    double sec = bench_time(&o, compile_all, &c);
    /* one more pass, instrumented, for the split between phases */
    c.timing = true;
    compile_all(&c);
    double total = 0;
    for (int k = 0; k < PH__N; k++)
        total += c.phase[k];
    printf("bytes %zu\nscb_bytes %zu\nsec %.9f\nmbps %.3f\n", bytes, c.scb_bytes, sec, bytes / sec / 1e6);
    for (int k = 0; k < PH__N; k++)
        printf("phase_%s %.4f\n", phase_name[k], total > 0 ? c.phase[k] / total : 0);
    bench_free_files(c.f, c.n);
    return 0;
}
