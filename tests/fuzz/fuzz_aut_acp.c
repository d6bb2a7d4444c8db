/* SPDX-License-Identifier: MIT */
/* fuzz_aut_acp.c - libFuzzer target: what the agent-under-test client reads
** from an ACP agent (runtime/aut/aut.c): the agent's whole side of the
** stream, JSON-RPC lines or anything, waiting on the other end of a socket
** pair that is then shut for writing.  The client does its handshake and
** two turns over it; every answer it needs is either in the input or cut off
** by its end, so nothing waits.
**
** Built with -DSCC_FUZZ=ON (clang).  Seeds and findings live in
** tests/fuzz/aut-acp-corpus/, replayed under ctest. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runtime/aut/aut.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        abort();
    int big = 1 << 20;
    setsockopt(sv[0], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    for (size_t off = 0; off < size;) {
        ssize_t w = write(sv[1], data + off, size - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    shutdown(sv[1], SHUT_WR);
    AutConfig c = { .kind = AUT_ACP, .timeout_ms = 2000, .cancel_fd = -1, .cwd = "/" };
    char err[512];
    Aut *a = aut_open_acp_fd(&c, sv[0], err, sizeof err);
    for (int turn = 0; a && turn < 2; turn++) {
        AutReply r;
        AutErr e = aut_turn(a, turn ? "again" : "hello", &r, err, sizeof err);
        aut_reply_fini(&r);
        if (e)
            break;
    }
    aut_close(a);
    close(sv[0]);
    close(sv[1]);
    return 0;
}
