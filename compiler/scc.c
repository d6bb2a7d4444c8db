/* scc.c - the scenario compiler's command line.
**
**   scc [options] FILE...       compile each FILE to FILE.scb (or -o)
**   scc -l FILE                 list the resolved schedule (like luac -l)
**   scc --check FILE...         diagnostics only, no output
**
** Exit statuses (docs/scc.md): 0 ok, 1 errors in a scenario, 2 usage,
** 3 I/O error, 4 internal error (emitted bytecode failed verification). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/arena.h"
#include "../common/buf.h"
#include "../common/diag.h"
#include "../common/fileio.h"
#include "../common/sc_alloc.h"
#include "../formats/bc.h"
#include "../formats/bc_write.h"
#include "lower.h"
#include "rules.h"
#include "yaml_tree.h"

enum { EXIT_OK = 0, EXIT_ERRORS = 1, EXIT_USAGE = 2, EXIT_IO = 3, EXIT_INTERNAL = 4 };
enum { MAX_SOURCE = 64 << 20 };

typedef struct Opts {
    const char *out;
    int list;                 /* -l count */
    bool check;
    bool strip;
    bool json_diags;
    int color;                /* -1 auto, 0 never, 1 always */
    bool werror;
    const char **no_warn;
    size_t n_no_warn;
    Symtab syms;
} Opts;

static void usage(FILE *f)
{
    fputs("usage: scc [options] FILE...\n"
          "Compile Scenario-Format YAML to verified bytecode (.scb).\n"
          "\n"
          "  -o FILE             write the bytecode to FILE (one input; '-' = stdout)\n"
          "                      default: each input's name with .scb for .yaml/.yml/.json\n"
          "  -D NAME[=VALUE]     define a rules symbol (also --define); NAME alone is true\n"
          "  -l                  list the compiled ops with times and source lines\n"
          "                      (writes no file unless -o is given)\n"
          "  -s                  strip the line table\n"
          "  --check             check only: report diagnostics, write nothing\n"
          "  -Werror             treat warnings as errors\n"
          "  -Wno-NAME           disable warning NAME (unknown-key, deprecated, ...)\n"
          "  --diagnostics-format=text|json\n"
          "  --color=auto|always|never\n"
          "  --help, --version\n"
          "\n"
          "Symbols also come from AH_SCENARIO_DEFINES=\"K=V,FLAG,N=3\"; -D wins per key.\n"
          "Exit status: 0 ok, 1 errors in a scenario, 2 usage, 3 I/O error,\n"
          "4 internal error.\n", f);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* "dir/x.yaml" -> "dir/x.scb" */
static char *default_output(const char *in)
{
    size_t n = strlen(in);
    const char *exts[] = { ".yaml", ".yml", ".json" };
    for (size_t i = 0; i < 3; i++) {
        size_t el = strlen(exts[i]);
        if (n > el && strcmp(in + n - el, exts[i]) == 0) {
            n -= el;
            break;
        }
    }
    char *out = sc_malloc(n + 5);
    if (out) {
        memcpy(out, in, n);
        memcpy(out + n, ".scb", 5);
    }
    return out;
}

static char *dir_name(const char *p)
{
    const char *s = strrchr(p, '/');
    size_t n = s ? (size_t)(s - p) : 1;
    char *d = sc_malloc(n + 1);
    if (!d)
        return NULL;
    memcpy(d, s ? p : ".", n);
    d[n] = 0;
    if (s && n == 0) {
        d[0] = '/';
        d[1] = 0;
    }
    return d;
}

/* Compiles one file.  Returns an exit status. */
static int compile_one(const char *path, const char *out, const Opts *o)
{
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    char *src = NULL;
    size_t len = 0;
    int e = file_read_all(path, MAX_SOURCE, &src, &len);
    if (e) {
        fprintf(stderr, "scc: %s: %s\n", shown, e == EFBIG ? "file too large" : strerror(e));
        return EXIT_IO;
    }
    Arena *arena = arena_new();
    BcBuilder *b = bcb_new();
    char *dir = dir_name(path);
    Diags d;
    diags_init(&d);
    d.werror = o->werror;
    d.disabled = o->no_warn;
    d.n_disabled = o->n_no_warn;
    int status = EXIT_OK;
    unsigned char *bytes = NULL;
    size_t n_bytes = 0;
    if (!arena || !b || !dir) {
        fprintf(stderr, "scc: %s: out of memory\n", shown);
        status = EXIT_INTERNAL;
        goto done;
    }
    YDoc doc;
    bool ok = yaml_parse(src, len, shown, arena, &d, &doc);
    if (ok)
        ok = rules_resolve(&doc, &o->syms, arena, &d);
    if (ok) {
        LowerOpts lo = { .source_name = base_name(shown), .base_dir = dir, .syms = &o->syms };
        ok = lower_scenario(&doc, &lo, b, &d);
    }
    if (ok && !diags_failed(&d)) {
        BcWriteOpts wo = { .strip_lines = o->strip };
        if (!bcb_finish(b, &wo, &bytes, &n_bytes)) {
            fprintf(stderr, "scc: %s: internal error: %s\n", shown,
                    bcb_error(b) ? bcb_error(b) : "out of memory");
            status = EXIT_INTERNAL;
            goto done;
        }
        /* Everything scc emits goes through the same verifier scvm uses. */
        BcProgram *prog = NULL;
        BcError be;
        if (bc_load(bytes, n_bytes, NULL, &prog, &be) != BC_ERR_OK) {
            fprintf(stderr, "scc: %s: internal error: emitted bytecode rejected: %s\n", shown, be.msg);
            status = EXIT_INTERNAL;
            goto done;
        }
        if (o->list) {
            Buf lb;
            buf_init(&lb);
            BcListOpts lo = { .lines = true, .header = o->list > 1, .source = shown };
            bc_list(prog, &lo, &lb);
            fwrite(lb.data, 1, lb.len, stdout);
            buf_fini(&lb);
        }
        bc_free(prog);
    } else {
        status = EXIT_ERRORS;
    }
    bool color = o->color == 1 || (o->color == -1 && isatty(STDERR_FILENO) && getenv("NO_COLOR") == NULL);
    if (o->json_diags) {
        diags_print_json(&d, stderr);
    } else {
        DiagPrintOpts po = { .color = color, .caret = color, .src = src, .src_len = len };
        diags_print(&d, stderr, &po);
    }
    if (status == EXIT_OK && !o->check && (!o->list || o->out)) {
        e = file_write_atomic(out, bytes, n_bytes);
        if (e) {
            fprintf(stderr, "scc: %s: cannot write: %s\n", out, strerror(e));
            status = EXIT_IO;
        }
    }
done:
    diags_fini(&d);
    sc_free(bytes);
    sc_free(dir);
    bcb_free(b);
    arena_free(arena);
    sc_free(src);
    return status;
}

static bool define(Opts *o, const char *def)
{
    const char *why = NULL;
    if (!symtab_define(&o->syms, def, &why)) {
        fprintf(stderr, "scc: bad -D '%s': %s\n", def, why ? why : "malformed");
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    Opts o = { .color = -1 };
    symtab_init(&o.syms);
    const char **inputs = sc_calloc((size_t)argc, sizeof *inputs);
    o.no_warn = sc_calloc((size_t)argc, sizeof *o.no_warn);
    size_t n_in = 0;
    int status = EXIT_USAGE;
    if (!inputs || !o.no_warn) {
        fputs("scc: out of memory\n", stderr);
        return EXIT_INTERNAL;
    }
    bool only_files = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0) {
            inputs[n_in++] = a;
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            status = EXIT_OK;
            goto out;
        } else if (strcmp(a, "--version") == 0 || strcmp(a, "-v") == 0) {
            printf("scc %s (bytecode %d.%d)\n", SCC_VERSION, BC_VERSION_MAJOR, BC_VERSION_MINOR);
            status = EXIT_OK;
            goto out;
        } else if (strcmp(a, "-o") == 0) {
            if (++i == argc) {
                fputs("scc: -o needs a file name\n", stderr);
                goto out;
            }
            o.out = argv[i];
        } else if (strcmp(a, "-D") == 0 || strcmp(a, "--define") == 0) {
            if (++i == argc) {
                fprintf(stderr, "scc: %s needs NAME[=VALUE]\n", a);
                goto out;
            }
            if (!define(&o, argv[i]))
                goto out;
        } else if (strncmp(a, "-D", 2) == 0) {
            if (!define(&o, a + 2))
                goto out;
        } else if (strncmp(a, "--define=", 9) == 0) {
            if (!define(&o, a + 9))
                goto out;
        } else if (strcmp(a, "-l") == 0) {
            o.list++;
        } else if (strcmp(a, "-ll") == 0) {
            o.list += 2;
        } else if (strcmp(a, "-s") == 0) {
            o.strip = true;
        } else if (strcmp(a, "--check") == 0) {
            o.check = true;
        } else if (strcmp(a, "-Werror") == 0) {
            o.werror = true;
        } else if (strncmp(a, "-Wno-", 5) == 0 && a[5]) {
            o.no_warn[o.n_no_warn++] = a + 5;
        } else if (strcmp(a, "--diagnostics-format=json") == 0) {
            o.json_diags = true;
        } else if (strcmp(a, "--diagnostics-format=text") == 0) {
            o.json_diags = false;
        } else if (strncmp(a, "--color=", 8) == 0) {
            const char *v = a + 8;
            if (strcmp(v, "always") == 0)
                o.color = 1;
            else if (strcmp(v, "never") == 0)
                o.color = 0;
            else if (strcmp(v, "auto") == 0)
                o.color = -1;
            else {
                fprintf(stderr, "scc: --color takes auto, always or never\n");
                goto out;
            }
        } else {
            fprintf(stderr, "scc: unknown option '%s'\n", a);
            fputs("Try 'scc --help'.\n", stderr);
            goto out;
        }
    }
    if (n_in == 0) {
        fputs("scc: no input files\nTry 'scc --help'.\n", stderr);
        goto out;
    }
    if (o.out && n_in > 1) {
        fputs("scc: -o takes one input file\n", stderr);
        goto out;
    }
    const char *env = getenv("AH_SCENARIO_DEFINES");
    if (env) {
        Symtab es;
        symtab_init(&es);
        const char *why = NULL;
        if (!symtab_define_list(&es, env, &why)) {
            fprintf(stderr, "scc: bad AH_SCENARIO_DEFINES: %s\n", why ? why : "malformed");
            symtab_fini(&es);
            goto out;
        }
        symtab_merge_missing(&o.syms, &es);
        symtab_fini(&es);
    }
    status = EXIT_OK;
    for (size_t i = 0; i < n_in; i++) {
        char *def = NULL;
        const char *out = o.out;
        if (!out && strcmp(inputs[i], "-") == 0)
            out = "-";
        if (!out)
            out = def = default_output(inputs[i]);
        int s = out ? compile_one(inputs[i], out, &o) : EXIT_INTERNAL;
        sc_free(def);
        if (s > status)
            status = s;
    }
out:
    symtab_fini(&o.syms);
    sc_free(inputs);
    sc_free((void *)o.no_warn);
    return status;
}
