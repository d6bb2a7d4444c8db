/* rt_pty_session.c - spawning a program in a PTY, its exit, and cleanup
** that leaves no zombie and no orphan (rt_pty_session.h). */
#include "rt_pty_session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/sc_alloc.h"

struct PtySession {
    int master;
    pid_t pid;
    bool exited, killed_by_us;
    int status;             /* from waitpid */
};

/* The SIGCHLD self-pipe: process-wide, made once. */
static int chld_pipe[2] = { -1, -1 };

static void on_sigchld(int sig)
{
    (void)sig;
    int e = errno;
    if (chld_pipe[1] >= 0) {
        char c = 1;
        ssize_t r = write(chld_pipe[1], &c, 1);
        (void)r;        /* a full pipe already says "something exited" */
    }
    errno = e;
}

static int set_flags(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    int fdf = fcntl(fd, F_GETFD);
    if (fl < 0 || fdf < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
        fcntl(fd, F_SETFD, fdf | FD_CLOEXEC) < 0)
        return -1;
    return 0;
}

static int chld_init(void)
{
    if (chld_pipe[0] >= 0)
        return 0;
    if (pipe(chld_pipe) != 0)
        return -1;
    if (set_flags(chld_pipe[0]) || set_flags(chld_pipe[1]))
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigchld;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGCHLD, &sa, NULL) != 0)
        return -1;
    /* Daemonized descendants come back to us instead of init, so cleanup
    ** can find them.  Failure only weakens the orphan sweep. */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    return 0;
}

int pty_child_fd(void)
{
    return chld_init() == 0 ? chld_pipe[0] : -1;
}

static void drain_chld_pipe(void)
{
    char b[64];
    while (read(chld_pipe[0], b, sizeof b) > 0)
        ;
}

uint64_t pty_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* In the child, after fork: never returns. */
static void child(const PtySpawn *sp, const char *slave_name, int errfd)
{
    int e;
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    if (setsid() < 0)
        goto fail;
    int slave = open(slave_name, O_RDWR);
    if (slave < 0)
        goto fail;
    if (ioctl(slave, TIOCSCTTY, 0) != 0)
        goto fail;
    struct winsize ws = { .ws_row = (unsigned short)sp->rows, .ws_col = (unsigned short)sp->cols };
    ioctl(slave, TIOCSWINSZ, &ws);
    if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
        goto fail;
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536)
        maxfd = 65536;
    for (int fd = 3; fd < maxfd; fd++)
        if (fd != errfd)
            close(fd);
    if (sp->cwd && chdir(sp->cwd) != 0)
        goto fail;
    if (sp->before_exec && (e = sp->before_exec(sp->before_exec_arg)) != 0) {
        errno = e;
        goto fail;
    }
    execve(sp->path, sp->argv, sp->envp);
fail:
    e = errno;
    if (write(errfd, &e, sizeof e) < 0)
        _exit(127);
    _exit(127);
}

PtySession *pty_session_spawn(const PtySpawn *sp, char *err, size_t errlen)
{
    PtySession *s = NULL;
    int master = -1, ep[2] = { -1, -1 };
    char name[128];
    if (chld_init() != 0) {
        snprintf(err, errlen, "cannot set up SIGCHLD handling: %s", strerror(errno));
        return NULL;
    }
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 ||
        ptsname_r(master, name, sizeof name) != 0) {
        snprintf(err, errlen, "cannot open a pseudo-terminal: %s", strerror(errno));
        goto fail;
    }
    struct winsize ws = { .ws_row = (unsigned short)sp->rows, .ws_col = (unsigned short)sp->cols };
    ioctl(master, TIOCSWINSZ, &ws);
    if (pipe(ep) != 0 || fcntl(ep[1], F_SETFD, FD_CLOEXEC) != 0 || fcntl(ep[0], F_SETFD, FD_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        goto fail;
    }
    s = sc_calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) {
        close(master);
        close(ep[0]);
        child(sp, name, ep[1]);
    }
    close(ep[1]);
    ep[1] = -1;
    int ce = 0;
    ssize_t r;
    do {
        r = read(ep[0], &ce, sizeof ce);
    } while (r < 0 && errno == EINTR);
    close(ep[0]);
    ep[0] = -1;
    s->master = master;
    s->pid = pid;
    if (r == (ssize_t)sizeof ce) {
        snprintf(err, errlen, "cannot start '%s': %s", sp->path, strerror(ce));
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        s->exited = true;
        master = -1;
        pty_session_close(s);
        return NULL;
    }
    if (set_flags(master) != 0) {
        snprintf(err, errlen, "fcntl: %s", strerror(errno));
        pty_session_close(s);
        return NULL;
    }
    return s;
fail:
    if (master >= 0)
        close(master);
    if (ep[0] >= 0)
        close(ep[0]);
    if (ep[1] >= 0)
        close(ep[1]);
    sc_free(s);
    return NULL;
}

int pty_session_fd(const PtySession *s) { return s->master; }
int pty_session_exit_fd(const PtySession *s) { (void)s; return chld_pipe[0]; }
pid_t pty_session_pid(const PtySession *s) { return s->pid; }
bool pty_session_exited(const PtySession *s) { return s->exited; }
bool pty_session_killed_by_us(const PtySession *s) { return s->killed_by_us; }

bool pty_session_reap(PtySession *s)
{
    drain_chld_pipe();
    if (s->exited)
        return true;
    int st;
    pid_t r;
    do {
        r = waitpid(s->pid, &st, WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == s->pid) {
        s->exited = true;
        s->status = st;
    } else if (r < 0 && errno == ECHILD) {
        s->exited = true;       /* reaped elsewhere; status unknown */
        s->status = 0;
    }
    return s->exited;
}

int pty_session_exit_code(const PtySession *s)
{
    return s->exited && WIFEXITED(s->status) ? WEXITSTATUS(s->status) : -1;
}

int pty_session_exit_signal(const PtySession *s)
{
    return s->exited && WIFSIGNALED(s->status) ? WTERMSIG(s->status) : 0;
}

int pty_session_resize(PtySession *s, int rows, int cols)
{
    struct winsize ws = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
    return ioctl(s->master, TIOCSWINSZ, &ws) == 0 ? 0 : errno;
}

/* Waits (on the SIGCHLD pipe) until the program exits or deadline. */
static bool wait_exit(PtySession *s, uint64_t deadline)
{
    while (!pty_session_reap(s)) {
        uint64_t now = pty_now_ms();
        if (now >= deadline)
            return false;
        struct pollfd p = { .fd = chld_pipe[0], .events = POLLIN };
        poll(&p, 1, (int)(deadline - now));
    }
    return true;
}

bool pty_session_kill(PtySession *s, int grace_ms)
{
    if (pty_session_reap(s))
        return true;
    s->killed_by_us = true;
    killpg(s->pid, SIGTERM);
    kill(s->pid, SIGTERM);
    /* A program blocked writing to a full PTY would never see the TERM
    ** through; the caller keeps reading, but drain here too. */
    char junk[4096];
    while (read(s->master, junk, sizeof junk) > 0)
        ;
    if (wait_exit(s, pty_now_ms() + (uint64_t)grace_ms))
        return true;
    killpg(s->pid, SIGKILL);
    kill(s->pid, SIGKILL);
    return wait_exit(s, pty_now_ms() + 5000);
}

/* Children of this process other than known ones: the orphans that the
** subreaper setting brought back.  Kills each. */
static int kill_orphans(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    pid_t me = getpid();
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[64], buf[512];
        if (snprintf(path, sizeof path, "/proc/%s/stat", e->d_name) >= (int)sizeof path)
            continue;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (r <= 0)
            continue;
        buf[r] = 0;
        /* pid (comm) state ppid ...; comm may hold spaces and parentheses */
        char *rp = strrchr(buf, ')');
        int ppid;
        char state;
        if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2 || ppid != me)
            continue;
        pid_t pid = (pid_t)atoi(e->d_name);
        if (state != 'Z')
            kill(pid, SIGKILL);
        n++;
    }
    closedir(d);
    return n;
}

void pty_session_close(PtySession *s)
{
    if (!s)
        return;
    if (!s->exited)
        pty_session_kill(s, 200);
    /* Whatever stayed in the group, then reparented orphans; reap all. */
    killpg(s->pid, SIGKILL);
    uint64_t deadline = pty_now_ms() + 5000;
    for (;;) {
        int st;
        pid_t r = waitpid(-1, &st, WNOHANG);
        if (r > 0)
            continue;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)              /* ECHILD: nothing left */
            break;
        if (kill_orphans() == 0 || pty_now_ms() >= deadline)
            break;
        struct pollfd p = { .fd = chld_pipe[0], .events = POLLIN };
        poll(&p, 1, 50 > (int)(deadline - pty_now_ms()) ? (int)(deadline - pty_now_ms()) : 50);
        drain_chld_pipe();
    }
    if (s->master >= 0)
        close(s->master);
    sc_free(s);
}
