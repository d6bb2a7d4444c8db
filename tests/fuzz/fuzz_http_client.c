/* SPDX-License-Identifier: MIT */
/* fuzz_http_client.c - libFuzzer target: what the HTTP client reads from a
** server (runtime/http/http_client.h), for agents under test that serve an
** API.  The input is the server's whole answer, waiting on the other end of
** a socket pair that is then shut for writing, so the client meets every
** framing (Content-Length, chunks, to the end of the connection) and every
** way of cutting one short, and never waits.
**
** Built with -DSCC_FUZZ=ON (clang).  Seeds and findings live in
** tests/fuzz/httpc-corpus/, replayed under ctest. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/http/http_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) != 0)
        abort();
    /* as much of the answer as the socket holds (64 KiB inputs fit) */
    for (size_t off = 0; off < size;) {
        ssize_t w = write(sv[1], data + off, size - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    shutdown(sv[1], SHUT_WR);
    HttpUrl u;
    char err[512];
    if (!http_url_parse("http://127.0.0.1:9/v1/chat/completions", &u, err, sizeof err))
        abort();
    HttpResponse res;
    int st = http_exchange(sv[0], &u, "http://127.0.0.1:9/v1/chat/completions", "POST", "X-Fuzz: 1\r\n", "{}", 2, 0,
                           -1, 1u << 16, &res, err, sizeof err);
    if (st == 0) {
        if (res.body.len > 1u << 16 || (res.body.data && res.body.data[res.body.len] != 0))
            abort();
        buf_fini(&res.body);
    }
    close(sv[0]);
    close(sv[1]);
    return 0;
}
