/* SPDX-License-Identifier: MIT */
/* fuzz_http.c - libFuzzer target: the HTTP request reader of every server
** on runtime/http/ (http_parse.h): the head parser and the chunked body
** decoder, fed the way the server is fed.
**
** The first byte of an input chooses how the bytes arrive (pieces of 1 to
** 32 bytes) and the limits (a small or the default head and body limit);
** the rest is the byte stream of a connection.  Besides crashes and
** sanitizer reports, a finding is any disagreement between reading the
** stream whole and reading it as it arrives piece by piece:
**   - the head: the first non-zero answer of http_parse_head on the
**     growing prefixes equals its answer on the whole (result, status,
**     head length, method, target, headers);
**   - the body: http_chunked called as the server calls it (compacting the
**     decoded data after each call, bytes appended in pieces) gives the
**     same result, status, length and bytes as one call on everything.
** Every buffer passed is a heap block of exactly the bytes given, so a
** read one past its end is an AddressSanitizer report.  Pipelined
** requests are read one after another, as the server does.
**
** Built with -DSCC_FUZZ=ON (clang).  Seeds and findings live in
** tests/fuzz/http-corpus/ (README.md there), replayed under ctest. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/http/http_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dup_exact(const uint8_t *p, size_t n)
{
    char *c = malloc(n ? n : 1);
    if (!c)
        abort();
    if (n)
        memcpy(c, p, n);
    return c;
}

static void same_req(const HttpReq *a, const HttpReq *b, const char *abuf, const char *bbuf)
{
    /* pointers differ (two buffers): compare offsets and bytes */
    if (a->head_len != b->head_len || a->method_len != b->method_len || a->target_len != b->target_len ||
        a->minor != b->minor || a->n_h != b->n_h || a->content_length != b->content_length ||
        a->keep_alive != b->keep_alive || a->chunked != b->chunked || a->expect_continue != b->expect_continue ||
        a->method - abuf != b->method - bbuf || a->target - abuf != b->target - bbuf)
        abort();
    for (unsigned i = 0; i < a->n_h; i++)
        if (a->h[i].name - abuf != b->h[i].name - bbuf || a->h[i].value - abuf != b->h[i].value - bbuf ||
            a->h[i].name_len != b->h[i].name_len || a->h[i].value_len != b->h[i].value_len)
            abort();
}

/* Reads one request head from s[0..n): whole, then as it arrives.
** Returns the parser's result; *r is the whole reading's request. */
static int head(const uint8_t *s, size_t n, size_t step, size_t max_head, uint64_t max_body, HttpReq *r)
{
    int st = 0;
    const char *why = NULL;
    char *whole = dup_exact(s, n);
    int k = http_parse_head(whole, n, max_head, max_body, r, &st, &why);
    if (k < 0 && (st < 400 || st > 505 || !why))
        abort();
    /* the same bytes in pieces: nothing before the end may answer
    ** differently from the whole, and the first answer is the whole's */
    int first = 0;
    for (size_t got = 0;;) {
        got = got + step < n ? got + step : n;
        char *part = dup_exact(s, got);
        HttpReq pr;
        int pst = 0;
        const char *pwhy = NULL;
        int pk = http_parse_head(part, got, max_head, max_body, &pr, &pst, &pwhy);
        if (pk != 0) {
            first = pk;
            if (pk != k || (pk < 0 && pst != st))
                abort();
            if (pk > 0)
                same_req(r, &pr, whole, part);
        }
        free(part);
        if (first || got == n)
            break;
    }
    if (first != k)
        abort();
    if (k > 0) {
        /* lookups over what was parsed */
        const HttpHeader *h = http_header(r, "content-length");
        if (h && (h->name_len != 14 || h->name < whole || h->value + h->value_len > whole + n))
            abort();
        (void)http_is(r, "POST", "/v1/chat/completions");
        (void)http_header(r, "transfer-encoding");
    }
    free(whole);
    return k;
}

/* Decodes a chunked body from s[0..n): whole, then the server's way.
** Returns the bytes of input used (0: incomplete or refused). */
static size_t chunked(const uint8_t *s, size_t n, size_t step, uint64_t max_body)
{
    char *whole = dup_exact(s, n);
    HttpChunked w;
    memset(&w, 0, sizeof w);
    int st = 0;
    const char *why = NULL;
    int k = http_chunked(whole, n, max_body, &w, &st, &why);
    if (k < 0 && st != 400 && st != 413 && st != 431)
        abort();
    if (k > 0 && (w.body_len > w.pos || w.pos > n || w.body_len > max_body))
        abort();

    /* as the server does: append what arrived, decode, drop the framing */
    char *buf = malloc(n ? n : 1);
    if (!buf)
        abort();
    size_t len = 0, fed = 0, dropped = 0;
    HttpChunked c;
    memset(&c, 0, sizeof c);
    int pk = 0, pst = 0;
    while (fed < n) {
        size_t add = n - fed < step ? n - fed : step;
        memcpy(buf + len, s + fed, add);
        len += add;
        fed += add;
        /* an exact-size copy, so the decoder cannot read past the input */
        char *view = dup_exact((const uint8_t *)buf, len);
        pk = http_chunked(view, len, max_body, &c, &pst, &why);
        memcpy(buf, view, len);
        free(view);
        if (pk != 0)
            break;
        size_t rest = len - c.pos;
        memmove(buf + c.body_len, buf + c.pos, rest);
        dropped += c.pos - (size_t)c.body_len;
        len = (size_t)c.body_len + rest;
        c.pos = (size_t)c.body_len;
    }
    if (pk != k || (k < 0 && pst != st))
        abort();
    if (k > 0 && (c.body_len != w.body_len || c.pos + dropped != w.pos ||
                  memcmp(buf, whole, (size_t)w.body_len) != 0))
        abort();
    free(buf);
    free(whole);
    return k > 0 ? w.pos : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t step = (size_t)(data[0] & 31) + 1;
    bool small = data[0] & 32;
    size_t max_head = small ? 256 : 64 * 1024;
    uint64_t max_body = small ? 64 : 1 << 20;
    data++;
    size--;
    /* pipelined requests, one after another, as long as each is complete */
    for (int i = 0; i < 8 && size; i++) {
        HttpReq r;
        int k = head(data, size, step, max_head, max_body, &r);
        if (k <= 0)
            break;
        size_t used = r.head_len;
        if (r.chunked) {
            size_t b = chunked(data + used, size - used, step, max_body);
            if (!b)
                break;
            used += b;
        } else {
            if (r.content_length > size - used)
                break;
            used += (size_t)r.content_length;
        }
        data += used;
        size -= used;
    }
    return 0;
}
