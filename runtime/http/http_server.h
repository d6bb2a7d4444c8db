/* SPDX-License-Identifier: MIT */
/* http_server.h - the connection loop every HTTP server here shares:
** listening, accepting, reading requests, answering them with timed
** plans (http_plan.h), keep-alive, limits, and stopping on a signal.
**
** One thread and epoll(7), with the connections in a heap by their next
** wake-up, so idle connections cost nothing per turn; several servers may
** share the loop (http_server_run_many).  A connection reads a request (head bounded by
** max_head, body by max_body), hands it to the handler, which fills a plan
** in one go, and then only copies the plan's due bytes to the socket, so
** timing costs one poll timeout and nothing per byte.  Input is bounded per
** connection and for all of them together (max_buffered; a connection
** holds only the bytes it sent, read through one shared buffer),
** connections are bounded in number (503 above), and an idle or stalled
** connection is closed after its timeout: memory stays bounded and no
** client can hold the loop.  Nothing here prints: what a server
** wants to log it logs from its handler and the notice callback. */
#ifndef SC_HTTP_SERVER_H
#define SC_HTTP_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/http/http_parse.h"
#include "runtime/http/http_plan.h"

/* One request and its answer. */
typedef struct HttpExchange {
    const HttpReq *req;     /* NULL: the request could not be parsed ... */
    int bad_status;         /* ... answer with this (400, 408, 413, 431, 501, 505) */
    const char *bad_why;    /* ... and say this */
    const char *body;       /* the request body (Content-Length bytes) */
    size_t body_len;
    const char *peer;       /* "ADDR:PORT" of the client */
    bool keep_alive;        /* in: the connection may stay open after the
                            ** answer; set false to close it (always false
                            ** for a malformed request) */
    HttpPlan *plan;         /* out: the answer, empty on entry; left
                            ** empty, the connection is dropped; its abort
                            ** field cuts the answer short (closed after
                            ** its last item) or resets the connection */
    uint64_t stream_id;     /* in: this answer's id, unique in the server,
                            ** for http_server_push */
    bool stream;            /* out: the answer stays open after its plan
                            ** (a chunked head and what is due now): the
                            ** server adds to it with http_server_push until
                            ** it ends it or the client goes (stream_closed) */
    unsigned stream_group;  /* out: with stream, a group for
                            ** http_server_broadcast (0: none) */
} HttpExchange;

typedef struct HttpServerOpts {
    const char *host;       /* numeric IPv4/IPv6 address; NULL = 127.0.0.1 */
    const char *port;       /* NULL or "0" = an ephemeral port */
    size_t max_head;        /* request head limit (431 above); 0 = 32 KiB */
    size_t max_body;        /* request body limit (413 above); 0 = 16 MiB */
    /* Simultaneous connections.  The file-descriptor soft limit is raised
    ** to the hard one, and 0 means what that allows (64 descriptors are
    ** kept back: 32 for 503 answers, 32 for the process), at most 65,536;
    ** a larger value is lowered to it (http_server_max_conns says what it
    ** is).  When full, the oldest connection that never sent a byte is
    ** closed for the new one, else the keep-alive connection idle longest
    ** between requests; only when every one has a request in flight is
    ** the new one answered 503 (and closed gracefully, never reset). */
    unsigned max_conns;
    unsigned timeout_ms;    /* a stalled request body or answer; 0 = 60 s */
    /* Request bytes all connections together may hold (heads, bodies,
    ** partial input); a read that would take more answers that connection
    ** 503 and closes it.  0 = 64 MiB or twice max_body, the larger. */
    size_t max_buffered;
    /* Bytes of whole answers due at once (not streams, not answers paced
    ** by the server) all connections together hold before their clients
    ** take them; an answer above 64 KiB that would
    ** pass this is replaced by a 503 and the connection closed (a client
    ** that asks for big answers and does not read them cannot make the
    ** server hold more).  0 = max_buffered. */
    size_t max_answers;
    unsigned head_timeout_ms;  /* first byte of a request to its whole head (408 after); 0 = 10 s */
    unsigned idle_timeout_ms;  /* nothing in flight: before a first request or between two; 0 = 15 s */
    /* Answers one request (required). */
    void (*handle)(void *ctx, HttpExchange *x);
    /* JSON body of the 503 sent to a connection above max_conns; NULL =
    ** {"error":"too many connections"}. */
    const char *busy_body;
    /* Optional: something happened to a connection the handler did not
    ** see ("closing an idle or stalled connection"). */
    void (*notice)(void *ctx, const char *peer, const char *what);
    void *ctx;
    /* Optional: called on every turn of the loop (before it waits) with
    ** http_server_now(); returns when it wants to be called again on that
    ** clock (UINT64_MAX: only when something else happens).  A server
    ** that plays a schedule to open streams pushes what is due here. */
    uint64_t (*tick)(void *ctx, uint64_t now);
    /* Optional: an open stream (HttpExchange.stream) is gone: the client
    ** closed it, it stalled, its backlog overflowed, or the server stops.
    ** Not called for a stream its server ended (http_server_push, end). */
    void (*stream_closed)(void *ctx, uint64_t stream_id);
    /* Bytes pushed to a stream and not yet taken by its client; a push
    ** beyond closes the stream (a client that does not read cannot make
    ** the server hold more).  0 = 8 MiB. */
    size_t max_backlog;
    /* The loop leaves signal dispositions alone (a server on a thread of
    ** a program that handles them itself; SIGPIPE must be ignored by it):
    ** only http_server_stop() ends it. */
    bool no_signals;
} HttpServerOpts;

typedef struct HttpServer HttpServer;

/* Raises the file-descriptor soft limit to the hard one (what
** http_server_new does first) and returns it.  Several servers in one
** process share it: their caller divides it (max_conns). */
unsigned long http_fd_limit(void);

/* Descriptors each server keeps back from its connections: REFUSE_SLOTS
** for 503 answers and some for the process. */
#define HTTP_SERVER_FD_RESERVE 64

/* NULL when out of memory or o->handle is NULL. */
HttpServer *http_server_new(const HttpServerOpts *o);
void http_server_free(HttpServer *s);

/* Binds and listens.  Writes "ADDR:PORT" (the actual port; "[V6]:PORT")
** to bound.  The host is an IPv4 or IPv6 address, "localhost" (127.0.0.1)
** or a name (its first address, IPv4 preferred).  Returns 0 or an errno
** (EADDRINUSE, EADDRNOTAVAIL, EINVAL for a host that does not resolve or a
** bad port, ...).  Unless
** no_signals, the signal handlers of http_server_run are installed here
** already (restored when run returns, or by http_server_free): a signal
** between listen and run stops the run at once instead of killing the
** process, so a caller may announce the address before running. */
int http_server_listen(HttpServer *s, char *bound, size_t cap);

/* Serves until SIGINT, SIGTERM or SIGHUP (handlers installed from listen
** on, then restored; one running server per process; not with no_signals) or
** http_server_stop().
** SIGPIPE is ignored meanwhile.  Open connections are closed on return.
** Returns 0, or an errno when the loop itself failed. */
int http_server_run(HttpServer *s);

/* The most servers http_server_run_many serves together. */
#define HTTP_SERVER_MANY 8

/* Serves v[0..n) (each listening, each made with no_signals) in one loop
** on this thread: one epoll instance, each server's connections timed and
** stepped as http_server_run does (what `scvm serve llm+rest+harness`
** runs).  Returns when stop_fd (not -1; e.g. rt_cancel_fd()) is readable,
** http_server_stop() is called for any of them, or one fails: 0, or the
** errno of the loop itself; err[i] gets server i's own errno (its listener
** could not be opened again after a pause), 0 otherwise.  EINVAL for n 0
** or above HTTP_SERVER_MANY, or a server that is not listening. */
int http_server_run_many(HttpServer *const *v, size_t n, int stop_fd, int *err);

/* The monotonic clock of tick, in ms. */
uint64_t http_server_now(void);

/* Adds data[0..n) to open stream stream_id as one chunk, due now, and
** with end the last chunk: the answer is then complete and the connection
** closes after it.  From the loop's thread only (a handler, tick,
** stream_closed).  Returns 0; ENOENT when there is no such open stream
** (it ended, or its client went); ENOBUFS when its backlog would pass
** max_backlog (the stream is closed, stream_closed follows); ENOMEM. */
int http_server_push(HttpServer *s, uint64_t stream_id, const void *data, size_t n, bool end);

/* http_server_push of data[0..n) (not the end) to every open stream of
** group (not 0), in one pass over the connections: what a server with
** many subscribers to one feed uses, at the cost of one push each.
** Returns how many streams took it (a stream whose backlog would pass
** max_backlog is closed instead, as by http_server_push). */
size_t http_server_broadcast(HttpServer *s, unsigned group, const void *data, size_t n);

/* Takes fd, a connected stream socket (one end of a socket pair, or a
** connection accepted elsewhere), as one more connection, served as an
** accepted one is; peer names it in notices and for the handler (NULL:
** "adopted").  Takes ownership of fd: it is closed with the connection, or
** at once on failure.  Returns 0, EMFILE when max_conns connections are
** open, ENOMEM, or the errno of making it non-blocking. */
int http_server_adopt(HttpServer *s, int fd, const char *peer);

/* Runs the loop as http_server_run does (no listener needed), but returns
** 0 as soon as there is nothing left to do but wait for time: every
** connection is closed, or each one left has read its client's end of
** input (the client shut its side for writing) and sent everything due,
** so only a paced answer's next item, an open stream's next push, a
** timeout or a pause's end could come next.  The connections left are
** closed then (stream_closed is called for open streams).  Signals are
** left alone.  For tests and fuzz targets that serve the bytes of a
** connection without a clock to wait on (tests/fuzz/fuzz_serve.c). */
int http_server_run_until_idle(HttpServer *s);

/* Asks a running server to stop (async-signal-safe). */
void http_server_stop(HttpServer *s);

/* Connections refused with 503 so far. */
uint64_t http_server_refused(const HttpServer *s);

/* Connections closed to make room for new ones so far. */
uint64_t http_server_evicted(const HttpServer *s);

/* The connection limit in force, and (fd_limit, if not NULL) the
** file-descriptor limit it was sized from: what a server says at start. */
unsigned http_server_max_conns(const HttpServer *s, unsigned long *fd_limit);

/* Stops accepting for ms (at least 1): the listening socket is closed, so
** the kernel refuses new connections (ECONNREFUSED), and bound again to
** the same address and port when the time is up (a pause during a pause
** lasts until the later end).  Idle connections (no request in flight)
** are closed; the others are served meanwhile.  If the address cannot be
** bound again (another socket took the port), the notice callback says so
** and http_server_run returns that errno.  For a handler: scripted
** "connection refused" faults. */
void http_server_pause(HttpServer *s, unsigned ms);

#endif
