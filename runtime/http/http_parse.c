/* SPDX-License-Identifier: MIT */
/* http_parse.c - HTTP/1.1 request heads (RFC 9112), strictly: CRLF line
** ends, token methods and header names, no obs-fold, one Content-Length,
** no Transfer-Encoding together with Content-Length (request smuggling).
** Bodies have a Content-Length or "Transfer-Encoding: chunked" (decoded
** by http_chunked, within the same body limit); other codings get 501. */
#include "http_parse.h"

#include <string.h>

static bool is_tchar(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool ieq(const char *a, size_t n, const char *b)
{
    if (strlen(b) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z')
            x = (unsigned char)(x + 32);
        if (y >= 'A' && y <= 'Z')
            y = (unsigned char)(y + 32);
        if (x != y)
            return false;
    }
    return true;
}

/* Does the comma-separated list v contain token tok (case-insensitive)? */
static bool list_has(const char *v, size_t n, const char *tok)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e > s && ieq(v + s, e - s, tok))
            return true;
    }
    return false;
}

static int fail(int *status, const char **why, int st, const char *w)
{
    *status = st;
    *why = w;
    return -1;
}

int http_parse_head(const char *buf, size_t len, size_t max_head, uint64_t max_body,
                    HttpReq *r, int *status, const char **why)
{
    memset(r, 0, sizeof *r);
    /* Find the end of the head within max_head bytes, rejecting on the
    ** way what can never become a request: a NUL, or an LF without its CR,
    ** anywhere before the end.  Either is 400 with the same words, so the
    ** answer is the same whether the head arrived whole or in pieces
    ** (tests/fuzz/fuzz_http.c).  memchr does the scanning. */
    size_t lim = len < max_head ? len : max_head;
    size_t end = 0;
    const char *p = buf, *stop = buf + lim;
    while (p < stop) {
        const char *nl = memchr(p, '\n', (size_t)(stop - p));
        if (!nl)
            break;
        if (nl == buf || nl[-1] != '\r')
            return fail(status, why, 400, "bare LF or NUL in the request head");
        if (nl - buf >= 3 && nl[-2] == '\n' && nl[-3] == '\r') {
            end = (size_t)(nl - buf) + 1;
            break;
        }
        p = nl + 1;
    }
    if (memchr(buf, 0, end ? end : lim))
        return fail(status, why, 400, "bare LF or NUL in the request head");
    if (!end) {
        if (len >= max_head)
            return fail(status, why, 431, "request head too large");
        return 0;
    }
    r->head_len = end;

    /* Request line: METHOD SP target SP HTTP/1.x CRLF */
    size_t i = 0;
    while (i < end && is_tchar((unsigned char)buf[i]))
        i++;
    if (i == 0 || i > 16 || buf[i] != ' ')
        return fail(status, why, 400, "malformed request line (method)");
    r->method = buf;
    r->method_len = i++;
    size_t ts = i;
    while (i < end && buf[i] != ' ' && buf[i] != '\r') {
        unsigned char c = (unsigned char)buf[i];
        if (c <= 0x20 || c == 0x7f)
            return fail(status, why, 400, "malformed request target");
        i++;
    }
    if (i == ts || buf[i] != ' ' || buf[ts] != '/')
        return fail(status, why, 400, "malformed request line (target must start with '/')");
    r->target = buf + ts;
    r->target_len = i - ts;
    i++;
    if (end - i < 10 || memcmp(buf + i, "HTTP/", 5) != 0)
        return fail(status, why, 400, "malformed request line (version)");
    const char *v = buf + i + 5;
    if (!(v[0] >= '0' && v[0] <= '9' && v[1] == '.' && v[2] >= '0' && v[2] <= '9' && v[3] == '\r' && v[4] == '\n'))
        return fail(status, why, 400, "malformed request line (version)");
    if (v[0] != '1' || v[2] > '1')
        return fail(status, why, 505, "only HTTP/1.0 and HTTP/1.1 are supported");
    r->minor = v[2] - '0';
    i += 10;

    /* Header fields. */
    bool have_cl = false, have_te = false, chunked = false, close = false, ka = false;
    while (i < end - 2) {
        size_t ls = i, le = i;
        while (le < end && buf[le] != '\r')
            le++;
        if (le + 1 >= end || buf[le + 1] != '\n')
            return fail(status, why, 400, "bare CR in the request head");
        for (size_t k = ls; k < le; k++) {
            unsigned char c = (unsigned char)buf[k];
            if (c == '\n' || c == 0 || (c < 0x20 && c != '\t') || c == 0x7f)
                return fail(status, why, 400, "control character in a header");
        }
        if (buf[ls] == ' ' || buf[ls] == '\t')
            return fail(status, why, 400, "obsolete header line folding");
        size_t c = ls;
        while (c < le && is_tchar((unsigned char)buf[c]))
            c++;
        if (c == ls || c >= le || buf[c] != ':')
            return fail(status, why, 400, "malformed header field");
        if (r->n_h == HTTP_MAX_HEADERS)
            return fail(status, why, 431, "too many header fields");
        HttpHeader *h = &r->h[r->n_h++];
        h->name = buf + ls;
        h->name_len = c - ls;
        size_t vs = c + 1, ve = le;
        while (vs < ve && (buf[vs] == ' ' || buf[vs] == '\t'))
            vs++;
        while (ve > vs && (buf[ve - 1] == ' ' || buf[ve - 1] == '\t'))
            ve--;
        h->value = buf + vs;
        h->value_len = ve - vs;
        i = le + 2;

        if (ieq(h->name, h->name_len, "content-length")) {
            if (h->value_len == 0 || h->value_len > 19)
                return fail(status, why, h->value_len > 19 ? 413 : 400, "invalid Content-Length");
            uint64_t n = 0;
            for (size_t k = 0; k < h->value_len; k++) {
                char d = h->value[k];
                if (d < '0' || d > '9')
                    return fail(status, why, 400, "invalid Content-Length");
                n = n * 10 + (uint64_t)(d - '0');
            }
            if (have_cl && n != r->content_length)
                return fail(status, why, 400, "conflicting Content-Length fields");
            have_cl = true;
            r->content_length = n;
        } else if (ieq(h->name, h->name_len, "transfer-encoding")) {
            /* chunked alone: other codings (gzip, ...) are not decoded */
            if (have_te)
                return fail(status, why, 400, "more than one Transfer-Encoding field");
            have_te = true;
            chunked = ieq(h->value, h->value_len, "chunked");
        } else if (ieq(h->name, h->name_len, "connection")) {
            close |= list_has(h->value, h->value_len, "close");
            ka |= list_has(h->value, h->value_len, "keep-alive");
        } else if (ieq(h->name, h->name_len, "expect")) {
            if (!ieq(h->value, h->value_len, "100-continue"))
                return fail(status, why, 417, "unsupported Expect");
            r->expect_continue = true;
        }
    }
    if (have_te && have_cl)
        return fail(status, why, 400, "both Transfer-Encoding and Content-Length");
    if (have_te && !chunked)
        return fail(status, why, 501, "unsupported Transfer-Encoding");
    r->chunked = have_te;
    if (r->content_length > max_body)
        return fail(status, why, 413, "request body too large");
    r->keep_alive = r->minor == 1 ? !close : (ka && !close);
    return 1;
}

enum { CH_SIZE, CH_DATA, CH_DATA_END, CH_TRAILER, CH_DONE };
enum { CH_LINE_MAX = 1024, CH_TRAILER_MAX = 8192 };

int http_chunked(char *buf, size_t len, uint64_t max_body, HttpChunked *st, int *status, const char **why)
{
    for (;;) {
        if (st->phase == CH_DONE)
            return 1;
        if (st->phase == CH_DATA) {
            size_t avail = len - st->pos;
            size_t n = st->left < avail ? (size_t)st->left : avail;
            if (n) {
                memmove(buf + st->body_len, buf + st->pos, n);   /* over the framing */
                st->body_len += n;
                st->pos += n;
                st->left -= n;
            }
            if (st->left)
                return 0;
            st->phase = CH_DATA_END;
            continue;
        }
        if (st->phase == CH_DATA_END) {
            if (len - st->pos < 2)
                return 0;
            if (buf[st->pos] != '\r' || buf[st->pos + 1] != '\n')
                return fail(status, why, 400, "chunk data not followed by CRLF");
            st->pos += 2;
            st->phase = CH_SIZE;
            continue;
        }
        /* a line: a chunk size (CH_SIZE) or a trailer field (CH_TRAILER) */
        const char *line = buf + st->pos;
        size_t avail = len - st->pos, ll = 0;
        while (ll + 1 < avail && !(line[ll] == '\r' && line[ll + 1] == '\n'))
            ll++;
        if (ll + 1 >= avail) {
            if (st->phase == CH_SIZE && avail > CH_LINE_MAX)
                return fail(status, why, 400, "chunk size line too long");
            if (st->phase == CH_TRAILER && st->trailer + avail > CH_TRAILER_MAX)
                return fail(status, why, 431, "chunked trailer fields too large");
            return 0;
        }
        /* the same limit whether the line arrived whole or in pieces */
        if (ll + 2 > CH_LINE_MAX && st->phase == CH_SIZE)
            return fail(status, why, 400, "chunk size line too long");
        st->pos += ll + 2;
        if (st->phase == CH_TRAILER) {
            st->trailer += ll + 2;
            if (st->trailer > CH_TRAILER_MAX)
                return fail(status, why, 431, "chunked trailer fields too large");
            if (ll == 0)
                st->phase = CH_DONE;
            continue;
        }
        uint64_t size = 0;
        size_t k = 0;
        for (; k < ll; k++) {
            char c = line[k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0)
                break;
            if (size >> 60)
                return fail(status, why, 413, "request body too large");
            size = size * 16 + (uint64_t)d;
        }
        if (k == 0 || (k < ll && line[k] != ';' && line[k] != ' ' && line[k] != '\t'))
            return fail(status, why, 400, "invalid chunk size");
        if (size == 0) {
            st->phase = CH_TRAILER;
            continue;
        }
        if (size > max_body || st->body_len + size > max_body)
            return fail(status, why, 413, "request body too large");
        st->left = size;
        st->phase = CH_DATA;
    }
}

const HttpHeader *http_header(const HttpReq *r, const char *name)
{
    for (unsigned i = 0; i < r->n_h; i++)
        if (ieq(r->h[i].name, r->h[i].name_len, name))
            return &r->h[i];
    return NULL;
}

bool http_is(const HttpReq *r, const char *m, const char *p)
{
    size_t pl = r->target_len;
    const char *q = memchr(r->target, '?', pl);
    if (q)
        pl = (size_t)(q - r->target);
    return r->method_len == strlen(m) && memcmp(r->method, m, r->method_len) == 0 &&
           pl == strlen(p) && memcmp(r->target, p, pl) == 0;
}

const char *http_reason(int status)
{
    /* The IANA HTTP Status Code Registry (RFC 9110 section 15 and the
    ** RFCs it names), and 529, which the Anthropic API sends.  A code the
    ** registry does not name gets an empty phrase: "HTTP/1.1 599 " is a
    ** valid status line (RFC 9112 section 4), a made-up phrase is not
    ** better. */
    switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 102: return "Processing";
    case 103: return "Early Hints";
    case 104: return "Upload Resumption Supported";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 205: return "Reset Content";
    case 206: return "Partial Content";
    case 207: return "Multi-Status";
    case 208: return "Already Reported";
    case 226: return "IM Used";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 305: return "Use Proxy";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 417: return "Expectation Failed";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Content";
    case 423: return "Locked";
    case 424: return "Failed Dependency";
    case 425: return "Too Early";
    case 426: return "Upgrade Required";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 451: return "Unavailable For Legal Reasons";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    case 506: return "Variant Also Negotiates";
    case 507: return "Insufficient Storage";
    case 508: return "Loop Detected";
    case 510: return "Not Extended";
    case 511: return "Network Authentication Required";
    case 529: return "Site Overloaded";
    default: return "";
    }
}
