/* SPDX-License-Identifier: MIT */
/* textdiff.c - bounded line diffs and quoting (textdiff.h). */
#include <string.h>

#include "textdiff.h"

void text_quote(Buf *out, const char *pfx, const char *t, size_t n)
{
    if (!t)
        return;     /* an empty Buf's data */
    size_t i = 0, lines = 0;
    while (i < n && lines < 40) {
        const char *nl = memchr(t + i, '\n', n - i);
        size_t ll = nl ? (size_t)(nl - (t + i)) : n - i;
        buf_printf(out, "%s%.*s\n", pfx, (int)(ll > 300 ? 300 : ll), t + i);
        i += ll + 1;
        lines++;
    }
    if (i < n)
        buf_printf(out, "%s... (%zu more bytes)\n", pfx, n - i);
}

void text_line_diff(Buf *out, const char *a, size_t na, const char *b, size_t nb)
{
    if (!a)
        a = "", na = 0;     /* an empty Buf's data */
    if (!b)
        b = "", nb = 0;
    size_t h = 0;
    while (h < na && h < nb && a[h] == b[h])
        h++;
    while (h > 0 && a[h - 1] != '\n')
        h--;
    size_t ta = na, tb = nb;
    while (ta > h && tb > h && a[ta - 1] == b[tb - 1]) {
        ta--;
        tb--;
    }
    while (ta < na && a[ta] != '\n') {
        ta++;
        tb++;
    }
    buf_puts(out, "--- expected\n+++ actual\n");
    text_quote(out, "-", a + h, ta - h);
    text_quote(out, "+", b + h, tb - h);
}
