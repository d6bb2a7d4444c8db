/* scc.c - the scenario compiler's command line.
**
**   scc [options] FILE...       compile each FILE to FILE.scb (or -o)
**   scc -l FILE                 list the resolved schedule (like luac -l)
**   scc --check FILE...         diagnostics only, no output
**
** Exit statuses (docs/scc.md): 0 ok, 1 errors in a scenario, 2 usage,
** 3 I/O error, 4 internal error (emitted bytecode failed verification). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
enum { DF_TEXT, DF_JSON, DF_SARIF };

/* SARIF results of every file, printed as one log at the end. */
static Buf sarif;
static size_t sarif_n;

/* One SARIF result per diagnostic; a note becomes a related location of
** the result before it. */
static void sarif_physical(Buf *b, const Diag *g)
{
    buf_puts(b, "{\"artifactLocation\":{\"uri\":");
    buf_json_str(b, g->file ? g->file : "", g->file ? strlen(g->file) : 0);
    buf_putc(b, '}');
    if (g->line)
        buf_printf(b, ",\"region\":{\"startLine\":%u,\"startColumn\":%u}", g->line, g->col ? g->col : 1);
    buf_putc(b, '}');
}

static void sarif_add(const Diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        const Diag *g = &d->v[i];
        if (g->level == DIAG_NOTE)
            continue;
        buf_puts(&sarif, sarif_n++ ? ",\n    " : "\n    ");
        buf_puts(&sarif, "{\"ruleId\":");
        const char *rule = g->flag ? g->flag : "error";
        buf_json_str(&sarif, rule, strlen(rule));
        buf_printf(&sarif, ",\"level\":\"%s\",\"message\":{\"text\":",
                   g->level == DIAG_ERROR ? "error" : "warning");
        buf_json_str(&sarif, g->msg, strlen(g->msg));
        buf_puts(&sarif, "},\"locations\":[{\"physicalLocation\":");
        sarif_physical(&sarif, g);
        buf_puts(&sarif, "}]");
        size_t k = i + 1;
        if (k < d->n && d->v[k].level == DIAG_NOTE) {
            buf_puts(&sarif, ",\"relatedLocations\":[");
            for (; k < d->n && d->v[k].level == DIAG_NOTE; k++) {
                buf_puts(&sarif, k > i + 1 ? ",{\"message\":{\"text\":" : "{\"message\":{\"text\":");
                buf_json_str(&sarif, d->v[k].msg, strlen(d->v[k].msg));
                buf_puts(&sarif, "},\"physicalLocation\":");
                sarif_physical(&sarif, &d->v[k]);
                buf_putc(&sarif, '}');
            }
            buf_putc(&sarif, ']');
        }
        buf_putc(&sarif, '}');
    }
}

static void sarif_print(FILE *f)
{
    static const char *const rules[][2] = {
        { "error", "an error in a scenario" },
        { "unknown-key", "a key the Scenario-Format does not define; it is ignored" },
        { "deprecated", "a deprecated or non-standard spelling or feature" },
        { "nonstandard", "a value outside the values the spec lists" },
        { "session-start", "a sessionStart without acp.capabilities.loadSession" },
    };
    fputs("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
          "  \"version\": \"2.1.0\",\n  \"runs\": [{\n"
          "   \"tool\": {\"driver\": {\"name\": \"scc\", \"version\": \"" SCC_VERSION "\",\n"
          "     \"rules\": [", f);
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        fprintf(f, "%s\n      {\"id\": \"%s\", \"shortDescription\": {\"text\": \"%s\"}}",
                i ? "," : "", rules[i][0], rules[i][1]);
    fputs("]}},\n   \"columnKind\": \"unicodeCodePoints\",\n   \"results\": [", f);
    fwrite(sarif.data, 1, sarif.len, f);
    fputs(sarif_n ? "\n   ]\n  }]\n}\n" : "]\n  }]\n}\n", f);
}


typedef struct Opts {
    const char *out;
    int list;                 /* -l count */
    bool check;
    bool strip;
    int diag_format;          /* DF_TEXT, DF_JSON, DF_SARIF */
    int color;                /* -1 auto, 0 never, 1 always */
    bool werror;
    const char **no_warn;
    size_t n_no_warn;
    Symtab syms;
} Opts;

static void usage(FILE *f)
{
    fputs("usage: scc [options] FILE|DIR...\n"
          "Compile Scenario-Format YAML to verified bytecode (.scb).\n"
          "A DIR stands for every .yaml, .yml and .json file below it, in sorted order.\n"
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
          "  --diagnostics-format=text|json|sarif\n"
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
    if (o->diag_format == DF_JSON) {
        diags_print_json(&d, stderr);
    } else if (o->diag_format == DF_SARIF) {
        sarif_add(&d);
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

/* Paths: a file, or every scenario file below a directory (sorted,
** dot-entries and symbolic links to directories skipped). */
typedef struct PathList {
    char **v;
    size_t n, cap;
} PathList;

static bool paths_add(PathList *l, const char *p)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **v = sc_realloc(l->v, cap * sizeof *v);
        if (!v)
            return false;
        l->v = v;
        l->cap = cap;
    }
    size_t n = strlen(p);
    char *c = sc_malloc(n + 1);
    if (!c)
        return false;
    memcpy(c, p, n + 1);
    l->v[l->n++] = c;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool scenario_ext(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".yaml") == 0) || (n > 4 && strcmp(name + n - 4, ".yml") == 0) ||
           (n > 5 && strcmp(name + n - 5, ".json") == 0);
}

static int walk_dir(PathList *out, const char *dir, int depth)
{
    if (depth > 64)
        return 0;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "scc: %s: %s\n", dir, strerror(errno));
        return EXIT_IO;
    }
    PathList here = { 0 };
    int status = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *p = sc_malloc(n);
        if (!p || !paths_add(&here, (snprintf(p, n, "%s/%s", dir, e->d_name), p)))
            status = EXIT_INTERNAL;
        sc_free(p);
    }
    closedir(d);
    qsort(here.v, here.n, sizeof *here.v, cmp_str);
    for (size_t i = 0; i < here.n; i++) {
        struct stat st;
        if (lstat(here.v[i], &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            int s = walk_dir(out, here.v[i], depth + 1);
            if (s > status)
                status = s;
        } else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && scenario_ext(here.v[i])) {
            if (!paths_add(out, here.v[i]))
                status = EXIT_INTERNAL;
        }
        sc_free(here.v[i]);
    }
    sc_free(here.v);
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
            o.diag_format = DF_JSON;
        } else if (strcmp(a, "--diagnostics-format=sarif") == 0) {
            o.diag_format = DF_SARIF;
        } else if (strcmp(a, "--diagnostics-format=text") == 0) {
            o.diag_format = DF_TEXT;
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
    PathList files = { 0 };
    for (size_t i = 0; i < n_in; i++) {
        struct stat st;
        if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            int s = walk_dir(&files, inputs[i], 0);
            if (s > status)
                status = s;
        } else if (!paths_add(&files, inputs[i])) {
            status = EXIT_INTERNAL;
        }
    }
    size_t n_files = files.n;
    if (o.out && files.n != 1) {
        fputs("scc: -o takes one input file\n", stderr);
        status = EXIT_USAGE;
        n_files = 0;
    }
    for (size_t i = 0; i < n_files; i++) {
        char *def = NULL;
        const char *out = o.out;
        if (!out && strcmp(files.v[i], "-") == 0)
            out = "-";
        if (!out)
            out = def = default_output(files.v[i]);
        int s = out ? compile_one(files.v[i], out, &o) : EXIT_INTERNAL;
        sc_free(def);
        if (s > status)
            status = s;
    }
    for (size_t i = 0; i < files.n; i++)
        sc_free(files.v[i]);
    sc_free(files.v);
    if (o.diag_format == DF_SARIF)
        sarif_print(stdout);
    buf_fini(&sarif);
out:
    symtab_fini(&o.syms);
    sc_free(inputs);
    sc_free((void *)o.no_warn);
    return status;
}
