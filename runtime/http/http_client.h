/* SPDX-License-Identifier: MIT */
/* http_client.h - one HTTP/1.1 request, blocking, with a deadline.
**
** For talking to an agent under test that serves an HTTP API (an
** OpenAI-compatible endpoint on the local machine or the network): plain
** http:// only, one connection per request ("Connection: close"), the
** response read by Content-Length, in chunks, or to the end of the
** connection.  Every wait is a poll(2) bounded by the deadline, and by
** cancel_fd (readable: give up), so a silent server cannot hang a run. */
#ifndef SC_HTTP_CLIENT_H
#define SC_HTTP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct HttpUrl {
    char host[256];
    char port[8];
    char path[2048];            /* with the query; "/" when the URL has none */
} HttpUrl;

/* Splits an http:// URL.  Returns false (with a reason in err) for other
** schemes, a missing host, or parts too long. */
bool http_url_parse(const char *url, HttpUrl *u, char *err, size_t errlen);

typedef struct HttpResponse {
    int status;                 /* 200 ... */
    Buf body;                   /* decoded (chunked framing removed), NUL-terminated */
    char content_type[128];     /* "" when absent */
} HttpResponse;

enum { HTTP_CLIENT_FAILED = -1, HTTP_CLIENT_TIMEOUT = -2, HTTP_CLIENT_CANCELLED = -3 };

/* method to url with headers (each "Name: value\r\n", or NULL) and body
** (may be NULL).  Returns 0 and fills *res (buf_fini(&res->body) after),
** or, with the reason in err: HTTP_CLIENT_TIMEOUT when the deadline passed
** (timeout_ms from the call; 0 = none), HTTP_CLIENT_CANCELLED when cancel_fd
** became readable, HTTP_CLIENT_FAILED for no connection, a malformed
** response, or one over max_body bytes. */
int http_request(const char *method, const char *url, const char *headers, const char *body, size_t body_len,
                 unsigned timeout_ms, int cancel_fd, size_t max_body, HttpResponse *res, char *err, size_t errlen);

/* The exchange of http_request on a connected, non-blocking socket fd (not
** closed here), until the absolute deadline (ms of CLOCK_MONOTONIC, 0 =
** none); u and url name the server in the request and in messages.  For
** http_request, and for the fuzz target that plays a server's answer. */
int http_exchange(int fd, const HttpUrl *u, const char *url, const char *method, const char *headers,
                  const char *body, size_t body_len, uint64_t deadline, int cancel_fd, size_t max_body,
                  HttpResponse *res, char *err, size_t errlen);

#endif
