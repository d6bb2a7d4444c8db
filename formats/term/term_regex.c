/* SPDX-License-Identifier: MIT */
/* term_regex.c - recursive-descent compiler to NFA code, and a Pike VM
** that advances all threads in lock step over the text (O(text x code)).
** Jumps are relative, so a fragment can be moved (to insert the SPLIT of a
** quantifier before it) or copied (for {m,n}) without fix-ups. */
#include "term_regex.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/sc_alloc.h"

enum { RE_MAX_PAT = 1000, RE_MAX_CODE = 20000, RE_MAX_REP = 100 };

typedef enum { I_CHAR, I_ANY, I_CLASS, I_SPLIT, I_JMP, I_BOL, I_EOL, I_BOT, I_EOT, I_WORDB, I_MATCH } IOp;

typedef struct Insn {
    uint8_t op;
    bool neg;               /* CLASS: negated */
    int32_t x, y;           /* CHAR: code point; SPLIT/JMP: relative targets; CLASS: range index, count;
                            ** WORDB: 1 for \b (a boundary), 0 for \B (none) */
} Insn;

typedef struct Range { uint32_t lo, hi; } Range;

struct TermRegex {
    Insn *code;
    int n, cap;
    Range *ranges;
    int n_ranges, cap_ranges;
    bool icase, multiline, dotall;
};

typedef struct P {
    TermRegex *re;
    const char *s;
    size_t i, len;
    char *err;
    size_t errlen;
    bool failed;
    int depth;
} P;

static void fail(P *p, const char *msg)
{
    if (!p->failed)
        snprintf(p->err, p->errlen, "%s at offset %zu", msg, p->i);
    p->failed = true;
}

static int emit(P *p, IOp op, int32_t x, int32_t y)
{
    TermRegex *re = p->re;
    if (re->n >= RE_MAX_CODE) {
        fail(p, "pattern too large");
        return -1;
    }
    if (re->n == re->cap) {
        int cap = re->cap ? re->cap * 2 : 64;
        Insn *c = sc_realloc(re->code, (size_t)cap * sizeof *c);
        if (!c) {
            fail(p, "out of memory");
            return -1;
        }
        re->code = c;
        re->cap = cap;
    }
    Insn in = { (uint8_t)op, false, x, y };
    re->code[re->n] = in;
    return re->n++;
}

/* Inserts one blank instruction at `at`, moving [at, n) up by one. */
static bool insert_at(P *p, int at)
{
    if (emit(p, I_JMP, 1, 0) < 0)
        return false;
    TermRegex *re = p->re;
    memmove(re->code + at + 1, re->code + at, (size_t)(re->n - 1 - at) * sizeof *re->code);
    return true;
}

static bool add_range(P *p, uint32_t lo, uint32_t hi)
{
    TermRegex *re = p->re;
    if (re->n_ranges == re->cap_ranges) {
        int cap = re->cap_ranges ? re->cap_ranges * 2 : 32;
        Range *r = sc_realloc(re->ranges, (size_t)cap * sizeof *r);
        if (!r) {
            fail(p, "out of memory");
            return false;
        }
        re->ranges = r;
        re->cap_ranges = cap;
    }
    re->ranges[re->n_ranges].lo = lo;
    re->ranges[re->n_ranges++].hi = hi;
    return true;
}

/* Decodes the code point at s[*i] (valid UTF-8 assumed; bad bytes stand
** for themselves). */
static uint32_t next_cp(const char *s, size_t len, size_t *i)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c = u[*i];
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    if (n == 1 || *i + n > len) {
        (*i)++;
        return c;
    }
    c &= n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07;
    for (size_t k = 1; k < n; k++)
        c = c << 6 | (u[*i + k] & 0x3F);
    *i += n;
    return c;
}

/* Adds the ranges of a class escape (\d \w \s); returns false if c is not one. */
static bool class_escape(P *p, char c)
{
    switch (c) {
    case 'd':
        return add_range(p, '0', '9');
    case 'w':
        return add_range(p, '0', '9') && add_range(p, 'A', 'Z') && add_range(p, 'a', 'z') &&
               add_range(p, '_', '_');
    case 's':
        return add_range(p, ' ', ' ') && add_range(p, '\t', '\r');
    default:
        return false;
    }
}

/* n hex digits at p->i (braced when n is 0: "{1F600}"); the code point. */
static uint32_t hex_escape(P *p, int n, const char *what)
{
    bool braced = n == 0;
    if (braced) {
        if (p->i >= p->len || p->s[p->i] != '{') {
            fail(p, what);
            return 0;
        }
        p->i++;
        n = 6;
    }
    uint32_t v = 0;
    int k = 0;
    for (; k < n && p->i < p->len; k++) {
        char h = p->s[p->i];
        int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (d < 0)
            break;
        v = v << 4 | (uint32_t)d;
        p->i++;
    }
    if (braced ? (k == 0 || p->i >= p->len || p->s[p->i] != '}') : k != n) {
        fail(p, what);
        return 0;
    }
    if (braced)
        p->i++;
    if (v > 0x10FFFF) {
        fail(p, "a code point beyond U+10FFFF");
        return 0;
    }
    return v;
}

/* The character of the escape \c, p->i just past c (hex escapes read on). */
static uint32_t escape_char(P *p, char c)
{
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'v': return '\v';
    case 'e': return 0x1B;
    case 'x':
        return p->i < p->len && p->s[p->i] == '{' ? hex_escape(p, 0, "\\x{...} needs hex digits and a '}'")
                                                  : hex_escape(p, 2, "\\x needs two hex digits (\\x41) or braces (\\x{1F600})");
    case 'u':
        return hex_escape(p, 4, "\\u needs four hex digits (\\u00e9)");
    default:
        if (c >= '1' && c <= '9')
            fail(p, "backreferences (\\1) are not supported");
        else if (c == 'p' || c == 'P')
            fail(p, "Unicode property classes (\\p{...}) are not supported");
        else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            fail(p, "unsupported escape");
        return (uint32_t)(unsigned char)c;
    }
}

/* [:name:] inside a class (p->i at its '['): the POSIX classes, ASCII. */
static bool posix_class(P *p)
{
    static const struct {
        const char *name;
        const char *ranges;   /* pairs lo,hi */
    } K[] = {
        { "alpha", "AZaz" }, { "digit", "09" }, { "alnum", "09AZaz" }, { "upper", "AZ" }, { "lower", "az" },
        { "space", "  \t\r" }, { "blank", "  \t\t" }, { "punct", "!/:@[`{~" }, { "xdigit", "09AFaf" },
        { "word", "09AZ__az" }, { "cntrl", "\x01\x1f\x7f\x7f" }, { "print", " ~" }, { "graph", "!~" },
    };
    size_t i = p->i + 2, e = i;
    while (e < p->len && p->s[e] >= 'a' && p->s[e] <= 'z')
        e++;
    if (e + 1 >= p->len || p->s[e] != ':' || p->s[e + 1] != ']') {
        fail(p, "a POSIX class is written [:name:] inside brackets ([[:alpha:]])");
        return false;
    }
    for (size_t k = 0; k < sizeof K / sizeof K[0]; k++) {
        if (strlen(K[k].name) != e - i || memcmp(K[k].name, p->s + i, e - i) != 0)
            continue;
        for (const char *r = K[k].ranges; r[0] && r[1]; r += 2)
            add_range(p, (unsigned char)r[0], (unsigned char)r[1]);
        p->i = e + 2;
        return true;
    }
    fail(p, "unknown POSIX class (alpha, digit, alnum, upper, lower, space, blank, punct, xdigit, word, cntrl, "
            "print, graph)");
    return false;
}

static void parse_alt(P *p);

static void parse_class(P *p)
{
    int first = p->re->n_ranges;
    bool neg = false;
    if (p->i < p->len && p->s[p->i] == '^') {
        neg = true;
        p->i++;
    }
    bool any = false;
    while (!p->failed) {
        if (p->i >= p->len) {
            fail(p, "unterminated '['");
            return;
        }
        if (p->s[p->i] == ']' && any) {
            p->i++;
            break;
        }
        any = true;
        uint32_t lo;
        if (p->s[p->i] == '[' && p->i + 1 < p->len && (p->s[p->i + 1] == '=' || p->s[p->i + 1] == '.')) {
            fail(p, "collating elements and equivalence classes ([[=a=]], [[.a.]]) are not supported");
            return;
        }
        if (p->s[p->i] == '[' && p->i + 1 < p->len && p->s[p->i + 1] == ':') {
            posix_class(p);
            continue;
        }
        if (p->s[p->i] == '\\' && p->i + 1 < p->len) {
            char e = p->s[p->i + 1];
            p->i += 2;
            if (e == 'd' || e == 'w' || e == 's') {
                class_escape(p, e);
                continue;
            }
            lo = escape_char(p, e);
        } else {
            lo = next_cp(p->s, p->len, &p->i);
        }
        uint32_t hi = lo;
        if (p->i + 1 < p->len && p->s[p->i] == '-' && p->s[p->i + 1] != ']') {
            p->i++;
            if (p->s[p->i] == '\\' && p->i + 1 < p->len) {
                char e2 = p->s[p->i + 1];
                p->i += 2;
                hi = escape_char(p, e2);
            } else {
                hi = next_cp(p->s, p->len, &p->i);
            }
            if (hi < lo)
                fail(p, "invalid class range");
        }
        add_range(p, lo, hi);
    }
    int at = emit(p, I_CLASS, first, p->re->n_ranges - first);
    if (at >= 0)
        p->re->code[at].neg = neg;
}

/* Emits one atom; returns its first instruction index, or -1 for none. */
static int parse_atom(P *p)
{
    int start = p->re->n;
    char c = p->s[p->i];
    switch (c) {
    case '(':
        p->i++;
        if (++p->depth > 100) {
            fail(p, "nesting too deep");
            return -1;
        }
        if (p->i < p->len && p->s[p->i] == '?') {
            /* (?:...), and named groups (?P<name>...) (?<name>...) as
            ** groups (nothing is captured); the rest is refused by name */
            const char *g = p->s + p->i + 1;
            size_t left = p->len - p->i - 1;
            if (left >= 1 && g[0] == ':') {
                p->i += 2;
            } else if ((left >= 2 && g[0] == 'P' && g[1] == '<') || (left >= 2 && g[0] == '<' && g[1] != '=' && g[1] != '!')) {
                size_t k = g[0] == 'P' ? 2 : 1, n0 = k;
                while (k < left && (g[k] == '_' || (g[k] >= 'a' && g[k] <= 'z') || (g[k] >= 'A' && g[k] <= 'Z') ||
                                    (k > n0 && g[k] >= '0' && g[k] <= '9')))
                    k++;
                if (k == n0 || k >= left || g[k] != '>') {
                    fail(p, "a named group is (?P<name>...) or (?<name>...), the name of letters, digits and '_'");
                    return -1;
                }
                p->i += 1 + k + 1;
            } else if (left >= 1 && (g[0] == '=' || g[0] == '!')) {
                fail(p, "lookahead (?=...) (?!...) is not supported");
                return -1;
            } else if (left >= 2 && g[0] == '<' && (g[1] == '=' || g[1] == '!')) {
                fail(p, "lookbehind (?<=...) (?<!...) is not supported");
                return -1;
            } else if (left >= 2 && g[0] == 'P' && g[1] == '=') {
                fail(p, "backreferences (?P=name) are not supported");
                return -1;
            } else if (left >= 1 && strchr("imsx-", g[0])) {
                fail(p, "inline flags (?i) (?m) (?s) go at the start of the pattern and apply to all of it; "
                        "(?i:...) and flags in the middle are not supported");
                return -1;
            } else {
                fail(p, "unsupported group '(?'");
                return -1;
            }
        }
        parse_alt(p);
        p->depth--;
        if (p->i >= p->len || p->s[p->i] != ')') {
            fail(p, "missing ')'");
            return -1;
        }
        p->i++;
        break;
    case '.':
        p->i++;
        emit(p, I_ANY, 0, 0);
        break;
    case '[':
        p->i++;
        parse_class(p);
        break;
    case '^':
        p->i++;
        emit(p, I_BOL, 0, 0);
        break;
    case '$':
        p->i++;
        emit(p, I_EOL, 0, 0);
        break;
    case '\\':
        if (p->i + 1 >= p->len) {
            fail(p, "trailing '\\'");
            return -1;
        }
        c = p->s[p->i + 1];
        p->i += 2;
        if (c == 'b' || c == 'B') {
            emit(p, I_WORDB, c == 'b', 0);
        } else if (c == 'A') {
            emit(p, I_BOT, 0, 0);
        } else if (c == 'z' || c == 'Z') {
            emit(p, I_EOT, 0, 0);
        } else if (c == 'd' || c == 'w' || c == 's' || c == 'D' || c == 'W' || c == 'S') {
            int first = p->re->n_ranges;
            class_escape(p, (char)(c | 0x20));
            int at = emit(p, I_CLASS, first, p->re->n_ranges - first);
            if (at >= 0)
                p->re->code[at].neg = c < 'a';
        } else {
            emit(p, I_CHAR, (int32_t)escape_char(p, c), 0);
        }
        break;
    case '*':
    case '+':
    case '?':
    case '{':
        fail(p, "quantifier without an operand");
        return -1;
    default:
        emit(p, I_CHAR, (int32_t)next_cp(p->s, p->len, &p->i), 0);
        break;
    }
    return start;
}

/* Reads {m}, {m,}, {m,n}; returns false (consuming nothing) if not one. */
static bool parse_braces(P *p, int *m, int *n)
{
    size_t i = p->i + 1;
    int a = 0, b = -1, digits = 0;
    while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9' && digits < 4)
        a = a * 10 + (p->s[i++] - '0'), digits++;
    if (!digits)
        return false;
    if (i < p->len && p->s[i] == ',') {
        i++;
        int d2 = 0;
        b = 0;
        while (i < p->len && p->s[i] >= '0' && p->s[i] <= '9' && d2 < 4)
            b = b * 10 + (p->s[i++] - '0'), d2++;
        if (!d2)
            b = -2;         /* unbounded */
    } else {
        b = a;
    }
    if (i >= p->len || p->s[i] != '}')
        return false;
    p->i = i + 1;
    *m = a;
    *n = b;
    return true;
}

static void parse_repeat(P *p)
{
    int start = parse_atom(p);
    while (!p->failed && start >= 0 && p->i < p->len) {
        char q = p->s[p->i];
        int m, n;
        if (q == '*' || q == '+' || q == '?') {
            p->i++;
            /* lazy (e*?): the same language, but a SPLIT's first branch
            ** wins, so term_regex_find's match ends as early as it can */
            bool lazy = p->i < p->len && p->s[p->i] == '?';
            p->i += lazy;
            int end = p->re->n;
            if (q == '+') {
                /* e+ : L: e; SPLIT L, next */
                int at = emit(p, I_SPLIT, 0, 1);
                if (at >= 0) {
                    p->re->code[at].x = lazy ? 1 : start - at;
                    p->re->code[at].y = lazy ? start - at : 1;
                }
            } else {
                /* e* : L: SPLIT 1, +len+2; e; JMP L      e? : SPLIT 1, +len+1; e */
                if (!insert_at(p, start))
                    return;
                int len = end - start, skip = q == '*' ? len + 2 : len + 1;
                Insn sp = { I_SPLIT, false, lazy ? skip : 1, lazy ? 1 : skip };
                p->re->code[start] = sp;
                if (q == '*') {
                    int at = emit(p, I_JMP, 0, 0);
                    if (at >= 0)
                        p->re->code[at].x = start - at;
                }
            }
        } else if (q == '{' && parse_braces(p, &m, &n)) {
            if (m > RE_MAX_REP || n > RE_MAX_REP || (n >= 0 && n < m)) {
                fail(p, "invalid or too large repetition");
                return;
            }
            /* e{m,n}? is lazy, as in Rust's regex (until masks needed
            ** match positions, the '?' made the whole repetition optional) */
            bool lazy = p->i < p->len && p->s[p->i] == '?';
            p->i += lazy;
            int len = p->re->n - start;
            /* copies: e{m} then (n-m) optional copies, or e* for {m,} */
            Insn *frag = sc_malloc((size_t)(len ? len : 1) * sizeof *frag);
            if (!frag) {
                fail(p, "out of memory");
                return;
            }
            memcpy(frag, p->re->code + start, (size_t)len * sizeof *frag);
            p->re->n = start;
            for (int k = 0; k < m && !p->failed; k++)
                for (int j = 0; j < len; j++)
                    if (emit(p, frag[j].op, frag[j].x, frag[j].y) >= 0)
                        p->re->code[p->re->n - 1].neg = frag[j].neg;
            int opt = n == -2 ? 1 : n - m;
            for (int k = 0; k < opt && !p->failed; k++) {
                int skip = n == -2 ? len + 2 : len + 1;
                int s0 = emit(p, I_SPLIT, lazy ? skip : 1, lazy ? 1 : skip);
                for (int j = 0; j < len; j++)
                    if (emit(p, frag[j].op, frag[j].x, frag[j].y) >= 0)
                        p->re->code[p->re->n - 1].neg = frag[j].neg;
                if (n == -2) {
                    int at = emit(p, I_JMP, 0, 0);
                    if (at >= 0 && s0 >= 0)
                        p->re->code[at].x = s0 - at;
                }
            }
            sc_free(frag);
        } else {
            break;
        }
    }
}

static void parse_concat(P *p)
{
    while (!p->failed && p->i < p->len && p->s[p->i] != '|' && p->s[p->i] != ')')
        parse_repeat(p);
}

static void parse_alt(P *p)
{
    int start = p->re->n;
    parse_concat(p);
    while (!p->failed && p->i < p->len && p->s[p->i] == '|') {
        p->i++;
        /* SPLIT 1, L2; <left>; JMP end; L2: <right> */
        if (!insert_at(p, start))
            return;
        int jmp = emit(p, I_JMP, 0, 0);
        if (jmp < 0)
            return;
        Insn sp = { I_SPLIT, false, 1, jmp + 1 - start };
        p->re->code[start] = sp;
        parse_concat(p);
        p->re->code[jmp].x = p->re->n - jmp;
    }
}

TermRegex *term_regex_new(const char *pat, size_t len, char *err, size_t errlen)
{
    if (len > RE_MAX_PAT) {
        snprintf(err, errlen, "pattern longer than %d bytes", RE_MAX_PAT);
        return NULL;
    }
    TermRegex *re = sc_calloc(1, sizeof *re);
    if (!re) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    P p = { .re = re, .s = pat, .len = len, .err = err, .errlen = errlen };
    /* (?i) (?m) (?s), or several in one (?ims), at the start: for the
    ** whole pattern */
    while (p.len - p.i >= 4 && pat[p.i] == '(' && pat[p.i + 1] == '?') {
        size_t k = p.i + 2;
        while (k < p.len && (pat[k] == 'i' || pat[k] == 'm' || pat[k] == 's'))
            k++;
        if (k == p.i + 2 || k >= p.len || pat[k] != ')')
            break;
        for (size_t f = p.i + 2; f < k; f++)
            *(pat[f] == 'i' ? &re->icase : pat[f] == 'm' ? &re->multiline : &re->dotall) = true;
        p.i = k + 1;
    }
    parse_alt(&p);
    if (!p.failed && p.i < p.len)
        fail(&p, "unbalanced ')'");
    emit(&p, I_MATCH, 0, 0);
    if (p.failed) {
        term_regex_free(re);
        return NULL;
    }
    return re;
}

void term_regex_free(TermRegex *re)
{
    if (!re)
        return;
    sc_free(re->code);
    sc_free(re->ranges);
    sc_free(re);
}

/* ---- the Pike VM ---- */

/* Threads in priority order (a SPLIT's first branch before its second,
** an earlier start before a later one), each with where its match began. */
typedef struct List {
    int *pc;
    size_t *start;
    int n;
} List;

static uint32_t fold(const TermRegex *re, uint32_t c)
{
    return re->icase && c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* Whether the byte before pos (end 0) or at pos (end len) is an ASCII word
** character [0-9A-Za-z_], as \b sees them in RE2, Rust's regex without
** Unicode and JavaScript; outside the text is not one. */
static bool is_word(const char *text, size_t pos, size_t end)
{
    if (end == 0) {
        if (pos == 0)
            return false;
        pos--;
    } else if (pos >= end) {
        return false;
    }
    unsigned char c = (unsigned char)text[pos];
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

/* Adds pc and its epsilon closure to l, in priority order (depth first,
** a SPLIT's x before its y); gen marks membership, so a thread that
** reaches an instruction first keeps it. */
static void add_thread(const TermRegex *re, List *l, unsigned *mark, unsigned gen, int *stack, int pc,
                       size_t start, const char *text, size_t len, size_t pos)
{
    int sp = 0;
    stack[sp++] = pc;
    while (sp) {
        pc = stack[--sp];
        if (mark[pc] == gen)
            continue;
        mark[pc] = gen;
        const Insn *in = &re->code[pc];
        switch ((IOp)in->op) {
        case I_JMP:
            stack[sp++] = pc + in->x;
            break;
        case I_SPLIT:
            stack[sp++] = pc + in->y;
            stack[sp++] = pc + in->x;
            break;
        case I_BOL:
            if (pos == 0 || (re->multiline && text[pos - 1] == '\n'))
                stack[sp++] = pc + 1;
            break;
        case I_EOL:
            if (pos == len || (re->multiline && text[pos] == '\n'))
                stack[sp++] = pc + 1;
            break;
        case I_BOT:
            if (pos == 0)
                stack[sp++] = pc + 1;
            break;
        case I_EOT:
            if (pos == len)
                stack[sp++] = pc + 1;
            break;
        case I_WORDB:
            if ((is_word(text, pos, 0) != is_word(text, pos, len)) == (in->x != 0))
                stack[sp++] = pc + 1;
            break;
        case I_CHAR:
        case I_ANY:
        case I_CLASS:
        case I_MATCH:
            l->start[l->n] = start;
            l->pc[l->n++] = pc;
            break;
        }
    }
}

static bool step_ok(const TermRegex *re, const Insn *in, uint32_t c)
{
    switch ((IOp)in->op) {
    case I_CHAR:
        return fold(re, (uint32_t)in->x) == fold(re, c);
    case I_ANY:
        return c != '\n' || re->dotall;
    case I_CLASS: {
        bool hit = false;
        for (int k = 0; k < in->y && !hit; k++) {
            const Range *r = &re->ranges[in->x + k];
            hit = (c >= r->lo && c <= r->hi) ||
                  (re->icase && c < 128 && ((fold(re, c) >= r->lo && fold(re, c) <= r->hi) ||
                                            (c >= 'a' && c <= 'z' && c - 32 >= r->lo && c - 32 <= r->hi)));
        }
        return hit != in->neg;
    }
    case I_SPLIT:
    case I_JMP:
    case I_BOL:
    case I_EOL:
    case I_BOT:
    case I_EOT:
    case I_WORDB:
    case I_MATCH:
        break;
    }
    return false;
}

/* Runs the threads over text from `from`.  any: stop at the first match
** seen (a yes/no search); else the leftmost match, and of those the one
** the priorities prefer (Perl's and Rust's leftmost-first), in [*ms, *me).
** Returns -1 when out of memory. */
static int pike(const TermRegex *re, const char *text, size_t len, size_t from, bool any, size_t *ms, size_t *me)
{
    int n = re->n;
    /* Each thread list holds at most n entries; the closure stack at most
    ** 2n + 1 (each instruction is expanded once and pushes at most two). */
    int *mem = sc_malloc(((size_t)n * 4 + 2) * sizeof(int) + (size_t)n * sizeof(unsigned));
    size_t *starts = sc_malloc((size_t)n * 2 * sizeof(size_t));
    if (!mem || !starts) {
        sc_free(mem);
        sc_free(starts);
        return -1;
    }
    List cur = { mem, starts, 0 }, nxt = { mem + n, starts + n, 0 };
    int *stack = mem + 2 * n;
    unsigned *mark = (unsigned *)(mem + 4 * n + 2);
    memset(mark, 0, (size_t)n * sizeof(unsigned));
    unsigned gen = 1;
    bool matched = false;
    size_t pos = from;
    add_thread(re, &cur, mark, gen, stack, 0, from, text, len, from);
    for (;;) {
        for (int k = 0; k < cur.n; k++)
            if (re->code[cur.pc[k]].op == I_MATCH) {
                matched = true;
                *ms = cur.start[k];
                *me = pos;
                cur.n = k;      /* the threads after it are worse matches */
                break;
            }
        if ((matched && (any || cur.n == 0)) || pos >= len)
            break;
        size_t np = pos;
        uint32_t c = next_cp(text, len, &np);
        gen++;
        nxt.n = 0;
        for (int k = 0; k < cur.n; k++) {
            int pc = cur.pc[k];
            if (step_ok(re, &re->code[pc], c))
                add_thread(re, &nxt, mark, gen, stack, pc + 1, cur.start[k], text, len, np);
        }
        /* Unanchored: a new thread starts at every position, until a
        ** match makes every later start a worse one. */
        if (!matched)
            add_thread(re, &nxt, mark, gen, stack, 0, np, text, len, np);
        List t = cur;
        cur = nxt;
        nxt = t;
        pos = np;
        if (gen == 0xFFFFFFFFu) {
            memset(mark, 0, (size_t)n * sizeof(unsigned));
            gen = 1;
        }
    }
    sc_free(mem);
    sc_free(starts);
    return matched;
}

bool term_regex_search(const TermRegex *re, const char *text, size_t len)
{
    size_t s, e;
    return pike(re, text, len, 0, true, &s, &e) == 1;
}

int term_regex_find(const TermRegex *re, const char *text, size_t len, size_t from, size_t *start, size_t *end)
{
    if (from > len)
        return 0;
    return pike(re, text, len, from, false, start, end);
}
