/* SPDX-License-Identifier: MIT */
/* http_plan.h - a timed HTTP response: the whole response (head and
** body) in one buffer, cut into items, each due at a time.
**
** A server renders an answer in one go into a plan and then only copies
** due items to the socket (http_server.h), so pacing a stream costs one
** poll timeout per item and nothing per byte, and the encoders that fill
** plans are plain functions of their inputs: deterministic, testable
** without a socket. */
#ifndef SC_HTTP_PLAN_H
#define SC_HTTP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct HttpPlanItem {
    uint64_t at_ms;     /* due, ms after the request was taken */
    size_t end;         /* the item is bytes [previous end, end) */
} HttpPlanItem;

/* How the connection ends after a plan (scripted network faults). */
typedef enum HttpPlanAbort {
    HTTP_ABORT_NONE,    /* the answer is whole */
    HTTP_ABORT_CUT,     /* the answer stops short: the connection is closed
                        ** (FIN) at the last item, whatever the head said */
    HTTP_ABORT_RESET,   /* nothing is sent: the connection is reset (RST) */
} HttpPlanAbort;

typedef struct HttpPlan {
    Buf bytes;
    HttpPlanItem *items;
    size_t n_items, cap_items;
    bool oom;
    int status;         /* HTTP status of the response (for logs) */
    size_t body0;       /* where the body starts (set by http_plan_head) */
    HttpPlanAbort abort;
} HttpPlan;

void http_plan_init(HttpPlan *p);
void http_plan_reset(HttpPlan *p);
void http_plan_fini(HttpPlan *p);

/* Closes an item at the current end of the bytes, due at at_ms.  Nothing
** new since the last cut: no item; a time not after the last item's:
** merged into it (items are never due out of order). */
void http_plan_cut(HttpPlan *p, uint64_t at_ms);

/* 0, or ENOMEM when the plan or its bytes ran out of memory. */
int http_plan_error(const HttpPlan *p);

/* The head of a response: status line, Content-Type, then either
** "Transfer-Encoding: chunked" (with Cache-Control: no-cache) or
** Content-Length, Connection, the request id (as x-request-id and
** request-id) when req_id is non-NULL, the extra header lines ("Name:
** value\r\n"..., each may be NULL), and the blank line.  Sets p->status. */
void http_plan_head(HttpPlan *p, int status, const char *ctype, bool chunked, size_t content_length,
                    bool keep_alive, const char *req_id, const char *extra, const char *extra2);

/* A whole response with body[0..len), due at at_ms.  Returns
** http_plan_error(p). */
int http_plan_whole(HttpPlan *p, int status, const char *ctype, const void *body, size_t len, bool keep_alive,
                    const char *req_id, const char *extra, const char *extra2, uint64_t at_ms);

/* One chunk of a chunked body, due at at_ms; an empty chunk adds nothing
** (it would end the body). */
void http_plan_chunk(HttpPlan *p, const void *data, size_t len, uint64_t at_ms);
/* The last chunk ("0\r\n\r\n"), due at at_ms. */
void http_plan_chunk_end(HttpPlan *p, uint64_t at_ms);

/* Cuts the answer off: only its first len bytes are sent (SIZE_MAX: all
** of them), and the connection is closed at at_ms (or after the last
** item, if that is later), without a chunked body's last chunk or the
** rest of a Content-Length.  Sets p->abort to HTTP_ABORT_CUT. */
void http_plan_cut_off(HttpPlan *p, size_t len, uint64_t at_ms);

#endif
