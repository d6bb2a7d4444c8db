/* SPDX-License-Identifier: MIT */
/* fuzz_load.c - libFuzzer target: untrusted bytes -> the loaders -> the VM.
**
** .scb files and .scp packs are shipped between teams, so whatever a loader
** accepts must be safe to play.  Each input goes, as it is, through
**   1. bc_load (a .scb), and bc_load_with on a BcLoadCtx kept across inputs,
**      which must judge it exactly as bc_load does;
**   2. bc_load_payload (a bare payload, as a pack entry holds one), as 1.1
**      with the lines and dictionary flags and as 1.0 with none: at most one
**      of the two can load, since LINES is present iff its flag is set;
**   3. pack_load (a .scp);
**   4. the one loader (formats/suite.h) when 1 or 3 loaded: it must load
**      too, and find, match and select within its entries.
** Every program that loads is played to the counting target and to the
** JSONL simulation target (into memory), listed with bc_list, and each of
** its values rendered as JSON; then everything is freed.  A header whose
** only fault is its XXH64 is loaded again with the hash corrected, so that
** mutations inside the frame reach the decoder and the verifier rather than
** stop at the checksum, which catches accidents, not attacks.
**
** Each pass that loads runs again with its 1st, 2nd, ... allocation failing
** (sc_alloc_fail_after), as tests/formats/t_alloc.c does for one file:
** every such run must end with out of memory or load as the first did, and
** leak nothing.
**
** Findings: a crash, a sanitizer report, a leak, a timeout, or one of the
** invariants below failing (abort): every op played, both targets seeing the
** same ops, one listing line per op, each event one valid JSON object, a
** loaded .scb's payload loading alone with the same listing, a pack entry
** re-wrapped as a .scb loading.  No randomness, no clock, no files.
**
** Built with -DSCC_FUZZ=ON (clang).  Findings go to tests/fuzz/load-corpus/,
** replayed under ctest by fuzz_replay.c together with seeds compiled then. */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "common/buf.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "formats/bc.h"
#include "formats/pack.h"
#include "formats/suite.h"
#include "runtime/rt_sim.h"
#include "vm/vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "fuzz_load: invariant failed: %s (%s:%d)\n", #cond,       \
                    __FILE__, __LINE__);                                             \
            abort();                                                                 \
        }                                                                            \
    } while (0)

static size_t count_lines(const Buf *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->len; i++)
        n += b->data[i] == '\n';
    return n;
}

/* [p, p+n) is exactly one JSON value (an object when object is set). */
static void check_json(const char *p, size_t n, bool object)
{
    const char *stop = NULL;
    cJSON *j = cJSON_ParseWithLengthOpts(p, n, &stop, false);
    CHECK(j != NULL && (!object || cJSON_IsObject(j)) && stop == p + n);
    cJSON_Delete(j);
}

/* Each line of the JSONL playback is one JSON object (docs/events.md). */
static void check_jsonl(const Buf *b)
{
    const char *p = (const char *)b->data, *end = p + b->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        CHECK(nl != NULL);
        check_json(p, (size_t)(nl - p), true);
        p = nl + 1;
    }
}

/* Plays, lists and renders a loaded program.  The listing without header
** (positions included) is left in lst, for callers comparing two loads. */
static void exercise(const BcProgram *p, Buf *lst)
{
    RtCounts c = { 0 }, s = { 0 };
    RtTarget *t = rt_count_new();
    if (t) {
        /* a speed other than 1 goes through rt_clock_scale's rounding */
        CHECK(vm_run(p, t, NULL, &(VmOpts){ .speed = 2.5 }) == 0);
        rt_count_counts(t, &c);
        t->vt->destroy(t);
        CHECK(c.ops == p->n_insn);
    }
    Buf ev;
    buf_init(&ev);
    t = rt_sim_new(&(RtSimOpts){ .mem = &ev });
    if (t) {
        int st = vm_run(p, t, NULL, NULL);
        rt_sim_counts(t, &s);
        t->vt->destroy(t);
        CHECK(st == 0 || ev.oom);
        if (st == 0) {
            CHECK(s.ops == p->n_insn && s.bytes == ev.len && count_lines(&ev) == s.events);
            CHECK(c.ops == 0 || c.events == s.events);
            check_jsonl(&ev);
        }
    }
    buf_fini(&ev);

    Buf b;
    buf_init(&b);
    bc_list(p, &(BcListOpts){ .lines = true, .header = true, .source = "fuzz.scb" }, &b);
    buf_reset(&b);
    bc_list(p, &(BcListOpts){ .lines = true }, &b);
    CHECK(b.oom || count_lines(&b) == p->n_insn);
    for (uint32_t i = 0; i < p->n_val; i++) {
        buf_reset(&b);
        bc_val_json(p, i, &b);
        if (!b.oom)
            check_json((const char *)b.data, b.len, false);
    }
    BcVal cfg = bc_val(p, p->meta.config), out;
    (void)bc_val_get(p, &cfg, "agent", &out);
    buf_fini(&b);
    if (lst)
        bc_list(p, &(BcListOpts){ .lines = true }, lst);
}

static BcLoadCtx *ctx;

static void ctx_free(void)
{
    bc_load_ctx_free(ctx);
    ctx = NULL;
}

/* A pass feeds the input to one loader and exercises what loads; it
** returns the loader's code.  armed: allocations may fail (see sweep); the
** pass then only loads and frees: a sweep repeats the pass once per
** allocation, and the loaders are what takes the untrusted bytes. */
static int pass_scb(const uint8_t *data, size_t size, bool armed)
{
    BcProgram *p = NULL;
    BcError e;
    BcErrCode code = bc_load(data, size, NULL, &p, &e);
    CHECK((code == BC_ERR_OK) == (p != NULL));
    if (armed) {
        bc_free(p);
        return code;
    }

    if (!ctx && (ctx = bc_load_ctx_new()))
        atexit(ctx_free);
    if (ctx) {
        BcProgram *q = NULL;
        BcError f;
        BcErrCode code2 = bc_load_with(ctx, data, size, NULL, &q, &f);
        CHECK(code2 == code && (code2 == BC_ERR_OK) == (q != NULL));
        CHECK(code == BC_ERR_OK || strcmp(e.msg, f.msg) == 0);
        bc_free(q);
    }
    if (!p)
        return code;
    Buf a, b;
    buf_init(&a);
    buf_init(&b);
    exercise(p, &a);
    /* The payload alone loads, under the header's version and flags, to the
    ** same program: bc_load is bc_unwrap + bc_load_payload. */
    unsigned char *pl = NULL;
    size_t n = 0;
    BcErrCode c1 = bc_unwrap(data, size, &pl, &n, NULL);
    CHECK(c1 == BC_ERR_OK || c1 == BC_ERR_NOMEM);
    if (c1 == BC_ERR_OK) {
        BcProgram *q = NULL;
        BcErrCode c2 = bc_load_payload(pl, n, p->version_major, p->version_minor, p->flags,
                                       NULL, &q, NULL);
        CHECK(c2 == BC_ERR_OK || c2 == BC_ERR_NOMEM);
        if (q) {
            bc_list(q, &(BcListOpts){ .lines = true }, &b);
            CHECK(a.oom || b.oom || (a.len == b.len && memcmp(a.data, b.data, a.len) == 0));
        }
        bc_free(q);
        sc_free(pl);
    }
    buf_fini(&a);
    buf_fini(&b);
    bc_free(p);
    return code;
}

/* The input as a bare payload: as 1.1 with the lines and dictionary flags,
** or as 1.0 with none. */
static int pass_payload(const uint8_t *data, size_t size, uint16_t minor, uint32_t flags,
                        bool armed)
{
    BcProgram *p = NULL;
    BcErrCode code = bc_load_payload(data, size, 1, minor, flags, NULL, &p, NULL);
    CHECK((code == BC_ERR_OK) == (p != NULL));
    if (p && !armed)
        exercise(p, NULL);
    bc_free(p);
    return code;
}

static int pass_payload_lines(const uint8_t *data, size_t size, bool armed)
{
    return pass_payload(data, size, 1, BC_FLAG_LINES | BC_FLAG_DICT, armed);
}

static int pass_payload_plain(const uint8_t *data, size_t size, bool armed)
{
    return pass_payload(data, size, 0, 0, armed);
}

/* The same bytes loaded lazily (docs/pack.md section 5) agree with the
** eager load: the same judgement of container and index; then, entry by
** entry at first use, every entry of a pack that loaded eagerly verifies,
** and for one rejected as ENTRY (all blobs matched their hashes) the
** entries before it verify and it fails with the same codes and message. */
static void lazy_agrees(const uint8_t *data, size_t size, PackErrCode eager, const PackError *ee)
{
    Pack *lz = NULL;
    PackError le;
    PackLoadOpts lo = { .lazy = true };
    PackErrCode lc = pack_load(data, size, &lo, &lz, &le);
    CHECK((lc == PACK_ERR_OK) == (lz != NULL));
    if (lc == PACK_ERR_NOMEM || eager == PACK_ERR_NOMEM) {
        pack_free(lz);
        return;
    }
    if (eager == PACK_ERR_OK || eager == PACK_ERR_ENTRY || eager == PACK_ERR_BLOB)
        CHECK(lc == PACK_ERR_OK);
    else
        CHECK(lc == eager);
    for (uint32_t i = 0; lz && i < lz->n_entries; i++) {
        const BcProgram *prog = NULL;
        PackErrCode r = pack_entry_load(lz, i, &prog, &le);
        CHECK((r == PACK_ERR_OK) == (prog != NULL));
        if (r == PACK_ERR_NOMEM)
            break;
        if (eager == PACK_ERR_OK || (eager == PACK_ERR_ENTRY && (int32_t)i < ee->entry))
            CHECK(r == PACK_ERR_OK);
        if (eager == PACK_ERR_ENTRY && (int32_t)i == ee->entry)
            CHECK(r == PACK_ERR_ENTRY && le.bc_code == ee->bc_code && strcmp(le.msg, ee->msg) == 0);
        CHECK(r == PACK_ERR_OK || r == PACK_ERR_ENTRY || r == PACK_ERR_BLOB);
    }
    pack_free(lz);
}

static int pass_pack(const uint8_t *data, size_t size, bool armed)
{
    Pack *pk = NULL;
    PackError e;
    PackErrCode code = pack_load(data, size, NULL, &pk, &e);
    CHECK((code == PACK_ERR_OK) == (pk != NULL));
    if (!armed)
        lazy_agrees(data, size, code, &e);
    if (!pk || armed) {
        pack_free(pk);
        return code;
    }
    for (uint32_t i = 0; i < pk->n_entries; i++) {
        const PackEntry *en = &pk->entries[i];
        exercise(en->prog, NULL);
        CHECK(pack_find(pk, en->name) == (int32_t)i);   /* names are unique */
        /* an entry written out as a .scb (scvm extract) loads again */
        unsigned char *scb = NULL;
        size_t n = 0;
        if (pack_entry_scb(en, &scb, &n)) {
            BcProgram *p = NULL;
            BcErrCode c = bc_load(scb, n, NULL, &p, NULL);
            CHECK(c == BC_ERR_OK || c == BC_ERR_NOMEM);
            bc_free(p);
            sc_free(scb);
        }
    }
    pack_free(pk);
    return code;
}

/* The one loader (formats/suite.h) on what bc_load or pack_load accepted:
** every entry found by its name, prompt matching and selection in range. */
static int pass_suite(const uint8_t *data, size_t size, bool armed)
{
    Suite *s = suite_new();
    if (!s)
        return SC_RUNTIME;
    SuiteErr e;
    int st = suite_add_memory(s, data, size, "fuzz", &e);
    if (!st && !armed) {
        uint32_t n = suite_count(s);
        for (uint32_t i = 0; i < n; i++)
            CHECK(suite_find(s, suite_entry(s, i)->name) == (int32_t)i);
        size_t dist;
        int32_t best = suite_best_prompt(s, NULL, 0, "fix the failing test", 20, &dist);
        CHECK(best >= 0 && (uint32_t)best < n);
        const char *tags[] = { "smoke" };
        SuiteQuery q = { .tags = tags, .n_tags = 1, .shard_i = 2, .shard_n = 3 };
        uint32_t *sel = NULL;
        size_t m = 0;
        if (suite_select(s, &q, &sel, &m, &e) == 0)
            for (size_t k = 0; k < m; k++)
                CHECK(sel[k] < n && (k == 0 || sel[k] > sel[k - 1]));
        sc_free(sel);
    }
    suite_free(s);
    return st;
}

typedef int (*Pass)(const uint8_t *data, size_t size, bool armed);

/* Out of memory at each allocation in turn: for N = 1, 2, ... the Nth
** allocation of the pass fails, and every later one, until a pass runs
** without a failure (a probe allocation afterwards succeeds).  Each pass
** must end as the unarmed one did (want) or with out of memory (nomem),
** and free everything (LeakSanitizer).  Deterministic: sc_alloc counts
** allocations, not bytes or time.  Only for inputs that load: a rejected
** input allocates a prefix of what some loading one does.  Sweeping every
** input, playback included, made the fuzzer six times slower (5,500 runs/s
** against 35,000); this way it costs next to nothing. */
static void sweep(Pass pass, const uint8_t *data, size_t size, int want, int nomem)
{
    if (want != 0)   /* BC_ERR_OK, PACK_ERR_OK */
        return;
    for (unsigned long k = 1;; k++) {
        sc_alloc_reset();
        sc_alloc_fail_after = k;
        int got = pass(data, size, true);
        void *probe = sc_malloc(1);
        sc_alloc_fail_after = 0;
        sc_free(probe);
        CHECK(got == want || (got == nomem && !probe));
        if (probe)
            return;
    }
}

static int run(Pass pass, const uint8_t *data, size_t size, int nomem)
{
    int code = pass(data, size, false);
    /* Not armed, nothing runs out of memory: every size is bounded before
    ** it is allocated, and the bounds (256 MiB, 1 GiB) fit in the fuzzer's
    ** -rss_limit_mb=2048.  NOMEM here is another error misreported. */
    CHECK(code != nomem);
    sweep(pass, data, size, code, nomem);
    return code;
}

/* The input with the header's XXH64 (at 32, over the bytes from skip on)
** corrected, through pass. */
static void with_checksum_fixed(Pass pass, const uint8_t *data, size_t size, size_t skip,
                                int nomem)
{
    unsigned char *d = malloc(size);
    if (!d)
        return;
    memcpy(d, data, size);
    uint64_t h = XXH64(d + skip, size - skip, 0);
    for (int i = 0; i < 8; i++)
        d[32 + i] = (unsigned char)(h >> (8 * i));
    (void)run(pass, d, size, nomem);
    free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int scb = run(pass_scb, data, size, BC_ERR_NOMEM);
    if (scb == BC_ERR_CHECKSUM)
        with_checksum_fixed(pass_scb, data, size, BC_HEADER_SIZE, BC_ERR_NOMEM);
    /* LINES is present iff its flag is set: at most one of these loads */
    int lines = run(pass_payload_lines, data, size, BC_ERR_NOMEM);
    int plain = run(pass_payload_plain, data, size, BC_ERR_NOMEM);
    CHECK(lines != BC_ERR_OK || plain != BC_ERR_OK);
    int pack = run(pass_pack, data, size, PACK_ERR_NOMEM);
    if (pack == PACK_ERR_CHECKSUM)
        with_checksum_fixed(pass_pack, data, size, PACK_HEADER_SIZE, PACK_ERR_NOMEM);
    /* the one loader accepts exactly what one of the two accepts */
    if (scb == BC_ERR_OK || pack == PACK_ERR_OK)
        CHECK(run(pass_suite, data, size, SC_RUNTIME) == 0);
    return 0;
}
