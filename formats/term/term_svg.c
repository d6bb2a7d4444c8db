/* SPDX-License-Identifier: MIT */
/* term_svg.c - golden text -> cell grid -> SVG / HTML (term_svg.h).
**
** Parsing follows docs/golden-screens.md: `size`, `cursor`, `alt`, the
** `masks` section (skipped), `text` rows (`%3d|` then UTF-8), `attrs` runs.
** A row's characters are laid on cells by their width: East Asian wide and
** fullwidth characters (and emoji) take two cells, combining marks none
** (they join the previous cell), as libvterm places them.
**
** Drawing: a background rectangle per run of equal background, then one
** <text> per run of equal style whose characters each carry their cell's x
** (SVG's per-character x list), so a proportional fallback font cannot
** shift a column.  Underline and strike are rectangles, not
** text-decoration, for the same reason. */
#include "formats/term/term_svg.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "common/utf8.h"

enum {
    A_BOLD = 1, A_ITALIC = 2, A_UNDER = 4, A_UNDER2 = 8, A_CURLY = 16, A_BLINK = 32, A_INVERSE = 64,
    A_STRIKE = 128,
};

#define COL_DEFAULT (-1)
#define COL_RGB 0x1000000   /* | 0xrrggbb */

typedef struct Cell {
    char ch[16];            /* UTF-8: the character and its combining marks; "" blank */
    uint8_t len;
    uint8_t width;          /* 1, 2; 0 for the right half of a wide character */
    uint16_t attrs;
    int32_t fg, bg;         /* COL_DEFAULT, 0..255, or COL_RGB | rgb */
} Cell;

struct TermShot {
    int rows, cols;
    int cur_row, cur_col;
    bool cur_visible, alt;
    Cell *cell;             /* rows * cols */
};

/* Default colours: a dark terminal (the common CI log viewer's). */
#define DEF_FG "#d0d0d0"
#define DEF_BG "#1c1c1c"

/* ---------- character width ---------- */

static bool is_wide(uint32_t c)
{
    static const uint32_t r[][2] = {
        { 0x1100, 0x115f }, { 0x231a, 0x231b }, { 0x2329, 0x232a }, { 0x23e9, 0x23ec }, { 0x23f0, 0x23f0 },
        { 0x23f3, 0x23f3 }, { 0x25fd, 0x25fe }, { 0x2614, 0x2615 }, { 0x2648, 0x2653 }, { 0x267f, 0x267f },
        { 0x2693, 0x2693 }, { 0x26a1, 0x26a1 }, { 0x26aa, 0x26ab }, { 0x26bd, 0x26be }, { 0x26c4, 0x26c5 },
        { 0x26ce, 0x26ce }, { 0x26d4, 0x26d4 }, { 0x26ea, 0x26ea }, { 0x26f2, 0x26f3 }, { 0x26f5, 0x26f5 },
        { 0x26fa, 0x26fa }, { 0x26fd, 0x26fd }, { 0x2705, 0x2705 }, { 0x270a, 0x270b }, { 0x2728, 0x2728 },
        { 0x274c, 0x274c }, { 0x274e, 0x274e }, { 0x2753, 0x2755 }, { 0x2757, 0x2757 }, { 0x2795, 0x2797 },
        { 0x27b0, 0x27b0 }, { 0x27bf, 0x27bf }, { 0x2b1b, 0x2b1c }, { 0x2b50, 0x2b50 }, { 0x2b55, 0x2b55 },
        { 0x2e80, 0x303e }, { 0x3041, 0x33ff }, { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xa000, 0xa4cf },
        { 0xa960, 0xa97f }, { 0xac00, 0xd7a3 }, { 0xf900, 0xfaff }, { 0xfe10, 0xfe19 }, { 0xfe30, 0xfe6f },
        { 0xff00, 0xff60 }, { 0xffe0, 0xffe6 }, { 0x1f004, 0x1f004 }, { 0x1f0cf, 0x1f0cf }, { 0x1f18e, 0x1f18e },
        { 0x1f191, 0x1f19a }, { 0x1f200, 0x1f251 }, { 0x1f300, 0x1f320 }, { 0x1f32d, 0x1f335 },
        { 0x1f337, 0x1f37c }, { 0x1f37e, 0x1f393 }, { 0x1f3a0, 0x1f3ca }, { 0x1f3cf, 0x1f3d3 },
        { 0x1f3e0, 0x1f3f0 }, { 0x1f3f4, 0x1f3f4 }, { 0x1f3f8, 0x1f43e }, { 0x1f440, 0x1f440 },
        { 0x1f442, 0x1f4fc }, { 0x1f4ff, 0x1f53d }, { 0x1f54b, 0x1f54e }, { 0x1f550, 0x1f567 },
        { 0x1f57a, 0x1f57a }, { 0x1f595, 0x1f596 }, { 0x1f5a4, 0x1f5a4 }, { 0x1f5fb, 0x1f64f },
        { 0x1f680, 0x1f6c5 }, { 0x1f6cc, 0x1f6cc }, { 0x1f6d0, 0x1f6d2 }, { 0x1f6eb, 0x1f6ec },
        { 0x1f6f4, 0x1f6fc }, { 0x1f7e0, 0x1f7eb }, { 0x1f90c, 0x1f93a }, { 0x1f93c, 0x1f945 },
        { 0x1f947, 0x1f9ff }, { 0x1fa70, 0x1faff }, { 0x20000, 0x2fffd }, { 0x30000, 0x3fffd },
    };
    if (c < 0x1100)
        return false;
    size_t lo = 0, hi = sizeof r / sizeof r[0];
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (c < r[m][0])
            hi = m;
        else if (c > r[m][1])
            lo = m + 1;
        else
            return true;
    }
    return false;
}

static bool is_combining(uint32_t c)
{
    return (c >= 0x300 && c <= 0x36f) || (c >= 0x1ab0 && c <= 0x1aff) || (c >= 0x1dc0 && c <= 0x1dff) ||
           (c >= 0x200b && c <= 0x200f) || (c >= 0x20d0 && c <= 0x20ff) || (c >= 0xfe00 && c <= 0xfe0f) ||
           (c >= 0xfe20 && c <= 0xfe2f) || (c >= 0xe0100 && c <= 0xe01ef);
}

/* ---------- parsing ---------- */

static Cell *cell_at(const TermShot *s, int r, int c)
{
    return &s->cell[(size_t)r * (size_t)s->cols + (size_t)c];
}

static void parse_text_row(TermShot *s, int row, const char *p, size_t n)
{
    int col = 0;
    Cell *prev = NULL;
    while (n > 0) {
        uint32_t cp;
        size_t k = utf8_char((const unsigned char *)p, n, &cp);
        if (k == 0) {
            k = 1;
            cp = 0xfffd;
        }
        const char *bytes = p;
        size_t blen = k;
        if (cp == 0xfffd && k == 1) {
            bytes = "\xef\xbf\xbd";
            blen = 3;
        }
        p += k;
        n -= k;
        if (is_combining(cp) && prev) {
            if (prev->len + blen < sizeof prev->ch) {
                memcpy(prev->ch + prev->len, bytes, blen);
                prev->len = (uint8_t)(prev->len + blen);
            }
            continue;
        }
        int w = is_wide(cp) ? 2 : 1;
        if (col + w > s->cols)
            break;
        Cell *c = cell_at(s, row, col);
        if (cp != ' ') {
            memcpy(c->ch, bytes, blen);
            c->len = (uint8_t)blen;
        }
        c->width = (uint8_t)w;
        if (w == 2)
            cell_at(s, row, col + 1)->width = 0;
        prev = c;
        col += w;
    }
}

static long num(const char **p, const char *end)
{
    long v = 0;
    bool any = false;
    while (*p < end && **p >= '0' && **p <= '9' && v < 100000) {
        v = v * 10 + (**p - '0');
        (*p)++;
        any = true;
    }
    return any ? v : -1;
}

static int32_t colour(const char *p, const char *end)
{
    if (p < end && *p == '#' && end - p == 7) {
        char h[7];
        memcpy(h, p + 1, 6);
        h[6] = 0;
        char *e;
        long v = strtol(h, &e, 16);
        return *e ? COL_DEFAULT : (int32_t)(COL_RGB | v);
    }
    long v = num(&p, end);
    return (v >= 0 && v <= 255 && p == end) ? (int32_t)v : COL_DEFAULT;
}

static void parse_attr_row(TermShot *s, const char *p, const char *end)
{
    while (p < end && *p == ' ')
        p++;
    long row = num(&p, end);
    if (row < 0 || row >= s->rows || p >= end || *p != ':')
        return;
    p++;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        long first = num(&p, end);
        if (first < 0 || p >= end || *p != '-')
            return;
        p++;
        long last = num(&p, end);
        if (last < first)
            return;
        uint16_t a = 0;
        int32_t fg = COL_DEFAULT, bg = COL_DEFAULT;
        /* words up to the next ", " or the end */
        while (p < end && *p == ' ') {
            p++;
            const char *w = p;
            while (p < end && *p != ' ' && *p != ',')
                p++;
            size_t wl = (size_t)(p - w);
#define IS(lit) (wl == sizeof lit - 1 && memcmp(w, lit, wl) == 0)
            if (IS("bold"))
                a |= A_BOLD;
            else if (IS("italic"))
                a |= A_ITALIC;
            else if (IS("underline"))
                a |= A_UNDER;
            else if (IS("underline=double"))
                a |= A_UNDER | A_UNDER2;
            else if (IS("underline=curly"))
                a |= A_UNDER | A_CURLY;
            else if (IS("blink"))
                a |= A_BLINK;
            else if (IS("inverse"))
                a |= A_INVERSE;
            else if (IS("strike"))
                a |= A_STRIKE;
            else if (wl > 3 && memcmp(w, "fg=", 3) == 0)
                fg = colour(w + 3, p);
            else if (wl > 3 && memcmp(w, "bg=", 3) == 0)
                bg = colour(w + 3, p);
#undef IS
        }
        for (long c = first; c <= last && c < s->cols; c++) {
            Cell *cl = cell_at(s, (int)row, (int)c);
            cl->attrs = a;
            cl->fg = fg;
            cl->bg = bg;
        }
    }
}

TermShot *term_shot_parse(const char *text, size_t len, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    const char *p = text, *end = text + len;
    enum { HEAD, MASKS, TEXT, ATTRS } sec = HEAD;
    TermShot *s = NULL;
    bool magic = false;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - p);
        if (!magic) {
            if (n != 12 || memcmp(p, "scc-screen 1", 12) != 0) {
                *why = "not a golden screen (no 'scc-screen 1' line)";
                return NULL;
            }
            magic = true;
        } else if (!s) {
            const char *q = p + 5;
            long r, c;
            if (n < 5 || memcmp(p, "size ", 5) != 0 || (r = num(&q, le)) < 1 || r > 500 || q >= le || *q++ != 'x' ||
                (c = num(&q, le)) < 1 || c > 500 || q != le) {
                *why = "no valid 'size ROWSxCOLS' line";
                return NULL;
            }
            s = sc_calloc(1, sizeof *s);
            if (s)
                s->cell = sc_calloc((size_t)r * (size_t)c, sizeof *s->cell);
            if (!s || !s->cell) {
                term_shot_free(s);
                *why = "out of memory";
                return NULL;
            }
            s->rows = (int)r;
            s->cols = (int)c;
            for (size_t i = 0; i < (size_t)r * (size_t)c; i++) {
                s->cell[i].width = 1;
                s->cell[i].fg = s->cell[i].bg = COL_DEFAULT;
            }
        } else if (n == 4 && memcmp(p, "text", 4) == 0) {
            sec = TEXT;
        } else if (n == 5 && memcmp(p, "attrs", 5) == 0) {
            sec = ATTRS;
        } else if (n == 5 && memcmp(p, "masks", 5) == 0) {
            sec = MASKS;
        } else if (sec == HEAD && n > 7 && memcmp(p, "cursor ", 7) == 0) {
            const char *q = p + 7;
            long r = num(&q, le), c = -1;
            if (q < le && *q == ',') {
                q++;
                c = num(&q, le);
            }
            s->cur_row = (int)r;
            s->cur_col = (int)c;
            s->cur_visible = r >= 0 && c >= 0 && le - q == 8 && memcmp(q, " visible", 8) == 0;
        } else if (sec == HEAD && n == 6 && memcmp(p, "alt on", 6) == 0) {
            s->alt = true;
        } else if (sec == TEXT) {
            const char *bar = memchr(p, '|', n);
            const char *q = p;
            while (q < le && *q == ' ')
                q++;
            long row = num(&q, le);
            if (bar && q == bar && row >= 0 && row < s->rows)
                parse_text_row(s, (int)row, bar + 1, (size_t)(le - bar - 1));
        } else if (sec == ATTRS) {
            parse_attr_row(s, p, le);
        }
        p = nl ? nl + 1 : end;
    }
    if (!s)
        *why = magic ? "no 'size' line" : "empty";
    return s;
}

void term_shot_free(TermShot *s)
{
    if (!s)
        return;
    sc_free(s->cell);
    sc_free(s);
}

void term_shot_size(const TermShot *s, int *rows, int *cols)
{
    *rows = s->rows;
    *cols = s->cols;
}

static bool cell_eq(const Cell *a, const Cell *b)
{
    return a->len == b->len && memcmp(a->ch, b->ch, a->len) == 0 && a->width == b->width &&
           a->attrs == b->attrs && a->fg == b->fg && a->bg == b->bg;
}

static const Cell *cell_or_null(const TermShot *s, int r, int c)
{
    return r < s->rows && c < s->cols ? cell_at(s, r, c) : NULL;
}

static bool differs(const TermShot *s, const TermShot *o, int r, int c)
{
    const Cell *a = cell_or_null(s, r, c), *b = cell_or_null(o, r, c);
    return !a || !b || !cell_eq(a, b);
}

int term_shot_diff_cells(const TermShot *a, const TermShot *b)
{
    int rows = a->rows > b->rows ? a->rows : b->rows, cols = a->cols > b->cols ? a->cols : b->cols, n = 0;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            n += differs(a, b, r, c);
    return n;
}

/* ---------- drawing ---------- */

void term_xml_esc(Buf *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        size_t k = utf8_char((const unsigned char *)s + i, n - i, &cp);
        if (k == 0) {
            buf_puts(out, "\xef\xbf\xbd");
            i++;
            continue;
        }
        if (c == '&')
            buf_puts(out, "&amp;");
        else if (c == '<')
            buf_puts(out, "&lt;");
        else if (c == '>')
            buf_puts(out, "&gt;");
        else if (c == '"')
            buf_puts(out, "&quot;");
        else if (c == '\'')
            buf_puts(out, "&#39;");
        else if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
                 cp == 0xfffe || cp == 0xffff)
            buf_puts(out, "\xef\xbf\xbd");
        else
            buf_put(out, s + i, k);
        i += k;
    }
}

/* The xterm palette: 16 system colours, the 6x6x6 cube, 24 greys. */
static void put_colour(Buf *out, int32_t c, const char *dflt)
{
    static const char *const sys[16] = {
        "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
        "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
    };
    if (c == COL_DEFAULT) {
        buf_puts(out, dflt);
    } else if (c & COL_RGB) {
        buf_printf(out, "#%06x", (unsigned)(c & 0xffffff));
    } else if (c < 16) {
        buf_puts(out, sys[c]);
    } else if (c < 232) {
        static const int lv[6] = { 0, 95, 135, 175, 215, 255 };
        int i = c - 16;
        buf_printf(out, "#%02x%02x%02x", lv[i / 36], lv[i / 6 % 6], lv[i % 6]);
    } else {
        int g = 8 + (c - 232) * 10;
        buf_printf(out, "#%02x%02x%02x", g, g, g);
    }
}

/* The colours a cell is drawn with, inverse applied, as strings. */
static void cell_colours(const Cell *c, Buf *fg, Buf *bg)
{
    buf_reset(fg);
    buf_reset(bg);
    bool inv = (c->attrs & A_INVERSE) != 0;
    put_colour(inv ? bg : fg, c->fg, DEF_FG);
    put_colour(inv ? fg : bg, c->bg, DEF_BG);
    buf_putc(fg, 0);
    buf_putc(bg, 0);
}

/* The drawing of one row r at vertical offset y0 (pixels), in three layers
** (backgrounds, text, lines), so that a whole screen draws each layer over
** all rows and a single row (term_svg_row) draws the same elements. */
typedef struct Pens {
    Buf fg, bg, fg2, bg2;
} Pens;

/* backgrounds, a rectangle per run of one colour that is not the default */
static void row_bg(const TermShot *s, int r, int y0, Pens *p, Buf *out)
{
    const int W = TERM_SVG_CELL_W, H = TERM_SVG_CELL_H;
    int c = 0;
    while (c < s->cols) {
        cell_colours(cell_at(s, r, c), &p->fg, &p->bg);
        int e = c + 1;
        while (e < s->cols) {
            cell_colours(cell_at(s, r, e), &p->fg2, &p->bg2);
            if (strcmp((char *)p->bg.data, (char *)p->bg2.data) != 0)
                break;
            e++;
        }
        if (strcmp((char *)p->bg.data, DEF_BG) != 0)
            buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", c * W, y0,
                       (e - c) * W, H, (char *)p->bg.data);
        c = e;
    }
}

/* text: runs of one style; each character at its cell's x */
static void row_text(const TermShot *s, int r, int y0, Pens *p, Buf *out)
{
    const int W = TERM_SVG_CELL_W;
    int c = 0;
    while (c < s->cols) {
        const Cell *a = cell_at(s, r, c);
        if (a->len == 0) {
            c++;
            continue;
        }
        cell_colours(a, &p->fg, &p->bg);
        int e = c;
        buf_printf(out, "<text y=\"%d\" fill=\"%s\"%s%s x=\"", y0 + 14, (char *)p->fg.data,
                   a->attrs & A_BOLD ? " font-weight=\"bold\"" : "",
                   a->attrs & A_ITALIC ? " font-style=\"italic\"" : "");
        size_t xs = out->len;
        Buf chars;
        buf_init(&chars);
        while (e < s->cols) {
            const Cell *b = cell_at(s, r, e);
            if (b->width == 0) {
                e++;
                continue;
            }
            if (b->len == 0)
                break;
            cell_colours(b, &p->fg2, &p->bg2);
            if ((b->attrs & (A_BOLD | A_ITALIC)) != (a->attrs & (A_BOLD | A_ITALIC)) ||
                strcmp((char *)p->fg.data, (char *)p->fg2.data) != 0)
                break;
            /* a wide glyph (about 1em, 15 px) is centred on its two cells */
            buf_printf(out, "%s%d", out->len > xs ? " " : "", e * W + (b->width == 2 ? 1 : 0));
            term_xml_esc(&chars, b->ch, b->len);
            e++;
        }
        buf_puts(out, "\">");
        buf_put(out, chars.data, chars.len);
        buf_puts(out, "</text>\n");
        buf_fini(&chars);
        c = e;
    }
}

/* underline and strike: rectangles in the text's colour */
static void row_lines(const TermShot *s, int r, int y0, Pens *p, Buf *out)
{
    const int W = TERM_SVG_CELL_W;
    for (int c = 0; c < s->cols; c++) {
        const Cell *a = cell_at(s, r, c);
        if (!(a->attrs & (A_UNDER | A_STRIKE)))
            continue;
        cell_colours(a, &p->fg, &p->bg);
        const char *fg = (char *)p->fg.data;
        int e = c + 1;
        while (e < s->cols && cell_at(s, r, e)->attrs == a->attrs && cell_at(s, r, e)->fg == a->fg &&
               cell_at(s, r, e)->bg == a->bg)
            e++;
        if (a->attrs & A_UNDER)
            buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"1\" fill=\"%s\"/>\n", c * W, y0 + 16,
                       (e - c) * W, fg);
        /* double: a second line; curly: a dotted second line */
        if (a->attrs & A_UNDER2)
            buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"1\" fill=\"%s\"/>\n", c * W, y0 + 14,
                       (e - c) * W, fg);
        if (a->attrs & A_CURLY)
            buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"1\" fill=\"%s\" "
                            "fill-opacity=\"0.5\"/>\n", c * W, y0 + 17, (e - c) * W, fg);
        if (a->attrs & A_STRIKE)
            buf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"1\" fill=\"%s\"/>\n", c * W, y0 + 9,
                       (e - c) * W, fg);
        c = e - 1;
    }
}

static void pens_init(Pens *p)
{
    buf_init(&p->fg);
    buf_init(&p->bg);
    buf_init(&p->fg2);
    buf_init(&p->bg2);
}

static void pens_fini(Pens *p)
{
    buf_fini(&p->fg);
    buf_fini(&p->bg);
    buf_fini(&p->fg2);
    buf_fini(&p->bg2);
}

void term_svg_write(const TermShot *s, const TermShot *diff, bool standalone, Buf *out)
{
    const int W = TERM_SVG_CELL_W, H = TERM_SVG_CELL_H;
    int pw = s->cols * W, ph = s->rows * H;
    buf_printf(out, "<svg%s width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" class=\"scc-screen\" "
                    "font-family=\"" TERM_SVG_FONTS "\" font-size=\"15\">\n",
               standalone ? " xmlns=\"http://www.w3.org/2000/svg\"" : "", pw, ph, pw, ph);
    buf_printf(out, "<title>%dx%d screen</title>\n", s->rows, s->cols);
    buf_printf(out, "<rect width=\"%d\" height=\"%d\" fill=\"" DEF_BG "\"/>\n", pw, ph);
    Pens p;
    pens_init(&p);
    for (int r = 0; r < s->rows; r++)
        row_bg(s, r, r * H, &p, out);
    /* the cursor: a block under the text, so the character stays legible */
    if (s->cur_visible && s->cur_row < s->rows && s->cur_col < s->cols)
        buf_printf(out, "<rect class=\"cursor\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#4a90d9\" "
                        "fill-opacity=\"0.7\"><title>cursor %d,%d</title></rect>\n",
                   s->cur_col * W, s->cur_row * H, W, H, s->cur_row, s->cur_col);
    for (int r = 0; r < s->rows; r++)
        row_text(s, r, r * H, &p, out);
    for (int r = 0; r < s->rows; r++)
        row_lines(s, r, r * H, &p, out);
    /* differing cells, outlined over everything */
    if (diff) {
        for (int r = 0; r < s->rows; r++)
            for (int c = 0; c < s->cols; c++)
                if (differs(s, diff, r, c))
                    buf_printf(out, "<rect class=\"diff\" x=\"%d.5\" y=\"%d.5\" width=\"%d\" height=\"%d\" "
                                    "fill=\"#ff3030\" fill-opacity=\"0.25\" stroke=\"#ff3030\"/>\n",
                               c * W, r * H, W - 1, H - 1);
    }
    buf_puts(out, "</svg>\n");
    pens_fini(&p);
}

void term_svg_row(const TermShot *s, int row, Buf *out)
{
    if (row < 0 || row >= s->rows)
        return;
    Pens p;
    pens_init(&p);
    row_bg(s, row, 0, &p, out);
    row_text(s, row, 0, &p, out);
    row_lines(s, row, 0, &p, out);
    pens_fini(&p);
}

void term_shot_cursor(const TermShot *s, int *row, int *col, bool *visible, bool *alt)
{
    *row = s->cur_row;
    *col = s->cur_col;
    *visible = s->cur_visible;
    *alt = s->alt;
}

void term_html_begin(const char *title, Buf *out)
{
    buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    term_xml_esc(out, title, strlen(title));
    buf_puts(out, "</title>\n<style>\n"
                  "body{margin:16px;background:#f4f4f4;color:#202020;font:14px system-ui,sans-serif}\n"
                  "h1{font-size:16px;margin:0 0 8px}\n"
                  "section>h2{font-size:15px;margin:16px 0 6px}\n"
                  ".meta{color:#555;margin:0 0 8px}\n"
                  ".side{display:inline-block;vertical-align:top;margin:0 16px 16px 0}\n"
                  ".side h2{font-size:14px;margin:0 0 4px}\n"
                  "svg.scc-screen{display:block;border:1px solid #888}\n"
                  "pre{background:#fff;border:1px solid #ccc;padding:8px;overflow:auto}\n"
                  ".add{color:#0a6a0a}.del{color:#b00000}\n"
                  ".result{display:inline-block;padding:0 6px;border-radius:3px;color:#fff;background:#666}\n"
                  ".result.match,.result.passed{background:#2e7d32}.result.mismatch,.result.missing,"
                  ".result.failed,.result.error,.result.errored{background:#c62828}\n"
                  "</style>\n</head>\n<body>\n");
}

static void put_meta(const TermShot *s, Buf *out)
{
    buf_printf(out, "<p class=\"meta\">%dx%d, cursor %d,%d %s, %s screen</p>\n", s->rows, s->cols, s->cur_row,
               s->cur_col, s->cur_visible ? "visible" : "hidden", s->alt ? "alternate" : "main");
}

void term_html_screen(const TermShot *s, const char *title, Buf *out)
{
    term_html_begin(title, out);
    buf_puts(out, "<h1>");
    term_xml_esc(out, title, strlen(title));
    buf_puts(out, "</h1>\n");
    put_meta(s, out);
    term_svg_write(s, NULL, false, out);
    buf_puts(out, "</body>\n</html>\n");
}

void term_html_diff_text(const char *diff, size_t diff_len, Buf *out)
{
    buf_puts(out, "<pre>");
    const char *p = diff, *end = diff + diff_len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        bool add = *p == '+' && !(le - p >= 3 && memcmp(p, "+++", 3) == 0);
        bool del = *p == '-' && !(le - p >= 3 && memcmp(p, "---", 3) == 0);
        if (add || del)
            buf_printf(out, "<span class=\"%s\">", add ? "add" : "del");
        term_xml_esc(out, p, (size_t)(le - p));
        if (add || del)
            buf_puts(out, "</span>");
        buf_putc(out, '\n');
        p = nl ? nl + 1 : end;
    }
    buf_puts(out, "</pre>\n");
}

void term_html_diff(const TermShot *want, const TermShot *got, const char *title, const char *diff,
                    size_t diff_len, Buf *out)
{
    term_html_begin(title, out);
    buf_puts(out, "<h1>");
    term_xml_esc(out, title, strlen(title));
    buf_puts(out, "</h1>\n");
    int n = term_shot_diff_cells(want, got);
    buf_printf(out, "<p class=\"meta\">%d cell%s differ%s (outlined in red)</p>\n", n, n == 1 ? "" : "s",
               n == 1 ? "s" : "");
    buf_puts(out, "<div class=\"side\" id=\"expected\"><h2>expected (golden)</h2>\n");
    put_meta(want, out);
    term_svg_write(want, got, false, out);
    buf_puts(out, "</div>\n<div class=\"side\" id=\"actual\"><h2>actual</h2>\n");
    put_meta(got, out);
    term_svg_write(got, want, false, out);
    buf_puts(out, "</div>\n");
    if (diff && diff_len) {
        buf_puts(out, "<h2>text diff</h2>\n");
        term_html_diff_text(diff, diff_len, out);
    }
    buf_puts(out, "</body>\n</html>\n");
}
