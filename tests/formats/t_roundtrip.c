/* SPDX-License-Identifier: MIT */
/* t_roundtrip.c - build -> finish -> load, checking every field; the opcode
** table; determinism; strip_lines; builder contract errors; the golden
** listing (tests/formats/sample.lst, refreshed with --update).
**
**   formats_roundtrip GOLDEN_DIR [--update]
**   formats_roundtrip --hex        print the tiny file used in docs/bytecode.md */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "tests/bc_plain_meta.h"
#include "tests/zstd_blocks.h"
#include "tf.h"

static BcProgram *load_ok(const unsigned char *data, size_t len)
{
    BcProgram *p = NULL;
    BcError err;
    BcErrCode e = bc_load(data, len, NULL, &p, &err);
    CHECKF(e == BC_ERR_OK, "%s: %s", bc_err_name(e), err.msg);
    return p;
}

static void check_json(const BcProgram *p, uint32_t idx, const char *want)
{
    Buf b;
    buf_init(&b);
    bc_val_json(p, idx, &b);
    buf_putc(&b, 0);
    CHECKF(strcmp((char *)b.data, want) == 0, "value %u: got %s, want %s", idx, b.data, want);
    buf_fini(&b);
}

static void test_op_table(void)
{
    for (int op = 0; op < OP__COUNT; op++) {
        const BcOpInfo *i = &bc_op_info[op];
        CHECK(i->name && i->operands && i->event && i->fields && i->synopsis);
        CHECK(i->n_operands == strlen(i->operands));
        /* the split fields, re-joined, give back the column */
        char joined[256] = "";
        for (int k = 0; k < i->n_operands; k++) {
            if (k)
                strcat(joined, " ");
            strcat(joined, i->field[k] ? i->field[k] : "-");
            CHECK(!i->field[k] || strcmp(i->field[k], "-") != 0);
        }
        for (int k = i->n_operands; k < BC_MAX_OPERANDS; k++)
            CHECK(i->field[k] == NULL);
        CHECKF(strcmp(joined, i->fields) == 0, "%s: '%s' vs '%s'", i->name, joined, i->fields);
        CHECK(((i->flags & OPF_END) != 0) == (op == OP_END));
    }
    CHECK(strcmp(bc_op_info[OP_TOOL_START].name, "TOOL_START") == 0);
    CHECK(strcmp(bc_op_info[OP_TOOL_START].field[1], "args") == 0);
    /* the text fields: TOOL_START "SKK" "tool_name args -": the name only;
    ** TOOL_PROGRESS "SSS" "tool_name message -": not the third S */
    CHECK(bc_op_info[OP_TOOL_START].text_fields == 0x01);
    CHECK(bc_op_info[OP_TOOL_PROGRESS].text_fields == 0x03);
    CHECK(bc_op_info[OP_LLM_END].text_fields == 0);
    for (unsigned op = 0; op < OP__COUNT; op++)
        for (unsigned k = 0; k < BC_MAX_OPERANDS; k++)
            CHECK(((bc_op_info[op].text_fields >> k) & 1) ==
                  (k < bc_op_info[op].n_operands && bc_op_info[op].operands[k] == 'S' && bc_op_info[op].field[k] != NULL));
    CHECK(bc_op_info[OP_TOOL_START].field[2] == NULL);
    CHECK(strcmp(bc_track_name(OPF_AGENT | OPF_SILENT), "agent") == 0);
    CHECK(strcmp(bc_track_name(OPF_USER), "user") == 0);
    CHECK(strcmp(bc_track_name(OPF_HARNESS | OPF_CHECK), "harness") == 0);
    CHECK(strcmp(bc_track_name(OPF_ACP), "acp") == 0);
    CHECK(strcmp(bc_track_name(OPF_END), "-") == 0);
    CHECK(strcmp(bc_err_name(BC_ERR_CHECKSUM), "CHECKSUM") == 0);
    CHECK(strcmp(bc_err_name(BC_ERR_OK), "OK") == 0);
    CHECK(strcmp(bc_err_name(BC_ERR_NOMEM), "NOMEM") == 0);
    CHECK(BC_ERR_NOMEM == 15 && BC_ERR_META == 14 && BC_ERR_IO == 1);
}

/* Every opcode with recorded operands, checked field by field after loading. */
static void test_all_ops(bool strip)
{
    BcBuilder *b = bcb_new();
    uint32_t s0 = bcb_cstr(b, "zero"), s1 = bcb_str(b, "o\0ne", 4), s2 = bcb_cstr(b, "two");
    CHECK(s0 == 0 && s1 == 1 && s2 == 2);
    CHECK(bcb_cstr(b, "two") == 2 && bcb_str(b, "o\0ne", 4) == 1);   /* interned */
    uint32_t k0 = bcb_null(b), k1 = bcb_strval(b, s2);
    bcb_val_begin(b);
    bcb_val_int(b, -42);
    uint32_t k2 = bcb_val_end(b);
    CHECK(k0 == 0 && k1 == 1 && k2 == 2 && bcb_null(b) == 0 && bcb_strval(b, s2) == 1);
    /* operands the verifier reads: a key name and a condition */
    uint32_t s_key = bcb_cstr(b, "Enter");
    bcb_val_begin(b);
    bcb_val_map(b, 1);
    bcb_val_key(b, bcb_cstr(b, "type"));
    bcb_val_str(b, bcb_cstr(b, "screen_empty"));
    uint32_t k_cond = bcb_val_end(b);
    /* and an agent-test case's kind, settings and check (formats/agentcheck.h) */
    uint32_t s_kind = bcb_cstr(b, "input");
    bcb_val_begin(b);
    bcb_val_map(b, 0);
    uint32_t k_settings = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_map(b, 4);
    bcb_val_key(b, bcb_cstr(b, "type"));
    bcb_val_str(b, bcb_cstr(b, "contains"));
    bcb_val_key(b, bcb_cstr(b, "scope"));
    bcb_val_str(b, bcb_cstr(b, "step"));
    bcb_val_key(b, bcb_cstr(b, "value"));
    bcb_val_str(b, bcb_cstr(b, "hello"));
    bcb_val_key(b, bcb_cstr(b, "case_sensitive"));
    bcb_val_bool(b, false);
    uint32_t k_check = bcb_val_end(b);

    BcInsn want[OP__COUNT];
    uint64_t t = 7;
    /* Every op once, in opcode order, except END, which must come last
    ** (ops added after END keep the older opcode numbers stable). */
    for (int idx = 0; idx < OP__COUNT; idx++) {
        int op = idx < OP_END ? idx : idx < OP__COUNT - 1 ? idx + 1 : OP_END;
        const BcOpInfo *i = &bc_op_info[op];
        BcInsn *w = &want[idx];
        memset(w, 0, sizeof *w);
        w->op = (uint8_t)op;
        w->n = i->n_operands;
        w->t = t;
        w->line = op == 3 ? 0 : (uint32_t)(100 - op * 3);
        w->col = (uint32_t)op;
        for (int k = 0; k < w->n; k++)
            w->a[k] = i->operands[k] == 'S' ? (uint32_t)(op + k) % 3
                    : i->operands[k] == 'K' ? (uint32_t)(op * k) % 3
                    : (uint32_t)op * 100000u + (uint32_t)k;
        if (op == OP_KEY)
            w->a[0] = s_key;
        else if (op == OP_RESIZE)
            w->a[0] = 40, w->a[1] = 120;
        else if (op == OP_WAIT || op == OP_CHECK)
            w->a[0] = k_cond;
        else if (op == OP_CASE)
            w->a[1] = s_kind, w->a[2] = k_settings;
        else if (op == OP_EVAL)
            w->a[0] = k_check;
        CHECKF(bcb_op(b, (BcOp)op, t, w->line, w->col, w->a[0], w->a[1], w->a[2], w->a[3],
                         w->a[4]), "%s: %s", i->name, bcb_error(b));
        t += (uint64_t)op * 1000003u;
    }
    CHECK(bcb_n_ops(b) == OP__COUNT && bcb_last_time(b) == want[OP__COUNT - 1].t);
    BcMeta m = { .name = s2, .source = s0, .prompt = k1, .term_width = 80, .term_height = 24 };
    bcb_val_begin(b);
    bcb_val_array(b, 1);
    bcb_val_str(b, s0);
    m.tags = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_map(b, 1);
    bcb_val_key(b, s1);
    bcb_val_float(b, 2.25);
    m.config = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_map(b, 0);
    m.defines = bcb_val_end(b);
    bcb_set_meta(b, &m);
    unsigned char *file;
    size_t len;
    BcWriteOpts o = { .strip_lines = strip };
    CHECK(bcb_finish(b, &o, &file, &len));
    bcb_free(b);

    BcProgram *p = load_ok(file, len);
    if (p) {
        CHECK(p->version_major == 1 && p->version_minor == 2);   /* CASE and EVAL are 1.2 */
        CHECK(p->flags == (strip ? 0u : (uint32_t)BC_FLAG_LINES) + BC_FLAG_DICT);
        CHECK(p->file_size == len && p->content_size == rd_u64le(file + 16));
        CHECK(p->checksum == rd_u64le(file + 32));
        CHECK(p->n_str == 13);
        CHECK(p->str[1].len == 4 && memcmp(p->str[1].s, "o\0ne", 5) == 0);
        CHECK(strcmp(p->str[0].s, "zero") == 0 && strcmp(p->str[2].s, "two") == 0);
        CHECK(p->n_val == 8);
        check_json(p, k1, "\"two\"");
        check_json(p, k2, "-42");
        check_json(p, m.config, "{\"o\\u0000ne\":2.25}");
        CHECK(p->n_insn == OP__COUNT);
        for (uint32_t i = 0; i < p->n_insn && i < OP__COUNT; i++) {
            const BcInsn *g = &p->insn[i], *w = &want[i];
            CHECKF(g->op == w->op && g->n == w->n && g->t == w->t, "op %u", i);
            CHECKF(g->line == (strip ? 0 : w->line) && g->col == (strip ? 0 : w->col), "op %u", i);
            for (int k = 0; k < w->n; k++)
                CHECKF(g->a[k] == w->a[k], "op %u operand %d", i, k);
        }
        CHECK(p->meta.name == m.name && p->meta.source == m.source && p->meta.prompt == m.prompt);
        CHECK(p->meta.tags == m.tags && p->meta.config == m.config && p->meta.defines == m.defines);
        CHECK(p->meta.term_width == 80 && p->meta.term_height == 24);
        BcVal cfg = bc_val(p, m.config), got;
        CHECK(!bc_val_get(p, &cfg, "o", &got));
        CHECK(bc_val_get(p, &cfg, "o\0ne", &got) == false);  /* C keys stop at NUL */
        BcVal notmap = bc_val(p, k1);
        CHECK(!bc_val_get(p, &notmap, "x", &got));
    }
    bc_free(p);
    sc_free(file);
}

static void test_values(void)
{
    size_t len;
    unsigned char *file = tf_sample_file(0, false, &len);
    CHECK(file != NULL);
    BcProgram *p = file ? load_ok(file, len) : NULL;
    if (p) {
        CHECK(p->n_val == 11);
        check_json(p, 0, "null");
        check_json(p, 1, "[null,false,true,0,-1,-9223372036854775808,9223372036854775807,1.5,"
                         "-0.0,0.1,\"tab\\there \\\"quoted\\\" \\\\ back\"]");
        check_json(p, 2, "{\"key\":\"hello\",\"b\":{},\"\":[[],{\"nul\\u0000inside\":1e+300}],"
                         "\"key\":0}");
        check_json(p, 4, "\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\"");
        check_json(p, 5, "null");
        Buf deep;
        buf_init(&deep);
        for (int i = 0; i < BC_MAX_DEPTH; i++)
            buf_putc(&deep, '[');
        for (int i = 0; i < BC_MAX_DEPTH; i++)
            buf_putc(&deep, ']');
        buf_putc(&deep, 0);
        check_json(p, 3, (char *)deep.data);
        buf_fini(&deep);
        BcVal map = bc_val(p, 2), v;
        CHECK(map.tag == BC_V_MAP && map.n == 4);
        CHECK(bc_val_get(p, &map, "key", &v) && v.tag == BC_V_STR && strcmp(p->str[v.n].s, "hello") == 0);
        CHECK(bc_val_get(p, &map, "", &v) && v.tag == BC_V_ARRAY && v.n == 2);
        CHECK(!bc_val_get(p, &map, "missing", &v));
        BcVal arr = bc_val(p, 1), e;
        const unsigned char *q = arr.p;
        int tags[11] = { 0, 1, 2, 3, 3, 3, 3, 4, 4, 4, 5 };
        for (int i = 0; i < 11; i++) {
            q = bc_val_decode(p, q, &e);
            CHECKF(e.tag == tags[i], "element %d", i);
        }
        CHECK(q == bc_val_decode(p, p->val[1], &e));   /* decode skips children */
        for (int i = 0; i < 7; i++)
            q = bc_val_decode(p, i ? q : arr.p, &e);
        CHECK(e.tag == BC_V_INT && e.i == INT64_MAX);
        q = bc_val_decode(p, q, &e);
        CHECK(e.tag == BC_V_FLOAT && e.f == 1.5);
    }
    bc_free(p);
    sc_free(file);
}

static void test_determinism(void)
{
    for (int v = 0; v < 3; v++) {
        size_t l1, l2;
        unsigned char *a = tf_sample_file(v, false, &l1), *b = tf_sample_file(v, false, &l2);
        CHECK(a && b && l1 == l2 && memcmp(a, b, l1) == 0);
        sc_free(a);
        sc_free(b);
    }
    /* the pinned default level too */
    unsigned char *out[2];
    size_t len[2];
    for (int i = 0; i < 2; i++) {
        BcBuilder *b = bcb_new();
        CHECK(tf_build_sample(b, 2));
        CHECK(bcb_finish(b, NULL, &out[i], &len[i]));
        bcb_free(b);
    }
    CHECK(len[0] == len[1] && memcmp(out[0], out[1], len[0]) == 0);
    sc_free(out[0]);
    sc_free(out[1]);
}

/* Every frame the writer makes stores its literals raw (docs/bytecode.md
** section 3): at level 1, at the default level (the prepared dictionary),
** and in a frame of several blocks.  Each frame must also hold compressed
** blocks, or the count of Huffman-coded literal sections would be 0 anyway. */
static void check_raw_literals(const unsigned char *file, size_t len, unsigned min_blocks)
{
    ZbCount c = { 0 };
    CHECK(file && len > BC_HEADER_SIZE && zb_count(file + BC_HEADER_SIZE, len - BC_HEADER_SIZE, &c));
    char why[160];
    CHECKF(c.blocks >= min_blocks && zb_literals_raw(&c), "%s", zb_describe(&c, why, sizeof why));
}

static void test_raw_literals(void)
{
    size_t len;
    unsigned char *file = tf_sample_file(2, false, &len);
    check_raw_literals(file, len, 1);
    sc_free(file);
    /* the default level, several blocks: 300 KB of distinct prose */
    BcBuilder *b = bcb_new();
    char text[160];
    bool ok = true;
    for (uint32_t i = 0; i < 3000 && ok; i++) {
        snprintf(text, sizeof text, "step %u of the transcript: the agent reads file %u, runs "
                 "test suite %u and reports %u failures in module %u", i, i * 7919u % 10007u,
                 i * 104729u % 1009u, i % 13u, i * 31u % 97u);
        ok = bcb_op(b, OP_THINK, (uint64_t)i * 10, i + 1, 1, bcb_cstr(b, text));
    }
    bc_plain_meta(b, "prose", "prose.yaml");
    unsigned char *out = NULL;
    CHECK(ok && bcb_finish(b, NULL, &out, &len));
    bcb_free(b);
    check_raw_literals(out, len, 2);
    sc_free(out);
}

/* A value as deep as the verifier lets one be (BC_MAX_DEPTH), deeper than
** one JSON writer tracks: every comma and bracket is there. */
static void test_deep_value(void)
{
    BcBuilder *b = bcb_new();
    uint32_t k = bcb_cstr(b, "k");
    bcb_val_begin(b);
    Buf want;
    buf_init(&want);
    for (int d = 0; d < BC_MAX_DEPTH / 2; d++) {
        bcb_val_array(b, 2);
        bcb_val_int(b, d);
        bcb_val_map(b, 1);
        bcb_val_key(b, k);
        buf_printf(&want, "[%d,{\"k\":", d);
    }
    bcb_val_float(b, 0.5);
    buf_puts(&want, "0.5");
    for (int d = 0; d < BC_MAX_DEPTH / 2; d++)
        buf_puts(&want, "}]");
    buf_putc(&want, 0);
    uint32_t deep = bcb_val_end(b);
    uint32_t s0 = bcb_cstr(b, "deep");
    BcMeta m = { .name = s0, .source = s0, .prompt = bcb_null(b) };
    bcb_val_begin(b);
    bcb_val_array(b, 0);
    m.tags = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_map(b, 0);
    m.config = bcb_val_end(b);
    m.defines = m.config;
    bcb_set_meta(b, &m);
    CHECKF(bcb_op(b, OP_END, 0, 0, 0, 0, 0, 0, 0, 0), "%s", bcb_error(b));
    unsigned char *file = NULL;
    size_t len = 0;
    CHECKF(bcb_finish(b, NULL, &file, &len), "%s", bcb_error(b));
    bcb_free(b);
    BcProgram *p = file ? load_ok(file, len) : NULL;
    if (p)
        check_json(p, deep, (const char *)want.data);
    bc_free(p);
    sc_free(file);
    buf_fini(&want);
}

static void test_strip(void)
{
    size_t l1, l2;
    unsigned char *a = tf_sample_file(2, false, &l1), *b = tf_sample_file(2, true, &l2);
    BcProgram *p = load_ok(a, l1), *q = load_ok(b, l2);
    CHECK(l2 < l1);
    if (p && q) {
        CHECK(p->flags == (BC_FLAG_LINES | BC_FLAG_DICT) && q->flags == BC_FLAG_DICT);
        CHECK(p->n_insn == q->n_insn);
        bool some_line = false;
        for (uint32_t i = 0; i < p->n_insn && i < q->n_insn; i++) {
            CHECK(p->insn[i].t == q->insn[i].t && p->insn[i].op == q->insn[i].op);
            CHECK(memcmp(p->insn[i].a, q->insn[i].a, sizeof p->insn[i].a) == 0);
            CHECK(q->insn[i].line == 0 && q->insn[i].col == 0);
            some_line |= p->insn[i].line != 0;
        }
        CHECK(some_line);
    }
    bc_free(p);
    bc_free(q);
    sc_free(a);
    sc_free(b);
}

/* Contract violations are the compiler's bugs: recorded, never written. */
static void test_builder_errors(void)
{
    for (int c = 0; c < 13; c++) {
        BcBuilder *b = bcb_new();
        uint32_t s = bcb_cstr(b, "s"), k = bcb_null(b);
        switch (c) {
        case 0: bcb_op(b, (BcOp)OP__COUNT, 0, 0, 0); break;
        case 1: bcb_op(b, OP_STATUS, 0, 0, 0, s + 1); break;
        case 2: bcb_op(b, OP_LLM_BEGIN, 0, 0, 0, k + 1); break;
        case 3: bcb_op(b, OP_STATUS, 5, 0, 0, s); bcb_op(b, OP_STATUS, 4, 0, 0, s); break;
        case 4: bcb_op(b, OP_END, 0, 0, 0); bcb_op(b, OP_STATUS, 0, 0, 0, s); break;
        case 5: bcb_val_begin(b); bcb_val_array(b, 2); bcb_val_null(b); bcb_val_end(b); break;
        case 6: bcb_val_begin(b); bcb_val_key(b, s); break;
        case 7: bcb_val_begin(b); bcb_val_map(b, 1); bcb_val_null(b); break;
        case 8:
            bcb_val_begin(b);
            for (int i = 0; i <= BC_MAX_DEPTH; i++)
                bcb_val_array(b, 1);
            break;
        case 9: bcb_str(b, "\xff", 1); break;
        case 10: bcb_op(b, OP_STATUS, (uint64_t)1 << 53, 0, 0, s); break;
        case 11: bcb_val_null(b); break;
        case 12: {
            BcMeta m = { .name = s, .source = s, .prompt = k, .tags = k, .config = k, .defines = k };
            bcb_set_meta(b, &m);                   /* tags must be an array */
            break;
        }
        }
        unsigned char *out = (unsigned char *)"x";
        size_t len = 1;
        CHECKF(!bcb_finish(b, NULL, &out, &len), "case %d", c);
        CHECKF(bcb_error(b) != NULL, "case %d", c);
        CHECK(out == NULL && len == 0);
        bcb_free(b);
    }
    /* the empty program: END and default meta are supplied */
    BcBuilder *b = bcb_new();
    unsigned char *out;
    size_t len;
    CHECK(bcb_finish(b, NULL, &out, &len) && bcb_error(b) == NULL);
    bcb_free(b);
    BcProgram *p = load_ok(out, len);
    if (p) {
        CHECK(p->n_insn == 1 && p->insn[0].op == OP_END && p->insn[0].t == 0);
        check_json(p, p->meta.prompt, "null");
        check_json(p, p->meta.tags, "[]");
        check_json(p, p->meta.config, "{}");
    }
    bc_free(p);
    sc_free(out);
}

static void test_file(void)
{
    size_t len;
    unsigned char *file = tf_sample_file(1, false, &len);
    char path[] = "/tmp/t_roundtrip_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && file);
    if (fd >= 0) {
        close(fd);
        CHECK(file_write_atomic(path, file, len) == 0);
        BcProgram *p = NULL;
        BcError err;
        CHECK(bc_load_file(path, NULL, &p, &err) == BC_ERR_OK && p && p->file_size == len);
        bc_free(p);
        BcLoadOpts small = { .max_content = 16 };
        CHECK(bc_load_file(path, &small, &p, &err) == BC_ERR_SIZE && p == NULL);
        unlink(path);
        CHECK(bc_load_file(path, NULL, &p, &err) == BC_ERR_IO && p == NULL);
        CHECK(strstr(err.msg, path) != NULL);
    }
    sc_free(file);
}

static void test_golden(const char *dir, bool update)
{
    size_t len;
    unsigned char *file = tf_sample_file(0, false, &len);
    BcProgram *p = file ? load_ok(file, len) : NULL;
    if (!p) {
        sc_free(file);
        return;
    }
    Buf b;
    buf_init(&b);
    bc_list(p, &(BcListOpts){ .lines = true }, &b);
    char path[1024];
    snprintf(path, sizeof path, "%s/sample.lst", dir);
    if (update) {
        CHECK(file_write_atomic(path, b.data, b.len) == 0);
    } else {
        char *want;
        size_t wlen;
        CHECKF(file_read_all(path, 1 << 20, &want, &wlen) == 0, "cannot read %s", path);
        if (want) {
            CHECKF(wlen == b.len && memcmp(want, b.data, wlen) == 0,
                      "listing differs from %s; got:\n%.*s", path, (int)b.len, (char *)b.data);
            sc_free(want);
        }
    }
    /* the header block: stable fields only (sizes and checksum follow zstd) */
    buf_reset(&b);
    bc_list(p, &(BcListOpts){ .header = true, .source = "sample.scb" }, &b);
    buf_putc(&b, 0);
    const char *h = (const char *)b.data;
    CHECK(strstr(h, "; file      sample.scb\n"));
    CHECK(strstr(h, "; scenario  \"sample scenario\"\n"));
    CHECK(strstr(h, "; source    \"sample.yaml\"\n"));
    CHECK(strstr(h, "; version   1.2\n"));   /* it holds CASE and EVAL */
    CHECK(strstr(h, "; flags     0x3 (lines, dict)\n"));
    CHECK(strstr(h, "; tags      [\"hello\",\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\"]\n"));
    CHECK(strstr(h, "; terminal  120x40\n"));
    CHECK(strstr(h, "; counts    "));
    buf_fini(&b);
    bc_free(p);
    sc_free(file);
}

/* The tiny file shown in docs/bytecode.md. */
static int print_hex(void)
{
    BcBuilder *b = bcb_new();
    uint32_t s = bcb_cstr(b, "running");
    bcb_op(b, OP_STATUS, 0, 3, 5, s);
    bcb_op(b, OP_THINK, 1500, 4, 5, bcb_cstr(b, "hm"));
    bc_plain_meta(b, "demo", "demo.yaml");
    unsigned char *out;
    size_t len;
    if (!bcb_finish(b, NULL, &out, &len))
        return 1;
    bcb_free(b);
    size_t n;
    unsigned char *pl = tf_unwrap(out, len, &n);
    for (int part = 0; part < 2; part++) {
        const unsigned char *d = part ? pl : out;
        size_t dn = part ? n : len;
        printf(part ? "payload (%zu bytes):\n" : "file (%zu bytes):\n", dn);
        for (size_t i = 0; i < dn; i += 16) {
            printf("%04zx:", i);
            for (size_t j = i; j < i + 16 && j < dn; j++)
                printf(" %02x", d[j]);
            printf("\n");
        }
    }
    BcProgram *p = NULL;
    if (bc_load(out, len, NULL, &p, NULL) == BC_ERR_OK) {
        Buf l;
        buf_init(&l);
        bc_list(p, &(BcListOpts){ .lines = true }, &l);
        printf("listing:\n%.*s", (int)l.len, (char *)l.data);
        buf_fini(&l);
        bc_free(p);
    }
    free(pl);
    sc_free(out);
    return 0;
}

int main(int argc, char **argv)
{
    /* the cache key's writer part (scc --cache-dir): stable within a build */
    CHECK(bc_writer_id() != 0 && bc_writer_id() == bc_writer_id());
    if (argc == 2 && strcmp(argv[1], "--hex") == 0)
        return print_hex();
    if (argc < 2) {
        fprintf(stderr, "usage: formats_roundtrip GOLDEN_DIR [--update] | --hex\n");
        return 2;
    }
    test_op_table();
    test_all_ops(false);
    test_all_ops(true);
    test_values();
    test_determinism();
    test_raw_literals();
    test_strip();
    test_deep_value();
    test_builder_errors();
    test_file();
    test_golden(argv[1], argc > 2 && strcmp(argv[2], "--update") == 0);
    return tf_result("t_roundtrip");
}
