/* SPDX-License-Identifier: MIT */
/* cmd_show.c - the commands that look at suites without playing them:
** verify, info, dis, ls and extract (docs/scvm.md). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "formats/bc.h"
#include "cli.h"
#include "scvm.h"

static void json_tags(JsonW *w, const PackEntry *e)
{
    jw_arr(w);
    for (uint32_t t = 0; t < e->n_tags; t++)
        jw_cstr(w, e->tags[t]);
    jw_end(w);
}

/* The tags as a JSON array on a text line. */
static void text_tags(Buf *b, const PackEntry *e)
{
    JsonW w;
    jw_init(&w, b);
    json_tags(&w, e);
}

static uint64_t count_events(const BcProgram *p)
{
    uint64_t events = 0;
    for (uint32_t i = 0; i < p->n_insn; i++)
        events += !(bc_op_info[p->insn[i].op].flags & OPF_SILENT);
    return events;
}

/* ---- verify ---- */

int scvm_verify(const Opts *o)
{
    if (o->n_ops == 0)
        return cli_usage(scvm_usage, "%s", "verify: no input file");
    int worst = 0;
    for (size_t i = 0; i < o->n_ops; i++) {
        const char *path = o->ops[i];
        Suite *s = suite_new();
        SuiteErr e;
        int st;
        if (!s) {
            st = SC_RUNTIME;
            e.entry = -1;
            snprintf(e.code, sizeof e.code, "NOMEM");
            snprintf(e.msg, sizeof e.msg, "out of memory");
            if (!o->json)
                fprintf(stderr, "scvm: %s: out of memory\n", cli_display_name(path));
        } else {
            st = scvm_add(s, path, o->json, &e);   /* compiled files: a source is checked with scc --check */
        }
        const Pack *p = st ? NULL : suite_pack(s);
        Buf b;
        buf_init(&b);
        if (o->json) {
            JsonW w;
            jw_open_obj(&w, &b);
            jw_kcstr(&w, "file", path);
            jw_kbool(&w, "ok", !st);
            if (st) {
                jw_ki64(&w, "status", st);
                jw_kcstr(&w, "code", e.code);
                if (e.entry >= 0)
                    jw_ki64(&w, "entry", e.entry);
                jw_kcstr(&w, "message", e.msg);
            } else if (p) {
                jw_kcstr(&w, "kind", "pack");
                jw_ku64(&w, "scenarios", p->n_entries);
            }
            jw_end(&w);
            jw_nl(&w);
        } else if (p) {
            size_t files = 0;
            for (uint32_t k = 0; k < p->n_entries; k++)
                files += p->entries[k].n_files;
            buf_printf(&b, "%s: ok (pack: %u scenarios, %zu embedded files)\n", cli_display_name(path),
                       (unsigned)p->n_entries, files);
        } else if (!st) {
            buf_printf(&b, "%s: ok\n", cli_display_name(path));
        }
        /* Flush per file so ok lines and stderr diagnostics interleave in order. */
        int w = cli_put_stdout(&b);
        fflush(stdout);
        buf_fini(&b);
        suite_free(s);
        if (w > st)
            st = w;
        if (st > worst)
            worst = st;
    }
    return worst;
}

/* ---- info ---- */

static void info_line(Buf *b, const char *key, const char *val)
{
    buf_printf(b, "%-12s %s\n", key, val);
}

/* A .scb: header and metadata. */
/* The clock the timeline was compiled for: config.clock, else the default. */
static const char *clock_of(const BcProgram *p)
{
    BcVal cfg = bc_val(p, p->meta.config), ck;
    return bc_val_get(p, &cfg, "clock", &ck) && ck.tag == BC_V_STR ? p->str[ck.n].s : "reference";
}

static void info_program(const Opts *o, const char *path, const BcProgram *p, Buf *b, Buf *v)
{
    const BcMeta *m = &p->meta;
    uint64_t events = count_events(p), duration = p->insn[p->n_insn - 1].t;
    if (o->json) {
        JsonW w;
        jw_open_obj(&w, b);
        jw_kcstr(&w, "file", path);
        char ver[24];
        snprintf(ver, sizeof ver, "%u.%u", p->version_major, p->version_minor);
        jw_kcstr(&w, "version", ver);
        jw_ku64(&w, "flags", p->flags);
        jw_kbool(&w, "lines", p->flags & BC_FLAG_LINES);
        jw_kbool(&w, "dict", p->flags & BC_FLAG_DICT);
        jw_ku64(&w, "file_size", p->file_size);
        jw_ku64(&w, "content_size", p->content_size);
        jw_khex64(&w, "checksum", p->checksum);
        jw_kstr(&w, "name", p->str[m->name].s, p->str[m->name].len);
        jw_kstr(&w, "source", p->str[m->source].s, p->str[m->source].len);
        jw_kvalue(&w, "prompt");
        bc_val_json(p, m->prompt, b);
        jw_kvalue(&w, "tags");
        bc_val_json(p, m->tags, b);
        jw_ku64(&w, "term_width", m->term_width);
        jw_ku64(&w, "term_height", m->term_height);
        jw_ku64(&w, "strings", p->n_str);
        jw_ku64(&w, "values", p->n_val);
        jw_ku64(&w, "ops", p->n_insn);
        jw_ku64(&w, "events", events);
        jw_ku64(&w, "duration_ms", duration);
        jw_kcstr(&w, "clock", clock_of(p));
        jw_kvalue(&w, "config");
        bc_val_json(p, m->config, b);
        jw_kvalue(&w, "defines");
        bc_val_json(p, m->defines, b);
        jw_end(&w);
        jw_nl(&w);
        return;
    }
    info_line(b, "file", cli_display_name(path));
    buf_printf(b, "%-12s %u.%u\n", "version", p->version_major, p->version_minor);
    info_line(b, "flags", bc_flags_name(p->flags));
    buf_printf(b, "%-12s %zu bytes (content %zu bytes)\n", "size", p->file_size, p->content_size);
    buf_printf(b, "%-12s %016llx\n", "checksum", (unsigned long long)p->checksum);
    /* Names are shown as JSON strings so control characters stay visible. */
    buf_json_str(v, p->str[m->name].s, p->str[m->name].len);
    buf_putc(v, 0);
    info_line(b, "name", (const char *)v->data);
    buf_reset(v);
    buf_json_str(v, p->str[m->source].s, p->str[m->source].len);
    buf_putc(v, 0);
    info_line(b, "source", (const char *)v->data);
    const char *keys[] = { "prompt", "tags", "config", "defines" };
    const uint32_t vals[] = { m->prompt, m->tags, m->config, m->defines };
    for (int i = 0; i < 4; i++) {
        if (i == 2) {
            if (m->term_width || m->term_height)
                buf_printf(b, "%-12s %ux%u\n", "terminal", (unsigned)m->term_width, (unsigned)m->term_height);
            else
                info_line(b, "terminal", "-");
            buf_printf(b, "%-12s %u\n%-12s %u\n%-12s %u\n%-12s %llu\n%-12s %llu\n%-12s %s\n", "strings",
                       (unsigned)p->n_str, "values", (unsigned)p->n_val, "ops", (unsigned)p->n_insn, "events",
                       (unsigned long long)events, "duration_ms", (unsigned long long)duration, "clock", clock_of(p));
        }
        buf_reset(v);
        bc_val_json(p, vals[i], v);
        buf_putc(v, 0);
        info_line(b, keys[i], (const char *)v->data);
    }
}

/* One entry of a suite (--scenario NAME). */
static void info_entry(const Opts *o, const char *path, int32_t idx, const PackEntry *e, Buf *b)
{
    const BcProgram *g = e->prog;
    uint64_t events = count_events(g), duration = g->insn[g->n_insn - 1].t;
    if (o->json) {
        JsonW w;
        jw_open_obj(&w, b);
        jw_kcstr(&w, "file", path);
        jw_ki64(&w, "index", idx);
        jw_kcstr(&w, "name", e->name);
        jw_kcstr(&w, "source", e->source);
        jw_kvalue(&w, "prompt");
        bc_val_json(g, g->meta.prompt, b);
        jw_key(&w, "tags");
        json_tags(&w, e);
        jw_khex64(&w, "hash", e->hash);
        jw_khex64(&w, "source_hash", e->source_hash);
        jw_ku64(&w, "code_size", e->code_size);
        jw_ku64(&w, "files", e->n_files);
        jw_ku64(&w, "ops", g->n_insn);
        jw_ku64(&w, "events", events);
        jw_ku64(&w, "duration_ms", duration);
        jw_end(&w);
        jw_nl(&w);
        return;
    }
    buf_printf(b, "%-12s %s\n%-12s %d\n%-12s ", "file", cli_display_name(path), "index", (int)idx, "name");
    buf_json_str(b, e->name, strlen(e->name));
    buf_printf(b, "\n%-12s ", "source");
    buf_json_str(b, e->source, strlen(e->source));
    buf_printf(b, "\n%-12s ", "prompt");
    bc_val_json(g, g->meta.prompt, b);
    buf_printf(b, "\n%-12s ", "tags");
    text_tags(b, e);
    buf_printf(b, "\n%-12s %016llx\n%-12s %016llx\n%-12s %zu bytes\n%-12s %u\n%-12s %u\n%-12s %llu\n%-12s %llu\n",
               "hash", (unsigned long long)e->hash, "source_hash", (unsigned long long)e->source_hash, "code",
               e->code_size, "files", (unsigned)e->n_files, "ops", (unsigned)g->n_insn, "events",
               (unsigned long long)events, "duration_ms", (unsigned long long)duration);
}

/* A pack: its container. */
static void info_pack(const Opts *o, const char *path, const Pack *p, Buf *b)
{
    size_t files = 0, file_bytes = 0, code_bytes = 0;
    for (uint32_t k = 0; k < p->n_entries; k++) {
        files += p->entries[k].n_files;
        code_bytes += p->entries[k].code_size;
        for (uint32_t f = 0; f < p->entries[k].n_files; f++)
            file_bytes += p->entries[k].files[f].len;
    }
    if (o->json) {
        JsonW w;
        jw_open_obj(&w, b);
        jw_kcstr(&w, "file", path);
        jw_kcstr(&w, "kind", "pack");
        char ver[24];
        snprintf(ver, sizeof ver, "%u.%u", p->version_major, p->version_minor);
        jw_kcstr(&w, "version", ver);
        jw_ku64(&w, "flags", p->flags);
        jw_ku64(&w, "dictionary", p->dict_size);
        jw_ku64(&w, "frames", p->n_frames);
        jw_ku64(&w, "file_size", p->file_size);
        jw_ku64(&w, "content_size", p->content_size);
        jw_ku64(&w, "index_size", p->index_size);
        jw_khex64(&w, "checksum", p->checksum);
        jw_ku64(&w, "scenarios", p->n_entries);
        jw_ku64(&w, "blobs", p->n_blobs);
        jw_ku64(&w, "files", files);
        jw_ku64(&w, "code_bytes", code_bytes);
        jw_ku64(&w, "file_bytes", file_bytes);
        jw_end(&w);
        jw_nl(&w);
        return;
    }
    buf_printf(b, "%-12s %s\n%-12s pack\n%-12s %u.%u\n", "file", cli_display_name(path), "kind", "version",
               p->version_major, p->version_minor);
    buf_printf(b, "%-12s %zu bytes (content %zu bytes, index %zu bytes)\n", "size", p->file_size, p->content_size,
               p->index_size);
    buf_printf(b, "%-12s %016llx\n", "checksum", (unsigned long long)p->checksum);
    buf_printf(b, "%-12s %u\n", "frames", (unsigned)p->n_frames);
    if (p->dict_size)
        buf_printf(b, "%-12s %u bytes\n", "dictionary", (unsigned)p->dict_size);
    else
        buf_printf(b, "%-12s -\n", "dictionary");
    buf_printf(b, "%-12s %u\n%-12s %u (%zu bytes of bytecode, %zu bytes of files)\n%-12s %zu\n", "scenarios",
               (unsigned)p->n_entries, "blobs", (unsigned)p->n_blobs, code_bytes, file_bytes, "files", files);
}

int scvm_info(const Opts *o)
{
    Suite *s;
    uint32_t *sel = NULL;
    size_t n = 0;
    int st = scvm_open(o, "info", &s, o->n_names ? &sel : NULL, &n);
    if (st)
        return st;
    const char *path = o->ops[0];
    Buf b, v;
    buf_init(&b);
    buf_init(&v);
    if (o->n_names) {
        for (size_t k = 0; k < n; k++)
            info_entry(o, path, (int32_t)sel[k], suite_entry(s, sel[k]), &b);
    } else if (suite_pack(s)) {
        info_pack(o, path, suite_pack(s), &b);
    } else {
        info_program(o, path, suite_entry(s, 0)->prog, &b, &v);
    }
    st = v.oom ? SC_RUNTIME : cli_put_stdout(&b);
    buf_fini(&v);
    buf_fini(&b);
    sc_free(sel);
    suite_free(s);
    return st;
}

/* ---- dis ---- */

int scvm_dis(const Opts *o)
{
    Suite *s;
    uint32_t *sel;
    size_t n;
    int st = scvm_open(o, "dis", &s, &sel, &n);
    if (st)
        return st;
    const char *shown = cli_display_name(o->ops[0]);
    bool one = !o->selecting && !suite_pack(s);
    Buf b, label;
    buf_init(&b);
    buf_init(&label);
    for (size_t k = 0; k < n; k++) {
        const PackEntry *e = suite_entry(s, sel[k]);
        /* A pack's entries are told apart by "FILE:NAME" and a blank line. */
        buf_reset(&label);
        if (one)
            buf_puts(&label, shown);
        else
            buf_printf(&label, "%s:%s", shown, e->name);
        buf_putc(&label, 0);
        if (k)
            buf_putc(&b, '\n');
        BcListOpts lo = {
            .lines = !o->no_lines && (e->prog->flags & BC_FLAG_LINES),
            .header = true,
            .source = label.oom ? shown : (const char *)label.data,
        };
        bc_list(e->prog, &lo, &b);
    }
    st = label.oom ? SC_RUNTIME : cli_put_stdout(&b);
    buf_fini(&label);
    buf_fini(&b);
    sc_free(sel);
    suite_free(s);
    return st;
}

/* ---- ls ---- */

int scvm_ls(const Opts *o)
{
    Suite *s;
    uint32_t *sel;
    size_t n;
    int st = scvm_open(o, "ls", &s, &sel, &n);
    if (st)
        return st;
    size_t wn = 4, ws = 6;
    for (size_t k = 0; k < n; k++) {
        const PackEntry *e = suite_entry(s, sel[k]);
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
        const PackEntry *e = suite_entry(s, sel[k]);
        if (o->json) {
            JsonW w;
            jw_open_obj(&w, &b);
            jw_ku64(&w, "index", sel[k]);
            jw_kcstr(&w, "name", e->name);
            jw_kcstr(&w, "source", e->source);
            jw_key(&w, "tags");
            json_tags(&w, e);
            jw_key(&w, "prompt");
            if (e->prompt)
                jw_str(&w, e->prompt, e->prompt_len);
            else
                jw_null(&w);
            jw_khex64(&w, "hash", e->hash);
            jw_khex64(&w, "source_hash", e->source_hash);
            jw_ku64(&w, "code_size", e->code_size);
            jw_karr(&w, "files");
            for (uint32_t f = 0; f < e->n_files; f++) {
                jw_obj(&w);
                jw_kcstr(&w, "path", e->files[f].path);
                jw_ku64(&w, "size", e->files[f].len);
                jw_kbool(&w, "executable", e->files[f].mode & PACK_FILE_EXEC);
                jw_khex64(&w, "hash", e->files[f].hash);
                jw_end(&w);
            }
            jw_end(&w);
            jw_end(&w);
            jw_nl(&w);
            continue;
        }
        buf_printf(&b, "%5u  %-*s  %-*s  ", (unsigned)sel[k], (int)wn, e->name, (int)ws, e->source);
        if (e->n_tags)
            text_tags(&b, e);
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
    suite_free(s);
    return st;
}

/* ---- extract ---- */

/* Writes rel below the folder open as dfd (dir, for messages), never
** through a link (file_write_beneath). */
static int write_file(int dfd, const char *dir, const char *rel, const void *data, size_t len, bool exec)
{
    int e = file_write_beneath(dfd, rel, len ? data : "", len, exec ? 0755 : 0644);
    if (e)
        fprintf(stderr, "scvm: %s/%s: cannot write: %s%s\n", dir, rel, strerror(e),
                e == ELOOP || e == ENOTDIR ? " (a symbolic link or a file is in the way; nothing is written through one)"
                                           : "");
    return e ? SC_IO : 0;
}

int scvm_write_entry(const PackEntry *e, const char *dir, char *folder, size_t cap)
{
    /* DIR/<source's folder>/<stem>.scb, and each file beside it.  The
    ** loader checked the source and file paths (pack_path_ok) and the
    ** variant (bc_component_ok, and it ends the name); each is written
    ** below DIR's descriptor without following a link (docs/security.md). */
    char rel[PATH_MAX * 3];
    const char *slash = strrchr(e->source, '/');
    int sl = slash ? (int)(slash - e->source) : 0;
    snprintf(folder, cap, "%s%s%.*s", dir, slash ? "/" : "", sl, e->source);
    const char *stem = slash ? slash + 1 : e->source;
    const char *dot = strrchr(stem, '.');
    /* a variant (scc --variant) of the same source: <stem>@<variant>.scb */
    const char *var = NULL;
    size_t nl = strlen(e->name);
    for (uint32_t t = 0; t < e->n_tags && !var; t++) {
        const char *v = e->tags[t];
        size_t vl = strlen(v);
        if (strncmp(v, "variant:", 8) == 0 && nl > vl - 7 &&
            e->name[nl - (vl - 8) - 1] == '@' && strcmp(e->name + nl - (vl - 8), v + 8) == 0)
            var = v + 8;
    }
    int e0 = file_mkdirs(dir);
    int dfd = e0 ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        fprintf(stderr, "scvm: %s: cannot make or open the folder: %s\n", dir, strerror(e0 ? e0 : errno));
        return SC_IO;
    }
    snprintf(rel, sizeof rel, "%.*s%s%.*s%s%s.scb", sl, e->source, slash ? "/" : "",
             dot ? (int)(dot - stem) : (int)strlen(stem), stem, var ? "@" : "", var ? var : "");
    unsigned char *scb;
    size_t len;
    if (!pack_entry_scb(e, &scb, &len)) {
        fputs("scvm: out of memory\n", stderr);
        close(dfd);
        return SC_RUNTIME;
    }
    int st = write_file(dfd, dir, rel, scb, len, false);
    sc_free(scb);
    for (uint32_t f = 0; f < e->n_files && !st; f++) {
        snprintf(rel, sizeof rel, "%.*s%s%s", sl, e->source, slash ? "/" : "", e->files[f].path);
        st = write_file(dfd, dir, rel, e->files[f].data, e->files[f].len, e->files[f].mode & PACK_FILE_EXEC);
    }
    close(dfd);
    return st;
}

int scvm_extract(const Opts *o)
{
    if (o->n_ops == 1 && !o->dir)
        return cli_usage(scvm_usage, "%s", "extract needs -C DIR");
    Suite *s;
    uint32_t *sel;
    size_t n;
    int st = scvm_open(o, "extract", &s, &sel, &n);
    if (st)
        return st;
    if (!suite_pack(s)) {
        sc_free(sel);
        suite_free(s);
        return cli_usage(scvm_usage, "%s: extract takes a pack", cli_display_name(o->ops[0]));
    }
    for (size_t k = 0; k < n && !st; k++) {
        char folder[PATH_MAX];
        st = scvm_write_entry(suite_entry(s, sel[k]), o->dir, folder, sizeof folder);
    }
    sc_free(sel);
    suite_free(s);
    return st;
}
