/* fuzz_compile.c - libFuzzer target: bytes -> YAML -> rules -> lowering ->
** bytecode -> loader/verifier.  Any crash, leak, sanitizer report, or
** emitted bytecode the verifier rejects is a finding.
**
** Built with -DSCC_FUZZ=ON (clang).  Every finding becomes a file in
** tests/fuzz/compile-corpus/, replayed under ctest by fuzz_replay.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/sc_alloc.h"
#include "compiler/lower.h"
#include "compiler/rules.h"
#include "compiler/yaml_tree.h"
#include "formats/bc.h"
#include "formats/bc_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = malloc(size + 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = 0;
    Arena *arena = arena_new();
    BcBuilder *b = bcb_new();
    Diags d;
    diags_init(&d);
    Symtab syms;
    symtab_init(&syms);
    const char *why;
    symtab_define(&syms, "flag", &why);
    symtab_define(&syms, "n=3", &why);
    symtab_define(&syms, "env=prod", &why);
    YDoc doc;
    if (arena && b && yaml_parse(src, size, "fuzz.yaml", arena, &d, &doc) &&
        rules_resolve(&doc, &syms, arena, &d)) {
        LowerOpts lo = { .source_name = "fuzz.yaml", .base_dir = "/nonexistent", .syms = &syms };
        if (lower_scenario(&doc, &lo, b, &d)) {
            unsigned char *out = NULL;
            size_t n = 0;
            if (bcb_finish(b, NULL, &out, &n)) {
                BcProgram *p = NULL;
                BcError e;
                if (bc_load(out, n, NULL, &p, &e) != BC_ERR_OK)
                    abort(); /* the compiler emitted bytecode its own verifier rejects */
                bc_free(p);
            }
            sc_free(out);
        }
    }
    symtab_fini(&syms);
    diags_fini(&d);
    bcb_free(b);
    arena_free(arena);
    free(src);
    return 0;
}
