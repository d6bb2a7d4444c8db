/* SPDX-License-Identifier: MIT */
/* rt_pty_loop.c - the PTY target's event loop: feeding the program's
** output to the screen, writing queued input, noticing the exit, and
** waiting (pty_pump) until a condition holds or a deadline passes.  The
** run's clock waits by pumping, so output is consumed while ops are due. */
#include "rt_pty_int.h"

#include "runtime/rt_cancel.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

/* ---- the screen's callbacks ---- */

static void queue_out(const char *s, size_t n, void *user)
{
    Pty *t = user;
    buf_put(&t->outq, s, n);
}

static void screen_note(const char *kind, const char *d, size_t n, void *user)
{
    Pty *t = user;
    ev_begin(t, kind);
    ev_str(t, "detail", d, n);
    ev_end(t);
}

/* ---- the event loop ---- */

/* Writes as much of the output queue as the PTY takes now. */
void pty_flush_out(Pty *t)
{
    while (t->sess && t->outq_off < t->outq.len) {
        ssize_t w = write(pty_session_fd(t->sess), t->outq.data + t->outq_off, t->outq.len - t->outq_off);
        if (w > 0 && t->cast_on)
            pty_cast_event(t, 'i', (const char *)t->outq.data + t->outq_off, (size_t)w);
        if (w > 0) {
            t->outq_off += (size_t)w;
            t->sent_mark = t->out_bytes;
            t->sent_pending = true;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else {
            if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                /* EIO: nobody reads the terminal any more; drop the input. */
                t->outq_off = t->outq.len;
            }
            break;
        }
    }
    if (t->outq_off == t->outq.len) {
        buf_reset(&t->outq);
        t->outq_off = 0;
    }
}

static void read_pty(Pty *t)
{
    char b[65536];
    for (int rounds = 0; rounds < 16; rounds++) {
        ssize_t r = read(pty_session_fd(t->sess), b, sizeof b);
        if (r > 0) {
            t->out_bytes += (uint64_t)r;
            if (t->transcript.len < t->max_output_bytes)
                buf_put(&t->transcript, b, (size_t)r);
            if (t->cast_on)
                pty_cast_event(t, 'o', b, (size_t)r);
            uint64_t g = pty_screen_gen(t->scr);
            pty_screen_feed(t->scr, b, (size_t)r);
            if (pty_screen_gen(t->scr) != g)
                t->last_change = pty_now_ms();
            if (t->out_bytes > t->max_output_bytes) {
                pty_fail(t, PTY_E_TIMEOUT, "output budget exceeded: more than %llu bytes",
                         (unsigned long long)t->max_output_bytes);
                return;
            }
            if ((size_t)r < sizeof b)
                return;     /* all there was: the next poll says when there is more (or the end) */
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            /* EIO: every process closed the terminal. */
            if (!t->eof) {
                t->eof = true;
                ev_begin(t, "pty_eof");
                ev_end(t);
            }
        }
        break;
    }
}

static void note_exit(Pty *t)
{
    if (t->exit_noted || !pty_session_exited(t->sess))
        return;
    t->exit_noted = true;
    ev_begin(t, "exit");
    int code = pty_session_exit_code(t->sess);
    if (code >= 0)
        ev_int(t, "exit_code", code);
    else
        ev_int(t, "signal", pty_session_exit_signal(t->sess));
    ev_bool(t, "terminated_by_harness", pty_session_killed_by_us(t->sess));
    ev_end(t);
}

/* A signal to the runner (rt_cancel.h) ends the run as a budget does. */
static bool cancelled(Pty *t)
{
    int sig = rt_cancel_signal();
    if (!sig)
        return false;
    t->cancel_sig = sig;
    pty_fail(t, PTY_E_INTERRUPTED, "interrupted by signal %d (%s)", sig,
             sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : sig == SIGHUP ? "SIGHUP" : "?");
    return true;
}

/* Runs the event loop until pred holds (returns 1), the deadline passes
** (0) or the run fails (-1: t->err is set).  pred NULL = until deadline.
** pred is evaluated at the start and after anything changed; it may ask
** to be re-evaluated at *wake (quiet-period conditions).  When the
** program has exited and the terminal is drained nothing can change any
** more, so a false, time-independent pred returns 0 at once.
** refresh: reap on entry, so that pred, and a caller that looks at the
** exit afterwards, see an exit that came since the last wait (one read of
** the exit pipe); the clock's waits do without it (pty_clock_wait). */
static int pump(Pty *t, uint64_t deadline, PtyPred *pred, void *arg, bool refresh)
{
    uint64_t seen_gen = (uint64_t)-1;
    bool seen_exit = false, first = true;
    for (;;) {
        if (t->err || cancelled(t))
            return -1;
        uint64_t wake = UINT64_MAX;
        /* Reap on entry (the program may have ended since the last wait);
        ** after that only when the poll below says its status came. */
        if (first && refresh && t->sess && !pty_session_exited(t->sess)) {
            pty_session_reap(t->sess);
            note_exit(t);
        }
        first = false;
        bool exited = t->sess && pty_session_exited(t->sess);
        if (pred && (pty_screen_gen(t->scr) != seen_gen || exited != seen_exit || wake != UINT64_MAX)) {
            seen_gen = pty_screen_gen(t->scr);
            seen_exit = exited;
            if (pred(t, arg, &wake))
                return 1;
        }
        uint64_t now = pty_now_ms();
        if (now - t->t0 >= t->max_runtime_ms) {
            pty_fail(t, PTY_E_TIMEOUT, "runtime budget exceeded: %llu ms", (unsigned long long)t->max_runtime_ms);
            return -1;
        }
        if (now >= deadline)
            return 0;
        if (!t->sess || (t->eof && exited)) {
            if (pred && wake == UINT64_MAX)
                return 0;
            /* Nothing to read: wait on the clock alone. */
        }
        uint64_t until = deadline;
        if (wake < until)
            until = wake;
        if (t->t0 + t->max_runtime_ms < until)
            until = t->t0 + t->max_runtime_ms;
        struct pollfd pf[4];
        int n = 0;
        if (t->sess && !t->eof) {
            pf[n].fd = pty_session_fd(t->sess);
            pf[n].events = POLLIN | (t->outq.len > t->outq_off ? POLLOUT : 0);
            pf[n++].revents = 0;
        }
        int ei = -1;
        if (t->sess && !exited) {
            ei = n;
            pf[n].fd = pty_session_exit_fd(t->sess);
            pf[n].events = POLLIN;
            pf[n++].revents = 0;
        }
        int cfd = rt_cancel_fd();
        if (cfd >= 0) {
            pf[n].fd = cfd;
            pf[n].events = POLLIN;
            pf[n++].revents = 0;
        }
        int afd = t->o.agent ? t->o.agent->wake_fd : -1, ai = n;
        if (afd >= 0) {
            pf[n].fd = afd;
            pf[n].events = POLLIN;
            pf[n++].revents = 0;
        }
        int ms = until > now ? (int)((until - now) > INT_MAX ? INT_MAX : (until - now)) : 0;
        if (t->o.events)
            fflush(t->o.events);    /* what happened so far, before waiting (ev_end buffers) */
        int r = poll(pf, (nfds_t)n, ms);
        if (r < 0 && errno != EINTR) {
            pty_fail(t, PTY_E_IO, "poll: %s", strerror(errno));
            return -1;
        }
        if (t->sess && !t->eof && n > 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
            read_pty(t);
        if (t->sess)
            pty_flush_out(t);
        if (t->sess && !exited && (r <= 0 || (ei >= 0 && pf[ei].revents))) {
            pty_session_reap(t->sess);
            note_exit(t);
            /* After exit the slave may still be open in a grandchild; once
            ** the program is gone, drain what is left without blocking. */
            if (pty_session_exited(t->sess) && !t->eof)
                read_pty(t);
        }
        if (afd >= 0 && (pf[ai].revents & POLLIN)) {
            char drop[256];
            while (read(afd, drop, sizeof drop) > 0)
                ;
            pty_agent_drain(t);
            seen_gen = (uint64_t)-1;    /* the agent moved: re-evaluate */
        }
        if (wake != UINT64_MAX && pty_now_ms() >= wake)
            seen_gen = (uint64_t)-1;    /* re-evaluate */
    }
}

int pty_pump(Pty *t, uint64_t deadline, PtyPred *pred, void *arg) { return pump(t, deadline, pred, arg, true); }

/* The run's clock: waiting is pumping.  It evaluates nothing, so it
** does not reap on entry: a wait that waits polls the exit pipe, and
** one whose time has passed (most of them: every op asks the clock)
** costs no system call; the next check or action reaps. */
void pty_clock_wait(RtClock *c, uint64_t at_ms)
{
    Pty *t = (Pty *)((char *)c - offsetof(Pty, clock));
    if (t->err || !t->sess)
        return;
    pump(t, t->t0 + at_ms, NULL, NULL, false);
}

bool pty_screen_open(Pty *t)
{
    t->scr = pty_screen_new(t->rows, t->cols, queue_out, screen_note, t);
    return t->scr != NULL;
}

void pty_last_words(Pty *t)
{
    read_pty(t);
    note_exit(t);
}
