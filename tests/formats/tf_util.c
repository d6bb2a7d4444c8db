/* SPDX-License-Identifier: MIT */
/* tf_util.c - the helpers declared in tf.h. */
#include "tf.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "common/buf.h"
#include "common/sc_alloc.h"

int tf_failures;

int tf_result(const char *name)
{
    if (tf_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, tf_failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

/* Operands for a generic op: strings, values and numbers chosen by position. */
bool tf_build_sample(BcBuilder *b, int variant)
{
    uint32_t s[6];
    s[0] = bcb_cstr(b, "hello");
    s[1] = bcb_cstr(b, "tab\there \"quoted\" \\ back");
    s[2] = bcb_str(b, "nul\0inside", 10);
    s[3] = bcb_cstr(b, "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80");   /* é € 😀 */
    s[4] = bcb_cstr(b, "");
    s[5] = bcb_cstr(b, variant == 1 ? "variant one" : "ctl\x01\x1f");
    uint32_t k_key = bcb_cstr(b, "key"), k_b = bcb_cstr(b, "b");

    uint32_t v[8];
    v[0] = bcb_null(b);
    bcb_val_begin(b);                               /* every scalar tag in one array */
    bcb_val_array(b, 11);
    bcb_val_null(b);
    bcb_val_bool(b, false);
    bcb_val_bool(b, true);
    bcb_val_int(b, 0);
    bcb_val_int(b, -1);
    bcb_val_int(b, INT64_MIN);
    bcb_val_int(b, INT64_MAX);
    bcb_val_float(b, 1.5);
    bcb_val_float(b, -0.0);
    bcb_val_float(b, 0.1);
    bcb_val_str(b, s[1]);
    v[1] = bcb_val_end(b);
    bcb_val_begin(b);                               /* map with nested containers */
    bcb_val_map(b, 4);
    bcb_val_key(b, k_key);
    bcb_val_str(b, s[0]);
    bcb_val_key(b, k_b);
    bcb_val_map(b, 0);
    bcb_val_key(b, s[4]);
    bcb_val_array(b, 2);
    bcb_val_array(b, 0);
    bcb_val_map(b, 1);
    bcb_val_key(b, s[2]);
    bcb_val_float(b, 1e300);
    bcb_val_key(b, k_key);
    bcb_val_int(b, variant);
    v[2] = bcb_val_end(b);
    bcb_val_begin(b);                               /* BC_MAX_DEPTH containers deep */
    for (int i = 0; i < BC_MAX_DEPTH; i++)
        bcb_val_array(b, i + 1 < BC_MAX_DEPTH);
    v[3] = bcb_val_end(b);
    v[4] = bcb_strval(b, s[3]);
    bcb_val_begin(b);
    bcb_val_float(b, 1.0 / 0.0);                    /* non-finite: JSON null */
    v[5] = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_array(b, 2);
    bcb_val_str(b, s[0]);
    bcb_val_str(b, s[3]);
    v[6] = bcb_val_end(b);                          /* tags */
    bcb_val_begin(b);
    bcb_val_map(b, 1);
    bcb_val_key(b, k_b);
    bcb_val_bool(b, true);
    v[7] = bcb_val_end(b);

    /* What the verifier checks in the operands a target interprets: a key
    ** name, a size, a condition (formats/cond.h). */
    uint32_t s_key = bcb_cstr(b, "Ctrl+C"), k_type = bcb_cstr(b, "type"), k_payload = bcb_cstr(b, "payload");
    uint32_t k_text = bcb_cstr(b, "text");
    bcb_val_begin(b);
    bcb_val_map(b, 2);
    bcb_val_key(b, k_type);
    bcb_val_str(b, bcb_cstr(b, "screen_contains"));
    bcb_val_key(b, k_payload);
    bcb_val_map(b, 1);
    bcb_val_key(b, k_text);
    bcb_val_str(b, s[3]);
    uint32_t v_cond = bcb_val_end(b);
    /* an agent-test case's kind, settings and check (formats/agentcheck.h) */
    uint32_t s_kind = bcb_cstr(b, "conversation");
    bcb_val_begin(b);
    bcb_val_map(b, 1);
    bcb_val_key(b, bcb_cstr(b, "max_turns"));
    bcb_val_int(b, 4);
    uint32_t v_settings = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_map(b, 4);
    bcb_val_key(b, k_type);
    bcb_val_str(b, bcb_cstr(b, "regex"));
    bcb_val_key(b, bcb_cstr(b, "scope"));
    bcb_val_str(b, bcb_cstr(b, "turn"));
    bcb_val_key(b, bcb_cstr(b, "pattern"));
    bcb_val_str(b, bcb_cstr(b, "h(i|ello)"));
    bcb_val_key(b, bcb_cstr(b, "case_sensitive"));
    bcb_val_bool(b, false);
    uint32_t v_check = bcb_val_end(b);

    uint64_t t = 0;
    uint32_t line = 3;
    int reps = variant == 2 ? 3 : 1;
    for (int r = 0; r < reps; r++) {
        for (int op = 0; op < OP__COUNT; op++) {
            if (bc_op_info[op].flags & OPF_END)
                continue;
            uint32_t a[BC_MAX_OPERANDS] = { 0 };
            for (int k = 0; k < bc_op_info[op].n_operands; k++) {
                unsigned x = (unsigned)(op * 7 + k * 3 + r + variant);
                switch (bc_op_info[op].operands[k]) {
                case 'S': a[k] = s[x % 6]; break;
                case 'K': a[k] = v[x % 8]; break;
                default: a[k] = op == OP_LLM_ERROR ? UINT32_MAX : x * 1000u; break;
                }
            }
            if (op == OP_KEY)
                a[0] = s_key;
            else if (op == OP_RESIZE)
                a[0] = 24u + (uint32_t)variant, a[1] = 80;
            else if (op == OP_WAIT || op == OP_CHECK)
                a[0] = v_cond;
            else if (op == OP_CASE)
                a[1] = s_kind, a[2] = v_settings;
            else if (op == OP_EVAL)
                a[0] = v_check;
            /* lines go down as well as up: deltas are signed */
            line = op % 5 == 4 ? line - 2 : line + (uint32_t)(op % 3);
            if (!bcb_op(b, (BcOp)op, t, line, (uint32_t)(op % 4) + 1, a[0], a[1], a[2], a[3], a[4]))
                return false;
            t += (uint64_t)(op % 4) * 250u + (op == 5 ? 5000000000u : 0);
        }
    }
    BcMeta m = {
        .name = bcb_cstr(b, "sample scenario"),
        .source = bcb_cstr(b, "sample.yaml"),
        .prompt = v[4],
        .tags = v[6],
        .config = v[2],
        .defines = v[7],
        .term_width = 120,
        .term_height = 40,
    };
    bcb_set_meta(b, &m);
    if (variant != 1)
        bcb_op(b, OP_END, t + 10, line + 1, 1);
    return bcb_error(b) == NULL;
}

unsigned char *tf_sample_file(int variant, bool strip_lines, size_t *len)
{
    BcBuilder *b = bcb_new();
    unsigned char *out = NULL;
    BcWriteOpts o = { .strip_lines = strip_lines, .zstd_level = 1 };
    if (b && tf_build_sample(b, variant) && !bcb_finish(b, &o, &out, len))
        out = NULL;
    bcb_free(b);
    return out;
}

unsigned char *tf_wrap(const void *payload, size_t n, uint32_t flags, size_t *len)
{
    size_t bound = ZSTD_compressBound(n);
    unsigned char *o = malloc(BC_HEADER_SIZE + bound);
    if (!o)
        abort();
    size_t r = ZSTD_compress(o + BC_HEADER_SIZE, bound, payload, n, 1);
    if (ZSTD_isError(r))
        abort();
    memcpy(o, BC_MAGIC, BC_MAGIC_LEN);
    unsigned char *h = o + BC_MAGIC_LEN;
    uint64_t fields[4] = { n, r, XXH64(o + BC_HEADER_SIZE, r, 0), 0 };
    h[0] = BC_VERSION_MAJOR, h[1] = 0, h[2] = BC_VERSION_MINOR, h[3] = 0;
    for (int i = 0; i < 4; i++)
        h[4 + i] = (unsigned char)(flags >> (8 * i));
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < 8; i++)
            h[8 + 8 * f + i] = (unsigned char)(fields[f] >> (8 * i));
    *len = BC_HEADER_SIZE + r;
    return o;
}

unsigned char *tf_unwrap(const unsigned char *file, size_t len, size_t *n)
{
    unsigned char *p;
    return bc_unwrap(file, len, &p, n, NULL) == BC_ERR_OK ? p : NULL;
}

unsigned char *tf_payload(const TfSec *s, int n, size_t *len)
{
    size_t off = 4 + 12 * (size_t)n, total = off;
    for (int i = 0; i < n; i++)
        total += s[i].n;
    unsigned char *p = malloc(total);
    if (!p)
        abort();
    unsigned char *e = p;
    for (int i = 0; i < 4; i++)
        *e++ = (unsigned char)((uint32_t)n >> (8 * i));
    for (int i = 0; i < n; i++) {
        uint32_t f[3] = { s[i].id, (uint32_t)off, (uint32_t)s[i].n };
        for (int j = 0; j < 3; j++)
            for (int b = 0; b < 4; b++)
                *e++ = (unsigned char)(f[j] >> (8 * b));
        memcpy(p + off, s[i].p, s[i].n);
        off += s[i].n;
    }
    *len = total;
    return p;
}
