/* SPDX-License-Identifier: MIT */
/* utf8.h - the one UTF-8 check: well-formed means no overlongs, no
** surrogates, nothing above U+10FFFF (RFC 3629). */
#ifndef SC_UTF8_H
#define SC_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* True when [s, s+n) is well-formed UTF-8.  On failure *bad (if not NULL)
** is the offset of the first bad byte. */
bool utf8_valid(const unsigned char *s, size_t n, size_t *bad);

/* True when [s, s+n) is well-formed UTF-8 without a NUL byte: short
** ASCII strings (the names and paths of an index) in one inline pass of
** eight bytes at a time, the rest through memchr and utf8_valid. */
bool utf8_valid_nonul_slow(const unsigned char *s, size_t n);
/* No byte of the eight in w is 0 or has its top bit set. */
static inline bool utf8_word_ascii_nonul(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    return !(w & high) && !((w - ones) & ~w & high);
}
static inline bool utf8_valid_nonul(const unsigned char *s, size_t n)
{
    size_t i = 0;
    uint64_t w;
    for (; n - i >= 8; i += 8) {
        memcpy(&w, s + i, 8);
        if (!utf8_word_ascii_nonul(w))
            return utf8_valid_nonul_slow(s, n);
    }
    if (i < n && n >= 8) {   /* the tail as the last eight bytes, overlapping */
        memcpy(&w, s + n - 8, 8);
        return utf8_word_ascii_nonul(w) || utf8_valid_nonul_slow(s, n);
    }
    for (; i < n; i++)
        if (s[i] == 0 || s[i] >= 0x80)
            return utf8_valid_nonul_slow(s, n);
    return true;
}

/* Copies in[0..n) to out as well-formed UTF-8, NUL-terminated: every byte
** that starts no well-formed character becomes U+FFFD, and the copy stops
** before a character that does not fit in cap (never cuts one in two).
** Returns the bytes written.  What a server echoes of a client's bytes goes
** through this. */
size_t utf8_scrub(const char *in, size_t n, char *out, size_t cap);

/* The length (1-4) of the well-formed character that starts s (n bytes
** available), with its code point in *cp; 0 when s starts none. */
static inline size_t utf8_char(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) { len = 2; v = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { len = 3; v = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { len = 4; v = c & 0x07; }
    else return 0;
    if (n < len)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[k] & 0x3f);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

/* Where 0-based line `line` of s (n bytes) starts: true with *off, false
** when s has fewer lines.  Lines end at '\n'. */
bool text_line_start(const char *s, size_t n, uint64_t line, size_t *off);

#endif
