/* SPDX-License-Identifier: MIT */
/* scc.c - the scenario compiler's command line.
**
**   scc [options] FILE...       compile each FILE to FILE.scb (or -o)
**   scc -l FILE                 list the resolved schedule (like luac -l)
**   scc -l --html FILE          the same as one HTML page, a picture of the timeline
**   scc --check FILE...         diagnostics only, no output
**   scc --pack -o S.scp PATH... one hermetic pack of every scenario (docs/pack.md)
**
** -MD/-MF write a Make/Ninja depfile; --cache-dir skips recompiling inputs
** whose content (and referenced files) did not change.
** The options are one table (SCC_OPTIONS below, common/cliopt.h): the
** parser, --help, docs/scc.md's option list, the man page and the shell
** completions are all made from it.
** Exit statuses (docs/exit-status.md): 0 ok, 1 errors in a scenario, 2 usage,
** 3 I/O error, 5 internal error (emitted bytecode failed verification). */
#define _XOPEN_SOURCE 700   /* realpath */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/arena.h"
#include "common/buf.h"
#include "common/cliopt.h"
#include "common/color.h"
#include "common/levenshtein.h"
#include "common/diag.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "formats/bc.h"
#include "formats/bc_write.h"
#include "formats/pack.h"
#include "formats/version.h"
#include "compiler/compile.h"
#include "compiler/format_man.h"
#include "compiler/lsp.h"
#include "compiler/schema.h"
#include "compiler/sources.h"
#include "compiler/embed.h"
#include "compiler/rules.h"
#include "compiler/warnings.h"
#include "compiler/yaml_tree.h"

enum { MAX_SOURCE = 64 << 20 };
enum { DF_TEXT, DF_JSON, DF_SARIF };

/* ---- SARIF (--diagnostics-format=sarif): one log of every file ----
**
** What GitHub code scanning asks of it (docs/check.md, "SARIF"): a rule per
** kind of diagnostic, each with a name, descriptions, help (text and
** markdown), a help URI into docs/check.md and a default level; locations
** relative to %SRCROOT% (--sarif-root, default the current folder),
** percent-encoded, with the base in originalUriBaseIds (a file outside it
** is a file:// URI); a fingerprint per result that survives moved lines. */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static Buf sarif;
static size_t sarif_n;
static char sarif_root[PATH_MAX];   /* realpath of --sarif-root, no trailing '/' */

#ifndef SCC_DOCS_URL
#define SCC_DOCS_URL ""
#endif
/* docs/check.md where the build says docs/ is published, else the manual page */
static const char *docs_uri(void)
{
    static char uri[1024];
    if (!uri[0])
        snprintf(uri, sizeof uri, "%s", SCC_DOCS_URL[0] ? SCC_DOCS_URL "/check.md" : "man:scc(1)");
    return uri;
}

static const struct SarifRule {
    const char *code, *name, *level, *text;
} SARIF_RULES[] = {
    { "syntax", "Syntax", "error", "The file is not well-formed YAML or JSON (or JSON Lines), so nothing in it can be read." },
    { "rules", "Rules", "error", "A rules block is wrong: a condition that does not parse, an unknown operator, a symbol of "
                                 "the wrong type (docs/rules.md)." },
    { "scenario", "Scenario", "error", "The scenario breaks its format's schema or timing: an unknown event or key where "
                                       "none is allowed, a missing or mistyped field, a time that goes backwards, a bad "
                                       "reference between events." },
    { "reference", "Reference", "error", "A file the scenario references (repo.dir, a patch, an image, a terminalRef, a "
                                         "policy) is missing, too large, or leaves the scenario's folder." },
    { "duplicate-name", "DuplicateName", "error", "Two scenarios have one name: packs and scvm tell scenarios apart by "
                                                  "name, so scc --pack refuses them." },
#define X(name, text) { name, name, "warning", "Warning -W" name ": " text "; -Wno-" name " turns it off." },
    SCC_WARNINGS(X)
#undef X
};

static size_t sarif_rule(const char *code)
{
    for (size_t i = 0; i < sizeof SARIF_RULES / sizeof SARIF_RULES[0]; i++)
        if (code && strcmp(SARIF_RULES[i].code, code) == 0)
            return i;
    return 2;   /* "scenario": what the front ends check */
}

/* The artifact location of a path: relative to %SRCROOT% when beneath it,
** else an absolute file:// URI; percent-encoded (RFC 3986: unreserved
** characters and '/' as they are), never a "//" inside. */
static void sarif_uri(JsonW *w, const char *file)
{
    char real[PATH_MAX];
    const char *p = file, *base = NULL;
    if (realpath(file, real)) {
        size_t n = strlen(sarif_root);
        if (n && strncmp(real, sarif_root, n) == 0 && real[n] == '/')
            p = real + n + 1, base = "%SRCROOT%";
        else
            p = real;
    }
    Buf u;
    buf_init(&u);
    if (!base && p[0] == '/')
        buf_puts(&u, "file://");
    for (const char *c = p; *c; c++) {
        unsigned char ch = (unsigned char)*c;
        if (ch == '/' && (c[1] == '/' || (c == p && base)))
            continue;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || strchr("-._~/", ch))
            buf_putc(&u, (char)ch);
        else
            buf_printf(&u, "%%%02X", ch);
    }
    jw_obj(w);
    jw_kstr(w, "uri", u.data ? (const char *)u.data : "", u.len);
    if (base)
        jw_kcstr(w, "uriBaseId", base);
    jw_end(w);
    buf_fini(&u);
}

static void sarif_physical(JsonW *w, const Diag *g)
{
    jw_obj(w);
    jw_key(w, "artifactLocation");
    sarif_uri(w, g->file ? g->file : "");
    if (g->line) {
        jw_kobj(w, "region");
        jw_ku64(w, "startLine", g->line);
        jw_ku64(w, "startColumn", g->col ? g->col : 1);
        jw_end(w);
    }
    jw_end(w);
}

static void sarif_add(const Diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        const Diag *g = &d->v[i];
        if (g->level == DIAG_NOTE)
            continue;
        size_t r = sarif_rule(g->code);
        /* a result a line, compact, in the laid-out document */
        buf_puts(&sarif, sarif_n++ ? ",\n    " : "\n    ");
        JsonW w;
        jw_open_obj(&w, &sarif);
        char rule[80];
        snprintf(rule, sizeof rule, "scc/%s", SARIF_RULES[r].code);
        jw_kcstr(&w, "ruleId", rule);
        jw_ku64(&w, "ruleIndex", r);
        jw_kcstr(&w, "level", g->level == DIAG_ERROR ? "error" : "warning");
        jw_kobj(&w, "message");
        jw_kcstr(&w, "text", g->msg);
        jw_end(&w);
        jw_karr(&w, "locations");
        jw_obj(&w);
        jw_key(&w, "physicalLocation");
        sarif_physical(&w, g);
        jw_end(&w);
        jw_end(&w);
        /* the rule, the file and the message: the same finding after lines move */
        Buf key;
        buf_init(&key);
        buf_printf(&key, "%s\n%s\n%s", SARIF_RULES[r].code, g->file ? base_name(g->file) : "", g->msg);
        jw_kobj(&w, "partialFingerprints");
        jw_khex64(&w, "sccFinding/v1", XXH64(key.data ? key.data : (const unsigned char *)"", key.len, 0));
        jw_end(&w);
        buf_fini(&key);
        size_t k = i + 1;
        if (k < d->n && d->v[k].level == DIAG_NOTE) {
            jw_karr(&w, "relatedLocations");
            for (; k < d->n && d->v[k].level == DIAG_NOTE; k++) {
                jw_obj(&w);
                jw_ku64(&w, "id", k - i - 1);
                jw_kobj(&w, "message");
                jw_kcstr(&w, "text", d->v[k].msg);
                jw_end(&w);
                jw_key(&w, "physicalLocation");
                sarif_physical(&w, &d->v[k]);
                jw_end(&w);
            }
            jw_end(&w);
        }
        jw_end(&w);
    }
}

static void sarif_print(FILE *f)
{
    fputs("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
          "  \"version\": \"2.1.0\",\n  \"runs\": [{\n"
          "   \"tool\": {\"driver\": {\"name\": \"scc\", \"version\": \"" SCC_VERSION "\",\n"
          "     \"semanticVersion\": \"" SCC_VERSION "\", \"informationUri\": ", f);
    Buf iu;
    buf_init(&iu);
    buf_json_str(&iu, docs_uri(), strlen(docs_uri()));
    fprintf(f, "%.*s,\n     \"rules\": [", (int)iu.len, (const char *)iu.data);
    for (size_t i = 0; i < sizeof SARIF_RULES / sizeof SARIF_RULES[0]; i++) {
        const struct SarifRule *r = &SARIF_RULES[i];
        Buf t;
        buf_init(&t);
        buf_json_str(&t, r->text, strlen(r->text));
        fprintf(f, "%s\n      {\"id\": \"scc/%s\", \"name\": \"%s\", \"shortDescription\": {\"text\": %.*s},"
                   " \"fullDescription\": {\"text\": %.*s},\n       \"help\": {\"text\": %.*s, \"markdown\": %.*s},"
                   " \"helpUri\": %.*s%s, \"defaultConfiguration\": {\"level\": \"%s\"}}",
                i ? "," : "", r->code, r->name, (int)t.len, (const char *)t.data, (int)t.len, (const char *)t.data,
                (int)t.len, (const char *)t.data, (int)t.len, (const char *)t.data,
                (int)iu.len - (SCC_DOCS_URL[0] ? 1 : 0), (const char *)iu.data, SCC_DOCS_URL[0] ? "#rules\"" : "",
                r->level);
        buf_fini(&t);
    }
    buf_fini(&iu);
    fputs("]}},\n   \"originalUriBaseIds\": {\"%SRCROOT%\": {\"uri\": ", f);
    Buf root;
    buf_init(&root);
    buf_puts(&root, "file://");
    for (const char *c = sarif_root; *c; c++) {
        unsigned char ch = (unsigned char)*c;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || strchr("-._~/", ch))
            buf_putc(&root, (char)ch);
        else
            buf_printf(&root, "%%%02X", ch);
    }
    buf_putc(&root, '/');
    Buf q;
    buf_init(&q);
    buf_json_str(&q, (const char *)root.data, root.len);
    fprintf(f, "%.*s}},\n", (int)q.len, (const char *)q.data);
    buf_fini(&q);
    buf_fini(&root);
    fputs("   \"columnKind\": \"unicodeCodePoints\",\n   \"results\": [", f);
    fwrite(sarif.data, 1, sarif.len, f);
    fputs(sarif_n ? "\n   ]\n  }]\n}\n" : "]\n  }]\n}\n", f);
}

/* --generate=scenario-man: scenario-format(5) (compiler/format_man.h), beside the CoFormats. */
enum { GEN_SCENARIO_MAN = 100 };

typedef struct Opts {
    const char *out;
    int list;                 /* -l count */
    bool html;                /* --html: -l as an HTML page */
    bool check;
    bool lsp;                 /* --lsp: a language server on stdin/stdout */
    bool strip;
    int diag_format;          /* DF_TEXT, DF_JSON, DF_SARIF */
    int color;                /* -1 auto, 0 never, 1 always */
    bool werror;
    const char **no_warn;
    size_t n_no_warn;
    Symtab syms;
    bool pack;                /* --pack */
    bool md, mp;              /* -MD, -MP */
    const char *mf, *mt;      /* -MF FILE, -MT TARGET */
    const char *cache_dir;    /* --cache-dir */
    size_t max_file;          /* --max-file-size */
    uint64_t opts_hash;       /* the options that change output, for cache keys */
    const char *dialect;      /* --dialect: NULL/"auto", "scenario", "tui-use", "eliza", "yao" */
    const char **variants;    /* --variant NAME:DEFS, as given */
    size_t n_variants;
    const char *variant;      /* the variant being compiled (its NAME), or NULL */
    size_t matrix_pick;       /* the ElizaOS matrix's scenario being compiled (1-based), or 0 */
    bool spec_clock;          /* --clock=spec */
    bool policy_outside;      /* --policy-outside */
    bool help, version;       /* --help, --version */
    bool only_scenarios;      /* --only-scenarios: named files chosen as a DIR's are */
    const char *sarif_root;   /* --sarif-root DIR */
    const char **excludes;    /* --exclude GLOB */
    size_t n_excludes;
    int generate;             /* --generate=FORMAT: a CoFormat, GEN_SCENARIO_MAN, or -1 */
    const char *schema;       /* --print-schema DIALECT (compiler/schema.h), or NULL */
} Opts;

/* What a compilation hands back beyond its status (packs, depfiles, cache). */
typedef struct Job {
    bool keep;                /* return the bytes instead of writing them */
    bool refs;                /* collect referenced files (-MD, --pack, cache) */
    bool strict;              /* reference problems are errors (--pack) */
    bool want_name;           /* fill name: the scenario's (--check's duplicate names) */
    char *name;
    unsigned char *bytes;
    size_t n_bytes;
    uint64_t source_hash;
    EmbedList files;
} Job;

static void job_fini(Job *j)
{
    sc_free(j->name);
    sc_free(j->bytes);
    embed_list_fini(&j->files);
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

/* ---- the content-hash cache (--cache-dir) ----
** One file per key: DIR/<16 hex>.sccc, written atomically.  The key hashes
** scc's version, the writer's (bc_writer_id: bytecode version, level,
** dictionary, zstd), the options that change output, the path, the source
** and the names of the goldens beside it.  The entry lists every referenced file
** with its XXH64; a hit needs each one unchanged, and the cached bytecode
** is verified again like anything scvm loads.  Only compilations without
** diagnostics are stored, so a hit never hides a warning. */
#define CACHE_MAGIC "SCCC1\n"

static uint64_t cache_key(const Opts *o, const char *path, const char *src, size_t len)
{
    XXH64_state_t *st = XXH64_createState();
    if (!st)
        return 0;
    XXH64_reset(st, 0);
    uint64_t sib = embed_siblings_hash(path);
    uint64_t writer = bc_writer_id();
    XXH64_update(st, SCC_VERSION, sizeof SCC_VERSION);
    XXH64_update(st, &writer, sizeof writer);
    XXH64_update(st, &o->opts_hash, sizeof o->opts_hash);
    XXH64_update(st, &sib, sizeof sib);
    XXH64_update(st, path, strlen(path) + 1);
    XXH64_update(st, o->variant ? o->variant : "", o->variant ? strlen(o->variant) + 1 : 1);
    XXH64_update(st, src, len);
    uint64_t h = XXH64_digest(st);
    XXH64_freeState(st);
    return h;
}

static char *cache_path(const Opts *o, uint64_t key)
{
    size_t n = strlen(o->cache_dir) + 32;
    char *p = sc_malloc(n);
    if (p)
        snprintf(p, n, "%s/%016llx.sccc", o->cache_dir, (unsigned long long)key);
    return p;
}

static bool rd_chunk(const unsigned char **p, const unsigned char *end, size_t n, const unsigned char **at)
{
    if ((size_t)(end - *p) < n)
        return false;
    *at = *p;
    *p += n;
    return true;
}

/* Fills job from the cache entry for key; false on a miss (or any doubt). */
static bool cache_get(const Opts *o, uint64_t key, Job *job)
{
    char *cp = cache_path(o, key), *data = NULL;
    size_t len = 0;
    bool hit = false;
    if (!cp || file_read_all(cp, MAX_SOURCE * 4, &data, &len) != 0)
        goto out;
    const unsigned char *p = (const unsigned char *)data, *end = p + len, *at;
    if (len < 6 + 8 || memcmp(p, CACHE_MAGIC, 6) != 0 || XXH64(p, len - 8, 0) != rd_u64le(end - 8))
        goto out;
    end -= 8;
    p += 6;
    uint32_t n;
    if (!rd_chunk(&p, end, 4, &at))
        goto out;
    n = rd_u32le(at);
    for (uint32_t i = 0; i < n; i++) {
        const unsigned char *rel, *full, *f;
        uint32_t rl, fl;
        if (!rd_chunk(&p, end, 4, &at) || (rl = rd_u32le(at), !rd_chunk(&p, end, rl, &rel)) ||
            !rd_chunk(&p, end, 4, &at) || (fl = rd_u32le(at), !rd_chunk(&p, end, fl, &full)) ||
            !rd_chunk(&p, end, 12, &f))
            goto out;
        EmbedFile ef = { .rel = sc_strndup((const char *)rel, rl), .full = sc_strndup((const char *)full, fl), .mode = rd_u32le(f), .hash = rd_u64le(f + 4) };
        char *fd = NULL;
        if (!ef.rel || !ef.full || file_read_all(ef.full, o->max_file, &fd, &ef.len) != 0 ||
            XXH64(fd, ef.len, 0) != ef.hash) {
            sc_free(ef.rel);
            sc_free(ef.full);
            sc_free(fd);
            goto out;
        }
        ef.data = (unsigned char *)fd;
        if (job->files.n == job->files.cap) {
            size_t cap = job->files.cap ? job->files.cap * 2 : 8;
            EmbedFile *v = sc_realloc(job->files.v, cap * sizeof *v);
            if (!v) {
                sc_free(ef.rel), sc_free(ef.full), sc_free(fd);
                goto out;
            }
            job->files.v = v;
            job->files.cap = cap;
        }
        job->files.v[job->files.n++] = ef;
    }
    const unsigned char *bl;
    uint64_t bn;
    if (!rd_chunk(&p, end, 8, &bl) || (bn = rd_u64le(bl)) != (uint64_t)(end - p))
        goto out;
    BcProgram *prog = NULL;
    if (bc_load(p, (size_t)bn, NULL, &prog, NULL) != BC_ERR_OK)
        goto out;
    bc_free(prog);
    if (!(job->bytes = sc_malloc((size_t)bn)))
        goto out;
    memcpy(job->bytes, p, (size_t)bn);
    job->n_bytes = (size_t)bn;
    hit = true;
out:
    if (!hit)
        embed_list_fini(&job->files);
    sc_free(data);
    sc_free(cp);
    return hit;
}

static void cache_put(const Opts *o, uint64_t key, const Job *job)
{
    Buf b;
    buf_init(&b);
    buf_put(&b, CACHE_MAGIC, 6);
    buf_u32le(&b, (uint32_t)job->files.n);
    for (size_t i = 0; i < job->files.n; i++) {
        const EmbedFile *f = &job->files.v[i];
        buf_u32le(&b, (uint32_t)strlen(f->rel));
        buf_puts(&b, f->rel);
        buf_u32le(&b, (uint32_t)strlen(f->full));
        buf_puts(&b, f->full);
        buf_u32le(&b, f->mode);
        buf_u64le(&b, f->hash);
    }
    buf_u64le(&b, job->n_bytes);
    buf_put(&b, job->bytes, job->n_bytes);
    buf_u64le(&b, b.oom ? 0 : XXH64(b.data, b.len, 0));
    char *cp = cache_path(o, key);
    mkdir(o->cache_dir, 0777);
    /* A cache that cannot be written only costs time: say so, go on. */
    int e = !cp || b.oom ? ENOMEM : file_write_atomic(cp, b.data, b.len);
    if (e)
        fprintf(stderr, "scc: warning: cannot write to the cache '%s': %s\n", o->cache_dir, strerror(e));
    sc_free(cp);
    buf_fini(&b);
}

/* The source again, for the carets of its diagnostics: scc_compile() frees
** it before lowering (at the memory peak it is as big as the input, 1x of
** the 4x budget in docs/performance.md).  NULL when it cannot be read or
** has changed since, as carets under other text would mislead. */
static char *reread_source(const char *path, const Job *job, size_t *len)
{
    char *src = NULL;
    if (file_read_all(path, MAX_SOURCE, &src, len) != 0)
        return NULL;
    if (XXH64(src, *len, 0) != job->source_hash) {
        sc_free(src);
        return NULL;
    }
    return src;
}

/* Compiles one file.  Returns an exit status.  With job->keep the bytes go
** to the job instead of out; with job->refs the referenced files too. */
/* How many scenarios the file makes when it is an ElizaOS matrix (0: it is
** not one; scc_matrix_size). */
static size_t matrix_size(const char *path, const char *src, size_t len, const Opts *o)
{
    if (strcmp(path, "-") == 0)
        return 0;
    char *dir = dir_name(path);
    SccCompileOpts co = { .source_name = path, .base_dir = dir, .dialect = o->dialect };
    size_t n = dir ? scc_matrix_size(src, len, &co) : 0;
    sc_free(dir);
    return n;
}

static int compile_src(const char *path, char *src, size_t len, const Opts *o, const char *out, Job *job);

static int compile_one(const char *path, const char *out, const Opts *o, Job *job)
{
    char *src = NULL;
    size_t len = 0;
    int e = file_read_all(path, MAX_SOURCE, &src, &len);
    if (e) {
        fprintf(stderr, "scc: %s: %s\n", strcmp(path, "-") == 0 ? "<stdin>" : path,
                e == EFBIG ? "file too large" : strerror(e));
        return SC_IO;
    }
    return compile_src(path, src, len, o, out, job);
}

/* compile_one of the source already read (src: sc_malloc'd, taken). */
static int compile_src(const char *path, char *src, size_t len, const Opts *o, const char *out, Job *job)
{
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    int e;
    job->source_hash = XXH64(src, len, 0);
    /* an ElizaOS matrix: checked or listed, every scenario it makes (a
    ** pack asks for each by its number); its base scenario is a second
    ** input, so it is not cached */
    size_t msize = o->matrix_pick ? 1 : matrix_size(path, src, len, o);
    if (msize > 1 && (o->check || o->list)) {
        sc_free(src);
        int worst = SC_OK;
        for (size_t k = 1; k <= msize; k++) {
            Opts om = *o;
            om.matrix_pick = k;
            Job j = { .refs = job->refs, .strict = job->strict, .keep = job->keep };
            int st = compile_one(path, out, &om, &j);
            job_fini(&j);
            if (st > worst)
                worst = st;
        }
        return worst;
    }
    bool use_cache = o->cache_dir && strcmp(path, "-") != 0 && !o->list && !o->check &&
                     o->diag_format != DF_SARIF && !msize;
    uint64_t key = use_cache ? cache_key(o, path, src, len) : 0;
    if (use_cache && cache_get(o, key, job)) {
        int st = SC_OK;
        if (!job->keep) {
            e = file_write_atomic(out, job->bytes, job->n_bytes);
            if (e) {
                fprintf(stderr, "scc: %s: cannot write: %s\n", out, strerror(e));
                st = SC_IO;
            }
        }
        sc_free(src);
        return st;
    }
    char *dir = dir_name(path);
    Diags d;
    diags_init(&d);
    d.werror = o->werror;
    d.disabled = o->no_warn;
    d.n_disabled = o->n_no_warn;
    int status = SC_OK;
    SccResult r = { .files = &job->files };
    if (!dir) {
        fprintf(stderr, "scc: %s: out of memory\n", shown);
        status = SC_RUNTIME;
        goto done;
    }
    bool color = sc_color(o->color, STDERR_FILENO);
    bool carets = color && o->diag_format == DF_TEXT;
    /* A file can be read again for carets; stdin cannot. */
    bool free_source = !carets || strcmp(path, "-") != 0;
    SccCompileOpts co = {
        .source_name = shown, .meta_name = base_name(shown), .base_dir = dir, .syms = &o->syms, .variant = o->variant, .spec_clock = o->spec_clock,
        .matrix_pick = o->matrix_pick,
        .dialect = o->dialect, .policy_outside = o->policy_outside, .strip_lines = o->strip, .free_source = free_source,
        .embed = job->refs || use_cache, .embed_path = path,
        .embed_opts = { .max_file = o->max_file, .read = job->keep || use_cache, .strict = job->strict },
        .keep_program = o->list != 0 || job->want_name,
    };
    SccStatus cs = scc_compile(src, len, &co, &d, &r);
    if (free_source)
        src = NULL;
    if (cs == SCC_NOMEM) {
        fprintf(stderr, "scc: %s: out of memory\n", shown);
        status = SC_RUNTIME;
        goto done;
    }
    if (carets && d.n && !src)
        src = reread_source(path, job, &len);
    if (o->diag_format == DF_JSON) {
        diags_print_json(&d, stderr);
    } else if (o->diag_format == DF_SARIF) {
        sarif_add(&d);
    } else {
        DiagPrintOpts po = { .color = color, .caret = color, .src = src, .src_len = len };
        diags_print(&d, stderr, &po);
    }
    if (cs == SCC_INTERNAL) {
        fprintf(stderr, "scc: %s: internal error: %s\n", shown, r.why);
        status = SC_RUNTIME;
        goto done;
    }
    if (cs == SCC_ERRORS)
        status = SC_FAILED;
    if (job->want_name && r.program && !(job->name = sc_strdup(r.program->str[r.program->meta.name].s)))
        status = SC_RUNTIME;
    if (o->list && r.program) {
        Buf lb;
        buf_init(&lb);
        BcListOpts lo = { .lines = true, .header = o->list > 1, .source = shown };
        if (o->html)
            bc_list_html(r.program, &lo, &lb);
        else
            bc_list(r.program, &lo, &lb);
        fwrite(lb.data, 1, lb.len, stdout);
        buf_fini(&lb);
    }
    if (status == SC_OK) {
        job->bytes = r.bytes;
        job->n_bytes = r.n_bytes;
        r.bytes = NULL;
        if (use_cache && d.n == 0)
            cache_put(o, key, job);
    }
    if (status == SC_OK && !job->keep && !o->check && (!o->list || o->out)) {
        e = file_write_atomic(out, job->bytes, job->n_bytes);
        if (e) {
            fprintf(stderr, "scc: %s: cannot write: %s\n", out, strerror(e));
            status = SC_IO;
        }
    }
done:
    bc_free(r.program);
    sc_free(r.bytes);
    diags_fini(&d);
    sc_free(dir);
    sc_free(src);
    return status;
}

/* ---- depfiles (-MD, -MF, -MT, -MP) ---- */

/* A path as Make and Ninja read it in a depfile. */
static void dep_path(Buf *b, const char *p)
{
    for (; *p; p++) {
        if (*p == ' ' || *p == '#' || *p == '\\')
            buf_putc(b, '\\');
        else if (*p == '$')
            buf_putc(b, '$');
        buf_putc(b, *p);
    }
}

/* Appends "target: dep dep ..." for one output. */
static void dep_rule(Buf *b, const char *target, const char *const *deps, size_t n, bool phony)
{
    dep_path(b, target);
    buf_putc(b, ':');
    for (size_t i = 0; i < n; i++) {
        buf_puts(b, " \\\n  ");
        dep_path(b, deps[i]);
    }
    buf_putc(b, '\n');
    for (size_t i = 0; phony && i < n; i++) {
        buf_putc(b, '\n');
        dep_path(b, deps[i]);
        buf_puts(b, ":\n");
    }
}

/* The dependencies of one compilation (copies): its source, then its references. */
static bool deps_of(const char *path, const Job *j, const char ***v, size_t *n, size_t *cap)
{
    size_t need = *n + 1 + j->files.n;
    if (need > *cap) {
        size_t c = need * 2;
        const char **nv = sc_realloc((void *)*v, c * sizeof *nv);
        if (!nv)
            return false;
        *v = nv;
        *cap = c;
    }
    bool ok = ((*v)[(*n)++] = sc_strdup(path)) != NULL;
    for (size_t i = 0; i < j->files.n; i++)
        ok &= ((*v)[(*n)++] = sc_strdup(j->files.v[i].full)) != NULL;
    return ok;
}

static int write_depfile(const char *file, const Buf *b)
{
    int e = b->oom ? ENOMEM : file_write_atomic(file, b->data ? (const void *)b->data : "", b->len);
    if (e) {
        fprintf(stderr, "scc: %s: cannot write the depfile: %s\n", file, strerror(e));
        return SC_IO;
    }
    return SC_OK;
}

static char *with_suffix(const char *p, const char *suffix)
{
    size_t n = strlen(p), k = strlen(suffix);
    char *c = sc_malloc(n + k + 1);
    if (c) {
        memcpy(c, p, n);
        memcpy(c + n, suffix, k + 1);
    }
    return c;
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

/* NAME:DEFINES (docs/rules.md, "Variants"): NAME of letters, digits, '.',
** '_', '-', a plain file-name component (it becomes <stem>@NAME.scb: not
** "." or "..", no leading '-'; the verifier's bc_component_ok), and not
** given twice; DEFINES in AH_SCENARIO_DEFINES' form. */
static bool variant_ok(const Opts *o, const char *v)
{
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : 0;
    bool ok = colon && n > 0 && strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n &&
              bc_component_ok(v, n);
    if (!ok) {
        fprintf(stderr, "scc: bad --variant '%s': expected NAME:DEFINES, NAME of letters, digits, '.', '_' "
                        "and '-', not starting with '-' and not '.' or '..' (e.g. ci:full_test_suite,env=\"prod\")\n", v);
        return false;
    }
    for (size_t i = 0; i < o->n_variants; i++)
        if (strncmp(o->variants[i], v, n + 1) == 0) {
            fprintf(stderr, "scc: --variant '%.*s' is given twice\n", (int)n, v);
            return false;
        }
    Symtab t;
    symtab_init(&t);
    const char *why = NULL;
    ok = symtab_define_list(&t, colon + 1, &why);
    symtab_fini(&t);
    if (!ok)
        fprintf(stderr, "scc: bad --variant '%s': %s\n", v, why ? why : "malformed defines");
    return ok;
}

/* "16M" -> 16777216; K, M, G are powers of 1024. */
static bool parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || s[0] == '-')
        return false;
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10, end++;
    else if (*end == 'M' || *end == 'm')
        shift = 20, end++;
    else if (*end == 'G' || *end == 'g')
        shift = 30, end++;
    if (*end || v > (SIZE_MAX >> shift) || v == 0)
        return false;
    *out = (size_t)(v << shift);
    return true;
}

/* Hashes the options that change what a compilation produces. */
static uint64_t options_hash(int argc, char **argv)
{
    XXH64_state_t *st = XXH64_createState();
    if (!st)
        return 0;
    XXH64_reset(st, 0);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool takes = strcmp(a, "-D") == 0 || strcmp(a, "--define") == 0;
        if (strncmp(a, "-D", 2) == 0 || strncmp(a, "--define", 8) == 0 || strncmp(a, "-W", 2) == 0 ||
            strcmp(a, "-s") == 0 || strcmp(a, "--max-file-size") == 0) {
            XXH64_update(st, a, strlen(a) + 1);
            if ((takes || a[1] == '-') && i + 1 < argc && a[2] != '=' && strchr(a, '=') == NULL)
                XXH64_update(st, argv[i + 1], strlen(argv[i + 1]) + 1);
        }
    }
    const char *env = getenv("AH_SCENARIO_DEFINES");
    XXH64_update(st, env ? env : "", env ? strlen(env) + 1 : 1);
    uint64_t h = XXH64_digest(st);
    XXH64_freeState(st);
    return h;
}

/* A set of strings by hash (open addressing, at most half full): whether a
** JSON file is data some scenario embeds is one lookup, not a walk over
** every scenario's files (which made a pack of N JSON scenarios quadratic). */
typedef struct StrSet {
    char **slot;
    size_t cap, n;
} StrSet;

static size_t strset_at(const StrSet *s, const char *k)
{
    size_t i = (size_t)XXH64(k, strlen(k), 0) & (s->cap - 1);
    while (s->slot[i] && strcmp(s->slot[i], k) != 0)
        i = (i + 1) & (s->cap - 1);
    return i;
}

static bool strset_has(const StrSet *s, const char *k)
{
    return s->cap && s->slot[strset_at(s, k)];
}

static bool strset_add(StrSet *s, const char *k)
{
    if ((s->n + 1) * 2 > s->cap) {
        StrSet g = { sc_calloc(s->cap ? s->cap * 2 : 64, sizeof *g.slot), s->cap ? s->cap * 2 : 64, s->n };
        if (!g.slot)
            return false;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                g.slot[strset_at(&g, s->slot[i])] = s->slot[i];
        sc_free(s->slot);
        *s = g;
    }
    size_t i = strset_at(s, k);
    if (s->slot[i])
        return true;
    if (!(s->slot[i] = sc_strdup(k)))
        return false;
    s->n++;
    return true;
}

static void strset_fini(StrSet *s)
{
    for (size_t i = 0; i < s->cap; i++)
        sc_free(s->slot[i]);
    sc_free(s->slot);
    *s = (StrSet){ 0 };
}

/* --pack: every file into one pack at o->out. */
static int build_pack(const SccPaths *files, const size_t *root, const Opts *o)
{
    int status = SC_OK;
    PackWriter *w = pack_writer_new();
    Buf dep;
    buf_init(&dep);
    const char **deps = NULL;
    size_t n_deps = 0, cap_deps = 0;
    if (!w) {
        fputs("scc: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    /* Two passes: .yaml/.yml first, then .json files that no scenario
    ** references (a terminalRef's JSON under a packed folder is data, not a
    ** scenario).  Entries are then added in the inputs' sorted order. */
    Job *jobs = sc_calloc(files->n ? files->n : 1, sizeof *jobs);
    StrSet embedded = { 0 };      /* the real paths of the files scenarios embed */
    size_t nv = o->n_variants;
    Job *vjobs = sc_calloc(files->n && nv ? files->n * nv : 1, sizeof *vjobs);
    int *st = sc_calloc(files->n ? files->n : 1, sizeof *st);
    bool *skip = sc_calloc(files->n ? files->n : 1, sizeof *skip);
    Job **mjobs = sc_calloc(files->n ? files->n : 1, sizeof *mjobs);       /* a matrix's scenarios */
    size_t *n_mjobs = sc_calloc(files->n ? files->n : 1, sizeof *n_mjobs);
    if (!jobs || !vjobs || !st || !skip || !mjobs || !n_mjobs) {
        fputs("scc: out of memory\n", stderr);
        status = SC_RUNTIME;
    }
    for (int pass = 0; pass < 2 && status < SC_USAGE; pass++) {
        for (size_t i = 0; i < files->n; i++) {
            const char *path = files->v[i];
            size_t n = strlen(path);
            bool json = n > 5 && strcmp(path + n - 5, ".json") == 0;
            if (json != (pass == 1))
                continue;
            if (strcmp(path, "-") == 0) {
                fputs("scc: --pack cannot read a scenario from stdin\n", stderr);
                status = SC_USAGE;
                break;
            }
            if (json) {
                char real[PATH_MAX];
                if (realpath(path, real) && strset_has(&embedded, real))
                    skip[i] = true;
                if (skip[i])
                    continue;
            }
            jobs[i] = (Job){ .keep = true, .refs = true, .strict = true };
            /* an ElizaOS matrix: an entry for each scenario it makes;
            ** anything else compiles from the bytes read to find out (one
            ** read of the file, not two: 5 system calls a scenario) */
            char *msrc = NULL;
            size_t mlen = 0, msize = 0;
            if (!json && file_read_all(path, MAX_SOURCE, &msrc, &mlen) == 0)
                msize = matrix_size(path, msrc, mlen, o);
            if (msize) {
                sc_free(msrc);
                msrc = NULL;
            }
            if (msize) {
                mjobs[i] = sc_calloc(msize, sizeof *mjobs[i]);
                if (!mjobs[i]) {
                    st[i] = SC_RUNTIME;
                } else {
                    n_mjobs[i] = msize;
                    for (size_t k = 0; k < msize; k++) {
                        Opts om = *o;
                        om.matrix_pick = k + 1;
                        mjobs[i][k] = (Job){ .keep = true, .refs = true, .strict = true };
                        int ms = compile_one(path, NULL, &om, &mjobs[i][k]);
                        if (ms > st[i])
                            st[i] = ms;
                    }
                }
                if (st[i] > status)
                    status = st[i];
                continue;
            }
            st[i] = msrc ? compile_src(path, msrc, mlen, o, NULL, &jobs[i]) : compile_one(path, NULL, o, &jobs[i]);
            if (st[i] > status)
                status = st[i];
            for (size_t f = 0; f < jobs[i].files.n; f++) {
                char rf[PATH_MAX];
                if (realpath(jobs[i].files.v[f].full, rf) && !strset_add(&embedded, rf)) {
                    fputs("scc: out of memory\n", stderr);
                    status = SC_RUNTIME;
                }
            }
            /* --variant: the same file again for each define set; a
            ** Scenario-Format scenario becomes NAME@VARIANT (tui-use has no
            ** rules: its variants compile to the plain program and it is
            ** packed once) */
            for (size_t v = 0; !st[i] && v < o->n_variants; v++) {
                Opts ov = *o;
                symtab_init(&ov.syms);
                const char *colon = strchr(o->variants[v], ':');
                char name[128];
                snprintf(name, sizeof name, "%.*s", (int)(colon - o->variants[v]), o->variants[v]);
                ov.variant = name;
                const char *why = NULL;
                int vs = SC_RUNTIME;
                if (symtab_define_list(&ov.syms, colon + 1, &why) && symtab_merge_missing(&ov.syms, &o->syms)) {
                    Job *vj = &vjobs[i * o->n_variants + v];
                    *vj = (Job){ .keep = true, .refs = true, .strict = true };
                    vs = compile_one(path, NULL, &ov, vj);
                }
                symtab_fini(&ov.syms);
                if (vs > status)
                    status = vs;
            }
        }
    }
    for (size_t i = 0; jobs && status < SC_USAGE && i < files->n; i++) {
        Job *job = &jobs[i];
        if (skip[i])
            continue;
        /* a matrix's scenarios; else the variants that differ from the
        ** plain program, else the plain one */
        size_t added = 0;
        size_t nm = n_mjobs[i];
        if (nm)
            job = &mjobs[i][0];
        for (size_t v = 0; !st[i] && v <= (nm ? nm - 1 : nv); v++) {
            const Job *pj = nm ? &mjobs[i][v] : v < nv ? &vjobs[i * nv + v] : job;
            if (!nm && v < nv && (!pj->bytes || (pj->n_bytes == job->n_bytes && memcmp(pj->bytes, job->bytes, job->n_bytes) == 0)))
                continue;
            if (!nm && v == nv && added)
                break;
            PackFileIn *fi = sc_calloc(pj->files.n ? pj->files.n : 1, sizeof *fi);
            for (size_t k = 0; fi && k < pj->files.n; k++)
                fi[k] = (PackFileIn){ pj->files.v[k].rel, pj->files.v[k].mode, pj->files.v[k].data,
                                      pj->files.v[k].len };
            PackEntryIn e = { .source = files->v[i] + root[i], .source_hash = pj->source_hash, .scb = pj->bytes,
                              .scb_len = pj->n_bytes, .files = fi, .n_files = pj->files.n };
            if (!fi || !pack_writer_add(w, &e)) {
                fprintf(stderr, "scc: error: %s\n", fi ? pack_writer_error(w) : "out of memory");
                if (status < SC_FAILED)
                    status = SC_FAILED;
            }
            sc_free(fi);
            added++;
        }
        if (o->md && !deps_of(files->v[i], job, &deps, &n_deps, &cap_deps))
            status = SC_RUNTIME;
    }
    for (size_t i = 0; jobs && i < files->n; i++)
        job_fini(&jobs[i]);
    for (size_t i = 0; mjobs && i < files->n; i++) {
        for (size_t k = 0; k < n_mjobs[i]; k++)
            job_fini(&mjobs[i][k]);
        sc_free(mjobs[i]);
    }
    sc_free(mjobs);
    sc_free(n_mjobs);
    for (size_t i = 0; vjobs && nv && i < files->n * nv; i++)
        job_fini(&vjobs[i]);
    sc_free(jobs);
    strset_fini(&embedded);
    sc_free(vjobs);
    sc_free(st);
    sc_free(skip);
    unsigned char *out = NULL;
    size_t len = 0;
    if (status == SC_OK && !o->check) {
        if (!pack_writer_finish(w, NULL, &out, &len)) {
            fprintf(stderr, "scc: error: %s\n", pack_writer_error(w));
            status = SC_FAILED;
        } else {
            int e = file_write_atomic(o->out, out, len);
            if (e) {
                fprintf(stderr, "scc: %s: cannot write: %s\n", o->out, strerror(e));
                status = SC_IO;
            }
        }
    }
    if (status == SC_OK && o->md) {
        char *df = o->mf ? NULL : with_suffix(o->out, ".d");
        dep_rule(&dep, o->mt ? o->mt : o->out, deps, n_deps, o->mp);
        status = write_depfile(o->mf ? o->mf : df, &dep);
        sc_free(df);
    }
    for (size_t i = 0; i < n_deps; i++)
        sc_free((void *)deps[i]);
    sc_free((void *)deps);
    sc_free(out);
    buf_fini(&dep);
    pack_writer_free(w);
    return status;
}


/* ---- the option table ---- */

enum { C_NO_WARN, C_HELP, C_VERSION, C_GENERATE, C_SCHEMA, C_DEFINE, C_VARIANT, C_CLOCK, C_DIALECT, C_MF, C_MAX_FILE, C_DIAG, C_COLOR };

#define F(field) (unsigned short)offsetof(Opts, field)
static const CoOpt SCC_OPTS[] = {
    { "-o", NULL, CO_STR, CO_NONEMPTY | CO_ATTACH, CV_FILE, F(out), 0, "FILE", 0, 0, 0, 0, NULL, 0, "output",
      "write the bytecode to FILE (one input; '-' = stdout)\n"
      "default: each input's name with .scb for .yaml/.yml/.json" },
    { "-l", NULL, CO_COUNT, 0, 0, F(list), 0, NULL, 0, 0, 1, 0, NULL, 0, "output",
      "list the compiled ops with times and source lines\n(writes no file unless -o is given)" },
    { "-ll", NULL, CO_COUNT, 0, 0, F(list), 0, NULL, 0, 0, 2, 0, NULL, 0, "output",
      "as -l, with the bytecode header first" },
    { "--html", NULL, CO_FLAG, 0, 0, F(html), 0, NULL, 0, 0, 0, 0, NULL, 0, "output",
      "with -l: the schedule as one HTML page, lanes on a time\naxis, payloads on hover" },
    { "-s", NULL, CO_FLAG, 0, 0, F(strip), 0, NULL, 0, 0, 0, 0, NULL, 0, "output", "strip the line table" },
    { "--check", NULL, CO_FLAG, 0, 0, F(check), 0, NULL, 0, 0, 0, 0, NULL, 0, "output",
      "check only: report diagnostics, write nothing" },
    { "--lsp", NULL, CO_FLAG, 0, 0, F(lsp), 0, NULL, 0, 0, 0, 0, NULL, 0, "output",
      "serve the Language Server Protocol on stdin and stdout:\n"
      "diagnostics as you type, quick fixes (docs/editors.md)" },
    { "--pack", NULL, CO_FLAG, 0, 0, F(pack), 0, NULL, 0, 0, 0, 0, NULL, 0, "packs",
      "compile every input into one pack (needs -o FILE.scp):\n"
      "bytecode, index and every referenced file (docs/pack.md);\n"
      "an ElizaOS matrix: an entry per scenario it makes" },
    { "--variant", NULL, CO_CALL, 0, 0, 0, 0, "NAME:DEFS", 0, 0, 0, 0, NULL, C_VARIANT, "packs",
      "with --pack: compile each scenario also as NAME@NAME with\n"
      "the defines DEFS (\"K=V,FLAG\"; repeatable); scvm -D picks\n"
      "one at playback (docs/rules.md, \"Variants\")" },
    { "--exclude", NULL, CO_LIST, CO_NONEMPTY, 0, F(excludes), F(n_excludes), "GLOB", 0, 0, 0, 0, NULL, 0, "inputs",
      "leave out what GLOB matches below a DIR input (repeatable; as\n"
      "a .gitignore line; a DIR's .sccignore adds its own lines)" },
    { "--only-scenarios", NULL, CO_FLAG, 0, 0, F(only_scenarios), 0, NULL, 0, 0, 0, 0, NULL, 0, "inputs",
      "choose among named files as among a DIR's: data (a terminal\n"
      "config, a CI workflow...) skipped with a note, --exclude and\n"
      "./.sccignore applied; for hooks that pass the changed files" },
    { "--max-file-size", NULL, CO_CALL, 0, 0, 0, 0, "N", 0, 0, 0, 0, NULL, C_MAX_FILE, "packs",
      "per embedded file limit, bytes (K, M, G suffixes;\ndefault 16M)" },
    { "--define", "-D", CO_CALL, CO_ATTACH, 0, 0, 0, "NAME[=VALUE]", 0, 0, 0, 0, NULL, C_DEFINE, "compiling",
      "define a rules symbol; NAME alone is true" },
    { "--dialect", NULL, CO_CALL, 0, 0, 0, 0, "NAME", 0, 0, 0, 0, "auto|scenario|tui-use|eliza|yao", C_DIALECT,
      "compiling", "auto (default: the shape decides), scenario, tui-use, eliza or yao" },
    { "--clock", NULL, CO_CALL, 0, 0, 0, 0, "KIND", 0, 0, 0, 0, "spec|reference", C_CLOCK, "compiling",
      "spec or reference: the clock timelines without a `clock:` key\nwere written for (default reference; docs/timing.md)" },
    { "--policy-outside", NULL, CO_FLAG, 0, 0, F(policy_outside), 0, NULL, 0, 0, 0, 0, NULL, 0, "compiling",
      "a tui-use run.policy {path} may point outside the scenario's\n"
      "folder (default: read beneath it; no '..', absolute path or\nsymbolic link out of it)" },
    { "-MD", NULL, CO_FLAG, 0, 0, F(md), 0, NULL, 0, 0, 0, 0, NULL, 0, "builds",
      "also write a Make/Ninja depfile (OUTPUT.d unless -MF)" },
    { "-MF", NULL, CO_CALL, 0, CV_FILE, 0, 0, "FILE", 0, 0, 0, 0, NULL, C_MF, "builds",
      "the depfile's name (implies -MD)" },
    { "-MT", NULL, CO_STR, 0, 0, F(mt), 0, "TARGET", 0, 0, 0, 0, NULL, 0, "builds",
      "the depfile's target (default: the output file)" },
    { "-MP", NULL, CO_FLAG, 0, 0, F(mp), 0, NULL, 0, 0, 0, 0, NULL, 0, "builds",
      "add a phony rule per dependency (deleted files do not\nbreak the build)" },
    { "--cache-dir", NULL, CO_STR, CO_NONEMPTY, CV_DIR, F(cache_dir), 0, "DIR", 0, 0, 0, 0, NULL, 0, "builds",
      "reuse earlier results for unchanged inputs (content hash\n"
      "of the scenario, its referenced files and the options)" },
    { "-Werror", NULL, CO_FLAG, 0, 0, F(werror), 0, NULL, 0, 0, 0, 0, NULL, 0, "diagnostics",
      "treat warnings as errors" },
    { "-Wno-", NULL, CO_CALL, CO_PREFIX, 0, 0, 0, "NAME", 0, 0, 0, 0, NULL, C_NO_WARN, "diagnostics",
      "disable warning NAME (docs/check.md), one of:" SCC_WARNING_LINES },
    { "--diagnostics-format", NULL, CO_CALL, 0, 0, 0, 0, "FORMAT", 0, 0, 0, 0, "text|json|sarif", C_DIAG,
      "diagnostics", "text (default), json (one object per line) or sarif\n(SARIF 2.1.0, for code scanning)" },
    { "--sarif-root", NULL, CO_STR, CO_NONEMPTY, CV_DIR, F(sarif_root), 0, "DIR", 0, 0, 0, 0, NULL, 0, "diagnostics",
      "the folder SARIF locations are relative to (%SRCROOT%;\ndefault: the current one, as code scanning expects)" },
    { "--color", NULL, CO_CALL, 0, 0, 0, 0, "WHEN", 0, 0, 0, 0, "auto|always|never", C_COLOR, "diagnostics",
      "auto (on a terminal; NO_COLOR, TERM=dumb, FORCE_COLOR and\nCLICOLOR_FORCE are heeded: docs/check.md), always or never" },
    { "--help", "-h", CO_CALL, 0, 0, 0, 0, NULL, 0, 0, 0, 0, NULL, C_HELP, "other", "this text" },
    { "--version", "-v", CO_CALL, 0, 0, 0, 0, NULL, 0, 0, 0, 0, NULL, C_VERSION, "other", "version" },
    { "--generate", NULL, CO_CALL, 0, 0, 0, 0, "FORMAT", 0, 0, 0, 0, "help|markdown|man|bash|zsh|fish|scenario-man",
      C_GENERATE, "other", "print this program's help, its option list (markdown), its\n"
               "manual page or its bash, zsh or fish completion, all made\nfrom the one option table; "
               "scenario-man: scenario-format(5),\nmade from the compiler's tables of keys and events" },
    { "--print-schema", NULL, CO_CALL, 0, 0, 0, 0, "DIALECT", 0, 0, 0, 0, "scenario|tui-use|tui-use-policy|eliza|yao",
      C_SCHEMA, "other", "print the JSON Schema of DIALECT's files, made from the\n"
                         "compiler's tables, for editors (docs/editors.md)" },
};
#undef F

static int scc_call(void *op, const CoOpt *row, const char *as, const char *v);

static const CoTable SCC_TABLE = {
    .prog = "scc",
    .summary = "compile agent-testing scenarios to verified bytecode",
    .synopsis = "[options] FILE|DIR...",
    .description = "Compile Scenario-Format YAML (and the tui-use, ElizaOS and Yao dialects) to\n"
                   "verified bytecode (.scb), or many into one pack (.scp).\n"
                   "A DIR stands for every .yaml, .yml and .json file below it, in sorted order.\n",
    .opts = SCC_OPTS,
    .n_opts = sizeof SCC_OPTS / sizeof SCC_OPTS[0],
    .call = scc_call,
    .on_error = "Try 'scc --help'.\n",
    .epilogue = "Symbols also come from AH_SCENARIO_DEFINES=\"K=V,FLAG,N=3\"; -D wins per key.\n"
                "Colour (--color=auto): FORCE_COLOR or CLICOLOR_FORCE (not empty, not 0) turn it on,\n"
                "else NO_COLOR (not empty) or TERM=dumb off, else it is on on a terminal.\n",
    .version = SCC_VERSION,
    .args = &(const CoArgs){ 0, NULL, "yaml|yml|json|jsonl" },
    .n_args = 1,
};

static int scc_call(void *op, const CoOpt *row, const char *as, const char *v)
{
    Opts *o = op;
    switch (row->id) {
    case C_NO_WARN: {
        static const char *const names[] = {
#define X(name, text) name,
            SCC_WARNINGS(X)
#undef X
        };
        const char *best = NULL;
        unsigned bd = 3;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
            if (strcmp(v, names[k]) == 0) {
                o->no_warn[o->n_no_warn++] = v;
                return 0;
            }
            unsigned d = name_distance(v, names[k], 2);
            if (d < bd)
                bd = d, best = names[k];
        }
        if (best)
            return co_usage(&SCC_TABLE, "unknown warning '%s' in -Wno-%s; did you mean -Wno-%s?", v, v, best);
        return co_usage(&SCC_TABLE, "unknown warning '%s' in -Wno-%s (known:%s)", v, v, SCC_WARNING_NAMES);
    }
    case C_HELP: o->help = true; break;
    case C_SCHEMA: {
        size_t i = 0;
        while (scc_schema_name(i) && strcmp(scc_schema_name(i), v) != 0)
            i++;
        if (!scc_schema_name(i))
            return co_usage(&SCC_TABLE, "invalid %s '%s' (scenario, tui-use, tui-use-policy, eliza or yao)", as, v);
        o->schema = v;
        break;
    }
    case C_VERSION: o->version = true; break;
    case C_GENERATE:
        if (strcmp(v, "scenario-man") == 0)
            o->generate = GEN_SCENARIO_MAN;
        else if ((o->generate = co_format(v)) < 0)
            return co_usage(&SCC_TABLE, "invalid %s '%s' (help, markdown, man, bash, zsh, fish or scenario-man)",
                            as, v);
        break;
    case C_DEFINE:
        if (!define(o, v))
            return SC_USAGE;
        break;
    case C_VARIANT:
        if (!variant_ok(o, v))
            return SC_USAGE;
        o->variants[o->n_variants++] = v;
        break;
    case C_CLOCK:
        if (strcmp(v, "spec") != 0 && strcmp(v, "reference") != 0)
            return co_usage(&SCC_TABLE, "invalid %s '%s' (spec or reference)", as, v);
        o->spec_clock = v[0] == 's';
        break;
    case C_DIALECT:
        if (strcmp(v, "auto") != 0 && strcmp(v, "scenario") != 0 && strcmp(v, "tui-use") != 0 &&
            strcmp(v, "eliza") != 0 && strcmp(v, "yao") != 0)
            return co_usage(&SCC_TABLE, "invalid %s '%s' (auto, scenario, tui-use, eliza or yao)", as, v);
        o->dialect = strcmp(v, "auto") == 0 ? NULL : v;
        break;
    case C_MF:
        o->mf = v;
        o->md = true;
        break;
    case C_MAX_FILE:
        if (!parse_size(v, &o->max_file))
            return co_usage(&SCC_TABLE, "invalid %s '%s' (bytes, with an optional K, M or G)", as, v);
        break;
    case C_DIAG:
        if (strcmp(v, "text") != 0 && strcmp(v, "json") != 0 && strcmp(v, "sarif") != 0)
            return co_usage(&SCC_TABLE, "invalid %s '%s' (text, json or sarif)", as, v);
        o->diag_format = v[0] == 't' ? DF_TEXT : v[0] == 'j' ? DF_JSON : DF_SARIF;
        break;
    case C_COLOR:
        if (strcmp(v, "always") != 0 && strcmp(v, "never") != 0 && strcmp(v, "auto") != 0)
            return co_usage(&SCC_TABLE, "invalid %s '%s' (auto, always or never)", as, v);
        o->color = v[1] == 'l' ? 1 : v[1] == 'e' ? 0 : -1;
        break;
    }
    return 0;
}

int main(int argc, char **argv)
{
    Opts o = { .color = -1, .max_file = (size_t)16 << 20, .generate = -1 };
    symtab_init(&o.syms);
    const char **inputs = sc_calloc((size_t)argc, sizeof *inputs);
    o.no_warn = sc_calloc((size_t)argc, sizeof *o.no_warn);
    o.variants = sc_calloc((size_t)argc, sizeof *o.variants);
    o.excludes = sc_calloc((size_t)argc, sizeof *o.excludes);
    size_t n_in = 0;
    int status = SC_USAGE;
    if (!inputs || !o.no_warn || !o.variants || !o.excludes) {
        fputs("scc: out of memory\n", stderr);
        return SC_RUNTIME;
    }
    bool only_files = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const CoOpt *row;
        if (only_files || a[0] != '-' || strcmp(a, "-") == 0)
            inputs[n_in++] = a;
        else if (strcmp(a, "--") == 0)
            only_files = true;
        else if (co_take(&SCC_TABLE, 0, argc, argv, &i, &o, &row))
            goto out;
        if (o.help || o.version || o.generate >= 0 || o.schema)
            break;
    }
    if (o.schema) {
        int rc = scc_write_schema(stdout, o.schema);
        if (rc < 0)
            fputs("scc: cannot write the schema\n", stderr);
        status = rc == 0 ? SC_OK : SC_IO;
        goto out;
    }
    if (o.generate == GEN_SCENARIO_MAN) {
        status = scc_write_format_man(stdout, SCC_VERSION) == 0 ? SC_OK : SC_IO;
        goto out;
    }
    if (o.help || o.generate >= 0) {
        status = co_write(stdout, &SCC_TABLE, o.help ? CO_HELP : (CoFormat)o.generate, 0);
        goto out;
    }
    if (o.version) {
        status = sc_version_write(stdout, "scc") == 0 ? SC_OK : SC_IO;
        goto out;
    }
    if (o.lsp) {
        if (n_in) {
            fputs("scc: --lsp takes no input files: the editor sends them\n", stderr);
            goto out;
        }
        LspOpts lo = { .dialect = o.dialect };
        sc_alloc_keep_freed();     /* a compile at every edit */
        status = lsp_serve(STDIN_FILENO, stdout, &lo) == 0 ? SC_OK : SC_FAILED;
        goto out;
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
    if (!realpath(o.sarif_root ? o.sarif_root : ".", sarif_root)) {
        fprintf(stderr, "scc: --sarif-root %s: %s\n", o.sarif_root ? o.sarif_root : ".", strerror(errno));
        status = o.sarif_root ? SC_USAGE : SC_IO;
        goto out;
    }
    if (strcmp(sarif_root, "/") == 0)
        sarif_root[0] = 0;
    o.opts_hash = options_hash(argc, argv);
    if (o.pack && !o.out) {
        fputs("scc: --pack needs -o FILE\n", stderr);
        goto out;
    }
    if (o.n_variants && !o.pack) {
        fputs("scc: --variant needs --pack: a .scb holds one program, a pack one entry per variant\n", stderr);
        goto out;
    }
    if (o.html && !o.list) {
        fputs("scc: --html goes with -l (scc -l --html FILE > schedule.html)\n", stderr);
        goto out;
    }
    if (o.pack && o.list) {
        fputs("scc: --pack and -l do not go together (list the pack with 'scvm ls')\n", stderr);
        goto out;
    }
    status = SC_OK;
    SccPaths files = { 0 };
    size_t *root = sc_calloc((size_t)argc + 1, sizeof *root), n_root = 0;
    bool *walked = NULL;      /* found below a DIR input (not named) */
    for (size_t i = 0; i < n_in; i++) {
        struct stat st;
        size_t first = files.n;
        if (strcmp(inputs[i], "-") != 0 && stat(inputs[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            const char **pat = sc_calloc(o.n_excludes + 1, sizeof *pat);
            size_t n_pat = o.n_excludes;
            char *keep = NULL;
            int s = pat ? 0 : SC_RUNTIME;
            if (pat)
                memcpy(pat, o.excludes, o.n_excludes * sizeof *pat);
            char bad[PATH_MAX + 16];
            int e = 0;
            if (!s && (e = scc_read_ignore(inputs[i], &pat, &n_pat, &keep)) != 0)
                snprintf(bad, sizeof bad, "%s/.sccignore", inputs[i]);
            if (!s && !e)
                e = scc_walk_sources(&files, inputs[i], pat, n_pat, bad, sizeof bad);
            if (e == ENOMEM) {
                fputs("scc: out of memory\n", stderr);
                s = SC_RUNTIME;
            } else if (e) {
                fprintf(stderr, "scc: %s: %s\n", bad, strerror(e));
                s = SC_IO;
            }
            sc_free(pat);
            sc_free(keep);
            if (s > status)
                status = s;
        } else if (!scc_paths_add(&files, inputs[i])) {
            status = SC_RUNTIME;
        }

        /* Where each file's path relative to its input starts (packs). */
        size_t k = files.n - first;
        size_t *nr = sc_realloc(root, (n_root + k + 1) * sizeof *nr);
        if (!nr) {
            status = SC_RUNTIME;
            break;
        }
        root = nr;
        bool *nw = sc_realloc(walked, (files.n + 1) * sizeof *nw);
        if (!nw) {
            status = SC_RUNTIME;
            break;
        }
        walked = nw;
        for (size_t f = first; f < files.n; f++)
            walked[f] = k > 1 || strcmp(files.v[f], inputs[i]) != 0;
        for (size_t f = first; f < files.n; f++) {
            size_t off = 0;
            if (f == first && k == 1 && strcmp(files.v[f], inputs[i]) == 0) {
                const char *b = strrchr(files.v[f], '/');
                off = b ? (size_t)(b + 1 - files.v[f]) : 0;
            } else {
                off = strlen(inputs[i]);
                while (files.v[f][off] == '/')
                    off++;
            }
            root[n_root++] = off;
        }
    }
    if (o.only_scenarios && walked) {
        /* named files, chosen as a DIR's (a hook passes the changed files):
        ** --exclude and ./.sccignore apply to their paths as given */
        const char **pat = sc_calloc(o.n_excludes + 1, sizeof *pat);
        size_t n_pat = o.n_excludes;
        char *keep = NULL;
        if (pat) {
            memcpy(pat, o.excludes, o.n_excludes * sizeof *pat);
            int e = scc_read_ignore(".", &pat, &n_pat, &keep);
            if (e) {
                fprintf(stderr, "scc: ./.sccignore: %s\n", strerror(e));
                status = SC_IO;
            }
        }
        for (size_t i = 0, j = 0, n = files.n; pat && i < n; i++) {
            const char *rel = strncmp(files.v[i], "./", 2) == 0 ? files.v[i] + 2 : files.v[i];
            bool out = scc_excluded(rel, false, pat, n_pat);
            for (const char *sl = strchr(rel, '/'); sl && !out; sl = strchr(sl + 1, '/')) {
                char dir[PATH_MAX];   /* a folder on its way, as the walk would meet it */
                snprintf(dir, sizeof dir, "%.*s", (int)(sl - rel), rel);
                out = scc_excluded(dir, true, pat, n_pat);
            }
            if (!walked[i] && out) {
                sc_free(files.v[i]);
                files.n--;
                continue;
            }
            files.v[j] = files.v[i];
            root[j] = root[i];
            walked[j++] = true;
        }
        sc_free(pat);
        sc_free(keep);
    }
    /* --check and --pack choose the same files: what a DIR holds that is
    ** certainly data (a CI workflow, package.json, a JSON Schema...) is
    ** left out with a note; a named file is always compiled */
    for (size_t i = 0, j = 0, n = files.n; walked && i < n; i++) {
        unsigned nl, nc;
        const char *what = walked[i] ? scc_data_file(files.v[i], MAX_SOURCE, &nl, &nc) : NULL;
        if (what) {
            if (o.diag_format == DF_TEXT)
                fprintf(stderr, "scc: note: %s: skipped: %s, not a scenario\n", files.v[i], what);
            sc_free(files.v[i]);
            files.n--;
            continue;
        }
        files.v[j] = files.v[i];
        root[j] = root[i];
        walked[j++] = walked[i];
    }
    size_t n_files = files.n;
    if (files.n > 1)    /* file after file: their pages reused, not faulted in anew */
        sc_alloc_keep_freed();
    if (o.pack) {
        if (status == SC_OK && files.n == 0) {
            fputs("scc: --pack: no scenario files in the inputs\n", stderr);
            status = SC_USAGE;
        } else if (status == SC_OK) {
            status = build_pack(&files, root, &o);
        }
        n_files = 0;
    } else if (o.out && files.n != 1) {
        fputs("scc: -o takes one input file\n", stderr);
        status = SC_USAGE;
        n_files = 0;
    }
    Buf dep;
    buf_init(&dep);
    bool want_deps = o.md && !o.check;
    /* --check chooses files as --pack does: a .json file that a scenario
    ** among the inputs references (a terminalRef's terminal config) is
    ** data, not a scenario.  So the .json files go last, after the files
    ** that may reference them (docs/check.md). */
    size_t *order = sc_calloc(n_files ? n_files : 1, sizeof *order), n_order = 0;
    struct {
        const char *path;
        char *name;
    } *named = sc_calloc(n_files ? n_files : 1, sizeof *named);
    size_t n_named = 0;
    if (!named)
        n_files = 0, status = SC_RUNTIME;
    char **refd = NULL;
    size_t n_refd = 0, cap_refd = 0;
    for (int pass = 0; order && pass < 2; pass++)
        for (size_t i = 0; i < n_files; i++) {
            size_t n = strlen(files.v[i]);
            bool json = o.check && n > 5 && strcmp(files.v[i] + n - 5, ".json") == 0;
            if (json == (pass == 1))
                order[n_order++] = i;
        }
    for (size_t oi = 0; order && oi < n_order; oi++) {
        size_t i = order[oi];
        if (o.check && n_refd) {
            char real[PATH_MAX];
            bool ref = false;
            for (size_t k = 0; realpath(files.v[i], real) && k < n_refd && !ref; k++)
                ref = strcmp(refd[k], real) == 0;
            if (ref)
                continue;
        }
        char *def = NULL;
        const char *out = o.out;
        if (!out && strcmp(files.v[i], "-") == 0)
            out = "-";
        if (!out)
            out = def = default_output(files.v[i]);
        Job job = { .refs = want_deps || o.check, .want_name = o.check };
        int s = out ? compile_one(files.v[i], out, &o, &job) : SC_RUNTIME;
        if (job.name && n_named < n_files) {   /* --check: a pack takes one scenario per name */
            named[n_named].path = files.v[i];
            named[n_named++].name = job.name;
            job.name = NULL;
        }
        for (size_t f = 0; o.check && f < job.files.n; f++) {
            char rf[PATH_MAX];
            if (!realpath(job.files.v[f].full, rf))
                continue;
            if (n_refd == cap_refd && !SC_GROW(refd, cap_refd, 16))
                break;
            if (!(refd[n_refd] = sc_strdup(rf)))
                break;
            n_refd++;
        }
        if (!s && want_deps && strcmp(out, "-") != 0) {
            const char **deps = NULL;
            size_t nd = 0, cap = 0;
            if (deps_of(files.v[i], &job, &deps, &nd, &cap)) {
                if (o.mf) {
                    dep_rule(&dep, o.mt ? o.mt : out, deps, nd, o.mp);
                } else {
                    Buf one;
                    buf_init(&one);
                    dep_rule(&one, o.mt ? o.mt : out, deps, nd, o.mp);
                    char *df = with_suffix(out, ".d");
                    s = df ? write_depfile(df, &one) : SC_RUNTIME;
                    sc_free(df);
                    buf_fini(&one);
                }
            } else {
                s = SC_RUNTIME;
            }
            for (size_t k = 0; k < nd; k++)
                sc_free((void *)deps[k]);
            sc_free((void *)deps);
        }
        job_fini(&job);
        sc_free(def);
        if (s > status)
            status = s;
    }
    /* --check says what --pack would refuse: two scenarios of one name, the
    ** second located, the first in a note */
    Diags dup;
    diags_init(&dup);
    dup.code = "duplicate-name";
    for (size_t k = 1; k < n_named; k++)
        for (size_t j = 0; j < k; j++) {
            if (strcmp(named[j].name, named[k].name) != 0)
                continue;
            unsigned l1, c1, l2, c2;
            scc_data_file(named[j].path, MAX_SOURCE, &l1, &c1);
            scc_data_file(named[k].path, MAX_SOURCE, &l2, &c2);
            diag_add(&dup, DIAG_ERROR, named[k].path, l2, c2, NULL,
                     "a second scenario named '%s': packs and scvm tell scenarios apart by name (--pack refuses this)",
                     named[k].name);
            diag_add(&dup, DIAG_NOTE, named[j].path, l1, c1, NULL, "the first scenario named '%s'", named[j].name);
            break;
        }
    if (dup.n) {
        if (o.diag_format == DF_JSON)
            diags_print_json(&dup, stderr);
        else if (o.diag_format == DF_SARIF)
            sarif_add(&dup);
        else
            diags_print(&dup, stderr, &(DiagPrintOpts){ .color = sc_color(o.color, STDERR_FILENO) });
        if (status < SC_FAILED)
            status = SC_FAILED;
    }
    diags_fini(&dup);
    for (size_t k = 0; k < n_named; k++)
        sc_free(named[k].name);
    sc_free(named);
    for (size_t k = 0; k < n_refd; k++)
        sc_free(refd[k]);
    sc_free(refd);
    sc_free(order);
    if (want_deps && o.mf && !o.pack && status == SC_OK) {
        int s = write_depfile(o.mf, &dep);
        if (s > status)
            status = s;
    }
    buf_fini(&dep);
    sc_free(root);
    sc_free(walked);
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
    sc_free((void *)o.excludes);
    sc_free((void *)o.variants);
    return status;
}
