/* SPDX-License-Identifier: MIT */
/* compile.h - the one compile pipeline: scenario bytes -> bytecode.
**
** Parse (YAML, which also reads JSON), pick the front end from the table
** in compile.c (Scenario-Format with its rules, tui-use, ElizaOS, Yao),
** lower, collect
** the referenced files, finish and verify the bytecode.  scc, the
** benchmark and the fuzz target all compile through scc_compile(), so
** what they measure and test is what scc ships.  Never prints: problems
** go to the caller's Diags (common/diag.h), as the front ends record them. */
#ifndef SC_COMPILE_H
#define SC_COMPILE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/arena.h"
#include "common/diag.h"
#include "formats/bc.h"
#include "embed.h"
#include "rules.h"

typedef enum SccPhase { SCC_PHASE_PARSE, SCC_PHASE_RULES, SCC_PHASE_LOWER, SCC_PHASE_FINISH, SCC_PHASE__N } SccPhase;

typedef struct SccCompileOpts {
    const char *source_name;   /* the name diagnostics show ("<stdin>") */
    const char *meta_name;     /* the name recorded in the metadata (a base name) */
    const char *base_dir;      /* the scenario's folder: referenced files */
    const Symtab *syms;        /* -D symbols for rules; may be NULL */
    const char *variant;       /* scc --variant: a Scenario-Format scenario's NAME@VARIANT; NULL = none */
    bool spec_clock;           /* scc --clock=spec: the default for files without `clock:` */
    const char *dialect;       /* NULL/"auto": by shape; "scenario"; "tui-use"; "eliza"; "yao" */
    bool policy_outside;       /* scc --policy-outside: a tui-use policy file may be outside base_dir */
    size_t matrix_pick;        /* an ElizaOS matrix's scenario to compile, 1-based (eliza_matrix.h); 0: the
                               ** matrix must make exactly one */
    bool strip_lines;          /* omit the line table */
    int zstd_level;            /* 0 = the pinned default */
    /* free_source: src was sc_malloc()ed and is freed as soon as only
    ** carets could need it (before lowering), keeping it out of the peak
    ** (1.5 MB benchmark scenario: RSS 5.6x -> 4.8x the input). */
    bool free_source;
    /* embed: collect the referenced files of a Scenario-Format scenario
    ** (embed_path is its path, embed_opts how) into SccResult.files. */
    bool embed;
    const char *embed_path;
    EmbedOpts embed_opts;
    bool keep_program;         /* return the verified program (listings) */
    /* Called after each phase, for the benchmark's split; may be NULL. */
    void (*on_phase)(void *ctx, SccPhase ph, const Arena *arena);
    void *phase_ctx;
} SccCompileOpts;

typedef enum SccStatus {
    SCC_OK,          /* bytes hold the bytecode */
    SCC_ERRORS,      /* the scenario has errors (in the Diags) */
    SCC_NOMEM,       /* out of memory before compiling */
    SCC_INTERNAL,    /* the emitted bytecode failed verification: why */
} SccStatus;

typedef struct SccResult {
    unsigned char *bytes;      /* sc_free() it */
    size_t n_bytes;
    BcProgram *program;        /* with keep_program; bc_free() it */
    EmbedList *files;          /* caller's list, filled when embed */
    char why[256];             /* SCC_INTERNAL: the builder's error */
} SccResult;

/* Compiles len bytes of src.  Diagnostics are added to d (initialised by
** the caller, with its -Werror and disabled flags); the result is SCC_OK
** only when d has no failure. */
SccStatus scc_compile(char *src, size_t len, const SccCompileOpts *o, Diags *d, SccResult *r);

/* How many scenarios src makes: 0 when it is not an ElizaOS matrix (or
** not valid YAML: scc_compile then says why), else its scenario count
** (eliza_matrix.h); a matrix that has errors counts 1, so that compiling
** it reports them once.  Reads the base scenario; never prints. */
/* The i-th front end's --dialect name ("tui-use", "eliza", "yao",
** "scenario"), NULL past the last; "auto" is not one of them. */
const char *scc_dialect_name(size_t i);

size_t scc_matrix_size(const char *src, size_t len, const SccCompileOpts *o);

#endif
