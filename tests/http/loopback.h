/* SPDX-License-Identifier: MIT */
/* loopback.h - the client side of the C tests that talk to a server on
** loopback (tests/http/http_unit.c, tests/llm/llm_alloc.c). */
#ifndef SC_TEST_LOOPBACK_H
#define SC_TEST_LOOPBACK_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A connection to "ADDR:PORT" (IPv4, as http_server_listen reports it),
** or -1. */
static inline int lb_dial(const char *bound)
{
    char host[128];
    snprintf(host, sizeof host, "%s", bound);
    char *colon = strrchr(host, ':');
    if (!colon)
        return -1;
    *colon = 0;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1)) };
    inet_pton(AF_INET, host, &a.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads into out until want bytes (at most cap), the peer closes, or 5 s
** pass without data.  Returns the bytes read. */
static inline size_t lb_read(int fd, char *out, size_t cap, size_t want)
{
    size_t n = 0;
    while (n < want && n < cap) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 5000) <= 0)
            break;
        ssize_t k = recv(fd, out + n, cap - n, 0);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    return n;
}

#endif
