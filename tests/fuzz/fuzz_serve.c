/* SPDX-License-Identifier: MIT */
/* fuzz_serve.c - libFuzzer targets: a server's whole handling of what a
** client sends, from the raw bytes of a connection to the bytes it answers.
** Built once per server, chosen by a definition:
**   FUZZ_SERVE_LLM      the mock LLM API server (runtime/llm: `scvm serve llm`)
**   FUZZ_SERVE_REST     the Agent Harbor REST mock (runtime/rest: `scvm serve rest`)
**   FUZZ_SERVE_HARNESS  the harness event server (runtime/harness: `scvm serve harness`)
**
** The input is the client side of up to four connections, cut at each
** "\0CONN\0" (an event stream takes its connection for good: the prompts
** that feed it come on another), each as it is: requests, pipelined or
** not, malformed or not.  A server is made for each input (so an input
** replays alone), for the scenarios of the pack in $FUZZ_SERVE_PACK, at
** speed 0, without a listener: each connection is one end of a socket
** pair, written and shut for writing before the server runs (so it meets
** the same bytes the same way every time), and adopted in order
** (http_server_adopt on *_server_http); the server runs the shared HTTP loop
** (runtime/http/http_server.c) until it has nothing left to do but wait
** for time (an open event stream, a paced answer: nothing waits), while a
** thread reads the answers.
**
** A finding besides a crash, a leak or a sanitizer report: answers that
** are not HTTP/1.1 responses one after the other, each framed as its head
** says (Content-Length, chunks); only the last may stop short (a scripted
** cut, an open stream).  The LLM server also runs its end-of-session
** assertions (llm_server_finish, workspace /nonexistent), plays with
** --loop when the input's size is odd, and speaks an agent's tool
** vocabulary (docs/real-agents.md) by the input's size modulo 3: 0 none,
** 1 every shipped profile (--agent auto), 2 one of them.  With FUZZ_SERVE_DUMP set, the
** answers are written to stdout.
**
** Built with -DSCC_FUZZ=ON (clang).  Seeds and findings live in
** tests/fuzz/<server>-corpus/ (README.md there), replayed under ctest with
** the pack compiled by this build's scc (fuzz_serve_packs). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/buf.h"
#include "formats/suite.h"
#include "runtime/http/http_server.h"

#if defined FUZZ_SERVE_LLM
#include "runtime/agent/agent_profile.h"
#include "runtime/llm/llm.h"
#elif defined FUZZ_SERVE_REST
#include "runtime/rest/rest_server.h"
#elif defined FUZZ_SERVE_HARNESS
#include "runtime/harness/harness_server.h"
#else
#error "define FUZZ_SERVE_LLM, FUZZ_SERVE_REST or FUZZ_SERVE_HARNESS"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static Suite *suite;
static FILE *devnull;
#if defined FUZZ_SERVE_LLM
enum { MAX_PROFILES = 16 };
static AgentProfile *profiles[MAX_PROFILES];    /* the shipped ones */
static size_t n_profiles;
#endif

/* The clients: each connection's bytes (written up front as far as the
** socket takes them, the rest here), its side shut for writing once all
** are sent, and every answer read until the server closes it. */
enum { MAX_CONNS = 4 };
static const char SEP[] = "\0CONN\0";
#define SEP_LEN (sizeof SEP - 1)

typedef struct Client {
    int fd;
    const uint8_t *data;
    size_t size, off;
    bool shut, eof;
    Buf got;
} Client;

typedef struct Clients {
    Client c[MAX_CONNS];
    size_t n;
} Clients;

/* Sends what the socket takes now; shuts the side when all is sent (or
** the server closed it: it answered already). */
static void client_send(Client *c)
{
    while (!c->shut && c->off < c->size) {
        ssize_t w = send(c->fd, c->data + c->off, c->size - c->off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0)
            c->off += (size_t)w;
        else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        else if (!(w < 0 && errno == EINTR))
            break;
    }
    if (!c->shut) {
        shutdown(c->fd, SHUT_WR);
        c->shut = true;
    }
}

static void *clients_run(void *arg)
{
    Clients *cs = arg;
    for (;;) {
        struct pollfd pf[MAX_CONNS];
        size_t open = 0;
        for (size_t i = 0; i < cs->n; i++) {
            pf[i].fd = cs->c[i].eof ? -1 : cs->c[i].fd;
            pf[i].events = (short)(POLLIN | (cs->c[i].shut ? 0 : POLLOUT));
            pf[i].revents = 0;
            open += !cs->c[i].eof;
        }
        if (!open)
            return NULL;
        if (poll(pf, cs->n, -1) < 0) {
            if (errno == EINTR)
                continue;
            abort();
        }
        for (size_t i = 0; i < cs->n; i++) {
            Client *c = &cs->c[i];
            if (pf[i].revents & POLLOUT)
                client_send(c);
            if (pf[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                char b[65536];
                ssize_t n = recv(c->fd, b, sizeof b, MSG_DONTWAIT);
                if (n > 0)
                    buf_put(&c->got, b, (size_t)n);
                else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
                    c->eof = true;
            }
        }
    }
}

/* The value of header name in head[0..n), or NULL. */
static const char *header(const char *h, size_t n, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < n;) {
        const char *eol = memmem(h + i, n - i, "\r\n", 2);
        size_t end = eol ? (size_t)(eol - h) : n;
        if (end - i > nl && h[i + nl] == ':' && strncasecmp(h + i, name, nl) == 0) {
            size_t v = i + nl + 1;
            while (v < end && (h[v] == ' ' || h[v] == '\t'))
                v++;
            *len = end - v;
            return h + v;
        }
        i = end + 2;
    }
    return NULL;
}

/* Aborts unless b[0..n) is HTTP/1.1 responses, each framed as its head
** says; the last may stop short. */
static void check_answers(const char *b, size_t n)
{
    size_t p = 0;
    while (p < n) {
        if (memcmp(b + p, "HTTP/", n - p < 5 ? n - p : 5) != 0)
            abort();    /* not a response */
        const char *e = memmem(b + p, n - p, "\r\n\r\n", 4);
        if (!e)
            return;     /* cut in its head */
        size_t h0 = p, hn = (size_t)(e - b) + 4 - p;
        if (hn < 16 || memcmp(b + h0, "HTTP/1.1 ", 9) != 0 || b[h0 + 9] < '1' || b[h0 + 9] > '5' ||
            b[h0 + 10] < '0' || b[h0 + 10] > '9' || b[h0 + 11] < '0' || b[h0 + 11] > '9' || b[h0 + 12] != ' ')
            abort();    /* a status line that is not HTTP/1.1 NNN */
        int status = (b[h0 + 9] - '0') * 100 + (b[h0 + 10] - '0') * 10 + (b[h0 + 11] - '0');
        p += hn;
        if (status < 200 || status == 204 || status == 304)
            continue;
        size_t vl;
        const char *te = header(b + h0, hn, "Transfer-Encoding", &vl);
        const char *cl = header(b + h0, hn, "Content-Length", &vl);
        if (te && cl)
            abort();    /* both framings */
        if (te) {
            if (vl != 7 || strncasecmp(te, "chunked", 7) != 0)
                abort();
            for (;;) {
                size_t size = 0, q = p;
                while (q < n && b[q] != '\r') {
                    int c = b[q], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                    if (d < 0 || size > (SIZE_MAX >> 4))
                        abort();    /* not a chunk size */
                    size = size * 16 + (size_t)d;
                    q++;
                }
                if (q == p && q < n)
                    abort();        /* an empty chunk size */
                if (q + 2 > n)
                    return;
                if (b[q + 1] != '\n')
                    abort();
                q += 2;
                if (size > n - q || n - q - size < 2)
                    return;         /* cut in a chunk */
                if (b[q + size] != '\r' || b[q + size + 1] != '\n')
                    abort();        /* a chunk longer than its size */
                p = q + size + 2;
                if (size == 0)
                    break;
            }
        } else if (cl) {
            size_t len = 0;
            for (size_t i = 0; i < vl; i++) {
                if (cl[i] < '0' || cl[i] > '9' || len > SIZE_MAX / 10 - 1)
                    abort();
                len = len * 10 + (size_t)(cl[i] - '0');
            }
            if (len > n - p)
                return;     /* cut in its body */
            p += len;
        } else {
            return;         /* to the end of the connection */
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!suite) {
        const char *pack = getenv("FUZZ_SERVE_PACK");
        SuiteErr e;
        suite = suite_new();
        if (!pack || !suite || suite_add_file(suite, pack, &e) != 0) {
            fprintf(stderr, "fuzz_serve: set FUZZ_SERVE_PACK to a compiled pack (%s)\n", pack ? e.msg : "unset");
            abort();
        }
        devnull = fopen("/dev/null", "w");
#if defined FUZZ_SERVE_LLM
        for (size_t i = 0; agent_profile_builtins[i] && n_profiles < MAX_PROFILES; i++) {
            size_t len;
            const char *b = agent_profile_builtin(agent_profile_builtins[i], &len);
            char err[256];
            if (!b || !(profiles[n_profiles++] = agent_profile_parse(b, len, agent_profile_builtins[i], err, sizeof err)))
                abort();
        }
#endif
    }
    /* the connections: the input cut at each SEP, MAX_CONNS at most */
    Clients cs;
    memset(&cs, 0, sizeof cs);
    int server_fd[MAX_CONNS];
    for (size_t off = 0; cs.n < MAX_CONNS;) {
        const uint8_t *sep = cs.n + 1 < MAX_CONNS ? memmem(data + off, size - off, SEP, SEP_LEN) : NULL;
        size_t len = sep ? (size_t)(sep - data) - off : size - off;
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            abort();
        Client *c = &cs.c[cs.n];
        c->fd = sv[1];
        c->data = data + off;
        c->size = len;
        buf_init(&c->got);
        server_fd[cs.n++] = sv[0];
        client_send(c);     /* all of it, as a rule: the server meets it whole */
        if (!sep)
            break;
        off += len + SEP_LEN;
    }
    int err = 0, st;
#if defined FUZZ_SERVE_LLM
    /* the agent's vocabulary, by the input's size: none, every shipped
    ** profile (--agent auto), or one of them */
    LlmServeOpts o = { .speed = 0, .workspace = "/nonexistent", .loop = (size & 1) != 0,
                       .max_conns = 4, .log = devnull, .no_signals = true };
    if (size % 3 == 1) {
        o.profiles = profiles;
        o.n_profiles = n_profiles;
    } else if (size % 3 == 2) {
        o.profiles = &profiles[size / 3 % n_profiles];
        o.n_profiles = 1;
    }
    LlmServer *s = llm_server_new(suite, &o, &err);
    if (s && o.n_profiles == 1) {
        char why[512];
        llm_server_check_tools(s, why, sizeof why);     /* scvm serve --agent checks this first */
    }
#elif defined FUZZ_SERVE_REST
    RestOpts o = { .speed = 0, .log = devnull, .max_conns = 4, .no_signals = true };
    RestServer *s = rest_server_new(suite, &o, &err);
#else
    HarnessOpts o = { .speed = 0, .log = devnull, .max_conns = 4, .no_signals = true };
    HarnessServer *s = harness_server_new(suite, &o, &err);
#endif
    if (!s)
        abort();
#if defined FUZZ_SERVE_LLM
    HttpServer *http = llm_server_http(s);
#elif defined FUZZ_SERVE_REST
    HttpServer *http = rest_server_http(s);
#else
    HttpServer *http = harness_server_http(s);
#endif
    pthread_t t;
    if (pthread_create(&t, NULL, clients_run, &cs) != 0)
        abort();
    for (size_t i = 0; i < cs.n; i++)
        if (http_server_adopt(http, server_fd[i], "fd") != 0)
            abort();
    st = http_server_run_until_idle(http);
    if (st != 0)
        abort();        /* the loop itself failed */
    pthread_join(t, NULL);
    for (size_t i = 0; i < cs.n; i++) {
        Client *c = &cs.c[i];
        close(c->fd);
        if (c->got.oom)
            abort();
        if (getenv("FUZZ_SERVE_DUMP")) {
            printf("=== connection %zu: %zu bytes in, %zu out\n", i + 1, c->size, c->got.len);
            fwrite(c->got.data, 1, c->got.len, stdout);   /* to see what an input gets */
            printf("\n");
        }
        check_answers((const char *)c->got.data, c->got.len);
    }
#if defined FUZZ_SERVE_LLM
    llm_server_finish(s);
    llm_server_free(s);
#elif defined FUZZ_SERVE_REST
    rest_server_free(s);
#else
    harness_server_free(s);
#endif
    for (size_t i = 0; i < cs.n; i++)
        buf_fini(&cs.c[i].got);
    return 0;
}
