/* SPDX-License-Identifier: MIT */
/* http_unit.c - runtime/http on its own: timed plans, SSE frames, and the
** connection loop driven over real loopback sockets (keep-alive and
** pipelining, pacing order, 100-continue, malformed requests, limits,
** dropped answers, stopping). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/sc_alloc.h"
#include "runtime/http/http_plan.h"
#include "runtime/http/http_server.h"
#include "runtime/http/http_sse.h"
#include "loopback.h"
#include "tests/check.h"

static bool buf_is(const Buf *b, const char *s)
{
    return b->len == strlen(s) && memcmp(b->data, s, b->len) == 0;
}

static void test_plan(void)
{
    HttpPlan p;
    http_plan_init(&p);
    http_plan_head(&p, 200, "text/event-stream", true, 0, true, "req_1", "X-A: 1\r\n", NULL);
    http_plan_cut(&p, 0);
    http_plan_chunk(&p, "hello", 5, 10);
    http_plan_chunk(&p, "", 0, 20);           /* an empty chunk would end the body: nothing */
    http_plan_chunk(&p, "0123456789abcdefg", 17, 10);   /* same time: merged */
    http_plan_chunk(&p, "z", 1, 5);          /* earlier: never out of order, merged */
    http_plan_chunk_end(&p, 30);
    CHECK(http_plan_error(&p) == 0 && p.status == 200);
    CHECK(p.n_items == 3);
    CHECK(p.items[0].at_ms == 0 && p.items[1].at_ms == 10 && p.items[2].at_ms == 30);
    CHECK(p.items[2].end == p.bytes.len);
    const char *want = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
                       "Cache-Control: no-cache\r\nConnection: keep-alive\r\nx-request-id: req_1\r\n"
                       "request-id: req_1\r\nX-A: 1\r\n\r\n5\r\nhello\r\n11\r\n0123456789abcdefg\r\n1\r\nz\r\n0\r\n\r\n";
    CHECK(buf_is(&p.bytes, want));
    http_plan_reset(&p);
    CHECK(p.n_items == 0 && p.bytes.len == 0 && p.status == 0);
    CHECK(http_plan_whole(&p, 404, "application/json", "{}", 2, false, NULL, NULL, NULL, 7) == 0);
    CHECK(buf_is(&p.bytes, "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                           "Connection: close\r\n\r\n{}"));
    CHECK(p.n_items == 1 && p.items[0].at_ms == 7 && p.status == 404);
    /* every status the servers answer has its reason (the REST mock's 201, 202) */
    CHECK(strcmp(http_reason(201), "Created") == 0 && strcmp(http_reason(202), "Accepted") == 0 &&
          strcmp(http_reason(204), "No Content") == 0);
    http_plan_fini(&p);
}

/* http_plan_cut_off: the bytes kept, the items trimmed to them, the
** close at its own time when it is later than the last item. */
static void test_plan_cut_off(void)
{
    HttpPlan p;
    http_plan_init(&p);
    http_plan_head(&p, 200, "text/event-stream", true, 0, true, NULL, NULL, NULL);
    size_t head = p.bytes.len;
    CHECK(p.body0 == head);
    http_plan_cut(&p, 0);
    http_plan_chunk(&p, "hello", 5, 10);
    http_plan_cut_off(&p, SIZE_MAX, 40);    /* all bytes kept; an empty item at 40 */
    CHECK(p.abort == HTTP_ABORT_CUT && http_plan_error(&p) == 0);
    CHECK(p.n_items == 3 && p.items[2].at_ms == 40 && p.items[2].end == p.bytes.len && p.items[1].end == p.bytes.len);
    CHECK(p.bytes.len == head + 10 && memcmp(p.bytes.data + head, "5\r\nhello\r\n", 10) == 0);
    http_plan_reset(&p);
    CHECK(p.abort == HTTP_ABORT_NONE && p.body0 == 0);
    /* a whole answer cut in its body: one item, at its time, shorter */
    CHECK(http_plan_whole(&p, 200, "application/json", "{\"a\":123456}", 12, true, NULL, NULL, NULL, 7) == 0);
    head = p.body0;
    http_plan_cut_off(&p, head + 6, 7);
    CHECK(p.n_items == 1 && p.items[0].at_ms == 7 && p.items[0].end == head + 6 && p.bytes.len == head + 6);
    /* a cut inside the second of three items drops the third */
    http_plan_reset(&p);
    http_plan_chunk(&p, "aa", 2, 1);
    http_plan_chunk(&p, "bb", 2, 2);
    http_plan_chunk(&p, "cc", 2, 3);
    http_plan_cut_off(&p, 9, 2);
    CHECK(p.n_items == 2 && p.items[1].end == 9 && p.items[1].at_ms == 2 && p.bytes.len == 9);
    http_plan_fini(&p);
}

static void test_sse(void)
{
    Buf b;
    buf_init(&b);
    http_sse_begin(&b, "ping");
    buf_puts(&b, "{\"type\":\"ping\"}");
    http_sse_end(&b);
    http_sse_begin(&b, NULL);
    buf_puts(&b, "[DONE]");
    http_sse_end(&b);
    CHECK(buf_is(&b, "event: ping\ndata: {\"type\":\"ping\"}\n\ndata: [DONE]\n\n"));
    buf_reset(&b);
    http_sse_event(&b, "log", "7", "a\nb\r\nc\rd", 8);
    CHECK(buf_is(&b, "event: log\nid: 7\ndata: a\ndata: b\ndata: c\ndata: d\n\n"));
    buf_reset(&b);
    http_sse_event(&b, NULL, NULL, "", 0);
    CHECK(buf_is(&b, "data: \n\n"));
    buf_reset(&b);
    http_sse_event(&b, NULL, NULL, "x\n", 2);   /* a trailing break is an empty last line */
    CHECK(buf_is(&b, "data: x\ndata: \n\n"));
    buf_reset(&b);
    http_sse_comment(&b, "keep-alive");
    CHECK(buf_is(&b, ": keep-alive\n"));
    buf_fini(&b);
}

/* Feeds in[0..n) to http_chunked k bytes at a time, as a socket would. */
static int dechunk(const char *in, size_t n, size_t k, uint64_t max, char *out, size_t *out_len, int *status)
{
    if (n > 2048)
        return -2;
    char buf[2048];
    HttpChunked st;
    memset(&st, 0, sizeof st);
    const char *why;
    size_t have = 0;
    int r = 0;
    while (r == 0 && have < n) {
        size_t add = n - have < k ? n - have : k;
        memcpy(buf + have, in + have, add);
        have += add;
        r = http_chunked(buf, have, max, &st, status, &why);
    }
    if (r == 1) {
        memcpy(out, buf, (size_t)st.body_len);
        *out_len = (size_t)st.body_len;
        CHECK(st.pos <= have);
    }
    return r;
}

static void test_chunked(void)
{
    static const char good[] = "5\r\nhello\r\n7;name=value\r\n, world\r\n0\r\nX-T: 1\r\n\r\nNEXT";
    char out[512];
    size_t ol;
    int st;
    /* every split of the input gives the same body, and stops before NEXT */
    for (size_t k = 1; k < sizeof good; k++) {
        ol = 0;
        CHECK(dechunk(good, sizeof good - 1, k, 100, out, &ol, &st) == 1 && ol == 12 && memcmp(out, "hello, world", 12) == 0);
    }
    CHECK(dechunk("A\r\n0123456789\r\n0\r\n\r\n", strlen("A\r\n0123456789\r\n0\r\n\r\n"), 3, 100, out, &ol, &st) == 1 && ol == 10);   /* hex, upper */
    CHECK(dechunk("a\r\n0123456789\r\n0\r\n\r\n", strlen("a\r\n0123456789\r\n0\r\n\r\n"), strlen("a\r\n0123456789\r\n0\r\n\r\n"), 9, out, &ol, &st) == -1 && st == 413);  /* over the limit */
    CHECK(dechunk("5\r\nhelloXY0\r\n\r\n", strlen("5\r\nhelloXY0\r\n\r\n"), strlen("5\r\nhelloXY0\r\n\r\n"), 100, out, &ol, &st) == -1 && st == 400);         /* no CRLF after data */
    CHECK(dechunk("zz\r\n", strlen("zz\r\n"), strlen("zz\r\n"), 100, out, &ol, &st) == -1 && st == 400);                              /* not a size */
    CHECK(dechunk("fffffffffffffffffff\r\n", strlen("fffffffffffffffffff\r\n"), strlen("fffffffffffffffffff\r\n"), 100, out, &ol, &st) == -1 && st == 413);           /* overflow */
    CHECK(dechunk("5\r\nhel", strlen("5\r\nhel"), strlen("5\r\nhel"), 100, out, &ol, &st) == 0);                                          /* more needed */
    char longline[1100];
    memset(longline, '1', sizeof longline);
    CHECK(dechunk(longline, sizeof longline, sizeof longline, 100, out, &ol, &st) == -1 && st == 400);
}

/* ---- the loop, over sockets ---- */

typedef struct Seen {
    int n, malformed, last_bad;
    char last_body[64];
    char last_path[64];
} Seen;

/* /echo: the body back, in two items (0 and 30 ms);
** /close: answers and closes; /drop: leaves the plan empty. */
static void handler(void *ctx, HttpExchange *x)
{
    Seen *s = ctx;
    s->n++;
    if (!x->req) {
        s->malformed++;
        s->last_bad = x->bad_status;
        CHECK(!x->keep_alive && x->bad_why && *x->bad_why);
        http_plan_whole(x->plan, x->bad_status, "text/plain", "bad", 3, false, NULL, NULL, NULL, 0);
        return;
    }
    snprintf(s->last_path, sizeof s->last_path, "%.*s", (int)x->req->target_len, x->req->target);
    snprintf(s->last_body, sizeof s->last_body, "%.*s", (int)x->body_len, x->body);
    if (http_is(x->req, "GET", "/drop"))
        return;
    if (http_is(x->req, "GET", "/close"))
        x->keep_alive = false;
    http_plan_head(x->plan, 200, "text/plain", true, 0, x->keep_alive, NULL, NULL, NULL);
    http_plan_chunk(x->plan, "first;", 6, 0);
    http_plan_chunk(x->plan, x->body_len ? x->body : "-", x->body_len ? x->body_len : 1, 30);
    http_plan_chunk_end(x->plan, 30);
}

typedef struct Run {
    HttpServer *s;
    int result;
} Run;

static void *serve(void *arg)
{
    Run *r = arg;
    r->result = http_server_run(r->s);
    return NULL;
}

/* Reads until the peer closes, `until` appears, or 5 s pass. */
static size_t get(int fd, char *out, size_t cap, const char *until)
{
    size_t n = 0;
    out[0] = 0;
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 5000) <= 0)
            break;
        ssize_t k = recv(fd, out + n, cap - 1 - n, 0);
        if (k <= 0)
            break;
        n += (size_t)k;
        out[n] = 0;
        if (until && strstr(out, until))
            break;
    }
    return n;
}

static void test_server(void)
{
    Seen seen;
    memset(&seen, 0, sizeof seen);
    HttpServerOpts o = { .port = "0", .max_body = 64, .max_conns = 2, .timeout_ms = 5000, .handle = handler,
                         .busy_body = "{\"busy\":true}", .ctx = &seen };
    CHECK(http_server_new(&(HttpServerOpts){ .port = "0" }) == NULL);   /* a handler is required */
    HttpServer *s = http_server_new(&o);
    CHECK(s != NULL);
    char bound[96];
    CHECK(http_server_listen(s, bound, sizeof bound) == 0);
    CHECK(strncmp(bound, "127.0.0.1:", 10) == 0);
    Run run = { s, -1 };
    pthread_t th;
    pthread_create(&th, NULL, serve, &run);
    char buf[8192];

    /* two pipelined requests on one connection: answered in order, each
    ** item in its order */
    int a = lb_dial(bound);
    const char two[] = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
                       "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nde";
    CHECK(send(a, two, sizeof two - 1, 0) == (ssize_t)(sizeof two - 1));
    get(a, buf, sizeof buf, "2\r\nde\r\n0\r\n\r\n");
    char *first = strstr(buf, "first;"), *abc = strstr(buf, "abc"), *de = strstr(buf, "\r\nde\r\n");
    CHECK(first && abc && de && first < abc && abc < de);
    CHECK(strstr(buf, "Connection: keep-alive") != NULL);

    /* Expect: 100-continue before the body */
    const char exp[] = "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n";
    send(a, exp, sizeof exp - 1, 0);
    get(a, buf, sizeof buf, "\r\n\r\n");
    CHECK(strncmp(buf, "HTTP/1.1 100 Continue\r\n\r\n", 25) == 0);
    send(a, "wxyz", 4, 0);
    get(a, buf, sizeof buf, "0\r\n\r\n");
    CHECK(strstr(buf, "wxyz") != NULL && strcmp(seen.last_body, "wxyz") == 0);

    /* full (max_conns 2): the connection idle longest between requests
    ** makes room; when every one is busy, the new one gets 503 */
    int b = lb_dial(bound);
    send(b, "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", 31, 0);
    get(b, buf, sizeof buf, "0\r\n\r\n");
    CHECK(strstr(buf, "200 OK") != NULL);
    send(a, "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", 31, 0);   /* a is now the more recent */
    get(a, buf, sizeof buf, "0\r\n\r\n");
    int c = lb_dial(bound);
    send(c, "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", 31, 0);
    get(c, buf, sizeof buf, "0\r\n\r\n");
    CHECK(strstr(buf, "200 OK") != NULL);                /* served: b made room */
    CHECK(get(b, buf, sizeof buf, NULL) == 0);            /* b was closed */
    close(b);
    send(a, "GET /echo", 9, 0);                          /* both busy: a head in progress */
    send(c, "GET /echo", 9, 0);
    int e = lb_dial(bound);
    get(e, buf, sizeof buf, NULL);
    CHECK(strstr(buf, "HTTP/1.1 503 Service Unavailable\r\n") == buf && strstr(buf, "retry-after: 1\r\n") &&
          strstr(buf, "\r\n\r\n{\"busy\":true}") != NULL);
    close(e);
    send(c, " HTTP/1.1\r\nHost: x\r\n\r\n", 22, 0);        /* c finishes its request */
    get(c, buf, sizeof buf, "0\r\n\r\n");
    CHECK(strstr(buf, "200 OK") != NULL);
    close(c);
    send(a, " HTTP/1.1\r\nHost: x\r\n\r\n", 22, 0);
    get(a, buf, sizeof buf, "0\r\n\r\n");
    CHECK(strstr(buf, "200 OK") != NULL);

    /* a handler that closes: the answer, then EOF */
    send(a, "GET /close HTTP/1.1\r\nHost: x\r\n\r\n", 32, 0);
    size_t n = get(a, buf, sizeof buf, NULL);
    CHECK(n > 0 && strstr(buf, "Connection: close") && strstr(buf, "0\r\n\r\n"));
    close(a);

    /* malformed: the handler sees req NULL and the status; then EOF */
    int d = lb_dial(bound);
    send(d, "GARBAGE\r\n\r\n", 11, 0);
    get(d, buf, sizeof buf, NULL);
    CHECK(strncmp(buf, "HTTP/1.1 400 ", 13) == 0 && seen.malformed == 1 && seen.last_bad == 400);
    close(d);

    /* a body above max_body: 413 before it is read */
    d = lb_dial(bound);
    send(d, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 65\r\n\r\n", 52, 0);
    get(d, buf, sizeof buf, NULL);
    CHECK(strncmp(buf, "HTTP/1.1 413 ", 13) == 0 && seen.last_bad == 413);
    close(d);

    /* an empty plan drops the connection without an answer */
    d = lb_dial(bound);
    send(d, "GET /drop HTTP/1.1\r\nHost: x\r\n\r\n", 31, 0);
    n = get(d, buf, sizeof buf, NULL);
    CHECK(n == 0 && strcmp(seen.last_path, "/drop") == 0);
    close(d);

    CHECK(http_server_refused(s) == 1);
    http_server_stop(s);
    pthread_join(th, NULL);
    CHECK(run.result == 0);
    /* listening twice is refused; a host that does not resolve or a bad
    ** port is EINVAL; "localhost" is IPv4's loopback */
    CHECK(http_server_listen(s, bound, sizeof bound) == EISCONN);
    http_server_free(s);
    HttpServerOpts bad = { .host = "localhost", .port = "0", .handle = handler };
    s = http_server_new(&bad);
    CHECK(http_server_listen(s, bound, sizeof bound) == 0 && strncmp(bound, "127.0.0.1:", 10) == 0);
    http_server_free(s);
    bad.host = "nosuchhost.invalid";
    s = http_server_new(&bad);
    CHECK(http_server_listen(s, bound, sizeof bound) == EINVAL);
    http_server_free(s);
    bad.host = NULL;
    bad.port = "65536";
    s = http_server_new(&bad);
    CHECK(http_server_listen(s, bound, sizeof bound) == EINVAL);
    CHECK(http_server_run(s) == EINVAL);   /* not listening */
    http_server_free(s);
}

/* Full, the server closes the oldest connection that never sent a byte
** for a new one.  Twelve clients connected before the loop's first turn
** are accepted in one turn, at one millisecond: the eight oldest must go,
** in the order they came, whatever the order of the server's table (it
** moves its last connection into a freed place: with ties going to the
** first in the table, the second eviction took the fourth client and the
** second survived). */
static void test_eviction_order(void)
{
    enum { SLOTS = 4, N = 12 };
    Seen seen;
    memset(&seen, 0, sizeof seen);
    HttpServerOpts o = { .port = "0", .max_body = 64, .max_conns = SLOTS, .timeout_ms = 5000, .handle = handler,
                         .ctx = &seen };
    HttpServer *s = http_server_new(&o);
    char bound[96];
    CHECK(s && http_server_listen(s, bound, sizeof bound) == 0);
    int fd[N];
    for (int i = 0; i < N; i++)
        fd[i] = lb_dial(bound);     /* in the kernel's queue, in this order */
    Run run = { s, -1 };
    pthread_t th;
    pthread_create(&th, NULL, serve, &run);
    char buf[4096];
    for (int i = 0; i < N - SLOTS; i++) {
        struct pollfd p = { .fd = fd[i], .events = POLLIN };
        CHECKF(poll(&p, 1, 5000) == 1 && recv(fd[i], buf, sizeof buf, 0) == 0,
               "client %d of %d, among the oldest, was closed", i, N);
    }
    for (int i = N - SLOTS; i < N; i++) {
        send(fd[i], "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", 31, 0);
        get(fd[i], buf, sizeof buf, "0\r\n\r\n");
        CHECKF(strstr(buf, "200 OK") != NULL, "client %d of %d, among the newest, is served: %.40s", i, N, buf);
    }
    CHECK(http_server_evicted(s) == N - SLOTS);
    for (int i = 0; i < N; i++)
        close(fd[i]);
    http_server_stop(s);
    pthread_join(th, NULL);
    CHECK(run.result == 0);
    http_server_free(s);
}

/* The head and idle timeouts, with short values. */
static void test_timeouts(void)
{
    Seen seen;
    memset(&seen, 0, sizeof seen);
    HttpServerOpts o = { .port = "0", .head_timeout_ms = 150, .idle_timeout_ms = 150, .handle = handler,
                         .ctx = &seen };
    HttpServer *s = http_server_new(&o);
    char bound[96];
    CHECK(s && http_server_listen(s, bound, sizeof bound) == 0);
    Run run = { s, -1 };
    pthread_t th;
    pthread_create(&th, NULL, serve, &run);
    char buf[4096];
    /* a head that never completes: 408, then the connection closes */
    int a = lb_dial(bound);
    send(a, "GET /echo HTTP/1.1\r\nHost: x\r\n", 29, 0);
    get(a, buf, sizeof buf, NULL);
    CHECK(strncmp(buf, "HTTP/1.1 408 ", 13) == 0 && seen.last_bad == 408);
    close(a);
    /* a connection that sends nothing is closed */
    int b = lb_dial(bound);
    CHECK(get(b, buf, sizeof buf, NULL) == 0);
    close(b);
    /* between requests too, but not while a request is answered */
    int c = lb_dial(bound);
    send(c, "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", 31, 0);
    get(c, buf, sizeof buf, "0\r\n\r\n");
    CHECK(strstr(buf, "200 OK") != NULL);
    CHECK(get(c, buf, sizeof buf, NULL) == 0);
    close(c);
    http_server_stop(s);
    pthread_join(th, NULL);
    CHECK(run.result == 0);
    http_server_free(s);
}

/* After an answer that closes the connection, its input is drained at
** most DRAIN_BYTES (1 MiB): a client that keeps sending gets a reset,
** not a second of the server's reading. */
static void test_drain_cap(void)
{
    Seen seen;
    memset(&seen, 0, sizeof seen);
    HttpServerOpts o = { .port = "0", .handle = handler, .ctx = &seen };
    HttpServer *s = http_server_new(&o);
    char bound[96];
    CHECK(s && http_server_listen(s, bound, sizeof bound) == 0);
    Run run = { s, -1 };
    pthread_t th;
    pthread_create(&th, NULL, serve, &run);
    int a = lb_dial(bound);
    send(a, "BAD\r\n\r\n", 7, MSG_NOSIGNAL);      /* 400, then the server drains */
    static char junk[64 * 1024];
    memset(junk, 'x', sizeof junk);
    size_t sent = 0;
    int err = 0;
    while (sent < ((size_t)64 << 20)) {
        struct pollfd p = { .fd = a, .events = POLLOUT };
        if (poll(&p, 1, 3000) <= 0)
            break;               /* the server stopped reading without closing */
        ssize_t k = send(a, junk, sizeof junk, MSG_NOSIGNAL);
        if (k < 0) {
            err = errno;
            break;
        }
        sent += (size_t)k;
    }
    CHECK((err == ECONNRESET || err == EPIPE) && sent < ((size_t)32 << 20));
    if (!(err == ECONNRESET || err == EPIPE) || sent >= ((size_t)32 << 20))
        fprintf(stderr, "  drain: %zu bytes sent, errno %d\n", sent, err);
    close(a);
    http_server_stop(s);
    pthread_join(th, NULL);
    CHECK(run.result == 0);
    http_server_free(s);
}

/* The budget for request data held by all connections together. */
static void test_budget(void)
{
    Seen seen;
    memset(&seen, 0, sizeof seen);
    HttpServerOpts o = { .port = "0", .max_body = 8192, .max_buffered = 8192, .handle = handler, .ctx = &seen };
    HttpServer *s = http_server_new(&o);
    char bound[96];
    CHECK(s && http_server_listen(s, bound, sizeof bound) == 0);
    Run run = { s, -1 };
    pthread_t th;
    pthread_create(&th, NULL, serve, &run);
    char buf[4096], body[6000];
    memset(body, 'x', sizeof body);
    /* a holds most of the budget with a body in progress ... */
    int a = lb_dial(bound);
    const char ha[] = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 6000\r\n\r\n";
    send(a, ha, sizeof ha - 1, 0);
    send(a, body, 4000, 0);
    /* ... so b's body does not fit beside it: 503, then closed */
    int b = lb_dial(bound);
    const char hb[] = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n";
    send(b, hb, sizeof hb - 1, 0);
    send(b, body, 5000, MSG_NOSIGNAL);
    get(b, buf, sizeof buf, NULL);
    CHECK(strncmp(buf, "HTTP/1.1 503 ", 13) == 0 && seen.last_bad == 503);
    close(b);
    /* a finishes and is answered; then the budget is free again */
    send(a, body, 2000, 0);
    get(a, buf, sizeof buf, "0\r\n\r\n");
    CHECK(strstr(buf, "200 OK") != NULL && strlen(seen.last_body) > 0);
    close(a);
    int c = lb_dial(bound);
    send(c, hb, sizeof hb - 1, 0);
    send(c, body, 5000, 0);
    get(c, buf, sizeof buf, "0\r\n\r\n");
    CHECK(strstr(buf, "200 OK") != NULL);
    close(c);
    http_server_stop(s);
    pthread_join(th, NULL);
    CHECK(run.result == 0);
    http_server_free(s);
}


/* One connection's exchange (a chunked POST and a pipelined GET) and a
** second client's GET, against a server whose allocations fail as the
** hook says; what each client received goes to a and b. */
static const char alloc_req[] = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                                "3\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n"
                                "GET /echo HTTP/1.1\r\nHost: x\r\n\r\n";
static const char alloc_req2[] = "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

static bool alloc_run(unsigned long n, unsigned long burst, char *a, size_t *an, char *b, size_t *bn,
                      size_t want_a, size_t want_b, char *c, size_t *cn)
{
    Seen seen;
    memset(&seen, 0, sizeof seen);
    HttpServerOpts o = { .port = "0", .max_body = 1024, .max_conns = 8, .handle = handler, .ctx = &seen };
    sc_alloc_reset();
    sc_alloc_fail_after = n;
    sc_alloc_fail_count = burst;
    HttpServer *s = http_server_new(&o);
    *an = *bn = *cn = 0;
    if (!s)
        return false;
    char bound[96];
    CHECK(http_server_listen(s, bound, sizeof bound) == 0);
    Run run = { s, -1 };
    pthread_t th;
    pthread_create(&th, NULL, serve, &run);
    int fa = lb_dial(bound);
    send(fa, alloc_req, sizeof alloc_req - 1, MSG_NOSIGNAL);
    *an = lb_read(fa, a, 4096, want_a);
    close(fa);
    int fb = lb_dial(bound);
    send(fb, alloc_req2, sizeof alloc_req2 - 1, MSG_NOSIGNAL);
    *bn = lb_read(fb, b, 4096, want_b);
    close(fb);
    int fc = lb_dial(bound);
    send(fc, alloc_req2, sizeof alloc_req2 - 1, MSG_NOSIGNAL);
    *cn = lb_read(fc, c, 4096, want_b);
    close(fc);
    http_server_stop(s);
    pthread_join(th, NULL);
    CHECK(run.result == 0);
    http_server_free(s);
    return true;
}

/* Every allocation the server makes (creating it, accepting, reading,
** decoding a chunked body, building answers) fails in turn, burst
** allocations in a row from there (so with burst > 1 the allocations of
** the error path itself fail too): each client gets its answers whole or
** the connection closes after the last whole one, never a wrong byte; the
** clients short of an answer are at most burst and follow each other, and
** every one after them is served in full, so the loop recovers; nothing
** leaks (the ASan build checks). */
static void alloc_bursts(unsigned long burst, const char *full_a, size_t fan, const char *full_b, size_t fbn,
                         size_t first_len)
{
    char a[4096], b[4096], c[4096];
    size_t an, bn, cn;
    unsigned long n, hits = 0, shorted = 0;
    for (n = 1; n < 10000; n++) {
        bool made = alloc_run(n, burst, a, &an, b, &bn, fan, fbn, c, &cn);
        unsigned long failed = sc_alloc_failed();
        sc_alloc_fail_after = sc_alloc_fail_count = 0;
        if (failed == 0)
            break;          /* past the last allocation of a whole run */
        CHECK(failed <= burst);
        hits++;
        if (!made)
            continue;       /* creating the server failed, and said so */
        /* what each client got is a whole prefix of the undisturbed
        ** answers: all of them, the first response only, or nothing */
        CHECK((an == 0 || an == first_len || an == fan) && memcmp(a, full_a, an) == 0);
        CHECK((bn == 0 || bn == fbn) && memcmp(b, full_b, bn) == 0);
        CHECK((cn == 0 || cn == fbn) && memcmp(c, full_b, cn) == 0);
        /* a client meets a failure only while the burst lasts, and each
        ** one it meets is used up: the short ones follow each other and
        ** every client after them is served whole (the loop recovered) */
        bool sa = an != fan, sb = bn != fbn, sc = cn != fbn;
        int short_of = sa + sb + sc;
        CHECK((unsigned long)short_of <= burst);
        CHECK(!(sa && !sb && sc));
        if (short_of)
            shorted++;
    }
    CHECK(n < 10000 && hits >= 8 && shorted >= 4);
    printf("http_unit: %lu allocation failures injected, %lu in a row each (%lu cost a client its answer), "
           "the server recovered from each\n", hits, burst, shorted);
}

static void test_alloc_failures(void)
{
    /* the undisturbed answers, once (the first connection stays open, so
    ** this run waits out lb_read's 5 s): two on the first connection, one
    ** on the second */
    char full_a[4096], full_b[4096], c[4096];
    size_t fan, fbn, cn;
    CHECK(alloc_run(0, 0, full_a, &fan, full_b, &fbn, sizeof full_a, sizeof full_b, c, &cn));
    const char *end1 = strstr(full_a, "0\r\n\r\n");
    CHECK(fan > 0 && end1 && strstr(full_a, "hello") && strstr(end1 + 5, "first;") != NULL);
    CHECK(fbn > 0 && strstr(full_b, "200 OK") && strstr(full_b, "0\r\n\r\n"));
    size_t first_len = end1 ? (size_t)(end1 + 5 - full_a) : 0;
    /* one failure at a time, then 2 and 4 in a row */
    alloc_bursts(1, full_a, fan, full_b, fbn, first_len);
    alloc_bursts(2, full_a, fan, full_b, fbn, first_len);
    alloc_bursts(4, full_a, fan, full_b, fbn, first_len);
}

/* Open streams: a handler keeps the answer open (x->stream), the server
** adds to it from tick with http_server_push and ends it; a push past
** max_backlog closes the stream (ENOBUFS); a push to an ended stream is
** ENOENT; stream_closed reports every stream that went without its end. */
typedef struct Streams {
    uint64_t tick_sid, big_sid, idle_sid;
    int ticks, enobufs, enoent, closed, pushed_big;
    int group_n, broadcasts;
    size_t reached;
    bool ended;
} Streams;

static void stream_handler(void *ctx, HttpExchange *x)
{
    Streams *st = ctx;
    if (!x->req)
        return;
    http_plan_head(x->plan, 200, "text/event-stream", true, 0, true, NULL, NULL, NULL);
    http_plan_chunk(x->plan, "hello;", 6, 0);
    x->stream = true;
    if (http_is(x->req, "GET", "/group")) {
        x->stream_group = 7;
        st->group_n++;
        return;
    }
    if (http_is(x->req, "GET", "/ticks"))
        st->tick_sid = x->stream_id;
    else if (http_is(x->req, "GET", "/big"))
        st->big_sid = x->stream_id;
    else
        st->idle_sid = x->stream_id;
}

static uint64_t stream_tick(void *ctx, uint64_t now);
static HttpServer *stream_srv;

static uint64_t stream_tick(void *ctx, uint64_t now)
{
    Streams *st = ctx;
    if (st->tick_sid && !st->ended) {
        if (st->ticks < 3) {
            CHECK(http_server_push(stream_srv, st->tick_sid, "tick;", 5, false) == 0);
            st->ticks++;
        } else {
            CHECK(http_server_push(stream_srv, st->tick_sid, "end;", 4, true) == 0);
            st->ended = true;
            st->enoent += http_server_push(stream_srv, st->tick_sid, "x", 1, false) == ENOENT;
        }
    }
    if (st->group_n == 2 && st->broadcasts < 2) {
        /* both group members subscribed: two frames to each, in one pass each */
        st->reached += http_server_broadcast(stream_srv, 7, st->broadcasts ? "two;" : "one;", 4);
        st->broadcasts++;
    }
    if (st->big_sid && !st->pushed_big) {
        static char big[4096];
        memset(big, 'b', sizeof big);
        st->enobufs += http_server_push(stream_srv, st->big_sid, big, sizeof big, false) == ENOBUFS;
        st->pushed_big = 1;
    }
    return now + 20;
}

static void stream_closed(void *ctx, uint64_t sid)
{
    Streams *st = ctx;
    CHECK(sid == st->big_sid || sid == st->idle_sid || sid > st->tick_sid);
    st->closed++;
}

static void test_streams(void)
{
    Streams st;
    memset(&st, 0, sizeof st);
    HttpServerOpts o = { .port = "0", .handle = stream_handler, .tick = stream_tick, .stream_closed = stream_closed,
                         .max_backlog = 1024, .timeout_ms = 2000, .ctx = &st };
    HttpServer *s = stream_srv = http_server_new(&o);
    char bound[96];
    CHECK(s && http_server_listen(s, bound, sizeof bound) == 0);
    Run run = { s, -1 };
    pthread_t th;
    pthread_create(&th, NULL, serve, &run);
    static char out[16384];
    int a = lb_dial(bound);
    send(a, "GET /ticks HTTP/1.1\r\nHost: x\r\n\r\n", strlen("GET /ticks HTTP/1.1\r\nHost: x\r\n\r\n"), MSG_NOSIGNAL);
    get(a, out, sizeof out, NULL);          /* to the close that follows the end */
    const char *body = strstr(out, "\r\n\r\n");
    CHECK(body && strcmp(body + 4, "6\r\nhello;\r\n5\r\ntick;\r\n5\r\ntick;\r\n5\r\ntick;\r\n4\r\nend;\r\n0\r\n\r\n") == 0);
    if (!body || strcmp(body + 4, "6\r\nhello;\r\n5\r\ntick;\r\n5\r\ntick;\r\n5\r\ntick;\r\n4\r\nend;\r\n0\r\n\r\n") != 0)
        fprintf(stderr, "  stream: [%s]\n", out);
    close(a);
    int b = lb_dial(bound);
    send(b, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", strlen("GET /big HTTP/1.1\r\nHost: x\r\n\r\n"), MSG_NOSIGNAL);
    get(b, out, sizeof out, NULL);          /* closed by the backlog cap */
    CHECK(strstr(out, "hello;") != NULL && strstr(out, "bbbb") == NULL);
    close(b);
    int c = lb_dial(bound);
    send(c, "GET /idle HTTP/1.1\r\nHost: x\r\n\r\n", strlen("GET /idle HTTP/1.1\r\nHost: x\r\n\r\n"), MSG_NOSIGNAL);
    get(c, out, sizeof out, "hello;");
    close(c);                               /* the client goes: stream_closed */
    /* a group of two: a broadcast reaches both, and no other stream */
    int g1 = lb_dial(bound), g2 = lb_dial(bound);
    send(g1, "GET /group HTTP/1.1\r\nHost: x\r\n\r\n", strlen("GET /group HTTP/1.1\r\nHost: x\r\n\r\n"), MSG_NOSIGNAL);
    get(g1, out, sizeof out, "hello;");
    send(g2, "GET /group HTTP/1.1\r\nHost: x\r\n\r\n", strlen("GET /group HTTP/1.1\r\nHost: x\r\n\r\n"), MSG_NOSIGNAL);
    get(g2, out, sizeof out, "two;");
    CHECK(strstr(out, "4\r\none;\r\n4\r\ntwo;\r\n") != NULL);
    get(g1, out, sizeof out, "two;");
    CHECK(strstr(out, "4\r\none;\r\n4\r\ntwo;\r\n") != NULL);
    close(g1);
    close(g2);
    for (int i = 0; i < 100 && st.closed < 4; i++)
        nanosleep(&(struct timespec){ 0, 20000000 }, NULL);
    http_server_stop(s);
    pthread_join(th, NULL);
    CHECK(run.result == 0 && st.ticks == 3 && st.ended && st.enoent == 1 && st.enobufs == 1 && st.closed == 4 &&
          st.reached == 4);
    if (!(st.ticks == 3 && st.ended && st.enoent == 1 && st.enobufs == 1 && st.closed == 4 && st.reached == 4))
        fprintf(stderr, "  streams: ticks %d ended %d enoent %d enobufs %d closed %d reached %zu\n", st.ticks, st.ended,
                st.enoent, st.enobufs, st.closed, st.reached);
    http_server_free(s);
}

/* Every status the servers can send has its registered reason phrase
** (a scripted error may be any of 100-599); an unregistered code gets an
** empty one, never a made-up "Unknown". */
static void test_reasons(void)
{
    static const struct { int code; const char *phrase; } want[] = {
        { 100, "Continue" }, { 200, "OK" }, { 201, "Created" }, { 202, "Accepted" }, { 204, "No Content" },
        { 301, "Moved Permanently" }, { 307, "Temporary Redirect" }, { 400, "Bad Request" },
        { 401, "Unauthorized" }, { 403, "Forbidden" }, { 404, "Not Found" }, { 405, "Method Not Allowed" },
        { 406, "Not Acceptable" }, { 408, "Request Timeout" }, { 409, "Conflict" }, { 410, "Gone" },
        { 412, "Precondition Failed" }, { 413, "Content Too Large" }, { 414, "URI Too Long" },
        { 416, "Range Not Satisfiable" }, { 421, "Misdirected Request" }, { 422, "Unprocessable Content" },
        { 425, "Too Early" }, { 428, "Precondition Required" }, { 429, "Too Many Requests" },
        { 431, "Request Header Fields Too Large" }, { 451, "Unavailable For Legal Reasons" },
        { 500, "Internal Server Error" }, { 501, "Not Implemented" }, { 502, "Bad Gateway" },
        { 503, "Service Unavailable" }, { 504, "Gateway Timeout" }, { 505, "HTTP Version Not Supported" },
        { 507, "Insufficient Storage" }, { 511, "Network Authentication Required" }, { 529, "Site Overloaded" },
        { 299, "" }, { 418, "" }, { 599, "" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (strcmp(http_reason(want[i].code), want[i].phrase) != 0) {
            fprintf(stderr, "http_reason(%d) = '%s', not '%s'\n", want[i].code, http_reason(want[i].code),
                    want[i].phrase);
            failures++;
        }
    for (int c = 100; c <= 599; c++)
        CHECK(strcmp(http_reason(c), "Unknown") != 0);
    /* the status line of an unregistered code stays valid: "599 " then CRLF */
    HttpPlan p;
    http_plan_init(&p);
    http_plan_whole(&p, 599, "text/plain", "x", 1, false, NULL, NULL, NULL, 0);
    CHECK(p.bytes.len > 15 && memcmp(p.bytes.data, "HTTP/1.1 599 \r\n", 15) == 0);
    http_plan_fini(&p);
}

/* The connection limit is sized from RLIMIT_NOFILE, its soft limit raised
** to the hard one first: under a soft limit of 256 (hard unchanged) the
** server takes the hard limit; under 256/256 it fits 192 connections. */
static void test_fd_limit(void)
{
    struct rlimit old;
    CHECK(getrlimit(RLIMIT_NOFILE, &old) == 0);
    if (old.rlim_max == RLIM_INFINITY || old.rlim_max < 512)
        return;     /* nothing to raise to */
    struct rlimit low = { 256, old.rlim_max };
    CHECK(setrlimit(RLIMIT_NOFILE, &low) == 0);
    HttpServerOpts o = { .port = "0", .handle = handler };
    HttpServer *s = http_server_new(&o);
    CHECK(s != NULL);
    struct rlimit now;
    CHECK(getrlimit(RLIMIT_NOFILE, &now) == 0 && now.rlim_cur == old.rlim_max);
    unsigned long fds = 0;
    unsigned n = http_server_max_conns(s, &fds);
    CHECK(fds == (unsigned long)old.rlim_max);
    CHECK(n == (fds - 64 < 65536 ? fds - 64 : 65536));
    http_server_free(s);
    o.max_conns = 100;      /* asked for less: that */
    s = http_server_new(&o);
    CHECK(http_server_max_conns(s, NULL) == 100);
    http_server_free(s);
    CHECK(setrlimit(RLIMIT_NOFILE, &old) == 0);
}

/* http_server_adopt and http_server_run_until_idle (what the fuzz targets
** of the servers use): connections without a listener; pipelined requests
** all answered although the client shut its side before the server read;
** an open stream that ends the run (stream_closed follows); a pause on a
** server that never listened, which ends (nothing to listen on again)
** while a client that does not close holds the run until its idle
** timeout; a run with nothing to serve. */
typedef struct Adopted {
    int handled, closed;
} Adopted;

static void adopt_handler(void *ctx, HttpExchange *x)
{
    Adopted *a = ctx;
    a->handled++;
    if (x->req && http_is(x->req, "GET", "/stream")) {
        http_plan_head(x->plan, 200, "text/event-stream", true, 0, true, NULL, NULL, NULL);
        http_plan_chunk(x->plan, "hi;", 3, 0);
        x->stream = true;
        return;
    }
    if (x->req && http_is(x->req, "GET", "/pause"))
        http_server_pause(stream_srv, 1);
    http_plan_whole(x->plan, x->req ? 200 : x->bad_status, "text/plain", "ok", 2, x->keep_alive, NULL, NULL, NULL, 0);
}

static void adopt_closed(void *ctx, uint64_t sid)
{
    (void)sid;
    ((Adopted *)ctx)->closed++;
}

/* The answers on fd: how many "ok" bodies. */
static int oks(int fd, char *out, size_t cap)
{
    ssize_t n = read(fd, out, cap - 1);
    out[n > 0 ? n : 0] = 0;
    int k = 0;
    for (const char *p = out; (p = strstr(p, "\r\n\r\nok")); p += 6)
        k++;
    return k;
}

static void test_adopt(void)
{
    Adopted a = { 0, 0 };
    HttpServerOpts o = { .handle = adopt_handler, .stream_closed = adopt_closed, .ctx = &a, .idle_timeout_ms = 100 };
    HttpServer *s = stream_srv = http_server_new(&o);
    CHECK(s && http_server_run_until_idle(s) == 0);     /* nothing to serve: at once */
    int p1[2], p2[2], p3[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, p1) == 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, p2) == 0 &&
          socketpair(AF_UNIX, SOCK_STREAM, 0, p3) == 0);
    const char *three = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
                        "GET /c HTTP/1.1\r\nHost: x\r\n\r\n";
    const char *st = "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(write(p1[1], three, strlen(three)) == (ssize_t)strlen(three));
    CHECK(write(p2[1], st, strlen(st)) == (ssize_t)strlen(st));
    shutdown(p1[1], SHUT_WR);
    shutdown(p2[1], SHUT_WR);
    CHECK(http_server_adopt(s, p1[0], "one") == 0 && http_server_adopt(s, p2[0], NULL) == 0);
    CHECK(http_server_run_until_idle(s) == 0);
    CHECK(a.handled == 4 && a.closed == 1);
    static char out[4096];
    CHECK(oks(p1[1], out, sizeof out) == 3);
    CHECK(read(p2[1], out, sizeof out - 1) > 0 && strstr(out, "3\r\nhi;\r\n") != NULL);
    CHECK(read(p2[1], out, sizeof out) == 0);           /* closed when the run ended */
    /* the pause ends with nothing to listen on again; the client that
    ** stays is closed when idle, and the run ends with 0 */
    const char *pause = "GET /pause HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(write(p3[1], pause, strlen(pause)) == (ssize_t)strlen(pause));
    CHECK(http_server_adopt(s, p3[0], "three") == 0);
    CHECK(http_server_run_until_idle(s) == 0);
    CHECK(a.handled == 5 && oks(p3[1], out, sizeof out) == 1);
    close(p1[1]);
    close(p2[1]);
    close(p3[1]);
    http_server_free(s);
    stream_srv = NULL;
}

int main(void)
{
    test_reasons();
    test_fd_limit();
    test_plan();
    test_plan_cut_off();
    test_sse();
    test_chunked();
    test_server();
    test_eviction_order();
    test_timeouts();
    test_drain_cap();
    test_budget();
    test_streams();
    test_adopt();
    test_alloc_failures();
    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        puts("http_unit: ok");
    return failures ? 1 : 0;
}
