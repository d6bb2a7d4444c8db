/* SPDX-License-Identifier: MIT */
/* compile_unit.c - scc_compile() (compiler/compile.c) as a library:
**
**   compile_unit SCENARIO.yaml TUIUSE.json
**
** the front ends by shape and their table, a forced dialect, -Werror through the caller's
** Diags, the phase hook in order, the source left alone unless given away,
** the verified program on request.  Exit 0 when every check holds. */
#include <stdio.h>
#include <string.h>

#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "compiler/compile.h"
#include "tests/check.h"

typedef struct Phases {
    int seen[8];
    int n;
} Phases;

static void on_phase(void *ctx, SccPhase ph, const Arena *a)
{
    (void)a;
    Phases *p = ctx;
    if (p->n < 8)
        p->seen[p->n++] = (int)ph;
}

/* Compiles a copy of src; returns the status, the Diags' count in *nd. */
static SccStatus compile(const char *src, size_t len, const char *dialect, bool werror, bool program,
                         Phases *ph, size_t *nd)
{
    char *copy = sc_malloc(len + 1);
    memcpy(copy, src, len + 1);
    Diags d;
    diags_init(&d);
    d.werror = werror;
    Symtab syms;
    symtab_init(&syms);
    SccCompileOpts o = { .source_name = "t", .meta_name = "t", .base_dir = ".", .syms = &syms,
                         .dialect = dialect, .keep_program = program,
                         .on_phase = ph ? on_phase : NULL, .phase_ctx = ph };
    SccResult r = { 0 };
    SccStatus st = scc_compile(copy, len, &o, &d, &r);
    CHECK(memcmp(copy, src, len) == 0);               /* not given away: untouched */
    CHECK((st == SCC_OK) == (r.bytes != NULL));
    CHECK(program ? (st == SCC_OK) == (r.program != NULL) : r.program == NULL);
    *nd = d.n;
    bc_free(r.program);
    sc_free(r.bytes);
    sc_free(copy);
    symtab_fini(&syms);
    diags_fini(&d);
    return st;
}

int main(int argc, char **argv)
{
    char *yaml = NULL, *json = NULL;
    size_t ylen = 0, jlen = 0, nd = 0;
    if (argc != 3 || file_read_all(argv[1], 1 << 20, &yaml, &ylen) || file_read_all(argv[2], 1 << 20, &json, &jlen)) {
        fputs("usage: compile_unit SCENARIO.yaml TUIUSE.json\n", stderr);
        return 2;
    }
    Phases ph = { 0 };
    CHECK(compile(yaml, ylen, NULL, false, true, &ph, &nd) == SCC_OK);
    CHECK(ph.n == 4 && ph.seen[0] == SCC_PHASE_PARSE && ph.seen[1] == SCC_PHASE_RULES &&
          ph.seen[2] == SCC_PHASE_LOWER && ph.seen[3] == SCC_PHASE_FINISH);
    CHECK(compile(json, jlen, NULL, false, false, NULL, &nd) == SCC_OK);         /* tui-use by shape */
    CHECK(compile(json, jlen, "auto", false, false, NULL, &nd) == SCC_OK);
    CHECK(compile(yaml, ylen, "tui-use", false, false, NULL, &nd) == SCC_ERRORS && nd > 0);
    CHECK(compile(json, jlen, "scenario", false, false, NULL, &nd) == SCC_ERRORS && nd > 0);
    /* The front-end table (compile.c): the --dialect names, in the order
    ** shapes are tried; every front end reports its phases in order. */
    static const char *const names[] = { "tui-use", "eliza", "yao", "scenario" };
    size_t k = 0;
    for (; scc_dialect_name(k); k++)
        CHECK(k < 4 && strcmp(scc_dialect_name(k), names[k]) == 0);
    CHECK(k == 4);
    Phases pt = { 0 };
    CHECK(compile(json, jlen, "tui-use", false, false, &pt, &nd) == SCC_OK);
    CHECK(pt.n == 4 && pt.seen[1] == SCC_PHASE_RULES && pt.seen[3] == SCC_PHASE_FINISH);
    static const char yao[] = "{\"id\": \"a\", \"input\": \"Hi\", \"assert\": {\"type\": \"contains\", \"value\": \"Hi\"}}\n"
                              "{\"id\": \"b\", \"input\": \"Bye\", \"assert\": {\"type\": \"contains\", \"value\": \"Bye\"}}\n";
    Phases py = { 0 };
    CHECK(compile(yao, strlen(yao), NULL, false, false, &py, &nd) == SCC_OK);   /* Yao by shape, on the bytes */
    CHECK(py.n == 4 && py.seen[0] == SCC_PHASE_PARSE && py.seen[3] == SCC_PHASE_FINISH);
    CHECK(compile(yao, strlen(yao), "yao", false, false, NULL, &nd) == SCC_OK);
    CHECK(compile(yao, strlen(yao), "scenario", false, false, NULL, &nd) == SCC_ERRORS);
    CHECK(compile(yaml, ylen, "yao", false, false, NULL, &nd) == SCC_ERRORS && nd > 0);
    CHECK(compile(yaml, ylen, "eliza", false, false, NULL, &nd) == SCC_ERRORS && nd > 0);
    /* A warning fails the compilation only under the caller's -Werror. */
    static const char warned[] = "{\"zzUnknownKey\": 1, ";
    size_t wl = strlen(warned) + jlen - 1;
    char *w = sc_malloc(wl + 1);
    memcpy(w, warned, strlen(warned));
    memcpy(w + strlen(warned), strchr(json, '{') + 1, jlen - (size_t)(strchr(json, '{') + 1 - json) + 1);
    wl = strlen(w);
    CHECK(compile(w, wl, NULL, false, false, NULL, &nd) == SCC_OK && nd > 0);
    CHECK(compile(w, wl, NULL, true, false, NULL, &nd) == SCC_ERRORS);
    sc_free(w);
    sc_free(yaml);
    sc_free(json);
    if (!failures)
        puts("compile_unit: ok");
    return failures ? 1 : 0;
}
