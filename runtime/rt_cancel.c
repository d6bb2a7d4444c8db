/* SPDX-License-Identifier: MIT */
/* rt_cancel.c - cancelling a run by signal (rt_cancel.h). */
#include "rt_cancel.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t first_sig;
static int cpipe[2] = { -1, -1 };
/* The pipe was made in this process: cleared in a child of fork(3)
** (at_fork_child), so rt_cancel_fd, called before every wait of a run,
** needs no getpid(2).  A child of a raw clone(2) keeps it set: rt_proc's
** init never uses the pipe. */
static bool mine;

static void at_fork_child(void) { mine = false; }

static const int caught[] = { SIGTERM, SIGINT, SIGHUP };

static void on_signal(int sig)
{
    int e = errno;
    if (!first_sig)
        first_sig = sig;
    if (cpipe[1] >= 0) {
        char c = 1;
        ssize_t r = write(cpipe[1], &c, 1);
        (void)r;        /* a full pipe is readable already */
    }
    errno = e;
}

static int nonblock_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
        return -1;
    return 0;
}

int rt_cancel_install(void)
{
    static bool watching;
    if (!watching) {
        if (pthread_atfork(NULL, NULL, at_fork_child) != 0)
            return -1;
        watching = true;
    }
    if (cpipe[0] >= 0 && mine)
        return 0;
    /* A fork's inherited pipe is shared with the parent: make our own,
    ** with the handlers held off while the descriptors change. */
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        sigaddset(&block, caught[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    if (cpipe[0] >= 0) {
        close(cpipe[0]);
        close(cpipe[1]);
        cpipe[0] = cpipe[1] = -1;
    }
    int p[2];
    int rc = -1;
    if (pipe(p) != 0)
        goto out;
    if (nonblock_cloexec(p[0]) || nonblock_cloexec(p[1])) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        errno = e;
        goto out;
    }
    cpipe[0] = p[0];
    cpipe[1] = p[1];
    mine = true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        sigaddset(&sa.sa_mask, caught[i]);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        if (sigaction(caught[i], &sa, NULL) != 0)
            goto out;
    if (first_sig) {
        char c = 1;
        ssize_t r = write(cpipe[1], &c, 1);
        (void)r;
    }
    rc = 0;
out:
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rc;
}

void rt_cancel_uninstall(void)
{
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++)
        signal(caught[i], SIG_DFL);
}

int rt_cancel_fd(void) { return mine ? cpipe[0] : -1; }

int rt_cancel_signal(void) { return first_sig; }
