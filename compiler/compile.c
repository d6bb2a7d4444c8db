/* compile.c - the one compile pipeline (compile.h). */
#define _GNU_SOURCE     /* memmem */
#include <stdio.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "formats/bc_write.h"
#include "compile.h"
#include "dialect_eliza.h"
#include "eliza_matrix.h"
#include "dialect_tuiuse.h"
#include "dialect_yao.h"
#include "lower.h"
#include "yaml_tree.h"

/* A phase ended: the next one's errors get its rule (Diags.code, SARIF's
** ruleId; docs/check.md, "Rules"). */
static void phase_done(Diags *d, const SccCompileOpts *o, SccPhase ph, const Arena *a)
{
    if (d)
        d->code = ph == SCC_PHASE_PARSE ? "rules" : ph == SCC_PHASE_RULES ? "scenario"
                  : ph == SCC_PHASE_LOWER ? "reference" : NULL;
    if (o->on_phase)
        o->on_phase(o->phase_ctx, ph, a);
}

static bool contains(const char *s, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(s + i, needle, k) == 0)
            return true;
    return false;
}

/* JSON Lines: two or more lines that each hold one JSON object (blank
** and "//" lines aside), as a Yao agent-test file is.  YAML reads the
** first object and then fails at the second line with a message about
** documents; say what the file is instead. */
/* The folder of a path as shown in diagnostics ("" for none); sc_free it. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    char *d = sc_malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = 0;
    }
    return d;
}

static bool looks_like_jsonl(const char *s, size_t len)
{
    size_t objects = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && s[j] != '\n')
            j++;
        size_t a = i, b = j;
        while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r'))
            a++;
        while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r'))
            b--;
        if (b > a && !(b - a >= 2 && s[a] == '/' && s[a + 1] == '/')) {
            if (s[a] != '{' || s[b - 1] != '}')
                return false;
            objects++;
        }
        i = j + 1;
    }
    return objects >= 2;
}

/* Front ends: YAML tree -> (rules) -> events -> builder.  The arena and
** the source are the caller's to free. */
static bool compile_front(char *src, size_t len, const SccCompileOpts *o, Arena *arena, BcBuilder *b,
                          Diags *d, SccResult *r)
{
    /* No symbols given: none defined (rules see every symbol unset). */
    Symtab none;
    symtab_init(&none);
    const Symtab *syms = o->syms ? o->syms : &none;
    YDoc doc;
    bool forced = o->dialect && strcmp(o->dialect, "auto") != 0;
    d->code = "syntax";
    /* Yao agent-test JSON Lines (dialect_yao.c): asked for, or its shape. */
    if (forced ? strcmp(o->dialect, "yao") == 0 : yao_detect(src, len)) {
        d->code = "scenario";   /* its lines are parsed and read in one pass */
        bool ok = yao_lower(src, len, o->source_name, o->meta_name, arena, b, d);
        phase_done(d, o, SCC_PHASE_PARSE, arena);
        phase_done(d, o, SCC_PHASE_RULES, arena);
        phase_done(d, o, SCC_PHASE_LOWER, arena);
        if (o->free_source)
            sc_free(src);
        return ok;
    }
    if (looks_like_jsonl(src, len)) {
        /* what the first line holds says whose it is */
        size_t first = 0;
        while (first < len && src[first] != '\n')
            first++;
        const char *what = contains(src, first, "\"protocol_version\"") ? "tui-use driver protocol messages"
                         : contains(src, first, "\"input\"")            ? "Yao agent-test cases"
                                                                         : "one JSON object per line";
        diag_add(d, DIAG_ERROR, o->source_name, 1, 1, NULL,
                 "this is a JSON Lines file (%s), not a scenario scc compiles", what);
        diag_add(d, DIAG_NOTE, o->source_name, 1, 1, NULL,
                 "scc compiles Scenario-Format, tui-use, ElizaOS and Yao files (a Yao file's first line is a "
                 "case with \"id\" or \"input\"); docs/dialects.md says what it does with the others");
        if (o->free_source)
            sc_free(src);
        return false;
    }
    bool ok = yaml_parse(src, len, o->source_name, arena, d, &doc);
    phase_done(d, o, SCC_PHASE_PARSE, arena);
    /* The tui-use dialect (dialect_tuiuse.c) and the ElizaOS one
    ** (dialect_eliza.c): asked for, or their shapes. */
    bool tui = ok && (forced ? strcmp(o->dialect, "tui-use") == 0 : tuiuse_detect(&doc));
    bool eliza = ok && !tui && (forced ? strcmp(o->dialect, "eliza") == 0 : eliza_detect(&doc));
    if (tui || eliza)
        d->code = "scenario";   /* the Scenario-Format's rules come first; these have none */
    /* A Yao file of one case, on one line (lowered as such) or written
    ** over several (the Yao front end says why Yao does not load that). */
    if (ok && !forced && !tui && !eliza && doc.root && doc.root->kind == YN_MAP && ymap_get(doc.root, "id") &&
        ymap_get(doc.root, "input") && !ymap_get(doc.root, "timeline")) {
        d->code = "scenario";
        ok = yao_lower(src, len, o->source_name, o->meta_name, arena, b, d);
        if (o->free_source)
            sc_free(src);
        return ok;
    }
    if (ok && eliza && eliza_matrix_detect(&doc)) {
        /* a matrix: one of its scenarios */
        ElizaMatrix m;
        char *shown = dir_of(o->source_name);
        ok = shown && eliza_matrix_load(&doc, o->base_dir ? o->base_dir : ".", shown, arena, d, &m);
        sc_free(shown);
        if (ok && (o->matrix_pick > m.scenarios || (!o->matrix_pick && m.scenarios != 1))) {
            diag_add(d, DIAG_ERROR, o->source_name, doc.root->line, doc.root->col, NULL,
                     o->matrix_pick ? "this ElizaOS matrix makes %zu scenarios, not %zu"
                                    : "this ElizaOS matrix makes %zu scenarios: compile it into a pack (scc --pack)",
                     m.scenarios, o->matrix_pick);
            ok = false;
        }
        if (ok)
            ok = eliza_matrix_lower(&m, o->matrix_pick ? o->matrix_pick : 1, o->meta_name, arena, b, d);
        d->code = "reference";
        if (ok && o->embed)
            ok = embed_reference(&doc, ymap_get(doc.root, "base_scenario"), m.base_rel, o->embed_path, &o->embed_opts,
                                 r->files, d);
        phase_done(d, o, SCC_PHASE_RULES, arena);
        if (o->free_source)
            sc_free(src);
        phase_done(d, o, SCC_PHASE_LOWER, arena);
        return ok;
    }
    if (ok && eliza) {
        ok = eliza_lower(&doc, o->meta_name, b, d);
        phase_done(d, o, SCC_PHASE_RULES, arena);
        if (o->free_source)
            sc_free(src);
        phase_done(d, o, SCC_PHASE_LOWER, arena);
        return ok;
    }
    if (ok && !tui)
        ok = rules_resolve(&doc, syms, arena, d);   /* reads doc.src for columns */
    phase_done(d, o, SCC_PHASE_RULES, arena);
    /* Only carets need the source from here on, and the caller can read a
    ** file again for them. */
    if (o->free_source) {
        sc_free(src);
        doc.src = NULL;
        doc.src_len = 0;
    }
    if (tui) {
        TuiUseOpts to = { .source_name = o->meta_name, .base_dir = o->base_dir, .arena = arena,
                           .policy_outside = o->policy_outside };
        ok = tuiuse_lower(&doc, &to, b, d);
    }
    if (ok && !tui) {
        LowerOpts lo = { .source_name = o->meta_name, .base_dir = o->base_dir, .syms = syms, .variant = o->variant,
                         .spec_clock = o->spec_clock };
        ok = lower_scenario(&doc, &lo, b, d);
    }
    phase_done(d, o, SCC_PHASE_LOWER, arena);
    if (ok && !tui && o->embed)
        ok = embed_collect(&doc, o->embed_path, &o->embed_opts, r->files, d);
    return ok;
}

SccStatus scc_compile(char *src, size_t len, const SccCompileOpts *o, Diags *d, SccResult *r)
{
    r->bytes = NULL;
    r->n_bytes = 0;
    r->program = NULL;
    r->why[0] = 0;
    Arena *arena = arena_new();
    BcBuilder *b = bcb_new();
    if (!arena || !b) {
        if (o->free_source)
            sc_free(src);
        arena_free(arena);
        bcb_free(b);
        return SCC_NOMEM;
    }
    /* A UTF-8 byte order mark (editors on Windows write one) is not part
    ** of the text: YAML 1.2 and JSON readers skip it, so do we (lines and
    ** columns count from after it). */
    if (len >= 3 && (unsigned char)src[0] == 0xEF && (unsigned char)src[1] == 0xBB && (unsigned char)src[2] == 0xBF) {
        memmove(src, src + 3, len - 3);
        len -= 3;
        src[len] = 0;
    }
    bool emit = compile_front(src, len, o, arena, b, d, r) && !diags_failed(d);
    /* Finishing needs only the builder: dropping the tree first keeps it
    ** out of the peak, which is inside compression (massif, bench/: 16x
    ** the input before, docs/performance.md). */
    arena_free(arena);
    SccStatus st = emit ? SCC_OK : SCC_ERRORS;
    if (emit) {
        /* Everything emitted goes through the same verifier scvm uses (on
        ** the payload, before compression); the program is kept only for
        ** a listing (1.5 MB scenario: 2 MB off the peak without it). */
        BcWriteOpts wo = { .strip_lines = o->strip_lines, .zstd_level = o->zstd_level, .verify = true,
                           .verified = o->keep_program ? &r->program : NULL };
        if (!bcb_finish(b, &wo, &r->bytes, &r->n_bytes)) {
            snprintf(r->why, sizeof r->why, "%s", bcb_error(b) ? bcb_error(b) : "out of memory");
            st = SCC_INTERNAL;
        }
        phase_done(NULL, o, SCC_PHASE_FINISH, NULL);
    }
    bcb_free(b);
    return st;
}

size_t scc_matrix_size(const char *src, size_t len, const SccCompileOpts *o)
{
    bool forced = o->dialect && strcmp(o->dialect, "auto") != 0;
    if ((forced && strcmp(o->dialect, "eliza") != 0) || len > YAML_MAX_INPUT || looks_like_jsonl(src, len) ||
        !memmem(src, len, "base_scenario", 13))
        return 0;       /* not a matrix, at the cost of a search rather than a parse */
    Arena *arena = arena_new();
    Diags d;
    diags_init(&d);
    YDoc doc;
    size_t n = 0;
    if (arena && yaml_parse(src, len, o->source_name, arena, &d, &doc) && eliza_matrix_detect(&doc)) {
        ElizaMatrix m;
        char *shown = dir_of(o->source_name);
        n = shown && eliza_matrix_load(&doc, o->base_dir ? o->base_dir : ".", shown, arena, &d, &m) ? m.scenarios : 1;
        sc_free(shown);
    }
    diags_fini(&d);
    arena_free(arena);
    return n;
}
