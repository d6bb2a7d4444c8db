/* SPDX-License-Identifier: MIT */
/* http_client.c - one HTTP/1.1 request with a deadline (http_client.h).
**
** The response head is read up to its blank line (at most 64 KiB), its
** status line and the two headers that frame the body (Content-Length,
** Transfer-Encoding) taken from it; a chunked body is decoded by the
** servers' own decoder (http_chunked), a body without either runs to the
** end of the connection. */
#define _GNU_SOURCE     /* memmem */
#include "common/monotime.h"
#include "runtime/http/http_client.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "runtime/http/http_parse.h"

#define HEAD_MAX (64u << 10)

bool http_url_parse(const char *url, HttpUrl *u, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    if (strncmp(url, "http://", 7) != 0) {
        snprintf(err, errlen, "%s: only http:// URLs (https: put a local proxy in front)", url);
        return false;
    }
    const char *h = url + 7, *slash = strchr(h, '/');
    const char *hend = slash ? slash : h + strlen(h);
    const char *colon = NULL;
    if (*h == '[') {                        /* [v6 address]:port */
        const char *rb = memchr(h, ']', (size_t)(hend - h));
        if (!rb) {
            snprintf(err, errlen, "%s: an IPv6 address without its ]", url);
            return false;
        }
        colon = rb + 1 < hend && rb[1] == ':' ? rb + 1 : NULL;
        if ((size_t)(rb - h - 1) >= sizeof u->host)
            goto too_long;
        memcpy(u->host, h + 1, (size_t)(rb - h - 1));
    } else {
        colon = memchr(h, ':', (size_t)(hend - h));
        const char *he = colon ? colon : hend;
        if ((size_t)(he - h) >= sizeof u->host)
            goto too_long;
        memcpy(u->host, h, (size_t)(he - h));
    }
    if (!u->host[0]) {
        snprintf(err, errlen, "%s: no host", url);
        return false;
    }
    if (colon) {
        size_t pl = (size_t)(hend - colon - 1);
        if (pl == 0 || pl >= sizeof u->port || strspn(colon + 1, "0123456789") < pl) {
            snprintf(err, errlen, "%s: a bad port", url);
            return false;
        }
        memcpy(u->port, colon + 1, pl);
    } else {
        strcpy(u->port, "80");
    }
    if (snprintf(u->path, sizeof u->path, "%s", slash ? slash : "/") >= (int)sizeof u->path)
        goto too_long;
    return true;
too_long:
    snprintf(err, errlen, "%.200s...: too long a URL", url);
    return false;
}

/* Waits for fd to be ready for events; 1 ready, 0 deadline, -1 cancelled
** or failed. */
static int wait_fd(int fd, short events, uint64_t deadline, int cancel_fd)
{
    for (;;) {
        int ms = -1;
        if (deadline) {
            uint64_t now = sc_now_ms();
            if (now >= deadline)
                return 0;
            ms = (int)(deadline - now > 60000 ? 60000 : deadline - now);
        }
        struct pollfd pf[2] = { { .fd = fd, .events = events }, { .fd = cancel_fd, .events = POLLIN } };
        int r = poll(pf, cancel_fd >= 0 ? 2 : 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (cancel_fd >= 0 && pf[1].revents)
            return -1;
        if (r > 0)
            return 1;
    }
}

static int dial(const HttpUrl *u, uint64_t deadline, int cancel_fd, char *err, size_t errlen)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
    int e = getaddrinfo(u->host, u->port, &hints, &ai);
    if (e) {
        snprintf(err, errlen, "%s:%s: %s", u->host, u->port, gai_strerror(e));
        return -1;
    }
    int fd = -1, last = 0;
    for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            last = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            break;
        if (errno == EINPROGRESS) {
            int w = wait_fd(fd, POLLOUT, deadline, cancel_fd);
            int so = 0;
            socklen_t sl = sizeof so;
            if (w == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) == 0 && so == 0)
                break;
            last = w == 0 ? ETIMEDOUT : w < 0 ? ECANCELED : so;
            if (w <= 0) {
                close(fd);
                fd = w == 0 ? -2 : -3;
                break;
            }
        } else {
            last = errno;
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(ai);
    if (fd < 0)
        snprintf(err, errlen, "cannot connect to %s:%s: %s", u->host, u->port,
                 last == ECANCELED ? "cancelled" : last == ETIMEDOUT ? "no answer in time" : strerror(last));
    return fd < 0 ? (fd == -2 ? HTTP_CLIENT_TIMEOUT : fd == -3 ? HTTP_CLIENT_CANCELLED : HTTP_CLIENT_FAILED) : fd;
}

/* The value of header name in the head (its first line skipped), into
** out; false when absent. */
static bool head_value(const char *head, size_t len, const char *name, char *out, size_t n)
{
    size_t nl = strlen(name);
    const char *p = memchr(head, '\n', len), *end = head + len;
    while (p && p < end) {
        p++;
        const char *le = memchr(p, '\n', (size_t)(end - p));
        if (!le)
            break;
        if ((size_t)(le - p) > nl && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            const char *v = p + nl + 1, *ve = le;
            while (v < ve && (*v == ' ' || *v == '\t'))
                v++;
            while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
                ve--;
            snprintf(out, n, "%.*s", (int)(ve - v), v);
            return true;
        }
        p = le;
    }
    return false;
}

int http_request(const char *method, const char *url, const char *headers, const char *body, size_t body_len,
                 unsigned timeout_ms, int cancel_fd, size_t max_body, HttpResponse *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    buf_init(&res->body);
    HttpUrl u;
    if (!http_url_parse(url, &u, err, errlen))
        return -1;
    uint64_t deadline = timeout_ms ? sc_now_ms() + timeout_ms : 0;
    int fd = dial(&u, deadline, cancel_fd, err, errlen);
    if (fd < 0)
        return fd;
    int st = http_exchange(fd, &u, url, method, headers, body, body_len, deadline, cancel_fd, max_body, res, err,
                           errlen);
    close(fd);
    return st;
}

int http_exchange(int fd, const HttpUrl *up, const char *url, const char *method, const char *headers,
                  const char *body, size_t body_len, uint64_t deadline, int cancel_fd, size_t max_body,
                  HttpResponse *res, char *err, size_t errlen)
{
    const HttpUrl u = *up;
    memset(res, 0, sizeof *res);
    buf_init(&res->body);
    Buf req;
    buf_init(&req);
    bool v6 = strchr(u.host, ':') != NULL;
    buf_printf(&req, "%s %s HTTP/1.1\r\nHost: %s%s%s:%s\r\nConnection: close\r\nUser-Agent: scvm\r\n", method, u.path,
               v6 ? "[" : "", u.host, v6 ? "]" : "", u.port);
    if (body)
        buf_printf(&req, "Content-Length: %zu\r\n", body_len);
    if (headers)
        buf_puts(&req, headers);
    buf_puts(&req, "\r\n");
    if (body)
        buf_put(&req, body, body_len);
    int st = req.oom ? -1 : 0;
    if (req.oom)
        snprintf(err, errlen, "out of memory");
    /* the request out */
    for (size_t off = 0; !st && off < req.len;) {
        ssize_t w = send(fd, req.data + off, req.len - off, MSG_NOSIGNAL);
        if (w > 0) {
            off += (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            int r = wait_fd(fd, POLLOUT, deadline, cancel_fd);
            if (r <= 0) {
                snprintf(err, errlen, "%s: %s while sending", url, r == 0 ? "no answer in time" : "cancelled");
                st = r == 0 ? HTTP_CLIENT_TIMEOUT : HTTP_CLIENT_CANCELLED;
            }
        } else {
            snprintf(err, errlen, "%s: cannot send: %s", url, strerror(errno));
            st = -1;
        }
    }
    buf_fini(&req);
    /* the response in: all of it (Connection: close), framed as its head says */
    Buf in;
    buf_init(&in);
    size_t head_len = 0;
    bool eof = false;
    int64_t clen = -1;
    bool chunked = false;
    HttpChunked ck = { 0 };
    while (!st) {
        if (!head_len) {
            const char *e = in.len >= 4 ? memmem(in.data, in.len, "\r\n\r\n", 4) : NULL;
            if (e) {
                head_len = (size_t)(e - (const char *)in.data) + 4;
                int maj = 0, min = 0;
                if (sscanf((const char *)in.data, "HTTP/%d.%d %d", &maj, &min, &res->status) != 3 || maj != 1 ||
                    res->status < 100 || res->status > 999) {
                    snprintf(err, errlen, "%s: not an HTTP/1.x response", url);
                    st = -1;
                    break;
                }
                char v[64];
                if (head_value((const char *)in.data, head_len, "Content-Length", v, sizeof v)) {
                    char *endp;
                    long long n = strtoll(v, &endp, 10);
                    if (*endp || n < 0) {
                        snprintf(err, errlen, "%s: a bad Content-Length", url);
                        st = -1;
                        break;
                    }
                    clen = n;
                }
                chunked = head_value((const char *)in.data, head_len, "Transfer-Encoding", v, sizeof v) &&
                          strcasecmp(v, "chunked") == 0;
                head_value((const char *)in.data, head_len, "Content-Type", res->content_type,
                           sizeof res->content_type);
                if (res->status == 204 || res->status == 304 || strcmp(method, "HEAD") == 0)
                    clen = 0, chunked = false;
                if ((clen >= 0 && (uint64_t)clen > max_body)) {
                    snprintf(err, errlen, "%s: a response over %zu bytes", url, max_body);
                    st = -1;
                    break;
                }
            } else if (in.len > HEAD_MAX) {
                snprintf(err, errlen, "%s: a response head over %u bytes", url, HEAD_MAX);
                st = -1;
                break;
            }
        }
        if (head_len) {
            size_t have = in.len - head_len;
            if (chunked) {
                int hs;
                const char *why;
                int r = http_chunked((char *)in.data + head_len, have, max_body, &ck, &hs, &why);
                if (r < 0) {
                    snprintf(err, errlen, "%s: a bad chunked body: %s", url, why);
                    st = -1;
                    break;
                }
                if (r == 1) {
                    buf_put(&res->body, in.data + head_len, (size_t)ck.body_len);
                    break;
                }
                /* http_chunked decodes in place: what it consumed is gone */
            } else if (clen >= 0 && have >= (uint64_t)clen) {
                buf_put(&res->body, in.data + head_len, (size_t)clen);
                break;
            } else if (clen < 0 && eof) {
                buf_put(&res->body, in.data + head_len, have);
                break;
            } else if (have > max_body) {
                snprintf(err, errlen, "%s: a response over %zu bytes", url, max_body);
                st = -1;
                break;
            }
        }
        if (eof) {
            snprintf(err, errlen, "%s: the connection closed before the response ended", url);
            st = -1;
            break;
        }
        if (!buf_reserve(&in, 16384)) {
            snprintf(err, errlen, "out of memory");
            st = -1;
            break;
        }
        ssize_t r = recv(fd, in.data + in.len, in.cap - in.len, 0);
        if (r > 0) {
            in.len += (size_t)r;
        } else if (r == 0) {
            eof = true;
        } else if (errno == EAGAIN || errno == EINTR) {
            int w = wait_fd(fd, POLLIN, deadline, cancel_fd);
            if (w <= 0) {
                snprintf(err, errlen, "%s: %s", url, w == 0 ? "no answer in time" : "cancelled");
                st = w == 0 ? HTTP_CLIENT_TIMEOUT : HTTP_CLIENT_CANCELLED;
            }
        } else {
            snprintf(err, errlen, "%s: cannot read: %s", url, strerror(errno));
            st = -1;
        }
    }
    buf_fini(&in);
    if (!st && res->body.oom) {
        snprintf(err, errlen, "out of memory");
        st = -1;
    }
    if (st) {
        buf_fini(&res->body);
        return st;
    }
    buf_putc(&res->body, 0);        /* NUL-terminated, not counted */
    res->body.len--;
    return 0;
}
