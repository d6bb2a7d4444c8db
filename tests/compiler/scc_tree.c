/* SPDX-License-Identifier: MIT */
/* scc_tree.c - test driver: YAML file -> (rules) -> diagnostics or canonical JSON.
**
**   scc_tree [--no-rules] [-D NAME[=VALUE]]... [--env LIST] file.yaml
**
** Parses the file with yaml_parse(), builds the symbol table the way scc
** does (-D flags, then AH_SCENARIO_DEFINES given as --env, CLI winning per
** key), runs rules_resolve() and prints the diagnostics in GNU form, then,
** when there was no error, the tree as one line of JSON (keys in source
** order; non-finite floats as Infinity/-Infinity/NaN).  Exit 0 when no
** error was recorded, 1 otherwise, 2 on usage errors. */
#include "compiler/yaml_tree.h"
#include "compiler/rules.h"

#include "common/arena.h"
#include "common/buf.h"
#include "common/diag.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_json(Buf *b, const YNode *n, int depth)
{
    if (!n) {
        buf_puts(b, "null");
        return;
    }
    if (depth > 200) {          /* an alias cycle would be a yaml_tree bug */
        buf_puts(b, "\"<too deep>\"");
        return;
    }
    switch ((YKind)n->kind) {
    case YN_MAP:
        buf_putc(b, '{');
        for (uint32_t i = 0; i < n->n; i++) {
            if (i)
                buf_putc(b, ',');
            const YNode *k = &n->u.pairs[i].key;
            if (k->kind == YN_SCALAR)
                buf_json_str(b, k->u.s, k->n);
            else
                buf_puts(b, "\"<non-scalar key>\"");
            buf_putc(b, ':');
            put_json(b, &n->u.pairs[i].val, depth + 1);
        }
        buf_putc(b, '}');
        return;
    case YN_SEQ:
        buf_putc(b, '[');
        for (uint32_t i = 0; i < n->n; i++) {
            if (i)
                buf_putc(b, ',');
            put_json(b, &n->u.items[i], depth + 1);
        }
        buf_putc(b, ']');
        return;
    case YN_SCALAR:
        break;
    }
    switch ((YType)n->type) {
    case YT_NULL: buf_puts(b, "null"); break;
    case YT_BOOL: buf_puts(b, ybool(n) ? "true" : "false"); break;
    case YT_INT: buf_printf(b, "%lld", (long long)yint(n)); break;
    case YT_FLOAT:
        if (isnan(yfloat(n)))
            buf_puts(b, "NaN");
        else if (isinf(yfloat(n)))
            buf_puts(b, yfloat(n) > 0 ? "Infinity" : "-Infinity");
        else {
            char tmp[40];
            snprintf(tmp, sizeof tmp, "%.17g", yfloat(n));
            buf_puts(b, tmp);
            if (!strpbrk(tmp, ".e"))
                buf_puts(b, ".0");   /* keep floats apart from ints */
        }
        break;
    case YT_STR: buf_json_str(b, n->u.s, n->n); break;
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: scc_tree [--no-rules] [--stats] [-D NAME[=VALUE]]... [--env LIST] file.yaml\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *env = NULL, *why = NULL;
    bool rules = true, stats = false;
    Symtab cli, envt;
    symtab_init(&cli);
    symtab_init(&envt);
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-rules") == 0) {
            rules = false;
        } else if (strcmp(argv[i], "--stats") == 0) {
            stats = true;
        } else if (strcmp(argv[i], "-D") == 0 && i + 1 < argc) {
            if (!symtab_define(&cli, argv[++i], &why)) {
                printf("scc_tree: -D %s: %s\n", argv[i], why);
                rc = 2;
            }
        } else if (strcmp(argv[i], "--env") == 0 && i + 1 < argc) {
            env = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage();
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return usage();
    if (env && !symtab_define_list(&envt, env, &why)) {
        printf("scc_tree: AH_SCENARIO_DEFINES: %s\n", why);
        rc = 2;
    }
    if (rc) {
        symtab_fini(&cli);
        symtab_fini(&envt);
        return rc;
    }
    if (!symtab_merge_missing(&cli, &envt)) {
        fprintf(stderr, "scc_tree: out of memory\n");
        return 2;
    }
    char *src;
    size_t len;
    if (file_read_all(path, (size_t)1 << 30, &src, &len) != 0) {
        fprintf(stderr, "scc_tree: cannot read %s\n", path);
        return 2;
    }
    Arena *arena = arena_new();
    Diags diags;
    diags_init(&diags);
    YDoc doc;
    bool ok = yaml_parse(src, len, path, arena, &diags, &doc);
    if (ok && rules)
        ok = rules_resolve(&doc, &cli, arena, &diags);
    diags_print(&diags, stdout, NULL);
    if (ok && !diags_failed(&diags)) {
        Buf b;
        buf_init(&b);
        put_json(&b, doc.root, 0);
        buf_putc(&b, '\n');
        fwrite(b.data, 1, b.len, stdout);
        buf_fini(&b);
    }
    if (stats)
        fprintf(stderr, "arena: %zu bytes\n", arena_footprint(arena));
    rc = ok && !diags_failed(&diags) ? 0 : 1;
    diags_fini(&diags);
    arena_free(arena);
    sc_free(src);
    symtab_fini(&cli);
    symtab_fini(&envt);
    return rc;
}
