/* SPDX-License-Identifier: MIT */
/* buf.h - growable byte buffer and the varint/JSON helpers built on it. */
#ifndef SC_BUF_H
#define SC_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct Buf {
    unsigned char *data;
    size_t len, cap;
    bool oom;            /* sticky: set when any append failed */
} Buf;

void buf_init(Buf *b);
void buf_fini(Buf *b);
void buf_reset(Buf *b);                       /* len = 0, keeps storage */
bool buf_reserve_long(Buf *b, size_t extra);
/* Room for extra more bytes; false (and oom set) when out of memory.  The
** check inline, as buf_put's: writers of JSON reserve before every piece. */
static inline bool buf_reserve(Buf *b, size_t extra)
{
    if (extra <= b->cap - b->len && !b->oom)
        return true;
    return buf_reserve_long(b, extra);
}
void buf_put_long(Buf *b, const void *p, size_t n);
void buf_putc_long(Buf *b, int c);
/* Appends; when there is room (the common case) inline, else through the
** _long functions, which grow the buffer. */
static inline void buf_put(Buf *b, const void *p, size_t n)
{
    if (n <= b->cap - b->len && !b->oom) {
        if (n)
            memcpy(b->data + b->len, p, n);
        b->len += n;
        return;
    }
    buf_put_long(b, p, n);
}
static inline void buf_putc(Buf *b, int c)
{
    if (b->len < b->cap && !b->oom) {
        b->data[b->len++] = (unsigned char)c;
        return;
    }
    buf_putc_long(b, c);
}
static inline void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }
void buf_printf(Buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* v in decimal / in lowercase hex, no leading zeros: what "%llu" and "%llx"
** write, without printf's format parsing (the HTTP servers write a chunk
** size and a Content-Length per response: printf was a tenth of serving). */
static inline void buf_u64(Buf *b, uint64_t v)
{
    char t[20];
    size_t i = sizeof t;
    do
        t[--i] = (char)('0' + v % 10);
    while (v /= 10);
    buf_put(b, t + i, sizeof t - i);
}
static inline void buf_hex(Buf *b, uint64_t v)
{
    char t[16];
    size_t i = sizeof t;
    do
        t[--i] = "0123456789abcdef"[v & 15];
    while (v >>= 4);
    buf_put(b, t + i, sizeof t - i);
}
void buf_u16le(Buf *b, uint16_t v);
void buf_u32le(Buf *b, uint32_t v);
void buf_u64le(Buf *b, uint64_t v);
void buf_varint_long(Buf *b, uint64_t v);
/* LEB128, at most 10 bytes.  One byte (most indices and small times) with
** room to spare is inline; the rest goes through buf_varint_long. */
static inline void buf_varint(Buf *b, uint64_t v)
{
    if (v < 0x80 && b->len < b->cap && !b->oom) {
        b->data[b->len++] = (unsigned char)v;
        return;
    }
    buf_varint_long(b, v);
}
void buf_json_str(Buf *b, const char *s, size_t n);  /* quoted, escaped */
void buf_json_esc(Buf *b, const char *s, size_t n);  /* escaped, without the quotes */
/* buf_json_str of arbitrary bytes: invalid UTF-8 becomes U+FFFD, so
** program output can be recorded as JSON. */
void buf_json_str_lossy(Buf *b, const char *s, size_t n);
/* buf_json_str that writes < > & and every control character as \u00XX
** (\u003c, \u000a, ...), so the JSON can sit in an HTML <script>
** element (no "</script>" in it). */
void buf_json_str_html(Buf *b, const char *s, size_t n);

/* Decoding: the LEB128 varint at p in [p, end): the cursor after it in .p
** and its value in .v, or .p NULL on truncation, on an encoding longer than
** 10 bytes / overflowing 64 bits, or on a padded (non-canonical) one.  Both
** come back in registers (a 16-byte struct is returned in two), so a
** loop's cursor need not live in memory as &p would make it.  Most varints
** in a payload are one byte (indices, small times), so that case is
** inline; varint_at_long does the rest. */
typedef struct VarintAt {
    const unsigned char *p;
    uint64_t v;
} VarintAt;
VarintAt varint_at_long(const unsigned char *p, const unsigned char *end);
static inline VarintAt varint_at(const unsigned char *p, const unsigned char *end)
{
    if (p < end && *p < 0x80)
        return (VarintAt){ p + 1, *p };
    return varint_at_long(p, end);
}

/* The same through a cursor: false where varint_at gives NULL; *p and
** *out are set only on success. */
static inline bool varint_read(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
    VarintAt r = varint_at(*p, end);
    if (!r.p)
        return false;
    *p = r.p;
    *out = r.v;
    return true;
}

static inline uint64_t zigzag_enc(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t zigzag_dec(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static inline uint16_t rd_u16le(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd_u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd_u64le(const unsigned char *p)
{
    return (uint64_t)rd_u32le(p) | (uint64_t)rd_u32le(p + 4) << 32;
}


#endif
