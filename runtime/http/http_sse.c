/* SPDX-License-Identifier: MIT */
/* http_sse.c - Server-Sent Events frames (http_sse.h). */
#include "http_sse.h"

#include <string.h>

/* "name: value\n" when value is not NULL (no printf: a streamed
** response writes one per event) */
static void field(Buf *b, const char *name, const char *value)
{
    if (!value)
        return;
    buf_puts(b, name);
    buf_puts(b, value);
    buf_putc(b, '\n');
}

void http_sse_begin(Buf *b, const char *event)
{
    field(b, "event: ", event);
    buf_puts(b, "data: ");
}

void http_sse_end(Buf *b)
{
    buf_puts(b, "\n\n");
}

void http_sse_event(Buf *b, const char *event, const char *id, const char *data, size_t len)
{
    field(b, "event: ", event);
    field(b, "id: ", id);
    /* n line breaks make n + 1 lines; the client joins them with "\n" */
    for (size_t i = 0;;) {
        size_t j = i;
        while (j < len && data[j] != '\n' && data[j] != '\r')
            j++;
        buf_puts(b, "data: ");
        buf_put(b, data + i, j - i);
        buf_putc(b, '\n');
        if (j >= len)
            break;
        if (data[j] == '\r' && j + 1 < len && data[j + 1] == '\n')
            j++;
        i = j + 1;
    }
    buf_putc(b, '\n');
}

void http_sse_comment(Buf *b, const char *text)
{
    field(b, ": ", text);
}
