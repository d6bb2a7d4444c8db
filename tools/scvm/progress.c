/* SPDX-License-Identifier: MIT */
/* progress.c - the progress line on a terminal (docs/scvm.md, "Progress").
**
** A suite draws `[####......] 7/18 name` after each scenario; a single
** PTY session, which can run for minutes, draws `[###.......] 1.2 s of
** 3.4 s name` four times a second from a thread of its own.  Both only on a
** terminal: stderr is a TTY, the events do not go to that same terminal,
** TERM is not "dumb" (the line is redrawn with CR and ESC [ K), and neither
** --no-progress nor --quiet was given.  The line has no colour, so NO_COLOR
** has nothing to turn off.
**
** While the session's line is up, the session's diagnostics go through a
** stream of ours (fopencookie) that clears the line before each complete
** line it writes, under the same lock as the drawing, so a diagnostic never
** lands in the middle of the bar. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/sc_alloc.h"
#include "scvm.h"

enum { BAR_W = 30, TICK_MS = 250 };

bool scvm_progress_on(const Opts *o, size_t n)
{
    const char *term = getenv("TERM");
    bool to_file = o->output && strcmp(o->output, "-") != 0;
    return !o->no_progress && !o->quiet && n > 0 && isatty(STDERR_FILENO) && (to_file || !isatty(STDOUT_FILENO)) &&
           !(term && strcmp(term, "dumb") == 0);
}

static void bar_of(char *bar, uint64_t done, uint64_t total)
{
    uint64_t fill = total ? (done >= total ? BAR_W : done * BAR_W / total) : BAR_W;
    for (int i = 0; i < BAR_W; i++)
        bar[i] = (uint64_t)i < fill ? '#' : '.';
    bar[BAR_W] = 0;
}

void scvm_progress(size_t done, size_t n, const char *name)
{
    char bar[BAR_W + 1];
    bar_of(bar, done, n);
    fprintf(stderr, "\r\033[K[%s] %zu/%zu %.40s", bar, done, n, name);
    fflush(stderr);
}

void scvm_progress_clear(void)
{
    fputs("\r\033[K", stderr);
    fflush(stderr);
}

struct ScvmLive {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
    bool stop, shown;
    struct timespec t0;
    uint64_t total_ms;
    char name[64];
    FILE *diag;
};

static uint64_t since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)(now.tv_sec - t0->tv_sec) * 1000u + (uint64_t)((now.tv_nsec - t0->tv_nsec) / 1000000);
}

static ssize_t live_write(void *cookie, const char *buf, size_t n)
{
    ScvmLive *l = cookie;
    pthread_mutex_lock(&l->mu);
    if (l->shown) {
        fputs("\r\033[K", stderr);
        l->shown = false;
    }
    size_t w = fwrite(buf, 1, n, stderr);
    fflush(stderr);
    pthread_mutex_unlock(&l->mu);
    return w == n ? (ssize_t)n : -1;
}

static void *live_main(void *arg)
{
    ScvmLive *l = arg;
    pthread_mutex_lock(&l->mu);
    while (!l->stop) {
        uint64_t ms = since(&l->t0);
        char bar[BAR_W + 1];
        bar_of(bar, ms, l->total_ms);
        fprintf(stderr, "\r\033[K[%s] %llu.%llu s of %llu.%llu s %s", bar, (unsigned long long)(ms / 1000),
                (unsigned long long)(ms % 1000 / 100), (unsigned long long)(l->total_ms / 1000),
                (unsigned long long)(l->total_ms % 1000 / 100), l->name);
        fflush(stderr);
        l->shown = true;
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!l->stop && pthread_cond_timedwait(&l->cv, &l->mu, &until) == 0)
            ;
    }
    if (l->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        l->shown = false;
    }
    pthread_mutex_unlock(&l->mu);
    return NULL;
}

ScvmLive *scvm_live_start(const Opts *o, const char *name, uint64_t total_ms)
{
    if (!scvm_progress_on(o, 1))
        return NULL;
    ScvmLive *l = sc_calloc(1, sizeof *l);
    if (!l)
        return NULL;
    pthread_mutex_init(&l->mu, NULL);
    pthread_cond_init(&l->cv, NULL);
    clock_gettime(CLOCK_MONOTONIC, &l->t0);
    l->total_ms = total_ms;
    snprintf(l->name, sizeof l->name, "%s", name ? name : "");
    cookie_io_functions_t io = { .write = live_write };
    l->diag = fopencookie(l, "w", io);
    if (l->diag)
        setvbuf(l->diag, NULL, _IOLBF, 4096);   /* whole lines reach live_write */
    if (!l->diag || pthread_create(&l->th, NULL, live_main, l) != 0) {
        if (l->diag)
            fclose(l->diag);
        pthread_mutex_destroy(&l->mu);
        pthread_cond_destroy(&l->cv);
        sc_free(l);
        return NULL;
    }
    return l;
}

FILE *scvm_live_diag(ScvmLive *l)
{
    return l ? l->diag : stderr;
}

void scvm_live_stop(ScvmLive *l)
{
    if (!l)
        return;
    fflush(l->diag);
    pthread_mutex_lock(&l->mu);
    l->stop = true;
    pthread_cond_signal(&l->cv);
    pthread_mutex_unlock(&l->mu);
    pthread_join(l->th, NULL);
    fclose(l->diag);
    pthread_mutex_destroy(&l->mu);
    pthread_cond_destroy(&l->cv);
    sc_free(l);
}
