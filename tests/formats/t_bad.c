/* SPDX-License-Identifier: MIT */
/* t_bad.c - bad bytecode, one case per reason, each asserting the exact
** error code.  Cases start from one small valid payload and damage exactly
** one thing, so a case that loads (or fails for another reason) shows up. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/sc_alloc.h"
#include "formats/bc_write.h"
#include "tf.h"
#include "common/utf8.h"

#define A(...) (const unsigned char[]){ __VA_ARGS__ }, sizeof((const unsigned char[]){ __VA_ARGS__ })

typedef struct Bytes {
    const unsigned char *p;
    size_t n;
} Bytes;

/* The base program: strings "name","x"; values null, [], {}; STATUS "x"; END. */
static Bytes base[6];

static void init_base(void)
{
    static const unsigned char str[] = { 2, 4, 'n', 'a', 'm', 'e', 1, 'x' };
    static const unsigned char val[] = { 3, BC_V_NULL, BC_V_ARRAY, 0, BC_V_MAP, 0 };
    static const unsigned char code[] = { 2, OP_STATUS, 0, 1, OP_END, 5 };
    static const unsigned char lines[] = { 2, 2, 1, 2, 0 };
    static const unsigned char meta[] = { 0, 1, 0, 1, 2, 2, 80, 24 };
    base[BC_SEC_STRINGS] = (Bytes){ str, sizeof str };
    base[BC_SEC_VALUES] = (Bytes){ val, sizeof val };
    base[BC_SEC_CODE] = (Bytes){ code, sizeof code };
    base[BC_SEC_LINES] = (Bytes){ lines, sizeof lines };
    base[BC_SEC_META] = (Bytes){ meta, sizeof meta };
}

/* A file from the base with up to two sections replaced. */
static unsigned char *file_with(uint32_t id1, const unsigned char *p1, size_t n1, uint32_t id2,
                                const unsigned char *p2, size_t n2, size_t *len)
{
    TfSec s[5];
    for (uint32_t id = 1; id <= 5; id++) {
        s[id - 1] = (TfSec){ id, base[id].p, base[id].n };
        if (id == id1)
            s[id - 1].p = p1, s[id - 1].n = n1;
        if (id == id2)
            s[id - 1].p = p2, s[id - 1].n = n2;
    }
    size_t pn;
    unsigned char *pl = tf_payload(s, 5, &pn);
    unsigned char *f = tf_wrap(pl, pn, BC_FLAG_LINES, len);
    free(pl);
    return f;
}

static void expect(const char *name, const unsigned char *f, size_t len, const BcLoadOpts *o,
                   BcErrCode want, const char *msg_part)
{
    BcProgram *p = (BcProgram *)1;
    BcError err;
    BcErrCode e = bc_load(f, len, o, &p, &err);
    CHECKF(e == want, "%s: got %s (%s), want %s", name, bc_err_name(e), err.msg,
              bc_err_name(want));
    CHECKF(err.code == e, "%s", name);
    CHECKF(e == BC_ERR_OK ? p != NULL : p == NULL, "%s", name);
    CHECKF(e == BC_ERR_OK || err.msg[0], "%s: empty message", name);
    if (msg_part)
        CHECKF(strstr(err.msg, msg_part), "%s: message '%s' lacks '%s'", name, err.msg, msg_part);
    if (e == BC_ERR_OK)
        bc_free(p);
}

/* One section replaced. */
#define SEC(name, id, want, msg, ...)                                                   \
    do {                                                                                \
        size_t len_;                                                                    \
        unsigned char *f_ = file_with(id, A(__VA_ARGS__), 0, NULL, 0, &len_);           \
        expect(name, f_, len_, NULL, want, msg);                                        \
        free(f_);                                                                       \
    } while (0)

static void fix_header(unsigned char *f, size_t len)
{
    uint64_t fs = len - BC_HEADER_SIZE, h = XXH64(f + BC_HEADER_SIZE, fs, 0);
    for (int i = 0; i < 8; i++) {
        f[24 + i] = (unsigned char)(fs >> (8 * i));
        f[32 + i] = (unsigned char)(h >> (8 * i));
    }
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void test_container(void)
{
    size_t len;
    unsigned char *good = file_with(0, NULL, 0, 0, NULL, 0, &len);
    unsigned char *f = malloc(2 * len);
#define FRESH() memcpy(f, good, len)
    expect("base", good, len, NULL, BC_ERR_OK, NULL);

    expect("shorter than header", good, 39, NULL, BC_ERR_TRUNCATED, "39 bytes");
    expect("empty", good, 0, NULL, BC_ERR_TRUNCATED, NULL);
    expect("frame cut short", good, len - 1, NULL, BC_ERR_TRUNCATED, NULL);

    FRESH(); f[0] ^= 0xff;
    expect("magic", f, len, NULL, BC_ERR_MAGIC, NULL);
    FRESH(); memmove(f + 5, f + 6, len - 6);                 /* text mode: \r\n -> \n */
    expect("magic text mode", f, len - 1, NULL, BC_ERR_MAGIC, NULL);

    FRESH(); f[8] = 2;
    expect("major 2", f, len, NULL, BC_ERR_VERSION, "version 2.");
    FRESH(); f[8] = 0;
    expect("major 0", f, len, NULL, BC_ERR_VERSION, NULL);
    FRESH(); f[10] = BC_VERSION_MINOR + 1;
    expect("newer minor", f, len, NULL, BC_ERR_VERSION, "1.3");
    FRESH(); f[10] = 0;
    expect("older minor", f, len, NULL, BC_ERR_OK, NULL);

    FRESH(); f[12] |= 4;
    expect("flag bit 2", f, len, NULL, BC_ERR_FLAGS, "0x4");
    FRESH(); f[10] = 0; f[12] |= BC_FLAG_DICT;
    expect("dictionary flag in 1.0", f, len, NULL, BC_ERR_FLAGS, "dictionary");
    FRESH(); f[15] |= 0x80;
    expect("flag bit 31", f, len, NULL, BC_ERR_FLAGS, NULL);

    FRESH(); put_u64(f + 16, 0);
    expect("content size 0", f, len, NULL, BC_ERR_SIZE, NULL);
    FRESH(); put_u64(f + 16, (uint64_t)1 << 40);
    expect("content size huge", f, len, NULL, BC_ERR_SIZE, NULL);
    /* max_content can lower the limit, not raise it */
    FRESH(); put_u64(f + 16, (uint64_t)BC_MAX_CONTENT + 1);
    expect("content over BC_MAX_CONTENT, max_content larger", f, len,
           &(BcLoadOpts){ .max_content = (uint64_t)1 << 40 }, BC_ERR_SIZE, "1..268435456");
    expect("content over max_content", good, len, &(BcLoadOpts){ .max_content = 20 }, BC_ERR_SIZE,
           NULL);
    FRESH(); f[len] = 0;
    expect("bytes after frame", f, len + 1, NULL, BC_ERR_SIZE, "1 bytes after");
    FRESH(); put_u64(f + 24, UINT64_MAX);
    expect("frame size huge", f, len, NULL, BC_ERR_TRUNCATED, NULL);

    FRESH(); f[32] ^= 1;
    expect("checksum field", f, len, NULL, BC_ERR_CHECKSUM, NULL);
    FRESH(); f[len - 1] ^= 0x40;
    expect("frame byte", f, len, NULL, BC_ERR_CHECKSUM, NULL);

    FRESH(); memset(f + BC_HEADER_SIZE, 0xab, len - BC_HEADER_SIZE); fix_header(f, len);
    expect("not a zstd frame", f, len, NULL, BC_ERR_COMPRESSION, NULL);
    FRESH(); put_u64(f + 16, rd_u64le(good + 16) + 1);
    expect("content size mismatch", f, len, NULL, BC_ERR_COMPRESSION, NULL);
    FRESH(); memcpy(f + len, good + BC_HEADER_SIZE, len - BC_HEADER_SIZE);
    fix_header(f, 2 * len - BC_HEADER_SIZE);
    expect("two frames", f, 2 * len - BC_HEADER_SIZE, NULL, BC_ERR_COMPRESSION, "one frame");
    FRESH(); fix_header(f, len - 3);
    expect("frame truncated", f, len - 3, NULL, BC_ERR_COMPRESSION, NULL);

    /* a skippable frame, and a frame without a content size */
    FRESH();
    static const unsigned char skippable[] = { 0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4 };
    memcpy(f + BC_HEADER_SIZE, skippable, sizeof skippable);
    fix_header(f, BC_HEADER_SIZE + sizeof skippable);
    expect("skippable frame", f, BC_HEADER_SIZE + sizeof skippable, NULL, BC_ERR_COMPRESSION, NULL);
    {
        size_t pn;
        unsigned char *pl = tf_unwrap(good, len, &pn);
        ZSTD_CCtx *cc = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0);
        unsigned char *g = malloc(BC_HEADER_SIZE + ZSTD_compressBound(pn));
        memcpy(g, good, BC_HEADER_SIZE);
        ZSTD_inBuffer in = { pl, pn, 0 };
        ZSTD_outBuffer o = { g + BC_HEADER_SIZE, ZSTD_compressBound(pn), 0 };
        size_t r = ZSTD_compressStream2(cc, &o, &in, ZSTD_e_end);  /* streaming: size unknown */
        CHECK(r == 0);
        fix_header(g, BC_HEADER_SIZE + o.pos);
        expect("no content size", g, BC_HEADER_SIZE + o.pos, NULL, BC_ERR_COMPRESSION,
               "content size");
        ZSTD_freeCCtx(cc);
        free(g);
        free(pl);
    }

    free(f);
    free(good);
}

static void payload_case(const char *name, const unsigned char *pl, size_t n, uint32_t flags,
                         BcErrCode want, const char *msg)
{
    size_t len;
    unsigned char *f = tf_wrap(pl, n, flags, &len);
    expect(name, f, len, NULL, want, msg);
    free(f);
}

static void test_sections(void)
{
    TfSec s[5];
    for (uint32_t id = 1; id <= 5; id++)
        s[id - 1] = (TfSec){ id, base[id].p, base[id].n };
    size_t n;
    unsigned char *pl = tf_payload(s, 5, &n), *q = malloc(n + 16);
    payload_case("section base", pl, n, BC_FLAG_LINES, BC_ERR_OK, NULL);
#define PFRESH() memcpy(q, pl, n)
    payload_case("payload too short", A(1, 0), BC_FLAG_LINES, BC_ERR_SECTION, NULL);
    PFRESH(); q[0] = 0;
    payload_case("no sections", q, n, BC_FLAG_LINES, BC_ERR_SECTION, NULL);
    PFRESH(); q[0] = 6;
    payload_case("too many sections", q, n, BC_FLAG_LINES, BC_ERR_SECTION, NULL);
    payload_case("table overruns payload", A(5, 0, 0, 0, 1, 0, 0, 0), BC_FLAG_LINES,
                 BC_ERR_SECTION, "overruns");
    PFRESH(); q[4 + 12 * 3] = 9;
    payload_case("unknown id", q, n, BC_FLAG_LINES, BC_ERR_SECTION, "unknown section id 9");
    PFRESH(); q[4 + 12 * 3] = 0;
    payload_case("id 0", q, n, BC_FLAG_LINES, BC_ERR_SECTION, NULL);
    PFRESH(); q[4 + 12 * 1] = 3; q[4 + 12 * 2] = 2;
    payload_case("out of order", q, n, BC_FLAG_LINES, BC_ERR_SECTION, "out of order");
    PFRESH(); q[4 + 12 * 2] = 2;
    payload_case("duplicate id", q, n, BC_FLAG_LINES, BC_ERR_SECTION, NULL);
    PFRESH(); q[4 + 12 * 2 + 4]++;
    payload_case("gap", q, n, BC_FLAG_LINES, BC_ERR_SECTION, "contiguous");
    PFRESH(); q[4 + 12 * 4 + 8]++;
    payload_case("overrun", q, n, BC_FLAG_LINES, BC_ERR_SECTION, "overruns");
    PFRESH(); q[n] = 0;
    payload_case("bytes after last section", q, n + 1, BC_FLAG_LINES, BC_ERR_SECTION, NULL);
    payload_case("lines without flag", pl, n, 0, BC_ERR_SECTION, "flag");
    free(pl);
    TfSec no_meta[4] = { s[0], s[1], s[2], s[3] };
    pl = tf_payload(no_meta, 4, &n);
    payload_case("meta missing", pl, n, BC_FLAG_LINES, BC_ERR_SECTION, "missing");
    free(pl);
    TfSec no_lines[4] = { s[0], s[1], s[2], s[4] };
    pl = tf_payload(no_lines, 4, &n);
    payload_case("flag without lines", pl, n, BC_FLAG_LINES, BC_ERR_SECTION, NULL);
    payload_case("no lines, no flag", pl, n, 0, BC_ERR_OK, NULL);
    free(pl);
    TfSec no_code[4] = { s[0], s[1], s[3], s[4] };
    pl = tf_payload(no_code, 4, &n);
    payload_case("code missing", pl, n, BC_FLAG_LINES, BC_ERR_SECTION, "(code) is missing");
    free(pl);
    free(q);
}

static void test_verifier(void)
{
    const uint32_t S = BC_SEC_STRINGS, V = BC_SEC_VALUES, C = BC_SEC_CODE, L = BC_SEC_LINES,
                   M = BC_SEC_META;
    BcErrCode OK = BC_ERR_OK;
    /* strings */
    SEC("string utf8", S, BC_ERR_STRINGS, "invalid UTF-8", 2, 4, 'n', 'a', 0xff, 'e', 1, 'x');
    SEC("string surrogate", S, BC_ERR_STRINGS, NULL, 2, 3, 0xed, 0xa0, 0x80, 1, 'x');
    SEC("string overrun", S, BC_ERR_STRINGS, "overruns", 2, 4, 'n', 'a', 'm', 'e', 5, 'x');
    SEC("string trailing", S, BC_ERR_STRINGS, "after the last", 2, 4, 'n', 'a', 'm', 'e', 1, 'x', 0);
    SEC("string count", S, BC_ERR_STRINGS, "count", 9, 4, 'n', 'a', 'm', 'e', 1, 'x');
    SEC("string overlong varint", S, BC_ERR_STRINGS, NULL, 2, 0x84, 0, 'n', 'a', 'm', 'e', 1, 'x');
    SEC("string nul ok", S, OK, NULL, 2, 4, 'n', 'a', 'm', 'e', 3, 'x', 0, 'y');
    /* ... but not in the scenario's name (string 0), nor a control byte */
    SEC("name nul", S, BC_ERR_META, "NUL or control", 2, 4, 'n', 0, 'm', 'e', 1, 'x');
    SEC("name control", S, BC_ERR_META, "NUL or control", 2, 4, 'n', 0x1b, 'm', 'e', 1, 'x');
    /* values */
    SEC("value tag", V, BC_ERR_VALUES, "unknown tag 9", 4, 0, 6, 0, 7, 0, 9);
    SEC("value string ref", V, BC_ERR_VALUES, "string index 2", 4, 0, 6, 0, 7, 0, BC_V_STR, 2);
    SEC("value map key", V, BC_ERR_VALUES, "map key", 4, 0, 6, 0, 7, 0, BC_V_MAP, 1, 0, 0, 0);
    SEC("value count", V, BC_ERR_VALUES, "count", 4, 0, 6, 0, 7, 0, BC_V_ARRAY, 0x7f, 0);
    SEC("value float", V, BC_ERR_VALUES, "float", 4, 0, 6, 0, 7, 0, BC_V_FLOAT, 0, 0);
    SEC("value int overlong", V, BC_ERR_VALUES, "integer", 4, 0, 6, 0, 7, 0, BC_V_INT, 0x80, 0);
    SEC("value int 11 bytes", V, BC_ERR_VALUES, NULL, 4, 0, 6, 0, 7, 0, BC_V_INT, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0);
    SEC("value trailing", V, BC_ERR_VALUES, "after the last", 3, 0, 6, 0, 7, 0, 0);
    SEC("value truncated", V, BC_ERR_VALUES, NULL, 4, 0, 6, 0, 7, 0, BC_V_ARRAY, 2, 0);
    SEC("value count > section", V, BC_ERR_VALUES, NULL, 0x7f, 0, 6, 0, 7, 0);
    {
        unsigned char deep[3 * 2 + 1 + 2 * 66 + 1];
        for (int over = 0; over < 2; over++) {
            size_t k = 0;
            deep[k++] = 4;
            deep[k++] = 0, deep[k++] = 6, deep[k++] = 0, deep[k++] = 7, deep[k++] = 0;
            int levels = BC_MAX_DEPTH + over;
            for (int i = 0; i < levels; i++)
                deep[k++] = BC_V_ARRAY, deep[k++] = i + 1 < levels;
            size_t len;
            unsigned char *f = file_with(V, deep, k, 0, NULL, 0, &len);
            expect(over ? "value too deep" : "value max depth", f, len, NULL,
                   over ? BC_ERR_VALUES : OK, over ? "deeper" : NULL);
            free(f);
        }
    }
    /* code, by operand kind */
    SEC("opcode range", C, BC_ERR_CODE, "out of range (op 0)", 2, OP__COUNT, 0, OP_END, 5);
    SEC("S operand", C, BC_ERR_CODE, "string index 2 out of range (op 0)", 2, OP_STATUS, 0, 2,
        OP_END, 5);
    SEC("K operand", C, BC_ERR_CODE, "value index 3 out of range (op 0)", 2, OP_LLM_BEGIN, 0, 3,
        OP_END, 5);
    SEC("U operand", C, BC_ERR_CODE, "4294967296", 2, OP_PLAN_UPDATE, 0, 0x80, 0x80, 0x80, 0x80,
        0x10, 0, OP_END, 5);
    SEC("U max ok", C, OK, NULL, 2, OP_PLAN_UPDATE, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, OP_END, 5);
    SEC("time max ok", C, OK, NULL, 2, OP_STATUS, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f, 1,
        OP_END, 0);
    SEC("time overflow", C, BC_ERR_CODE, "2^53", 2, OP_STATUS, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0x0f, 1, OP_END, 1);
    SEC("time bad varint", C, BC_ERR_CODE, "time", 2, OP_STATUS, 0x80, 0, 1, OP_END, 1);
    SEC("no END", C, BC_ERR_CODE, "not END", 2, OP_STATUS, 0, 1, OP_STATUS, 0, 1);
    SEC("END first", C, BC_ERR_CODE, "END before the last op (op 0)", 2, OP_END, 0, OP_STATUS, 0, 1);
    SEC("two ENDs", C, BC_ERR_CODE, NULL, 2, OP_END, 0, OP_END, 0);
    SEC("after END", C, BC_ERR_CODE, "after END", 2, OP_STATUS, 0, 1, OP_END, 5, 0);
    SEC("no ops", C, BC_ERR_CODE, "no ops", 0);
    SEC("op count", C, BC_ERR_CODE, "count", 9, OP_STATUS, 0, 1, OP_END, 5);
    SEC("operand truncated", C, BC_ERR_CODE, "truncated", 2, OP_STATUS, 0, 1, OP_END);
    SEC("operand missing", C, BC_ERR_CODE, NULL, 2, OP_END, 0, OP_STATUS, 0);
    /* lines */
    SEC("lines count", L, BC_ERR_LINES, "1 entries for 2 ops", 1, 2, 1);
    SEC("line negative", L, BC_ERR_LINES, "line out of range (op 0)", 2, 1, 1, 2, 0);
    SEC("line too big", L, BC_ERR_LINES, NULL, 2, 0xfe, 0xff, 0xff, 0xff, 0x1f, 1, 2, 0);
    SEC("column too big", L, BC_ERR_LINES, "column", 2, 2, 0x80, 0x80, 0x80, 0x80, 0x10, 2, 0);
    SEC("lines trailing", L, BC_ERR_LINES, "after", 2, 2, 1, 2, 0, 0);
    SEC("lines truncated", L, BC_ERR_LINES, NULL, 2, 2, 1, 2);
    SEC("line max ok", L, OK, NULL, 2, 0xfe, 0xff, 0xff, 0xff, 0x1f, 1, 0, 0);
    /* meta */
    SEC("meta name", M, BC_ERR_META, "name string index 2", 2, 1, 0, 1, 2, 2, 80, 24);
    SEC("meta source", M, BC_ERR_META, "source", 0, 7, 0, 1, 2, 2, 80, 24);
    SEC("meta prompt index", M, BC_ERR_META, "prompt value index 3", 0, 1, 3, 1, 2, 2, 80, 24);
    SEC("meta prompt type", M, BC_ERR_META, "prompt", 0, 1, 1, 1, 2, 2, 80, 24);
    SEC("meta tags type", M, BC_ERR_META, "tags", 0, 1, 0, 0, 2, 2, 80, 24);
    SEC("meta config type", M, BC_ERR_META, "config", 0, 1, 0, 1, 1, 2, 80, 24);
    SEC("meta defines type", M, BC_ERR_META, "defines", 0, 1, 0, 1, 2, 0, 80, 24);
    SEC("meta trailing", M, BC_ERR_META, "trailing", 0, 1, 0, 1, 2, 2, 80, 24, 0);
    SEC("meta truncated", M, BC_ERR_META, "term_height", 0, 1, 0, 1, 2, 2, 80);
    SEC("meta term 501 columns", M, BC_ERR_META, "terminal size 501x24 is out of range", 0, 1, 0, 1, 2, 2, 0xf5,
        0x03, 24);
    SEC("meta term 500 rows ok", M, OK, NULL, 0, 1, 0, 1, 2, 2, 80, 0xf4, 0x03);
    SEC("meta term too big", M, BC_ERR_META, "term_width", 0, 1, 0, 1, 2, 2, 0x80, 0x80, 0x80,
        0x80, 0x10, 24);
    {
        /* tags must hold strings only: [null] is rejected, ["x"] accepted */
        size_t len;
        unsigned char *f = file_with(V, A(4, 0, 6, 0, 7, 0, BC_V_ARRAY, 1, BC_V_NULL), M,
                                     A(0, 1, 0, 3, 2, 2, 80, 24), &len);
        expect("meta tag element", f, len, NULL, BC_ERR_META, "element 0");
        free(f);
        f = file_with(V, A(4, 0, 6, 0, 7, 0, BC_V_ARRAY, 1, BC_V_STR, 1), M,
                      A(0, 1, 5, 3, 2, 2, 80, 24), &len);   /* prompt: a string value */
        expect("meta prompt index 5", f, len, NULL, BC_ERR_META, "prompt");
        free(f);
        f = file_with(V, A(5, 0, 6, 0, 7, 0, BC_V_ARRAY, 1, BC_V_STR, 1, BC_V_STR, 0), M,
                      A(0, 1, 4, 3, 2, 2, 80, 24), &len);
        expect("meta tags ok", f, len, NULL, OK, NULL);
        free(f);
    }
}

/* The operands a target interprets (formats/cond.h, term_keys.h): the
** verifier refuses what the PTY target would refuse, so a program that
** verifies is never refused later. */
static void operand_case(const char *name, const unsigned char *code, size_t n, BcErrCode want, const char *msg)
{
    enum { T = BC_V_STR, MP = BC_V_MAP };
    /* 0 name, 1 x, 2 type, 3 payload, 4 text, 5 pattern, 6 screen_contains,
    ** 7 nope, 8 line_matches, 9 "(", 10 line, 11 "a.b", 12 Ctrl+C */
    static const unsigned char str[] = {
        13, 4, 'n', 'a', 'm', 'e', 1, 'x', 4, 't', 'y', 'p', 'e', 7, 'p', 'a', 'y', 'l', 'o', 'a', 'd',
        4, 't', 'e', 'x', 't', 7, 'p', 'a', 't', 't', 'e', 'r', 'n',
        15, 's', 'c', 'r', 'e', 'e', 'n', '_', 'c', 'o', 'n', 't', 'a', 'i', 'n', 's', 4, 'n', 'o', 'p', 'e',
        12, 'l', 'i', 'n', 'e', '_', 'm', 'a', 't', 'c', 'h', 'e', 's', 1, '(', 4, 'l', 'i', 'n', 'e',
        3, 'a', '.', 'b', 6, 'C', 't', 'r', 'l', '+', 'C',
    };
    /* 0 null, 1 [], 2 {}, 3 {type: screen_contains, payload: {text: x}},
    ** 4 {type: nope}, 5 {type: screen_contains}, 6 {type: line_matches,
    ** payload: {line: 0, pattern: "("}}, 7 the same with "a.b", 8 "x" */
    static const unsigned char val[] = {
        9, BC_V_NULL, BC_V_ARRAY, 0, MP, 0,
        MP, 2, T, 2, T, 6, T, 3, MP, 1, T, 4, T, 1,
        MP, 1, T, 2, T, 7,
        MP, 1, T, 2, T, 6,
        MP, 2, T, 2, T, 8, T, 3, MP, 2, T, 10, BC_V_INT, 0, T, 5, T, 9,
        MP, 2, T, 2, T, 8, T, 3, MP, 2, T, 10, BC_V_INT, 0, T, 5, T, 11,
        T, 1,
    };
    static const unsigned char lines[] = { 2, 2, 1, 2, 0 };
    TfSec sec[5] = {
        { BC_SEC_STRINGS, str, sizeof str }, { BC_SEC_VALUES, val, sizeof val }, { BC_SEC_CODE, code, n },
        { BC_SEC_LINES, lines, sizeof lines }, { BC_SEC_META, base[BC_SEC_META].p, base[BC_SEC_META].n },
    };
    size_t pn, len;
    unsigned char *pl = tf_payload(sec, 5, &pn);
    unsigned char *f = tf_wrap(pl, pn, BC_FLAG_LINES, &len);
    free(pl);
    expect(name, f, len, NULL, want, msg);
    free(f);
}

#define OPERANDS(name, want, msg, ...) operand_case(name, A(__VA_ARGS__), want, msg)

static void test_operands(void)
{
    BcErrCode OK = BC_ERR_OK, CODE = BC_ERR_CODE;
    OPERANDS("KEY name ok", OK, NULL, 2, OP_KEY, 0, 12, OP_END, 5);
    OPERANDS("KEY one character ok", OK, NULL, 2, OP_KEY, 0, 1, OP_END, 5);
    OPERANDS("KEY unknown name", CODE, "KEY: unknown key name \"nope\" (op 0)", 2, OP_KEY, 0, 7, OP_END, 5);
    OPERANDS("RESIZE ok", OK, NULL, 2, OP_RESIZE, 0, 24, 80, OP_END, 5);
    OPERANDS("RESIZE 500 ok", OK, NULL, 2, OP_RESIZE, 0, 0xf4, 0x03, 0xf4, 0x03, OP_END, 5);
    OPERANDS("RESIZE 0 rows", CODE, "RESIZE: 0x80 is out of range", 2, OP_RESIZE, 0, 0, 80, OP_END, 5);
    OPERANDS("RESIZE 501 columns", CODE, "24x501", 2, OP_RESIZE, 0, 24, 0xf5, 0x03, OP_END, 5);
    OPERANDS("WAIT ok", OK, NULL, 2, OP_WAIT, 0, 3, OP_END, 5);
    OPERANDS("CHECK pattern ok", OK, NULL, 2, OP_CHECK, 0, 7, OP_END, 5);
    OPERANDS("WAIT unknown type", CODE, "WAIT: unknown condition type 'nope' (op 0)", 2, OP_WAIT, 0, 4, OP_END, 5);
    OPERANDS("CHECK missing text", CODE, "CHECK: screen_contains: payload needs 'text'", 2, OP_CHECK, 0, 5,
             OP_END, 5);
    OPERANDS("CHECK bad pattern", CODE, "line_matches: invalid pattern", 2, OP_CHECK, 0, 6, OP_END, 5);
    OPERANDS("WAIT not a map", CODE, "needs a 'type'", 2, OP_WAIT, 0, 8, OP_END, 5);
    OPERANDS("WAIT null", CODE, "needs a 'type'", 2, OP_WAIT, 0, 0, OP_END, 5);
}

static void test_io_nomem(void)
{
    BcProgram *p = (BcProgram *)1;
    BcError err;
    CHECK(bc_load_file("/nonexistent/dir/x.scb", NULL, &p, &err) == BC_ERR_IO && p == NULL);
    CHECK(bc_load_file("/", NULL, &p, &err) == BC_ERR_IO && p == NULL);
    size_t len;
    unsigned char *good = file_with(0, NULL, 0, 0, NULL, 0, &len);
    /* The allocation counter only runs while armed, so arming it once here
    ** fails the loader's very first allocation. */
    sc_alloc_fail_after = 1;
    BcErrCode e = bc_load(good, len, NULL, &p, &err);
    sc_alloc_fail_after = 0;
    CHECKF(e == BC_ERR_NOMEM && p == NULL, "got %s", bc_err_name(e));
    CHECK(bc_load(good, len, NULL, &p, NULL) == BC_ERR_OK);   /* err may be NULL */
    bc_free(p);
    bc_free(NULL);
    free(good);
}

/* The writer's frames use the built-in dictionary; the flag is what tells a
** reader so.  The same frame read without it, or a plain frame read with
** it, must fail or decode to exactly the same bytes: never to others. */
static void test_dictionary(void)
{
    size_t len, plain_len, dn;
    const void *d = bc_dict_bytes(&dn);
    /* Frozen: files in the wild were compressed with exactly these bytes. */
    CHECK(dn == 8192 && XXH64(d, dn, 0) == 0xcc7ec3599b91bfb0ull);
    unsigned char *f = tf_sample_file(1, false, &len);
    CHECK(f && (rd_u32le(f + 12) & BC_FLAG_DICT));
    expect("dictionary frame", f, len, NULL, BC_ERR_OK, NULL);
    f[12] &= (unsigned char)~BC_FLAG_DICT;
    expect("dictionary frame, flag cleared", f, len, NULL, BC_ERR_COMPRESSION, "zstd");
    free(f);

    unsigned char *plain = file_with(0, NULL, 0, 0, NULL, 0, &plain_len);
    size_t n1, n2;
    unsigned char *a = NULL, *b = NULL;
    CHECK(bc_unwrap(plain, plain_len, &a, &n1, NULL) == BC_ERR_OK);
    plain[12] |= BC_FLAG_DICT;
    CHECK(bc_unwrap(plain, plain_len, &b, &n2, NULL) == BC_ERR_OK);
    CHECK(a && b && n1 == n2 && memcmp(a, b, n1) == 0);
    expect("plain frame, dictionary flag set", plain, plain_len, NULL, BC_ERR_OK, NULL);
    free(a), free(b), free(plain);
}

/* utf8_valid's eight-bytes-at-a-time ASCII path against a byte-at-a-time
** reference, with every tricky sequence at every offset of ASCII filler
** (both sides of each word boundary), and the one-byte varint fast path. */
static bool utf8_ref(const unsigned char *s, size_t n, size_t *bad)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], len = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
                                          : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
        bool ok = len && n - i >= len;
        for (unsigned k = 1; ok && k < len; k++) {
            ok = (s[i + k] & 0xc0) == 0x80;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if (!ok || (len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff)) {
            *bad = i;
            return false;
        }
        i += len;
    }
    return true;
}

/* LEB128 as docs/bytecode.md defines it, a byte at a time: the bytes
** used, or 0 for truncated, longer than ten bytes, above 2^64-1 or padded
** (a last byte of 0 after the first). */
static size_t ref_varint(const unsigned char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        if (i == 9 && s[i] > 1)
            return 0;
        v |= (uint64_t)(s[i] & 0x7f) << (7 * i);
        if (!(s[i] & 0x80)) {
            if (i > 0 && s[i] == 0)
                return 0;
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

static void test_primitives(void)
{
    static const char *const seq[] = {
        "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xff", "\x80", "\xc0\xaf", "\xc3",
        "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xc3\xa9\xc3\xa9\xff",
    };
    unsigned char buf[64];
    for (size_t q = 0; q < sizeof seq / sizeof seq[0]; q++)
        for (size_t n = strlen(seq[q]); n <= 40; n++)
            for (size_t at = 0; at + strlen(seq[q]) <= n; at++) {
                memset(buf, 'a', n);
                memcpy(buf + at, seq[q], strlen(seq[q]));
                size_t b1 = 99, b2 = 99;
                bool r1 = utf8_valid(buf, n, &b1), r2 = utf8_ref(buf, n, &b2);
                CHECKF(r1 == r2 && (r1 || b1 == b2), "utf8 seq %zu len %zu at %zu: %d@%zu vs %d@%zu",
                          q, n, at, r1, b1, r2, b2);
            }
    const unsigned char one[] = { 0x7f }, two[] = { 0x80, 0x01 }, pad[] = { 0x80, 0x00 },
                        cut[] = { 0x80 }, big[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
                        over[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 };
    const unsigned char *p = one;
    uint64_t v = 0;
    CHECK(varint_read(&p, one + 1, &v) && v == 127 && p == one + 1);
    p = one;
    CHECK(!varint_read(&p, one, &v) && p == one);   /* empty */
    p = two;
    CHECK(varint_read(&p, two + 2, &v) && v == 128 && p == two + 2);
    p = pad;
    CHECK(!varint_read(&p, pad + 2, &v) && p == pad);
    p = cut;
    CHECK(!varint_read(&p, cut + 1, &v) && p == cut);
    p = big;
    CHECK(varint_read(&p, big + 10, &v) && v == UINT64_MAX);
    p = over;
    CHECK(!varint_read(&p, over + 10, &v));
    /* varint_at (with its own two-byte path) agrees with ref_varint on
    ** every sequence of up to three bytes (the third from a sample), cut at
    ** every length, and on the ten-byte ones above */
    static const unsigned char third[] = { 0x00, 0x01, 0x7f, 0x80, 0xff };
    for (unsigned a = 0; a < 256; a++)
        for (unsigned b = 0; b < 256; b++)
            for (size_t t = 0; t < sizeof third; t++) {
                const unsigned char s[3] = { (unsigned char)a, (unsigned char)b, third[t] };
                for (size_t n = 0; n <= 3; n++) {
                    uint64_t w = 0;
                    size_t used = ref_varint(s, n, &w);
                    VarintAt r = varint_at(s, s + n);
                    CHECKF((used != 0) == (r.p != NULL) && (!used || (r.p == s + used && r.v == w)),
                           "varint_at %02x %02x %02x (%zu bytes): %zu vs %d", a, b, third[t], n, used,
                           r.p != NULL);
                }
            }
    CHECK(varint_at(big, big + 10).v == UINT64_MAX && varint_at(big, big + 10).p == big + 10);
    CHECK(!varint_at(over, over + 10).p && !varint_at(big, big + 9).p);
}

/* A pack entry's payload is verified without its container: the same
** verifier, the header's version and flag rules, no file size or checksum. */
static void test_payload(void)
{
    size_t flen, n;
    unsigned char *f = file_with(0, NULL, 0, 0, NULL, 0, &flen), *pl = tf_unwrap(f, flen, &n);
    BcProgram *p = NULL;
    BcError err;
    CHECK(pl && bc_load_payload(pl, n, 1, 1, BC_FLAG_LINES, NULL, &p, &err) == BC_ERR_OK);
    if (p) {
        CHECK(p->file_size == 0 && p->checksum == 0 && p->content_size == n && p->n_insn > 0);
        bc_free(p);
    }
    CHECK(bc_load_payload(pl, n, 2, 0, BC_FLAG_LINES, NULL, &p, &err) == BC_ERR_VERSION && !p);
    CHECK(bc_load_payload(pl, n, 1, 0, BC_FLAG_LINES | BC_FLAG_DICT, NULL, &p, &err) == BC_ERR_FLAGS);
    CHECK(bc_load_payload(pl, n, 1, 1, 0, NULL, &p, &err) == BC_ERR_SECTION);   /* lines present */
    CHECK(bc_load_payload(pl, 0, 1, 1, BC_FLAG_LINES, NULL, &p, &err) == BC_ERR_SIZE);
    CHECK(bc_load_payload(pl, n, 1, 1, BC_FLAG_LINES, &(BcLoadOpts){ .max_content = 8 }, &p,
                          &err) == BC_ERR_SIZE);
    pl[n - 1] = 0x80;   /* the last META varint, cut short */
    CHECK(bc_load_payload(pl, n, 1, 1, BC_FLAG_LINES, NULL, &p, &err) == BC_ERR_META && !p);
    free(pl);
    free(f);
}

/* The loaded strings themselves, on both of verify_strings's paths (an
** all-ASCII section, and one with multi-byte lengths and UTF-8): each
** string's bytes, its length and the NUL after it. */
static void check_strings(const char *name, const char *const *want, const size_t *want_len,
                          uint32_t n)
{
    Buf sec;
    buf_init(&sec);
    buf_varint(&sec, n);
    for (uint32_t i = 0; i < n; i++) {
        buf_varint(&sec, want_len[i]);
        buf_put(&sec, want[i], want_len[i]);
    }
    size_t len;
    unsigned char *f = file_with(BC_SEC_STRINGS, (const unsigned char *)sec.data, sec.len, 0,
                                 NULL, 0, &len);
    BcProgram *p = NULL;
    BcError err;
    CHECKF(bc_load(f, len, NULL, &p, &err) == BC_ERR_OK, "%s: %s", name, err.msg);
    for (uint32_t i = 0; p && i < n; i++) {
        CHECKF(p->str[i].len == want_len[i], "%s: string %u length", name, i);
        CHECKF(memcmp(p->str[i].s, want[i], want_len[i]) == 0, "%s: string %u bytes", name, i);
        CHECKF(p->str[i].s[want_len[i]] == 0, "%s: string %u not NUL-terminated", name, i);
    }
    bc_free(p);
    free(f);
    buf_fini(&sec);
}

static void test_strings_loaded(void)
{
    char z127[127], a200[200];
    memset(z127, 'z', sizeof z127);
    memset(a200, 'a', sizeof a200);
    const char *ascii[] = { "name", "x", "", "a\0b", z127, "y" };
    const size_t ascii_len[] = { 4, 1, 0, 3, 127, 1 };
    check_strings("ascii section", ascii, ascii_len, 6);
    const char *mixed[] = { "name", "x", a200, "h\xc3\xa9llo", "", "\xf0\x9f\x99\x82" };
    const size_t mixed_len[] = { 4, 1, 200, 6, 0, 4 };
    check_strings("utf-8 section", mixed, mixed_len, 6);
}

/* bc_text_ok (names, tags, paths): printable text, checked eight bytes at
** a time and the tail as the last eight, overlapping; each forbidden byte
** is tried at every position of strings of 1 to 25 bytes (in a word, in
** the tail, in both), a character of two bytes at every position is
** accepted, and the decoder still judges what is not ASCII. */
static void test_text_ok(void)
{
    char s[25];
    memset(s, 'a', sizeof s);
    CHECK(bc_text_ok(s, sizeof s) && bc_text_ok(s, 0) && bc_text_ok("~ !", 3));
    static const unsigned char bad[] = { 0x00, 0x01, 0x09, 0x0a, 0x1f, 0x7f, 0x80, 0xff };
    for (size_t n = 1; n <= sizeof s; n++)
        for (size_t at = 0; at < n; at++) {
            for (size_t b = 0; b < sizeof bad; b++) {
                s[at] = (char)bad[b];
                if (bc_text_ok(s, n))
                    CHECKF(false, "byte 0x%02x at %zu of %zu accepted", bad[b], at, n);
            }
            s[at] = 'a';
            if (at + 1 < n) {
                s[at] = '\xc3', s[at + 1] = '\xa9';
                CHECKF(bc_text_ok(s, n), "e-acute at %zu of %zu refused", at, n);
                s[at] = s[at + 1] = 'a';
            }
        }
    CHECK(bc_text_ok("caf\xc3\xa9 au lait, \xe2\x82\xac" "5", 19));
    CHECK(!bc_text_ok("caf\xc3\xa9 au lait\x01", 14));   /* a control byte after non-ASCII */
    CHECK(!bc_text_ok("abcdefgh\xc3(", 10));              /* not UTF-8 */
    CHECK(!bc_text_ok("abcdefgh\xed\xa0\x80", 11));      /* a surrogate */
}

/* The agent-check language of EVAL and the kinds of CASE
** (formats/agentcheck.h): built with the builder, unverified, then loaded. */
typedef struct Kv {
    const char *k;
    char kind;              /* s string, b bool, i int */
    const char *s;
    int64_t i;
} Kv;

static unsigned char *agent_file(const char *kind, const Kv *kv, size_t n, size_t *len)
{
    BcBuilder *b = bcb_new();
    bcb_val_begin(b);
    bcb_val_map(b, (uint32_t)n);
    for (size_t j = 0; j < n; j++) {
        bcb_val_key(b, bcb_cstr(b, kv[j].k));
        if (kv[j].kind == 's')
            bcb_val_str(b, bcb_cstr(b, kv[j].s));
        else if (kv[j].kind == 'b')
            bcb_val_bool(b, kv[j].i != 0);
        else
            bcb_val_int(b, kv[j].i);
    }
    uint32_t check = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_map(b, 0);
    uint32_t settings = bcb_val_end(b);
    CHECK(bcb_op(b, OP_CASE, 0, 1, 1, bcb_cstr(b, "T1"), bcb_cstr(b, kind), settings));
    CHECK(bcb_op(b, OP_EVAL, 0, 2, 1, check));
    unsigned char *out = NULL;
    BcWriteOpts wo = { .verify = false };
    CHECK(bcb_finish(b, &wo, &out, len));
    bcb_free(b);
    return out;
}

#define AGENT(name, kind, want, msg, ...)                                                   \
    do {                                                                                  \
        static const Kv kv_[] = { __VA_ARGS__ };                                          \
        size_t len_;                                                                      \
        unsigned char *f_ = agent_file(kind, kv_, sizeof kv_ / sizeof kv_[0], &len_);     \
        expect(name, f_, len_, NULL, want, msg);                                          \
        sc_free(f_);                                                                      \
    } while (0)

static void test_agent_checks(void)
{
    BcErrCode OK = BC_ERR_OK, CODE = BC_ERR_CODE;
#define TY(t) { "type", 's', t, 0 }
#define SC(t) { "scope", 's', t, 0 }
    AGENT("EVAL contains ok", "input", OK, NULL, TY("contains"), SC("step"), { "value", 's', "hi", 0 },
          { "case_sensitive", 'b', NULL, 0 });
    AGENT("EVAL checkpoint ok", "dynamic", OK, NULL, TY("regex"), SC("checkpoint"), { "id", 's', "c1", 0 },
          { "pattern", 's', "(?i)size", 0 }, { "case_sensitive", 'b', NULL, 1 }, { "required", 'b', NULL, 0 });
    AGENT("EVAL unknown type", "input", CODE, "EVAL: unknown check type 'nope' (op 1)", TY("nope"), SC("step"));
    AGENT("EVAL missing field", "input", CODE, "EVAL: contains: needs 'case_sensitive' (op 1)", TY("contains"),
          SC("step"), { "value", 's', "hi", 0 });
    AGENT("EVAL unknown field", "input", CODE, "EVAL: file_exists: unknown field 'bogus'", TY("file_exists"),
          SC("step"), { "path", 's', "a.txt", 0 }, { "bogus", 'b', NULL, 1 });
    AGENT("EVAL wrong kind", "input", CODE, "'pattern' must be a pattern string", TY("regex"), SC("step"),
          { "pattern", 'i', NULL, 3 }, { "case_sensitive", 'b', NULL, 0 });
    AGENT("EVAL bad pattern", "input", CODE, "regex: invalid pattern", TY("regex"), SC("step"),
          { "pattern", 's', "(", 0 }, { "case_sensitive", 'b', NULL, 0 });
    AGENT("EVAL negative int", "input", CODE, "'max_duration_ms' must be an integer >= 0", TY("execution_time"),
          SC("step"), { "max_duration_ms", 'i', NULL, -1 });
    AGENT("EVAL bad scope", "input", CODE, "'scope' must be step, turn", TY("trajectory_contains_action"),
          SC("later"), { "action", 's', "REPLY", 0 });
    AGENT("EVAL checkpoint without id", "dynamic", CODE, "a checkpoint needs an 'id'", TY("contains"),
          SC("checkpoint"), { "value", 's', "x", 0 }, { "case_sensitive", 'b', NULL, 1 });
    AGENT("CASE unknown kind", "later", CODE, "CASE: unknown kind \"later\" (op 0)", TY("contains"), SC("step"),
          { "value", 's', "x", 0 }, { "case_sensitive", 'b', NULL, 1 });
#undef TY
#undef SC
    /* The writer marks a file using them 1.2, and a 1.1 file may not. */
    static const Kv ok[] = { { "type", 's', "file_exists", 0 }, { "scope", 's', "step", 0 },
                             { "path", 's', "out.txt", 0 } };
    size_t len;
    unsigned char *f = agent_file("code", ok, 3, &len);
    CHECK(f[10] == 2 && f[11] == 0);
    f[10] = 1;
    expect("EVAL in a 1.1 file", f, len, NULL, CODE, "opcode CASE needs version 1.2, the file says 1.1 (op 0)");
    sc_free(f);
    unsigned char *g = tf_sample_file(1, false, &len);
    CHECK(g && g[10] == 2);      /* the sample holds every op */
    free(g);
    BcBuilder *b = bcb_new();
    CHECK(bcb_op(b, OP_STATUS, 0, 1, 1, bcb_cstr(b, "running")));
    BcWriteOpts wo = { .verify = true };
    CHECK(bcb_finish(b, &wo, &f, &len));
    CHECK(f[10] == 1);           /* without them: still 1.1 */
    sc_free(f);
    bcb_free(b);
}

int main(void)
{
    init_base();
    test_primitives();
    test_payload();
    test_container();
    test_dictionary();
    test_sections();
    test_verifier();
    test_operands();
    test_agent_checks();
    test_strings_loaded();
    test_text_ok();
    test_io_nomem();
    return tf_result("t_bad");
}
