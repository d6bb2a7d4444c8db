/* SPDX-License-Identifier: MIT */
/* vm_unit.c - the VM library without the command line: time scaling, the
** dispatch contract (order, END, status propagation), the sinks, the
** real-time clock, out-of-memory paths, and hostile bytes under ASan.
**
** Usage: vm_unit [ALL_OPS.scb].  With the file (from vm_fixtures) it also
** loads every truncation and every single-bit flip of it and plays
** whatever loads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/bc_write.h"
#include "common/fileio.h"
#include "runtime/rt_clock.h"
#include "runtime/rt_sim.h"
#include "common/sc_alloc.h"
#include "vm/vm.h"
#include "tests/bc_plain_meta.h"
#include "tests/check.h"

static void test_scale(void)
{
    CHECK_U64(rt_clock_scale(0, 1.0), 0);
    CHECK_U64(rt_clock_scale(UINT64_MAX, 1.0), UINT64_MAX);  /* exact at 1 */
    CHECK_U64(rt_clock_scale(9007199254740993u, 1.0), 9007199254740993u);
    CHECK_U64(rt_clock_scale(1, 0.5), 1);        /* halves round away from zero */
    CHECK_U64(rt_clock_scale(3, 0.5), 2);
    CHECK_U64(rt_clock_scale(5, 0.5), 3);        /* not banker's rounding */
    CHECK_U64(rt_clock_scale(1000, 2.0), 2000);  /* > 1 is slower */
    CHECK_U64(rt_clock_scale(1000, 0.25), 250);  /* < 1 is faster */
    CHECK_U64(rt_clock_scale(50, 0.01), 1);
    CHECK_U64(rt_clock_scale(49, 0.01), 0);
    CHECK_U64(rt_clock_scale(1000, 0.001), 10);  /* clamped to 0.01 */
    CHECK_U64(rt_clock_scale(1000, 0.0), 10);
    CHECK_U64(rt_clock_scale(1000, -3.0), 10);
    CHECK_U64(rt_clock_scale(1000, NAN), 10);
    CHECK_U64(rt_clock_scale(UINT64_MAX, 2.0), UINT64_MAX);  /* saturates */
    CHECK_U64(rt_clock_scale(UINT64_MAX / 2, 1e300), UINT64_MAX);
    CHECK_U64(rt_clock_scale(1, INFINITY), UINT64_MAX);
    CHECK_U64(rt_clock_scale(0, INFINITY), 0);   /* the start is the start at any speed */
    /* Per op from the unscaled time: 3 x 1 ms at 0.5 is not 3 x 0.5 rounded up each. */
    CHECK_U64(rt_clock_scale(3, 0.5), 2);
}

/* ---- a recording target ---- */

typedef struct Rec {
    RtTarget base;
    int begins, ends, ops;
    uint64_t at[64];
    uint8_t op[64];
    int stop_at;            /* op index to return status at, or -1 */
    int begin_status, op_status, end_status;
} Rec;

static int rec_begin(RtTarget *t, const BcProgram *p)
{
    (void)p;
    Rec *r = (Rec *)t;
    r->begins++;
    return r->begin_status;
}

static int rec_op(RtTarget *t, const BcProgram *p, const BcInsn *in, uint64_t at_ms)
{
    (void)p;
    Rec *r = (Rec *)t;
    if (r->ops < 64) {
        r->at[r->ops] = at_ms;
        r->op[r->ops] = in->op;
    }
    return r->ops++ == r->stop_at ? r->op_status : 0;
}

static int rec_end(RtTarget *t, const BcProgram *p)
{
    (void)p;
    Rec *r = (Rec *)t;
    r->ends++;
    return r->end_status;
}

static const RtTargetVtbl rec_vt = { "rec", rec_begin, rec_op, rec_end, NULL };

static void rec_init(Rec *r)
{
    memset(r, 0, sizeof *r);
    r->base.vt = &rec_vt;
    r->stop_at = -1;
}

/* A clock that records the times it is asked to wait for. */
typedef struct RecClock {
    RtClock clock;
    int n;
    uint64_t at[64];
} RecClock;

static void rec_wait(RtClock *c, uint64_t at_ms)
{
    RecClock *r = (RecClock *)c;
    if (r->n < 64)
        r->at[r->n++] = at_ms;
}

static BcProgram *small_program(unsigned char **bytes)
{
    BcBuilder *b = bcb_new();
    CHECK(b != NULL);
    bc_plain_meta(b, "unit", "unit.yaml");
    CHECK(bcb_op(b, OP_STATUS, 0, 1, 1, bcb_cstr(b, "running")));
    CHECK(bcb_op(b, OP_LLM_BEGIN, 3, 2, 1, bcb_null(b)));
    CHECK(bcb_op(b, OP_THINK, 3, 3, 1, bcb_cstr(b, "a")));
    CHECK(bcb_op(b, OP_THINK, 5, 4, 1, bcb_cstr(b, "bb")));
    CHECK(bcb_op(b, OP_FILE_EDIT, 1000, 5, 1, bcb_cstr(b, "f"), 7u, 8u));
    size_t len = 0;
    CHECK(bcb_finish(b, NULL, bytes, &len));
    bcb_free(b);
    BcProgram *p = NULL;
    BcError err;
    CHECK(bc_load(*bytes, len, NULL, &p, &err) == BC_ERR_OK);
    return p;
}

static void test_dispatch(void)
{
    unsigned char *bytes = NULL;
    BcProgram *p = small_program(&bytes);
    if (!p) {
        sc_free(bytes);
        return;
    }
    CHECK_U64(p->n_insn, 6);    /* END appended */

    Rec r;
    RecClock c = { { rec_wait }, 0, { 0 } };
    rec_init(&r);
    VmOpts o = { .speed = 0.5 };
    CHECK(vm_run(p, &r.base, &c.clock, &o) == 0);
    CHECK(r.begins == 1 && r.ends == 1);
    CHECK_U64(r.ops, 6);        /* END is delivered, then the loop stops */
    CHECK(r.op[5] == OP_END);
    static const uint64_t want[] = { 0, 2, 2, 3, 500, 500 };
    for (int i = 0; i < 6; i++) {
        CHECK_U64(r.at[i], want[i]);
        CHECK_U64(c.at[i], want[i]);   /* the clock is asked before each op */
    }

    /* NULL clock and opts: virtual, speed 1. */
    rec_init(&r);
    CHECK(vm_run(p, &r.base, NULL, NULL) == 0);
    CHECK_U64(r.at[4], 1000);

    /* A failing begin: no ops, no end. */
    rec_init(&r);
    r.begin_status = 5;
    CHECK(vm_run(p, &r.base, NULL, NULL) == 5);
    CHECK(r.ops == 0 && r.ends == 0);

    /* An op that stops the run: end still runs, the op's status wins. */
    rec_init(&r);
    r.stop_at = 2;
    r.op_status = 1;
    r.end_status = 3;
    CHECK(vm_run(p, &r.base, NULL, NULL) == 1);
    CHECK(r.ops == 3 && r.ends == 1);

    /* end's status when every op succeeded. */
    rec_init(&r);
    r.end_status = 3;
    CHECK(vm_run(p, &r.base, NULL, NULL) == 3);

    /* Counting sink: 6 ops, 4 events (LLM_BEGIN and END are silent), and
    ** the bytes of the events' string operands: "running" "a" "bb" "f". */
    RtTarget *t = rt_count_new();
    CHECK(t != NULL);
    if (t) {
        CHECK(vm_run(p, t, NULL, NULL) == 0);
        RtCounts n;
        rt_count_counts(t, &n);
        CHECK_U64(n.ops, 6);
        CHECK_U64(n.events, 4);
        CHECK_U64(n.bytes, 7 + 1 + 2 + 1);
        t->vt->destroy(t);
    }

    /* Sim into memory, into a stream, and discarded: same bytes, same counts. */
    static const char want_text[] =
        "{\"at_ms\":0,\"kind\":\"status\",\"value\":\"running\"}\n"
        "{\"at_ms\":3,\"kind\":\"thinking\",\"text\":\"a\"}\n"
        "{\"at_ms\":5,\"kind\":\"thinking\",\"text\":\"bb\"}\n"
        "{\"at_ms\":1000,\"kind\":\"file_edit\",\"path\":\"f\",\"lines_added\":7,\"lines_removed\":8}\n";
    Buf mem;
    buf_init(&mem);
    RtSimOpts so = { .mem = &mem };
    t = rt_sim_new(&so);
    CHECK(t != NULL);
    if (t) {
        CHECK(vm_run(p, t, NULL, NULL) == 0);
        CHECK(mem.len == sizeof want_text - 1 && memcmp(mem.data, want_text, mem.len) == 0);
        RtCounts n;
        rt_sim_counts(t, &n);
        CHECK_U64(n.ops, 6);
        CHECK_U64(n.events, 4);
        CHECK_U64(n.bytes, sizeof want_text - 1);
        t->vt->destroy(t);
    }
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        so = (RtSimOpts){ .out = f, .line_flush = true };
        t = rt_sim_new(&so);
        CHECK(t && vm_run(p, t, NULL, NULL) == 0);
        if (t)
            t->vt->destroy(t);
        char back[512];
        rewind(f);
        size_t got = fread(back, 1, sizeof back, f);
        CHECK(got == sizeof want_text - 1 && memcmp(back, want_text, got) == 0);
        fclose(f);
    }
    t = rt_sim_new(NULL);
    CHECK(t != NULL);
    if (t) {
        CHECK(vm_run(p, t, NULL, NULL) == 0);
        RtCounts n;
        rt_sim_counts(t, &n);
        CHECK_U64(n.bytes, sizeof want_text - 1);
        t->vt->destroy(t);
    }

    /* A stream that cannot be written: SC_IO and the errno. */
    f = fopen("/dev/full", "w");
    if (f) {
        so = (RtSimOpts){ .out = f };
        t = rt_sim_new(&so);
        CHECK(t && vm_run(p, t, NULL, NULL) == SC_IO);
        if (t) {
            CHECK(rt_sim_errno(t) != 0);
            t->vt->destroy(t);
        }
        fclose(f);
    }

    /* Scenarios gathered and written together (rt_sim_batch_write):
    ** nothing written below RT_SIM_BATCH bytes unless all, then all of it
    ** in one piece, the batch emptied; a failed write is its errno. */
    f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        Buf batch;
        buf_init(&batch);
        so = (RtSimOpts){ .mem = &batch };
        t = rt_sim_new(&so);
        CHECK(t != NULL);
        size_t plays = 0, written = 0;
        struct stat st;
        while (t && batch.len < RT_SIM_BATCH) {
            CHECK(vm_run(p, t, NULL, NULL) == 0);
            plays++;
            if (batch.len < RT_SIM_BATCH) {
                CHECK(rt_sim_batch_write(&batch, f, false) == 0);
                CHECK(batch.len == plays * (sizeof want_text - 1));   /* kept */
            }
        }
        CHECK(fstat(fileno(f), &st) == 0 && st.st_size == 0);
        CHECK(rt_sim_batch_write(&batch, f, false) == 0);           /* over the mark: written */
        written = plays * (sizeof want_text - 1);
        CHECK(batch.len == 0);
        CHECK(fstat(fileno(f), &st) == 0 && (size_t)st.st_size == written);   /* not left in stdio */
        CHECK(t && vm_run(p, t, NULL, NULL) == 0);
        CHECK(rt_sim_batch_write(&batch, f, false) == 0 && batch.len == sizeof want_text - 1);
        CHECK(rt_sim_batch_write(&batch, f, true) == 0 && batch.len == 0);    /* the rest */
        written += sizeof want_text - 1;
        CHECK(fstat(fileno(f), &st) == 0 && (size_t)st.st_size == written);
        char back[sizeof want_text];
        CHECK(pread(fileno(f), back, sizeof want_text - 1, (off_t)(written - (sizeof want_text - 1))) ==
              (ssize_t)(sizeof want_text - 1));
        CHECK(memcmp(back, want_text, sizeof want_text - 1) == 0);
        CHECK(rt_sim_batch_write(&batch, f, true) == 0);            /* empty: nothing to do */
        fclose(f);
        FILE *full = fopen("/dev/full", "w");
        if (full && t) {
            CHECK(vm_run(p, t, NULL, NULL) == 0);
            CHECK(rt_sim_batch_write(&batch, full, true) == ENOSPC && batch.len == 0);
            fclose(full);
        }
        if (t)
            t->vt->destroy(t);
        buf_fini(&batch);
    }

    /* Out of memory at every allocation: a clean status, never a crash. */
    for (unsigned long k = 1; k < 50; k++) {
        buf_reset(&mem);
        mem.oom = false;
        so = (RtSimOpts){ .mem = &mem };
        sc_alloc_fail_after = k;
        t = rt_sim_new(&so);
        int st = -1;
        if (t) {
            st = vm_run(p, t, NULL, NULL);
            t->vt->destroy(t);
        }
        sc_alloc_fail_after = 0;
        CHECK(st == -1 || st == 0 || st == SC_RUNTIME);
    }
    buf_fini(&mem);

    bc_free(p);
    sc_free(bytes);
}

static void test_realtime(void)
{
    RtRealClock c;
    rt_clock_realtime_init(&c);
    c.clock.wait_until(&c.clock, 30);
    CHECK(rt_clock_realtime_elapsed_ms(&c) >= 30);
    /* A time already past returns at once (no upper bound is asserted:
    ** only "not early" is robust on a loaded machine). */
    c.clock.wait_until(&c.clock, 0);
    /* The virtual clock never waits. */
    rt_clock_virtual()->wait_until(rt_clock_virtual(), UINT64_MAX);
}

/* Every truncation and every bit flip of a real file: loads or is rejected,
** and whatever loads plays.  The interesting part runs under ASan. */
static void test_hostile(const char *path)
{
    char *data = NULL;
    size_t len = 0;
    if (file_read_all(path, 1 << 24, &data, &len) != 0) {
        fprintf(stderr, "cannot read %s\n", path);
        failures++;
        return;
    }
    unsigned char *copy = sc_malloc(len + 1);
    RtTarget *t = rt_sim_new(NULL);
    CHECK(copy && t);
    unsigned loaded = 0;
    for (size_t n = 0; copy && t && n <= len; n++) {
        memcpy(copy, data, n);
        BcProgram *p = NULL;
        BcError err;
        if (bc_load(copy, n, NULL, &p, &err) == BC_ERR_OK) {
            CHECK(n == len);
            CHECK(vm_run(p, t, NULL, NULL) == 0);
            bc_free(p);
        }
    }
    for (size_t i = 0; copy && t && i < len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            memcpy(copy, data, len);
            copy[i] ^= (unsigned char)(1u << bit);
            BcProgram *p = NULL;
            BcError err;
            if (bc_load(copy, len, NULL, &p, &err) == BC_ERR_OK) {
                loaded++;
                CHECK(vm_run(p, t, NULL, NULL) == 0);
                bc_free(p);
            } else {
                CHECK(err.code != BC_ERR_OK);
            }
        }
    }
    if (loaded)
        printf("hostile: %u single-bit flips still load (and play)\n", loaded);
    if (t)
        t->vt->destroy(t);
    sc_free(copy);
    sc_free(data);
}

int main(int argc, char **argv)
{
    test_scale();
    test_dispatch();
    test_realtime();
    if (argc > 1)
        test_hostile(argv[1]);
    if (failures) {
        fprintf(stderr, "vm_unit: %d check(s) failed\n", failures);
        return 1;
    }
    puts("vm_unit: ok");
    return 0;
}
