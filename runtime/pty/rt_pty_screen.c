/* SPDX-License-Identifier: MIT */
/* rt_pty_screen.c - libvterm behind rt_pty_screen.h: feeding, replies to
** terminal queries, keys, and the three renderings (text, golden, JSON).
**
** libvterm answers DA, DA2, CPR, DSR and DECRQM itself through its output
** callback; the unrecognised-sequence fallbacks answer the colour queries
** (OSC 10/11) and XTVERSION so programs such as vim do not wait for them,
** and note every query as an event. */
#include "rt_pty_screen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vterm.h>

#include "common/jsonw.h"
#include "common/sc_alloc.h"
#include "formats/term/term_keys.h"
#include "runtime/pty/rt_pty_mask.h"

enum { LINES_MAX = 500 };   /* rows, at most (rt_pty_screen.h) */

struct PtyScreen {
    VTerm *vt;
    VTermScreen *scr;
    VTermState *st;
    int rows, cols;
    uint64_t gen;
    bool alt, cursor_visible;
    char title[256];
    PtyScreenOut *out;
    PtyScreenNote *note;
    void *user;
    int utf8_need;          /* continuation bytes still expected */
    unsigned char carry[4]; /* an incomplete UTF-8 character held for the next feed */
    size_t carry_n, carry_want;
    int str_state;          /* APC/PM/SOS filter: 0 text, 1 after ESC, 2 in a string, 3 ESC in it */
    size_t str_len;         /* bytes of the string so far */
    /* The text of each row as pty_screen_line gives it, and the rows
    ** joined, kept until libvterm reports damage to them: a condition
    ** checked after each read renders only the rows that changed, not the
    ** whole screen (issue 35 item 1).  The cache is not part of the
    ** screen's value, so the const readers fill it. */
    struct LineCache {
        Buf line[LINES_MAX];
        unsigned char dirty[LINES_MAX];
        Buf text;
        bool text_ok;
    } *cache;
};

/* libvterm's own allocations bypass the sc_alloc test hook: libvterm
** 0.1.4 dereferences what its allocator returns without a check
** (vterm_new_with_allocator crashed on an injected failure in
** pty.session_api), so a failure injected there would test libvterm's
** missing checks, not ours. */
static void *va_malloc(size_t n, void *data)
{
    (void)data;
    return calloc(1, n);      /* libvterm relies on zeroed memory */
}

static void va_free(void *p, void *data)
{
    (void)data;
    free(p);
}

static VTermAllocatorFunctions va_funcs = { va_malloc, va_free };

/* Rows [r0, r1) changed: their cached text, and the joined text, are stale. */
static void stale(PtyScreen *s, int r0, int r1)
{
    if (r0 < 0)
        r0 = 0;
    if (r1 > LINES_MAX)
        r1 = LINES_MAX;
    for (int r = r0; r < r1; r++)
        s->cache->dirty[r] = 1;
    s->cache->text_ok = false;
}

static void note(PtyScreen *s, const char *kind, const char *d, size_t n)
{
    if (s->note)
        s->note(kind, d, n, s->user);
}

static int cb_damage(VTermRect r, void *u)
{
    stale(u, r.start_row, r.end_row);
    ((PtyScreen *)u)->gen++;
    return 1;
}

/* Cells moved from src to d (a scroll).  Whole rows: their cached text
** moves with them (a scrolling program's screen re-renders only its new
** row); the rows of src that d does not cover are stale (libvterm erases
** them too).  Part of a row: the rows touched are stale. */
static int cb_moverect(VTermRect d, VTermRect src, void *u)
{
    PtyScreen *s = u;
    struct LineCache *c = s->cache;
    s->gen++;
    bool rows = d.start_col == 0 && src.start_col == 0 && d.end_col >= s->cols && src.end_col >= s->cols &&
                d.end_row - d.start_row == src.end_row - src.start_row && d.start_row >= 0 && src.start_row >= 0 &&
                d.end_row <= LINES_MAX && src.end_row <= LINES_MAX;
    if (!rows) {
        stale(s, d.start_row, d.end_row);
        stale(s, src.start_row, src.end_row);
        return 1;
    }
    int n = d.end_row - d.start_row;
    for (int k = 0; k < n; k++) {
        int i = d.start_row < src.start_row ? k : n - 1 - k;   /* never overwrite a row still to move */
        int to = d.start_row + i, from = src.start_row + i;
        Buf t = c->line[to];
        c->line[to] = c->line[from];
        c->line[from] = t;
        unsigned char dt = c->dirty[to];
        c->dirty[to] = c->dirty[from];
        c->dirty[from] = dt;
    }
    for (int r = src.start_row; r < src.end_row; r++)
        if (r < d.start_row || r >= d.end_row)
            stale(s, r, r + 1);
    c->text_ok = false;
    return 1;
}

static int cb_movecursor(VTermPos pos, VTermPos old, int visible, void *u)
{
    (void)pos;
    (void)old;
    (void)visible;
    ((PtyScreen *)u)->gen++;
    return 1;
}

static int cb_settermprop(VTermProp prop, VTermValue *val, void *u)
{
    PtyScreen *s = u;
    s->gen++;
    switch (prop) {
    case VTERM_PROP_CURSORVISIBLE:
        s->cursor_visible = val->boolean != 0;
        break;
    case VTERM_PROP_ALTSCREEN:
        stale(s, 0, LINES_MAX);
        s->alt = val->boolean != 0;
        note(s, "altscreen", s->alt ? "on" : "off", s->alt ? 2 : 3);
        break;
    case VTERM_PROP_TITLE:
        snprintf(s->title, sizeof s->title, "%s", val->string ? val->string : "");
        note(s, "title", s->title, strlen(s->title));
        break;
    case VTERM_PROP_CURSORBLINK:
    case VTERM_PROP_ICONNAME:
    case VTERM_PROP_REVERSE:
    case VTERM_PROP_CURSORSHAPE:
    case VTERM_PROP_MOUSE:
    case VTERM_N_PROPS:
        break;
    }
    return 1;
}

static int cb_bell(void *u)
{
    note(u, "bell", "", 0);
    return 1;
}

static int cb_resize(int rows, int cols, void *u)
{
    PtyScreen *s = u;
    s->rows = rows;
    s->cols = cols;
    stale(s, 0, LINES_MAX);
    s->gen++;
    return 1;
}

static const VTermScreenCallbacks screen_cbs = {
    .damage = cb_damage,
    .moverect = cb_moverect,
    .movecursor = cb_movecursor,
    .settermprop = cb_settermprop,
    .bell = cb_bell,
    .resize = cb_resize,
};

static void cb_output(const char *b, size_t n, void *u)
{
    PtyScreen *s = u;
    if (s->out)
        s->out(b, n, s->user);
}

/* ---- queries libvterm leaves unanswered ---- */

static void reply(PtyScreen *s, const char *r)
{
    cb_output(r, strlen(r), s);
}

static int fb_csi(const char *leader, const long args[], int argc, const char *intermed,
                  char command, void *u)
{
    PtyScreen *s = u;
    char d[96];
    int n = snprintf(d, sizeof d, "CSI %s%ld%s %c", leader ? leader : "",
                     argc > 0 ? CSI_ARG(args[0]) : 0L, intermed ? intermed : "", command);
    /* XTVERSION (CSI > q): name ourselves, as xterm does. */
    if (leader && strcmp(leader, ">") == 0 && command == 'q') {
        reply(s, "\x1bP>|scvm-pty(libvterm)\x1b\\");
        note(s, "query", d, (size_t)n);
        return 1;
    }
    note(s, "unhandled", d, (size_t)n);
    return 0;
}

static int fb_osc(const char *cmd, size_t len, void *u)
{
    PtyScreen *s = u;
    /* OSC 10/11/12 ; ? : default foreground, background, cursor colour. */
    if (len >= 4 && cmd[2] == ';' && cmd[3] == '?' && cmd[0] == '1' && cmd[1] >= '0' && cmd[1] <= '2') {
        char r[64];
        const char *rgb = cmd[1] == '1' ? "0000/0000/0000" : "ffff/ffff/ffff";
        snprintf(r, sizeof r, "\x1b]1%c;rgb:%s\x1b\\", cmd[1], rgb);
        reply(s, r);
        note(s, "query", cmd, len);
        return 1;
    }
    note(s, "unhandled", cmd, len < 64 ? len : 64);
    return 0;
}

static int fb_dcs(const char *cmd, size_t len, void *u)
{
    PtyScreen *s = u;
    note(s, len && cmd[0] == '+' ? "query" : "unhandled", cmd, len < 64 ? len : 64);
    /* XTGETTCAP (DCS + q ...): "not found" keeps the program from waiting. */
    if (len >= 2 && cmd[0] == '+' && cmd[1] == 'q') {
        reply(s, "\x1bP0+r\x1b\\");
        return 1;
    }
    return 0;
}

static const VTermParserCallbacks fallbacks = {
    .csi = fb_csi,
    .osc = fb_osc,
    .dcs = fb_dcs,
};

PtyScreen *pty_screen_new(int rows, int cols, PtyScreenOut *out, PtyScreenNote *nt, void *user)
{
    PtyScreen *s = sc_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->cache = sc_calloc(1, sizeof *s->cache);
    s->vt = s->cache ? vterm_new_with_allocator(rows, cols, &va_funcs, NULL) : NULL;
    if (!s->vt) {
        sc_free(s->cache);
        sc_free(s);
        return NULL;
    }
    stale(s, 0, LINES_MAX);
    s->rows = rows;
    s->cols = cols;
    s->out = out;
    s->note = nt;
    s->user = user;
    s->cursor_visible = true;
    vterm_set_utf8(s->vt, 1);
    vterm_output_set_callback(s->vt, cb_output, s);
    s->st = vterm_obtain_state(s->vt);
    s->scr = vterm_obtain_screen(s->vt);
    vterm_screen_set_callbacks(s->scr, &screen_cbs, s);
    vterm_screen_enable_altscreen(s->scr, 1);
    vterm_screen_set_damage_merge(s->scr, VTERM_DAMAGE_SCROLL);
    vterm_screen_reset(s->scr, 1);
    vterm_state_set_unrecognised_fallbacks(s->st, &fallbacks, s);
    return s;
}

void pty_screen_free(PtyScreen *s)
{
    if (!s)
        return;
    vterm_free(s->vt);
    for (int r = 0; r < LINES_MAX; r++)
        buf_fini(&s->cache->line[r]);
    buf_fini(&s->cache->text);
    sc_free(s->cache);
    sc_free(s);
}

/* Notes invalid UTF-8 (libvterm itself shows it as U+FFFD); the decoder
** state carries a split sequence to the next chunk. */
static void check_utf8(PtyScreen *s, const unsigned char *p, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (s->utf8_need) {
            if ((c & 0xC0) == 0x80) {
                s->utf8_need--;
                continue;
            }
            bad++;
            s->utf8_need = 0;
        }
        if (c < 0x80)
            continue;
        if (c >= 0xC2 && c <= 0xDF)
            s->utf8_need = 1;
        else if (c >= 0xE0 && c <= 0xEF)
            s->utf8_need = 2;
        else if (c >= 0xF0 && c <= 0xF4)
            s->utf8_need = 3;
        else
            bad++;
    }
    if (bad) {
        char d[48];
        int k = snprintf(d, sizeof d, "%zu invalid byte(s)", bad);
        note(s, "invalid_utf8", d, (size_t)k);
    }
}

/* The length of the UTF-8 sequence a lead byte starts (1 for anything else). */
static size_t utf8_len(unsigned c)
{
    return c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 1;
}

/* How many bytes at the end of p[0..n) start a character that is not complete. */
static size_t utf8_open_tail(const unsigned char *p, size_t n)
{
    for (size_t k = 1; k <= 3 && k <= n; k++) {
        unsigned c = p[n - k];
        if ((c & 0xC0) == 0x80)
            continue;
        return utf8_len(c) > k ? k : 0;
    }
    return 0;
}

/* libvterm 0.1.4 shows a UTF-8 character split across two writes as U+FFFD
** (a program's write, or our read, may end inside one: the differential
** test's live recording hit it).  So an incomplete character at the end of
** a chunk is held back and written whole with the next chunk; bytes are only
** delayed, never reordered. */
static void feed_vt(PtyScreen *s, const unsigned char *p, size_t n)
{
    if (!n)
        return;
    check_utf8(s, p, n);
    if (s->carry_n) {
        unsigned char c[4];
        size_t k = s->carry_n;
        memcpy(c, s->carry, k);
        while (k < s->carry_want && k < sizeof c && n > 0 && (*p & 0xC0) == 0x80) {
            c[k++] = *p++;
            n--;
        }
        if (k < s->carry_want && n == 0) {
            memcpy(s->carry, c, k);     /* still incomplete: wait for more */
            s->carry_n = k;
            return;
        }
        s->carry_n = 0;
        vterm_input_write(s->vt, (const char *)c, k);   /* whole, or invalid */
    }
    size_t t = utf8_open_tail(p, n);
    if (t) {
        memcpy(s->carry, p + n - t, t);
        s->carry_n = t;
        s->carry_want = utf8_len(p[n - t]);
    }
    vterm_input_write(s->vt, (const char *)p, n - t);
}

enum { STR_MAX = 1 << 20 };     /* a string longer than this is taken as unterminated */

/* libvterm 0.1.4 does not know APC, PM and SOS strings (ESC _, ESC ^,
** ESC X ... ST): it shows their payload as text.  Programs send them:
** Claude Code asks for kitty graphics with APC "Gi=31,...".  A terminal
** that does not support them ignores them, as xterm does, so they are cut
** out here, across chunks (an ESC at the end of a chunk is held until the
** next one tells what it starts). */
void pty_screen_feed(PtyScreen *s, const char *bytes, size_t n)
{
    const unsigned char *p = (const unsigned char *)bytes;
    size_t start = 0;
    bool held = s->str_state == 1;     /* an ESC from the last chunk */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        switch (s->str_state) {
        case 0:
            if (c == 0x1b)
                s->str_state = 1;
            break;
        case 1:
            if (c == '_' || c == '^' || c == 'X') {
                if (i > start)
                    feed_vt(s, p + start, i - 1 - start);   /* the text before the ESC */
                s->str_state = 2;
                s->str_len = 0;
            } else {
                if (held)
                    feed_vt(s, (const unsigned char *)"\x1b", 1);
                s->str_state = c == 0x1b ? 1 : 0;
            }
            held = false;
            start = s->str_state >= 2 ? i + 1 : start;
            break;
        default:
            if (s->str_state == 3 && c == '\\')
                s->str_state = 0;
            else if (c == 0x07 || ++s->str_len > STR_MAX)
                s->str_state = 0;
            else
                s->str_state = c == 0x1b ? 3 : 2;
            start = i + 1;
            break;
        }
    }
    /* the text, without an ESC at its end that may start a string */
    if (s->str_state == 1 && !held)
        feed_vt(s, p + start, n - 1 - start);
    else if (s->str_state == 0)
        feed_vt(s, p + start, n - start);
    vterm_screen_flush_damage(s->scr);
}

void pty_screen_resize(PtyScreen *s, int rows, int cols)
{
    vterm_set_size(s->vt, rows, cols);
    vterm_screen_flush_damage(s->scr);
    s->rows = rows;
    s->cols = cols;
    stale(s, 0, LINES_MAX);
    s->gen++;
}

uint64_t pty_screen_gen(const PtyScreen *s) { return s->gen; }

void pty_screen_size(const PtyScreen *s, int *rows, int *cols)
{
    *rows = s->rows;
    *cols = s->cols;
}

PtyCursor pty_screen_cursor(const PtyScreen *s)
{
    VTermPos p;
    vterm_state_get_cursorpos(s->st, &p);
    PtyCursor c = { p.row, p.col, s->cursor_visible };
    return c;
}

bool pty_screen_altscreen(const PtyScreen *s) { return s->alt; }
const char *pty_screen_title(const PtyScreen *s) { return s->title; }

/* ---- rendering ---- */

static void put_utf8(Buf *b, uint32_t c)
{
    unsigned char u[4];
    size_t n;
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        c = 0xFFFD;
    if (c < 0x80) {
        u[0] = (unsigned char)c;
        n = 1;
    } else if (c < 0x800) {
        u[0] = (unsigned char)(0xC0 | c >> 6);
        u[1] = (unsigned char)(0x80 | (c & 0x3F));
        n = 2;
    } else if (c < 0x10000) {
        u[0] = (unsigned char)(0xE0 | c >> 12);
        u[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (c & 0x3F));
        n = 3;
    } else {
        u[0] = (unsigned char)(0xF0 | c >> 18);
        u[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
        u[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
        u[3] = (unsigned char)(0x80 | (c & 0x3F));
        n = 4;
    }
    buf_put(b, u, n);
}

static bool get_cell(const PtyScreen *s, int row, int col, VTermScreenCell *c)
{
    VTermPos pos = { row, col };
    memset(c, 0, sizeof *c);
    return vterm_screen_get_cell(s->scr, pos, c) != 0;
}

/* Appends the characters of one cell (a space when empty); returns the
** cell's width (0 for the right half of a wide character). */
static int cell_text(const VTermScreenCell *c, Buf *b)
{
    if (c->chars[0] == (uint32_t)-1)
        return 0;
    if (c->chars[0] == 0) {
        buf_putc(b, ' ');
        return 1;
    }
    for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && c->chars[i]; i++)
        put_utf8(b, c->chars[i] < 0x20 ? 0xFFFD : c->chars[i]);
    return c->width > 1 ? c->width : 1;
}

static void render_line(const PtyScreen *s, int row, Buf *out)
{
    buf_reset(out);
    size_t keep = 0;
    for (int col = 0; col < s->cols;) {
        VTermScreenCell c;
        get_cell(s, row, col, &c);
        int w = cell_text(&c, out);
        if (c.chars[0] != 0 && c.chars[0] != ' ')
            keep = out->len;
        col += w > 0 ? w : 1;
    }
    out->len = keep;
}

/* Row row's text from the cache, rendered first when stale; NULL when the
** row is past the cache or the cache could not hold it. */
static const Buf *cached_line(const PtyScreen *s, int row)
{
    struct LineCache *c = s->cache;
    if (row < 0 || row >= LINES_MAX)
        return NULL;
    if (c->dirty[row]) {
        render_line(s, row, &c->line[row]);
        if (c->line[row].oom) {
            buf_fini(&c->line[row]);
            buf_init(&c->line[row]);
            return NULL;
        }
        c->dirty[row] = 0;
    }
    return &c->line[row];
}

void pty_screen_line(const PtyScreen *s, int row, Buf *out)
{
    const Buf *l = cached_line(s, row);
    if (!l) {
        render_line(s, row, out);
        return;
    }
    buf_reset(out);
    buf_put(out, l->data, l->len);
}

void pty_screen_text(const PtyScreen *s, Buf *out)
{
    struct LineCache *c = s->cache;
    if (!c->text_ok) {
        Buf *t = &c->text;
        buf_reset(t);
        for (int r = 0; r < s->rows; r++) {
            if (r)
                buf_putc(t, '\n');
            const Buf *l = cached_line(s, r);
            if (l) {
                buf_put(t, l->data, l->len);
            } else {
                Buf line;
                buf_init(&line);
                render_line(s, r, &line);
                buf_put(t, line.data, line.len);
                if (line.oom)
                    t->oom = true;
                buf_fini(&line);
            }
        }
        c->text_ok = !t->oom;
        if (t->oom) {
            buf_fini(t);
            buf_init(t);
            out->oom = true;
            return;
        }
    }
    buf_reset(out);
    buf_put(out, c->text.data, c->text.len);
}

/* Attribute words of a cell, in a fixed order; "" for a plain cell. */
static void attr_words(const PtyScreen *s, const VTermScreenCell *c, char *w, size_t n)
{
    (void)s;
    size_t k = 0;
    w[0] = 0;
#define ADD(...) do { if (k < n) k += (size_t)snprintf(w + k, n - k, __VA_ARGS__); } while (0)
    if (c->attrs.bold)
        ADD(" bold");
    if (c->attrs.italic)
        ADD(" italic");
    if (c->attrs.underline == VTERM_UNDERLINE_SINGLE)
        ADD(" underline");
    else if (c->attrs.underline == VTERM_UNDERLINE_DOUBLE)
        ADD(" underline=double");
    else if (c->attrs.underline == VTERM_UNDERLINE_CURLY)
        ADD(" underline=curly");
    if (c->attrs.blink)
        ADD(" blink");
    if (c->attrs.reverse)
        ADD(" inverse");
    if (c->attrs.strike)
        ADD(" strike");
    if (!VTERM_COLOR_IS_DEFAULT_FG(&c->fg)) {
        if (VTERM_COLOR_IS_INDEXED(&c->fg))
            ADD(" fg=%u", (unsigned)c->fg.indexed.idx);
        else
            ADD(" fg=#%02x%02x%02x", c->fg.rgb.red, c->fg.rgb.green, c->fg.rgb.blue);
    }
    if (!VTERM_COLOR_IS_DEFAULT_BG(&c->bg)) {
        if (VTERM_COLOR_IS_INDEXED(&c->bg))
            ADD(" bg=%u", (unsigned)c->bg.indexed.idx);
        else
            ADD(" bg=#%02x%02x%02x", c->bg.rgb.red, c->bg.rgb.green, c->bg.rgb.blue);
    }
#undef ADD
    if (k >= n)
        w[n - 1] = 0;
}

/* One row of the golden: its text, masked, into body, and the source
** column of each column of the masked row into src (-1: the token's),
** *n_src of them; *cur_col is the cursor's column mapped the same way
** when cur_col is not NULL.  Scratch arrays come from sc (cols each). */
typedef struct RowScratch {
    size_t *off;        /* byte offset of each column's text in line (a wide character's right half: its left's) */
    bool *masked;       /* per column */
    int *src;           /* per column of the masked row: PTY_MASK_TOKEN_COLS * cols at most */
    bool *hit;          /* per byte of line */
    size_t hit_cap;
    Buf line;
} RowScratch;

static bool golden_row(const PtyScreen *s, int r, const PtyMasks *masks, RowScratch *sc, Buf *body, int *n_src,
                       int *cur_col)
{
    Buf *line = &sc->line;
    buf_reset(line);
    size_t keep = 0;
    int lead = 0;
    for (int col = 0; col < s->cols; col++) {
        VTermScreenCell c;
        get_cell(s, r, col, &c);
        if (c.chars[0] == (uint32_t)-1 && col > 0) {
            sc->off[col] = sc->off[lead];   /* the right half of a wide character */
            continue;
        }
        lead = col;
        sc->off[col] = line->len;
        cell_text(&c, line);
        if (c.chars[0] != 0 && c.chars[0] != ' ')
            keep = line->len;
        col += c.width > 1 ? c.width - 1 : 0;
        for (int k = lead + 1; k <= col && k < s->cols; k++)
            sc->off[k] = sc->off[lead];
    }
    if (line->oom)
        return false;
    /* Which columns a mask hides: those with a byte of a match, in the
    ** text as pty_screen_line gives it (trailing spaces trimmed). */
    if (keep > sc->hit_cap) {
        bool *h = sc_realloc(sc->hit, keep);
        if (!h)
            return false;
        sc->hit = h;
        sc->hit_cap = keep;
    }
    if (!pty_masks_mark(masks, (const char *)line->data, keep, sc->hit))
        return false;
    for (int col = 0; col < s->cols; col++) {
        size_t b0 = sc->off[col], b1 = keep;
        for (int k = col + 1; k < s->cols; k++)
            if (sc->off[k] != b0) {
                b1 = sc->off[k] < keep ? sc->off[k] : keep;
                break;
            }
        sc->masked[col] = false;
        for (size_t i = b0; i < b1; i++)
            sc->masked[col] |= sc->hit[i];
    }
    /* The masked row: each run of hidden columns one token, plain; the
    ** columns after it move with it, so the attributes still line up. */
    int n = 0, want_cur = cur_col ? *cur_col : -1;
    for (int col = 0; col < s->cols;) {
        if (cur_col && col == want_cur)
            *cur_col = n;
        if (!sc->masked[col]) {
            sc->src[n++] = col++;
            continue;
        }
        for (int k = 0; k < PTY_MASK_TOKEN_COLS; k++)
            sc->src[n++] = -1;
        for (; col < s->cols && sc->masked[col]; col++)
            if (cur_col && col == want_cur)
                *cur_col = n - PTY_MASK_TOKEN_COLS;
    }
    *n_src = n;
    buf_printf(body, "%3d|", r);
    const char *t = (const char *)line->data;
    for (int col = 0; col < s->cols && sc->off[col] < keep;) {
        if (sc->masked[col]) {
            buf_puts(body, PTY_MASK_TOKEN);
            while (col < s->cols && sc->masked[col])
                col++;
            continue;
        }
        int next = col + 1;
        while (next < s->cols && sc->off[next] == sc->off[col])
            next++;
        size_t b1 = next < s->cols && sc->off[next] < keep ? sc->off[next] : keep;
        buf_put(body, t + sc->off[col], b1 - sc->off[col]);
        col = next;
    }
    buf_putc(body, '\n');
    return true;
}

bool pty_screen_golden(const PtyScreen *s, const PtyMasks *masks, Buf *out)
{
    PtyCursor cur = pty_screen_cursor(s);
    RowScratch sc = { 0 };
    buf_init(&sc.line);
    size_t cols = (size_t)s->cols;
    sc.off = sc_malloc(cols * sizeof *sc.off);
    sc.masked = sc_malloc(cols * sizeof *sc.masked);
    sc.src = sc_malloc(cols * PTY_MASK_TOKEN_COLS * sizeof *sc.src);
    Buf body, attrs;
    buf_init(&body);
    buf_init(&attrs);
    bool ok = sc.off && sc.masked && sc.src;
    /* Attributes: one line per row that has any, runs of equal attributes
    ** as  first-last words  (columns 0-based, inclusive, of the masked
    ** row: a token's columns are plain). */
    char prev[128], cur_w[128];
    for (int r = 0; r < s->rows && ok; r++) {
        int n_src = 0, cc = cur.col;
        ok = golden_row(s, r, masks, &sc, &body, &n_src, r == cur.row ? &cc : NULL);
        if (r == cur.row)
            cur.col = cc;
        bool row_started = false;
        int run_start = -1;
        prev[0] = 0;
        for (int col = 0; col <= n_src && ok; col++) {
            cur_w[0] = 0;
            if (col < n_src && sc.src[col] >= 0) {
                VTermScreenCell c;
                get_cell(s, r, sc.src[col], &c);
                attr_words(s, &c, cur_w, sizeof cur_w);
            }
            if (col < n_src && strcmp(cur_w, prev) == 0)
                continue;
            if (run_start >= 0 && prev[0]) {
                if (row_started)
                    buf_puts(&attrs, ",");
                else
                    buf_printf(&attrs, "%3d:", r);
                buf_printf(&attrs, " %d-%d%s", run_start, col - 1, prev);
                row_started = true;
            }
            run_start = col;
            memcpy(prev, cur_w, sizeof prev);
        }
        if (row_started)
            buf_putc(&attrs, '\n');
    }
    if (ok) {
        buf_printf(out, "scc-screen 1\nsize %dx%d\ncursor %d,%d %s\nalt %s\n", s->rows, s->cols, cur.row, cur.col,
                   cur.visible ? "visible" : "hidden", s->alt ? "on" : "off");
        pty_masks_section(masks, out);
        buf_puts(out, "text\n");
        buf_put(out, body.data, body.len);
        buf_puts(out, "attrs\n");
        buf_put(out, attrs.data, attrs.len);
    }
    ok = ok && !body.oom && !attrs.oom && !out->oom;
    buf_fini(&body);
    buf_fini(&attrs);
    buf_fini(&sc.line);
    sc_free(sc.off);
    sc_free(sc.masked);
    sc_free(sc.src);
    sc_free(sc.hit);
    return ok;
}

static void json_color(JsonW *w, const VTermColor *c, bool fg, bool ptybox)
{
    if (fg ? VTERM_COLOR_IS_DEFAULT_FG(c) : VTERM_COLOR_IS_DEFAULT_BG(c)) {
        jw_cstr(w, "default");
    } else if (VTERM_COLOR_IS_INDEXED(c)) {
        jw_obj(w);
        if (ptybox)
            jw_ku64(w, c->indexed.idx < 16 ? "ansi16" : "ansi256", c->indexed.idx);
        else
            jw_ku64(w, c->indexed.idx < 16 ? "ansi_16" : "ansi_256", c->indexed.idx);
        jw_end(w);
    } else {
        jw_obj(w);
        jw_kobj(w, "rgb");
        jw_ku64(w, "r", c->rgb.red);
        jw_ku64(w, "g", c->rgb.green);
        jw_ku64(w, "b", c->rgb.blue);
        jw_end(w);
        jw_end(w);
    }
}

void pty_screen_snapshot_json(const PtyScreen *s, const char *snapshot_id, unsigned flags, Buf *out)
{
    bool ptybox = (flags & PTY_SNAP_PTYBOX_COLORS) != 0;
    PtyCursor cur = pty_screen_cursor(s);
    JsonW w;
    jw_open_obj(&w, out);
    jw_ku64(&w, "snapshot_version", 1);
    jw_kcstr(&w, "snapshot_id", snapshot_id);
    jw_ki64(&w, "rows", s->rows);
    jw_ki64(&w, "cols", s->cols);
    jw_kobj(&w, "cursor");
    jw_ki64(&w, "row", cur.row);
    jw_ki64(&w, "col", cur.col);
    jw_kbool(&w, "visible", cur.visible);
    jw_end(&w);
    jw_kbool(&w, "alternate_screen", s->alt);
    jw_karr(&w, "lines");
    Buf line;
    buf_init(&line);
    for (int r = 0; r < s->rows; r++) {
        pty_screen_line(s, r, &line);
        jw_str(&w, (const char *)line.data, line.len);
    }
    jw_end(&w);
    if (flags & PTY_SNAP_CELLS) {
        jw_karr(&w, "cells");
        for (int r = 0; r < s->rows; r++) {
            jw_arr(&w);
            for (int col = 0; col < s->cols; col++) {
                VTermScreenCell c;
                get_cell(s, r, col, &c);
                if (c.chars[0] == (uint32_t)-1)
                    continue;
                buf_reset(&line);
                cell_text(&c, &line);
                jw_obj(&w);
                jw_kstr(&w, "ch", (const char *)line.data, line.len);
                jw_ki64(&w, "width", c.width > 1 ? c.width : 1);
                jw_kobj(&w, "style");
                jw_key(&w, "fg");
                json_color(&w, &c.fg, true, ptybox);
                jw_key(&w, "bg");
                json_color(&w, &c.bg, false, ptybox);
                jw_kbool(&w, "bold", c.attrs.bold);
                jw_kbool(&w, "italic", c.attrs.italic);
                jw_kbool(&w, "underline", c.attrs.underline);
                jw_kbool(&w, "inverse", c.attrs.reverse);
                jw_end(&w);
                jw_end(&w);
            }
            jw_end(&w);
        }
        jw_end(&w);
    }
    jw_end(&w);
    if (line.oom)
        out->oom = true;
    buf_fini(&line);
}

/* ---- keys ---- */

/* Key names are parsed by term_keys.c (shared with the compiler). */
static const VTermKey VKEY[] = {
    [TERM_KEY_ENTER] = VTERM_KEY_ENTER, [TERM_KEY_TAB] = VTERM_KEY_TAB,
    [TERM_KEY_BACKSPACE] = VTERM_KEY_BACKSPACE, [TERM_KEY_ESCAPE] = VTERM_KEY_ESCAPE,
    [TERM_KEY_UP] = VTERM_KEY_UP, [TERM_KEY_DOWN] = VTERM_KEY_DOWN,
    [TERM_KEY_LEFT] = VTERM_KEY_LEFT, [TERM_KEY_RIGHT] = VTERM_KEY_RIGHT,
    [TERM_KEY_INS] = VTERM_KEY_INS, [TERM_KEY_DEL] = VTERM_KEY_DEL,
    [TERM_KEY_HOME] = VTERM_KEY_HOME, [TERM_KEY_END] = VTERM_KEY_END,
    [TERM_KEY_PAGEUP] = VTERM_KEY_PAGEUP, [TERM_KEY_PAGEDOWN] = VTERM_KEY_PAGEDOWN,
};

typedef struct KeyParse {
    VTermKey key;
    uint32_t ch;
    VTermModifier mod;
} KeyParse;

static bool key_parse(const char *name, KeyParse *k)
{
    TermKey pk;
    memset(k, 0, sizeof *k);
    if (!term_key_parse(name, &pk))
        return false;
    k->mod = (VTermModifier)pk.mod;
    k->ch = pk.ch;
    if (pk.key >= TERM_KEY_F1)
        k->key = VTERM_KEY_FUNCTION(pk.key - TERM_KEY_F1 + 1);
    else if (pk.key != TERM_KEY_CHAR)
        k->key = VKEY[pk.key];
    else
        k->key = VTERM_KEY_NONE;
    return true;
}

bool pty_key_valid(const char *name)
{
    KeyParse k;
    return key_parse(name, &k);
}

bool pty_screen_key(PtyScreen *s, const char *name)
{
    KeyParse k;
    if (!key_parse(name, &k))
        return false;
    if (k.key != VTERM_KEY_NONE) {
        vterm_keyboard_key(s->vt, k.key, k.mod);
    } else if ((k.mod & VTERM_MOD_CTRL) && k.ch < 0x80 && k.ch != ' ' &&
               ((k.ch >= 'a' && k.ch <= 'z') || strchr("@[\\]^_", (int)k.ch))) {
        /* Ctrl+letter is the C0 control; libvterm 0.1.4 would send a CSI u
        ** sequence for some of these, which cooked-mode programs ignore. */
        char c = (char)((k.ch >= 'a' ? k.ch - 'a' + 'A' : k.ch) & 0x1F);
        if (k.mod & VTERM_MOD_ALT)
            cb_output("\x1b", 1, s);
        cb_output(&c, 1, s);
    } else {
        vterm_keyboard_unichar(s->vt, k.ch, k.mod);
    }
    return true;
}

void pty_screen_type(PtyScreen *s, const char *text, size_t n, bool paste)
{
    if (paste)
        vterm_keyboard_start_paste(s->vt);
    const unsigned char *p = (const unsigned char *)text;
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c == '\n' || c == '\r') {
            vterm_keyboard_key(s->vt, VTERM_KEY_ENTER, VTERM_MOD_NONE);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            char b = (char)c;
            cb_output(&b, 1, s);
            i++;
        } else if (c < 0x80) {
            vterm_keyboard_unichar(s->vt, c, VTERM_MOD_NONE);
            i++;
        } else {
            /* Valid UTF-8 (the bytecode's strings are checked): pass the
            ** sequence through whole. */
            size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
            if (i + len > n)
                len = n - i;
            cb_output(text + i, len, s);
            i += len;
        }
    }
    if (paste)
        vterm_keyboard_end_paste(s->vt);
}
