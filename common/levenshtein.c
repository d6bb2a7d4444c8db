/* SPDX-License-Identifier: MIT */
/* levenshtein.c - edit distance over Unicode scalar values. */
#include "levenshtein.h"

#include <stdint.h>
#include <string.h>

#include "sc_alloc.h"
#include "utf8.h"

/* Decodes s into scalar values (at most n of them); returns the count.  A
** byte that starts no well-formed character (utf8.h) is a symbol of its own. */
static size_t decode(const char *s, size_t n, uint32_t *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, k = 0;
    while (i < n) {
        size_t len = utf8_char(p + i, n - i, &out[k]);
        if (!len) {
            out[k] = 0x110000u + p[i];
            len = 1;
        }
        k++;
        i += len;
    }
    return k;
}

size_t text_levenshtein(const char *a, size_t na, const char *b, size_t nb)
{
    uint32_t *x = sc_malloc((na + 1) * sizeof *x), *y = sc_malloc((nb + 1) * sizeof *y);
    size_t *row = sc_malloc((nb + 1) * sizeof *row);
    size_t r = SIZE_MAX;
    if (x && y && row) {
        size_t m = decode(a, na, x), n = decode(b, nb, y);
        for (size_t j = 0; j <= n; j++)
            row[j] = j;
        for (size_t i = 1; i <= m; i++) {
            size_t diag = row[0];
            row[0] = i;
            for (size_t j = 1; j <= n; j++) {
                size_t up = row[j];
                size_t best = diag + (x[i - 1] != y[j - 1]);
                if (up + 1 < best)
                    best = up + 1;
                if (row[j - 1] + 1 < best)
                    best = row[j - 1] + 1;
                row[j] = best;
                diag = up;
            }
        }
        r = row[n];
    }
    sc_free(x);
    sc_free(y);
    sc_free(row);
    return r;
}

unsigned name_distance(const char *a, const char *b, unsigned cap)
{
    size_t la = strlen(a), lb = strlen(b);
    /* the distance is at least the difference in length: most names of a
    ** list are told apart here, before the table (the suggestions for a
    ** corpus file's unknown keys were 2% of compiling it, callgrind) */
    if (la > 64 || lb > 64 || (la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    unsigned row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0], best = row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned v = diag + (a[i - 1] != b[j - 1]);
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            if (up + 1 < v)
                v = up + 1;
            row[j] = v;
            diag = up;
            if (v < best)
                best = v;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[lb];
}

/* The length in bytes of s's first max characters. */
static size_t prefix_chars(const char *s, size_t n, size_t max)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    for (size_t k = 0; i < n && k < max; k++) {
        uint32_t cp;
        size_t len = utf8_char(p + i, n - i, &cp);
        i += len ? len : 1;
    }
    return i;
}

size_t text_levenshtein_cut(const char *a, size_t na, const char *b, size_t nb, size_t max_chars)
{
    return text_levenshtein(a, prefix_chars(a, na, max_chars), b, prefix_chars(b, nb, max_chars));
}
