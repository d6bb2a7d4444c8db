/* SPDX-License-Identifier: MIT */
/* llm_alloc.c - the mock LLM server with each of its allocations failing
** in turn (sc_alloc_fail_after), once and in bursts of 2 and 4 (sc_alloc_fail_count):
** creating the server, accepting, reading, routing, sessions, rendering
** streamed and whole answers.  Each run has three clients; the ones the
** failures hit get their answer whole, a whole 5xx head or a closed
** connection (never a torn answer), every later one is served whole (the
** loop recovered), and the ASan build finds no leak.
**
** usage: llm_alloc TIMING_SCB   (tests/llm/scenarios/timing.yaml compiled) */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/sc_alloc.h"
#include "formats/suite.h"
#include "runtime/http/http_server.h"
#include "runtime/llm/llm.h"
#include "../http/loopback.h"
#include "tests/check.h"

static void *serve(void *arg)
{
    http_server_run(llm_server_http(arg));
    return NULL;
}

/* Sends req and reads until the peer closes or 5 s pass. */
static size_t exchange(const char *bound, const char *req, char *out, size_t cap)
{
    int fd = lb_dial(bound);
    if (fd < 0)
        return 0;
    send(fd, req, strlen(req), MSG_NOSIGNAL);
    size_t n = lb_read(fd, out, cap, cap);
    close(fd);
    return n;
}

#define BODY_S "{\"model\":\"timing\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}"
#define BODY_W "{\"model\":\"timing\",\"messages\":[{\"role\":\"user\",\"content\":\"go\"}]}"
static char req_s[512], req_w[512];

typedef struct Got {
    char b[3][16384];
    size_t n[3];
} Got;

static bool run(const Suite *suite, unsigned long n, unsigned long burst, Got *g)
{
    LlmServeOpts o = { .port = "0", .speed = 0, .loop = true, .quiet = true };
    sc_alloc_reset();
    sc_alloc_fail_after = n;
    sc_alloc_fail_count = burst;
    int err = 0;
    memset(g->n, 0, sizeof g->n);
    LlmServer *s = llm_server_new(suite, &o, &err);
    if (!s)
        return false;
    char bound[96];
    if (llm_server_listen(s, bound, sizeof bound) != 0) {
        llm_server_free(s);
        return false;
    }
    pthread_t th;
    pthread_create(&th, NULL, serve, s);
    g->n[0] = exchange(bound, req_s, g->b[0], sizeof g->b[0]);
    g->n[1] = exchange(bound, req_w, g->b[1], sizeof g->b[1]);
    g->n[2] = exchange(bound, req_s, g->b[2], sizeof g->b[2]);
    http_server_stop(llm_server_http(s));
    pthread_join(th, NULL);
    llm_server_finish(s);
    llm_server_free(s);
    return true;
}

/* Each allocation in turn starts a burst of failures; the clients get
** their answers whole or a clean error (a whole 5xx head, or a close),
** the short ones are at most burst and follow each other, and every
** client after them is served whole: the loop recovered. */
static void try_bursts(const Suite *suite, const Got *full, unsigned long burst)
{
    static Got got;
    unsigned long n, hits = 0, shorted = 0;
    for (n = 1; n < 100000; n++) {
        bool made = run(suite, n, burst, &got);
        unsigned long failed = sc_alloc_failed();
        sc_alloc_fail_after = sc_alloc_fail_count = 0;
        if (!failed)
            break;
        CHECK(failed <= burst);
        hits++;
        if (!made)
            continue;
        int short_of = 0, first = -1, last = -1;
        for (int k = 0; k < 3; k++) {
            bool whole = got.n[k] == full->n[k] && memcmp(got.b[k], full->b[k], full->n[k]) == 0;
            if (!whole) {
                short_of++;
                if (first < 0)
                    first = k;
                last = k;
                /* a clean error is an HTTP answer, never a torn one */
                bool clean = got.n[k] == 0 || (strncmp(got.b[k], "HTTP/1.1 5", 10) == 0 &&
                                               strstr(got.b[k], "\r\n\r\n") != NULL);
                if (!clean)
                    fprintf(stderr, "allocation %lu, burst %lu, client %d: %.*s\n", n, burst, k, (int)got.n[k],
                            got.b[k]);
                CHECK(clean);
            }
        }
        CHECK((unsigned long)short_of <= burst);
        CHECK(short_of == 0 || last - first + 1 == short_of);
        shorted += short_of != 0;
    }
    CHECK(n < 100000 && hits >= 20 && shorted >= 10);
    printf("llm_alloc: %lu allocation failures injected, %lu in a row each (%lu cost a client its answer), "
           "the server recovered from each\n", hits, burst, shorted);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: llm_alloc TIMING_SCB\n", stderr);
        return 2;
    }
    snprintf(req_s, sizeof req_s,
             "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Connection: close\r\nContent-Length: %zu\r\n\r\n%s", strlen(BODY_S), BODY_S);
    snprintf(req_w, sizeof req_w,
             "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Connection: close\r\nContent-Length: %zu\r\n\r\n%s", strlen(BODY_W), BODY_W);
    Suite *suite = suite_new();
    if (!suite || suite_add_file(suite, argv[1], NULL) != 0) {
        fprintf(stderr, "llm_alloc: cannot load %s\n", argv[1]);
        return 1;
    }
    static Got full;
    CHECK(run(suite, 0, 0, &full));
    CHECK(strstr(full.b[0], "200 OK") && strstr(full.b[0], "three") && strstr(full.b[0], "data: [DONE]"));
    CHECK(strstr(full.b[1], "200 OK") && strstr(full.b[1], "one two three"));
    CHECK(full.n[2] == full.n[0] && memcmp(full.b[2], full.b[0], full.n[0]) == 0);
    /* one failure at a time, then bursts of 2 and 4 in a row (the error
    ** path's own allocations fail too) */
    static const unsigned long bursts[] = { 1, 2, 4 };
    for (size_t i = 0; i < sizeof bursts / sizeof bursts[0]; i++)
        try_bursts(suite, &full, bursts[i]);
    suite_free(suite);
    return failures ? 1 : 0;
}
