/* SPDX-License-Identifier: MIT */
/* base64.c - base64 decoding, checking and encoding (base64.h). */
#include "base64.h"

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

bool b64_decode(const char *s, size_t n, Buf *out, size_t *bad)
{
    size_t chars = 0, pad = 0;
    unsigned acc = 0, bits = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            continue;
        int v = c == '=' ? -2 : b64_value(c);
        if (v == -2) {
            pad++;
            continue;
        }
        if (v < 0 || pad) {
            if (bad)
                *bad = i;
            return false;
        }
        chars++;
        acc = (acc << 6 | (unsigned)v) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (out)
                buf_putc(out, (int)((acc >> bits) & 0xff));
        }
    }
    if (bad)
        *bad = n;
    return chars > 0 && pad <= 2 && (chars + pad) % 4 == 0 && !(out && out->oom);
}

void b64_encode(const void *p, size_t n, Buf *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *b = (const unsigned char *)p;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        unsigned v = (unsigned)b[i] << 16 | (unsigned)b[i + 1] << 8 | b[i + 2];
        char q[4] = { abc[v >> 18], abc[v >> 12 & 63], abc[v >> 6 & 63], abc[v & 63] };
        buf_put(out, q, 4);
    }
    if (i < n) {
        unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0);
        char q[4] = { abc[v >> 18], abc[v >> 12 & 63], i + 1 < n ? abc[v >> 6 & 63] : '=', '=' };
        buf_put(out, q, 4);
    }
}
