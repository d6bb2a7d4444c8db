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

typedef enum { I_CHAR, I_ANY, I_CLASS, I_SPLIT, I_JMP, I_BOL, I_EOL, I_WORDB, I_MATCH } IOp;

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
    bool icase, multiline;
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

static uint32_t escape_char(P *p, char c)
{
    switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    default:
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            fail(p, "unsupported escape");
        return (uint32_t)(unsigned char)c;
    }
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
                hi = escape_char(p, p->s[p->i + 1]);
                p->i += 2;
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
        if (p->i + 1 < p->len && p->s[p->i] == '?' && p->s[p->i + 1] == ':')
            p->i += 2;
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
    for (;;) {
        if (p.len - p.i >= 4 && memcmp(pat + p.i, "(?m)", 4) == 0)
            re->multiline = true;
        else if (p.len - p.i >= 4 && memcmp(pat + p.i, "(?i)", 4) == 0)
            re->icase = true;
        else
            break;
        p.i += 4;
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
        return c != '\n';
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
