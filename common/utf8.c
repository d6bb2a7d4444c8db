/* SPDX-License-Identifier: MIT */
/* utf8.c - UTF-8 well-formedness (utf8.h). */
#include "utf8.h"

#include <string.h>

bool utf8_valid(const unsigned char *s, size_t n, size_t *bad)
{
    size_t i = 0;
    for (;;) {
        /* ASCII, eight bytes at a time: most scenario text is */
        for (uint64_t w; n - i >= 8; i += 8) {
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ull)
                break;
        }
        while (i < n && s[i] < 0x80)
            i++;
        if (i >= n)
            return true;
        uint32_t cp;
        size_t len = utf8_char(s + i, n - i, &cp);
        if (!len)
            break;
        i += len;
    }
    if (bad)
        *bad = i;
    return false;
}

bool utf8_valid_nonul_slow(const unsigned char *s, size_t n)
{
    return !memchr(s, 0, n) && utf8_valid(s, n, NULL);
}

size_t utf8_scrub(const char *in, size_t n, char *out, size_t cap)
{
    static const char fffd[] = "\xef\xbf\xbd";
    size_t k = 0;
    if (!cap)
        return 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_char((const unsigned char *)in + i, n - i, &cp);
        const char *src = len ? in + i : fffd;
        size_t w = len ? len : 3;
        if (k + w >= cap)
            break;      /* whole characters only */
        memcpy(out + k, src, w);
        k += w;
        i += len ? len : 1;
    }
    out[k] = 0;
    return k;
}

bool text_line_start(const char *s, size_t n, uint64_t line, size_t *off)
{
    size_t i = 0;
    for (uint64_t l = 0; l < line; l++) {
        const char *nl = memchr(s + i, '\n', n - i);
        if (!nl)
            return false;
        i = (size_t)(nl - s) + 1;
    }
    *off = i;
    return true;
}
