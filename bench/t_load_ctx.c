/* SPDX-License-Identifier: MIT */
/* t_load_ctx.c - bc_load_with / bc_load_file_with through one BcLoadCtx
** give exactly what bc_load / bc_load_file give: the same program for good
** input, the same error code and message for bad input, again and again
** (the context's state must not leak from one load into the next), and
** programs that outlive the context.
**
**   bench_t_load_ctx [FILE.scb...]   extra files to compare and to corrupt */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "formats/bc.h"
#include "common/sc_alloc.h"
#include "formats/bc_write.h"

#include "tests/check.h"

/* A small program: n STATUS/THINK ops with distinct strings. */
static unsigned char *build(int n, size_t *len)
{
    BcBuilder *b = bcb_new();
    char s[64];
    for (int i = 0; i < n; i++) {
        snprintf(s, sizeof s, "step %d of %d", i, n);
        bcb_op(b, i % 2 ? OP_THINK : OP_STATUS, (uint64_t)i * 10, (uint32_t)i + 1, 1, bcb_cstr(b, s));
    }
    unsigned char *out = NULL;
    if (!bcb_finish(b, NULL, &out, len))
        exit(2);
    bcb_free(b);
    return out;
}

static bool same_program(const BcProgram *a, const BcProgram *b)
{
    if (a->n_insn != b->n_insn || a->n_str != b->n_str || a->n_val != b->n_val ||
        a->content_size != b->content_size || a->checksum != b->checksum ||
        memcmp(&a->meta, &b->meta, sizeof a->meta) != 0)
        return false;
    for (uint32_t i = 0; i < a->n_insn; i++)
        if (memcmp(&a->insn[i], &b->insn[i], sizeof a->insn[i]) != 0)
            return false;
    for (uint32_t i = 0; i < a->n_str; i++)
        if (a->str[i].len != b->str[i].len || memcmp(a->str[i].s, b->str[i].s, a->str[i].len) != 0)
            return false;
    return true;
}

/* One load of a file (path) or of bytes (d, n), through c or, with c
** NULL, through bc_load / bc_load_file. */
typedef struct Input {
    const char *path;
    const unsigned char *d;
    size_t n;
} Input;

static BcErrCode load(BcLoadCtx *c, const Input *in, BcProgram **p, BcError *e)
{
    if (in->path)
        return c ? bc_load_file_with(c, in->path, NULL, p, e) : bc_load_file(in->path, NULL, p, e);
    return c ? bc_load_with(c, in->d, in->n, NULL, p, e) : bc_load(in->d, in->n, NULL, p, e);
}

/* Loads in three ways and compares results (error or program): without a
** context (the loader's one spare zstd context, used by every load
** before), through the long-lived context c, and through a context new
** for this load. */
static void compare_in(BcLoadCtx *c, const Input *in)
{
    BcLoadCtx *fresh = bc_load_ctx_new();
    CHECK(fresh != NULL);
    if (!fresh)
        return;
    BcProgram *p[3] = { NULL, NULL, NULL };
    BcError e[3];
    BcErrCode r[3] = { load(NULL, in, &p[0], &e[0]), load(c, in, &p[1], &e[1]),
                       load(fresh, in, &p[2], &e[2]) };
    bc_load_ctx_free(fresh);
    for (int k = 1; k < 3; k++) {
        CHECK(r[k] == r[0]);
        CHECK(e[k].code == e[0].code && strcmp(e[k].msg, e[0].msg) == 0);
        CHECK((p[k] == NULL) == (p[0] == NULL));
        if (p[k] && p[0])
            CHECK(same_program(p[k], p[0]));
    }
    for (int k = 0; k < 3; k++)
        bc_free(p[k]);
}

static void compare(BcLoadCtx *c, const unsigned char *d, size_t n)
{
    compare_in(c, &(Input){ NULL, d, n });
}

static void compare_file(BcLoadCtx *c, const char *path)
{
    compare_in(c, &(Input){ path, NULL, 0 });
}

/* d with byte k flipped by x and the header's checksum fixed, so the
** corrupt frame reaches zstd: into m (n bytes). */
static void corrupt(const unsigned char *d, size_t n, size_t k, unsigned char x, unsigned char *m)
{
    memcpy(m, d, n);
    m[k] ^= x;
    uint64_t h = XXH64(m + 40, n - 40, 0);
    for (int i = 0; i < 8; i++)
        m[32 + i] = (unsigned char)(h >> (8 * i));
}

static const unsigned char flips[] = { 0x01, 0x5a, 0xff };

/* Every byte of the frame changed three ways; before each, the good file
** warms the context (zstd's reused state once decided what it accepted). */
static void sweep(BcLoadCtx *c, const unsigned char *d, size_t n)
{
    unsigned char *m = malloc(n);
    CHECK(m != NULL);
    for (size_t k = 40; m && k < n; k++)
        for (size_t x = 0; x < sizeof flips; x++) {
            corrupt(d, n, k, flips[x], m);
            compare(c, d, n);
            compare(c, m, n);
        }
    free(m);
}

/* Frames without the dictionary, each corrupted as above, after a good
** and after a failed frame with it: nothing of its use carries over. */
static void sweep_plain(BcLoadCtx *c, const unsigned char *plain, size_t pn,
                        const unsigned char *dict, size_t dn)
{
    unsigned char *m = malloc(pn), *bad = malloc(dn);
    CHECK(m && bad);
    for (size_t k = 40; m && bad && k < pn; k++)
        for (size_t x = 0; x < sizeof flips; x++) {
            corrupt(plain, pn, k, flips[x], m);
            corrupt(dict, dn, 40 + k % (dn - 40), flips[x], bad);
            compare(c, dict, dn);
            compare(c, m, pn);
            compare(c, bad, dn);
            compare(c, m, pn);
        }
    free(m);
    free(bad);
}

static void sweep_file(BcLoadCtx *c, const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
        return;
    unsigned char *d = malloc(1 << 20);
    size_t n = d ? fread(d, 1, 1 << 20, f) : 0;
    fclose(f);
    CHECK(n > 40);
    if (n > 40)
        sweep(c, d, n);
    free(d);
}

/* d's payload in a frame without the built-in dictionary (bc_wrap). */
static unsigned char *without_dict(const unsigned char *d, size_t n, size_t *len)
{
    unsigned char *pl, *out = NULL;
    size_t pn;
    const char *why;
    uint32_t flags = (uint32_t)d[12] | (uint32_t)d[13] << 8 | (uint32_t)d[14] << 16 |
                     (uint32_t)d[15] << 24;
    if (bc_unwrap(d, n, &pl, &pn, NULL) != BC_ERR_OK)
        exit(2);
    if (!bc_wrap(pl, pn, BC_VERSION_MAJOR, BC_VERSION_MINOR, flags & ~(uint32_t)BC_FLAG_DICT, 0,
                 &out, len, &why))
        exit(2);
    sc_free(pl);
    CHECK(!(out[12] & BC_FLAG_DICT));
    return out;
}

int main(int argc, char **argv)
{
    BcLoadCtx *c = bc_load_ctx_new();
    CHECK(c != NULL);
    size_t n_small, n_big;
    unsigned char *small = build(3, &n_small), *big = build(5000, &n_big);

    /* good, then every truncation and a flipped byte in the frame, then
    ** good again: a failed decompression must not poison the context */
    for (int round = 0; round < 2; round++) {
        compare(c, small, n_small);
        compare(c, big, n_big);
        for (size_t k = 0; k < n_small; k++)
            compare(c, small, k);
        for (size_t k = 0; k < n_big; k += n_big / 97 + 1) {
            big[k] ^= 0x5a;
            compare(c, big, n_big);
            big[k] ^= 0x5a;
        }
    }

    /* files: a small one after a big one reuses the grown buffer */
    char dir[] = "/tmp/bench_t_load_ctx.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char pbig[64], psmall[64], pnone[64];
    snprintf(pbig, sizeof pbig, "%s/big.scb", dir);
    snprintf(psmall, sizeof psmall, "%s/small.scb", dir);
    snprintf(pnone, sizeof pnone, "%s/missing.scb", dir);
    FILE *f = fopen(pbig, "wb");
    CHECK(f && fwrite(big, 1, n_big, f) == n_big && fclose(f) == 0);
    f = fopen(psmall, "wb");
    CHECK(f && fwrite(small, 1, n_small, f) == n_small && fclose(f) == 0);
    compare_file(c, pbig);
    compare_file(c, psmall);
    compare_file(c, pnone);
    compare_file(c, dir);            /* a directory: IO, as bc_load_file says */
    compare_file(c, pbig);
    for (int i = 1; i < argc; i++)
        compare_file(c, argv[i]);

    /* corrupt frames that pass the checksum: the built-in dictionary's,
    ** and frames without it among them */
    sweep(c, small, n_small);
    size_t n_plain;
    unsigned char *plain = without_dict(small, n_small, &n_plain);
    sweep_plain(c, plain, n_plain, small, n_small);
    for (int i = 1; i < argc; i++)
        sweep_file(c, argv[i]);

    /* a program outlives the context that loaded it */
    BcProgram *p = NULL;
    CHECK(bc_load_file_with(c, psmall, NULL, &p, NULL) == BC_ERR_OK);
    bc_load_ctx_free(c);
    CHECK(p && p->n_insn == 4 && strcmp(p->str[p->insn[2].a[0]].s, "step 2 of 3") == 0);
    bc_free(p);
    CHECK(bc_load_with(NULL, small, n_small, NULL, &p, NULL) == BC_ERR_OK);
    bc_free(p);
    bc_load_ctx_free(NULL);

    unlink(pbig);
    unlink(psmall);
    rmdir(dir);
    free(small);
    free(big);
    sc_free(plain);
    if (failures)
        fprintf(stderr, "%d check(s) failed\n", failures);
    else
        puts("load_ctx: ok");
    return failures != 0;
}
