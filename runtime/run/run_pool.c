/* SPDX-License-Identifier: MIT */
/* run_pool.c - the one worker pool (run_pool.h): threads for targets that
** share a process, forked children for those that need one each.  It
** replaces the three loops tools/scvm had (the simulation's threads, the
** PTY suite's and the aut target's children), which differed only in
** where an item runs and what --fail-fast does to the running ones. */
#define _DEFAULT_SOURCE 1   /* syscall(2): pidfd_open */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/monotime.h"
#include "common/sc_alloc.h"
#include "common/status.h"
#include "runtime/rt_cancel.h"
#include "runtime/run/run_pool.h"

uint64_t run_now_ms(void)
{
    return sc_now_ms();
}

pid_t run_fork_tied(void)
{
    fflush(NULL);
    pid_t parent = getpid();
    pid_t p = fork();
    /* the caller killed (even by SIGKILL): the child ends as on SIGTERM,
    ** its programs and artifacts included */
    if (p == 0 && (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) != 0 || getppid() != parent))
        _exit(128 + SIGTERM);
    return p;
}

int run_wait_child(pid_t pid)
{
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

int run_in_child(int (*fn)(void *ctx), void *ctx)
{
    pid_t pid = run_fork_tied();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
            dup2(nul, 2);
        }
        int st = fn(ctx);
        fflush(NULL);
        _exit(st);
    }
    return run_wait_child(pid);
}

/* What the pool knows of each item. */
typedef struct Slot {
    int status;
    uint64_t wall;          /* processes: the start, until reaped */
    pid_t pid;
    bool done;
} Slot;

/* ---- threads ---- */

typedef struct Threads {
    const RunPool *p;
    Slot *slot;
    size_t next;            /* the next item to start */
    bool stop;              /* start nothing more */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} Threads;

static void *worker(void *arg)
{
    Threads *t = arg;
    const RunPool *p = t->p;
    for (;;) {
        pthread_mutex_lock(&t->mu);
        size_t k = t->next;
        bool go = k < p->n && !t->stop;
        if (go)
            t->next++;
        pthread_mutex_unlock(&t->mu);
        if (!go)
            break;
        uint64_t t0 = run_now_ms();
        int st = p->work(p->ctx, k);
        uint64_t wall = run_now_ms() - t0;
        pthread_mutex_lock(&t->mu);
        t->slot[k].status = st;
        t->slot[k].wall = wall;
        t->slot[k].done = true;
        if (p->finished && p->finished(p->ctx, k, st))
            t->stop = true;
        pthread_cond_broadcast(&t->cv);
        pthread_mutex_unlock(&t->mu);
    }
    return NULL;
}

static void pool_threads(const RunPool *p, Slot *slot)
{
    enum { MAX_THREADS = 256 };
    Threads t = { .p = p, .slot = slot };
    pthread_mutex_init(&t.mu, NULL);
    pthread_cond_init(&t.cv, NULL);
    size_t jobs = p->jobs > p->n ? p->n : p->jobs;
    if (jobs > MAX_THREADS)
        jobs = MAX_THREADS;
    pthread_t th[MAX_THREADS];
    size_t started = 0;
    for (; jobs > 1 && started < jobs; started++)
        if (pthread_create(&th[started], NULL, worker, &t) != 0)
            break;
    bool stopped = false;
    for (size_t k = 0; k < p->n; k++) {
        if (stopped) {
            p->skip(p->ctx, k, RUN_SKIP_STOPPED);
            continue;
        }
        int st;
        uint64_t wall;
        if (started) {
            pthread_mutex_lock(&t.mu);
            while (!slot[k].done && !(t.stop && k >= t.next))
                pthread_cond_wait(&t.cv, &t.mu);
            bool done = slot[k].done;
            pthread_mutex_unlock(&t.mu);
            if (!done) {   /* never started: a stop */
                stopped = true;
                p->skip(p->ctx, k, RUN_SKIP_STOPPED);
                continue;
            }
            st = slot[k].status;
            wall = slot[k].wall;
        } else {
            uint64_t t0 = run_now_ms();
            st = p->work(p->ctx, k);
            wall = run_now_ms() - t0;
            if (p->finished && p->finished(p->ctx, k, st))
                t.stop = true;
        }
        if (p->emit(p->ctx, k, st, wall) || (!started && t.stop))
            stopped = true;
        if (stopped) {
            pthread_mutex_lock(&t.mu);
            t.stop = true;
            pthread_mutex_unlock(&t.mu);
        }
    }
    pthread_mutex_lock(&t.mu);
    t.stop = true;
    pthread_mutex_unlock(&t.mu);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&t.mu);
    pthread_cond_destroy(&t.cv);
}

/* ---- processes ---- */

/* Waits until a running child may have exited or a signal arrived
** (rt_cancel.h), without the race of a blocking waitpid that a signal
** just missed: each running child's pidfd and the cancel pipe, polled
** together.  Where pidfds are missing, polls the pipe 50 ms at a time. */
static void wait_children(const Slot *slot, size_t from, size_t to)
{
    struct pollfd pf[64];
    nfds_t n = 0;
    int cfd = rt_cancel_fd();
    if (cfd >= 0)
        pf[n++] = (struct pollfd){ .fd = cfd, .events = POLLIN };
    bool all = true;
    for (size_t k = from; k < to; k++) {
        if (slot[k].done || slot[k].pid <= 0)
            continue;
        int fd = n < sizeof pf / sizeof pf[0] ? (int)syscall(SYS_pidfd_open, slot[k].pid, 0) : -1;
        if (fd < 0) {
            all = false;
            continue;
        }
        pf[n++] = (struct pollfd){ .fd = fd, .events = POLLIN };
    }
    poll(pf, n, all ? -1 : 50);
    for (nfds_t i = cfd >= 0 ? 1 : 0; i < n; i++)
        close(pf[i].fd);
}

/* Reaps what has ended among [from, to); true when one was. */
static bool reap(const RunPool *p, Slot *slot, size_t from, size_t to, size_t *running, bool *stop)
{
    bool any = false;
    for (size_t k = from; k < to; k++) {
        if (slot[k].done || slot[k].pid <= 0)
            continue;
        int ws;
        pid_t r = waitpid(slot[k].pid, &ws, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR))
            continue;
        /* r < 0: not our child any more (ECHILD): an error, not a hang */
        slot[k].status = r > 0 && WIFEXITED(ws) ? WEXITSTATUS(ws) : SC_RUNTIME;
        slot[k].wall = run_now_ms() - slot[k].wall;
        slot[k].done = true;
        (*running)--;
        any = true;
        if (p->finished && p->finished(p->ctx, k, slot[k].status))
            *stop = true;
    }
    return any;
}

static void pool_processes(const RunPool *p, Slot *slot)
{
    size_t n = p->n, next = 0, emitted = 0, running = 0;
    unsigned jobs = p->jobs ? p->jobs : 1;
    bool stop = false;
    int passed_on = 0;      /* the signal forwarded to the running children */
    for (;;) {
        while (!stop && running < jobs && next < n) {
            slot[next].wall = run_now_ms();
            pid_t c = run_fork_tied();
            if (c == 0)
                _exit(p->work(p->ctx, next));
            if (c < 0) {
                slot[next].status = SC_RUNTIME;
                slot[next].wall = 0;
                slot[next].done = true;
                if (p->finished && p->finished(p->ctx, next, SC_RUNTIME))
                    stop = true;
            } else {
                slot[next].pid = c;
                running++;
            }
            next++;
        }
        if (emitted < next && !slot[emitted].done) {
            int sig = rt_cancel_signal();
            if (sig && !passed_on) {
                /* each running child ends as on a budget, in its own
                ** process; nothing new starts */
                passed_on = sig;
                stop = true;
                for (size_t k = emitted; k < next; k++)
                    if (!slot[k].done && slot[k].pid > 0)
                        kill(slot[k].pid, sig);
            }
            if (!reap(p, slot, emitted, next, &running, &stop))
                wait_children(slot, emitted, next);
            continue;
        }
        if (emitted == next) {
            /* nothing running: all emitted, or a stop */
            for (size_t k = next; k < n; k++)
                p->skip(p->ctx, k, passed_on ? RUN_SKIP_SIGNAL : RUN_SKIP_STOPPED);
            break;
        }
        size_t k = emitted++;
        if (p->emit(p->ctx, k, slot[k].status, slot[k].wall)) {
            /* the rest are not emitted: the running ones end now */
            stop = true;
            for (size_t j = emitted; j < next; j++)
                if (!slot[j].done && slot[j].pid > 0)
                    kill(slot[j].pid, SIGTERM);
            for (size_t j = emitted; j < next; j++)
                if (!slot[j].done && slot[j].pid > 0)
                    run_wait_child(slot[j].pid);
            running = 0;
            next = emitted;
        }
    }
}

int run_pool(const RunPool *p)
{
    Slot *slot = sc_calloc(p->n ? p->n : 1, sizeof *slot);
    if (!slot)
        return ENOMEM;
    if (p->mode == RUN_POOL_THREADS)
        pool_threads(p, slot);
    else
        pool_processes(p, slot);
    sc_free(slot);
    return 0;
}
