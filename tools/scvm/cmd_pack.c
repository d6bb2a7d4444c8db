/* cmd_pack.c - scvm's pack commands: ls, extract, and run/verify/info when a
** pack is involved (docs/scvm.md, "Packs").
**
** scvm.c hands a command line over (scvm_pack_dispatch) when the command is
** ls or extract, when an operand is a pack, or when a pack-only option is
** given; a .scb named together with those options is treated as a pack of
** one.  Selection (--scenario, --tag, --prompt, --shard) is computed before
** anything runs.  -j N plays scenarios on worker threads into per-scenario
** buffers that are written in index order, so the output does not depend
** on N or on timing. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/levenshtein.h"
#include "cli.h"
#include "common/buf.h"
#include "common/fileio.h"
#include "common/sc_alloc.h"
#include "formats/pack.h"
#include "cmd_pack.h"
#include "runtime/rt_clock.h"
#include "runtime/rt_sim.h"
#include "vm/vm.h"

#define INPUT_MAX ((size_t)(PACK_MAX_CONTENT + PACK_MAX_CONTENT / 64 + 65536))
enum { MAX_JOBS = 256 };

static const char pack_usage[] =
    "usage: scvm run [options] [selection] FILE.scp\n"
    "       scvm ls [--json] [--files] [selection] FILE.scp\n"
    "       scvm extract [selection] -C DIR FILE.scp\n"
    "       scvm verify [--json] FILE...\n"
    "       scvm info [--json] [--scenario NAME] FILE.scp\n"
    "selection: --scenario NAME, --tag TAG (repeatable), --prompt TEXT, --shard I/N\n"
    "run: -o FILE, -t sim, --speed X, --realtime, --count [--json], -j N,\n"
    "     --junit FILE, --fail-fast, --no-progress\n";

/* ---- loading: a pack, or a .scb presented as a pack of one ---- */

typedef struct Suite {
    const char *path;
    Pack *pack;               /* NULL for a .scb */
    BcProgram *prog;          /* the .scb */
    PackEntry one;            /* its entry */
    char *tag_mem;
    const char **tags;
} Suite;

static uint32_t suite_n(const Suite *s)
{
    return s->pack ? s->pack->n_entries : 1;
}

static const PackEntry *suite_entry(const Suite *s, uint32_t i)
{
    return s->pack ? &s->pack->entries[i] : &s->one;
}

static void suite_fini(Suite *s)
{
    pack_free(s->pack);
    bc_free(s->prog);
    sc_free(s->tag_mem);
    sc_free((void *)s->tags);
    memset(s, 0, sizeof *s);
}

/* Loads path.  Returns 0 or a ScStatus after printing the diagnostic
** (unless quiet; then code and msg say why). */
static int suite_load(const char *path, Suite *s, bool quiet, char *code, size_t code_n, char *msg,
                      size_t msg_n, int32_t *entry)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    *entry = -1;
    char *data = NULL;
    size_t len = 0;
    int e = file_read_all(path, INPUT_MAX, &data, &len);
    int st = 0;
    if (e) {
        st = e == EFBIG ? SC_REJECTED : e == ENOMEM ? SC_RUNTIME : SC_IO;
        snprintf(code, code_n, "%s", e == EFBIG ? "SIZE" : e == ENOMEM ? "NOMEM" : "IO");
        snprintf(msg, msg_n, "%s", e == EFBIG ? "file is too large" : strerror(e));
    } else if (pack_is_pack(data, len)) {
        PackError pe;
        PackErrCode c = pack_load(data, len, NULL, &s->pack, &pe);
        if (c) {
            st = c == PACK_ERR_NOMEM ? SC_RUNTIME : SC_REJECTED;
            snprintf(code, code_n, "%s", pack_err_name(c));
            snprintf(msg, msg_n, "%s", pe.msg);
            *entry = pe.entry;
        }
    } else {
        BcError be;
        BcErrCode c = bc_load(data, len, NULL, &s->prog, &be);
        if (c) {
            st = c == BC_ERR_NOMEM ? SC_RUNTIME : SC_REJECTED;
            snprintf(code, code_n, "%s", bc_err_name(c));
            snprintf(msg, msg_n, "%s", be.msg[0] ? be.msg : "rejected");
        } else {
            const BcProgram *p = s->prog;
            PackEntry *o = &s->one;
            o->prog = p;
            o->name = p->str[p->meta.name].s;
            o->source = p->str[p->meta.source].s;
            BcVal v = bc_val(p, p->meta.prompt);
            if (v.tag == BC_V_STR) {
                o->prompt = p->str[v.n].s;
                o->prompt_len = p->str[v.n].len;
            }
            v = bc_val(p, p->meta.tags);
            s->tags = sc_calloc(v.n ? v.n : 1, sizeof *s->tags);
            const unsigned char *q = v.p;
            for (uint32_t k = 0; s->tags && k < v.n; k++) {
                BcVal t;
                q = bc_val_decode(p, q, &t);
                s->tags[k] = p->str[t.n].s;
            }
            o->tags = s->tags;
            o->n_tags = s->tags ? v.n : 0;
            o->hash = p->checksum;
            o->code_size = p->content_size;
        }
    }
    sc_free(data);
    if (st && !quiet) {
        if (st == SC_IO)
            fprintf(stderr, "scvm: %s: cannot read: %s\n", cli_display_name(path), msg);
        else if (st == SC_RUNTIME)
            fprintf(stderr, "scvm: %s: out of memory\n", cli_display_name(path));
        else
            fprintf(stderr, "scvm: %s: rejected: %s [%s]\n", cli_display_name(path), msg, code);
    }
    if (st)
        suite_fini(s);
    return st;
}

static int load_one(const char *path, Suite *s)
{
    char code[32], msg[400];
    int32_t entry;
    return suite_load(path, s, false, code, sizeof code, msg, sizeof msg, &entry);
}

/* ---- options ---- */

typedef struct Opts {
    const char *output, *target, *junit, *dir, *prompt;
    double speed;
    bool realtime, count, json, files, fail_fast, no_progress;
    const char **names, **tags;
    size_t n_names, n_tags;
    unsigned shard_i, shard_n;   /* 1-based; 0 = no sharding */
    unsigned jobs;
    const char **ops;            /* operands */
    size_t n_ops;
} Opts;

enum { C_RUN, C_LS, C_EXTRACT, C_VERIFY, C_INFO };

/* Returns 0 or SC_USAGE (printed). */
static int parse(int argc, char **argv, int cmd, Opts *o)
{
    memset(o, 0, sizeof *o);
    o->speed = 1.0;
    o->target = "sim";
    o->jobs = 1;
    o->names = sc_calloc((size_t)argc, sizeof *o->names);
    o->tags = sc_calloc((size_t)argc, sizeof *o->tags);
    o->ops = sc_calloc((size_t)argc, sizeof *o->ops);
    if (!o->names || !o->tags || !o->ops) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    bool opts = true, run = cmd == C_RUN, sel = cmd == C_RUN || cmd == C_LS || cmd == C_EXTRACT;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v;
        int r;
        if (!opts || a[0] != '-' || a[1] == 0) {
            o->ops[o->n_ops++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            opts = false;
        } else if (strcmp(a, "--json") == 0 && cmd != C_EXTRACT) {
            o->json = true;
        } else if (run && strcmp(a, "--realtime") == 0) {
            o->realtime = true;
        } else if (run && strcmp(a, "--count") == 0) {
            o->count = true;
        } else if (run && strcmp(a, "--fail-fast") == 0) {
            o->fail_fast = true;
        } else if (run && strcmp(a, "--no-progress") == 0) {
            o->no_progress = true;
        } else if (cmd == C_LS && strcmp(a, "--files") == 0) {
            o->files = true;
        } else if ((sel || cmd == C_INFO) && (r = cli_opt_value(argc, argv, &i, NULL, "--scenario", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            o->names[o->n_names++] = v;
        } else if (sel && (r = cli_opt_value(argc, argv, &i, NULL, "--tag", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            o->tags[o->n_tags++] = v;
        } else if (sel && (r = cli_opt_value(argc, argv, &i, NULL, "--prompt", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            o->prompt = v;
        } else if (sel && (r = cli_opt_value(argc, argv, &i, NULL, "--shard", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            const char *slash = strchr(v, '/');
            char num[32];
            if (!slash || (size_t)(slash - v) >= sizeof num)
                return cli_usage(pack_usage, "invalid shard '%s' (expected I/N, 1 <= I <= N)", v);
            memcpy(num, v, (size_t)(slash - v));
            num[slash - v] = 0;
            if (!cli_parse_uint(num, 1000000, &o->shard_i) || !cli_parse_uint(slash + 1, 1000000, &o->shard_n) ||
                o->shard_i < 1 || o->shard_i > o->shard_n)
                return cli_usage(pack_usage, "invalid shard '%s' (expected I/N, 1 <= I <= N)", v);
        } else if (cmd == C_EXTRACT && (r = cli_opt_value(argc, argv, &i, "-C", "--directory", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            o->dir = v;
        } else if (run && (r = cli_opt_value(argc, argv, &i, "-o", "--output", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            if (!*v)
                return cli_usage(pack_usage, "%s: empty output file name", "-o");
            o->output = v;
        } else if (run && (r = cli_opt_value(argc, argv, &i, NULL, "--junit", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            if (!*v)
                return cli_usage(pack_usage, "%s: empty file name", "--junit");
            o->junit = v;
        } else if (run && (r = cli_opt_value(argc, argv, &i, "-j", "--jobs", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            if (!cli_parse_uint(v, MAX_JOBS, &o->jobs))
                return cli_usage(pack_usage, "invalid job count '%s' (0 = one per CPU, at most %d)", v, MAX_JOBS);
        } else if (run && (r = cli_opt_value(argc, argv, &i, "-t", "--target", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            if (strcmp(v, "sim") != 0)
                return cli_usage(pack_usage, "target '%s' cannot play packs (known: sim)", v);
            o->target = v;
        } else if (run && (r = cli_opt_value(argc, argv, &i, NULL, "--speed", &v, pack_usage)) != 0) {
            if (r < 0)
                return SC_USAGE;
            if (!cli_parse_speed(v, &o->speed))
                return cli_usage(pack_usage, "invalid speed '%s' (expected a finite number >= 0)", v);
        } else {
            return cli_usage(pack_usage, "unknown option '%s'", a);
        }
    }
    if (o->jobs == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (unsigned)n;
    }
    return 0;
}

static void opts_fini(Opts *o)
{
    sc_free((void *)o->names);
    sc_free((void *)o->tags);
    sc_free((void *)o->ops);
}

/* ---- selection ---- */

/* The selected entries, in index order: --scenario names (all must exist),
** then --tag (any of them), then --prompt (the best match among those),
** then --shard (position k of the selection goes to shard k mod N + 1). */
static int select_entries(const Suite *s, const Opts *o, uint32_t **out, size_t *n_out)
{
    uint32_t n = suite_n(s);
    uint32_t *v = sc_calloc(n, sizeof *v);
    if (!v) {
        fputs("scvm: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    for (size_t k = 0; k < o->n_names; k++) {
        bool found = false;
        for (uint32_t i = 0; i < n && !found; i++)
            found = strcmp(suite_entry(s, i)->name, o->names[k]) == 0;
        if (!found) {
            fprintf(stderr, "scvm: %s: no scenario named '%s'\n", cli_display_name(s->path), o->names[k]);
            size_t best = SIZE_MAX;
            const char *near = NULL;
            for (uint32_t i = 0; i < n; i++) {
                const char *nm = suite_entry(s, i)->name;
                size_t d = text_levenshtein(nm, strlen(nm), o->names[k], strlen(o->names[k]));
                if (d < best)
                    best = d, near = nm;
            }
            if (near && best <= 3)
                fprintf(stderr, "scvm: note: did you mean '%s'?\n", near);
            sc_free(v);
            return SC_USAGE;
        }
    }
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        const PackEntry *e = suite_entry(s, i);
        bool keep = true;
        if (o->n_names) {
            keep = false;
            for (size_t k = 0; k < o->n_names && !keep; k++)
                keep = strcmp(e->name, o->names[k]) == 0;
        }
        if (keep && o->n_tags) {
            keep = false;
            for (size_t k = 0; k < o->n_tags && !keep; k++)
                for (uint32_t t = 0; t < e->n_tags && !keep; t++)
                    keep = strcmp(e->tags[t], o->tags[k]) == 0;
        }
        if (keep)
            v[m++] = i;
    }
    if (o->prompt && m) {
        int32_t best = -1;
        size_t bd = SIZE_MAX;
        for (size_t k = 0; k < m; k++) {
            const PackEntry *e = suite_entry(s, v[k]);
            if (!e->prompt)
                continue;
            size_t d = text_levenshtein(e->prompt, e->prompt_len, o->prompt, strlen(o->prompt));
            if (best < 0 || d < bd)
                best = (int32_t)v[k], bd = d;
        }
        v[0] = best < 0 ? v[0] : (uint32_t)best;
        m = 1;
    }
    if (o->shard_n) {
        size_t w = 0;
        for (size_t k = 0; k < m; k++)
            if (k % o->shard_n == o->shard_i - 1)
                v[w++] = v[k];
        m = w;
    }
    *out = v;
    *n_out = m;
    return 0;
}

/* ---- ls ---- */

static void json_tags(Buf *b, const PackEntry *e)
{
    buf_putc(b, '[');
    for (uint32_t t = 0; t < e->n_tags; t++) {
        if (t)
            buf_putc(b, ',');
        buf_json_str(b, e->tags[t], strlen(e->tags[t]));
    }
    buf_putc(b, ']');
}

/* The single FILE operand `what` takes: 0, or SC_USAGE (printed). */
static int one_operand(const Opts *o, const char *what)
{
    if (o->n_ops == 1)
        return 0;
    return o->n_ops ? cli_usage(pack_usage, "%s takes one FILE", what)
                    : cli_usage(pack_usage, "%s: no input file", what);
}

/* Loads the FILE operand and selects its entries (--scenario, --tag,
** --prompt, --shard).  Returns 0, or a status (printed; nothing to free). */
static int open_selection(const Opts *o, const char *what, Suite *s, uint32_t **sel, size_t *n)
{
    int st = one_operand(o, what);
    if (!st)
        st = load_one(o->ops[0], s);
    if (st)
        return st;
    if ((st = select_entries(s, o, sel, n)))
        suite_fini(s);
    return st;
}

static int cmd_ls(const Opts *o)
{
    Suite s;
    uint32_t *sel;
    size_t n;
    int st = open_selection(o, "ls", &s, &sel, &n);
    if (st)
        return st;
    size_t wn = 4, ws = 6;
    for (size_t k = 0; k < n; k++) {
        const PackEntry *e = suite_entry(&s, sel[k]);
        if (strlen(e->name) > wn)
            wn = strlen(e->name);
        if (strlen(e->source) > ws)
            ws = strlen(e->source);
    }
    Buf b;
    buf_init(&b);
    if (!o->json && n)
        buf_printf(&b, "%5s  %-*s  %-*s  %s\n", "#", (int)wn, "name", (int)ws, "source", "tags  prompt");
    for (size_t k = 0; k < n; k++) {
        const PackEntry *e = suite_entry(&s, sel[k]);
        if (o->json) {
            buf_printf(&b, "{\"index\":%u,\"name\":", (unsigned)sel[k]);
            buf_json_str(&b, e->name, strlen(e->name));
            buf_puts(&b, ",\"source\":");
            buf_json_str(&b, e->source, strlen(e->source));
            buf_puts(&b, ",\"tags\":");
            json_tags(&b, e);
            buf_puts(&b, ",\"prompt\":");
            if (e->prompt)
                buf_json_str(&b, e->prompt, e->prompt_len);
            else
                buf_puts(&b, "null");
            buf_printf(&b, ",\"hash\":\"%016llx\",\"source_hash\":\"%016llx\",\"code_size\":%zu,\"files\":[",
                       (unsigned long long)e->hash, (unsigned long long)e->source_hash, e->code_size);
            for (uint32_t f = 0; f < e->n_files; f++) {
                buf_puts(&b, f ? ",{\"path\":" : "{\"path\":");
                buf_json_str(&b, e->files[f].path, strlen(e->files[f].path));
                buf_printf(&b, ",\"size\":%zu,\"executable\":%s,\"hash\":\"%016llx\"}", e->files[f].len,
                           (e->files[f].mode & PACK_FILE_EXEC) ? "true" : "false",
                           (unsigned long long)e->files[f].hash);
            }
            buf_puts(&b, "]}\n");
            continue;
        }
        buf_printf(&b, "%5u  %-*s  %-*s  ", (unsigned)sel[k], (int)wn, e->name, (int)ws, e->source);
        if (e->n_tags)
            json_tags(&b, e);
        else
            buf_putc(&b, '-');
        buf_puts(&b, "  ");
        if (e->prompt)
            buf_json_str(&b, e->prompt, e->prompt_len);
        else
            buf_putc(&b, '-');
        buf_putc(&b, '\n');
        for (uint32_t f = 0; o->files && f < e->n_files; f++)
            buf_printf(&b, "%7s %s%s  %zu bytes\n", "", e->files[f].path,
                       (e->files[f].mode & PACK_FILE_EXEC) ? " (executable)" : "", e->files[f].len);
    }
    st = cli_put_stdout(&b);
    buf_fini(&b);
    sc_free(sel);
    suite_fini(&s);
    return st;
}

/* ---- extract ---- */

/* mkdir -p for the directories of path (below root). */
static int make_parents(const char *path)
{
    char tmp[PATH_MAX * 2];
    size_t n = strlen(path);
    if (n >= sizeof tmp)
        return ENAMETOOLONG;    /* never mkdir a truncated path */
    memcpy(tmp, path, n + 1);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return errno;
        *p = '/';
    }
    return 0;
}

static int write_file(const char *path, const void *data, size_t len, bool exec)
{
    int e = make_parents(path);
    if (!e)
        e = file_write_atomic(path, len ? data : "", len);
    if (!e && chmod(path, exec ? 0755 : 0644) != 0)
        e = errno;
    if (e)
        fprintf(stderr, "scvm: %s: cannot write: %s\n", path, strerror(e));
    return e ? SC_IO : 0;
}

static int cmd_extract(const Opts *o)
{
    if (one_operand(o, "extract"))
        return SC_USAGE;
    if (!o->dir)
        return cli_usage(pack_usage, "%s", "extract needs -C DIR");
    Suite s;
    int st = load_one(o->ops[0], &s);
    if (st)
        return st;
    if (!s.pack) {
        suite_fini(&s);
        return cli_usage(pack_usage, "%s: extract takes a pack", cli_display_name(o->ops[0]));
    }
    uint32_t *sel;
    size_t n;
    if ((st = select_entries(&s, o, &sel, &n))) {
        suite_fini(&s);
        return st;
    }
    for (size_t k = 0; k < n && !st; k++) {
        const PackEntry *e = suite_entry(&s, sel[k]);
        /* DIR/<source's folder>/<stem>.scb, and each file beside it. */
        char folder[PATH_MAX], path[PATH_MAX * 3];
        const char *slash = strrchr(e->source, '/');
        snprintf(folder, sizeof folder, "%s%s%.*s", o->dir, slash ? "/" : "", slash ? (int)(slash - e->source) : 0,
                 e->source);
        const char *stem = slash ? slash + 1 : e->source;
        const char *dot = strrchr(stem, '.');
        snprintf(path, sizeof path, "%s/%.*s.scb", folder, dot ? (int)(dot - stem) : (int)strlen(stem), stem);
        unsigned char *scb;
        size_t len;
        if (!pack_entry_scb(e, &scb, &len)) {
            fputs("scvm: out of memory\n", stderr);
            st = SC_RUNTIME;
            break;
        }
        st = write_file(path, scb, len, false);
        sc_free(scb);
        for (uint32_t f = 0; f < e->n_files && !st; f++) {
            snprintf(path, sizeof path, "%s/%s", folder, e->files[f].path);
            st = write_file(path, e->files[f].data, e->files[f].len, e->files[f].mode & PACK_FILE_EXEC);
        }
    }
    sc_free(sel);
    suite_fini(&s);
    return st;
}

/* ---- verify ---- */

static int cmd_verify(const Opts *o)
{
    if (o->n_ops == 0)
        return cli_usage(pack_usage, "%s", "verify: no input file");
    int worst = 0;
    for (size_t i = 0; i < o->n_ops; i++) {
        Suite s;
        char code[32] = "", msg[400] = "";
        int32_t entry = -1;
        int st = suite_load(o->ops[i], &s, o->json, code, sizeof code, msg, sizeof msg, &entry);
        Buf b;
        buf_init(&b);
        const char *path = o->ops[i];
        if (o->json) {
            buf_puts(&b, "{\"file\":");
            buf_json_str(&b, path, strlen(path));
            if (st) {
                buf_printf(&b, ",\"ok\":false,\"status\":%d,\"code\":\"%s\"", st, code);
                if (entry >= 0)
                    buf_printf(&b, ",\"entry\":%d", (int)entry);
                buf_puts(&b, ",\"message\":");
                buf_json_str(&b, msg, strlen(msg));
                buf_puts(&b, "}\n");
            } else if (s.pack) {
                buf_printf(&b, ",\"ok\":true,\"kind\":\"pack\",\"scenarios\":%u}\n", (unsigned)s.pack->n_entries);
            } else {
                buf_puts(&b, ",\"ok\":true}\n");
            }
        } else if (!st && s.pack) {
            size_t files = 0;
            for (uint32_t k = 0; k < s.pack->n_entries; k++)
                files += s.pack->entries[k].n_files;
            buf_printf(&b, "%s: ok (pack: %u scenarios, %zu embedded files)\n", cli_display_name(path),
                       (unsigned)s.pack->n_entries, files);
        } else if (!st) {
            buf_printf(&b, "%s: ok\n", cli_display_name(path));
        }
        int w = cli_put_stdout(&b);
        fflush(stdout);
        buf_fini(&b);
        if (w > st)
            st = w;
        if (st > worst)
            worst = st;
        if (!st)
            suite_fini(&s);
    }
    return worst;
}

/* ---- info ---- */

static int cmd_info(const Opts *o)
{
    if (one_operand(o, "info"))
        return SC_USAGE;
    Suite s;
    int st = load_one(o->ops[0], &s);
    if (st)
        return st;
    if (!s.pack) {
        suite_fini(&s);
        return cli_usage(pack_usage, "%s: --scenario needs a pack", cli_display_name(o->ops[0]));
    }
    const Pack *p = s.pack;
    Buf b;
    buf_init(&b);
    size_t files = 0, file_bytes = 0, code_bytes = 0;
    for (uint32_t k = 0; k < p->n_entries; k++) {
        files += p->entries[k].n_files;
        code_bytes += p->entries[k].code_size;
        for (uint32_t f = 0; f < p->entries[k].n_files; f++)
            file_bytes += p->entries[k].files[f].len;
    }
    int32_t only = -1;
    if (o->n_names) {
        only = pack_find(p, o->names[0]);
        if (only < 0) {
            fprintf(stderr, "scvm: %s: no scenario named '%s'\n", cli_display_name(o->ops[0]), o->names[0]);
            buf_fini(&b);
            suite_fini(&s);
            return SC_USAGE;
        }
    }
    if (only >= 0) {
        const PackEntry *e = &p->entries[only];
        const BcProgram *g = e->prog;
        uint64_t events = 0;
        for (uint32_t i = 0; i < g->n_insn; i++)
            events += !(bc_op_info[g->insn[i].op].flags & OPF_SILENT);
        if (o->json) {
            buf_printf(&b, "{\"file\":");
            buf_json_str(&b, o->ops[0], strlen(o->ops[0]));
            buf_printf(&b, ",\"index\":%d,\"name\":", (int)only);
            buf_json_str(&b, e->name, strlen(e->name));
            buf_puts(&b, ",\"source\":");
            buf_json_str(&b, e->source, strlen(e->source));
            buf_puts(&b, ",\"prompt\":");
            bc_val_json(g, g->meta.prompt, &b);
            buf_puts(&b, ",\"tags\":");
            json_tags(&b, e);
            buf_printf(&b, ",\"hash\":\"%016llx\",\"source_hash\":\"%016llx\",\"code_size\":%zu,\"files\":%u,"
                           "\"ops\":%u,\"events\":%llu,\"duration_ms\":%llu}\n",
                       (unsigned long long)e->hash, (unsigned long long)e->source_hash, e->code_size,
                       (unsigned)e->n_files, (unsigned)g->n_insn, (unsigned long long)events,
                       (unsigned long long)g->insn[g->n_insn - 1].t);
        } else {
            buf_printf(&b, "%-12s %s\n%-12s %d\n%-12s ", "file", cli_display_name(o->ops[0]), "index", (int)only, "name");
            buf_json_str(&b, e->name, strlen(e->name));
            buf_printf(&b, "\n%-12s ", "source");
            buf_json_str(&b, e->source, strlen(e->source));
            buf_printf(&b, "\n%-12s ", "prompt");
            bc_val_json(g, g->meta.prompt, &b);
            buf_printf(&b, "\n%-12s ", "tags");
            json_tags(&b, e);
            buf_printf(&b, "\n%-12s %016llx\n%-12s %016llx\n%-12s %zu bytes\n%-12s %u\n%-12s %u\n%-12s %llu\n"
                           "%-12s %llu\n",
                       "hash", (unsigned long long)e->hash, "source_hash", (unsigned long long)e->source_hash,
                       "code", e->code_size, "files", (unsigned)e->n_files, "ops", (unsigned)g->n_insn, "events",
                       (unsigned long long)events, "duration_ms", (unsigned long long)g->insn[g->n_insn - 1].t);
        }
    } else if (o->json) {
        buf_puts(&b, "{\"file\":");
        buf_json_str(&b, o->ops[0], strlen(o->ops[0]));
        buf_printf(&b, ",\"kind\":\"pack\",\"version\":\"%u.%u\",\"flags\":%u,\"dictionary\":%u,\"frames\":%u,"
                       "\"file_size\":%zu,\"content_size\":%zu,\"index_size\":%zu,\"checksum\":\"%016llx\","
                       "\"scenarios\":%u,\"blobs\":%u,\"files\":%zu,\"code_bytes\":%zu,\"file_bytes\":%zu}\n",
                   p->version_major, p->version_minor, (unsigned)p->flags, (unsigned)p->dict_size,
                   (unsigned)p->n_frames, p->file_size, p->content_size, p->index_size,
                   (unsigned long long)p->checksum, (unsigned)p->n_entries, (unsigned)p->n_blobs, files, code_bytes,
                   file_bytes);
    } else {
        buf_printf(&b, "%-12s %s\n%-12s pack\n%-12s %u.%u\n", "file", cli_display_name(o->ops[0]), "kind", "version",
                   p->version_major, p->version_minor);
        buf_printf(&b, "%-12s %zu bytes (content %zu bytes, index %zu bytes)\n", "size", p->file_size,
                   p->content_size, p->index_size);
        buf_printf(&b, "%-12s %016llx\n", "checksum", (unsigned long long)p->checksum);
        buf_printf(&b, "%-12s %u\n", "frames", (unsigned)p->n_frames);
        if (p->dict_size)
            buf_printf(&b, "%-12s %u bytes\n", "dictionary", (unsigned)p->dict_size);
        else
            buf_printf(&b, "%-12s -\n", "dictionary");
        buf_printf(&b, "%-12s %u\n%-12s %u (%zu bytes of bytecode, %zu bytes of files)\n%-12s %zu\n",
                   "scenarios", (unsigned)p->n_entries, "blobs", (unsigned)p->n_blobs, code_bytes, file_bytes,
                   "files", files);
    }
    st = cli_put_stdout(&b);
    buf_fini(&b);
    suite_fini(&s);
    return st;
}

/* ---- run ---- */

typedef struct Result {
    Buf out;
    int status;            /* vm_run's */
    uint64_t duration;     /* scaled ms of the last op */
    uint64_t events;
    bool done, skipped;
} Result;

typedef struct Runner {
    const Suite *s;
    const Opts *o;
    const uint32_t *sel;
    size_t n;
    Result *res;
    size_t next;           /* next scenario to start */
    bool stop;             /* --fail-fast saw a failure: start nothing after it */
    size_t stop_at;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} Runner;

static void header_line(Buf *b, const PackEntry *e, uint32_t idx)
{
    buf_puts(b, "{\"kind\":\"scenario\",\"index\":");
    buf_printf(b, "%u,\"name\":", (unsigned)idx);
    buf_json_str(b, e->name, strlen(e->name));
    buf_puts(b, ",\"source\":");
    buf_json_str(b, e->source, strlen(e->source));
    buf_puts(b, "}\n");
}

/* Plays one scenario into r->out (or straight to `direct`). */
static void play(const Runner *rn, size_t k, Result *r, FILE *direct)
{
    const Opts *o = rn->o;
    const PackEntry *e = suite_entry(rn->s, rn->sel[k]);
    const BcProgram *p = e->prog;
    r->duration = rt_clock_scale(p->insn[p->n_insn - 1].t, o->speed);
    RtTarget *t;
    if (o->count) {
        t = rt_count_new();
    } else {
        if (direct) {
            Buf h;
            buf_init(&h);
            header_line(&h, e, rn->sel[k]);
            fwrite(h.data, 1, h.len, direct);
            buf_fini(&h);
        } else {
            header_line(&r->out, e, rn->sel[k]);
        }
        RtSimOpts so = { .out = direct, .mem = direct ? NULL : &r->out, .line_flush = o->realtime && direct };
        t = rt_sim_new(&so);
    }
    if (!t) {
        r->status = SC_RUNTIME;
        return;
    }
    VmOpts vo = { .speed = o->speed };
    RtRealClock rc;
    RtClock *clock = NULL;
    if (o->realtime) {
        rt_clock_realtime_init(&rc);
        clock = &rc.clock;
    }
    r->status = vm_run(p, t, clock, &vo);
    RtCounts c;
    if (o->count) {
        rt_count_counts(t, &c);
        r->events = c.events;
        if (o->json) {
            buf_puts(&r->out, "{\"name\":");
            buf_json_str(&r->out, e->name, strlen(e->name));
            buf_printf(&r->out, ",\"events\":%llu,\"ops\":%llu}\n", (unsigned long long)c.events,
                       (unsigned long long)c.ops);
        } else {
            buf_printf(&r->out, "%s: %llu events\n", e->name, (unsigned long long)c.events);
        }
    } else {
        rt_sim_counts(t, &c);
        r->events = c.events;
    }
    if (r->out.oom && !r->status)
        r->status = SC_RUNTIME;
    t->vt->destroy(t);
}

static void *worker(void *arg)
{
    Runner *rn = arg;
    for (;;) {
        pthread_mutex_lock(&rn->mu);
        size_t k = rn->next;
        bool go = k < rn->n && !(rn->stop && k > rn->stop_at);
        if (go)
            rn->next++;
        pthread_mutex_unlock(&rn->mu);
        if (!go)
            break;
        Result *r = &rn->res[k];
        play(rn, k, r, NULL);
        pthread_mutex_lock(&rn->mu);
        r->done = true;
        if (r->status && rn->o->fail_fast && (!rn->stop || k < rn->stop_at)) {
            rn->stop = true;
            rn->stop_at = k;
        }
        pthread_cond_broadcast(&rn->cv);
        pthread_mutex_unlock(&rn->mu);
    }
    return NULL;
}

static void progress(size_t done, size_t n, const char *name)
{
    enum { W = 30 };
    size_t fill = n ? done * W / n : W;
    char bar[W + 1];
    for (size_t i = 0; i < W; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[W] = 0;
    fprintf(stderr, "\r\033[K[%s] %zu/%zu %.40s", bar, done, n, name);
    fflush(stderr);
}

static void xml_str(Buf *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '&': buf_puts(b, "&amp;"); break;
        case '<': buf_puts(b, "&lt;"); break;
        case '>': buf_puts(b, "&gt;"); break;
        case '"': buf_puts(b, "&quot;"); break;
        case '\'': buf_puts(b, "&apos;"); break;
        default:
            if (*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
                buf_puts(b, "&#xFFFD;");   /* not allowed in XML 1.0, even escaped */
            else
                buf_putc(b, *p);
        }
    }
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static int write_junit(const Opts *o, const Suite *s, const uint32_t *sel, size_t n, const Result *res,
                       size_t passed, size_t failed, size_t errors, size_t skipped)
{
    Buf b;
    buf_init(&b);
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++)
        total += res[k].skipped ? 0 : res[k].duration;
    const char *suite = base_name(s->path);
    buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"scvm\"");
    buf_printf(&b, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", n, failed,
               errors, skipped, (double)total / 1000.0);
    buf_puts(&b, "  <testsuite name=\"");
    xml_str(&b, suite);
    buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\">\n", n, failed,
               errors, skipped, (double)total / 1000.0);
    if (o->shard_n)
        buf_printf(&b, "    <properties><property name=\"shard\" value=\"%u/%u\"/></properties>\n", o->shard_i,
                   o->shard_n);
    for (size_t k = 0; k < n; k++) {
        const PackEntry *e = suite_entry(s, sel[k]);
        const Result *r = &res[k];
        buf_puts(&b, "    <testcase classname=\"");
        xml_str(&b, suite);
        buf_puts(&b, "\" name=\"");
        xml_str(&b, e->name);
        buf_puts(&b, "\" file=\"");
        xml_str(&b, e->source);
        buf_printf(&b, "\" time=\"%.3f\"", r->skipped ? 0.0 : (double)r->duration / 1000.0);
        if (r->skipped)
            buf_puts(&b, ">\n      <skipped message=\"not run: an earlier scenario failed (--fail-fast)\"/>\n"
                         "    </testcase>\n");
        else if (r->status == SC_FAILED)
            buf_puts(&b, ">\n      <failure message=\"a check did not hold\" type=\"failed\"/>\n    </testcase>\n");
        else if (r->status)
            buf_printf(&b, ">\n      <error message=\"run failed (status %d)\" type=\"error\"/>\n    </testcase>\n",
                       r->status);
        else
            buf_puts(&b, "/>\n");
    }
    buf_puts(&b, "  </testsuite>\n</testsuites>\n");
    (void)passed;
    int e = b.oom ? ENOMEM : file_write_atomic(o->junit, b.data, b.len);
    buf_fini(&b);
    if (e) {
        fprintf(stderr, "scvm: %s: cannot write: %s\n", o->junit, strerror(e));
        return SC_IO;
    }
    return 0;
}

static int cmd_run(const Opts *o)
{
    Suite s;
    uint32_t *sel;
    size_t n;
    int st = open_selection(o, "run", &s, &sel, &n);
    if (st)
        return st;
    Result *res = sc_calloc(n ? n : 1, sizeof *res);
    if (!res) {
        fputs("scvm: out of memory\n", stderr);
        sc_free(sel);
        suite_fini(&s);
        return SC_RUNTIME;
    }
    for (size_t k = 0; k < n; k++)
        buf_init(&res[k].out);
    bool to_file = o->output && strcmp(o->output, "-") != 0;
    bool bar = !o->no_progress && n > 1 && isatty(STDERR_FILENO) && (to_file || !isatty(STDOUT_FILENO));
    Buf all;
    buf_init(&all);
    Runner rn = { .s = &s, .o = o, .sel = sel, .n = n, .res = res };
    pthread_mutex_init(&rn.mu, NULL);
    pthread_cond_init(&rn.cv, NULL);
    unsigned jobs = o->jobs > n ? (unsigned)(n ? n : 1) : o->jobs;
    pthread_t th[MAX_JOBS];
    unsigned started = 0;
    bool direct = jobs <= 1 && !to_file && !o->count;
    if (!direct)
        for (; started < jobs && jobs > 1; started++)
            if (pthread_create(&th[started], NULL, worker, &rn) != 0)
                break;
    size_t passed = 0, failed = 0, errors = 0, skipped = 0;
    bool stopped = false;
    int worst = 0;
    for (size_t k = 0; k < n; k++) {
        Result *r = &res[k];
        if (stopped) {
            r->skipped = true;
            skipped++;
            continue;
        }
        if (started) {
            pthread_mutex_lock(&rn.mu);
            while (!r->done && !(rn.stop && k > rn.stop_at))
                pthread_cond_wait(&rn.cv, &rn.mu);
            pthread_mutex_unlock(&rn.mu);
            if (!r->done) {   /* never started: --fail-fast */
                r->skipped = true;
                skipped++;
                stopped = true;
                continue;
            }
        } else {
            play(&rn, k, r, direct ? stdout : NULL);
        }
        if (to_file)
            buf_put(&all, r->out.data, r->out.len);
        else if (r->out.len && fwrite(r->out.data, 1, r->out.len, stdout) != r->out.len && !r->status)
            r->status = SC_IO;
        if (!to_file)
            fflush(stdout);
        buf_fini(&r->out);
        const PackEntry *e = suite_entry(&s, sel[k]);
        if (r->status == 0) {
            passed++;
        } else {
            if (r->status == SC_FAILED)
                failed++;
            else
                errors++;
            if (bar)
                fputs("\r\033[K", stderr);
            fprintf(stderr, "scvm: %s: %s: %s\n", cli_display_name(o->ops[0]), e->name,
                    r->status == SC_FAILED ? "failed (a check did not hold)"
                    : r->status == SC_IO   ? "cannot write the events"
                                           : "run failed");
            if (r->status > worst)
                worst = r->status;
            if (o->fail_fast)
                stopped = true;
        }
        if (bar)
            progress(k + 1, n, e->name);
    }
    pthread_mutex_lock(&rn.mu);
    rn.stop = true;
    rn.stop_at = 0;
    pthread_mutex_unlock(&rn.mu);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (bar)
        fputs("\r\033[K", stderr);
    if (to_file && !worst) {
        int e = all.oom ? ENOMEM : file_write_atomic(o->output, all.data ? (const void *)all.data : "", all.len);
        if (e) {
            fprintf(stderr, "scvm: %s: cannot write: %s\n", o->output, strerror(e));
            worst = SC_IO;
        }
    }
    if (o->junit) {
        int js = write_junit(o, &s, sel, n, res, passed, failed, errors, skipped);
        if (js > worst)
            worst = js;
    }
    fprintf(stderr, "%zu passed, %zu failed, %zu skipped\n", passed, failed + errors, skipped);
    for (size_t k = 0; k < n; k++)
        buf_fini(&res[k].out);
    pthread_mutex_destroy(&rn.mu);
    pthread_cond_destroy(&rn.cv);
    buf_fini(&all);
    sc_free(res);
    sc_free(sel);
    suite_fini(&s);
    return worst;
}

/* ---- dispatch ---- */

static bool is_pack_file(const char *path)
{
    if (strcmp(path, "-") == 0)
        return false;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char m[PACK_MAGIC_LEN];
    bool yes = fread(m, 1, sizeof m, f) == sizeof m && memcmp(m, PACK_MAGIC, PACK_MAGIC_LEN) == 0;
    fclose(f);
    return yes;
}

bool scvm_pack_dispatch(int argc, char **argv, int *status)
{
    if (argc < 2)
        return false;
    const char *c = argv[1];
    int cmd = strcmp(c, "ls") == 0 ? C_LS : strcmp(c, "extract") == 0 ? C_EXTRACT : strcmp(c, "run") == 0 ? C_RUN
            : strcmp(c, "verify") == 0 ? C_VERIFY : strcmp(c, "info") == 0 ? C_INFO : -1;
    if (cmd < 0)
        return false;
    bool mine = cmd == C_LS || cmd == C_EXTRACT;
    static const char *const only[] = { "--scenario", "--tag", "--prompt", "--shard", "--junit", "-j", "--jobs",
                                        "--fail-fast", "--no-progress" };
    static const char *const valued[] = { "-o", "--output", "-t", "--target", "--speed" };
    bool opts = true;
    for (int i = 2; i < argc && !mine; i++) {
        const char *a = argv[i];
        if (opts && strcmp(a, "--") == 0) {
            opts = false;
            continue;
        }
        if (opts && a[0] == '-' && a[1]) {
            for (size_t k = 0; k < sizeof only / sizeof only[0]; k++) {
                size_t l = strlen(only[k]);
                if (strncmp(a, only[k], l) == 0 && (a[l] == 0 || a[l] == '=' || (l == 2 && a[l])))
                    mine = true;
            }
            for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
                if (strcmp(a, valued[k]) == 0)
                    i++;
            continue;
        }
        mine = is_pack_file(a);
    }
    if (!mine)
        return false;
    Opts o;
    int st = parse(argc, argv, cmd, &o);
    if (!st) {
        switch (cmd) {
        case C_RUN: st = cmd_run(&o); break;
        case C_LS: st = cmd_ls(&o); break;
        case C_EXTRACT: st = cmd_extract(&o); break;
        case C_VERIFY: st = cmd_verify(&o); break;
        case C_INFO: st = cmd_info(&o); break;
        default: break;
        }
    }
    opts_fini(&o);
    errno = 0;
    if ((fflush(stdout) != 0 || ferror(stdout)) && !st) {
        fprintf(stderr, "scvm: <stdout>: cannot write: %s\n", strerror(errno ? errno : EIO));
        st = SC_IO;
    }
    *status = st;
    return true;
}
