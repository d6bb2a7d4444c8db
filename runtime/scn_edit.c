/* SPDX-License-Identifier: MIT */
/* scn_edit.c - the agentEdits rule (scn_edit.h). */
#include <stdbool.h>
#include <stdio.h>

#include "scn_edit.h"

int64_t scn_edit_count_lines(const char *t, size_t n)
{
    int64_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += t[i] == '\n';
    return k + (n && t[n - 1] != '\n');
}

void scn_edit_line(Buf *b, const char *path, uint64_t k, uint64_t n)
{
    buf_printf(b, "scvm agentEdits %s +%llu/%llu\n", path, (unsigned long long)k, (unsigned long long)n);
}

int scn_edit_apply(const char *path, const char *text, size_t n, uint64_t add, uint64_t rm, Buf *out,
                   char *why, size_t cap)
{
    int64_t have = text ? scn_edit_count_lines(text, n) : 0;
    buf_reset(out);
    if ((int64_t)rm > have) {
        snprintf(why, cap, "agentEdits '%s' removes %llu line%s, but the file has %lld", path,
                 (unsigned long long)rm, rm == 1 ? "" : "s", (long long)have);
        buf_putc(out, 0);
        out->len = 0;
        return -1;
    }
    uint64_t keep = (uint64_t)have - rm;
    bool nl_end = keep == 0 || text[n - 1] == '\n';
    size_t cut = 0;            /* bytes of the kept lines, with their newlines */
    for (uint64_t seen = 0; seen < keep && cut < n; cut++)
        seen += text[cut] == '\n';
    if (keep == (uint64_t)have)
        cut = n;               /* all kept: the last line may lack its newline */
    buf_put(out, text ? text : "", cut);
    if (add && cut && text[cut - 1] != '\n')
        buf_putc(out, '\n');
    for (uint64_t k = 1; k <= add; k++)
        scn_edit_line(out, path, k, add);
    if (!nl_end && out->len && out->data[out->len - 1] == '\n')
        out->len--;
    buf_putc(out, 0);
    out->len--;
    return 0;
}
