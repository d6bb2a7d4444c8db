/* bench_vm.c - load + verify + play, in-process through the libraries
** (process start would dominate a 1 KB scenario).  Never links libyaml.
**
**   bench_vm files [--runs N ...] FILE.scb...
**       per-file rates over all the files, each pass loading every file:
**         fresh_disk_*, fresh_mem_*  as disk_*, mem_* with bc_load_file /
**                  bc_load: a new zstd context for every file
**         disk_*   bc_load_file_with (read + verify) + play to the counting
**                  sink, one BcLoadCtx for all files
**         mem_*    bc_load_with from bytes already in memory + counting sink
**         load_*   bc_load_with from memory only (no playback)
**         jsonl_*  bc_load_with from memory + JSONL events to /dev/null
**       each as *_sec (median per pass), *_scen_s, and events (per pass)
**       --only MODE (first) runs one of them, for a profiler
**   bench_vm play [--runs N ...] FILE.scb
**       playback of one loaded program: count_* (counting sink) and
**       jsonl_* (JSONL to /dev/null): events/s and bytes/s
**   bench_vm pack [--runs N ...] FILE.scp
**       a whole pack per pass, every scenario played.  pack_load() checks the
**       container and hashes, decompresses everything and verifies every
**       entry with bc_load() before it returns, so each pass pays all of
**       that, as `scvm run suite.scp` does:
**         disk_*   read the file + pack_load + play all (counting sink) + pack_free
**         mem_*    the same from the pack's bytes already in memory
**         load_*   pack_load + pack_free only (no playback)
**         jsonl_*  mem_, JSONL events to /dev/null
**         play_*   playback only, of a pack loaded once (the share of play)
**       each as *_sec, *_scen_s (entries per second), *_events_s */
#include "../formats/bc.h"
#include "../formats/pack.h"
#include "../runtime/rt_sim.h"
#include "../vm/vm.h"
#include "bench_util.h"

typedef struct Ctx {
    BenchFile *f;
    int n;
    RtTarget *count, *sim;
    const BcProgram *prog;      /* play mode */
    bool jsonl;                 /* files mode: which target */
    bool play;                  /* files mode: play after loading */
    bool disk;                  /* files mode: bc_load_file */
    const Pack *pack;           /* pack mode, play_: loaded once */
    BcLoadCtx *lc;              /* files mode: reused load context, or NULL */
    BcLoadCtx *keep;            /* the context lc is set to when used */
} Ctx;

static void load_fail(const char *path, const BcError *e)
{
    fprintf(stderr, "bench_vm: %s: rejected: %s\n", path, e->msg);
    exit(1);
}

static void files_pass(void *p)
{
    Ctx *c = p;
    RtTarget *t = c->jsonl ? c->sim : c->count;
    for (int i = 0; i < c->n; i++) {
        BcProgram *prog;
        BcError e;
        BcErrCode r = c->disk ? bc_load_file_with(c->lc, c->f[i].path, NULL, &prog, &e)
                              : bc_load_with(c->lc, c->f[i].data, c->f[i].len, NULL, &prog, &e);
        if (r != BC_ERR_OK)
            load_fail(c->f[i].path, &e);
        if (c->play && vm_run(prog, t, NULL, NULL) != 0)
            exit(1);
        bc_free(prog);
    }
}

static void play_count(void *p)
{
    Ctx *c = p;
    if (vm_run(c->prog, c->count, NULL, NULL) != 0)
        exit(1);
}

static void play_jsonl(void *p)
{
    Ctx *c = p;
    if (vm_run(c->prog, c->sim, NULL, NULL) != 0)
        exit(1);
}

/* Events and JSONL bytes one pass produces (counted once, outside timing). */
static void per_pass(Ctx *c, void (*fn)(void *), uint64_t *events, uint64_t *bytes)
{
    RtCounts a, b;
    rt_sim_counts(c->sim, &a);
    fn(c);
    rt_sim_counts(c->sim, &b);
    *events = b.events - a.events;
    *bytes = b.bytes - a.bytes;
}

/* pack mode: c->f[0] is the pack; load it (from disk or memory), play
** every entry, free it. */
static void pack_pass(void *p)
{
    Ctx *c = p;
    RtTarget *t = c->jsonl ? c->sim : c->count;
    BenchFile disk = { 0 };
    BenchFile *f = &c->f[0];
    if (c->disk) {
        bench_read(c->f[0].path, &disk);
        f = &disk;
    }
    Pack *pk;
    PackError e;
    if (pack_load(f->data, f->len, NULL, &pk, &e) != PACK_ERR_OK) {
        fprintf(stderr, "bench_vm: %s: rejected: %s\n", f->path, e.msg);
        exit(1);
    }
    for (uint32_t i = 0; c->play && i < pk->n_entries; i++)
        if (vm_run(pk->entries[i].prog, t, NULL, NULL) != 0)
            exit(1);
    pack_free(pk);
    free(disk.path);
    free(disk.data);
}

static void pack_play(void *p)
{
    Ctx *c = p;
    for (uint32_t i = 0; i < c->pack->n_entries; i++)
        if (vm_run(c->pack->entries[i].prog, c->count, NULL, NULL) != 0)
            exit(1);
}

static int pack_main(Ctx *c, const BenchOpts *o, const char *only)
{
    Pack *pk;
    PackError e;
    if (pack_load(c->f[0].data, c->f[0].len, NULL, &pk, &e) != PACK_ERR_OK) {
        fprintf(stderr, "bench_vm: %s: rejected: %s\n", c->f[0].path, e.msg);
        return 1;
    }
    c->pack = pk;
    c->play = true;
    c->jsonl = true;
    c->disk = false;
    uint64_t events, jbytes;
    per_pass(c, pack_pass, &events, &jbytes);
    printf("entries %u\nbytes %zu\ncontent %zu\nevents %llu\njsonl_bytes %llu\n", pk->n_entries,
           c->f[0].len, pk->content_size, (unsigned long long)events, (unsigned long long)jbytes);
    static const struct { const char *name; bool disk, play, jsonl; } modes[] = {
        { "disk", true, true, false },
        { "mem", false, true, false },
        { "load", false, false, false },
        { "jsonl", false, true, true },
        { "play", false, true, false },
    };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        if (only && strcmp(only, modes[m].name) != 0)
            continue;
        c->disk = modes[m].disk;
        c->play = modes[m].play;
        c->jsonl = modes[m].jsonl;
        bool pre = strcmp(modes[m].name, "play") == 0;
        double s = bench_time(o, pre ? pack_play : pack_pass, c);
        printf("%s_sec %.9f\n%s_scen_s %.1f\n%s_events_s %.1f\n", modes[m].name, s, modes[m].name,
               pk->n_entries / s, modes[m].name, c->play ? events / s : 0.0);
    }
    pack_free(pk);
    return 0;
}

static int play_main(Ctx *c, const BenchOpts *o)
{
    uint64_t events, jbytes;
    BcProgram *prog;
    BcError e;
    if (bc_load(c->f[0].data, c->f[0].len, NULL, &prog, &e) != BC_ERR_OK)
        load_fail(c->f[0].path, &e);
    c->prog = prog;
    per_pass(c, play_jsonl, &events, &jbytes);
    double sc = bench_time(o, play_count, c);
    double sj = bench_time(o, play_jsonl, c);
    printf("ops %u\nevents %llu\njsonl_bytes %llu\n", prog->n_insn, (unsigned long long)events,
           (unsigned long long)jbytes);
    printf("count_sec %.9f\ncount_events_s %.1f\ncount_ops_s %.1f\n", sc, events / sc,
           prog->n_insn / sc);
    printf("jsonl_sec %.9f\njsonl_events_s %.1f\njsonl_mb_s %.3f\n", sj, events / sj,
           jbytes / sj / 1e6);
    bc_free(prog);
    return 0;
}

static int files_main(Ctx *c, const BenchOpts *o, const char *only, size_t bytes)
{
    uint64_t events, jbytes;
    c->play = true;
    c->jsonl = true;
    per_pass(c, files_pass, &events, &jbytes);
    printf("files %d\nbytes %zu\nevents %llu\njsonl_bytes %llu\n", c->n, bytes,
           (unsigned long long)events, (unsigned long long)jbytes);
    /* fresh: bc_load/bc_load_file, a new zstd context per file (what a
    ** caller that loads one file does); the others share one BcLoadCtx. */
    static const struct { const char *name; bool disk, play, jsonl, ctx; } modes[] = {
        { "fresh_disk", true, true, false, false },
        { "fresh_mem", false, true, false, false },
        { "disk", true, true, false, true },
        { "mem", false, true, false, true },
        { "load", false, false, false, true },
        { "jsonl", false, true, true, true },
    };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        if (only && strcmp(only, modes[m].name) != 0)
            continue;
        c->disk = modes[m].disk;
        c->play = modes[m].play;
        c->jsonl = modes[m].jsonl;
        c->lc = modes[m].ctx ? c->keep : NULL;
        double s = bench_time(o, files_pass, c);
        printf("%s_sec %.9f\n%s_scen_s %.1f\n%s_events_s %.1f\n", modes[m].name, s, modes[m].name,
               c->n / s, modes[m].name, c->play ? events / s : 0.0);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "files") != 0 && strcmp(argv[1], "play") != 0 &&
                     strcmp(argv[1], "pack") != 0)) {
        fputs("usage: bench_vm files|pack [--only MODE] | play [--runs N --warmup N --min-time S] FILE...\n",
              stderr);
        return 2;
    }
    bool play_mode = strcmp(argv[1], "play") == 0;
    bool pack_mode = strcmp(argv[1], "pack") == 0;
    const char *only = NULL;    /* --only MODE: one files mode (for profiling) */
    if (argc > 3 && strcmp(argv[2], "--only") == 0) {
        only = argv[3];
        argv += 2;
        argc -= 2;
    }
    BenchOpts o;
    int i = 1 + bench_opts(argc - 1, argv + 1, &o);
    Ctx c = { .f = calloc((size_t)argc, sizeof(BenchFile)), .keep = bc_load_ctx_new() };
    size_t bytes = 0;
    for (; i < argc; i++) {
        bench_read(argv[i], &c.f[c.n]);
        bytes += c.f[c.n++].len;
    }
    FILE *null = fopen("/dev/null", "w");
    c.count = rt_count_new();
    c.sim = rt_sim_new(&(RtSimOpts){ .out = null });
    if (c.n == 0 || !null || !c.count || !c.sim || !c.keep) {
        fputs("bench_vm: no input, or cannot set up the targets\n", stderr);
        return 2;
    }
    int rc = pack_mode ? pack_main(&c, &o, only)
             : play_mode ? play_main(&c, &o)
                         : files_main(&c, &o, only, bytes);
    c.count->vt->destroy(c.count);
    c.sim->vt->destroy(c.sim);
    fclose(null);
    bc_load_ctx_free(c.keep);
    bench_free_files(c.f, c.n);
    return rc;
}
