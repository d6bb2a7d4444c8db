/* SPDX-License-Identifier: MIT */
/* http_server.c - the connection loop (http_server.h). */
#include "http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/monotime.h"
#include "common/buf.h"
#include "common/sc_alloc.h"

enum {
    DEFAULT_MAX_HEAD = 32 * 1024,
    READ_CHUNK = 64 * 1024,
    /* bytes one connection may read per loop turn: one read.  Four (256
    ** KiB) let six clients pushing bodies hold a turn for 5 ms where a
    ** page fault costs 13 us (docs/performance.md, "One read a turn") */
    READ_TURN = READ_CHUNK,
    DRAIN_MS = 1000,
    DRAIN_BYTES = 1 << 20,          /* discarded input after which a draining connection is closed */
    REFUSE_SLOTS = 32,              /* connections being answered 503, above max_conns */
    SPARE_FDS = 32,                 /* descriptors left to the process (listener, pipe, logs, files) */
    MAX_CONNS_CAP = 65536,          /* the default limit at most, whatever the descriptors allow */
    ACCEPT_BACKOFF_MS = 100,        /* accept(2) out of descriptors: the backlog waits this long */
    ANSWER_SMALL = 64 * 1024,       /* an answer this small is never refused for the answer budget */
};
#define DEFAULT_MAX_BODY ((size_t)16 << 20)
_Static_assert(REFUSE_SLOTS + SPARE_FDS == HTTP_SERVER_FD_RESERVE, "the reserve http_server.h announces");

/* C_DRAIN: the answer is sent and our side shut down; unread input is
** discarded until the client closes (at most DRAIN_MS and DRAIN_BYTES), so
** the close does not turn into a reset that could destroy the answer in
** flight; a client still sending past those gets the reset. */
enum { C_READ, C_SEND, C_DRAIN };

typedef struct Conn {
    int fd;
    char peer[64];
    Buf in;
    int state;
    HttpPlan plan;
    size_t item, sent, avail;
    uint64_t start_ms, last_ms, drain_ms;
    uint64_t seq;               /* its place in the order of accepting (victim's ties) */
    size_t drained;             /* bytes discarded while draining */
    uint64_t head_ms;       /* when the current request's first byte came (0: none yet) */
    unsigned served;        /* requests answered */
    bool have_head;         /* the current request's head is in; its body is not yet */
    HttpChunked chunk;      /* the current request's chunked body, decoded in place */
    bool close_after, cont_sent, peer_closed, dead;
    bool over_budget;       /* a read would have passed max_buffered: 503 */
    bool stream;            /* an open stream: its plan grows by pushes */
    uint64_t sid;           /* the id of its current answer */
    unsigned group;         /* its broadcast group (0: none) */
    uint64_t wake_ms;       /* the next item or deadline (its key in the timer heap) */
    bool refusal;           /* a 503 for a client above max_conns, in a REFUSE_SLOTS slot */
    size_t held;            /* bytes of its answer counted in HttpServer.answers */
    /* the loop's view (see "the loop" below) */
    HttpServer *srv;        /* its server (several may share one loop) */
    uint32_t ev;            /* the epoll events it is registered for */
    uint32_t re;            /* the events of this turn */
    size_t hix;             /* its place in the timer heap (SIZE_MAX: none) */
    size_t dix;             /* its place in the dirty list (SIZE_MAX: not there) */
    bool active;            /* in this turn's list of connections to step */
    bool in_ep;             /* registered in its server's epoll instance */
    size_t cix;             /* its place in HttpServer.conns (SIZE_MAX: none) */
} Conn;

struct HttpServer {
    HttpServerOpts o;
    Conn **conns;
    size_t n_conns;
    /* the loop: connections by their next wake-up (a binary heap), those
    ** changed since their events and wake-up were last worked out, and
    ** this turn's to step; the epoll instance of the loop serving it */
    Conn **heap;
    size_t n_heap;
    Conn **dirty;
    size_t n_dirty, cap_dirty;
    Conn **act;
    size_t n_act;
    int epfd;                       /* -1: not being served */
    bool lfd_polled;                /* lfd is in epfd */
    char tag_listen, tag_wake;      /* their addresses mark the listener's and the wake pipe's events */
    int lfd;
    struct sockaddr_storage addr;   /* the address listened on (its actual port) */
    socklen_t addr_len;
    char bound[80];                 /* and as text */
    uint64_t paused_until;          /* not listening until then (0: listening) */
    int wake[2];
    uint64_t refused;
    unsigned char *rbuf;    /* READ_CHUNK: every read lands here first */
    uint64_t next_sid;
    size_t buffered;        /* sum of the connections' input capacities */
    bool sigs_on;           /* our handlers are installed; the old ones: */
    struct sigaction old_int, old_term, old_hup, old_pipe;
    size_t n_refusing;      /* connections in s->conns with refusal set */
    size_t answers;         /* bytes of whole answers not yet sent, all connections */
    unsigned long fd_limit; /* RLIMIT_NOFILE's soft limit, raised to the hard one */
    uint64_t evicted;       /* connections closed to make room */
    uint64_t accepted;      /* connections accepted so far (Conn.seq) */
    uint64_t accept_after;  /* accept(2) ran out of descriptors: not before then */
};

static int g_wake_fd = -1;

static void on_signal(int sig);

/* SIGINT, SIGTERM and SIGHUP wake the loop (SIGPIPE ignored) from the
** moment the server listens, not only once it runs: a caller prints
** "listening on" between the two, and a signal sent the instant that line
** is read must stop the server (summary and all), not kill the process. */
static void sigs_catch(HttpServer *s)
{
    if (s->o.no_signals || s->sigs_on)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    g_wake_fd = s->wake[1];
    sigaction(SIGINT, &sa, &s->old_int);
    sigaction(SIGTERM, &sa, &s->old_term);
    sigaction(SIGHUP, &sa, &s->old_hup);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, &s->old_pipe);
    s->sigs_on = true;
}

static void sigs_restore(HttpServer *s)
{
    if (!s->sigs_on)
        return;
    sigaction(SIGINT, &s->old_int, NULL);
    sigaction(SIGTERM, &s->old_term, NULL);
    sigaction(SIGHUP, &s->old_hup, NULL);
    sigaction(SIGPIPE, &s->old_pipe, NULL);
    g_wake_fd = -1;
    s->sigs_on = false;
}

uint64_t http_server_now(void) { return sc_now_ms(); }

unsigned long http_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < rl.rlim_max) {
        struct rlimit nl = { rl.rlim_max, rl.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &nl) == 0)
            rl.rlim_cur = rl.rlim_max;
    }
    return rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (rlim_t)1 << 30 ? 1ul << 30 : (unsigned long)rl.rlim_cur;
}

HttpServer *http_server_new(const HttpServerOpts *o)
{
    if (!o->handle)
        return NULL;
    HttpServer *s = sc_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->o = *o;
    if (!s->o.host)
        s->o.host = "127.0.0.1";
    if (!s->o.port)
        s->o.port = "0";
    if (!s->o.max_head)
        s->o.max_head = DEFAULT_MAX_HEAD;
    if (!s->o.max_body)
        s->o.max_body = DEFAULT_MAX_BODY;
    if (!s->o.timeout_ms)
        s->o.timeout_ms = 60000;
    if (!s->o.head_timeout_ms)
        s->o.head_timeout_ms = 10000;
    if (!s->o.idle_timeout_ms)
        s->o.idle_timeout_ms = 15000;
    if (!s->o.max_buffered)
        s->o.max_buffered = s->o.max_body > ((size_t)32 << 20) ? 2 * s->o.max_body : (size_t)64 << 20;
    if (!s->o.max_answers)
        s->o.max_answers = s->o.max_buffered;
    /* One descriptor per connection, REFUSE_SLOTS for 503 answers and
    ** SPARE_FDS for the process: the soft limit is raised to the hard one,
    ** and the connection limit is what that allows (at most MAX_CONNS_CAP
    ** by default, at most what was asked for otherwise). */
    unsigned long fds = http_fd_limit();
    s->fd_limit = fds;
    unsigned long room = fds > REFUSE_SLOTS + SPARE_FDS + 16 ? fds - REFUSE_SLOTS - SPARE_FDS : 16;
    if (!s->o.max_conns)
        s->o.max_conns = room < MAX_CONNS_CAP ? (unsigned)room : MAX_CONNS_CAP;
    else if (s->o.max_conns > room)
        s->o.max_conns = (unsigned)room;
    s->lfd = -1;
    s->wake[0] = s->wake[1] = -1;
    size_t slots = (size_t)s->o.max_conns + REFUSE_SLOTS;
    s->conns = sc_calloc(slots, sizeof *s->conns);
    s->heap = sc_calloc(slots, sizeof *s->heap);
    s->dirty = sc_calloc(slots, sizeof *s->dirty);
    s->cap_dirty = slots;
    s->act = sc_calloc(slots, sizeof *s->act);
    s->epfd = -1;
    s->rbuf = sc_malloc(READ_CHUNK);
    if (!s->conns || !s->heap || !s->dirty || !s->act || !s->rbuf) {
        http_server_free(s);
        return NULL;
    }
    return s;
}

static void heap_remove(HttpServer *s, Conn *c);
static void dirty_remove(HttpServer *s, Conn *c);
static void touch(HttpServer *s, Conn *c);

static void conn_free(HttpServer *s, Conn *c)
{
    if (!c)
        return;
    /* out of every list first: what the callback below does (a push to
    ** another stream) never meets it */
    heap_remove(s, c);
    dirty_remove(s, c);
    if (c->cix != SIZE_MAX) {
        Conn *last = s->conns[--s->n_conns];
        s->conns[c->cix] = last;
        last->cix = c->cix;
        c->cix = SIZE_MAX;
    }
    if (c->stream) {
        c->stream = false;
        if (s->o.stream_closed)
            s->o.stream_closed(s->o.ctx, c->sid);
    }
    if (c->in_ep)       /* explicitly: a forked child may hold the descriptor a moment */
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    if (c->fd >= 0)
        close(c->fd);
    if (c->refusal)
        s->n_refusing--;
    s->answers -= c->held;
    s->buffered -= c->in.cap;
    buf_fini(&c->in);
    http_plan_fini(&c->plan);
    sc_free(c);
}

void http_server_free(HttpServer *s)
{
    if (!s)
        return;
    sigs_restore(s);
    for (size_t i = 0; i < s->n_conns; i++)
        conn_free(s, s->conns[i]);
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->wake[0] >= 0)
        close(s->wake[0]);
    if (s->wake[1] >= 0)
        close(s->wake[1]);
    sc_free(s->conns);
    sc_free(s->heap);
    sc_free(s->dirty);
    sc_free(s->act);
    sc_free(s->rbuf);
    sc_free(s);
}

uint64_t http_server_refused(const HttpServer *s)
{
    return s->refused;
}

uint64_t http_server_evicted(const HttpServer *s)
{
    return s->evicted;
}

unsigned http_server_max_conns(const HttpServer *s, unsigned long *fd_limit)
{
    if (fd_limit)
        *fd_limit = s->fd_limit;
    return s->o.max_conns;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        return errno;
    int fd_fl = fcntl(fd, F_GETFD);
    if (fd_fl >= 0)
        fcntl(fd, F_SETFD, fd_fl | FD_CLOEXEC);
    return 0;
}

/* Binds a listening socket to addr (SO_REUSEADDR: connections of the
** previous one may still hold the port) into s->lfd.  0 or an errno. */
static int open_listener(HttpServer *s, const struct sockaddr_storage *addr, socklen_t len)
{
    int fd = socket(addr->ss_family, SOCK_STREAM, 0);
    if (fd < 0)
        return errno;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (const struct sockaddr *)addr, len) != 0 || listen(fd, 512) != 0 || set_nonblock(fd) != 0) {
        int e = errno;
        close(fd);
        return e;
    }
    s->lfd = fd;
    return 0;
}

int http_server_listen(HttpServer *s, char *bound, size_t cap)
{
    char *end;
    errno = 0;
    unsigned long port = strtoul(s->o.port, &end, 10);
    if (!s->o.port[0] || *end || port > 65535 || errno)
        return EINVAL;
    if (s->lfd >= 0)
        return EISCONN;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    int fam;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, s->o.host, &a4->sin_addr) == 1) {
        fam = AF_INET;
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        sl = sizeof *a4;
    } else if (inet_pton(AF_INET6, s->o.host, &a6->sin6_addr) == 1) {
        fam = AF_INET6;
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        sl = sizeof *a6;
    } else if (strcmp(s->o.host, "localhost") == 0) {
        /* the loopback, IPv4's: what clients try first for "localhost" */
        fam = AF_INET;
        a4->sin_family = AF_INET;
        a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a4->sin_port = htons((uint16_t)port);
        sl = sizeof *a4;
    } else {
        /* a host name: its first address (an IPv4 one when it has one) */
        struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL, *pick = NULL;
        if (getaddrinfo(s->o.host, NULL, &hints, &ai) != 0 || !ai)
            return EINVAL;
        for (struct addrinfo *p = ai; p && !pick; p = p->ai_next)
            if (p->ai_family == AF_INET)
                pick = p;
        if (!pick)
            pick = ai;
        if (pick->ai_family != AF_INET && pick->ai_family != AF_INET6) {
            freeaddrinfo(ai);
            return EINVAL;
        }
        fam = pick->ai_family;
        memcpy(&ss, pick->ai_addr, pick->ai_addrlen);
        sl = (socklen_t)pick->ai_addrlen;
        if (fam == AF_INET)
            a4->sin_port = htons((uint16_t)port);
        else
            a6->sin6_port = htons((uint16_t)port);
        freeaddrinfo(ai);
    }
    int e = open_listener(s, &ss, sl);
    if (e)
        return e;
    sl = sizeof ss;
    getsockname(s->lfd, (struct sockaddr *)&ss, &sl);
    memcpy(&s->addr, &ss, sizeof ss);
    s->addr_len = sl;
    char host[INET6_ADDRSTRLEN];
    if (fam == AF_INET) {
        inet_ntop(AF_INET, &a4->sin_addr, host, sizeof host);
        snprintf(s->bound, sizeof s->bound, "%s:%u", host, (unsigned)ntohs(a4->sin_port));
    } else {
        inet_ntop(AF_INET6, &a6->sin6_addr, host, sizeof host);
        snprintf(s->bound, sizeof s->bound, "[%s]:%u", host, (unsigned)ntohs(a6->sin6_port));
    }
    snprintf(bound, cap, "%s", s->bound);
    if (pipe(s->wake) != 0) {
        e = errno;
        close(s->lfd);
        s->lfd = -1;
        s->wake[0] = s->wake[1] = -1;
        return e;
    }
    set_nonblock(s->wake[0]);
    set_nonblock(s->wake[1]);
    sigs_catch(s);
    return 0;
}

void http_server_pause(HttpServer *s, unsigned ms)
{
    if (s->lfd >= 0) {
        if (s->lfd_polled)
            epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->lfd, NULL);
        s->lfd_polled = false;
        close(s->lfd);
        s->lfd = -1;
    }
    /* idle keep-alive connections go too, as when a server goes down: a
    ** client's next request needs a new connection, and meets the refusal */
    for (size_t i = 0; i < s->n_conns; i++)
        if (s->conns[i]->state == C_READ && !s->conns[i]->in.len) {
            s->conns[i]->dead = true;
            touch(s, s->conns[i]);
        }
    uint64_t until = sc_now_ms() + (ms ? ms : 1);
    if (until > s->paused_until)
        s->paused_until = until;
}

/* The end of a pause: listen again on the same address.  0 or an errno
** (the port was taken meanwhile: EADDRINUSE). */
static int resume(HttpServer *s)
{
    s->paused_until = 0;
    if (!s->addr_len)
        return 0;       /* it never listened (adopted connections only): nothing to open again */
    int e = open_listener(s, &s->addr, s->addr_len);
    if (s->o.notice)
        s->o.notice(s->o.ctx, s->bound, e ? "cannot listen again after a pause" : "listening again");
    return e;
}

void http_server_stop(HttpServer *s)
{
    if (s->wake[1] >= 0) {
        char b = 1;
        ssize_t w = write(s->wake[1], &b, 1);
        (void)w;
    }
}

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    if (g_wake_fd >= 0) {
        char b = 1;
        ssize_t w = write(g_wake_fd, &b, 1);
        (void)w;
    }
    errno = saved;
}

/* ---- the loop's bookkeeping ----
** One epoll instance serves one server or several (http_server_run_many).
** Nothing is done per connection on a turn unless it has an event or is
** due: a connection's events and next wake-up are worked out again only
** when something changed it (it was stepped, pushed to, paused, made), and
** it waits in a binary heap keyed by that wake-up, so 1,000 idle
** connections cost nothing while one client is served (poll(2) of them
** all was half the server's time). */

static bool heap_less(const Conn *a, const Conn *b)
{
    return a->wake_ms < b->wake_ms;
}

static void heap_put(HttpServer *s, size_t i, Conn *c)
{
    s->heap[i] = c;
    c->hix = i;
}

static void heap_up(HttpServer *s, size_t i)
{
    Conn *c = s->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!heap_less(c, s->heap[p]))
            break;
        heap_put(s, i, s->heap[p]);
        i = p;
    }
    heap_put(s, i, c);
}

static void heap_down(HttpServer *s, size_t i)
{
    Conn *c = s->heap[i];
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const Conn *best = c;
        if (l < s->n_heap && heap_less(s->heap[l], best))
            m = l, best = s->heap[l];
        if (l + 1 < s->n_heap && heap_less(s->heap[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        heap_put(s, i, s->heap[m]);
        i = m;
    }
    heap_put(s, i, c);
}

/* c waits in the heap until wake (UINT64_MAX: out of it). */
static void heap_set(HttpServer *s, Conn *c, uint64_t wake)
{
    c->wake_ms = wake;
    if (wake == UINT64_MAX) {
        heap_remove(s, c);
        return;
    }
    if (c->hix == SIZE_MAX) {
        c->hix = s->n_heap++;
        s->heap[c->hix] = c;
    }
    heap_up(s, c->hix);
    heap_down(s, c->hix);
}

static void heap_remove(HttpServer *s, Conn *c)
{
    size_t i = c->hix;
    if (i == SIZE_MAX)
        return;
    c->hix = SIZE_MAX;
    Conn *last = s->heap[--s->n_heap];
    if (i == s->n_heap)
        return;
    heap_put(s, i, last);
    heap_up(s, i);
    heap_down(s, last->hix);
}

/* c changed: its events and wake-up are worked out before the loop waits. */
static void touch(HttpServer *s, Conn *c)
{
    if (c->dix != SIZE_MAX)
        return;
    if (s->n_dirty == s->cap_dirty) {
        /* (tombstones: more entries than connections between two settles,
        ** when many are accepted and evicted in one turn) */
        size_t cap = s->cap_dirty * 2;
        Conn **v = sc_realloc(s->dirty, cap * sizeof *v);
        if (!v) {
            c->dead = true;     /* it cannot be timed: it goes with the next settle's sweep */
            return;
        }
        s->dirty = v;
        s->cap_dirty = cap;
    }
    c->dix = s->n_dirty;
    s->dirty[s->n_dirty++] = c;
}

/* (a tombstone: settle walks the list in order, so connections are
** registered in the order they came and served in that order) */
static void dirty_remove(HttpServer *s, Conn *c)
{
    if (c->dix == SIZE_MAX)
        return;
    s->dirty[c->dix] = NULL;
    c->dix = SIZE_MAX;
}

/* c joins s's connections (the caller checked there is room), to be
** registered and timed before the loop next waits. */
static void conn_add(HttpServer *s, Conn *c)
{
    c->srv = s;
    c->hix = c->dix = SIZE_MAX;
    c->cix = s->n_conns;
    s->conns[s->n_conns++] = c;
    touch(s, c);
}

/* ---- connections ---- */

/* Input held per connection: a head, a body, and room for one chunk's
** framing (a chunked body is decoded in place as it arrives). */
static size_t in_cap(const HttpServer *s)
{
    return s->o.max_head + s->o.max_body + 65536;
}

/* Hands one request (or a malformed one: r NULL) to the handler. */
static void answer(HttpServer *s, Conn *c, const HttpReq *r, size_t body_len, int bad, const char *why)
{
    HttpExchange x = {
        .req = r, .bad_status = bad, .bad_why = why, .peer = c->peer, .plan = &c->plan,
        .keep_alive = r && r->keep_alive && !c->peer_closed, .stream_id = ++s->next_sid,
    };
    if (r) {
        x.body = (const char *)c->in.data + r->head_len;
        x.body_len = body_len;
    }
    http_plan_reset(&c->plan);
    s->o.handle(s->o.ctx, &x);
    c->sid = x.stream_id;
    c->stream = x.stream && r && c->plan.abort == HTTP_ABORT_NONE;
    c->group = c->stream ? x.stream_group : 0;
    c->close_after = !x.keep_alive || c->plan.abort != HTTP_ABORT_NONE || c->stream;
    c->served++;
    /* a stream is bounded by max_backlog instead; an answer paced by the
    ** server (items due later: a scenario's timed stream) is held for the
    ** server's pace and its size is the scenario's, not the client's */
    if (c->stream || c->plan.abort != HTTP_ABORT_NONE || !c->plan.n_items ||
        c->plan.items[c->plan.n_items - 1].at_ms > 0)
        return;
    /* A whole answer stays in memory until its client has taken it, and a
    ** client that asks and does not read could make the server hold any
    ** number of big ones: all of them together are bounded, and one that
    ** would pass the bound is a 503 instead (small ones always go). */
    size_t n = c->plan.bytes.len;
    if (n > ANSWER_SMALL && s->answers + n > s->o.max_answers) {
        if (s->o.notice)
            s->o.notice(s->o.ctx, c->peer, "answer above the server's budget for unsent answers (503)");
        static const char busy[] = "{\"error\":\"the server holds too many unsent answers; retry later\"}";
        http_plan_fini(&c->plan);
        http_plan_init(&c->plan);
        http_plan_whole(&c->plan, 503, "application/json", busy, sizeof busy - 1, false, NULL, "retry-after: 1\r\n",
                        NULL, 0);
        c->close_after = true;
        n = c->plan.bytes.len;
    }
    c->held = n;
    s->answers += n;
}

/* c's answer is sent: it no longer counts, and the memory of a large one
** goes back (a keep-alive connection keeps at most 64 KiB between answers). */
static void answer_done(HttpServer *s, Conn *c)
{
    s->answers -= c->held;
    c->held = 0;
    if (c->plan.bytes.cap > READ_CHUNK) {
        http_plan_fini(&c->plan);
        http_plan_init(&c->plan);
    } else {
        http_plan_reset(&c->plan);
    }
}

/* After a large request, give the memory back: a connection keeps at
** most 64 KiB of input capacity between requests. */
static void in_shrink(HttpServer *s, Conn *c)
{
    if (c->in.cap <= READ_CHUNK || c->in.len > READ_CHUNK / 2)
        return;
    Buf nb;
    buf_init(&nb);
    if (c->in.len) {
        buf_put(&nb, c->in.data, c->in.len);
        if (nb.oom) {
            buf_fini(&nb);
            return;     /* keep the old one */
        }
    }
    s->buffered -= c->in.cap;
    s->buffered += nb.cap;
    buf_fini(&c->in);
    c->in = nb;
}

/* The connection will read no more requests: its input goes. */
static void in_release(HttpServer *s, Conn *c)
{
    s->buffered -= c->in.cap;
    buf_fini(&c->in);
    buf_init(&c->in);
}

/* A request that will not be handled (r NULL for the handler): the
** answer for status, then the connection closes. */
static void answer_and_close(HttpServer *s, Conn *c, int status, const char *why, uint64_t now)
{
    answer(s, c, NULL, 0, status, why);
    in_release(s, c);
    c->head_ms = 0;
    c->have_head = false;
    c->state = C_SEND;
    c->item = c->sent = c->avail = 0;
    c->start_ms = c->last_ms = now;
    c->close_after = true;
    if (!c->plan.n_items || http_plan_error(&c->plan))
        c->dead = true;
}

static void conn_step(HttpServer *s, Conn *c, uint64_t now)
{
    if (c->state == C_DRAIN) {
        c->in.len = 0;
        if (c->peer_closed || now - c->drain_ms >= DRAIN_MS)
            c->dead = true;
        return;
    }
    for (;;) {
        if (c->state == C_READ && c->over_budget) {
            if (s->o.notice)
                s->o.notice(s->o.ctx, c->peer, "request data above the server's buffer budget (503)");
            c->over_budget = false;
            answer_and_close(s, c, 503, "the server holds too much request data now; retry later", now);
            if (c->dead)
                return;
            continue;
        }
        if (c->state == C_READ) {
            if (!c->in.len) {
                if (c->peer_closed)
                    c->dead = true;
                return;
            }
            HttpReq r;
            int st = 0;
            const char *why = "";
            int k = http_parse_head((const char *)c->in.data, c->in.len, s->o.max_head, s->o.max_body, &r, &st,
                                    &why);
            if (k == 0) {
                if (!c->head_ms)
                    c->head_ms = now;
                if (c->peer_closed)
                    c->dead = true;
                return;
            }
            size_t used, body_len = 0;
            if (k > 0 && r.chunked) {
                int ck = http_chunked((char *)c->in.data + r.head_len, c->in.len - r.head_len, s->o.max_body,
                                      &c->chunk, &st, &why);
                if (ck < 0)
                    k = -1;
                else if (ck == 0) {
                    /* more to come: drop the framing decoded so far, so the
                    ** input never holds more than the body and one chunk */
                    HttpChunked *ch = &c->chunk;
                    unsigned char *base = c->in.data + r.head_len;
                    size_t rest = c->in.len - r.head_len - ch->pos;
                    memmove(base + ch->body_len, base + ch->pos, rest);
                    c->in.len = r.head_len + (size_t)ch->body_len + rest;
                    ch->pos = (size_t)ch->body_len;
                    used = SIZE_MAX;
                }
                else
                    used = r.head_len + c->chunk.pos, body_len = (size_t)c->chunk.body_len;
            } else if (k > 0) {
                used = r.head_len + (size_t)r.content_length;
                body_len = (size_t)r.content_length;
            }
            if (k < 0) {
                answer(s, c, NULL, 0, st, why);
                used = c->in.len;
            } else {
                if (used == SIZE_MAX || c->in.len < used) {
                    c->have_head = true;
                    if (r.expect_continue && !c->cont_sent) {
                        static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
                        ssize_t w = send(c->fd, cont, sizeof cont - 1, MSG_NOSIGNAL);
                        (void)w;
                        c->cont_sent = true;
                    }
                    if (c->peer_closed)
                        c->dead = true;
                    return;
                }
                answer(s, c, &r, body_len, 0, NULL);
            }
            memmove(c->in.data, c->in.data + used, c->in.len - used);
            c->in.len -= used;
            in_shrink(s, c);
            c->cont_sent = false;
            c->have_head = false;
            memset(&c->chunk, 0, sizeof c->chunk);
            c->head_ms = c->in.len ? now : 0;   /* a pipelined request has begun */
            c->state = C_SEND;
            c->item = c->sent = c->avail = 0;
            c->start_ms = now;
            c->last_ms = now;
            if (c->plan.abort == HTTP_ABORT_RESET) {
                /* SO_LINGER 0: the close that follows sends a RST */
                struct linger lg = { 1, 0 };
                setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
                c->dead = true;
                return;
            }
            if (!c->plan.n_items || http_plan_error(&c->plan)) {
                c->dead = true;   /* nothing (sound) to send, e.g. out of memory: drop the connection */
                return;
            }
        }
        /* C_SEND */
        uint64_t el = now - c->start_ms;
        while (c->item < c->plan.n_items && c->plan.items[c->item].at_ms <= el) {
            c->avail = c->plan.items[c->item++].end;
            c->last_ms = now;
        }
        while (c->sent < c->avail) {
            ssize_t w = send(c->fd, c->plan.bytes.data + c->sent, c->avail - c->sent, MSG_NOSIGNAL);
            if (w > 0) {
                c->sent += (size_t)w;
                c->last_ms = now;
                continue;
            }
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return;
            c->dead = true;   /* the client went away */
            return;
        }
        if (c->item < c->plan.n_items)
            return;           /* the next item is not due yet */
        if (c->stream)
            return;           /* open: waits for pushes */
        if (c->close_after) {
            shutdown(c->fd, SHUT_WR);
            answer_done(s, c);
            c->state = C_DRAIN;
            in_release(s, c);
            c->drain_ms = now;
            c->drained = 0;
            return;
        }
        c->state = C_READ;
        answer_done(s, c);
    }
}

/* When c times out, if nothing happens before: a request head not
** complete within head_timeout_ms of its first byte, a connection with
** nothing in flight for idle_timeout_ms, a request body or an answer that
** makes no progress for timeout_ms.  UINT64_MAX: no deadline (an answer
** waiting for its next item is the server's own pace). */
static uint64_t deadline(const HttpServer *s, const Conn *c)
{
    if (c->state == C_DRAIN)
        return c->drain_ms + DRAIN_MS;
    if (c->state == C_SEND)
        return c->sent == c->avail && (c->item < c->plan.n_items || c->stream) ? UINT64_MAX
                                                                                : c->last_ms + s->o.timeout_ms;
    if (c->in.len && !c->have_head)
        return c->head_ms + s->o.head_timeout_ms;
    if (c->in.len)
        return c->last_ms + s->o.timeout_ms;
    return c->last_ms + s->o.idle_timeout_ms;
}

static void conn_read(HttpServer *s, Conn *c, uint64_t now)
{
    if (c->state == C_DRAIN) {
        /* discard, a turn's worth at most: a fast sender waits its turn */
        for (size_t got = 0; got < READ_TURN;) {
            ssize_t n = recv(c->fd, s->rbuf, READ_CHUNK, 0);
            if (n > 0) {
                got += (size_t)n;
                if ((c->drained += (size_t)n) > DRAIN_BYTES) {
                    c->dead = true;     /* no end in sight: stop reading it */
                    return;
                }
                continue;
            }
            if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK))
                c->peer_closed = true;
            if (n < 0 && errno == EINTR)
                continue;
            return;
        }
        return;
    }
    size_t cap = in_cap(s), turn = 0;
    while (c->in.len < cap && !c->over_budget && turn < READ_TURN) {
        size_t want = cap - c->in.len < READ_CHUNK ? cap - c->in.len : READ_CHUNK;
        /* What one read may add must fit the budget: a connection holds
        ** only what it sent (never a whole READ_CHUNK for one byte), and
        ** its buffer grows one doubling at a time, each within the budget. */
        if (c->in.len + want > c->in.cap) {
            size_t next = c->in.cap ? c->in.cap * 2 : 256;
            while (next < c->in.len + 1)
                next *= 2;
            if (s->buffered - c->in.cap + next > s->o.max_buffered) {
                c->over_budget = true;
                return;
            }
            if (want > next - c->in.len)
                want = next - c->in.len;
        }
        ssize_t n = recv(c->fd, s->rbuf, want, 0);
        if (n > 0) {
            if (c->state == C_READ && !c->head_ms)
                c->head_ms = now;
            size_t before = c->in.cap;
            buf_put(&c->in, s->rbuf, (size_t)n);
            if (c->in.oom) {
                c->dead = true;
                return;
            }
            s->buffered += c->in.cap - before;
            c->last_ms = now;
            turn += (size_t)n;
            if ((size_t)n < want)
                return;
            continue;
        }
        if (n == 0) {
            c->peer_closed = true;
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            c->dead = true;
        return;
    }
}

/* A new connection: a slot, its peer's address, TCP_NODELAY.  NULL when
** out of memory (fd is closed then). */
static Conn *conn_new(int fd, const struct sockaddr_storage *ss, uint64_t now)
{
    Conn *c = sc_calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return NULL;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    buf_init(&c->in);
    http_plan_init(&c->plan);
    c->last_ms = now;
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        port = ntohs(a->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        port = ntohs(a->sin6_port);
    }
    snprintf(c->peer, sizeof c->peer, "%s:%u", host, port);
    return c;
}

/* Connection c (a new one, in a REFUSE_SLOTS slot) gets the 503 and is
** closed as any answer is: our side shut down after it, the client's
** request read and discarded until it closes, so the close is a FIN and
** the 503 arrives; closing at once, with the request unread, is a reset
** that destroys the answer in the client's buffers. */
static void refuse(HttpServer *s, Conn *c, uint64_t now)
{
    const char *body = s->o.busy_body ? s->o.busy_body : "{\"error\":\"too many connections\"}";
    c->refusal = true;
    s->n_refusing++;
    http_plan_whole(&c->plan, 503, "application/json", body, strlen(body), false, NULL, "retry-after: 1\r\n", NULL,
                    0);
    c->state = C_SEND;
    c->start_ms = c->last_ms = now;
    c->close_after = true;
    c->served = 1;
    if (!c->plan.n_items || http_plan_error(&c->plan))
        c->dead = true;
    s->refused++;
}

/* The slot to give a new connection when max_conns are open: the oldest
** connection that never sent a byte, else the keep-alive connection idle
** longest between requests; SIZE_MAX when every one has something in
** flight.  Times are milliseconds and a turn accepts many connections at
** one time, so ties go to the one accepted first: s->conns is in no
** order (conn_free moves the last into the freed place). */
static size_t victim(const HttpServer *s)
{
    size_t silent = SIZE_MAX, idle = SIZE_MAX;
    for (size_t i = 0; i < s->n_conns; i++) {
        const Conn *v = s->conns[i];
        if (v->dead || v->refusal || v->state != C_READ || v->in.len || v->head_ms || v->stream)
            continue;
        size_t *best = v->served ? &idle : &silent;
        const Conn *b = *best == SIZE_MAX ? NULL : s->conns[*best];
        if (!b || v->last_ms < b->last_ms || (v->last_ms == b->last_ms && v->seq < b->seq))
            *best = i;
    }
    return silent != SIZE_MAX ? silent : idle;
}

static void accept_all(HttpServer *s, uint64_t now)
{
    /* with every REFUSE_SLOTS slot busy the listener is not polled: the
    ** kernel's backlog holds the clients until one frees */
    while (s->n_refusing < REFUSE_SLOTS) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept(s->lfd, (struct sockaddr *)&ss, &sl);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* out of descriptors (something else holds them): the
                ** clients wait in the backlog, the loop does not spin */
                s->accept_after = now + ACCEPT_BACKOFF_MS;
                if (s->o.notice)
                    s->o.notice(s->o.ctx, s->bound, "accept: out of file descriptors; new connections wait");
            }
            return;   /* EAGAIN */
        }
        if (set_nonblock(fd) != 0) {
            close(fd);
            continue;
        }
        bool full = s->n_conns - s->n_refusing >= s->o.max_conns;
        size_t v = full ? victim(s) : SIZE_MAX;
        if (full && v != SIZE_MAX) {
            Conn *old = s->conns[v];
            if (s->o.notice)
                s->o.notice(s->o.ctx, old->peer, old->served ? "closing an idle keep-alive connection for a new one"
                                                             : "closing a connection that sent nothing for a new one");
            conn_free(s, old);
            s->evicted++;
        }
        Conn *c = conn_new(fd, &ss, now);
        if (!c)
            continue;
        c->seq = s->accepted++;
        conn_add(s, c);
        if (full && v == SIZE_MAX) {
            if (s->o.notice)
                s->o.notice(s->o.ctx, c->peer, "every connection busy: 503");
            refuse(s, c, now);
            if (!c->dead)
                conn_step(s, c, now);
        }
    }
}

/* Adds to open stream c (see http_server_push). */
static int stream_add(HttpServer *s, Conn *c, const void *data, size_t n, bool end, uint64_t now)
{
    if (c->sent == c->plan.bytes.len && c->item == c->plan.n_items) {
        /* all sent: start the plan over, so a long stream holds only its backlog */
        c->plan.bytes.len = 0;
        c->plan.n_items = 0;
        c->sent = c->avail = c->item = 0;
        c->start_ms = now;
    }
    size_t backlog = s->o.max_backlog ? s->o.max_backlog : (size_t)8 << 20;
    if (c->plan.bytes.len - c->sent + n > backlog) {
        if (s->o.notice)
            s->o.notice(s->o.ctx, c->peer, "closing a stream whose client does not read (backlog full)");
        c->dead = true;
        touch(s, c);
        return ENOBUFS;
    }
    uint64_t at = now - c->start_ms;
    if (n)
        http_plan_chunk(&c->plan, data, n, at);
    if (end) {
        http_plan_chunk_end(&c->plan, at);
        c->stream = false;
    }
    touch(s, c);      /* its next item is due now: stepped on the next turn */
    if (http_plan_error(&c->plan)) {
        c->dead = true;
        return ENOMEM;
    }
    return 0;
}

int http_server_push(HttpServer *s, uint64_t stream_id, const void *data, size_t n, bool end)
{
    for (size_t i = 0; i < s->n_conns; i++)
        if (s->conns[i]->stream && s->conns[i]->sid == stream_id && !s->conns[i]->dead)
            return stream_add(s, s->conns[i], data, n, end, sc_now_ms());
    return ENOENT;
}

size_t http_server_broadcast(HttpServer *s, unsigned group, const void *data, size_t n)
{
    size_t k = 0;
    uint64_t now = sc_now_ms();
    for (size_t i = 0; group && i < s->n_conns; i++) {
        Conn *c = s->conns[i];
        if (c->stream && c->group == group && !c->dead)
            k += stream_add(s, c, data, n, false, now) == 0;
    }
    return k;
}

int http_server_adopt(HttpServer *s, int fd, const char *peer)
{
    if (s->n_conns >= s->o.max_conns) {
        close(fd);
        return EMFILE;
    }
    int e = set_nonblock(fd);
    Conn *c = e ? NULL : sc_calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return e ? e : ENOMEM;
    }
    c->fd = fd;
    buf_init(&c->in);
    http_plan_init(&c->plan);
    c->last_ms = sc_now_ms();
    snprintf(c->peer, sizeof c->peer, "%s", peer ? peer : "adopted");
    conn_add(s, c);
    return 0;
}

enum { MAX_EVENTS = 256 };

/* c's events and next wake-up worked out again, its registration made to
** match (added the first time).  False when it cannot be registered. */
static bool refresh(HttpServer *s, Conn *c)
{
    uint32_t ev = 0;
    if (!c->peer_closed && !c->over_budget && c->in.len < in_cap(s))
        ev |= EPOLLIN;
    if (c->state == C_SEND && c->sent < c->avail)
        ev |= EPOLLOUT;
    if (c->state == C_SEND && c->sent == c->avail && c->item < c->plan.n_items)
        heap_set(s, c, c->start_ms + c->plan.items[c->item].at_ms);
    else
        heap_set(s, c, deadline(s, c));
    if (c->in_ep && ev == c->ev)
        return true;
    struct epoll_event e = { .events = ev, .data.ptr = c };
    if (epoll_ctl(s->epfd, c->in_ep ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &e) != 0)
        return false;
    c->in_ep = true;
    c->ev = ev;
    return true;
}

/* Every changed connection: the dead freed, the rest timed and registered
** (what a freed stream's callback pushes elsewhere is settled too). */
static void settle(HttpServer *s)
{
    for (size_t i = 0; i < s->n_dirty; i++) {    /* n_dirty grows as callbacks touch others */
        Conn *c = s->dirty[i];
        if (!c)
            continue;
        s->dirty[i] = NULL;
        c->dix = SIZE_MAX;
        if (!c->dead && !refresh(s, c))
            c->dead = true;
        if (c->dead)
            conn_free(s, c);
    }
    s->n_dirty = 0;
}

/* The listener is watched while new connections can be taken. */
static void listen_interest(HttpServer *s, uint64_t now)
{
    bool want = s->lfd >= 0 && s->n_refusing < REFUSE_SLOTS && now >= s->accept_after;
    if (want == s->lfd_polled)
        return;
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = &s->tag_listen };
    if (epoll_ctl(s->epfd, want ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, s->lfd, &e) == 0)
        s->lfd_polled = want;
}

/* One turn's work for a connection with an event or a due wake-up. */
static void conn_turn(HttpServer *s, Conn *c, uint64_t now)
{
    uint32_t re = c->re;
    c->re = 0;
    c->active = false;
    if (c->dead) {
        touch(s, c);
        return;
    }
    if (re & (EPOLLIN | EPOLLHUP | EPOLLERR))
        conn_read(s, c, now);
    if (!c->dead)
        conn_step(s, c, now);
    /* both directions gone (or an error): nothing more can be delivered,
    ** and level-triggered epoll would report it on every turn */
    if (!c->dead && (re & (EPOLLHUP | EPOLLERR)) && c->peer_closed)
        c->dead = true;
    if (!c->dead && c->state != C_DRAIN && now >= deadline(s, c)) {
        if (c->state == C_READ && c->in.len && !c->have_head) {
            /* a head that does not arrive: 408, then close */
            if (s->o.notice)
                s->o.notice(s->o.ctx, c->peer, "request head not complete in time (408)");
            answer_and_close(s, c, 408, "the request head did not arrive in time", now);
            if (!c->dead)
                conn_step(s, c, now);
        } else {
            if (s->o.notice)
                s->o.notice(s->o.ctx, c->peer, c->state == C_READ && !c->in.len ? "closing an idle connection"
                                                                                : "closing a stalled connection");
            c->dead = true;
        }
    }
    touch(s, c);
}

/* run_loop's end in until_idle mode: every connection left has had the
** end of its client's input and has sent all that is due, so only time
** (or nothing) can make anything more happen. */
static bool only_time_left(const HttpServer *s)
{
    for (size_t i = 0; i < s->n_conns; i++) {
        const Conn *c = s->conns[i];
        if (!c->dead && (!c->peer_closed || (c->state == C_SEND && c->sent < c->avail)))
            return false;
    }
    return true;
}

static void add_or_note(int epfd, int fd, void *tag)
{
    struct epoll_event e = { .events = EPOLLIN, .data.ptr = tag };
    epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e);
}

/* The loop of servers v[0..n) (until_idle: one, see
** http_server_run_until_idle), until a stop, a signal, stop_fd (not -1)
** readable, or a server's failure (its errno in err[i]). */
static int run_loop(HttpServer *const *v, size_t n, int stop_fd, bool until_idle, int *err)
{
    int epfd = epoll_create1(EPOLL_CLOEXEC);
    if (epfd < 0)
        return errno;
    char tag_stop = 0;
    for (size_t i = 0; i < n; i++) {
        HttpServer *s = v[i];
        s->epfd = epfd;
        s->lfd_polled = false;
        /* (until_idle: a fuzz target's server, which never listened,
        ** leaves the process's signals alone) */
        if (!until_idle)
            sigs_catch(s);  /* normally done by http_server_listen already */
        if (s->wake[0] >= 0)
            add_or_note(epfd, s->wake[0], &s->tag_wake);
        for (size_t k = 0; k < s->n_conns; k++) {   /* adopted before the run */
            s->conns[k]->in_ep = false;
            touch(s, s->conns[k]);
        }
    }
    if (stop_fd >= 0)
        add_or_note(epfd, stop_fd, &tag_stop);
    struct epoll_event evs[MAX_EVENTS];
    int result = 0;
    bool stop = false;
    while (!stop) {
        uint64_t now = sc_now_ms(), soonest = UINT64_MAX;
        for (size_t i = 0; i < n; i++) {
            HttpServer *s = v[i];
            uint64_t t = s->o.tick ? s->o.tick(s->o.ctx, now) : UINT64_MAX;
            settle(s);
            if (t < soonest)
                soonest = t;
            if (s->n_heap && s->heap[0]->wake_ms < soonest)
                soonest = s->heap[0]->wake_ms;
            if (s->paused_until && s->paused_until < soonest)
                soonest = s->paused_until;
            if (s->accept_after > now && s->accept_after < soonest)
                soonest = s->accept_after;
            listen_interest(s, now);
        }
        int timeout = -1;
        if (soonest != UINT64_MAX)
            timeout = soonest <= now ? 0 : soonest - now > 60000 ? 60000 : (int)(soonest - now);
        if (until_idle && timeout != 0 && only_time_left(v[0]))
            break;
        int k = epoll_wait(epfd, evs, MAX_EVENTS, timeout);
        if (k < 0 && errno != EINTR) {
            result = errno;
            break;
        }
        now = sc_now_ms();
        bool accept_ready[HTTP_SERVER_MANY] = { false };
        for (int e = 0; e < k; e++) {
            void *p = evs[e].data.ptr;
            if (p == &tag_stop) {
                stop = true;
                continue;
            }
            bool mine = false;
            for (size_t i = 0; i < n && !mine; i++) {
                if (p == &v[i]->tag_wake) {
                    char b[64];
                    while (read(v[i]->wake[0], b, sizeof b) > 0) {
                    }
                    stop = mine = true;
                } else if (p == &v[i]->tag_listen) {
                    accept_ready[i] = mine = true;
                }
            }
            if (mine)
                continue;
            Conn *c = p;
            HttpServer *s = c->srv;
            c->re |= evs[e].events;
            if (!c->active) {
                c->active = true;
                s->act[s->n_act++] = c;
            }
        }
        if (stop)
            break;
        for (size_t i = 0; i < n && !stop; i++) {
            HttpServer *s = v[i];
            if (s->paused_until && now >= s->paused_until && (err[i] = resume(s)) != 0) {
                result = err[i];
                stop = true;
                break;
            }
            while (s->n_heap && s->heap[0]->wake_ms <= now) {
                Conn *c = s->heap[0];
                heap_remove(s, c);
                if (!c->active) {
                    c->active = true;
                    s->act[s->n_act++] = c;
                }
            }
            for (size_t a = 0; a < s->n_act; a++)
                conn_turn(s, s->act[a], now);
            s->n_act = 0;
            /* the dead go first: their slots are free for what is accepted now */
            settle(s);
            /* (a handler may have paused the listener: then it is not polled) */
            if (accept_ready[i] && s->lfd >= 0 && s->lfd_polled)
                accept_all(s, now);
        }
    }
    for (size_t i = 0; i < n; i++) {
        HttpServer *s = v[i];
        sigs_restore(s);
        for (size_t a = 0; a < s->n_act; a++)
            s->act[a]->active = false;
        s->n_act = 0;
        while (s->n_conns)
            conn_free(s, s->conns[s->n_conns - 1]);
        s->n_dirty = 0;
        if (s->lfd_polled && s->lfd >= 0)
            epoll_ctl(epfd, EPOLL_CTL_DEL, s->lfd, NULL);
        s->lfd_polled = false;
        s->epfd = -1;
    }
    close(epfd);
    return result;
}

int http_server_run(HttpServer *s)
{
    if (s->lfd < 0 && !s->paused_until)
        return EINVAL;
    int err = 0;
    return run_loop(&s, 1, -1, false, &err);
}

int http_server_run_many(HttpServer *const *v, size_t n, int stop_fd, int *err)
{
    if (!n || n > HTTP_SERVER_MANY)
        return EINVAL;
    for (size_t i = 0; i < n; i++) {
        err[i] = 0;
        if (v[i]->lfd < 0 && !v[i]->paused_until)
            return EINVAL;
    }
    return run_loop(v, n, stop_fd, false, err);
}

int http_server_run_until_idle(HttpServer *s)
{
    int err = 0;
    return run_loop(&s, 1, -1, true, &err);
}
