/* SPDX-License-Identifier: MIT */
/* fuzz_compile.c - libFuzzer target: bytes -> scc_compile() (parse, either
** front end, rules, lowering, embedding, bytecode and its verifier).  Any
** crash, leak, sanitizer report, or emitted bytecode the verifier rejects
** is a finding.
**
** An input whose first byte is below 0x08 spends that byte on options, so
** the fuzzer can reach what scc's flags reach; any other input (every YAML
** or JSON seed) is compiled as it is, with the dialect detected:
**   bit 0  --dialect=tui-use     bit 1  --dialect=scenario (both: auto)
**   bit 2  strict embedding (as --pack)
** The scenario lives in a sandbox folder made once per process: a text
** file, a patch, an image, a policy file, a folder, and a symbolic link
** leading out (which embedding must refuse), so references resolve.
**
** Built with FUZZ_DIALECT defined ("tui-use", "yao", "eliza": the
** fuzz_tuiuse, fuzz_yao and fuzz_eliza targets), every input goes to that
** front end as --dialect does, whatever its shape and first byte.  The
** sandbox also holds base.scenario.yaml, the base of an ElizaOS matrix
** (eliza_matrix.c), and of a matrix scenario size % 3 is compiled (0:
** scc's default, which only a matrix of one scenario satisfies).
**
** Built with -DSCC_FUZZ=ON (clang).  Every finding becomes a file in
** tests/fuzz/compile-corpus/ (or the forced dialect's folder), replayed
** under ctest by fuzz_replay.c. */
#define _XOPEN_SOURCE 700   /* mkdtemp, symlink */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sc_alloc.h"
#include "compiler/compile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char sandbox[64];
static char scenario[96];

static const char *const sandbox_files[][2] = {
    { "a.txt", "hello\n" },
    { "fix.patch", "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+hallo\n" },
    { "img.png", "\x89PNG\r\n\x1a\n" },
    { "policy.json", "{\"policy_version\": 4, \"sandbox\": \"none\", \"sandbox_unsafe_ack\": true,"
                     " \"network\": \"disabled\", \"network_unsafe_ack\": true}" },
    { "dir/b.txt", "b\n" },
    { "base.scenario.yaml", "name: 'Base'\ndescription: 'd'\nenvironment:\n  type: local\nrun:\n  - name: greet\n"
                            "    input: 'Hello'\n    evaluations:\n      - type: string_contains\n        value: 'hi'\n"
                            "judgment:\n  strategy: all_pass\n" },
};

static void sandbox_remove(void)
{
    char p[160];
    for (size_t i = 0; i < sizeof sandbox_files / sizeof sandbox_files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", sandbox, sandbox_files[i][0]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/dir", sandbox);
    rmdir(p);
    snprintf(p, sizeof p, "%s/out", sandbox);
    unlink(p);
    rmdir(sandbox);
}

/* The folder the scenario is compiled in; removed at exit. */
static bool sandbox_make(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(sandbox, sizeof sandbox, "%.40s/fuzz_compile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(sandbox))
        return false;
    atexit(sandbox_remove);
    char p[160];
    snprintf(p, sizeof p, "%s/dir", sandbox);
    mkdir(p, 0700);
    for (size_t i = 0; i < sizeof sandbox_files / sizeof sandbox_files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", sandbox, sandbox_files[i][0]);
        FILE *f = fopen(p, "wb");
        if (!f)
            return false;
        fputs(sandbox_files[i][1], f);
        fclose(f);
    }
    snprintf(p, sizeof p, "%s/out", sandbox);
    if (symlink("/", p) != 0)
        return false;
    snprintf(scenario, sizeof scenario, "%s/fuzz.yaml", sandbox);
    return true;
}

/* One compilation of data; the bytecode (or NULL: errors) in *out, the
** number of diagnostics returned. */
static size_t compile_once(const uint8_t *data, size_t size, unsigned flags, unsigned char **out, size_t *out_len)
{
#ifdef FUZZ_DIALECT
    const char *dialect = FUZZ_DIALECT;
#else
    static const char *const dialects[] = { NULL, "tui-use", "scenario", "auto" };
    const char *dialect = dialects[flags & 3];
#endif
    *out = NULL;
    *out_len = 0;
    char *src = sc_malloc(size + 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = 0;
    Diags d;
    diags_init(&d);
    Symtab syms;
    symtab_init(&syms);
    const char *why;
    symtab_define(&syms, "flag", &why);
    symtab_define(&syms, "n=3", &why);
    symtab_define(&syms, "env=prod", &why);
    EmbedList files = { 0 };
    SccCompileOpts o = {
        .source_name = "fuzz.yaml", .meta_name = "fuzz.yaml", .base_dir = sandbox, .syms = &syms,
        .dialect = dialect, .matrix_pick = size % 3, .free_source = true, .embed = true, .embed_path = scenario,
        .embed_opts = { .max_file = 1 << 20, .read = true, .strict = (flags & 4) != 0 },
    };
    SccResult r = { .files = &files };
    if (scc_compile(src, size, &o, &d, &r) == SCC_INTERNAL)
        abort(); /* the compiler emitted bytecode its own verifier rejects */
    *out = r.bytes;
    *out_len = r.n_bytes;
    size_t nd = d.n;
    embed_list_fini(&files);
    symtab_fini(&syms);
    diags_fini(&d);
    return nd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready && !sandbox_make())
        abort();   /* no sandbox: nothing would be tested */
    ready = true;
    unsigned flags = 0;
#ifndef FUZZ_DIALECT
    if (size > 0 && data[0] < 0x08) {
        flags = data[0];
        data++;
        size--;
    }
#endif
    /* Twice: the same input gives the same bytes and the same diagnostics
    ** (deterministic output, docs/bytecode.md). */
    unsigned char *a, *b;
    size_t al, bl;
    size_t da = compile_once(data, size, flags, &a, &al);
    size_t db = compile_once(data, size, flags, &b, &bl);
    if (da != db || al != bl || (a == NULL) != (b == NULL) || (al && memcmp(a, b, al) != 0))
        abort();
    sc_free(a);
    sc_free(b);
    return 0;
}
