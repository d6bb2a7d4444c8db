/* rt_pty_session.c - spawning a program in a PTY, its exit, and cleanup
** that leaves no zombie and no orphan (rt_pty_session.h).
**
** Where the kernel allows it the program runs under a small init of ours,
** pid 1 of a PID namespace of its own:
**
**     scvm --clone(CLONE_NEWPID)--> init (pid 1) --fork--> program (pid 2)
**
** When init ends, the kernel kills everything left in the namespace, and
** init ends when scvm closes the "life" pipe or dies (PR_SET_PDEATHSIG,
** and the pipe's end-of-file as a second witness): even SIGKILL of scvm
** leaves nothing running.  init reports the program's wait status on a
** pipe, forwards SIGTERM/SIGINT/SIGHUP to the program's process group,
** turns SIGUSR1 into SIGKILL for that group, and reaps every orphan.
** init also makes a mount namespace and mounts a /proc of the new PID
** namespace there, so the program's pids and /proc agree (htop -p $$, ps).
** Without the namespace (no privilege for it, or SCVM_PTY_PIDNS=0) the
** program is scvm's child as before, with PR_SET_PDEATHSIG set, and the
** subreaper sweep does the cleanup.
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

#include "common/sc_alloc.h"

struct PtySession {
    int master;
    pid_t pid;              /* scvm's child: the program, or its init */
    pid_t prog;             /* the program, as scvm's namespace sees it */
    bool ns;                /* pid is an init in a PID namespace */
    int status_fd;          /* ns: the program's wait status arrives here */
    int life_fd;            /* ns: closing it ends the namespace */
    bool exited, killed_by_us;
    int status;             /* from waitpid, or from init */
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

/* The program's process, after fork: never returns.  pts_sock: the
** socket the private terminal's master goes back on (private_pts), or
** -1 when slave_name is the runner's terminal. */
static void child(const PtySpawn *sp, const char *slave_name, int errfd, int pts_sock, bool deathsig)
{
    int e;
    char pname[64];
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGCHLD, SIG_DFL);
    /* Caught signals become default at exec anyway; these may be ignored
    ** or caught by the runner (rt_cancel.h). */
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    if (deathsig && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        goto fail;
    if (setsid() < 0)
        goto fail;
    if (sp->before_tty && (e = sp->before_tty(sp->before_exec_arg)) != 0) {
        errno = e;
        goto fail;
    }
    if (pts_sock >= 0) {
        if ((e = private_pty(sp, pts_sock, pname, sizeof pname)) != 0) {
            errno = e;
            goto fail;
        }
        slave_name = pname;
    }
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

/* ---- the namespace's init ---- */

/* What init reports on the error pipe when it cannot set the namespace
** up (not an errno value): the runner falls back to a plain fork. */
#define NS_SETUP (-1)

static void init_nop(int sig) { (void)sig; }

static bool write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

/* pid 1 of the new namespace: starts the program, then forwards signals,
** reaps, and reports the program's status until the life pipe closes.
** Never returns; its exit ends the namespace. */
static void ns_init(const PtySpawn *sp, const char *slave_name, int errfd, int pts_sock, int status_w, int life_r)
{
    int e;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        goto fail;
    prctl(PR_SET_NAME, "scvm-pty-init", 0, 0, 0);   /* for ps(1) */
    /* The namespace's own /proc, in a mount namespace of its own (private,
    ** so nothing leaks back).  Without it pids and /proc disagree: then
    ** the runner starts the program without a namespace (NS_SETUP). */
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
        e = NS_SETUP;
        if (write(errfd, &e, sizeof e) < 0)
            _exit(127);
        _exit(127);
    }
    /* Handlers (pid 1 gets only signals it handles), blocked and read
    ** from a signalfd, so nothing is lost between poll and wait. */
    static const int sigs[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1 };
    sigset_t set;
    sigemptyset(&set);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = init_nop;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        sigaddset(&set, sigs[i]);
        sigaction(sigs[i], &sa, NULL);
    }
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0)
        goto fail;
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536)
        maxfd = 65536;
    for (int fd = 3; fd < maxfd; fd++)
        if (fd != errfd && fd != status_w && fd != life_r && fd != sfd && fd != pts_sock)
            close(fd);
    pid_t prog = fork();
    if (prog < 0)
        goto fail;
    if (prog == 0) {
        close(status_w);
        close(life_r);
        close(sfd);
        child(sp, slave_name, errfd, pts_sock, false);
    }
    close(errfd);
    if (pts_sock >= 0)
        close(pts_sock);
    bool reported = false;
    for (;;) {
        struct pollfd pf[2] = { { .fd = sfd, .events = POLLIN }, { .fd = life_r, .events = POLLIN } };
        if (poll(pf, 2, -1) < 0 && errno != EINTR)
            _exit(1);
        if (pf[1].revents)
            _exit(0);           /* scvm is done, or gone: so is everything here */
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
            int sig = (int)si.ssi_signo;
            if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGUSR1) {
                int to = sig == SIGUSR1 ? SIGKILL : sig;
                kill(-prog, to);
                kill(prog, to);
            }
        }
        for (;;) {
            int st;
            pid_t r = waitpid(-1, &st, WNOHANG);
            if (r <= 0)
                break;
            if (r == prog && !reported) {
                reported = true;
                if (!write_all(status_w, &st, sizeof st))
                    _exit(1);
            }
        }
    }
fail:
    e = errno;
    if (write(errfd, &e, sizeof e) < 0)
        _exit(127);
    _exit(127);
}

/* fork() into a new PID namespace; -1 (errno) when the kernel refuses.
** The raw system call, as glibc has no wrapper without a new stack: the
** child runs on a copy of this one, as after fork, and calls only system
** calls and fork (glibc's cached thread id is stale there, so no raise,
** abort or threads). */
static pid_t fork_pidns(void)
{
    const char *v = getenv("SCVM_PTY_PIDNS");
    if (v && strcmp(v, "0") == 0) {
        errno = ENOSYS;
        return -1;
    }
    fflush(NULL);
    return (pid_t)syscall(SYS_clone, (unsigned long)(CLONE_NEWPID | SIGCHLD), NULL, NULL, NULL, 0UL);
}

/* Closes our copy of the error pipe's write end and reads the report: an
** errno value from the program's process (exec failed) or NS_SETUP from
** init; end-of-file when the program was executed.  Closes the pipe. */
static ssize_t read_report(int ep[2], int *ce)
{
    close(ep[1]);
    ep[1] = -1;
    ssize_t r;
    do {
        r = read(ep[0], ce, sizeof *ce);
    } while (r < 0 && errno == EINTR);
    close(ep[0]);
    ep[0] = -1;
    return r;
}

/* The program's pid as we see it: init's only child, from /proc. */
static pid_t init_child(pid_t init)
{
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)init, (int)init);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return init;
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0)
        return init;
    buf[r] = 0;
    long p = strtol(buf, NULL, 10);
    return p > 0 ? (pid_t)p : init;
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
    PtySession *s = NULL;
    int master = -1, ep[2] = { -1, -1 }, stp[2] = { -1, -1 }, lp[2] = { -1, -1 }, mp[2] = { -1, -1 };
    char name[128] = "";
    if (chld_init() != 0) {
        snprintf(err, errlen, "cannot set up SIGCHLD handling: %s", strerror(errno));
        return NULL;
    }
    if (sp->private_pts) {
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, mp) != 0) {
            snprintf(err, errlen, "socketpair: %s", strerror(errno));
            goto fail;
        }
    } else {
        master = posix_openpt(O_RDWR | O_NOCTTY);
        if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 ||
            ptsname_r(master, name, sizeof name) != 0) {
            snprintf(err, errlen, "cannot open a pseudo-terminal: %s", strerror(errno));
            goto fail;
        }
        struct winsize ws = { .ws_row = (unsigned short)sp->rows, .ws_col = (unsigned short)sp->cols };
        ioctl(master, TIOCSWINSZ, &ws);
    }
    if (pipe(ep) != 0 || fcntl(ep[1], F_SETFD, FD_CLOEXEC) != 0 || fcntl(ep[0], F_SETFD, FD_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        goto fail;
    }
    s = sc_calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    s->status_fd = s->life_fd = -1;
    if (pipe(stp) != 0 || pipe(lp) != 0 || set_flags(stp[0]) || set_flags(lp[1]) ||
        fcntl(stp[1], F_SETFD, FD_CLOEXEC) != 0 || fcntl(lp[0], F_SETFD, FD_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        goto fail;
    }
    int ce = 0;
    ssize_t r = 0;
    pid_t pid = fork_pidns();
    if (pid == 0) {
        close(master);
        close(ep[0]);
        close(stp[0]);
        close(lp[1]);
        if (mp[0] >= 0)
            close(mp[0]);
        ns_init(sp, name, ep[1], mp[1], stp[1], lp[0]);
    }
    close(stp[1]);
    close(lp[0]);
    stp[1] = lp[0] = -1;
    if (pid > 0) {
        s->ns = true;
        s->status_fd = stp[0];
        s->life_fd = lp[1];
        stp[0] = lp[1] = -1;
        r = read_report(ep, &ce);
        if (r == (ssize_t)sizeof ce && ce == NS_SETUP) {
            /* no /proc of its own: no namespace either */
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
            close(s->status_fd);
            close(s->life_fd);
            s->status_fd = s->life_fd = -1;
            s->ns = false;
            if (pipe(ep) != 0 || fcntl(ep[1], F_SETFD, FD_CLOEXEC) != 0 ||
                fcntl(ep[0], F_SETFD, FD_CLOEXEC) != 0) {
                snprintf(err, errlen, "pipe: %s", strerror(errno));
                goto fail;
            }
            pid = -1;
        }
    }
    if (pid < 0) {
        pid = fork();
        if (pid < 0) {
            snprintf(err, errlen, "fork: %s", strerror(errno));
            goto fail;
        }
        if (pid == 0) {
            close(master);
            close(ep[0]);
            if (mp[0] >= 0)
                close(mp[0]);
            child(sp, name, ep[1], mp[1], true);
        }
        r = read_report(ep, &ce);
    }
    if (sp->private_pts) {
        close(mp[1]);
        mp[1] = -1;
        master = recv_master(mp[0]);
        close(mp[0]);
        mp[0] = -1;
        if (master < 0 && r != (ssize_t)sizeof ce) {
            r = (ssize_t)sizeof ce;     /* it runs, but without a terminal we hold: end it */
            ce = EPROTO;
        }
    }
    s->master = master;
    s->pid = pid;
    s->prog = s->ns ? init_child(pid) : pid;
    if (r == (ssize_t)sizeof ce) {
        snprintf(err, errlen, "cannot start '%s': %s", sp->path, strerror(ce));
        master = -1;
        s->killed_by_us = true;
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
    for (int i = 0; i < 2; i++) {
        if (mp[i] >= 0)
            close(mp[i]);
        if (ep[i] >= 0)
            close(ep[i]);
        if (stp[i] >= 0)
            close(stp[i]);
        if (lp[i] >= 0)
            close(lp[i]);
    }
    sc_free(s);
    return NULL;
}

int pty_session_fd(const PtySession *s) { return s->master; }
int pty_session_exit_fd(const PtySession *s) { return s->ns ? s->status_fd : chld_pipe[0]; }
pid_t pty_session_pid(const PtySession *s) { return s->prog; }
bool pty_session_contained(const PtySession *s) { return s->ns; }
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
    if (s->exited || s->prog <= 0)
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
        if (proc_state(e->d_name, &st, &sid) && sid == (long)s->prog)
            busy = st == 'R' || st == 'D';
    }
    closedir(d);
    return busy;
}

bool pty_session_reap(PtySession *s)
{
    drain_chld_pipe();
    if (s->exited)
        return true;
    int st;
    pid_t r;
    if (s->ns) {
        ssize_t n;
        do {
            n = read(s->status_fd, &st, sizeof st);
        } while (n < 0 && errno == EINTR);
        if (n == (ssize_t)sizeof st) {
            s->exited = true;
            s->status = st;
        } else if (n >= 0) {
            /* init is gone without a word: its namespace was killed */
            s->exited = true;
            s->status = SIGKILL;
        }
        return s->exited;
    }
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
    if (s->ns) {
        kill(s->pid, SIGTERM);      /* init passes it to the program's group */
    } else {
        killpg(s->pid, SIGTERM);
        kill(s->pid, SIGTERM);
    }
    /* A program blocked writing to a full PTY would never see the TERM
    ** through; the caller keeps reading, but drain here too. */
    char junk[4096];
    while (read(s->master, junk, sizeof junk) > 0)
        ;
    if (wait_exit(s, pty_now_ms() + (uint64_t)grace_ms))
        return true;
    if (s->ns) {
        kill(s->pid, SIGUSR1);      /* init: SIGKILL to the program's group */
    } else {
        killpg(s->pid, SIGKILL);
        kill(s->pid, SIGKILL);
    }
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
    if (s->ns) {
        /* init's end is the namespace's: the kernel kills what is left
        ** and init is reaped only after all of it. */
        close(s->life_fd);
        kill(s->pid, SIGKILL);
        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        close(s->status_fd);
    }
    /* Whatever stayed in the group, then reparented orphans; reap all. */
    if (!s->ns)
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
