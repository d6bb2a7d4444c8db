/* SPDX-License-Identifier: MIT */
/* lsp.c - `scc --lsp` (lsp.h, docs/editors.md): framing, JSON-RPC,
** documents, and the compiler's diagnostics as LSP diagnostics. */
#include "lsp.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/diag.h"
#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "common/utf8.h"
#include "common/arena.h"
#include "compile.h"
#include "schema.h"
#include "formats/bc.h"
#include "yaml_tree.h"

enum { HEADER_MAX = 8192, DOCS_MAX = 256 };
#define BODY_MAX ((size_t)64 << 20)
#define TEXT_MAX ((size_t)16 << 20)

/* JSON-RPC 2.0 and LSP 3.17 error codes */
enum {
    E_PARSE = -32700,
    E_INVALID_REQUEST = -32600,
    E_METHOD_NOT_FOUND = -32601,
    E_INVALID_PARAMS = -32602,
    E_NOT_INITIALIZED = -32002,
};

/* The first instruction of a source line in the resolved schedule. */
typedef struct Lens {
    uint32_t line;
    uint64_t t;
    uint8_t op;
    uint32_t more;          /* instructions after it on the line */
} Lens;

typedef struct Doc {
    char *uri;
    char *text;             /* NUL-terminated */
    size_t len;
    Lens *lens;             /* the last good compilation's schedule */
    size_t n_lens, cap_lens;
} Doc;

typedef struct SchemaCache {
    const char *name;       /* static */
    cJSON *json;
} SchemaCache;

struct Lsp {
    FILE *out;
    SchemaCache schemas[8]; /* parsed once, on first use */
    size_t n_schemas;
    LspOpts o;
    Buf in;                 /* what arrived and is not handled yet */
    size_t skip;            /* bytes of a refused body still to drop */
    bool initialized, shut, exited, oom;
    Doc *docs;
    size_t n_docs, cap_docs;
};

/* ---- writing messages ---- */

static void send_msg(Lsp *l, Buf *b)
{
    if (b->oom) {
        l->oom = true;
    } else {
        fprintf(l->out, "Content-Length: %zu\r\n\r\n", b->len);
        fwrite(b->data, 1, b->len, l->out);
        fflush(l->out);
    }
    buf_fini(b);
}

/* {"jsonrpc":"2.0","method":METHOD,"params":{ -- the caller adds the
** params, closes both objects and sends it. */
static void notification(JsonW *w, Buf *b, const char *method)
{
    jw_new_obj(w, b);
    jw_kcstr(w, "jsonrpc", "2.0");
    jw_kcstr(w, "method", method);
    jw_kobj(w, "params");
}

/* A message the server ignored, and why: window/logMessage, type Warning
** (the editor shows it in its log of the server: Neovim's lsp.log, VS
** Code's output panel). */
static void warn_(Lsp *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn_(Lsp *l, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    Buf b;
    JsonW w;
    notification(&w, &b, "window/logMessage");
    jw_ki64(&w, "type", 2);
    jw_kcstr(&w, "message", msg);
    jw_end(&w);
    jw_end(&w);
    send_msg(l, &b);
}

/* {"jsonrpc":"2.0","id":ID (null when id is NULL) */
static void envelope(JsonW *w, Buf *b, const cJSON *id)
{
    jw_new_obj(w, b);
    jw_kcstr(w, "jsonrpc", "2.0");
    if (!id) {
        jw_knull(w, "id");
        return;
    }
    char *s = cJSON_PrintUnformatted(id);
    if (s)
        jw_kraw(w, "id", s, strlen(s));
    else
        b->oom = true;
    cJSON_free(s);
}

static void reply_error(Lsp *l, const cJSON *id, int code, const char *msg)
{
    Buf b;
    JsonW w;
    envelope(&w, &b, id);
    jw_kobj(&w, "error");
    jw_ki64(&w, "code", code);
    jw_kcstr(&w, "message", msg);
    jw_end(&w);
    jw_end(&w);
    send_msg(l, &b);
}

/* The start of a result: the caller writes its value and calls done(). */
static void result_start(JsonW *w, Buf *b, const cJSON *id)
{
    envelope(w, b, id);
    jw_key(w, "result");
}

static void result_done(Lsp *l, JsonW *w, Buf *b)
{
    jw_end(w);
    send_msg(l, b);
}

/* ---- positions: the compiler counts characters, LSP UTF-16 units ---- */

static size_t cp_len(unsigned char c)
{
    return c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

static size_t cp_units(unsigned char c) { return c >= 0xF0 ? 2 : 1; }

/* The byte offset where 0-based line starts (len when there are fewer lines). */
static size_t line_start(const char *s, size_t len, uint64_t line)
{
    size_t off;
    return text_line_start(s, len, line, &off) ? off : len;
}

static size_t line_end(const char *s, size_t len, size_t off)
{
    const char *nl = memchr(s + off, '\n', len - off);
    size_t e = nl ? (size_t)(nl - s) : len;
    return e > off && s[e - 1] == '\r' ? e - 1 : e;
}

/* A client's position (line, UTF-16 character) as a byte offset, clamped
** to the line's end and the text's. */
static size_t pos_offset(const char *s, size_t len, uint64_t line, uint64_t ch)
{
    size_t off = line_start(s, len, line), end = line_end(s, len, off);
    uint64_t u = 0;
    while (off < end && u < ch) {
        u += cp_units((unsigned char)s[off]);
        off += cp_len((unsigned char)s[off]);
    }
    return off < end ? off : end;
}

/* The UTF-16 character of byte offset off in its line (which starts at ls). */
static uint64_t off_units(const char *s, size_t ls, size_t off)
{
    uint64_t u = 0;
    for (size_t i = ls; i < off;) {
        u += cp_units((unsigned char)s[i]);
        i += cp_len((unsigned char)s[i]);
    }
    return u;
}

typedef struct Range {
    uint64_t l0, c0, l1, c1;
} Range;

/* The range of a diagnostic at 1-based line and character col: the word
** (a key, a value, a quoted string) that starts there, at least one
** character; the whole first line's start when there is no position. */
static Range diag_range(const char *s, size_t len, uint32_t line, uint32_t col)
{
    Range r = { 0, 0, 0, 0 };
    if (!line)
        return r;
    size_t ls = line_start(s, len, line - 1), le = line_end(s, len, ls), off = ls;
    for (uint32_t c = 1; c < col && off < le; c++)
        off += cp_len((unsigned char)s[off]);
    if (off > le)
        off = le;
    size_t e = off;
    if (e < le && (s[e] == '"' || s[e] == '\'')) {
        char q = s[e++];
        while (e < le && s[e] != q)
            e += s[e] == '\\' && q == '"' && e + 1 < le ? 2 : 1;
        if (e < le)
            e++;
    } else {
        while (e < le && !strchr(" \t:,[]{}#", s[e]))
            e += cp_len((unsigned char)s[e]);
    }
    if (e == off && e < le)
        e += cp_len((unsigned char)s[e]);
    if (e > le)
        e = le;
    r.l0 = r.l1 = line - 1;
    r.c0 = off_units(s, ls, off);
    r.c1 = off_units(s, ls, e);
    return r;
}

static void put_range(JsonW *w, const char *key, Range r)
{
    jw_kobj(w, key);
    jw_kobj(w, "start");
    jw_ku64(w, "line", r.l0);
    jw_ku64(w, "character", r.c0);
    jw_end(w);
    jw_kobj(w, "end");
    jw_ku64(w, "line", r.l1);
    jw_ku64(w, "character", r.c1);
    jw_end(w);
    jw_end(w);
}

/* ---- documents ---- */

static Doc *doc_find(Lsp *l, const char *uri)
{
    for (size_t i = 0; i < l->n_docs; i++)
        if (strcmp(l->docs[i].uri, uri) == 0)
            return &l->docs[i];
    return NULL;
}

static void doc_drop(Lsp *l, Doc *d)
{
    sc_free(d->uri);
    sc_free(d->text);
    sc_free(d->lens);
    *d = l->docs[--l->n_docs];
}

static bool doc_set_text(Doc *d, const char *s, size_t n)
{
    char *t = sc_malloc(n + 1);
    if (!t)
        return false;
    memcpy(t, s, n);
    t[n] = 0;
    sc_free(d->text);
    d->text = t;
    d->len = n;
    return true;
}

/* The open document params.textDocument.uri names, or NULL. */
static Doc *doc_of(Lsp *l, const cJSON *params)
{
    const cJSON *td = cJSON_GetObjectItemCaseSensitive(params, "textDocument");
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(td, "uri");
    return cJSON_IsString(uri) ? doc_find(l, uri->valuestring) : NULL;
}

/* The local path of a file: URI (percent-decoded), or NULL. */
static char *uri_path(const char *uri)
{
    if (strncmp(uri, "file://", 7) != 0 || uri[7] != '/')
        return NULL;
    const char *s = uri + 7;
    char *p = sc_malloc(strlen(s) + 1), *o = p;
    if (!p)
        return NULL;
    for (; *s; s++) {
        int hi, lo;
        if (*s == '%' && s[1] && s[2] && (hi = (s[1] >= 'a' ? s[1] - 'a' + 10 : s[1] >= 'A' ? s[1] - 'A' + 10 : s[1] - '0')) >= 0 &&
            hi < 16 && (lo = (s[2] >= 'a' ? s[2] - 'a' + 10 : s[2] >= 'A' ? s[2] - 'A' + 10 : s[2] - '0')) >= 0 &&
            lo < 16 && (hi || lo)) {
            *o++ = (char)(hi * 16 + lo);
            s += 2;
        } else {
            *o++ = *s;
        }
    }
    *o = 0;
    return p;
}

/* ---- diagnostics ---- */

/* 'X' of a note "did you mean 'X'?", or NULL. */
static const char *suggestion(const char *msg, size_t *n)
{
    static const char pre[] = "did you mean '";
    const char *s = strstr(msg, pre);
    if (!s)
        return NULL;
    s += sizeof pre - 1;
    const char *e = strstr(s, "'?");
    if (!e || e == s)
        return NULL;
    *n = (size_t)(e - s);
    return s;
}

static bool same_diag(const Diag *a, const Diag *b)
{
    return a->level == b->level && a->line == b->line && a->col == b->col && strcmp(a->msg, b->msg) == 0 &&
           (a->file == b->file || (a->file && b->file && strcmp(a->file, b->file) == 0));
}

static void publish(Lsp *l, const Doc *d, const Diags *dg, const char *name)
{
    Buf b;
    JsonW w;
    notification(&w, &b, "textDocument/publishDiagnostics");
    jw_kcstr(&w, "uri", d->uri);
    jw_karr(&w, "diagnostics");
    for (size_t i = 0; dg && i < dg->n; i++) {
        const Diag *g = &dg->v[i];
        bool dup = false;
        for (size_t j = 0; j < i && !dup; j++)    /* a matrix's scenarios repeat what they share */
            dup = same_diag(&dg->v[j], g);
        if (dup || (g->level == DIAG_NOTE && i > 0))
            continue;
        bool here = g->file && strcmp(g->file, name) == 0;
        Range r = here ? diag_range(d->text, d->len, g->line, g->col) : (Range){ 0, 0, 0, 0 };
        jw_obj(&w);
        put_range(&w, "range", r);
        jw_ki64(&w, "severity", g->level == DIAG_ERROR ? 1 : g->level == DIAG_WARNING ? 2 : 3);
        if (g->code)
            jw_kcstr(&w, "code", g->flag ? g->flag : g->code);
        jw_kcstr(&w, "source", "scc");
        Buf m;
        buf_init(&m);
        if (!here && g->file)
            buf_printf(&m, "%s:%u:%u: ", g->file, g->line, g->col);
        buf_puts(&m, g->msg);
        const char *fix = NULL;
        size_t fix_n = 0;
        Range fix_r = r;
        for (size_t j = i + 1; j < dg->n && dg->v[j].level == DIAG_NOTE; j++) {
            buf_printf(&m, "\nnote: %s", dg->v[j].msg);
            const char *s = suggestion(dg->v[j].msg, &fix_n);
            if (s && !fix && dg->v[j].file && strcmp(dg->v[j].file, name) == 0) {
                fix = s;
                fix_r = diag_range(d->text, d->len, dg->v[j].line, dg->v[j].col);
            }
        }
        jw_kstr(&w, "message", m.data ? (const char *)m.data : "", m.len);
        if (m.oom)
            b.oom = true;
        buf_fini(&m);
        if (fix) {
            jw_kobj(&w, "data");
            jw_kstr(&w, "replace", fix, fix_n);
            put_range(&w, "replaceRange", fix_r);
            jw_end(&w);
        }
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    jw_end(&w);
    send_msg(l, &b);
}

/* The schedule of a compiled program, a lens per source line: when its
** first instruction plays (what `scc -l` lists). */
static void keep_lens(Lsp *l, Doc *d, const BcProgram *p)
{
    d->n_lens = 0;
    uint32_t max = 0;
    for (uint32_t i = 0; i < p->n_insn; i++)
        if (p->insn[i].line > max)
            max = p->insn[i].line;
    uint32_t *at = max ? sc_calloc((size_t)max + 1, sizeof *at) : NULL;   /* line -> lens + 1 */
    if (max && !at) {
        l->oom = true;
        return;
    }
    for (uint32_t i = 0; i < p->n_insn; i++) {
        const BcInsn *in = &p->insn[i];
        if (!in->line)
            continue;
        if (at[in->line]) {
            d->lens[at[in->line] - 1].more++;
            continue;
        }
        if (d->n_lens == d->cap_lens && !SC_GROW(d->lens, d->cap_lens, 16)) {
            l->oom = true;
            break;
        }
        d->lens[d->n_lens++] = (Lens){ in->line, in->t, in->op, 0 };
        at[in->line] = (uint32_t)d->n_lens;
    }
    sc_free(at);
}

static void check_doc(Lsp *l, Doc *d)
{
    char *path = uri_path(d->uri);
    const char *name = path ? path : d->uri;
    char *dir = NULL;
    if (path) {
        const char *sl = strrchr(path, '/');
        dir = sc_strndup(path, sl == path ? 1 : (size_t)(sl - path));
    }
    const char *base = strrchr(name, '/');
    SccCompileOpts co = {
        .source_name = name, .meta_name = base ? base + 1 : name, .base_dir = dir ? dir : ".",
        .dialect = l->o.dialect,
    };
    Diags dg;
    diags_init(&dg);
    /* an ElizaOS matrix: every scenario it makes, as scc --check does */
    size_t m = scc_matrix_size(d->text, d->len, &co);
    for (size_t k = m > 1 ? 1 : 0; k <= (m > 1 ? m : 0) && !dg.oom; k++) {
        co.matrix_pick = k;
        char *copy = sc_malloc(d->len + 1);
        if (!copy) {
            dg.oom = true;
            break;
        }
        memcpy(copy, d->text, d->len + 1);
        SccResult r = { 0 };
        co.keep_program = k <= 1;       /* the schedule of the (first) scenario */
        if (scc_compile(copy, d->len, &co, &dg, &r) == SCC_OK && r.program)
            keep_lens(l, d, r.program);
        bc_free(r.program);
        sc_free(r.bytes);
        sc_free(copy);
    }
    if (dg.oom)
        l->oom = true;
    else
        publish(l, d, &dg, name);
    diags_fini(&dg);
    sc_free(dir);
    sc_free(path);
}

/* ---- the methods ---- */

static const char *str_at(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *obj_at(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsObject(v) ? v : NULL;
}

static void m_initialize(Lsp *l, const cJSON *id, const cJSON *params)
{
    (void)params;
    l->initialized = true;
    Buf b;
    JsonW w;
    result_start(&w, &b, id);
    jw_obj(&w);
    jw_kobj(&w, "capabilities");
    jw_kobj(&w, "textDocumentSync");
    jw_kbool(&w, "openClose", true);
    jw_ki64(&w, "change", 2);           /* incremental */
    jw_kobj(&w, "save");
    jw_kbool(&w, "includeText", false);
    jw_end(&w);
    jw_end(&w);
    jw_kbool(&w, "definitionProvider", true);
    jw_kbool(&w, "hoverProvider", true);
    jw_kobj(&w, "completionProvider");
    jw_karr(&w, "triggerCharacters");
    jw_cstr(&w, "-");
    jw_cstr(&w, " ");
    jw_end(&w);
    jw_end(&w);
    jw_kobj(&w, "codeLensProvider");
    jw_kbool(&w, "resolveProvider", false);
    jw_end(&w);
    jw_kobj(&w, "codeActionProvider");
    jw_karr(&w, "codeActionKinds");
    jw_cstr(&w, "quickfix");
    jw_end(&w);
    jw_end(&w);
    jw_end(&w);
    jw_kobj(&w, "serverInfo");
    jw_kcstr(&w, "name", "scc");
    jw_kcstr(&w, "version", SCC_VERSION);
    jw_end(&w);
    jw_end(&w);
    result_done(l, &w, &b);
}

static void m_did_open(Lsp *l, const cJSON *params)
{
    const cJSON *td = obj_at(params, "textDocument");
    const char *uri = str_at(td, "uri");
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(td, "text");
    if (!uri || !cJSON_IsString(text)) {
        warn_(l, "didOpen without textDocument.uri and text: ignored");
        return;
    }
    size_t n = strlen(text->valuestring);
    Doc *d = doc_find(l, uri);
    if (!d) {
        if (l->n_docs == DOCS_MAX || n > TEXT_MAX) {
            warn_(l, "%s: not checked (%s)", uri, n > TEXT_MAX ? "larger than 16 MB" : "256 documents are open");
            return;
        }
        if (l->n_docs == l->cap_docs && !SC_GROW(l->docs, l->cap_docs, 8)) {
            l->oom = true;
            return;
        }
        d = &l->docs[l->n_docs];
        *d = (Doc){ .uri = sc_strdup(uri) };
        if (!d->uri) {
            l->oom = true;
            return;
        }
        l->n_docs++;
    }
    if (!doc_set_text(d, text->valuestring, n)) {
        l->oom = true;
        return;
    }
    check_doc(l, d);
}

static void m_did_change(Lsp *l, const cJSON *params)
{
    Doc *d = doc_of(l, params);
    const cJSON *changes = cJSON_GetObjectItemCaseSensitive(params, "contentChanges"), *c;
    if (!d || !cJSON_IsArray(changes)) {
        warn_(l, "didChange of a document that is not open, or without contentChanges: ignored");
        return;
    }
    cJSON_ArrayForEach(c, changes) {
        const char *text = str_at(c, "text");
        const cJSON *r = obj_at(c, "range");
        if (!text)
            continue;
        size_t tn = strlen(text);
        if (!r) {
            if (tn <= TEXT_MAX && !doc_set_text(d, text, tn))
                l->oom = true;
            continue;
        }
        const cJSON *s = obj_at(r, "start"), *e = obj_at(r, "end");
        const cJSON *sl = cJSON_GetObjectItemCaseSensitive(s, "line"), *sc = cJSON_GetObjectItemCaseSensitive(s, "character");
        const cJSON *el = cJSON_GetObjectItemCaseSensitive(e, "line"), *ec = cJSON_GetObjectItemCaseSensitive(e, "character");
        if (!cJSON_IsNumber(sl) || !cJSON_IsNumber(sc) || !cJSON_IsNumber(el) || !cJSON_IsNumber(ec) ||
            sl->valuedouble < 0 || sc->valuedouble < 0 || el->valuedouble < 0 || ec->valuedouble < 0)
            continue;
        size_t a = pos_offset(d->text, d->len, (uint64_t)sl->valuedouble, (uint64_t)sc->valuedouble);
        size_t z = pos_offset(d->text, d->len, (uint64_t)el->valuedouble, (uint64_t)ec->valuedouble);
        if (z < a)
            z = a;
        if (d->len - (z - a) + tn > TEXT_MAX)
            continue;
        Buf nb;
        buf_init(&nb);
        buf_put(&nb, d->text, a);
        buf_put(&nb, text, tn);
        buf_put(&nb, d->text + z, d->len - z);
        if (nb.oom || !doc_set_text(d, nb.data ? (const char *)nb.data : "", nb.len))
            l->oom = true;
        buf_fini(&nb);
    }
    check_doc(l, d);
}

static void m_did_save(Lsp *l, const cJSON *params)
{
    Doc *d = doc_of(l, params);
    if (d)
        check_doc(l, d);
}

static void m_did_close(Lsp *l, const cJSON *params)
{
    Doc *d = doc_of(l, params);
    if (!d)
        return;
    publish(l, d, NULL, "");     /* its diagnostics cleared */
    doc_drop(l, d);
}

/* Quick fixes: each diagnostic the client sends back that carries a
** "did you mean" (data.replace) becomes an edit replacing the word. */
static void m_code_action(Lsp *l, const cJSON *id, const cJSON *params)
{
    const char *uri = str_at(obj_at(params, "textDocument"), "uri");
    const cJSON *ds = cJSON_GetObjectItemCaseSensitive(obj_at(params, "context"), "diagnostics"), *g;
    if (!uri || !cJSON_IsArray(ds)) {
        reply_error(l, id, E_INVALID_PARAMS, "codeAction needs textDocument.uri and context.diagnostics");
        return;
    }
    Buf b;
    JsonW w;
    result_start(&w, &b, id);
    jw_arr(&w);
    cJSON_ArrayForEach(g, ds) {
        const cJSON *data = obj_at(g, "data"), *rr = obj_at(data, "replaceRange");
        const char *to = str_at(data, "replace");
        if (!to || !rr)
            continue;
        char *gs = cJSON_PrintUnformatted(g), *rs = cJSON_PrintUnformatted(rr);
        if (gs && rs) {
            jw_obj(&w);
            Buf t;
            buf_init(&t);
            buf_printf(&t, "Change to '%s'", to);
            jw_kstr(&w, "title", t.data ? (const char *)t.data : "", t.len);
            buf_fini(&t);
            jw_kcstr(&w, "kind", "quickfix");
            jw_kbool(&w, "isPreferred", true);
            jw_karr(&w, "diagnostics");
            jw_raw(&w, gs, strlen(gs));
            jw_end(&w);
            jw_kobj(&w, "edit");
            jw_kobj(&w, "changes");
            jw_karr(&w, uri);
            jw_obj(&w);
            jw_kraw(&w, "range", rs, strlen(rs));
            jw_kcstr(&w, "newText", to);
            jw_end(&w);
            jw_end(&w);
            jw_end(&w);
            jw_end(&w);
            jw_end(&w);
        } else {
            b.oom = true;
        }
        cJSON_free(gs);
        cJSON_free(rs);
    }
    jw_end(&w);
    result_done(l, &w, &b);
}

/* The request's position (0-based line, UTF-16 character): true, or false
** after answering what's request with an error. */
static bool position_of(Lsp *l, const cJSON *id, const cJSON *params, const char *what, uint64_t *line, uint64_t *ch)
{
    const cJSON *pos = obj_at(params, "position");
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(pos, "line"), *pc = cJSON_GetObjectItemCaseSensitive(pos, "character");
    if (!cJSON_IsNumber(pl) || !cJSON_IsNumber(pc) || pl->valuedouble < 0 || pc->valuedouble < 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "%s needs textDocument.uri and position", what);
        reply_error(l, id, E_INVALID_PARAMS, msg);
        return false;
    }
    *line = (uint64_t)pl->valuedouble;
    *ch = (uint64_t)pc->valuedouble;
    return true;
}

/* The schedule on each event's line: "at 1200 ms: ASSISTANT (+2)". */
static void m_code_lens(Lsp *l, const cJSON *id, const cJSON *params)
{
    Doc *d = doc_of(l, params);
    Buf b;
    JsonW w;
    result_start(&w, &b, id);
    jw_arr(&w);
    for (size_t i = 0; d && i < d->n_lens; i++) {
        const Lens *e = &d->lens[i];
        char title[160];
        if (e->more)
            snprintf(title, sizeof title, "at %llu ms: %s (+%u)", (unsigned long long)e->t, bc_op_info[e->op].name,
                     e->more);
        else
            snprintf(title, sizeof title, "at %llu ms: %s", (unsigned long long)e->t, bc_op_info[e->op].name);
        jw_obj(&w);
        put_range(&w, "range", (Range){ e->line - 1, 0, e->line - 1, 0 });
        jw_kobj(&w, "command");
        jw_kcstr(&w, "title", title);
        jw_kcstr(&w, "command", "");
        jw_end(&w);
        jw_end(&w);
    }
    jw_end(&w);
    result_done(l, &w, &b);
}

/* The scalar whose word covers (line, ch), 0-based and in UTF-16 units. */
static const YNode *scalar_at(const Doc *d, const YNode *n, uint64_t line, uint64_t ch)
{
    if (!n)
        return NULL;
    if (n->kind == YN_SCALAR) {
        Range r = diag_range(d->text, d->len, n->line, n->col);
        return r.l0 == line && r.c0 <= ch && ch <= r.c1 ? n : NULL;
    }
    const YNode *hit = NULL;
    for (uint32_t i = 0; i < n->n && !hit; i++)
        if (n->kind == YN_SEQ)
            hit = scalar_at(d, &n->u.items[i], line, ch);
        else if (!(hit = scalar_at(d, &n->u.pairs[i].key, line, ch)))
            hit = scalar_at(d, &n->u.pairs[i].val, line, ch);
    return hit;
}

static void put_file_uri(JsonW *w, const char *key, const char *path)
{
    Buf u;
    buf_init(&u);
    buf_puts(&u, "file://");
    for (const unsigned char *s = (const unsigned char *)path; *s; s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("/._~-", *s))
            buf_putc(&u, *s);
        else
            buf_printf(&u, "%%%02X", *s);
    jw_kstr(w, key, u.data ? (const char *)u.data : "", u.len);
    if (u.oom)
        w->b->oom = true;
    buf_fini(&u);
}

/* Go to the file or folder a string names (terminalRef, repo.dir, a patch,
** an image, a policy file), relative to the document's folder. */
static void m_definition(Lsp *l, const cJSON *id, Doc *d, uint64_t line, uint64_t ch)
{
    char *path = d ? uri_path(d->uri) : NULL, *target = NULL;
    Arena *a = path ? arena_new() : NULL;
    if (a) {
        Diags dg;
        diags_init(&dg);
        YDoc y;
        const YNode *n = NULL;
        if (yaml_parse(d->text, d->len, path, a, &dg, &y))
            n = scalar_at(d, y.root, line, ch);
        if (n && n->type == YT_STR && n->n && !memchr(n->u.s, 0, n->n)) {
            Buf p;
            buf_init(&p);
            if (n->u.s[0] != '/') {
                const char *sl = strrchr(path, '/');
                buf_put(&p, path, (size_t)(sl - path) + 1);
            }
            buf_put(&p, n->u.s, n->n);
            buf_putc(&p, 0);
            struct stat st;
            if (!p.oom && stat((const char *)p.data, &st) == 0)
                target = (char *)p.data;
            else
                buf_fini(&p);
        }
        diags_fini(&dg);
        arena_free(a);
    }
    Buf b;
    JsonW w;
    result_start(&w, &b, id);
    if (target) {
        jw_obj(&w);
        put_file_uri(&w, "uri", target);
        put_range(&w, "range", (Range){ 0, 0, 0, 0 });
        jw_end(&w);
    } else {
        jw_null(&w);
    }
    result_done(l, &w, &b);
    sc_free(target);
    sc_free(path);
}

/* ---- completion and hover, from the JSON Schemas (schema.h) ---- */

enum { PATH_MAX_SEGS = 64, SCHEMA_SET_MAX = 64 };

/* One step of the YAML path to the cursor: a key, or NULL for a
** sequence's item ("- "). */
typedef struct Seg {
    const char *key;
    size_t n;
} Seg;

/* The elements of a line that open something: "- " markers and "key:"
** keys, left to right, with their columns (bytes from the line's start).
** Returns how many (at most cap). */
typedef struct Elem {
    size_t col;
    const char *key;        /* NULL: a dash */
    size_t n;
    bool inline_value;      /* a key with a value after it on the line */
} Elem;

static size_t line_elems(const char *s, size_t len, Elem *e, size_t cap)
{
    size_t i = 0, k = 0;
    for (;;) {
        while (i < len && s[i] == ' ')
            i++;
        if (i < len && s[i] == '-' && (i + 1 == len || s[i + 1] == ' ')) {
            if (k < cap)
                e[k++] = (Elem){ i, NULL, 0, false };
            i++;
            continue;
        }
        break;
    }
    /* a key: a plain or quoted word followed by ':' and a blank or the end */
    size_t a = i, z = i;
    if (i < len && (s[i] == '"' || s[i] == '\'')) {
        char q = s[i];
        z = i + 1;
        while (z < len && s[z] != q)
            z++;
        if (z >= len)
            return k;
        a = i + 1;
        i = z + 1;
    } else {
        while (i < len && s[i] != ':' && s[i] != '#' && !(s[i] == ' ' && i + 1 < len && s[i + 1] == '#'))
            i++;
        z = i;
        while (z > a && s[z - 1] == ' ')
            z--;
    }
    if (i < len && s[i] == ':' && (i + 1 == len || s[i + 1] == ' ') && z > a && k < cap) {
        size_t v = i + 1;
        while (v < len && s[v] == ' ')
            v++;
        bool inl = v < len && s[v] != '#' && s[v] != '|' && s[v] != '>';
        e[k++] = (Elem){ a - (a > 0 && (s[a - 1] == '"' || s[a - 1] == '\'') ? 1 : 0), s + a, z - a, inl };
    }
    return k;
}

/* The path from the document's root to column col of 0-based line (the
** elements of that line before col included), innermost last.  Returns
** the number of segments. */
static size_t path_at(const char *s, size_t len, uint64_t line, size_t col, Seg *path)
{
    Seg rev[PATH_MAX_SEGS];
    size_t n = 0, threshold = col;
    for (uint64_t l = line + 1; l-- > 0 && n < PATH_MAX_SEGS;) {
        size_t ls = line_start(s, len, l), le = line_end(s, len, ls);
        if (l == line && le > ls + col)
            le = ls + col;
        Elem e[16];
        size_t k = line_elems(s + ls, le - ls, e, 16);
        if (!k) {
            size_t i = ls;
            while (i < le && s[i] == ' ')
                i++;
            if (i < le && s[i] != '#' && i - ls < threshold)
                threshold = i - ls;     /* a plain value line closes what was deeper */
            if (threshold == 0)
                break;
            continue;
        }
        size_t first = n;
        for (size_t j = k; j-- > 0;) {
            if (e[j].col >= threshold || (e[j].key && e[j].inline_value && l != line))
                continue;
            if (l == line && e[j].key)
                continue;           /* the word being written is no parent */
            if (n < PATH_MAX_SEGS)
                rev[n++] = (Seg){ e[j].key, e[j].n };
        }
        if (n > first || e[0].col < threshold)
            threshold = e[0].col < threshold ? e[0].col : threshold;
        if (threshold == 0)
            break;
    }
    for (size_t i = 0; i < n; i++)
        path[i] = rev[n - 1 - i];
    return n;
}

/* The schema for a document, by its name and its top-level keys. */
static const char *doc_schema_name(const Doc *d)
{
    size_t ul = strlen(d->uri);
    if (ul > 6 && strcmp(d->uri + ul - 6, ".jsonl") == 0)
        return "yao";
    bool steps = false, policy = false, eliza = false, timeline = false;
    for (size_t off = 0; off < d->len;) {
        size_t le = line_end(d->text, d->len, off);
        const char *s = d->text + off;
        size_t n = le - off;
#define TOP(k) (n > sizeof k - 1 && memcmp(s, k, sizeof k - 1) == 0 && s[sizeof k - 1] == ':')
        steps |= TOP("steps") || TOP("scenario_version") || TOP("\"steps\"") || TOP("\"scenario_version\"");
        policy |= TOP("policy_version") || TOP("\"policy_version\"");
        eliza |= TOP("judgment") || TOP("environment") || TOP("matrix") || TOP("base_scenario");
        timeline |= TOP("timeline");
#undef TOP
        const char *nl = memchr(d->text + off, '\n', d->len - off);
        off = nl ? (size_t)(nl - d->text) + 1 : d->len;
    }
    return timeline ? "scenario" : steps ? "tui-use" : policy ? "tui-use-policy" : eliza ? "eliza" : "scenario";
}

static cJSON *load_schema(Lsp *l, const char *name)
{
    for (size_t i = 0; i < l->n_schemas; i++)
        if (strcmp(l->schemas[i].name, name) == 0)
            return l->schemas[i].json;
    char *mem = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&mem, &n);
    cJSON *j = NULL;
    if (f) {
        int r = scc_write_schema(f, name);
        fclose(f);
        if (r == 0)
            j = cJSON_ParseWithLength(mem, n);
    }
    free(mem);
    if (j && l->n_schemas < sizeof l->schemas / sizeof l->schemas[0])
        l->schemas[l->n_schemas++] = (SchemaCache){ name, j };
    else if (j) {
        cJSON_Delete(j);
        j = NULL;
    }
    return j;
}

/* Adds node (its $ref followed) and the branches of its anyOf, oneOf,
** allOf and if/then/else to set. */
static void flatten(const cJSON *root, const cJSON *node, const cJSON **set, size_t *n, int depth)
{
    if (!cJSON_IsObject(node) || depth > 16 || *n >= SCHEMA_SET_MAX)
        return;
    const char *ref = str_at(node, "$ref");
    if (ref && strncmp(ref, "#/definitions/", 14) == 0) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj_at(root, "definitions"), ref + 14);
        flatten(root, t, set, n, depth + 1);
    }
    set[(*n)++] = node;
    static const char *const branches[] = { "anyOf", "oneOf", "allOf" };
    for (size_t b = 0; b < 3; b++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(node, branches[b]), *x;
        cJSON_ArrayForEach(x, arr) flatten(root, x, set, n, depth + 1);
    }
    /* if/then/else: either branch may apply where the cursor is */
    flatten(root, cJSON_GetObjectItemCaseSensitive(node, "then"), set, n, depth + 1);
    flatten(root, cJSON_GetObjectItemCaseSensitive(node, "else"), set, n, depth + 1);
}

/* The schemas that describe what stands at path (all the branches that
** can). */
static size_t schemas_at(const cJSON *root, const Seg *path, size_t np, const cJSON **out)
{
    const cJSON *cur[SCHEMA_SET_MAX];
    size_t n = 0;
    flatten(root, root, cur, &n, 0);
    for (size_t i = 0; i < np; i++) {
        const cJSON *next[SCHEMA_SET_MAX];
        size_t m = 0;
        for (size_t j = 0; j < n; j++) {
            const cJSON *c = NULL;
            if (!path[i].key) {
                c = cJSON_GetObjectItemCaseSensitive(cur[j], "items");
            } else {
                const cJSON *props = obj_at(cur[j], "properties"), *p;
                cJSON_ArrayForEach(p, props) if (strlen(p->string) == path[i].n &&
                                                 memcmp(p->string, path[i].key, path[i].n) == 0) c = p;
            }
            if (c)
                flatten(root, c, next, &m, 0);
        }
        memcpy(cur, next, m * sizeof *next);
        n = m;
    }
    memcpy(out, cur, n * sizeof *cur);
    return n;
}


/* Keys (and, after "key: ", values) that may stand at the position: the
** properties and enum values the schema allows there, with their
** descriptions (event names in a timeline, a policy's keys, check types). */
static void m_completion(Lsp *l, const cJSON *id, Doc *d, uint64_t line, uint64_t ch)
{
    Buf b;
    JsonW w;
    result_start(&w, &b, id);
    jw_arr(&w);
    const cJSON *root = d ? load_schema(l, doc_schema_name(d)) : NULL;
    if (root) {
        size_t ls = line_start(d->text, d->len, line), cur = pos_offset(d->text, d->len, line, ch);
        /* the word being written starts after the last blank, dash or '{' */
        size_t ws = cur;
        while (ws > ls && !strchr(" -{[,\"'", d->text[ws - 1]))
            ws--;
        Seg path[PATH_MAX_SEGS + 1];
        size_t np = path_at(d->text, d->len, line, ws - ls, path);
        /* after "key: " on the same line: that key's values */
        Elem e[16];
        size_t k = line_elems(d->text + ls, cur - ls, e, 16);
        bool value = k && e[k - 1].key && e[k - 1].col + e[k - 1].n < ws - ls;
        if (value && np < PATH_MAX_SEGS + 1)
            path[np++] = (Seg){ e[k - 1].key, e[k - 1].n };
        const cJSON *set[SCHEMA_SET_MAX];
        size_t n = schemas_at(root, path, np, set);
        const char *seen[256];
        size_t n_seen = 0;
        for (size_t i = 0; i < n; i++) {
            const cJSON *list = value ? cJSON_GetObjectItemCaseSensitive(set[i], "enum")
                                      : obj_at(set[i], "properties"), *p;
            if (!value && !list)            /* an item that may be a bare string: its enum */
                list = cJSON_GetObjectItemCaseSensitive(set[i], "enum");
            cJSON_ArrayForEach(p, list) {
                const char *label = value || !p->string ? (cJSON_IsString(p) ? p->valuestring : NULL) : p->string;
                if (!label || n_seen == 256)
                    continue;
                bool dup = false;
                for (size_t j = 0; j < n_seen && !dup; j++)
                    dup = strcmp(seen[j], label) == 0;
                if (dup)
                    continue;
                seen[n_seen++] = label;
                const char *desc = p->string ? str_at(p, "description") : str_at(set[i], "description");
                jw_obj(&w);
                jw_kcstr(&w, "label", label);
                jw_ki64(&w, "kind", p->string ? 10 : 12);     /* Property, Value */
                if (desc)
                    jw_kcstr(&w, "detail", desc);
                jw_end(&w);
            }
        }
    }
    jw_end(&w);
    result_done(l, &w, &b);
}

/* The description of the key under the cursor, from the schema, and the
** line's place in the resolved schedule. */
static void m_hover(Lsp *l, const cJSON *id, Doc *d, uint64_t line, uint64_t ch)
{
    Buf text;
    buf_init(&text);
    const cJSON *root = d ? load_schema(l, doc_schema_name(d)) : NULL;
    if (root) {
        size_t ls = line_start(d->text, d->len, line), le = line_end(d->text, d->len, ls);
        size_t cur = pos_offset(d->text, d->len, line, ch);
        Elem e[16];
        size_t k = line_elems(d->text + ls, le - ls, e, 16);
        const Elem *key = NULL;
        for (size_t i = 0; i < k; i++)
            if (e[i].key && e[i].col <= cur - ls && cur - ls <= e[i].col + e[i].n + 1)
                key = &e[i];
        if (key) {
            Seg path[PATH_MAX_SEGS + 1];
            size_t np = path_at(d->text, d->len, line, key->col, path);
            const cJSON *set[SCHEMA_SET_MAX];
            size_t n = schemas_at(root, path, np, set);
            for (size_t i = 0; i < n && !text.len; i++) {
                const cJSON *props = obj_at(set[i], "properties"), *p;
                cJSON_ArrayForEach(p, props) if (!text.len && strlen(p->string) == key->n &&
                                                 memcmp(p->string, key->key, key->n) == 0 && str_at(p, "description"))
                    buf_printf(&text, "**%s**: %s", p->string, str_at(p, "description"));
            }
        }
        for (size_t i = 0; i < d->n_lens; i++)
            if (d->lens[i].line == line + 1)
                buf_printf(&text, "%splays at %llu ms (%s)", text.len ? "\n\n" : "",
                           (unsigned long long)d->lens[i].t, bc_op_info[d->lens[i].op].name);
    }
    Buf b;
    JsonW w;
    result_start(&w, &b, id);
    if (text.len) {
        jw_obj(&w);
        jw_kobj(&w, "contents");
        jw_kcstr(&w, "kind", "markdown");
        jw_kstr(&w, "value", (const char *)text.data, text.len);
        jw_end(&w);
        jw_end(&w);
    } else {
        jw_null(&w);
    }
    if (text.oom)
        b.oom = true;
    buf_fini(&text);
    result_done(l, &w, &b);
}

/* The requests about a position in a document: their handler, or NULL. */
typedef void PosFn(Lsp *l, const cJSON *id, Doc *d, uint64_t line, uint64_t ch);
static PosFn *positional(const char *method)
{
    static const struct {
        const char *method;
        PosFn *fn;
    } table[] = {
        { "textDocument/completion", m_completion },
        { "textDocument/hover", m_hover },
        { "textDocument/definition", m_definition },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(method, table[i].method) == 0)
            return table[i].fn;
    return NULL;
}

static void handle(Lsp *l, const char *body, size_t n)
{
    cJSON *m = cJSON_ParseWithLength(body, n);
    if (!m) {
        reply_error(l, NULL, E_PARSE, "the message is not JSON");
        return;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(m, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(m, "params");
    if (!cJSON_IsObject(m)) {
        reply_error(l, NULL, E_INVALID_REQUEST, "a message is one JSON object (LSP has no batches)");
    } else if (id && !cJSON_IsNumber(id) && !cJSON_IsString(id)) {
        reply_error(l, NULL, E_INVALID_REQUEST, "an id is a number or a string");
    } else if (!method && id && (cJSON_GetObjectItemCaseSensitive(m, "result") ||
                                 cJSON_GetObjectItemCaseSensitive(m, "error"))) {
        warn_(l, "a response to a request never sent: ignored");
    } else if (!cJSON_IsString(method)) {
        if (id)
            reply_error(l, id, E_INVALID_REQUEST, "a request has a method (a string)");
        else
            warn_(l, "a notification without a method: ignored");
    } else {
        const char *me = method->valuestring;
        if (strcmp(me, "exit") == 0) {
            l->exited = true;
        } else if (!l->initialized && strcmp(me, "initialize") != 0) {
            if (id)
                reply_error(l, id, E_NOT_INITIALIZED, "the server is not initialized yet");
        } else if (l->shut) {
            if (id)
                reply_error(l, id, E_INVALID_REQUEST, "the server has shut down: only exit is left");
        } else if (id && strcmp(me, "initialize") == 0) {
            if (l->initialized)
                reply_error(l, id, E_INVALID_REQUEST, "initialize was already received");
            else
                m_initialize(l, id, params);
        } else if (id && strcmp(me, "shutdown") == 0) {
            l->shut = true;
            Buf b;
            JsonW w;
            result_start(&w, &b, id);
            jw_null(&w);
            result_done(l, &w, &b);
        } else if (id && positional(me)) {
            uint64_t line, ch;
            if (position_of(l, id, params, me, &line, &ch))
                positional(me)(l, id, doc_of(l, params), line, ch);
        } else if (id && strcmp(me, "textDocument/codeLens") == 0) {
            m_code_lens(l, id, params);
        } else if (id && strcmp(me, "textDocument/codeAction") == 0) {
            m_code_action(l, id, params);
        } else if (!id && strcmp(me, "textDocument/didOpen") == 0) {
            m_did_open(l, params);
        } else if (!id && strcmp(me, "textDocument/didChange") == 0) {
            m_did_change(l, params);
        } else if (!id && strcmp(me, "textDocument/didSave") == 0) {
            m_did_save(l, params);
        } else if (!id && strcmp(me, "textDocument/didClose") == 0) {
            m_did_close(l, params);
        } else if (id) {
            Buf t;
            buf_init(&t);
            buf_printf(&t, "no method %s", me);
            buf_putc(&t, 0);
            reply_error(l, id, E_METHOD_NOT_FOUND, t.oom ? "no such method" : (const char *)t.data);
            buf_fini(&t);
        }
        /* other notifications (initialized, $/cancelRequest, $/setTrace,
        ** workspace/didChangeConfiguration, ...) need nothing */
    }
    cJSON_Delete(m);
}

/* ---- framing ---- */

static void consume(Buf *b, size_t n)
{
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

/* The Content-Length of a header block (n bytes, without the blank line):
** true with *len, or false with why. */
static bool content_length(const char *h, size_t n, size_t *len, const char **why)
{
    bool have = false;
    for (size_t off = 0; off < n;) {
        const char *e = memchr(h + off, '\n', n - off);
        size_t ll = e ? (size_t)(e - (h + off)) : n - off;
        const char *line = h + off;
        if (ll && line[ll - 1] == '\r')
            ll--;
        static const char key[] = "content-length:";
        if (ll >= sizeof key - 1 && strncasecmp(line, key, sizeof key - 1) == 0) {
            size_t v = 0, i = sizeof key - 1, digits = 0;
            while (i < ll && (line[i] == ' ' || line[i] == '\t'))
                i++;
            for (; i < ll && line[i] >= '0' && line[i] <= '9'; i++, digits++) {
                if (v > (SIZE_MAX - 9) / 10) {
                    *why = "Content-Length is too large";
                    return false;
                }
                v = v * 10 + (size_t)(line[i] - '0');
            }
            while (i < ll && (line[i] == ' ' || line[i] == '\t'))
                i++;
            if (!digits || i != ll) {
                *why = "Content-Length is not a number";
                return false;
            }
            *len = v;
            have = true;
        }
        off += (e ? (size_t)(e - (h + off)) + 1 : n - off);
    }
    if (!have)
        *why = "a message without a Content-Length header";
    return have;
}

bool lsp_feed(Lsp *l, const void *data, size_t n)
{
    if (l->exited || l->oom)
        return false;
    const unsigned char *p = data;
    if (l->skip) {
        size_t k = n < l->skip ? n : l->skip;
        l->skip -= k;
        p += k;
        n -= k;
    }
    buf_put(&l->in, p, n);
    if (l->in.oom) {
        l->oom = true;
        return false;
    }
    while (!l->exited && !l->oom && l->in.len) {
        const char *s = (const char *)l->in.data;
        size_t scan = l->in.len < HEADER_MAX + 4 ? l->in.len : HEADER_MAX + 4, hl = 0;
        for (size_t i = 0; i + 3 < scan && !hl; i++)
            if (s[i] == '\r' && s[i + 1] == '\n' && s[i + 2] == '\r' && s[i + 3] == '\n')
                hl = i + 4;
        if (!hl) {
            if (l->in.len < HEADER_MAX + 4)
                break;          /* more to come */
            reply_error(l, NULL, E_PARSE, "a header longer than 8 KB: the bytes so far are dropped");
            l->in.len = 0;
            break;
        }
        size_t len = 0;
        const char *why = NULL;
        if (!content_length(s, hl - 4, &len, &why)) {
            reply_error(l, NULL, E_PARSE, why);
            consume(&l->in, hl);
            continue;
        }
        if (len > BODY_MAX) {
            reply_error(l, NULL, E_PARSE, "a message larger than 64 MB: dropped");
            consume(&l->in, hl);
            size_t k = l->in.len < len ? l->in.len : len;
            consume(&l->in, k);
            l->skip = len - k;
            continue;
        }
        if (l->in.len - hl < len)
            break;
        handle(l, s + hl, len);
        consume(&l->in, hl + len);
    }
    return !l->exited && !l->oom;
}

int lsp_status(const Lsp *l) { return l->exited && l->shut ? 0 : 1; }

Lsp *lsp_new(FILE *out, const LspOpts *o)
{
    Lsp *l = sc_calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->out = out;
    if (o)
        l->o = *o;
    buf_init(&l->in);
    return l;
}

void lsp_free(Lsp *l)
{
    if (!l)
        return;
    while (l->n_docs)
        doc_drop(l, &l->docs[0]);
    sc_free(l->docs);
    for (size_t i = 0; i < l->n_schemas; i++)
        cJSON_Delete(l->schemas[i].json);
    buf_fini(&l->in);
    sc_free(l);
}

int lsp_serve(int fd, FILE *out, const LspOpts *o)
{
    Lsp *l = lsp_new(out, o);
    if (!l)
        return 1;
    char buf[65536];
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || !lsp_feed(l, buf, (size_t)r))
            break;
    }
    int st = l->oom ? 1 : lsp_status(l);
    lsp_free(l);
    return st;
}
