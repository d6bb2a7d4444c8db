/* SPDX-License-Identifier: MIT */
/* rt_pty_out.c - what a PTY run leaves behind: screenshots compared with
** goldens (unified diff on mismatch, --update-goldens rewrites them),
** ScreenSnapshot files, the asciicast v2 recording, and the tui-use
** artifacts (run.json, transcript.log, events.jsonl of Observation records,
** policy.json, scenario.json, normalization.json, checksums.json with
** FNV-1a 64, as the data model writes them); each screenshot and golden
** mismatch also as a picture (SVG and HTML, formats/term/term_svg.h). */
#include "rt_pty_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>

#include "common/fileio.h"
#include "common/jsonw.h"
#include "common/fnv1a.h"
#include "common/sc_alloc.h"
#include "formats/term/term_svg.h"
#include "rt_pty_mask.h"

void pty_profile_id(Pty *t)
{
    /* The spec's terminalProfileId: the Terminal-Config `name`, which the
    ** compiler records as config.terminal.name, else <width>x<height>.
    ** The name becomes a folder, so it is made a safe file name. */
    rt_pty_profile_of(t->p, t->profile, sizeof t->profile);
}

void rt_pty_profile_of(const BcProgram *p, char *out, size_t n)
{
    BcVal cfg = bc_val(p, p->meta.config), term, name;
    if (cfg.tag == BC_V_MAP && bc_val_get(p, &cfg, "terminal", &term) && term.tag == BC_V_MAP &&
        bc_val_get(p, &term, "name", &name) && name.tag == BC_V_STR && p->str[name.n].len > 0 &&
        strlen(p->str[name.n].s) == p->str[name.n].len) {
        rt_pty_safe_name(p->str[name.n].s, out, n);
        return;
    }
    snprintf(out, n, "%ux%u", p->meta.term_width ? (unsigned)p->meta.term_width : 80u,
             p->meta.term_height ? (unsigned)p->meta.term_height : 24u);
}

/* A label as a file name: [A-Za-z0-9._-] kept, everything else '_', no
** leading dot, so a label can never leave its directory. */
void rt_pty_safe_name(const char *label, char *out, size_t n)
{
    size_t k = 0;
    for (const char *s = label; *s && k + 1 < n; s++) {
        char c = *s;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                  c == '_' || (c == '.' && k > 0);
        out[k++] = ok ? c : '_';
    }
    if (k == 0 && n > 1)
        out[k++] = '_';
    out[k] = 0;
}

static int write_file(const char *path, const void *data, size_t len)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return ENAMETOOLONG;
    char *sl = strrchr(dir, '/');
    if (sl && sl != dir) {
        *sl = 0;
        int e = file_mkdirs(dir);
        if (e)
            return e;
    }
    return file_write_atomic(path, len ? data : "", len);
}

/* Writes an artifact (relative path) and remembers its checksum. */
static void art_write(Pty *t, const char *rel, const void *data, size_t len)
{
    if (!t->o.artifacts)
        return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", t->o.artifacts, rel);
    int e = write_file(path, data, len);
    if (e) {
        if (t->o.diag)
            fprintf(t->o.diag, "scvm: pty: %s: cannot write: %s\n", path, strerror(e));
        pty_fail(t, PTY_E_IO, "%s: cannot write: %s", path, strerror(e));
        return;
    }
    char line[PATH_MAX + 32];
    int n = snprintf(line, sizeof line, "%s\t%016llx", rel, (unsigned long long)fnv1a64(data, len));
    strv_push(&t->written, line, (size_t)n);
}

/* ---- goldens and diffs ---- */

typedef struct Lines {
    const char **s;
    size_t *n;
    size_t count;
} Lines;

static bool split_lines(const char *text, size_t len, Lines *l)
{
    size_t cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += text[i] == '\n';
    l->s = sc_malloc(cap * sizeof *l->s);
    l->n = sc_malloc(cap * sizeof *l->n);
    l->count = 0;
    if (!l->s || !l->n)
        return false;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || text[i] == '\n') {
            if (i == len && i == start)
                break;
            l->s[l->count] = text + start;
            l->n[l->count++] = i - start;
            start = i + 1;
        }
    }
    return true;
}

static void lines_free(Lines *l)
{
    sc_free(l->s);
    sc_free(l->n);
}

static bool line_eq(const Lines *a, size_t i, const Lines *b, size_t j)
{
    return a->n[i] == b->n[j] && memcmp(a->s[i], b->s[j], a->n[i]) == 0;
}

/* Unified diff (3 lines of context) from an LCS table; screens are small
** (at most 500 rows plus a few headers), so O(n*m) is fine. */
static void unified_diff(const char *an, const char *a, size_t al, const char *bn, const char *b, size_t bl, Buf *out)
{
    Lines A, B;
    if (!split_lines(a, al, &A) || !split_lines(b, bl, &B)) {
        lines_free(&A);
        lines_free(&B);
        return;
    }
    size_t n = A.count, m = B.count;
    uint32_t *L = sc_calloc((n + 1) * (m + 1), sizeof *L);
    /* edit script: 0 same, 1 delete (from A), 2 insert (from B) */
    char *op = sc_malloc(n + m + 1);
    size_t *ai = sc_malloc((n + m + 1) * sizeof *ai), *bi = sc_malloc((n + m + 1) * sizeof *bi);
    if (!L || !op || !ai || !bi)
        goto done;
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            L[i * (m + 1) + j] = line_eq(&A, i, &B, j) ? L[(i + 1) * (m + 1) + j + 1] + 1
                                 : L[(i + 1) * (m + 1) + j] > L[i * (m + 1) + j + 1] ? L[(i + 1) * (m + 1) + j]
                                                                                     : L[i * (m + 1) + j + 1];
    size_t k = 0, i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && line_eq(&A, i, &B, j)) {
            op[k] = 0, ai[k] = i++, bi[k++] = j++;
        } else if (i < n && (j == m || L[(i + 1) * (m + 1) + j] >= L[i * (m + 1) + j + 1])) {
            op[k] = 1, ai[k] = i++, bi[k++] = j;    /* deletions before insertions */
        } else {
            op[k] = 2, ai[k] = i, bi[k++] = j++;
        }
    }
    buf_printf(out, "--- %s\n+++ %s\n", an, bn);
    enum { CTX = 3 };
    size_t e = 0;
    while (e < k) {
        if (op[e] == 0) {
            e++;
            continue;
        }
        /* a hunk: from CTX before the first change to CTX after the last
        ** change that is within 2*CTX of the previous one */
        size_t hs = e > CTX ? e - CTX : 0, he = e;
        for (size_t x = e; x < k; x++) {
            if (op[x] != 0)
                he = x;
            else if (x - he > 2 * CTX)
                break;
        }
        he = he + CTX + 1 < k ? he + CTX + 1 : k;
        size_t a0 = ai[hs], b0 = bi[hs], ac = 0, bc = 0;
        for (size_t x = hs; x < he; x++) {
            ac += op[x] != 2;
            bc += op[x] != 1;
        }
        buf_printf(out, "@@ -%zu,%zu +%zu,%zu @@\n", ac ? a0 + 1 : a0, ac, bc ? b0 + 1 : b0, bc);
        for (size_t x = hs; x < he; x++) {
            if (op[x] == 2) {
                buf_putc(out, '+');
                buf_put(out, B.s[bi[x]], B.n[bi[x]]);
            } else {
                buf_putc(out, op[x] == 1 ? '-' : ' ');
                buf_put(out, A.s[ai[x]], A.n[ai[x]]);
            }
            buf_putc(out, '\n');
        }
        e = he;
    }
done:
    sc_free(L);
    sc_free(op);
    sc_free(ai);
    sc_free(bi);
    lines_free(&A);
    lines_free(&B);
}

static void golden_path(const Pty *t, const char *label, char *out, size_t n)
{
    char name[200];
    rt_pty_safe_name(label, name, sizeof name);
    snprintf(out, n, "%s/%s.golden", t->o.goldens, name);
}

/* Reads the golden at path and its masks.  Returns 0 (*text, *len and
** *masks set; *masks NULL when it has none), ENOENT when there is none,
** or fails the run with E_IO (an errno, or EINVAL for a bad mask: the
** golden's path:line says which) and returns that. */
static int golden_load(Pty *t, const char *path, char **text, size_t *len, PtyMasks **masks)
{
    *text = NULL;
    *len = 0;
    *masks = NULL;
    struct stat st;
    int e = stat(path, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : EISDIR;
    if (e == ENOENT)
        return e;
    if (!e)
        e = file_read_all(path, 16u << 20, text, len);
    if (e) {
        pty_fail(t, PTY_E_IO, "%s: cannot read golden: %s", path, e == EISDIR ? "not a regular file" : strerror(e));
        return e;
    }
    char err[PATH_MAX + 300];
    if (!pty_masks_parse(*text, *len, path, masks, err, sizeof err)) {
        pty_fail(t, PTY_E_IO, "%s", err);
        sc_free(*text);
        *text = NULL;
        return EINVAL;
    }
    return 0;
}

bool pty_out_prepare(Pty *t)
{
    if (t->o.artifacts) {
        int e = file_mkdirs(t->o.artifacts);
        if (e) {
            pty_fail(t, PTY_E_IO, "%s: cannot create the artifacts directory: %s", t->o.artifacts, strerror(e));
            return false;
        }
    }
    if (t->o.cast)
        t->cast_on = true;
    if (!t->o.goldens)
        return true;
    /* A golden that exists must be readable and its masks valid, also
    ** under --update-goldens (it keeps them): fail before the spawn. */
    const BcProgram *p = t->p;
    for (uint32_t i = 0; i < p->n_insn; i++) {
        if (p->insn[i].op != OP_SCREENSHOT)
            continue;
        char path[PATH_MAX], *text;
        size_t len;
        PtyMasks *m;
        golden_path(t, p->str[p->insn[i].a[0]].s, path, sizeof path);
        int e = golden_load(t, path, &text, &len, &m);
        sc_free(text);
        pty_masks_free(m);
        if (e && e != ENOENT)
            return false;
    }
    return true;
}

/* The screen as pictures (stem: <scenario>/<profile>/pictures/<label>):
** .svg and .html, drawn from the golden text itself so the picture shows
** exactly what is compared (masks included). */
static void art_pictures(Pty *t, const char *stem, const char *label, const Buf *g)
{
    if (!t->o.artifacts)
        return;
    TermShot *s = term_shot_parse(g->data ? (const char *)g->data : "", g->len, NULL);
    if (!s)
        return;
    Buf b, title;
    buf_init(&b);
    buf_init(&title);
    buf_printf(&title, "%s / %s / %s", t->scenario, t->profile, label);
    buf_putc(&title, 0);
    char rel[PATH_MAX];
    term_svg_write(s, NULL, true, &b);
    snprintf(rel, sizeof rel, "%.4000s.svg", stem);
    art_write(t, rel, b.data, b.len);
    buf_reset(&b);
    term_html_screen(s, (const char *)title.data, &b);
    snprintf(rel, sizeof rel, "%.4000s.html", stem);
    art_write(t, rel, b.data, b.len);
    buf_fini(&b);
    buf_fini(&title);
    term_shot_free(s);
}

/* A golden mismatch as one page (<label>.diff.html): expected and actual
** with the differing cells outlined, and the text diff. */
static void art_diff_picture(Pty *t, const char *stem, const char *label, const char *want, size_t wl,
                             const Buf *g, const Buf *diff)
{
    if (!t->o.artifacts)
        return;
    TermShot *a = term_shot_parse(want, wl, NULL);
    TermShot *b = term_shot_parse(g->data ? (const char *)g->data : "", g->len, NULL);
    if (a && b) {
        Buf h, title;
        buf_init(&h);
        buf_init(&title);
        buf_printf(&title, "%s / %s / %s: differs from its golden", t->scenario, t->profile, label);
        buf_putc(&title, 0);
        term_html_diff(a, b, (const char *)title.data, diff->data ? (const char *)diff->data : "", diff->len, &h);
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "%.4000s.diff.html", stem);
        art_write(t, rel, h.data, h.len);
        buf_fini(&h);
        buf_fini(&title);
    }
    term_shot_free(a);
    term_shot_free(b);
}

/* A screenshot's section of the run's pictures/index.html: its label, its
** result, the screen; on a mismatch (want: the golden) both sides with the
** differing cells outlined. */
static void index_add(Pty *t, const char *label, const char *result, const char *want, size_t wl, const Buf *g)
{
    if (!t->o.artifacts)
        return;
    TermShot *b = term_shot_parse(g->data ? (const char *)g->data : "", g->len, NULL);
    TermShot *a = want ? term_shot_parse(want, wl, NULL) : NULL;
    char name[200];
    rt_pty_safe_name(label, name, sizeof name);
    Buf *o = &t->pictures;
    buf_puts(o, "<section>\n<h2>");
    term_xml_esc(o, label, strlen(label));
    buf_printf(o, " <span class=\"result %s\">%s</span></h2>\n", result, result);
    if (a && b) {
        int n = term_shot_diff_cells(a, b);
        buf_printf(o, "<p class=\"meta\">%d cell%s differ%s, outlined in red; details: %s.diff.html</p>\n", n,
                   n == 1 ? "" : "s", n == 1 ? "s" : "", name);
        buf_puts(o, "<div class=\"side\"><h2>expected (golden)</h2>\n");
        term_svg_write(a, b, false, o);
        buf_puts(o, "</div>\n<div class=\"side\"><h2>actual</h2>\n");
        term_svg_write(b, a, false, o);
        buf_puts(o, "</div>\n");
    } else if (b) {
        term_svg_write(b, NULL, false, o);
    }
    buf_puts(o, "</section>\n");
    term_shot_free(a);
    term_shot_free(b);
}

/* ---- normalisation: the workspace path and the host name ---- */

static bool host_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
}

/* The text rows of golden text g ("%3d|..." lines after "text"), with
** every occurrence of each needle replaced by its token; a host name only
** where it stands alone (not inside a longer word).  The other lines as
** they are.  Returns false when out of memory. */
static bool normalize_rows(const char *g, size_t len, const char *const *needle, const bool *word,
                           const char *const *token, size_t n, Buf *out)
{
    bool rows = false;
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(g + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - g) + 1 : len, k = i;
        if ((g[i] >= 'a' && g[i] <= 'z') || (g[i] >= 'A' && g[i] <= 'Z'))   /* a section's name */
            rows = e - i == 5 && memcmp(g + i, "text\n", 5) == 0;
        else if (rows) {   /* "%3d|" and the row: row 100 on has no leading space */
            const char *bar = memchr(g + i, '|', e - i);
            size_t start = bar ? (size_t)(bar - g) + 1 : e;
            buf_put(out, g + i, start - i);
            for (k = start; k < e;) {
                size_t j = 0;
                for (; j < n; j++) {
                    size_t nl_ = strlen(needle[j]);
                    if (nl_ && k + nl_ <= e && memcmp(g + k, needle[j], nl_) == 0 &&
                        (!word[j] || ((k == start || !host_char((unsigned char)g[k - 1])) &&
                                      (k + nl_ == e || !host_char((unsigned char)g[k + nl_]))))) {
                        buf_puts(out, token[j]);
                        k += nl_;
                        break;
                    }
                }
                if (j == n)
                    buf_putc(out, g[k++]);
            }
            i = e;
            continue;
        }
        buf_put(out, g + k, e - k);
        i = e;
    }
    return !out->oom;
}

/* Golden text g normalised in place (docs/golden-screens.md,
** "Normalisation"): the workspace (as given and as resolved, longest
** first), then the host name and its first label.  localhost is left
** alone: it names no machine. */
static bool normalize_golden(const Pty *t, Buf *g)
{
    if (t->o.raw_goldens || !g->len)
        return true;
    const char *needle[5], *token[5];
    bool word[5];
    size_t n = 0;
    char real[PATH_MAX], host[256] = "", shorter[256] = "";
    const char *ws = t->ws[0] ? t->ws : t->o.workspace;
    if (ws && ws[0] && strcmp(ws, "/") != 0) {
        bool resolved = realpath(ws, real) && strcmp(real, ws) != 0;
        const char *a = ws, *b = resolved ? real : NULL;
        if (b && strlen(b) > strlen(a)) {
            const char *x = a;
            a = b;
            b = x;
        }
        needle[n] = a, word[n] = false, token[n++] = PTY_WS_TOKEN;
        if (b)
            needle[n] = b, word[n] = false, token[n++] = PTY_WS_TOKEN;
    }
    if (gethostname(host, sizeof host - 1) == 0 && host[0] && strcmp(host, "localhost") != 0 &&
        strncmp(host, "localhost.", 10) != 0) {
        needle[n] = host, word[n] = true, token[n++] = PTY_HOST_TOKEN;
        const char *dot = strchr(host, '.');
        if (dot && dot > host) {
            snprintf(shorter, sizeof shorter, "%.*s", (int)(dot - host), host);
            needle[n] = shorter, word[n] = true, token[n++] = PTY_HOST_TOKEN;
        }
    }
    if (!n)
        return true;
    Buf out;
    buf_init(&out);
    if (!normalize_rows((const char *)g->data, g->len, needle, word, token, n, &out)) {
        buf_fini(&out);
        return false;
    }
    buf_fini(g);
    *g = out;
    return true;
}

void pty_goldens_settle(Pty *t)
{
    for (size_t i = 0; i + 1 < t->new_goldens.n; i += 2) {
        char *path = t->new_goldens.v[i], *label = strchr(path, '\t'), *rel = label ? strchr(label + 1, '\t') : NULL;
        const char *text = t->new_goldens.v[i + 1];
        if (!rel)
            continue;
        *label++ = 0;
        *rel++ = 0;
        if (!t->err) {
            int we = write_file(path, text, strlen(text));
            if (we)
                pty_fail(t, PTY_E_IO, "%s: cannot write golden: %s", path, strerror(we));
            else if (t->o.diag)
                fprintf(t->o.diag, "scvm: pty: new golden written: %s\n", path);
            continue;
        }
        /* a failed run: its screens are no reference; the golden it would
        ** have made goes where a person can look at it, not among the goldens */
        if (t->o.artifacts) {
            if (t->o.diag)
                fprintf(t->o.diag, "scvm: pty: the run failed: new golden for screenshot '%s' not written to %s; "
                                   "it is in %s%s%s\n", label, path, t->o.artifacts,
                        t->o.artifacts[0] && t->o.artifacts[strlen(t->o.artifacts) - 1] == '/' ? "" : "/", rel);
            continue;
        }
        char aside[PATH_MAX + 8];
        snprintf(aside, sizeof aside, "%s.new", path);
        int we = write_file(aside, text, strlen(text));
        if (t->o.diag) {
            if (we)
                fprintf(t->o.diag, "scvm: pty: the run failed: new golden for screenshot '%s' not written to %s "
                                   "(nor to %s: %s)\n", label, path, aside, strerror(we));
            else
                fprintf(t->o.diag, "scvm: pty: the run failed: new golden for screenshot '%s' not written to %s; "
                                   "it is in %s\n", label, path, aside);
        }
    }
    pty_goldens_free(t);
}

void pty_goldens_free(Pty *t) { strv_free(&t->new_goldens); }

void pty_screenshot(Pty *t, const char *label)
{
    bool indexed = false;
    const char *result = "recorded";
    char path[PATH_MAX] = "";
    char *want = NULL;
    size_t wl = 0;
    PtyMasks *masks = NULL;
    int ge = ENOENT;
    /* The golden first: its masks make the screen's text (they are kept
    ** by every golden written from it). */
    if (t->o.goldens) {
        golden_path(t, label, path, sizeof path);
        ge = golden_load(t, path, &want, &wl, &masks);
        if (ge && ge != ENOENT)
            result = "error";
    }
    Buf g, raw;
    buf_init(&g);
    buf_init(&raw);
    if (!pty_screen_golden(t->scr, masks, &g) || !normalize_golden(t, &g) ||
        (masks && !pty_screen_golden(t->scr, NULL, &raw))) {
        pty_fail(t, PTY_E_INTERNAL, "out of memory");
        result = "error";
    }
    char name[200], rel[PATH_MAX];
    rt_pty_safe_name(label, name, sizeof name);
    char sc[200];
    rt_pty_safe_name(t->scenario, sc, sizeof sc);
    /* The artifact is the golden this screen makes, masks and all, so an
    ** artifacts folder can still be copied over the goldens; the screen as
    ** it was, unmasked, goes beside it (.raw) when masks hid something. */
    snprintf(rel, sizeof rel, "%s/%s/screenshots/%s.golden", sc, t->profile, name);
    art_write(t, rel, g.data, g.len);
    /* pictures in a folder of their own: screenshots/ stays a copy of the
    ** goldens folder */
    char stem[1024];
    snprintf(stem, sizeof stem, "%s/%s/pictures/%s", sc, t->profile, name);
    art_pictures(t, stem, label, &g);
    if (masks) {
        snprintf(rel, sizeof rel, "%s/%s/screenshots/%s.raw", sc, t->profile, name);
        art_write(t, rel, raw.data, raw.len);
    }
    if (!t->o.goldens) {
        t->gold_recorded++;
    } else if (strcmp(result, "error") == 0) {
        /* golden_load or the rendering failed the run */
    } else if (t->o.update_goldens) {
        int e = write_file(path, g.data ? (const char *)g.data : "", g.len);
        if (e)
            pty_fail(t, PTY_E_IO, "%s: cannot write golden: %s", path, strerror(e));
        result = "updated";
        t->gold_updated++;
    } else if (ge == ENOENT && t->o.ci) {
        /* in CI a golden is never made up: the run fails */
        result = "missing";
        t->gold_missing++;
        pty_fail(t, PTY_E_ASSERTION_FAILED,
                 "screenshot '%s' has no golden (%s); run without --ci (and CI unset) to write it", label, path);
    } else if (ge == ENOENT) {
        /* a local run writes it, and says so: review and commit it; only
        ** once the run has passed (pty_goldens_settle), so a failed run
        ** never leaves a new golden in the goldens folder */
        char head[3 * PATH_MAX];
        snprintf(rel, sizeof rel, "%s/%s/screenshots/%s.golden", sc, t->profile, name);
        int hn = snprintf(head, sizeof head, "%s\t%s\t%s", path, label, rel);
        if (!strv_push(&t->new_goldens, head, (size_t)hn) ||
            !strv_push(&t->new_goldens, g.data ? (const char *)g.data : "", g.len)) {
            pty_fail(t, PTY_E_INTERNAL, "out of memory");
            result = "error";
        } else {
            result = "written";
            t->gold_written++;
        }
    } else {
        /* The golden's own rows masked too: one that still shows what a
        ** mask added later hides compares as if written masked. */
        Buf gm;
        buf_init(&gm);
        /* the golden's side normalised too: one written with this run's
        ** workspace or host in it (--no-normalize-goldens then, or an
        ** older scvm) compares as if written normalised */
        if (masks ? !pty_masks_golden(masks, want, wl, &gm) : (buf_put(&gm, want ? want : "", wl), gm.oom)) {
            pty_fail(t, PTY_E_INTERNAL, "out of memory");
            result = "error";
        } else if (!normalize_golden(t, &gm)) {
            pty_fail(t, PTY_E_INTERNAL, "out of memory");
            result = "error";
        } else {
            const char *w = (const char *)gm.data;
            size_t n = gm.len;
            if (n == g.len && (n == 0 || memcmp(w, g.data, n) == 0)) {
                result = "match";
                t->gold_matched++;
            } else {
                result = "mismatch";
                t->gold_mismatched++;
                Buf d;
                buf_init(&d);
                unified_diff(path, w ? w : "", n, "actual screen", g.data ? (const char *)g.data : "", g.len, &d);
                if (t->o.diag)
                    fprintf(t->o.diag, "scvm: pty: screenshot '%s' differs from its golden:\n%.*s", label,
                            (int)d.len, d.data ? (const char *)d.data : "");
                char drel[PATH_MAX];
                snprintf(drel, sizeof drel, "%s/%s/screenshots/%s.diff", sc, t->profile, name);
                art_write(t, drel, d.data, d.len);
                art_diff_picture(t, stem, label, w ? w : "", n, &g, &d);
                index_add(t, label, "mismatch", w ? w : "", n, &g);
                indexed = true;
                buf_fini(&d);
                pty_fail(t, PTY_E_ASSERTION_FAILED, "screenshot '%s' differs from %s", label, path);
            }
        }
        buf_fini(&gm);
    }
    if (!indexed)
        index_add(t, label, result, NULL, 0, &g);
    ev_op(t);
    ev_str(t, "result", result, strlen(result));
    if (path[0])
        ev_str(t, "golden", path, strlen(path));
    ev_end(t);
    sc_free(want);
    pty_masks_free(masks);
    buf_fini(&g);
    buf_fini(&raw);
    pty_snapshot(t, "screenshot");
}

static void random_id(char *out, size_t n);

/* The run's and the session's ids (one program, one session), made once. */
static void ensure_ids(Pty *t)
{
    if (!t->run_id[0]) {
        random_id(t->run_id, sizeof t->run_id);
        random_id(t->session_id, sizeof t->session_id);
    }
}

/* The data model's Events of the terminal's own happenings since the last
** record ({type, message?, details?}): scvm's op events, with their times
** and pids, are the event stream's (stdout, -o), not an observation's. */
static void observe_events(Pty *t, JsonW *w)
{
    static const char *const kinds[] = { "query", "title", "altscreen", "bell", "invalid_utf8", "unhandled",
                                         "pty_eof", "exit", "error", NULL };
    size_t i = t->obs_ev_off;
    while (i < t->events.len) {
        const char *line = (const char *)t->events.data + i;
        const char *nl = memchr(line, '\n', t->events.len - i);
        size_t n = nl ? (size_t)(nl - line) : t->events.len - i;
        i += n + 1;
        cJSON *ev = cJSON_ParseWithLength(line, n);
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(ev, "kind");
        bool keep = false;
        for (int k = 0; cJSON_IsString(kind) && kinds[k] && !keep; k++)
            keep = strcmp(kind->valuestring, kinds[k]) == 0;
        if (keep) {
            jw_obj(w);
            jw_key(w, "type");
            jw_str_lossy(w, kind->valuestring, strlen(kind->valuestring));
            const cJSON *detail = cJSON_GetObjectItemCaseSensitive(ev, "detail");
            if (!cJSON_IsString(detail))
                detail = cJSON_GetObjectItemCaseSensitive(ev, "message");
            if (cJSON_IsString(detail)) {
                jw_key(w, "message");
                jw_str_lossy(w, detail->valuestring, strlen(detail->valuestring));
            }
            cJSON_DeleteItemFromObjectCaseSensitive(ev, "at_ms");
            cJSON_DeleteItemFromObjectCaseSensitive(ev, "kind");
            cJSON_DeleteItemFromObjectCaseSensitive(ev, "detail");
            cJSON_DeleteItemFromObjectCaseSensitive(ev, "message");
            if (cJSON_GetArraySize(ev) > 0) {
                char *d = cJSON_PrintUnformatted(ev);
                if (d) {
                    jw_kraw(w, "details", d, strlen(d));
                    free(d);
                }
            }
            jw_end(w);
        }
        cJSON_Delete(ev);
    }
    t->obs_ev_off = t->events.len;
}

/* Appends the Observation of now (screen: a ScreenSnapshot, or NULL for
** the screen as it is) to events.jsonl's records. */
static void pty_observe(Pty *t, const Buf *screen)
{
    ensure_ids(t);
    Buf *b = &t->observations;
    t->last_obs = b->len;
    JsonW w;
    jw_open_obj(&w, b);
    jw_ku64(&w, "protocol_version", 2);
    jw_kcstr(&w, "run_id", t->run_id);
    jw_kcstr(&w, "session_id", t->session_id);
    jw_ku64(&w, "timestamp_ms", pty_elapsed(t));
    jw_kvalue(&w, "screen");
    if (screen)
        buf_put(b, screen->data, screen->len);
    else
        pty_screen_snapshot_json(t->scr, "final", 0, b);
    size_t tr = t->transcript.len;
    jw_key(&w, "transcript_delta");
    jw_str_lossy(&w, t->transcript.data ? (const char *)t->transcript.data + t->obs_tr_off : "", tr - t->obs_tr_off);
    t->obs_tr_off = tr;
    jw_karr(&w, "events");
    observe_events(t, &w);
    jw_end(&w);
    jw_end(&w);
    jw_nl(&w);
}

static unsigned snap_flags(const Pty *t)
{
    return (t->o.cells ? (unsigned)PTY_SNAP_CELLS : 0u) | (t->o.ptybox_colors ? (unsigned)PTY_SNAP_PTYBOX_COLORS : 0u);
}

void pty_snapshot(Pty *t, const char *why)
{
    (void)why;
    if (!t->o.artifacts || !t->scr)
        return;
    char id[32], rel[64];
    t->n_snap++;
    snprintf(id, sizeof id, "snapshot-%06d", t->n_snap);
    snprintf(rel, sizeof rel, "snapshots/%06d.json", t->n_snap);
    Buf b;
    buf_init(&b);
    pty_screen_snapshot_json(t->scr, id, snap_flags(t), &b);
    if (b.len > t->max_snapshot_bytes) {
        /* Over budget: keep the lines, drop the cells. */
        buf_reset(&b);
        pty_screen_snapshot_json(t->scr, id, 0, &b);
    }
    buf_putc(&b, '\n');
    art_write(t, rel, b.data, b.len);
    b.len--;        /* without the newline: the record's screen */
    pty_observe(t, &b);
    buf_fini(&b);
}

/* ---- asciicast v2 ---- */

void pty_cast_begin(Pty *t)
{
    if (!t->cast_on)
        return;
    JsonW w;
    jw_open_obj(&w, &t->cast);
    jw_ku64(&w, "version", 2);
    jw_ki64(&w, "width", t->cols);
    jw_ki64(&w, "height", t->rows);
    jw_kobj(&w, "env");
    jw_kcstr(&w, "TERM", "xterm-256color");
    jw_end(&w);
    jw_key(&w, "title");
    jw_str_lossy(&w, t->scenario, strlen(t->scenario));
    jw_end(&w);
    jw_nl(&w);
}

void pty_cast_event(Pty *t, char code, const char *s, size_t n)
{
    if (!t->cast_on || !t->sess)
        return;
    Buf tmp;
    buf_init(&tmp);
    if (code == 'o') {
        /* Hold back an incomplete UTF-8 sequence at the end for the next
        ** chunk, so a character split across reads stays whole. */
        buf_put(&tmp, t->cast_carry, t->cast_carry_n);
        buf_put(&tmp, s, n);
        t->cast_carry_n = 0;
        size_t end = tmp.len, k = 0;
        while (k < 3 && k < end && (tmp.data[end - 1 - k] & 0xC0) == 0x80)
            k++;
        if (k < end) {
            unsigned char lead = tmp.data[end - 1 - k];
            size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
            if (need > k + 1 && need <= 4) {
                t->cast_carry_n = k + 1;
                memcpy(t->cast_carry, tmp.data + end - k - 1, k + 1);
                tmp.len = end - k - 1;
            }
        }
        s = (const char *)tmp.data;
        n = tmp.len;
    }
    /* An event line as asciinema writes it, with a blank after each comma
    ** (the compact JsonW has none): [seconds, "o", "text"] */
    uint64_t ms = pty_elapsed(t);
    buf_printf(&t->cast, "[%llu.%03llu, \"%c\", ", (unsigned long long)(ms / 1000), (unsigned long long)(ms % 1000), code);
    buf_json_str_lossy(&t->cast, s ? s : "", n);
    buf_puts(&t->cast, "]\n");
    buf_fini(&tmp);
}

void pty_cast_end(Pty *t)
{
    if (!t->cast_on || !t->o.cast)
        return;
    int e = write_file(t->o.cast, t->cast.data ? (const char *)t->cast.data : "", t->cast.len);
    if (e)
        pty_fail(t, PTY_E_IO, "%s: cannot write the recording: %s", t->o.cast, strerror(e));
    t->cast_on = false;
}

/* ---- artifacts ---- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void random_id(char *out, size_t n)
{
    unsigned char r[16] = { 0 };
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, r, sizeof r) != (ssize_t)sizeof r)
            memset(r, 0, sizeof r);
        close(fd);
    }
    r[6] = (unsigned char)((r[6] & 0x0F) | 0x40);
    r[8] = (unsigned char)((r[8] & 0x3F) | 0x80);
    snprintf(out, n, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2], r[3],
             r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]);
}

/* normalization.json: the NormalizationRecord a replay of this run uses
** by default: the policy's replay section, else the default filters
** (docs/driver.md, "Replay"). */
static void normalization_record(Pty *t, Buf *b)
{
    static const char *const all[] = { "snapshot_id", "run_id", "run_timestamps", "step_timestamps",
                                       "observation_timestamp", "session_id", "events" };
    cJSON *pol = t->policy_json ? cJSON_Parse(t->policy_json) : NULL;
    const cJSON *rp = cJSON_GetObjectItemCaseSensitive(pol, "replay");
    const cJSON *strict = cJSON_GetObjectItemCaseSensitive(rp, "strict");
    const cJSON *filters = cJSON_GetObjectItemCaseSensitive(rp, "normalization_filters");
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(rp, "normalization_rules");
    char *f = cJSON_IsArray(filters) ? cJSON_PrintUnformatted(filters) : NULL;
    char *r = cJSON_IsArray(rules) ? cJSON_PrintUnformatted(rules) : NULL;
    bool is_strict = cJSON_IsTrue(strict);
    JsonW w;
    jw_open_obj(&w, b);
    jw_ku64(&w, "normalization_version", 1);
    jw_key(&w, "filters");
    if (is_strict) {
        jw_raw(&w, "[]", 2);
    } else if (f) {
        jw_raw(&w, f, strlen(f));
    } else {
        jw_arr(&w);
        for (size_t i = 0; i < sizeof all / sizeof *all; i++)
            jw_cstr(&w, all[i]);
        jw_end(&w);
    }
    jw_kbool(&w, "strict", is_strict);
    jw_kcstr(&w, "source", is_strict ? "none" : (f || r) ? "policy" : "default");
    jw_key(&w, "rules");
    if (!is_strict && r)
        jw_raw(&w, r, strlen(r));
    else
        jw_raw(&w, "[]", 2);
    jw_end(&w);
    jw_nl(&w);
    free(f);
    free(r);
    cJSON_Delete(pol);
}

/* The effective policy as JSON: policy.json and run.json's "policy". */
static void put_policy(const Pty *t, const BcProgram *p, const BcVal *cfg, Buf *b)
{
    BcVal v;
    if (t->policy_json)
        buf_puts(b, t->policy_json);
    else if (vget(t, cfg, "policy", &v))
        bc_val_json_at(p, &v, b);
    else
        buf_puts(b, "null");
}

/* The resolved scenario (scenario.json and run.json's "scenario"): the
** compiled one, with run.cwd the folder the program ran in when it gave
** none and run.policy the effective policy, so the data model's RunConfig
** is whole (issue 33). */
static void put_scenario(const Pty *t, const BcProgram *p, const BcVal *cfg, Buf *b)
{
    BcVal v;
    Buf raw;
    buf_init(&raw);
    if (vget(t, cfg, "scenario", &v))
        bc_val_json_at(p, &v, &raw);
    else
        bc_val_json(p, p->meta.config, &raw);
    buf_putc(&raw, 0);
    cJSON *sc = raw.oom ? NULL : cJSON_Parse((const char *)raw.data);
    cJSON *run = cJSON_GetObjectItemCaseSensitive(sc, "run");
    char *out = NULL;
    if (cJSON_IsObject(run)) {
        const cJSON *cwd = cJSON_GetObjectItemCaseSensitive(run, "cwd");
        char here[PATH_MAX];
        const char *dir = t->cwd[0] ? t->cwd : getcwd(here, sizeof here);
        if (!cJSON_IsString(cwd) && dir) {
            cJSON_DeleteItemFromObjectCaseSensitive(run, "cwd");
            cJSON_AddStringToObject(run, "cwd", dir);
        }
        /* the policy, from beside run to inside it, as the effective one */
        cJSON *pol = t->policy_json ? cJSON_Parse(t->policy_json) : cJSON_DetachItemFromObjectCaseSensitive(sc, "policy");
        cJSON_DeleteItemFromObjectCaseSensitive(sc, "policy");
        cJSON_DeleteItemFromObjectCaseSensitive(run, "policy");
        if (pol)
            cJSON_AddItemToObject(run, "policy", pol);
        out = cJSON_PrintUnformatted(sc);
    }
    if (out)
        buf_puts(b, out);
    else if (raw.len)
        buf_put(b, raw.data, raw.len - 1);
    free(out);
    cJSON_Delete(sc);
    buf_fini(&raw);
}

void pty_out_finish(Pty *t)
{
    if (!t->o.artifacts)
        return;
    const BcProgram *p = t->p;
    BcVal cfg = bc_val(p, p->meta.config), v;
    Buf b;
    buf_init(&b);
    art_write(t, "transcript.log", t->transcript.data, t->transcript.len);
    /* The effective policy and the resolved scenario, as compiled. */
    buf_reset(&b);
    put_policy(t, p, &cfg, &b);
    buf_putc(&b, '\n');
    art_write(t, "policy.json", b.data, b.len);
    buf_reset(&b);
    put_scenario(t, p, &cfg, &b);
    buf_putc(&b, '\n');
    art_write(t, "scenario.json", b.data, b.len);
    if (t->o.scb)
        art_write(t, "scenario.scb", t->o.scb, t->o.scb_len);

    /* run.json: the RunResult. */
    ensure_ids(t);
    const char *run_id = t->run_id;
    /* The last record, always (so a run has as many records as snapshots
    ** and one, however its last events were timed): the end of the run,
    ** with what came after the last snapshot (the exit, an error). */
    if (t->scr)
        pty_observe(t, NULL);
    buf_reset(&b);
    const char *status = !t->err                         ? "passed"
                         : t->err == PTY_E_ASSERTION_FAILED ? "failed"
                         : t->err == PTY_E_INTERRUPTED      ? "interrupted"
                                                            : "errored";
    /* The run's screens on one page, the first thing to open: each
    ** screenshot with its result, then the screen as the run ended (where
    ** a failed wait or check left it). */
    if (t->scr) {
        Buf g;
        buf_init(&g);
        if (pty_screen_golden(t->scr, NULL, &g)) {
            TermShot *fs = term_shot_parse((const char *)g.data, g.len, NULL);
            if (fs) {
                buf_puts(&t->pictures, "<section id=\"final\">\n<h2>the screen at the end of the run</h2>\n");
                term_svg_write(fs, NULL, false, &t->pictures);
                buf_puts(&t->pictures, "</section>\n");
                term_shot_free(fs);
            }
        }
        buf_fini(&g);
    }
    if (t->pictures.len) {
        char sc[200], rel[PATH_MAX];
        rt_pty_safe_name(t->scenario, sc, sizeof sc);
        buf_reset(&b);
        buf_printf(&b, "%s / %s", t->scenario, t->profile);
        buf_putc(&b, 0);
        Buf h;
        buf_init(&h);
        term_html_begin((const char *)b.data, &h);
        buf_puts(&h, "<h1>");
        term_xml_esc(&h, (const char *)b.data, strlen((const char *)b.data));
        buf_printf(&h, " <span class=\"result %s\">%s</span></h1>\n", status, status);
        buf_printf(&h, "<p class=\"meta\">screenshots: %u matched, %u mismatched, %u written, %u missing, %u updated, "
                       "%u recorded</p>\n",
                   t->gold_matched, t->gold_mismatched, t->gold_written, t->gold_missing, t->gold_updated,
                   t->gold_recorded);
        buf_put(&h, t->pictures.data, t->pictures.len);
        buf_puts(&h, "</body>\n</html>\n");
        snprintf(rel, sizeof rel, "%s/%s/pictures/index.html", sc, t->profile);
        art_write(t, rel, h.data, h.len);
        buf_fini(&h);
        buf_reset(&b);
    }
    JsonW w;
    jw_open_obj(&w, &b);
    jw_ku64(&w, "run_result_version", 1);
    jw_ku64(&w, "protocol_version", 2);
    jw_kcstr(&w, "run_id", run_id);
    jw_kcstr(&w, "status", status);
    jw_ku64(&w, "started_at_ms", 0);
    jw_ku64(&w, "ended_at_ms", pty_elapsed(t));
    jw_key(&w, "command");
    jw_str_lossy(&w, t->exe, strlen(t->exe));
    jw_karr(&w, "args");
    for (size_t i = 1; i < t->argv.n; i++)
        jw_str_lossy(&w, t->argv.v[i], strlen(t->argv.v[i]));
    jw_end(&w);
    jw_key(&w, "cwd");
    {
        /* the folder the program ran in: the scenario's or --cwd, else ours */
        char here[PATH_MAX];
        const char *dir = t->cwd[0] ? t->cwd : getcwd(here, sizeof here);
        jw_str_lossy(&w, dir ? dir : "", dir ? strlen(dir) : 0);
    }
    jw_kvalue(&w, "policy");
    put_policy(t, p, &cfg, &b);
    jw_kvalue(&w, "scenario");
    if (vget(t, &cfg, "scenario", &v))
        put_scenario(t, p, &cfg, &b);
    else
        buf_puts(&b, "null");
    /* the steps' records, comma-separated already */
    jw_karr(&w, "steps");
    jw_raw(&w, (const char *)t->steps.data, t->steps.len);
    jw_end(&w);
    jw_key(&w, "final_observation");
    if (t->scr && t->observations.len)
        jw_raw(&w, (const char *)t->observations.data + t->last_obs, t->observations.len - t->last_obs - 1);
    else
        jw_null(&w);
    /* screenshots by what became of them: compared (matched or
    ** mismatched), written (new, local run), missing (CI), updated
    ** (--update-goldens), recorded (no goldens folder) */
    jw_kobj(&w, "goldens");
    jw_key(&w, "dir");
    if (t->o.goldens)
        jw_str_lossy(&w, t->o.goldens, strlen(t->o.goldens));
    else
        jw_null(&w);
    jw_ku64(&w, "compared", t->gold_matched + t->gold_mismatched);
    jw_ku64(&w, "matched", t->gold_matched);
    jw_ku64(&w, "mismatched", t->gold_mismatched);
    jw_ku64(&w, "written", t->gold_written);
    jw_ku64(&w, "missing", t->gold_missing);
    jw_ku64(&w, "updated", t->gold_updated);
    jw_ku64(&w, "recorded", t->gold_recorded);
    jw_end(&w);
    if (t->agent_report.len)
        jw_kraw(&w, "agent", (const char *)t->agent_report.data, t->agent_report.len);
    jw_key(&w, "exit_status");
    if (t->sess && pty_session_exited(t->sess)) {
        int code = pty_session_exit_code(t->sess);
        jw_obj(&w);
        jw_kbool(&w, "success", code == 0);
        jw_key(&w, "exit_code");
        if (code >= 0)
            jw_i64(&w, code);
        else
            jw_null(&w);
        jw_key(&w, "signal");
        if (code >= 0)
            jw_null(&w);
        else
            jw_i64(&w, pty_session_exit_signal(t->sess));
        jw_kbool(&w, "terminated_by_harness", pty_session_killed_by_us(t->sess));
        jw_end(&w);
    } else {
        jw_null(&w);
    }
    if (t->err) {
        jw_kobj(&w, "error");
        jw_kcstr(&w, "code", pty_err_code(t->err));
        jw_key(&w, "message");
        jw_str_lossy(&w, t->msg, strlen(t->msg));
        jw_kobj(&w, "context");
        jw_ki64(&w, "exit_status", t->err == PTY_E_INTERRUPTED ? 128 + t->cancel_sig : (int)t->err);
        jw_key(&w, "scenario");
        jw_str_lossy(&w, t->scenario, strlen(t->scenario));
        if (t->in_step || t->steps.len) {
            jw_key(&w, "step_id");
            jw_str_lossy(&w, p->str[t->step_id].s, p->str[t->step_id].len);
        }
        jw_end(&w);
        jw_end(&w);
    }
    jw_end(&w);
    jw_nl(&w);
    /* run.json names the other files, so it is written last: a run killed
    ** before the end leaves no run.json that promises what is not there.
    ** Its checksum goes into checksums.json, written just before it. */
    Buf run;
    buf_init(&run);
    buf_put(&run, b.data, b.len);
    /* events.jsonl: the Observation records (the data model's); scvm's
    ** own event lines are the run's output stream. */
    art_write(t, "events.jsonl", t->observations.data, t->observations.len);
    buf_reset(&b);
    normalization_record(t, &b);
    art_write(t, "normalization.json", b.data, b.len);
    if (t->o.artifacts) {
        char line[64];
        int n = snprintf(line, sizeof line, "run.json\t%016llx", (unsigned long long)fnv1a64(run.data, run.len));
        strv_push(&t->written, line, (size_t)n);
    }

    /* checksums.json: every artifact written, sorted by path, as the data
    ** model's map of path to a 64-bit checksum (FNV-1a, hex). */
    qsort(t->written.v, t->written.n, sizeof *t->written.v, cmp_str);
    buf_reset(&b);
    jw_open_obj(&w, &b);
    for (size_t i = 0; i < t->written.n; i++) {
        char *tab = strchr(t->written.v[i], '\t');
        jw_key_lossy(&w, t->written.v[i], (size_t)(tab - t->written.v[i]));
        jw_cstr(&w, tab + 1);
    }
    jw_end(&w);
    jw_nl(&w);
    if (t->o.artifacts) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/checksums.json", t->o.artifacts);
        int e = write_file(path, b.data, b.len);
        if (e)
            pty_fail(t, PTY_E_IO, "%s: cannot write: %s", path, strerror(e));
        snprintf(path, sizeof path, "%s/run.json", t->o.artifacts);
        e = write_file(path, run.data, run.len);
        if (e) {
            if (t->o.diag)
                fprintf(t->o.diag, "scvm: pty: %s: cannot write: %s\n", path, strerror(e));
            pty_fail(t, PTY_E_IO, "%s: cannot write: %s", path, strerror(e));
        }
    }
    buf_fini(&run);
    strv_free(&t->written);
    buf_fini(&b);
}
