/* SPDX-License-Identifier: MIT */
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

/* ---- the front ends ---- */

/* One compilation as a front end's lower function sees it.  The arena
** and the source are the caller's; a lower function frees the source
** (o->free_source) as soon as only carets could need it. */
typedef struct FeRun {
    char *src;
    size_t len;
    const SccCompileOpts *o;
    Arena *arena;
    BcBuilder *b;
    Diags *d;
    SccResult *r;
    const Symtab *syms;
    YDoc *doc;                 /* the tree; NULL when detected on the source */
} FeRun;

static void free_source(FeRun *c)
{
    if (c->o->free_source)
        sc_free(c->src);
}

/* Yao agent-test cases (dialect_yao.c): detected on the bytes (a stream
** of JSON objects, one a line or pretty-printed), or on the tree (a case
** written as a YAML document); yao_detect_tree is dialect_yao.h's. */
static bool yao_run(FeRun *c)
{
    c->d->code = "scenario";   /* its lines are parsed and read in one pass */
    bool ok = yao_lower(c->src, c->len, c->o->source_name, c->o->meta_name, c->arena, c->b, c->d);
    /* Found on the tree, only the parse was reported (as before the table:
    ** a benchmark split of it would count its lowering as the finish). */
    if (!c->doc) {
        phase_done(c->d, c->o, SCC_PHASE_PARSE, c->arena);
        phase_done(c->d, c->o, SCC_PHASE_RULES, c->arena);
        phase_done(c->d, c->o, SCC_PHASE_LOWER, c->arena);
    }
    free_source(c);
    return ok;
}

/* The tui-use dialect (dialect_tuiuse.c): no rules. */
static bool tuiuse_run(FeRun *c)
{
    const SccCompileOpts *o = c->o;
    c->d->code = "scenario";
    phase_done(c->d, o, SCC_PHASE_RULES, c->arena);
    free_source(c);
    c->doc->src = NULL;
    c->doc->src_len = 0;
    TuiUseOpts to = { .source_name = o->meta_name, .base_dir = o->base_dir, .arena = c->arena,
                      .policy_outside = o->policy_outside };
    bool ok = tuiuse_lower(c->doc, &to, c->b, c->d);
    phase_done(c->d, o, SCC_PHASE_LOWER, c->arena);
    return ok;
}

/* ElizaOS (dialect_eliza.c): a scenario, or a matrix (eliza_matrix.c) of
** which one scenario is compiled. */
static bool eliza_run(FeRun *c)
{
    const SccCompileOpts *o = c->o;
    YDoc *doc = c->doc;
    bool ok;
    c->d->code = "scenario";   /* no rules come first */
    if (eliza_matrix_detect(doc)) {
        ElizaMatrix m;
        char *shown = dir_of(o->source_name);
        ok = shown && eliza_matrix_load(doc, o->base_dir ? o->base_dir : ".", shown, c->arena, c->d, &m);
        sc_free(shown);
        if (ok && (o->matrix_pick > m.scenarios || (!o->matrix_pick && m.scenarios != 1))) {
            diag_add(c->d, DIAG_ERROR, o->source_name, doc->root->line, doc->root->col, NULL,
                     o->matrix_pick ? "this ElizaOS matrix makes %zu scenarios, not %zu"
                                    : "this ElizaOS matrix makes %zu scenarios: compile it into a pack (scc --pack)",
                     m.scenarios, o->matrix_pick);
            ok = false;
        }
        if (ok)
            ok = eliza_matrix_lower(&m, o->matrix_pick ? o->matrix_pick : 1, o->meta_name, c->arena, c->b, c->d);
        c->d->code = "reference";
        if (ok && o->embed)
            ok = embed_reference(doc, ymap_get(doc->root, "base_scenario"), m.base_rel, o->embed_path,
                                 &o->embed_opts, c->r->files, c->d);
    } else {
        ok = eliza_lower(doc, o->meta_name, c->b, c->d);
    }
    phase_done(c->d, o, SCC_PHASE_RULES, c->arena);
    free_source(c);
    phase_done(c->d, o, SCC_PHASE_LOWER, c->arena);
    return ok;
}

/* Scenario-Format (rules.c, lower.c): the default. */
static bool scenario_run(FeRun *c)
{
    const SccCompileOpts *o = c->o;
    bool ok = rules_resolve(c->doc, c->syms, c->arena, c->d);   /* reads doc.src for columns */
    phase_done(c->d, o, SCC_PHASE_RULES, c->arena);
    /* Only carets need the source from here on, and the caller can read a
    ** file again for them. */
    free_source(c);
    c->doc->src = NULL;
    c->doc->src_len = 0;
    if (ok) {
        LowerOpts lo = { .source_name = o->meta_name, .base_dir = o->base_dir, .syms = c->syms,
                         .variant = o->variant, .spec_clock = o->spec_clock };
        ok = lower_scenario(c->doc, &lo, c->b, c->d);
    }
    phase_done(c->d, o, SCC_PHASE_LOWER, c->arena);
    if (ok && o->embed)
        ok = embed_collect(c->doc, o->embed_path, &o->embed_opts, c->r->files, c->d);
    return ok;
}

/* The front ends, in the order they are tried by shape (--dialect=auto):
** first every detect_source on the bytes (before parsing: a JSON Lines
** file is no YAML), then every detect on the tree; the row without detect
** takes what is left.  --dialect=NAME picks its row whatever the shape.
** A new dialect is a row here and its lower function. */
typedef struct FrontEnd {
    const char *name;                                   /* --dialect NAME */
    bool (*detect_source)(const char *src, size_t len); /* NULL: none on the bytes */
    bool (*detect)(const YDoc *doc);                    /* NULL: the default */
    bool (*run)(FeRun *c);
} FrontEnd;

static const FrontEnd FRONT_ENDS[] = {
    { "tui-use", NULL, tuiuse_detect, tuiuse_run },
    { "eliza", NULL, eliza_detect, eliza_run },
    { "yao", yao_detect, yao_detect_tree, yao_run },
    { "scenario", NULL, NULL, scenario_run },
};
enum { N_FRONT_ENDS = sizeof FRONT_ENDS / sizeof FRONT_ENDS[0] };

const char *scc_dialect_name(size_t i)
{
    return i < N_FRONT_ENDS ? FRONT_ENDS[i].name : NULL;
}

/* --dialect NAME's row, or NULL for auto (an unknown name reads as
** Scenario-Format: scc checks the name before). */
static const FrontEnd *front_forced(const char *dialect)
{
    if (!dialect || strcmp(dialect, "auto") == 0)
        return NULL;
    for (size_t i = 0; i < N_FRONT_ENDS; i++)
        if (strcmp(FRONT_ENDS[i].name, dialect) == 0)
            return &FRONT_ENDS[i];
    return &FRONT_ENDS[N_FRONT_ENDS - 1];
}

/* Front ends: source or YAML tree -> (rules) -> events -> builder. */
static bool compile_front(char *src, size_t len, const SccCompileOpts *o, Arena *arena, BcBuilder *b,
                          Diags *d, SccResult *r)
{
    /* No symbols given: none defined (rules see every symbol unset). */
    Symtab none;
    symtab_init(&none);
    FeRun c = { .src = src, .len = len, .o = o, .arena = arena, .b = b, .d = d, .r = r,
                .syms = o->syms ? o->syms : &none };
    d->code = "syntax";
    const FrontEnd *forced = front_forced(o->dialect);
    for (size_t i = 0; i < N_FRONT_ENDS; i++) {
        const FrontEnd *fe = &FRONT_ENDS[i];
        if (fe->detect_source && (forced ? forced == fe : fe->detect_source(src, len)))
            return fe->run(&c);
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
                 "scc compiles Scenario-Format, tui-use, ElizaOS and Yao files (a Yao file's first object is a "
                 "case: \"id\" and \"input\", \"turns\" or \"simulator\"); docs/dialects.md says what it does with the others");
        free_source(&c);
        return false;
    }
    YDoc doc;
    bool ok = yaml_parse(src, len, o->source_name, arena, d, &doc);
    phase_done(d, o, SCC_PHASE_PARSE, arena);
    if (!ok) {
        phase_done(d, o, SCC_PHASE_RULES, arena);
        free_source(&c);
        phase_done(d, o, SCC_PHASE_LOWER, arena);
        return false;
    }
    c.doc = &doc;
    const FrontEnd *fe = forced;
    for (size_t i = 0; !fe && i < N_FRONT_ENDS; i++)
        if (!FRONT_ENDS[i].detect || FRONT_ENDS[i].detect(&doc))
            fe = &FRONT_ENDS[i];
    return fe->run(&c);
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
