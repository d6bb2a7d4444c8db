/* SPDX-License-Identifier: MIT */
/* http_plan.c - timed HTTP responses (http_plan.h). */
#include "http_plan.h"

#include <errno.h>
#include <string.h>

#include "common/sc_alloc.h"
#include "runtime/http/http_parse.h"

void http_plan_init(HttpPlan *p)
{
    memset(p, 0, sizeof *p);
    buf_init(&p->bytes);
}

void http_plan_reset(HttpPlan *p)
{
    buf_reset(&p->bytes);
    p->bytes.oom = false;
    p->n_items = 0;
    p->oom = false;
    p->status = 0;
    p->body0 = 0;
    p->abort = HTTP_ABORT_NONE;
}

void http_plan_fini(HttpPlan *p)
{
    buf_fini(&p->bytes);
    sc_free(p->items);
    memset(p, 0, sizeof *p);
}

/* Appends an item ending at the current end of the bytes, due at at. */
static void push_item(HttpPlan *p, uint64_t at)
{
    if (p->n_items == p->cap_items) {
        size_t c = p->cap_items ? p->cap_items * 2 : 16;
        HttpPlanItem *ni = sc_realloc(p->items, c * sizeof *ni);
        if (!ni) {
            p->oom = true;
            return;
        }
        p->items = ni;
        p->cap_items = c;
    }
    p->items[p->n_items].at_ms = at;
    p->items[p->n_items].end = p->bytes.len;
    p->n_items++;
}

void http_plan_cut(HttpPlan *p, uint64_t at)
{
    if (p->n_items && p->items[p->n_items - 1].end == p->bytes.len)
        return;
    if (p->n_items && p->items[p->n_items - 1].at_ms >= at) {
        p->items[p->n_items - 1].end = p->bytes.len;   /* same time: merge */
        return;
    }
    push_item(p, at);
}

int http_plan_error(const HttpPlan *p)
{
    return p->oom || p->bytes.oom ? ENOMEM : 0;
}

void http_plan_head(HttpPlan *p, int status, const char *ctype, bool chunked, size_t content_length,
                    bool keep_alive, const char *req_id, const char *extra, const char *extra2)
{
    Buf *b = &p->bytes;
    p->status = status;
    /* no printf: one head per response (http_plan_chunk) */
    buf_puts(b, "HTTP/1.1 ");
    buf_u64(b, (uint64_t)(unsigned)status);
    buf_putc(b, ' ');
    buf_puts(b, http_reason(status));
    buf_puts(b, "\r\nContent-Type: ");
    buf_puts(b, ctype);
    buf_puts(b, "\r\n");
    if (chunked) {
        buf_puts(b, "Transfer-Encoding: chunked\r\nCache-Control: no-cache\r\n");
    } else {
        buf_puts(b, "Content-Length: ");
        buf_u64(b, content_length);
        buf_puts(b, "\r\n");
    }
    buf_puts(b, keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n");
    if (req_id) {
        buf_puts(b, "x-request-id: ");
        buf_puts(b, req_id);
        buf_puts(b, "\r\nrequest-id: ");
        buf_puts(b, req_id);
        buf_puts(b, "\r\n");
    }
    if (extra)
        buf_puts(b, extra);
    if (extra2)
        buf_puts(b, extra2);
    buf_puts(b, "\r\n");
    p->body0 = b->len;
}

int http_plan_whole(HttpPlan *p, int status, const char *ctype, const void *body, size_t len, bool keep_alive,
                    const char *req_id, const char *extra, const char *extra2, uint64_t at)
{
    http_plan_head(p, status, ctype, false, len, keep_alive, req_id, extra, extra2);
    buf_put(&p->bytes, body, len);
    http_plan_cut(p, at);
    return http_plan_error(p);
}

void http_plan_chunk(HttpPlan *p, const void *data, size_t len, uint64_t at)
{
    if (!len)
        return;
    /* the size without printf, whose format parsing was a tenth of the
    ** server's time streaming a 40-chunk completion */
    buf_hex(&p->bytes, len);
    buf_puts(&p->bytes, "\r\n");
    buf_put(&p->bytes, data, len);
    buf_puts(&p->bytes, "\r\n");
    http_plan_cut(p, at);
}

void http_plan_chunk_end(HttpPlan *p, uint64_t at)
{
    buf_puts(&p->bytes, "0\r\n\r\n");
    http_plan_cut(p, at);
}

void http_plan_cut_off(HttpPlan *p, size_t len, uint64_t at)
{
    if (len < p->bytes.len) {
        p->bytes.len = len;
        size_t n = 0;
        while (n < p->n_items && p->items[n].end < len)
            n++;
        if (n < p->n_items) {
            p->items[n].end = len;  /* the item the cut falls in ends there */
            p->n_items = n + 1;
        }
    }
    p->abort = HTTP_ABORT_CUT;
    size_t done = p->n_items ? p->items[p->n_items - 1].end : 0;
    if (done < p->bytes.len)
        http_plan_cut(p, at);       /* bytes in no item yet: due at at */
    else if (!p->n_items || p->items[p->n_items - 1].at_ms < at)
        push_item(p, at);           /* no bytes: the close waits for its time */
}
