/* SPDX-License-Identifier: MIT */
/* buf.c - growable byte buffer, varints, JSON string escaping, UTF-8 check. */
#include "buf.h"

#include "sc_alloc.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

void buf_init(Buf *b) { memset(b, 0, sizeof *b); }

void buf_fini(Buf *b)
{
    sc_free(b->data);
    memset(b, 0, sizeof *b);
}

void buf_reset(Buf *b) { b->len = 0; }

bool buf_reserve_long(Buf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->cap - b->len >= extra)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) {
        if (cap > SIZE_MAX / 2) {
            b->oom = true;
            return false;
        }
        cap *= 2;
    }
    unsigned char *p = sc_realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void buf_put_long(Buf *b, const void *p, size_t n)
{
    if (n && buf_reserve(b, n)) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}

void buf_putc_long(Buf *b, int c)
{
    if (buf_reserve(b, 1))
        b->data[b->len++] = (unsigned char)c;
}


void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        buf_put(b, tmp, (size_t)n);
        return;
    }
    if (!buf_reserve(b, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_u16le(Buf *b, uint16_t v)
{
    unsigned char t[2] = { (unsigned char)v, (unsigned char)(v >> 8) };
    buf_put(b, t, 2);
}

void buf_u32le(Buf *b, uint32_t v)
{
    unsigned char t[4];
    for (int i = 0; i < 4; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    buf_put(b, t, 4);
}

void buf_u64le(Buf *b, uint64_t v)
{
    buf_u32le(b, (uint32_t)v);
    buf_u32le(b, (uint32_t)(v >> 32));
}

void buf_varint_long(Buf *b, uint64_t v)
{
    unsigned char t[10];
    size_t n = 0;
    do {
        unsigned char c = v & 0x7f;
        v >>= 7;
        t[n++] = c | (v ? 0x80 : 0);
    } while (v);
    buf_put(b, t, n);
}

VarintAt varint_at_long(const unsigned char *p, const unsigned char *end)
{
    const VarintAt bad = { NULL, 0 };
    /* Two bytes first (times in ms above 127, counts of a few hundred):
    ** a second byte of 0 would be padding, left to the loop to refuse. */
    if (end - p >= 2 && p[0] >= 0x80 && p[1] != 0 && p[1] < 0x80)
        return (VarintAt){ p + 2, (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7 };
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return bad;
        unsigned char c = *p++;
        if (shift == 63 && (c & 0x7e))
            return bad;                 /* would overflow 64 bits */
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            if (c == 0 && shift != 0)
                return bad;             /* non-canonical (padded) encoding */
            return (VarintAt){ p, v };
        }
    }
    return bad;
}

/* 1 for the bytes JSON strings cannot hold as they are: controls, '"'
** and '\\'. */
static const unsigned char json_special[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
};

void buf_json_esc(Buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (!buf_reserve(b, n))
        return;
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0, i = 0;
    for (;;) {
#if defined(__SSE2__)
        /* sixteen bytes at a time while none is special (every x86-64 has
        ** SSE2): a byte is a control when min(byte, 0x1f) is the byte */
        {
            const __m128i ctl = _mm_set1_epi8(0x1f), q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
            while (n - i >= 16) {
                __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
                __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, ctl), x),
                                           _mm_or_si128(_mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, bs)));
                unsigned m = (unsigned)_mm_movemask_epi8(hit);
                if (m) {
                    i += (size_t)__builtin_ctz(m);
                    goto special;
                }
                i += 16;
            }
        }
#endif
        /* eight bytes at a time while none is special: no byte below
        ** 0x20, none equal to '"' or '\\' (the classic SWAR tests) */
        while (n - i >= 8) {
            uint64_t x;
            memcpy(&x, u + i, 8);
            const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
            uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\');
            uint64_t hit = ((x - ones * 0x20) & ~x) | ((q - ones) & ~q) | ((bs - ones) & ~bs);
            if (hit & high)
                break;
            i += 8;
        }
        while (i < n && !json_special[u[i]])
            i++;
#if defined(__SSE2__)
    special:
#endif
        buf_put(b, s + run, i - run);
        if (i == n)
            return;
        unsigned char c = u[i++];
        run = i;
        switch (c) {
        case '"': buf_put(b, "\\\"", 2); break;
        case '\\': buf_put(b, "\\\\", 2); break;
        case '\n': buf_put(b, "\\n", 2); break;
        case '\r': buf_put(b, "\\r", 2); break;
        case '\t': buf_put(b, "\\t", 2); break;
        case '\b': buf_put(b, "\\b", 2); break;
        case '\f': buf_put(b, "\\f", 2); break;
        default: {
            char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            buf_put(b, e, 6);
        }
        }
    }
}

void buf_json_str(Buf *b, const char *s, size_t n)
{
    if (!buf_reserve(b, n + 2))
        return;
    buf_putc(b, '"');
    buf_json_esc(b, s, n);
    buf_putc(b, '"');
}

void buf_json_str_html(Buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    buf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            buf_json_esc(b, s + run, i - run);
            char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            buf_put(b, e, 6);
            run = i + 1;
        }
    }
    buf_json_esc(b, s + run, n - run);
    buf_putc(b, '"');
}

void buf_json_str_lossy(Buf *b, const char *s, size_t n)
{
    if (utf8_valid((const unsigned char *)s, n, NULL)) {
        buf_json_str(b, s, n);
        return;
    }
    Buf tmp;
    buf_init(&tmp);
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_char(u + i, n - i, &cp);
        if (len) {
            buf_put(&tmp, u + i, len);
            i += len;
        } else {
            buf_put(&tmp, "\xEF\xBF\xBD", 3);
            i++;
        }
    }
    buf_json_str(b, (const char *)tmp.data, tmp.len);
    if (tmp.oom)
        b->oom = true;
    buf_fini(&tmp);
}
