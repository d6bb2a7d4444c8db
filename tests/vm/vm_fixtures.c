/* SPDX-License-Identifier: MIT */
/* vm_fixtures.c - writes the .scb files the scvm tests play, into DIR.
**
**   all_ops.scb     every opcode (checked: a new opcode in ops.def fails
**                   here until it is added), every value kind, escapes
**   stripped.scb    a few ops without a line table
**   demo.scb        the small scenario docs/scvm.md uses
**   speed.scb       times chosen to test --speed rounding
**   realtime.scb    a 80 ms schedule for --realtime
**   empty.scb       no ops (END only)
**   garbage.scb     text, not bytecode
**   empty-file.scb  zero bytes
**   truncated.scb   all_ops.scb cut in half
**   badsum.scb      all_ops.scb with its last byte flipped
**
** Usage: vm_fixtures DIR.  Exit 0, or 1 with a message. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bc_write.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"

static const char *dir;
static bool covered[OP__COUNT];

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("vm_fixtures: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void put_file(const char *name, const void *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int e = file_write_atomic(path, data, len);
    if (e)
        die("%s: %s", path, strerror(e));
}

/* bcb_op that records coverage and dies on a builder error. */
#define OPX(b, op, t, line, ...)                                              \
    do {                                                                      \
        uint32_t l_ = (line);                                                 \
        covered[op] = true;                                                   \
        if (!bcb_op((b), (op), (t), l_, l_ ? 1 : 0, __VA_ARGS__))              \
            die("%s: bcb_op %s: %s", __func__, #op, bcb_error(b));            \
    } while (0)
#define OP0(b, op, t, line)                                                   \
    do {                                                                      \
        uint32_t l_ = (line);                                                 \
        covered[op] = true;                                                   \
        if (!bcb_op((b), (op), (t), l_, l_ ? 1 : 0))                           \
            die("%s: bcb_op %s: %s", __func__, #op, bcb_error(b));            \
    } while (0)

static void set_meta(BcBuilder *b, const char *name, const char *source, const char *prompt)
{
    BcMeta m;
    memset(&m, 0, sizeof m);
    m.name = bcb_cstr(b, name);
    m.source = bcb_cstr(b, source);
    m.prompt = prompt ? bcb_strval(b, bcb_cstr(b, prompt)) : bcb_null(b);
    bcb_val_begin(b);
    bcb_val_array(b, 2);
    bcb_val_str(b, bcb_cstr(b, "vm"));
    bcb_val_str(b, bcb_cstr(b, "test"));
    m.tags = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_map(b, 0);
    m.config = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_map(b, 0);
    m.defines = bcb_val_end(b);
    bcb_set_meta(b, &m);
}

static unsigned char *finish(BcBuilder *b, const char *name, bool strip, size_t *len)
{
    BcWriteOpts o = { .strip_lines = strip, .zstd_level = 0 };
    unsigned char *data = NULL;
    size_t n = 0;
    if (!bcb_finish(b, &o, &data, &n))
        die("%s: bcb_finish: %s", name, bcb_error(b) ? bcb_error(b) : "out of memory");
    bcb_free(b);
    put_file(name, data, n);
    if (len)
        *len = n;
    return data;
}

/* A one-key map {key: str}. */
static uint32_t map1(BcBuilder *b, const char *key, const char *val)
{
    bcb_val_begin(b);
    bcb_val_map(b, 1);
    bcb_val_key(b, bcb_cstr(b, key));
    bcb_val_str(b, bcb_cstr(b, val));
    return bcb_val_end(b);
}

static unsigned char *all_ops(size_t *len)
{
    BcBuilder *b = bcb_new();
    if (!b)
        die("out of memory");
    set_meta(b, "all_ops", "all_ops.yaml", "Fix the bug");
    uint32_t null = bcb_null(b);
    uint32_t line = 1;

    OPX(b, OP_STATUS, 0, line++, bcb_cstr(b, "queued"));
    OPX(b, OP_STATUS, 0, line++, bcb_cstr(b, "running"));
    OPX(b, OP_INITIALIZE, 0, line++, map1(b, "request", "initialize"));
    OPX(b, OP_SESSION_START, 0, line++, map1(b, "sessionId", "s1"));
    /* Operands that intern are evaluated into locals first (last operand
    ** first): C leaves argument order unspecified, and the fixtures must be
    ** the same bytes whichever compiler built them (docs/scvm.md shows
    ** their sizes and checksums). */
    uint32_t u1 = map1(b, "text", "Fix the bug");
    OPX(b, OP_USER_INPUT, 0, line++, null, bcb_cstr(b, "Fix the \"bug\"\n\tnow\\"), u1, null);
    uint32_t u2 = bcb_cstr(b, "");
    OPX(b, OP_USER_INPUT, 10, line++, bcb_strval(b, bcb_cstr(b, "agent-2")), u2, null, null);
    OPX(b, OP_LLM_BEGIN, 100, line++, null);
    OPX(b, OP_THINK, 120, line++, bcb_cstr(b, "Looking at \xc3\xbcnic\xc3\xb6" "de \xe2\x9c\x93 \x01\x1f\x7f"));
    OPX(b, OP_ASSISTANT, 150, line++, bcb_cstr(b, "Done."), null);
    OP0(b, OP_LLM_END, 150, line++);
    /* Every value kind, nested: floats, negative ints, empty containers. */
    bcb_val_begin(b);
    bcb_val_map(b, 4);
    bcb_val_key(b, bcb_cstr(b, "a"));
    bcb_val_array(b, 4);
    bcb_val_int(b, 1);
    bcb_val_bool(b, true);
    bcb_val_bool(b, false);
    bcb_val_null(b);
    bcb_val_key(b, bcb_cstr(b, "neg"));
    bcb_val_int(b, -42);
    bcb_val_key(b, bcb_cstr(b, "empty"));
    bcb_val_array(b, 0);
    bcb_val_key(b, bcb_cstr(b, "obj"));
    bcb_val_map(b, 0);
    uint32_t details = bcb_val_end(b);
    bcb_val_begin(b);
    bcb_val_float(b, 2.5);
    uint32_t retry = bcb_val_end(b);
    uint32_t msg = bcb_cstr(b, "Too many requests");
    OPX(b, OP_LLM_ERROR, 200, line++, bcb_cstr(b, "rate_limit"), 429u, msg, retry, details);
    bcb_val_begin(b);
    bcb_val_map(b, 2);
    bcb_val_key(b, bcb_cstr(b, "cmd"));
    bcb_val_str(b, bcb_cstr(b, "make test"));
    bcb_val_key(b, bcb_cstr(b, "timeout"));
    bcb_val_float(b, 0.5);
    uint32_t args = bcb_val_end(b);
    uint32_t id = bcb_strval(b, bcb_cstr(b, "call_1"));
    OPX(b, OP_TOOL_START, 250, line++, bcb_cstr(b, "run_cmd"), args, id);
    uint32_t kind = bcb_cstr(b, "stdout"), text = bcb_cstr(b, "Building");
    OPX(b, OP_TOOL_PROGRESS, 300, line++, bcb_cstr(b, "run_cmd"), text, kind);
    uint32_t out = bcb_strval(b, bcb_cstr(b, "all passed\n")), res = bcb_cstr(b, "success");
    OPX(b, OP_TOOL_RESULT, 400, line++, bcb_cstr(b, "run_cmd"), res, out);
    OPX(b, OP_FILE_EDIT, 450, line++, bcb_cstr(b, "src/a.c"), 4294967295u, 0u);
    bcb_val_begin(b);
    bcb_val_array(b, 2);
    bcb_val_str(b, bcb_cstr(b, "read"));
    bcb_val_str(b, bcb_cstr(b, "fix"));
    uint32_t plan = bcb_val_end(b);
    OPX(b, OP_PLAN_UPDATE, 500, line++, 2u, plan);
    bcb_val_begin(b);
    bcb_val_array(b, 1);
    bcb_val_map(b, 2);
    bcb_val_key(b, bcb_cstr(b, "path"));
    bcb_val_str(b, bcb_cstr(b, "a.txt"));
    bcb_val_key(b, bcb_cstr(b, "expectedContent"));
    bcb_val_str(b, bcb_cstr(b, "x"));
    OPX(b, OP_FILE_READS, 500, line++, bcb_val_end(b));
    OPX(b, OP_PERMISSION, 600, line++, map1(b, "decision", "allow"));
    uint32_t cwd = bcb_strval(b, bcb_cstr(b, "/tmp"));
    OPX(b, OP_USER_COMMAND, 700, line++, bcb_cstr(b, "ls -la"), cwd, null);
    OPX(b, OP_USER_COMMAND, 700, line++, bcb_cstr(b, "pwd"), null, null);
    OPX(b, OP_USER_EDITS, 800, line++, bcb_cstr(b, "fix.patch"));
    OPX(b, OP_SET_MODE, 900, line++, bcb_cstr(b, "code"), null);
    OPX(b, OP_SET_MODEL, 900, line++, bcb_cstr(b, "model-x"), null);
    OPX(b, OP_SCREENSHOT, 1000, line++, bcb_cstr(b, "after"));
    OPX(b, OP_LOG, 1000, line++, bcb_str(b, "nul:\0:end", 9), null);
    OPX(b, OP_ASSERT, 1100, line++, map1(b, "text", "ok"));
    OP0(b, OP_MERGE, 1100, line++);
    OP0(b, OP_USER_CANCEL, 1200, line++);
    OP0(b, OP_COMPLETE, 1300, line++);
    /* the terminal ops (tui-use steps) */
    uint32_t step = bcb_cstr(b, "type");
    OPX(b, OP_STEP, 1300, line++, bcb_cstr(b, "3f1c2a9e-0b6d-4c1e-9a57-2d8f0e4b7c11"), step, 1000u, 0u);
    OPX(b, OP_TYPE_TEXT, 1300, line++, bcb_cstr(b, "hello"));
    OPX(b, OP_KEY, 1300, line++, bcb_cstr(b, "Ctrl+C"));
    OPX(b, OP_RESIZE, 1300, line++, 30u, 100u);
    OPX(b, OP_WAIT, 1300, line++, map1(b, "type", "process_exited"));
    OPX(b, OP_CHECK, 1300, line++, map1(b, "type", "screen_empty"));
    OP0(b, OP_TERMINATE, 1300, line++);
    /* the agent-test ops (ElizaOS, Yao) */
    uint32_t case_id = bcb_cstr(b, "T1"), case_type = bcb_cstr(b, "input");
    uint32_t case_settings = map1(b, "input", "Hello");
    OPX(b, OP_CASE, 1300, line++, case_id, case_type, case_settings);
    bcb_val_begin(b);
    bcb_val_map(b, 3);
    bcb_val_key(b, bcb_cstr(b, "type"));
    bcb_val_str(b, bcb_cstr(b, "file_exists"));
    bcb_val_key(b, bcb_cstr(b, "scope"));
    bcb_val_str(b, bcb_cstr(b, "step"));
    bcb_val_key(b, bcb_cstr(b, "path"));
    bcb_val_str(b, bcb_cstr(b, "out.txt"));
    OPX(b, OP_EVAL, 1300, line++, bcb_val_end(b));
    OPX(b, OP_STATUS, 1300, line++, bcb_cstr(b, "completed"));
    OP0(b, OP_END, 1300, line++);
    return finish(b, "all_ops.scb", false, len);
}

static void stripped(void)
{
    BcBuilder *b = bcb_new();
    if (!b)
        die("out of memory");
    set_meta(b, "stripped", "stripped.yaml", NULL);
    OPX(b, OP_STATUS, 0, 3, bcb_cstr(b, "running"));
    OPX(b, OP_THINK, 5, 4, bcb_cstr(b, "hm"));
    sc_free(finish(b, "stripped.scb", true, NULL));
}

/* The scenario in docs/scvm.md: simulation_smoke-like. */
static void demo(void)
{
    BcBuilder *b = bcb_new();
    if (!b)
        die("out of memory");
    set_meta(b, "demo", "demo.yaml", "Investigate the failing test");
    uint32_t null = bcb_null(b);
    OPX(b, OP_STATUS, 0, 0, bcb_cstr(b, "queued"));
    OPX(b, OP_STATUS, 0, 0, bcb_cstr(b, "running"));
    OPX(b, OP_LLM_BEGIN, 0, 5, null);
    OPX(b, OP_THINK, 120, 7, bcb_cstr(b, "Reading the CI log"));
    uint32_t args = map1(b, "cmd", "make test");   /* last operand first, as in all_ops */
    OPX(b, OP_TOOL_START, 220, 9, bcb_cstr(b, "run_cmd"), args, null);
    uint32_t kind = bcb_cstr(b, "progress"), text = bcb_cstr(b, "Running 12 tests");
    OPX(b, OP_TOOL_PROGRESS, 420, 12, bcb_cstr(b, "run_cmd"), text, kind);
    uint32_t res = bcb_cstr(b, "ok");
    OPX(b, OP_TOOL_RESULT, 420, 9, bcb_cstr(b, "run_cmd"), res, null);
    OPX(b, OP_ASSISTANT, 555, 14, bcb_cstr(b, "All tests pass."), null);
    OP0(b, OP_LLM_END, 555, 5);
    OP0(b, OP_COMPLETE, 555, 16);
    OPX(b, OP_STATUS, 555, 0, bcb_cstr(b, "completed"));
    sc_free(finish(b, "demo.scb", false, NULL));
}

static void speed(void)
{
    static const uint64_t times[] = { 0, 1, 2, 3, 5, 49, 50, 99, 150, 250, 333, 1001, 12345,
                                      9007199254740991u };
    BcBuilder *b = bcb_new();
    if (!b)
        die("out of memory");
    set_meta(b, "speed", "speed.yaml", NULL);
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        char text[32];
        snprintf(text, sizeof text, "t=%llu", (unsigned long long)times[i]);
        OPX(b, OP_THINK, times[i], (uint32_t)i + 1, bcb_cstr(b, text));
    }
    sc_free(finish(b, "speed.scb", false, NULL));
}

static void realtime(void)
{
    BcBuilder *b = bcb_new();
    if (!b)
        die("out of memory");
    set_meta(b, "realtime", "realtime.yaml", NULL);
    OPX(b, OP_STATUS, 0, 1, bcb_cstr(b, "running"));
    OPX(b, OP_THINK, 40, 2, bcb_cstr(b, "halfway"));
    OP0(b, OP_COMPLETE, 80, 3);
    sc_free(finish(b, "realtime.scb", false, NULL));
}

static void empty(void)
{
    BcBuilder *b = bcb_new();
    if (!b)
        die("out of memory");
    set_meta(b, "empty", "empty.yaml", NULL);
    sc_free(finish(b, "empty.scb", false, NULL));
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: vm_fixtures DIR");
    dir = argv[1];
    size_t len;
    unsigned char *all = all_ops(&len);
    for (int op = 0; op < OP__COUNT; op++)
        if (!covered[op])
            die("all_ops.scb does not cover opcode %s: add it (and to tests/vm/all_ops.jsonl)",
                bc_op_info[op].name);
    stripped();
    demo();
    speed();
    realtime();
    empty();

    static const char garbage[] = "this is not a compiled scenario, just some text\n";
    put_file("garbage.scb", garbage, sizeof garbage - 1);
    put_file("empty-file.scb", "", 0);
    put_file("truncated.scb", all, len / 2);
    all[len - 1] ^= 0x01;
    put_file("badsum.scb", all, len);
    sc_free(all);
    return 0;
}
