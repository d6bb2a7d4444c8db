/* SPDX-License-Identifier: MIT */
/* rt_pty_session.c - spawning a program in a PTY, its exit, and cleanup
** that leaves no zombie and no orphan (rt_pty_session.h).
**
** The program runs under rt_proc's init (runtime/rt_proc.h), like every
** command of a run:
**
**     scvm --> init (pid 1 of a PID namespace, or a subreaper) --> program
**
** The PTY's part is the program's set-up (its own session with the slave
** as controlling terminal, the window size, the folder, the sandbox's
** before_exec), done by rt_proc's setup hook in the program's process.
** init forwards SIGTERM/SIGINT/SIGHUP to the program's process group
** (SIGUSR1 stands for SIGKILL), reports the program's wait status on a
** pipe, and ends with scvm or with pty_session_close(): in a namespace the
** kernel then kills the rest, without one init kills every orphan it
** collected as a subreaper.  Even SIGKILL of scvm leaves nothing running.
** SCVM_PTY_PIDNS=0 asks for the subreaper.
**
** With PtySpawn.private_pts (the sandbox, rt_sandbox.h) the program's
** process makes its namespaces first (before_tty), then opens its terminal
** from the devpts instance it sees and sends the master back on a socket
** pair: scvm's own /dev/pts, with the terminals of every other session and
** user, is not even visible to the program. */
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
#include <sys/mount.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common/monotime.h"
#include "common/sc_alloc.h"
#include "runtime/rt_proc.h"

struct PtySession {
    int master;
    RtProc *proc;           /* the program under its init */
    bool exited, killed_by_us;
    int status;             /* the program's wait status */
};

/* The SIGCHLD self-pipe: process-wide, made once.  chld_pending says a
** byte may be in it, so a reap reads it only then (a reap runs at every
** wait of a step: one system call saved each time). */
static int chld_pipe[2] = { -1, -1 };
static volatile sig_atomic_t chld_pending;

static void on_sigchld(int sig)
{
    (void)sig;
    int e = errno;
    chld_pending = 1;
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
    if (!chld_pending)
        return;
    chld_pending = 0;       /* before reading: a byte written after this is read next time */
    char b[64];
    while (read(chld_pipe[0], b, sizeof b) > 0)
        ;
}

uint64_t pty_now_ms(void)
{
    return sc_now_ms();
}

/* In the program's process, after before_tty: a terminal from the
** /dev/ptmx this process sees, its master sent on sock (SCM_RIGHTS) and
** closed here, its slave's name in name.  0 or an errno value. */
static int private_pty(const PtySpawn *sp, int sock, char *name, size_t n)
{
    int m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (m < 0)
        return errno;
    int unlock = 0;
    unsigned num = 0;
    struct winsize ws = { .ws_row = (unsigned short)sp->rows, .ws_col = (unsigned short)sp->cols };
    int e = 0;
    if (ioctl(m, TIOCSPTLCK, &unlock) != 0 || ioctl(m, TIOCGPTN, &num) != 0 || ioctl(m, TIOCSWINSZ, &ws) != 0)
        e = errno;
    if (!e) {
        char byte = 0;
        struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
        union {
            struct cmsghdr h;
            char b[CMSG_SPACE(sizeof(int))];
        } cm;
        memset(&cm, 0, sizeof cm);
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof cm.b };
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &m, sizeof m);
        if (sendmsg(sock, &msg, MSG_NOSIGNAL) != 1)
            e = errno ? errno : EIO;
    }
    close(m);
    close(sock);
    if (!e && snprintf(name, n, "/dev/pts/%u", num) >= (int)n)
        e = ENAMETOOLONG;
    return e;
}

/* The program's set-up, in its process before exec (rt_proc's setup
** hook): its own session, the sandbox's namespaces (before_tty), the
** slave (or a private terminal) as controlling terminal, the window
** size, the folder, the sandbox.  Only system calls. */
typedef struct Setup {
    const PtySpawn *sp;
    const char *slave;
    int pts_sock;           /* private_pts: the master goes back on it; else -1 */
} Setup;

static int pty_setup(void *arg)
{
    const Setup *u = arg;
    const PtySpawn *sp = u->sp;
    const char *slave_name = u->slave;
    char pname[64];
    int e;
    if (setsid() < 0)
        return errno;
    if (sp->before_tty && (e = sp->before_tty(sp->before_exec_arg)) != 0)
        return e;
    if (u->pts_sock >= 0) {
        if ((e = private_pty(sp, u->pts_sock, pname, sizeof pname)) != 0)
            return e;
        slave_name = pname;
    }
    int slave = open(slave_name, O_RDWR);
    if (slave < 0)
        return errno;
    if (ioctl(slave, TIOCSCTTY, 0) != 0)
        return errno;
    struct winsize ws = { .ws_row = (unsigned short)sp->rows, .ws_col = (unsigned short)sp->cols };
    ioctl(slave, TIOCSWINSZ, &ws);
    if (dup2(slave, 0) < 0 || dup2(slave, 1) < 0 || dup2(slave, 2) < 0)
        return errno;
    if (slave > 2)
        close(slave);
    if (sp->cwd && chdir(sp->cwd) != 0)
        return errno;
    return sp->before_exec ? sp->before_exec(sp->before_exec_arg) : 0;
}

/* The private terminal's master, sent by private_pty before the exec:
** already queued when the exec reported success.  -1 when none came. */
static int recv_master(int sock)
{
    char byte;
    struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
    union {
        struct cmsghdr h;
        char b[CMSG_SPACE(sizeof(int))];
    } cm;
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof cm.b };
    ssize_t r;
    do {
        r = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    } while (r < 0 && errno == EINTR);
    struct cmsghdr *c = r == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
    int fd = -1;
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

PtySession *pty_session_spawn(const PtySpawn *sp, char *err, size_t errlen)
{
    char name[128] = "";
    int master = -1, mp[2] = { -1, -1 };
    if (chld_init() != 0) {
        snprintf(err, errlen, "cannot set up SIGCHLD handling: %s", strerror(errno));
        return NULL;
    }
    if (sp->private_pts) {
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, mp) != 0) {
            snprintf(err, errlen, "socketpair: %s", strerror(errno));
            return NULL;
        }
    } else {
        master = posix_openpt(O_RDWR | O_NOCTTY);
        if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 ||
            ptsname_r(master, name, sizeof name) != 0) {
            snprintf(err, errlen, "cannot open a pseudo-terminal: %s", strerror(errno));
            if (master >= 0)
                close(master);
            return NULL;
        }
        struct winsize ws = { .ws_row = (unsigned short)sp->rows, .ws_col = (unsigned short)sp->cols };
        ioctl(master, TIOCSWINSZ, &ws);
    }
    PtySession *s = sc_calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    const char *v = getenv("SCVM_PTY_PIDNS");
    Setup u = { .sp = sp, .slave = name, .pts_sock = mp[1] };
    RtProcSpawn rp = {
        .path = sp->path, .argv = sp->argv, .envp = sp->envp, .fd0 = -1, .fd1 = -1, .fd2 = -1,
        .setup = pty_setup, .setup_arg = &u, .keep_fd = mp[1] >= 0 ? mp[1] : 0,
        .no_pidns = v && strcmp(v, "0") == 0, .name = "scvm-pty-init",
    };
    int e = 0;
    s->proc = rt_proc_spawn(&rp, &e);
    if (!s->proc) {
        snprintf(err, errlen, "cannot start '%s': %s", sp->path, strerror(e));
        goto fail;
    }
    if (sp->private_pts) {
        close(mp[1]);
        mp[1] = -1;
        master = recv_master(mp[0]);
        close(mp[0]);
        mp[0] = -1;
        if (master < 0) {
            /* it runs, but without a terminal we hold: end it */
            snprintf(err, errlen, "cannot start '%s': %s", sp->path, strerror(EPROTO));
            s->exited = true;
            rt_proc_close(s->proc);
            goto fail;
        }
    }
    if (set_flags(master) != 0) {
        snprintf(err, errlen, "fcntl: %s", strerror(errno));
        rt_proc_close(s->proc);
        goto fail;
    }
    s->master = master;
    return s;
fail:
    if (master >= 0)
        close(master);
    for (int i = 0; i < 2; i++)
        if (mp[i] >= 0)
            close(mp[i]);
    sc_free(s);
    return NULL;
}

int pty_session_fd(const PtySession *s) { return s->master; }
int pty_session_exit_fd(const PtySession *s) { return rt_proc_exit_fd(s->proc); }
pid_t pty_session_pid(const PtySession *s) { return rt_proc_pid(s->proc); }
bool pty_session_contained(const PtySession *s) { return rt_proc_contained(s->proc); }
bool pty_session_exited(const PtySession *s) { return s->exited; }
bool pty_session_killed_by_us(const PtySession *s) { return s->killed_by_us; }

/* The state and session of /proc/PID/stat ("pid (comm) S ppid pgrp sid
** ..."; comm may hold spaces and parentheses: after the last ')'). */
static bool proc_state(const char *pid, char *state, long *sid)
{
    char path[64], b[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, b, sizeof b - 1);
    close(fd);
    if (n <= 0)
        return false;
    b[n] = 0;
    const char *p = strrchr(b, ')');
    long ppid, pgrp;
    return p && sscanf(p + 1, " %c %ld %ld %ld", state, &ppid, &pgrp, sid) == 4;
}

bool pty_session_busy(const PtySession *s)
{
    if (s->exited || rt_proc_pid(s->proc) <= 0)
        return false;
    DIR *d = opendir("/proc");
    if (!d)
        return false;
    bool busy = false;
    struct dirent *e;
    while (!busy && (e = readdir(d))) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char st;
        long sid;
        if (proc_state(e->d_name, &st, &sid) && sid == (long)rt_proc_pid(s->proc))
            busy = st == 'R' || st == 'D';
    }
    closedir(d);
    return busy;
}

bool pty_session_reap(PtySession *s)
{
    drain_chld_pipe();
    if (!s->exited && rt_proc_reap(s->proc, &s->status))
        s->exited = true;
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
        struct pollfd p = { .fd = pty_session_exit_fd(s), .events = POLLIN };
        poll(&p, 1, (int)(deadline - now));
    }
    return true;
}

bool pty_session_kill(PtySession *s, int grace_ms)
{
    if (pty_session_reap(s))
        return true;
    s->killed_by_us = true;
    rt_proc_signal(s->proc, SIGTERM);       /* init passes it to the program's group */
    /* A program blocked writing to a full PTY would never see the TERM
    ** through; the caller keeps reading, but drain here too. */
    char junk[4096];
    while (read(s->master, junk, sizeof junk) > 0)
        ;
    if (wait_exit(s, pty_now_ms() + (uint64_t)grace_ms))
        return true;
    rt_proc_signal(s->proc, SIGKILL);
    return wait_exit(s, pty_now_ms() + 5000);
}

void pty_session_close(PtySession *s)
{
    if (!s)
        return;
    if (!s->exited)
        pty_session_kill(s, 200);
    /* init's end: every process of the tree goes with it, and is reaped */
    rt_proc_close(s->proc);
    if (s->master >= 0)
        close(s->master);
    sc_free(s);
}

bool pty_find_exe(const char *name, char *out, size_t n)
{
    if (!name || !*name)
        return false;
    if (strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return access(out, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        const char *c = strchr(path, ':');
        size_t l = c ? (size_t)(c - path) : strlen(path);
        if (l && (size_t)snprintf(out, n, "%.*s/%s", (int)l, path, name) < n && access(out, X_OK) == 0)
            return true;
        path += l + (c != NULL);
    }
    return false;
}
