/* SPDX-License-Identifier: MIT */
/* rt_pty_mask.c - a golden's `masks` section: read and checked, matched
** against a row's text, and applied to the golden's own rows.  The screen
** side (cells, attributes, the cursor) is rt_pty_screen.c's
** pty_screen_golden, which asks pty_masks_mark which bytes to hide. */
#include "rt_pty_mask.h"

#include <stdio.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "formats/term/term_regex.h"

enum { MASKS_MAX = 100, TOKEN_LEN = sizeof PTY_MASK_TOKEN - 1 };

struct PtyMasks {
    int n;
    TermRegex *re[MASKS_MAX];
    char *src[MASKS_MAX];       /* the pattern as written, for the section */
};

void pty_masks_free(PtyMasks *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->n; i++) {
        term_regex_free(m->re[i]);
        sc_free(m->src[i]);
    }
    sc_free(m);
}

/* One line of text: [*at, end of line), *at moved past its '\n'. */
static bool next_line(const char *s, size_t len, size_t *at, const char **line, size_t *n)
{
    if (*at >= len)
        return false;
    const char *nl = memchr(s + *at, '\n', len - *at);
    size_t e = nl ? (size_t)(nl - s) : len;
    *line = s + *at;
    *n = e - *at;
    *at = nl ? e + 1 : len;
    return true;
}

static bool is(const char *line, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(line, word, n) == 0;
}

bool pty_masks_parse(const char *golden, size_t len, const char *path, PtyMasks **out, char *err, size_t errlen)
{
    *out = NULL;
    PtyMasks *m = NULL;
    size_t at = 0, n;
    const char *line;
    int lineno = 0;
    bool in_masks = false;
    /* The section is among the header lines: everything before `text`,
    ** so a row that shows the word "masks" is never taken for it. */
    while (next_line(golden, len, &at, &line, &n) && !is(line, n, "text")) {
        lineno++;
        if (is(line, n, "masks")) {
            in_masks = true;
            continue;
        }
        if (!in_masks)
            continue;
        if (n < 2 || line[0] != ' ' || line[1] != ' ') {
            in_masks = false;
            continue;
        }
        const char *pat = line + 2;
        size_t pl = n - 2;
        char why[160] = "";
        TermRegex *re = NULL;
        if (pl == 0)
            snprintf(why, sizeof why, "an empty pattern");
        else if (m && m->n == MASKS_MAX)
            snprintf(why, sizeof why, "more than %d masks", MASKS_MAX);
        else if ((re = term_regex_new(pat, pl, why, sizeof why)) != NULL) {
            size_t s, e;
            if (term_regex_find(re, "", 0, 0, &s, &e) == 1)
                snprintf(why, sizeof why, "it can match the empty text (use + rather than *)");
        }
        if (why[0]) {
            term_regex_free(re);
            pty_masks_free(m);
            snprintf(err, errlen, "%s:%d: invalid mask '%.*s': %s", path, lineno, (int)(pl > 200 ? 200 : pl), pat, why);
            return false;
        }
        if (!m && !(m = sc_calloc(1, sizeof *m))) {
            term_regex_free(re);
            snprintf(err, errlen, "out of memory");
            return false;
        }
        char *src = sc_malloc(pl + 1);
        if (!src) {
            term_regex_free(re);
            pty_masks_free(m);
            snprintf(err, errlen, "out of memory");
            return false;
        }
        memcpy(src, pat, pl);
        src[pl] = 0;
        m->re[m->n] = re;
        m->src[m->n++] = src;
    }
    *out = m;
    return true;
}

void pty_masks_section(const PtyMasks *m, Buf *out)
{
    if (!m)
        return;
    buf_puts(out, "masks\n");
    for (int i = 0; i < m->n; i++)
        buf_printf(out, "  %s\n", m->src[i]);
}

bool pty_masks_mark(const PtyMasks *m, const char *line, size_t len, bool *hit)
{
    if (len)
        memset(hit, 0, len);
    if (!m)
        return true;
    for (int i = 0; i < m->n; i++) {
        size_t from = 0, s, e;
        int r;
        while ((r = term_regex_find(m->re[i], line, len, from, &s, &e)) == 1) {
            if (e <= s) {       /* never (parse refuses such masks); still, always move on */
                from = s + 1;
                while (from < len && ((unsigned char)line[from] & 0xC0) == 0x80)
                    from++;
                continue;
            }
            memset(hit + s, 1, e - s);
            from = e;
        }
        if (r < 0)
            return false;
    }
    /* a token is never cut: a match that touches one hides all of it */
    for (size_t i = 0; i + TOKEN_LEN <= len; i++) {
        if (memcmp(line + i, PTY_MASK_TOKEN, TOKEN_LEN) != 0)
            continue;
        bool any = false;
        for (size_t k = 0; k < TOKEN_LEN; k++)
            any |= hit[i + k];
        if (any)
            memset(hit + i, 1, TOKEN_LEN);
        i += TOKEN_LEN - 1;
    }
    return true;
}

bool pty_masks_golden(const PtyMasks *m, const char *golden, size_t len, Buf *out)
{
    size_t at = 0, n;
    const char *line;
    bool in_text = false, ok = true;
    bool *hit = NULL;
    size_t cap = 0;
    while (next_line(golden, len, &at, &line, &n)) {
        bool nl = line + n < golden + len;
        const char *bar = in_text ? memchr(line, '|', n) : NULL;
        if (is(line, n, "text") || is(line, n, "attrs"))
            in_text = is(line, n, "text");
        if (!m || !bar || (size_t)(bar - line) + 1 == n) {
            buf_put(out, line, n + nl);
            continue;
        }
        size_t pre = (size_t)(bar - line) + 1, tl = n - pre;
        if (tl > cap) {
            bool *h = sc_realloc(hit, tl);
            if (!h) {
                ok = false;
                break;
            }
            hit = h;
            cap = tl;
        }
        if (!pty_masks_mark(m, line + pre, tl, hit)) {
            ok = false;
            break;
        }
        buf_put(out, line, pre);
        for (size_t i = 0; i < tl;) {
            if (!hit[i]) {
                buf_putc(out, line[pre + i++]);
                continue;
            }
            buf_puts(out, PTY_MASK_TOKEN);
            while (i < tl && hit[i])
                i++;
        }
        if (nl)
            buf_putc(out, '\n');
    }
    sc_free(hit);
    return ok && !out->oom;
}
