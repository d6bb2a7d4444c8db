/* SPDX-License-Identifier: MIT */
/* yaml_fast.c - a reader for the YAML that scenario files are written in,
** without libyaml, building the very tree the libyaml path builds.
**
** libyaml allocates for every token and event and copies every scalar
** twice; parsing through it was 60% of compiling a small scenario.  This
** reader walks the text once and hands each node to the tree builder in
** yaml_tree.c (yaml_int.h), which interns, types and checks as it does for
** libyaml's events.  It reads:
**
**   - block mappings and block sequences, including "- key: value" on the
**     sequence entry's line, nested "- - x", and a sequence at its key's
**     indentation ("key:\n- x");
**   - plain, single- and double-quoted scalars, over several lines too
**     (folded as libyaml folds them; double-quoted with the escapes \0 \a \b \t \n \v \f \r \e
**     \space \" \/ \\ \N \_ \L \P \xXX \uXXXX \UXXXXXXXX);
**   - literal and folded block scalars (| > with - or +, no indentation
**     digit), by libyaml's own folding and chomping algorithm;
**   - flow sequences and mappings ([a, b], {k: v}, a trailing comma too),
**     over several lines (JSON), with plain or quoted scalars in them;
**   - comments, blank lines, and a "---" line before the document.
**
** The fallback rule: on anything else (or text that is not well-formed UTF-8), or anything it is not certain to read
** as libyaml does, the reader returns false and yaml_parse() reads the WHOLE
** file again with libyaml.  That includes anchors, aliases, tags,
** directives, "?" keys, a second document or "..." marker, tabs, carriage
** returns and other control characters, the Unicode line separators, a
** block scalar with an
** indentation indicator or no content, an empty value in a flow
** collection, a key longer than 1,000 bytes, indentation libyaml would
** reject, and every error the tree builder would report (duplicate keys,
** merge keys, integers out of range, nesting past YAML_MAX_DEPTH).  So
** every diagnostic still comes from the libyaml path, byte for byte, and
** a file the fast reader accepts has the same tree, positions included, as
** libyaml gives it: tests/compiler/yaml_fast_diff.c checks every YAML file
** of the repository and the corpus, and tests/fuzz/fuzz_yaml_fast.c any
** input. */
#include "yaml_int.h"

#include "common/sc_alloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef struct Fast {
    YSink *sink;
    const char *src, *end;
    const char *p;          /* cursor */
    const char *ls;         /* start of the cursor's line */
    uint32_t line;          /* 1-based line of the cursor */
    bool bad;               /* declined: the caller falls back to libyaml */
    char *buf;              /* scratch for quoted and block scalars' text */
    size_t blen, bcap;
} Fast;

/* Longest simple key, in bytes (libyaml allows 1,024 characters). */
enum { KEY_MAX = 1000 };

static bool stopped(const Fast *F)
{
    return F->bad || !ysink_ok(F->sink);
}

static int bail(Fast *F)
{
    F->bad = true;
    return -2;
}

static bool blankz(const Fast *F, const char *q)
{
    return q >= F->end || *q == ' ' || *q == '\n';
}

enum { HIGH_BITS = 0x8080808080808080u };

/* 1-based column of q on the line that starts at ls (col_of: the
** cursor's line), in characters as libyaml counts them: the bytes before q, unless one of them is not ASCII (the
** test 8 bytes a step: counting a byte a step, this was 6% of compiling
** the corpus files, callgrind). */
static uint32_t col_in(const char *ls, const char *q)
{
    const char *s = ls;
    uint64_t w, any = 0;
    for (; q - s >= 8; s += 8) {
        memcpy(&w, s, 8);
        any |= w;
    }
    for (; s < q; s++)
        any |= (unsigned char)*s;
    if (!(any & HIGH_BITS))
        return (uint32_t)(q - ls) + 1;
    uint32_t c = 1;
    for (s = ls; s < q; s++)
        c += ((unsigned char)*s & 0xc0) != 0x80;
    return c;
}

static uint32_t col_of(const Fast *F, const char *q)
{
    return col_in(F->ls, q);
}

static bool buf_add(Fast *F, const char *s, size_t n)
{
    if (F->blen + n + 1 > F->bcap) {
        size_t cap = F->bcap ? F->bcap : 256;
        while (cap < F->blen + n + 1)
            cap *= 2;
        char *b = sc_realloc(F->buf, cap);
        if (!b) {
            F->bad = true;
            return false;
        }
        F->buf = b;
        F->bcap = cap;
    }
    memcpy(F->buf + F->blen, s, n);
    F->blen += n;
    return true;
}

static bool buf_utf8(Fast *F, uint32_t v)
{
    char u[4];
    size_t n;
    if (v < 0x80) {
        u[0] = (char)v;
        n = 1;
    } else if (v < 0x800) {
        u[0] = (char)(0xc0 | v >> 6);
        u[1] = (char)(0x80 | (v & 0x3f));
        n = 2;
    } else if (v < 0x10000) {
        u[0] = (char)(0xe0 | v >> 12);
        u[1] = (char)(0x80 | ((v >> 6) & 0x3f));
        u[2] = (char)(0x80 | (v & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | v >> 18);
        u[1] = (char)(0x80 | ((v >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((v >> 6) & 0x3f));
        u[3] = (char)(0x80 | (v & 0x3f));
        n = 4;
    }
    return buf_add(F, u, n);
}

/* Moves the cursor from the end of a line (or a line's start) to the first
** character of the next line that holds more than spaces and a comment.
** Returns that line's indentation, or -1 at the end of the text. */
static int next_line(Fast *F)
{
    const char *q = F->p, *end = F->end;
    if (q < end && *q == '\n') {
        q++;
        F->line++;
        F->ls = q;
    }
    for (;;) {
        const char *s = q;
        while (q < end && *q == ' ')
            q++;
        if (q < end && *q == '#') {
            q = memchr(q, '\n', (size_t)(end - q));
            if (!q)
                q = end;
        }
        if (q == end) {
            F->p = q;
            return -1;
        }
        if (*q == '\n') {
            q++;
            F->line++;
            F->ls = q;
            continue;
        }
        F->p = q;
        return (int)(q - s);
    }
}

/* After a node on the cursor's line: only spaces and a comment may follow.
** Leaves the cursor at the line's end. */
static bool rest_of_line(Fast *F)
{
    const char *q = F->p, *end = F->end;
    while (q < end && *q == ' ')
        q++;
    if (q < end && *q != '\n') {
        if (*q != '#' || q == F->p)
            return false;
        q = memchr(q, '\n', (size_t)(end - q));
        if (!q)
            q = end;
    }
    F->p = q;
    return true;
}

/* A plain scalar in block context from the cursor, on this line.  Sets
** *text_end past its last non-space character; returns true when a ':'
** and a space (or the line's end) end it, i.e. when it is a key, with the
** cursor after the ':'; else the cursor is at *text_end. */
static bool scan_plain(Fast *F, const char **text_end)
{
    /* the bytes that can end a plain scalar or its text, skipped past in a
    ** tight loop (a byte at a time through every test was 5.8% of compiling
    ** the corpus files, callgrind) */
    static const bool stop[256] = { [' '] = true, ['\n'] = true, [':'] = true, ['#'] = true };
    const char *q = F->p, *end = F->end, *last = F->p;
    while (q < end) {
        if (!stop[(unsigned char)*q]) {
            while (++q < end && !stop[(unsigned char)*q])
                ;
            last = q;
            continue;
        }
        char c = *q;
        if (c == '\n')
            break;
        if (c == ':' && (q + 1 == end || q[1] == ' ' || q[1] == '\n')) {
            *text_end = last;
            F->p = q + 1;
            return true;
        }
        if (c == '#' && q[-1] == ' ')
            break;
        q++;
        if (c != ' ')
            last = q;
    }
    *text_end = last;
    F->p = last;
    return false;
}

/* Can c start a plain scalar (the cursor at c)?  Indicators are left to libyaml. */
static bool plain_start(const Fast *F, const char *q)
{
    switch (*q) {
    case '-':
        return !blankz(F, q + 1);
    case '?': case ':': case ',': case '[': case ']': case '{': case '}': case '#':
    case '&': case '*': case '!': case '|': case '>': case '\'': case '"': case '%':
    case '@': case '`':
        return false;
    default:
        return true;
    }
}

/* Line breaks inside a quoted scalar, libyaml's way (yaml_parser_scan_flow_scalar):
** the cursor at the first line break; escaped: the break followed a '\'.
** Spaces at the start of the following lines are dropped; a single break
** becomes a space (nothing after an escaped break), each empty line a "\n".
** Continuation lines must be indented past pin.  Leaves the cursor at the
** next line's first non-space character. */
static bool fold_breaks(Fast *F, int pin, bool escaped)
{
    const char *q = F->p, *end = F->end;
    size_t empty = 0;
    for (;;) {
        q++;   /* the '\n' */
        F->line++;
        F->ls = q;
        while (q < end && *q == ' ')
            q++;
        if (q == end)
            return false;
        if (*q != '\n')
            break;
        empty++;
    }
    if ((int)(q - F->ls) <= pin)
        return false;
    if (!escaped && empty == 0 && !buf_add(F, " ", 1))
        return false;
    for (; empty; empty--)
        if (!buf_add(F, "\n", 1))
            return false;
    F->p = q;
    return true;
}

/* A quoted scalar, the cursor at its opening quote; its text goes to
** F->buf.  Leaves the cursor after the closing quote. */
static bool scan_quoted(Fast *F, int pin)
{
    const char *q = F->p + 1, *end = F->end;
    F->blen = 0;
    size_t keep = 0;   /* F->buf's length without the spaces that end a line */
    const char quote = *F->p;
    const bool dq = quote == '"';   /* double-quoted: backslash escapes; single: '' */
    for (;;) {
        const char *s = q;
        while (q < end && *q != quote && !(dq && *q == '\\') && *q != '\n') {
            if (*q != ' ')
                keep = F->blen + (size_t)(q - s) + 1;
            q++;
        }
        if (q == end || !buf_add(F, s, (size_t)(q - s)))
            return false;
        if (*q == '\n') {
            F->blen = keep;
            F->p = q;
            if (!fold_breaks(F, pin, false))
                return false;
            q = F->p;
            keep = F->blen;
            continue;
        }
        if (!dq && q + 1 < end && q[1] == '\'') {
            if (!buf_add(F, "'", 1))
                return false;
            keep = F->blen;
            q += 2;
            continue;
        }
        if (*q == quote) {
            F->p = q + 1;
            return true;
        }
        if (++q == end)
            return false;
        if (*q == '\n') {   /* an escaped line break: the lines join */
            F->p = q;
            if (!fold_breaks(F, pin, true))
                return false;
            q = F->p;
            keep = F->blen;
            continue;
        }
        char e = *q++, one;
        int hex = 0;
        switch (e) {
        case '0': one = '\0'; break;
        case 'a': one = '\a'; break;
        case 'b': one = '\b'; break;
        case 't': one = '\t'; break;
        case 'n': one = '\n'; break;
        case 'v': one = '\v'; break;
        case 'f': one = '\f'; break;
        case 'r': one = '\r'; break;
        case 'e': one = '\x1b'; break;
        case ' ': one = ' '; break;
        case '"': one = '"'; break;
        case '/': one = '/'; break;
        case '\\': one = '\\'; break;
        case 'N': if (!buf_utf8(F, 0x85)) return false; keep = F->blen; continue;
        case '_': if (!buf_utf8(F, 0xa0)) return false; keep = F->blen; continue;
        case 'L': if (!buf_utf8(F, 0x2028)) return false; keep = F->blen; continue;
        case 'P': if (!buf_utf8(F, 0x2029)) return false; keep = F->blen; continue;
        case 'x': hex = 2; break;
        case 'u': hex = 4; break;
        case 'U': hex = 8; break;
        default: return false;
        }
        if (!hex) {
            if (!buf_add(F, &one, 1))
                return false;
            keep = F->blen;
            continue;
        }
        uint32_t v = 0;
        for (int i = 0; i < hex; i++, q++) {
            if (q == end)
                return false;
            char h = *q;
            int d = h >= '0' && h <= '9' ? h - '0'
                  : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
            if (d < 0)
                return false;
            v = v << 4 | (uint32_t)d;
        }
        if ((v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff || !buf_utf8(F, v))
            return false;
        keep = F->blen;
    }
}

static int node(Fast *F, int pin, bool after_key, int depth);

/* A literal or folded block scalar, the cursor at its indicator; pin is the
** indentation of the enclosing block collection (-1 at the root).  The
** folding and chomping are libyaml's (yaml_parser_scan_block_scalar). */
static int block_scalar(Fast *F, int pin)
{
    uint32_t line = F->line, col = col_of(F, F->p);
    bool literal = *F->p == '|';
    int chomp = 0;
    F->p++;
    if (F->p < F->end && (*F->p == '-' || *F->p == '+'))
        chomp = *F->p++ == '-' ? -1 : 1;
    if (!blankz(F, F->p) || !rest_of_line(F) || F->p == F->end)
        return bail(F);
    const char *q = F->p + 1, *end = F->end;
    F->line++;
    F->ls = q;
    /* Leading empty lines; the first line with content sets the indentation. */
    int max_blank = 0, n_lead = 0, ind;
    for (;;) {
        const char *s = q;
        while (q < end && *q == ' ')
            q++;
        ind = (int)(q - s);
        if (q == end)
            return bail(F);   /* no content: rare, left to libyaml */
        if (*q != '\n')
            break;
        if (ind > max_blank)
            max_blank = ind;
        n_lead++;
        q++;
        F->line++;
        F->ls = q;
    }
    int min = pin + 1 > 1 ? pin + 1 : 1;
    if (max_blank > ind || ind < min)
        return bail(F);
    F->blen = 0;
    for (int i = 0; i < n_lead; i++)
        if (!buf_add(F, "\n", 1))
            return -2;
    /* trailing: the empty lines since the last content line, as "\n"s in a
    ** count; leading: whether that content line ended with a line break. */
    size_t trailing = (size_t)n_lead;
    bool leading_break = false, leading_blank = false, first = true;
    const char *stop = NULL;
    for (;;) {
        /* q is at a content line, past its ind spaces */
        bool trailing_blank = q < end && *q == ' ';
        if (!literal && leading_break && !leading_blank && !trailing_blank) {
            if (trailing == 0 && !buf_add(F, " ", 1))
                return -2;
        } else if (leading_break && !buf_add(F, "\n", 1)) {
            return -2;
        }
        if (!first)
            for (; trailing; trailing--)
                if (!buf_add(F, "\n", 1))
                    return -2;
        trailing = 0;
        first = false;
        leading_blank = trailing_blank;
        const char *s = q;
        q = memchr(q, '\n', (size_t)(end - q));
        if (!q)
            q = end;
        if (!buf_add(F, s, (size_t)(q - s)))
            return -2;
        if (q == end) {
            leading_break = false;
            stop = end;
            break;
        }
        leading_break = true;
        q++;
        F->line++;
        F->ls = q;
        /* empty lines: up to ind spaces, then a line break */
        for (;;) {
            const char *l = q;
            while (q < end && *q == ' ' && q - l < ind)
                q++;
            if (q < end && *q == '\n') {
                trailing++;
                q++;
                F->line++;
                F->ls = q;
                continue;
            }
            if (q == end || q - l < ind)
                stop = l;
            break;
        }
        if (stop)
            break;
    }
    if (chomp != -1 && leading_break && !buf_add(F, "\n", 1))
        return -2;
    if (chomp == 1)
        for (; trailing; trailing--)
            if (!buf_add(F, "\n", 1))
                return -2;
    ysink_scalar(F->sink, F->buf, F->blen, literal ? YS_LITERAL : YS_FOLDED, line, col);
    if (stopped(F))
        return -2;
    F->p = stop;
    if (stop == end)
        return -1;
    return next_line(F);
}

/* Spaces, line breaks and comments inside a flow collection; continuation
** lines must be indented past the enclosing block collection (pin). */
static bool flow_space(Fast *F, int pin)
{
    const char *q = F->p, *end = F->end;
    bool crossed = false;
    for (;;) {
        const char *s = q;
        while (q < end && *q == ' ')
            q++;
        if (q < end && *q == '#') {
            if (q == s && q != F->ls)
                return false;   /* libyaml takes "a,#b" as a comment, YAML does not */
            q = memchr(q, '\n', (size_t)(end - q));
            if (!q)
                q = end;
        }
        if (q == end)
            return false;   /* unterminated */
        if (*q == '\n') {
            q++;
            F->line++;
            F->ls = q;
            crossed = true;
            continue;
        }
        if (crossed && (int)(q - F->ls) <= pin)
            return false;
        F->p = q;
        return true;
    }
}

/* A plain scalar inside a flow collection, on one line. */
static bool flow_plain(Fast *F)
{
    const char *q = F->p, *end = F->end, *last = F->p;
    if (!plain_start(F, q) || (*q == '-' && q + 1 < end && strchr(",[]{}", q[1])))
        return false;
    uint32_t col = col_of(F, q);
    while (q < end) {
        char c = *q;
        if (c == '\n' || c == ',' || c == '[' || c == ']' || c == '{' || c == '}')
            break;
        if (c == ':') {
            if (q + 1 < end && q[1] != ' ' && q[1] != '\n')
                return false;
            break;
        }
        if (c == '?' || (c == '#' && q[-1] == ' '))
            return false;
        q++;
        if (c != ' ')
            last = q;
    }
    ysink_scalar(F->sink, F->p, (size_t)(last - F->p), YS_PLAIN, F->line, col);
    F->p = q;
    return !stopped(F);
}

static bool flow_node(Fast *F, int pin, int depth);

/* After a flow entry: ',' and another entry (1), or the closing bracket,
** after a ',' too (0: "[a, b,]" has two entries, in libyaml as in YAML). */
static int flow_next(Fast *F, int pin, char close)
{
    if (!flow_space(F, pin))
        return -1;
    if (*F->p == close) {
        F->p++;
        return 0;
    }
    if (*F->p != ',')
        return -1;
    F->p++;
    if (!flow_space(F, pin))
        return -1;
    if (*F->p == close) {   /* a trailing comma */
        F->p++;
        return 0;
    }
    if (*F->p == ',' || *F->p == ']' || *F->p == '}')
        return -1;
    return 1;
}

static bool flow_node(Fast *F, int pin, int depth)
{
    if (depth > YAML_MAX_DEPTH)
        return false;
    const char *q = F->p;
    uint32_t line = F->line, col = col_of(F, q);
    if (*q == '\'' || *q == '"') {
        if (!scan_quoted(F, pin))
            return false;
        ysink_scalar(F->sink, F->buf, F->blen, *q == '"' ? YS_DOUBLE : YS_SINGLE, line, col);
        return !stopped(F);
    }
    if (*q != '[' && *q != '{')
        return flow_plain(F);
    bool map = *q == '{';
    char close = map ? '}' : ']';
    ysink_open(F->sink, map ? YN_MAP : YN_SEQ, true, line, col);
    F->p++;
    if (stopped(F) || !flow_space(F, pin))
        return false;
    if (*F->p == close) {
        F->p++;
        ysink_close(F->sink);
        return !stopped(F);
    }
    for (;;) {
        if (map) {
            /* key: a scalar, then ':' and a space or line break, on
            ** one line and within libyaml's simple-key length */
            const char *k = F->p;
            uint32_t kline = F->line;
            if (*k == '[' || *k == '{' || !flow_node(F, pin, depth + 1))
                return false;
            /* after a quoted key, ':' needs no space ({"a":1}, as JSON is
            ** often written) */
            bool quoted = *k == '"' || *k == '\'';
            if (!flow_space(F, pin) || *F->p != ':' || (!quoted && !blankz(F, F->p + 1)) ||
                F->line != kline || F->p - k > KEY_MAX)
                return false;
            F->p++;
            if (!flow_space(F, pin) || *F->p == ',' || *F->p == '}' || *F->p == ']')
                return false;
            if (!flow_node(F, pin, depth + 1))
                return false;
        } else {
            if (!flow_node(F, pin, depth + 1))
                return false;
            if (!flow_space(F, pin) || *F->p == ':')
                return false;   /* "[a: b]" is a one-pair mapping */
        }
        int r = flow_next(F, pin, close);
        if (r < 0)
            return false;
        if (r == 0)
            break;
    }
    ysink_close(F->sink);
    return !stopped(F);
}

static int block_seq(Fast *F, int c, bool indentless, int depth);

/* The value after a sequence item's '-' or a key's ':' (the cursor just
** after it) in a block collection at column c: on the same line, on deeper
** lines, after a key an indentless sequence, or else an empty scalar at
** the place after the indicator (its column counted only for one).  As
** node, returns the next content line's indentation, -1 at the end, -2 to
** decline. */
static int item_value(Fast *F, int c, bool after_key, int depth)
{
    uint32_t eline = F->line;
    const char *e = F->p, *els = F->ls;
    while (F->p < F->end && *F->p == ' ')
        F->p++;
    if (F->p < F->end && *F->p != '\n' && *F->p != '#')
        return node(F, c, after_key, depth + 1);
    int n = next_line(F);
    if (n > c)
        return node(F, c, false, depth + 1);
    if (after_key && n == c && *F->p == '-' && blankz(F, F->p + 1))
        return block_seq(F, c, true, depth + 1);
    ysink_scalar(F->sink, "", 0, YS_PLAIN, eline, col_in(els, e));
    return stopped(F) ? -2 : n;
}

/* A block sequence whose first '-' is at the cursor, column c. */
static int block_seq(Fast *F, int c, bool indentless, int depth)
{
    ysink_open(F->sink, YN_SEQ, false, F->line, col_of(F, F->p));
    if (stopped(F))
        return -2;
    for (;;) {
        F->p++;   /* the '-' */
        int n = item_value(F, c, false, depth);
        if (n < -1 || stopped(F))
            return -2;
        if (n == c && *F->p == '-' && blankz(F, F->p + 1))
            continue;
        if (n > c || (n == c && !indentless))
            return bail(F);
        ysink_close(F->sink);
        return stopped(F) ? -2 : n;
    }
}

/* A key on the cursor's line: a plain or quoted scalar, then ':' and a
** space or the line's end.  Returns false (cursor unchanged) when the line
** does not start with a key. */
static bool scan_key(Fast *F, bool *quoted, const char **text, size_t *len)
{
    const char *start = F->p, *ls = F->ls;
    uint32_t line = F->line;
    if (*start == '\'' || *start == '"') {
        if (!scan_quoted(F, -1) || F->line != line) {
            F->p = start;
            F->line = line;
            F->ls = ls;
            return false;
        }
        const char *q = F->p;
        while (q < F->end && *q == ' ')
            q++;
        if (q < F->end && *q == ':' && blankz(F, q + 1) && q - start <= KEY_MAX) {
            F->p = q + 1;
            *quoted = true;
            *text = F->buf;
            *len = F->blen;
            return true;
        }
        F->p = start;
        return false;
    }
    const char *te;
    if (!plain_start(F, start) || !scan_plain(F, &te) || F->p - start > KEY_MAX) {
        F->p = start;
        return false;
    }
    *quoted = false;
    *text = start;
    *len = (size_t)(te - start);
    return true;
}

/* A block mapping whose first key is at the cursor, column c. */
static int block_map(Fast *F, int c, int depth)
{
    ysink_open(F->sink, YN_MAP, false, F->line, col_of(F, F->p));
    if (stopped(F))
        return -2;
    for (;;) {
        const char *k = F->p, *text;
        uint32_t kline = F->line;
        size_t len;
        bool quoted;
        if (!scan_key(F, &quoted, &text, &len))
            return bail(F);
        ysink_scalar(F->sink, text, len, quoted ? (*k == '"' ? YS_DOUBLE : YS_SINGLE) : YS_PLAIN,
                     kline, col_of(F, k));
        if (stopped(F))
            return -2;
        int n = item_value(F, c, true, depth);
        if (n < -1 || stopped(F))
            return -2;
        if (n == c)
            continue;
        if (n > c)
            return bail(F);
        ysink_close(F->sink);
        return stopped(F) ? -2 : n;
    }
}

/* A plain scalar in block context whose first line is [q, te) (the
** cursor at te), and its continuation lines: those indented past pin, up
** to a comment, joined libyaml's way (yaml_parser_scan_plain_scalar): one
** line break becomes a space, each empty line a "\n".  Returns like node(). */
static int plain_lines(Fast *F, int pin, const char *q, const char *te)
{
    uint32_t line = F->line, col = col_of(F, q);
    const char *end = F->end;
    bool multi = false;
    for (;;) {
        const char *r = F->p;
        while (r < end && *r == ' ')
            r++;
        if (r == end || *r != '\n')
            break;   /* the end, or a comment: the scalar ends on this line */
        const char *a = r, *lstart = r;
        uint32_t lines = 0;
        size_t empty = 0;
        for (;;) {
            a++;
            lines++;
            lstart = a;
            while (a < end && *a == ' ')
                a++;
            if (a < end && *a == '\n') {
                empty++;
                continue;
            }
            break;
        }
        if (a == end || *a == '#' || (int)(a - lstart) <= pin)
            break;
        if (!plain_start(F, a))
            return bail(F);
        if (!multi) {
            F->blen = 0;
            if (!buf_add(F, q, (size_t)(te - q)))
                return -2;
            multi = true;
        }
        if (empty == 0 && !buf_add(F, " ", 1))
            return -2;
        for (; empty; empty--)
            if (!buf_add(F, "\n", 1))
                return -2;
        F->line += lines;
        F->ls = lstart;
        F->p = a;
        const char *te2;
        if (scan_plain(F, &te2))
            return bail(F);   /* a ':' on a continuation line */
        if (!buf_add(F, a, (size_t)(te2 - a)))
            return -2;
    }
    if (multi)
        ysink_scalar(F->sink, F->buf, F->blen, YS_PLAIN, line, col);
    else
        ysink_scalar(F->sink, q, (size_t)(te - q), YS_PLAIN, line, col);
    if (stopped(F) || !rest_of_line(F))
        return bail(F);
    return next_line(F);
}

/* The node at the cursor; pin is the enclosing block collection's
** indentation (-1 at the root), after_key whether the node follows "key:"
** on its line.  Returns the indentation of the next content line (the
** cursor at its first character), -1 at the end, -2 to decline. */
static int node(Fast *F, int pin, bool after_key, int depth)
{
    if (depth > YAML_MAX_DEPTH)
        return bail(F);
    const char *q = F->p;
    int c = (int)(q - F->ls);
    switch (*q) {
    case '-':
        if (blankz(F, q + 1))
            return after_key ? bail(F) : block_seq(F, c, false, depth);
        break;
    case '|': case '>':
        return block_scalar(F, pin);
    case '[': case '{':
        if (!flow_node(F, pin, depth) || !rest_of_line(F))
            return bail(F);
        return next_line(F);
    case '\'': case '"': {
        if (!after_key) {
            bool quoted;
            const char *text;
            size_t len;
            if (scan_key(F, &quoted, &text, &len)) {
                F->p = q;
                return block_map(F, c, depth);
            }
        }
        uint32_t line = F->line, col = col_of(F, q);
        if (!scan_quoted(F, pin))
            return bail(F);
        ysink_scalar(F->sink, F->buf, F->blen, *q == '"' ? YS_DOUBLE : YS_SINGLE, line, col);
        if (stopped(F) || !rest_of_line(F))
            return bail(F);
        return next_line(F);
    }
    default:
        break;
    }
    if (!plain_start(F, q))
        return bail(F);
    const char *te;
    if (scan_plain(F, &te)) {
        if (after_key)
            return bail(F);   /* "a: b: c" */
        F->p = q;
        return block_map(F, c, depth);
    }
    return plain_lines(F, pin, q, te);
}

static bool doc_marker(const char *q, const char *end)
{
    return end - q >= 3 && (!memcmp(q, "---", 3) || !memcmp(q, "...", 3)) &&
           (end - q == 3 || q[3] == ' ' || q[3] == '\n');
}

/* Well-formed UTF-8 (what check_encoding() in yaml_tree.c wants, which the
** fast path does not run: this pass does its work) without the characters
** libyaml rejects or treats specially: tabs, CR, other C0 and C1 controls,
** DEL, BOM, the U+2028/2029 line breaks, U+FFFE/FFFF; and no document
** marker at a line's start other than the allowed first "---" line. */
static bool plain_text(const char *src, const char *end, const char *allowed)
{
    const unsigned char *q = (const unsigned char *)src, *e = (const unsigned char *)end;
    if ((const char *)q != allowed && doc_marker(src, end))
        return false;
    for (; q < e; q++) {
        /* 8 bytes a step while they are all printable ASCII (0x20-0x7e:
        ** no high bit, none below 0x20, none that 1 takes to 0x80), the
        ** bulk of the text; a byte a step from a line break or anything
        ** else (this pass was 4.7% of compiling the corpus files) */
        uint64_t w;
        while (e - q >= 8 && (memcpy(&w, q, 8),
                              !((w | (w - 0x2020202020202020u) | (w + 0x0101010101010101u)) & HIGH_BITS)))
            q += 8;
        if (q == e)
            break;
        unsigned c = *q;
        if (c >= 0x20 && c < 0x7f)
            continue;
        if (c == '\n') {
            if ((const char *)q + 1 != allowed && doc_marker((const char *)q + 1, end))
                return false;
            continue;
        }
        if (c < 0xc2 || c > 0xf4)
            return false;   /* controls, DEL, a stray continuation byte, overlong or out of range */
        unsigned c1 = q + 1 < e ? q[1] : 0, c2 = q + 2 < e ? q[2] : 0, c3 = q + 3 < e ? q[3] : 0;
        if ((c1 & 0xc0) != 0x80)
            return false;
        if (c < 0xe0) {
            if (c == 0xc2 && c1 < 0xa0)
                return false;   /* C1 controls, NEL */
            q += 1;
            continue;
        }
        if ((c2 & 0xc0) != 0x80)
            return false;
        if (c < 0xf0) {
            if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) ||
                (c == 0xe2 && c1 == 0x80 && (c2 == 0xa8 || c2 == 0xa9)) ||
                (c == 0xef && ((c1 == 0xbb && c2 == 0xbf) || (c1 == 0xbf && c2 >= 0xbe))))
                return false;   /* overlong, surrogates, line separators, BOM, non-characters */
            q += 2;
            continue;
        }
        if ((c3 & 0xc0) != 0x80 || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90))
            return false;
        q += 3;
    }
    return true;
}

bool yaml_fast_read(YSink *sink, const char *src, size_t len)
{
    Fast F = { .sink = sink, .src = src, .end = src + len, .p = src, .ls = src, .line = 1 };
    int n = next_line(&F);
    const char *allowed = NULL;
    if (n == 0 && doc_marker(F.p, F.end) && F.p[0] == '-') {
        allowed = F.p;
        F.p += 3;
        if (!rest_of_line(&F))
            return false;
        n = next_line(&F);
    }
    if (!plain_text(src, F.end, allowed))
        return false;
    if (n >= 0)
        n = node(&F, -1, false, 0);
    sc_free(F.buf);
    return n == -1 && !stopped(&F);
}
