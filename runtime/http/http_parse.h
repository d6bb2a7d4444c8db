/* SPDX-License-Identifier: MIT */
/* http_parse.h - a strict, bounded HTTP/1.1 request-head parser.
**
** Pure functions over a byte buffer: no allocation, no I/O, so they are
** unit-tested on their own and cannot be made to crash by hostile input.
** The head is parsed in place; every pointer in HttpReq points into the
** caller's buffer. */
#ifndef SC_HTTP_PARSE_H
#define SC_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { HTTP_MAX_HEADERS = 64 };

typedef struct HttpHeader {
    const char *name, *value;   /* not NUL-terminated */
    size_t name_len, value_len; /* value without surrounding blanks */
} HttpHeader;

typedef struct HttpReq {
    const char *method, *target; /* target: path and query as sent */
    size_t method_len, target_len;
    int minor;                   /* HTTP/1.<minor>: 0 or 1 */
    HttpHeader h[HTTP_MAX_HEADERS];
    unsigned n_h;
    size_t head_len;             /* bytes of the head, final CRLFCRLF included */
    uint64_t content_length;     /* 0 when absent */
    bool keep_alive;             /* after this request */
    bool chunked;                /* "Transfer-Encoding: chunked": the body follows in chunks (http_chunked) */
    bool expect_continue;        /* "Expect: 100-continue" */
} HttpReq;

/* Parses the head at buf[0..len).  Returns:
**   0   more bytes are needed (nothing complete yet; len < max_head);
**   1   *r is filled, r->head_len bytes were the head;
**  -1   the request is malformed: *status is the answer (400 bad request,
**       411 chunked body, 413 body above max_body, 431 head above max_head
**       or too many headers, 501 unknown transfer coding, 505 version)
**       and *why a static description. */
int http_parse_head(const char *buf, size_t len, size_t max_head, uint64_t max_body,
                    HttpReq *r, int *status, const char **why);

/* A chunked request body (RFC 9112 section 7.1), decoded incrementally and
** in place: call with the bytes after the head as they arrive (the same
** buffer each time, grown); the decoded data is moved to its start, over
** the chunk framing it replaces, so no copy is made.  Chunk extensions and
** trailer fields are read and ignored. */
typedef struct HttpChunked {
    size_t pos;         /* bytes of the input consumed */
    uint64_t body_len;  /* decoded bytes, at the input's start */
    uint64_t left;      /* data bytes left in the current chunk */
    int phase;          /* internal */
    size_t trailer;     /* bytes of trailer fields seen */
} HttpChunked;

/* Returns 0 when more bytes are needed, 1 when the body is complete
** (st->body_len bytes at buf[0], st->pos bytes of input used), -1 when it
** is malformed (400) or longer than max_body (413): *status and *why. */
int http_chunked(char *buf, size_t len, uint64_t max_body, HttpChunked *st, int *status, const char **why);

/* Case-insensitive header lookup; returns the first match or NULL. */
const HttpHeader *http_header(const HttpReq *r, const char *name);

/* True when method and path (the target without its query) equal m and p. */
bool http_is(const HttpReq *r, const char *m, const char *p);

/* The reason phrase of a status ("Not Found"), as the IANA registry
** names it; "" for a code it does not name (the status line stays valid). */
const char *http_reason(int status);

#endif
