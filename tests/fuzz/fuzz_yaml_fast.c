/* SPDX-License-Identifier: MIT */
/* fuzz_yaml_fast.c - the fast YAML reader (compiler/yaml_fast.c) against
** libyaml on any input.  A finding, besides a crash or a sanitizer report:
** the fast reader accepts what the libyaml path rejects, records a
** diagnostic, or builds a tree that differs from libyaml's in any node
** (kind, scalar type, style, flags, line, column, length, text). */
#include "compiler/yaml_tree.h"

#include "common/arena.h"
#include "common/diag.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void differ(const YNode *a, const YNode *b, const char *what)
{
    fprintf(stderr, "fuzz_yaml_fast: %s: fast %u:%u kind %u type %u style %u n %u | libyaml %u:%u kind %u "
            "type %u style %u n %u\n", what, a ? a->line : 0, a ? a->col : 0, a ? a->kind : 0,
            a ? a->type : 0, a ? a->style : 0, a ? a->n : 0, b ? b->line : 0, b ? b->col : 0,
            b ? b->kind : 0, b ? b->type : 0, b ? b->style : 0, b ? b->n : 0);
    abort();
}

static void same_tree(const YNode *a, const YNode *b)
{
    if (!a || !b) {
        if (a != b)
            differ(a, b, "one root is empty");
        return;
    }
    if (a->kind != b->kind || a->type != b->type || a->style != b->style || a->flags != b->flags ||
        a->line != b->line || a->col != b->col || a->n != b->n ||
        (a->kind == YN_SCALAR && memcmp(a->u.s, b->u.s, a->n) != 0))
        differ(a, b, "node differs");
    for (uint32_t i = 0; i < a->n; i++) {
        if (a->kind == YN_SEQ)
            same_tree(&a->u.items[i], &b->u.items[i]);
        else if (a->kind == YN_MAP) {
            same_tree(&a->u.pairs[i].key, &b->u.pairs[i].key);
            same_tree(&a->u.pairs[i].val, &b->u.pairs[i].val);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an exact-size copy, so that reading past the end is a finding */
    char *src = malloc(size ? size : 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    Arena *fa = arena_new(), *la = arena_new();
    Diags fd, ld;
    diags_init(&fd);
    diags_init(&ld);
    YDoc fdoc, ldoc;
    if (fa && la && yaml_parse_with(src, size, "fuzz.yaml", fa, &fd, &fdoc, YAML_READ_FAST)) {
        if (fd.n != 0) {
            fprintf(stderr, "fuzz_yaml_fast: the fast reader recorded a diagnostic\n");
            abort();
        }
        if (!yaml_parse_with(src, size, "fuzz.yaml", la, &ld, &ldoc, YAML_READ_LIBYAML)) {
            fprintf(stderr, "fuzz_yaml_fast: the fast reader accepts what libyaml rejects\n");
            abort();
        }
        same_tree(fdoc.root, ldoc.root);
        if (fdoc.rules_key != ldoc.rules_key) {
            fprintf(stderr, "fuzz_yaml_fast: the readers disagree on whether a key is 'rules'\n");
            abort();
        }
    }
    diags_fini(&fd);
    diags_fini(&ld);
    arena_free(fa);
    arena_free(la);
    free(src);
    return 0;
}
