/* SPDX-License-Identifier: MIT */
/* t_robust.c - hostile input: for several built files, every truncation and
** several single-byte changes of the file, then the same of the payload
** re-wrapped in a valid container (so the damage reaches the section table
** and the verifier instead of stopping at the checksum), then seeded random
** multi-byte damage.  Each must load or be rejected cleanly; run under ASan
** and UBSan in the sanitizer build.  Whatever loads is listed and its values
** printed, so "accepted" really means "safe to use". */
#include <stdlib.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "tf.h"

static unsigned long n_ok, n_rejected;
static unsigned long by_code[BC_ERR_NOMEM + 1];

/* Uses everything a loaded program offers. */
static void exercise(const BcProgram *p)
{
    Buf b;
    buf_init(&b);
    bc_list(p, &(BcListOpts){ .lines = true, .header = true, .source = "x" }, &b);
    for (uint32_t i = 0; i < p->n_val; i++) {
        bc_val_json(p, i, &b);
        BcVal v = bc_val(p, i), k, out;
        if (v.tag == BC_V_MAP && v.n > 0) {
            bc_val_decode(p, v.p, &k);
            CHECK(k.tag == BC_V_STR && k.n < p->n_str);
            if (!memchr(p->str[k.n].s, 0, p->str[k.n].len))
                CHECK(bc_val_get(p, &v, p->str[k.n].s, &out));
            bc_val_get(p, &v, "\x01no such key", &out);
        }
    }
    for (uint32_t i = 0; i < p->n_str; i++)
        CHECK(p->str[i].s[p->str[i].len] == 0);
    CHECK(p->n_insn > 0 && p->insn[p->n_insn - 1].op == OP_END);
    CHECK(!b.oom);
    buf_fini(&b);
}

static BcErrCode try_load(const unsigned char *d, size_t n)
{
    BcProgram *p = NULL;
    BcError err;
    BcErrCode e = bc_load(d, n, NULL, &p, &err);
    if (e == BC_ERR_OK) {
        CHECK(p != NULL);
        if (p)
            exercise(p);
        bc_free(p);
        n_ok++;
    } else {
        CHECK(p == NULL && err.code == e && err.msg[0]);
        CHECKF(e != BC_ERR_NOMEM, "%s", err.msg);   /* no allocation may fail here */
        n_rejected++;
        if ((unsigned)e <= BC_ERR_NOMEM)
            by_code[e]++;
    }
    return e;
}

/* The file itself: the header is checked field by field and the frame is
** covered by XXH64, so every change and every truncation must be rejected. */
static void file_level(const unsigned char *f, size_t len)
{
    unsigned char *m = malloc(len);
    static const unsigned char flips[] = { 0xff, 0x01, 0x80, 0x10 };
    CHECK(try_load(f, len) == BC_ERR_OK);
    for (size_t k = 0; k < len; k++)
        CHECKF(try_load(f, k) != BC_ERR_OK, "truncation to %zu loaded", k);
    for (size_t i = 0; i < len; i++) {
        for (size_t j = 0; j < sizeof flips; j++) {
            memcpy(m, f, len);
            m[i] ^= flips[j];
            CHECKF(try_load(m, len) != BC_ERR_OK, "byte %zu ^ %02x loaded", i, flips[j]);
        }
    }
    free(m);
}

static void wrapped(const unsigned char *pl, size_t n, uint32_t flags)
{
    size_t len;
    unsigned char *f = tf_wrap(pl, n, flags, &len);
    try_load(f, len);
    free(f);
}

/* The payload, damaged and re-wrapped: this is what exercises the verifier. */
static void payload_level(const unsigned char *f, size_t len)
{
    size_t n;
    unsigned char *pl = tf_unwrap(f, len, &n);
    CHECK(pl != NULL);
    if (!pl)
        return;
    uint32_t flags = rd_u32le(f + 12);
    unsigned char *m = malloc(n);
    for (size_t k = 1; k < n; k++) {      /* every section ends where the payload does */
        size_t len2;
        unsigned char *w = tf_wrap(pl, k, flags, &len2);
        CHECKF(try_load(w, len2) != BC_ERR_OK, "payload truncated to %zu loaded", k);
        free(w);
    }
    for (size_t i = 0; i < n; i++) {
        static const struct { unsigned char x, set; } mut[] = {
            { 0xff, 0 }, { 0x01, 0 }, { 0x80, 0 }, { 0x00, 1 }, { 0x7f, 1 },
        };
        for (size_t j = 0; j < sizeof mut / sizeof mut[0]; j++) {
            memcpy(m, pl, n);
            m[i] = mut[j].set ? mut[j].x : m[i] ^ mut[j].x;
            wrapped(m, n, flags);
        }
    }
    /* seeded random damage: 1-4 bytes at once (xorshift: fixed, reproducible) */
    uint64_t s = 0x9e3779b97f4a7c15u ^ n;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(m, pl, n);
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int k = 1 + (int)(s % 4);
        for (int c = 0; c < k; c++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            m[(s >> 8) % n] = (unsigned char)(s >> 40);
        }
        wrapped(m, n, flags);
    }
    free(m);
    free(pl);
}

int main(void)
{
    static const struct { int variant; bool strip; } files[] = {
        { 0, false }, { 1, false }, { 2, true },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t len;
        unsigned char *f = tf_sample_file(files[i].variant, files[i].strip, &len);
        CHECK(f != NULL);
        if (!f)
            continue;
        file_level(f, len);
        payload_level(f, len);
        sc_free(f);
    }
    /* the damage must both pass and fail, and reach every stage of the verifier */
    CHECK(n_ok > 100 && n_rejected > 1000);
    static const BcErrCode reached[] = { BC_ERR_TRUNCATED, BC_ERR_CHECKSUM, BC_ERR_SECTION,
                                         BC_ERR_STRINGS, BC_ERR_VALUES, BC_ERR_CODE,
                                         BC_ERR_LINES, BC_ERR_META };
    for (size_t i = 0; i < sizeof reached / sizeof reached[0]; i++)
        CHECKF(by_code[reached[i]] > 0, "no input rejected with %s", bc_err_name(reached[i]));
    printf("t_robust: %lu loaded, %lu rejected\n", n_ok, n_rejected);
    return tf_result("t_robust");
}
