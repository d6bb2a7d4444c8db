/* SPDX-License-Identifier: MIT */
/* bench_vm.c - load + verify + play, in-process through the libraries
** (process start would dominate a 1 KB scenario).  Never links libyaml.
**
**   bench_vm files [--runs N ...] FILE.scb...
**       per-file rates over all the files, each pass loading every file:
**         fresh_disk_*, fresh_mem_*  as disk_*, mem_* with bc_load_file /
**                  bc_load, no BcLoadCtx: a file buffer and a payload
**                  buffer allocated per load (the loader's one spare zstd
**                  context serves them)
**         disk_*   bc_load_file_with (read + verify) + play to the counting
**                  sink, one BcLoadCtx for all files
**         mem_*    bc_load_with from bytes already in memory + counting sink
**         load_*   bc_load_with from memory only (no playback)
**         jsonl_*  bc_load_with from memory + JSONL events to /dev/null,
**                  written when each file's scenario ends (as `scvm run
**                  FILE.scb` does, one process a file)
**       and two floors, parts of a load alone (nothing verified or played):
**         read_*   reading each file as bc_load_file_with does (open, fstat,
**                  read to end of file, close) into one reused buffer
**         zstd_*   decompressing each file's frame from memory, as bc_load
**                  does (one reused context, the built-in dictionary)
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
**         disk_*   read the file as scvm does (file_read_all) + pack_load +
**                  play all (counting sink) + pack_free
**         mem_*    the same from the pack's bytes already in memory
**         load_*   pack_load + pack_free only (no playback)
**         jsonl_*  mem_, JSONL events to /dev/null as `scvm run` writes a
**                  suite's: gathered in one buffer, written whole scenarios
**                  at a time in blocks of RT_SIM_BATCH bytes (runtime/rt_sim.h)
**         lazy_*   mem_ with a lazy pack_load: each entry verified by
**                  pack_entry_load just before it is played (the same work,
**                  in another order)
**         lazyjsonl_*  lazy_, JSONL events to /dev/null, as jsonl_
**         index_*  a lazy pack_load + pack_free alone: container, frames,
**                  index; no entry verified (what selecting one costs
**                  before that one is verified)
**         play_*   playback only, of a pack loaded once (the share of play)
**         zstd_*   a floor: decompressing the pack's frames alone, as
**                  pack_load does (one zstd context reused from pack to
**                  pack, the pack's own dictionary prepared per pack,
**                  docs/pack.md section 2)
**       each as *_sec, *_scen_s (entries per second), *_events_s */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "formats/bc.h"
#include "formats/bc_zstd.h"
#include "formats/pack.h"
#include "formats/suite.h"
#include "runtime/rt_sim.h"
#include "vm/vm.h"
#include "bench_util.h"

typedef struct Ctx {
    BenchFile *f;
    int n;
    RtTarget *count, *sim;
    RtTarget *batch;            /* pack mode's JSONL: into jbuf, written in blocks */
    Buf jbuf;
    FILE *null;
    const BcProgram *prog;      /* play mode */
    bool jsonl;                 /* files mode: which target */
    bool play;                  /* files mode: play after loading */
    bool disk;                  /* files mode: bc_load_file */
    bool lazy;                  /* pack mode: PackLoadOpts.lazy, each entry verified at its first use */
    const Pack *pack;           /* pack mode, play_: loaded once */
    BcLoadCtx *lc;              /* files mode: reused load context, or NULL */
    BcLoadCtx *keep;            /* the context lc is set to when used */
    enum { FLOOR_NONE, FLOOR_READ, FLOOR_ZSTD } floor;  /* files, pack: a part alone */
    ZSTD_DCtx *dc;              /* FLOOR_ZSTD */
    unsigned char *buf;         /* FLOOR_READ, FLOOR_ZSTD: reused output */
    size_t cap;
} Ctx;

static unsigned char *room(Ctx *c, size_t n)
{
    if (n > c->cap) {
        free(c->buf);
        c->cap = n < 65536 ? 65536 : n;
        c->buf = malloc(c->cap);
        if (!c->buf)
            exit(2);
    }
    return c->buf;
}

/* The syscalls bc_load_file_with makes for a regular file. */
static void floor_read(Ctx *c, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        exit(2);
    unsigned char *b = room(c, (size_t)st.st_size + 1);
    for (size_t n = 0;;) {
        ssize_t r = read(fd, b + n, c->cap - n);
        if (r < 0)
            exit(2);
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
}

/* One frame: begun warm with the dictionary, as bc_load_with does. */
static void floor_frame(Ctx *c, const ZSTD_DDict *dd, const unsigned char *f, size_t n,
                        size_t content)
{
    unsigned char *out = room(c, content);
    size_t r = dd ? ZSTD_decompressBegin_usingDDict(c->dc, dd) : 0;
    if (!ZSTD_isError(r))
        r = dd ? ZSTD_decompress_usingDDict(c->dc, out, content, f, n, dd)
               : ZSTD_decompressDCtx(c->dc, out, content, f, n);
    if (ZSTD_isError(r) || r != content)
        exit(2);
}

/* A .scb's frame (docs/bytecode.md section 2: flags at 12, content size
** at 16, frame size at 24, the frame at 40). */
static void floor_scb(Ctx *c, const unsigned char *d, size_t len)
{
    if (len < BC_HEADER_SIZE || rd_u64le(d + 24) != len - BC_HEADER_SIZE)
        exit(2);
    floor_frame(c, (rd_u32le(d + 12) & BC_FLAG_DICT) ? bc_dict_ddict() : NULL,
                d + BC_HEADER_SIZE, len - BC_HEADER_SIZE, (size_t)rd_u64le(d + 16));
}

/* Every frame of a pack decoded as pack_load decodes them (docs/pack.md
** sections 1-2; formats/pack_read.c): a new zstd context and the pack's
** own dictionary prepared per pack, the frames one after another into one
** buffer of the content's size. */
static void floor_pack(Ctx *c, const unsigned char *d, size_t len)
{
    if (len < PACK_HEADER_SIZE)
        exit(2);
    size_t nf = rd_u32le(d + 40), ds = rd_u32le(d + 44);
    size_t content = (size_t)rd_u64le(d + 16);
    if (nf > (len - PACK_HEADER_SIZE) / PACK_FRAME_ENTRY_SIZE ||
        ds > len - PACK_HEADER_SIZE - nf * PACK_FRAME_ENTRY_SIZE)
        exit(2);
    const unsigned char *t = d + PACK_HEADER_SIZE, *dict = t + nf * PACK_FRAME_ENTRY_SIZE;
    const unsigned char *f = dict + ds, *end = d + len;
    unsigned char *out = room(c, content);
    ZSTD_DCtx *dc = c->dc;
    ZSTD_DDict *dd = ds ? ZSTD_createDDict_byReference(dict, ds) : NULL;
    if (ds && !dd)
        exit(2);
    size_t at = 0;
    for (size_t i = 0; i < nf; i++, t += PACK_FRAME_ENTRY_SIZE) {
        size_t cs = (size_t)rd_u64le(t), fc = (size_t)rd_u64le(t + 8);
        if (cs > (size_t)(end - f) || fc > content - at)
            exit(2);
        size_t r = (rd_u32le(t + 16) & PACK_FRAME_DICT)
                       ? ZSTD_decompress_usingDDict(dc, out + at, fc, f, cs, dd)
                       : ZSTD_decompressDCtx(dc, out + at, fc, f, cs);
        if (ZSTD_isError(r) || r != fc)
            exit(2);
        f += cs;
        at += fc;
    }
    ZSTD_freeDDict(dd);
}

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
        if (c->floor == FLOOR_READ) {
            floor_read(c, c->f[i].path);
            continue;
        }
        if (c->floor == FLOOR_ZSTD) {
            floor_scb(c, (const unsigned char *)c->f[i].data, c->f[i].len);
            continue;
        }
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
static void per_pass(Ctx *c, RtTarget *sim, void (*fn)(void *), uint64_t *events, uint64_t *bytes)
{
    RtCounts a, b;
    rt_sim_counts(sim, &a);
    fn(c);
    rt_sim_counts(sim, &b);
    *events = b.events - a.events;
    *bytes = b.bytes - a.bytes;
}

/* pack mode: c->f[0] is the pack; load it (from disk or memory), play
** every entry, free it. */
static void pack_pass(void *p)
{
    Ctx *c = p;
    if (c->floor == FLOOR_ZSTD) {
        floor_pack(c, (const unsigned char *)c->f[0].data, c->f[0].len);
        return;
    }
    RtTarget *t = c->jsonl ? c->batch : c->count;
    BenchFile disk = { 0 };
    BenchFile *f = &c->f[0];
    if (c->disk) {
        /* as `scvm run suite.scp` reads it (suite_add_file) */
        int r = file_read_all(f->path, SUITE_READ_MAX, &disk.data, &disk.len);
        if (r) {
            fprintf(stderr, "bench_vm: %s: %s\n", f->path, strerror(r));
            exit(1);
        }
        disk.path = f->path;
        f = &disk;
    }
    Pack *pk;
    PackError e;
    PackLoadOpts lo = { .lazy = c->lazy };
    if (pack_load(f->data, f->len, &lo, &pk, &e) != PACK_ERR_OK) {
        fprintf(stderr, "bench_vm: %s: rejected: %s\n", f->path, e.msg);
        exit(1);
    }
    for (uint32_t i = 0; c->play && i < pk->n_entries; i++) {
        const BcProgram *prog = pk->entries[i].prog;
        if (c->lazy && pack_entry_load(pk, i, &prog, &e) != PACK_ERR_OK) {
            fprintf(stderr, "bench_vm: %s: rejected: %s\n", f->path, e.msg);
            exit(1);
        }
        if (vm_run(prog, t, NULL, NULL) != 0)
            exit(1);
        if (c->jsonl && rt_sim_batch_write(&c->jbuf, c->null, false) != 0)
            exit(1);
    }
    if (c->jsonl && rt_sim_batch_write(&c->jbuf, c->null, true) != 0)
        exit(1);
    pack_free(pk);
    sc_free(disk.data);
}

static void pack_play(void *p)
{
    Ctx *c = p;
    for (uint32_t i = 0; i < c->pack->n_entries; i++)
        if (vm_run(c->pack->entries[i].prog, c->count, NULL, NULL) != 0)
            exit(1);
}

/* A way of timing a pass: from disk or memory, played or not, as JSONL or
** counted, with the shared BcLoadCtx or none, or one floor alone. */
typedef struct Mode {
    const char *name;
    bool disk, play, jsonl, ctx;
    int floor;
    bool lazy;
} Mode;

/* Times fn (n scenarios and events events per pass) under m and prints
** NAME_sec, NAME_scen_s and NAME_events_s. */
static void mode_rows(Ctx *c, const BenchOpts *o, const Mode *m, void (*fn)(void *), double n, uint64_t events)
{
    c->disk = m->disk;
    c->play = m->play;
    c->jsonl = m->jsonl;
    c->floor = m->floor;
    c->lazy = m->lazy;
    c->lc = m->ctx ? c->keep : NULL;
    double s = bench_time(o, fn, c);
    printf("%s_sec %.9f\n%s_scen_s %.1f\n%s_events_s %.1f\n", m->name, s, m->name, n / s, m->name,
           c->play ? events / s : 0.0);
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
    per_pass(c, c->batch, pack_pass, &events, &jbytes);
    printf("entries %u\nbytes %zu\ncontent %zu\nevents %llu\njsonl_bytes %llu\n", pk->n_entries,
           c->f[0].len, pk->content_size, (unsigned long long)events, (unsigned long long)jbytes);
    static const Mode modes[] = {
        { "disk", true, true, false, false, FLOOR_NONE, false },
        { "mem", false, true, false, false, FLOOR_NONE, false },
        { "load", false, false, false, false, FLOOR_NONE, false },
        { "jsonl", false, true, true, false, FLOOR_NONE, false },
        { "lazy", false, true, false, false, FLOOR_NONE, true },
        { "lazyjsonl", false, true, true, false, FLOOR_NONE, true },
        { "index", false, false, false, false, FLOOR_NONE, true },
        { "play", false, true, false, false, FLOOR_NONE, false },
        { "zstd", false, false, false, false, FLOOR_ZSTD, false },
    };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        if (!only || strcmp(only, modes[m].name) == 0)
            mode_rows(c, o, &modes[m], strcmp(modes[m].name, "play") == 0 ? pack_play : pack_pass, pk->n_entries,
                      events);
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
    per_pass(c, c->sim, play_jsonl, &events, &jbytes);
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
    per_pass(c, c->sim, files_pass, &events, &jbytes);
    size_t content = 0;   /* payload bytes, as the headers say (files_pass loaded them all) */
    for (int i = 0; i < c->n; i++)
        content += (size_t)rd_u64le((const unsigned char *)c->f[i].data + 16);
    printf("files %d\nbytes %zu\ncontent %zu\nevents %llu\njsonl_bytes %llu\n", c->n, bytes, content,
           (unsigned long long)events, (unsigned long long)jbytes);
    /* fresh: bc_load/bc_load_file without a BcLoadCtx (what a caller that
    ** loads one file at a time does); the others share one BcLoadCtx. */
    static const Mode modes[] = {
        { "fresh_disk", true, true, false, false, FLOOR_NONE, false },
        { "fresh_mem", false, true, false, false, FLOOR_NONE, false },
        { "disk", true, true, false, true, FLOOR_NONE, false },
        { "mem", false, true, false, true, FLOOR_NONE, false },
        { "load", false, false, false, true, FLOOR_NONE, false },
        { "jsonl", false, true, true, true, FLOOR_NONE, false },
        { "read", true, false, false, false, FLOOR_READ, false },
        { "zstd", false, false, false, false, FLOOR_ZSTD, false },
    };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        if (!only || strcmp(only, modes[m].name) == 0)
            mode_rows(c, o, &modes[m], files_pass, c->n, events);
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
    Ctx c = { .f = calloc((size_t)argc, sizeof(BenchFile)), .keep = bc_load_ctx_new(),
              .dc = ZSTD_createDCtx() };
    size_t bytes = 0;
    for (; i < argc; i++) {
        bench_read(argv[i], &c.f[c.n]);
        bytes += c.f[c.n++].len;
    }
    FILE *null = fopen("/dev/null", "w");
    c.null = null;
    buf_init(&c.jbuf);
    c.count = rt_count_new();
    c.sim = rt_sim_new(&(RtSimOpts){ .out = null });
    c.batch = rt_sim_new(&(RtSimOpts){ .mem = &c.jbuf });
    if (c.n == 0 || !null || !c.count || !c.sim || !c.batch || !c.keep || !c.dc) {
        fputs("bench_vm: no input, or cannot set up the targets\n", stderr);
        return 2;
    }
    int rc = pack_mode ? pack_main(&c, &o, only)
             : play_mode ? play_main(&c, &o)
                         : files_main(&c, &o, only, bytes);
    c.count->vt->destroy(c.count);
    c.sim->vt->destroy(c.sim);
    c.batch->vt->destroy(c.batch);
    buf_fini(&c.jbuf);
    fclose(null);
    bc_load_ctx_free(c.keep);
    ZSTD_freeDCtx(c.dc);
    free(c.buf);
    bench_free_files(c.f, c.n);
    return rc;
}
