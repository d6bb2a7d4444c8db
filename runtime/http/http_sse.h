/* SPDX-License-Identifier: MIT */
/* http_sse.h - Server-Sent Events frames (the WHATWG HTML "event stream"
** format), written into a Buf that a server sends as chunks of a plan
** (http_plan.h).
**
** An event is optional "event: NAME" and "id: ID" lines, one "data: "
** line per line of its data, and a blank line.  The streaming encoders
** write JSON, which has no raw newline, so they build the data in place
** between http_sse_begin and http_sse_end; http_sse_event splits any
** data at its line breaks. */
#ifndef SC_HTTP_SSE_H
#define SC_HTTP_SSE_H

#include <stddef.h>

#include "common/buf.h"

/* "event: NAME\n" (when event is non-NULL) and "data: ": the data that
** follows must be one line; http_sse_end closes the event. */
void http_sse_begin(Buf *b, const char *event);
void http_sse_end(Buf *b);

/* A whole event: event and id lines when non-NULL, and data[0..len) as
** one "data:" line per line (CRLF, CR and LF all break lines). */
void http_sse_event(Buf *b, const char *event, const char *id, const char *data, size_t len);

/* A comment line (": TEXT"), which clients ignore: keeps an idle stream
** open through proxies. */
void http_sse_comment(Buf *b, const char *text);

#endif
