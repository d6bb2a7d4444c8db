/* SPDX-License-Identifier: MIT */
/* rt_proc.c - a command under an init of ours, in a PID namespace where
** the kernel allows it, a subreaper otherwise (rt_proc.h).
**
** The init (both kinds) is a clone of scvm that never returns to scvm's
** code: it blocks its signals and reads them from a signalfd, forks the
** program, reports the program's wait status on a pipe, forwards TERM,
** INT and HUP to the program's process group (USR1 stands for SIGKILL),
** reaps every orphan, and ends when the life pipe closes.  It calls only
** system calls and fork (no malloc: scvm may have threads whose locks a
** clone copies held), as the PTY session's init does (rt_pty_session.c). */
#define _GNU_SOURCE
#include "rt_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/monotime.h"
#include "common/sc_alloc.h"
#include "rt_cancel.h"

extern char **environ;

struct RtProc {
    pid_t init;         /* scvm's child */
    pid_t prog;         /* the program, as scvm sees it */
    bool ns;
    int status_fd;      /* the program's wait status arrives here; EOF: init gone */
    int life_fd;        /* closing it ends init and the tree */
    bool exited;
    int status;
};

/* What init reports on the error pipe when it cannot set the namespace up
** (not an errno value): the caller tries the next way. */
#define NS_SETUP (-1)

static void report(int errfd, int e)
{
    ssize_t w = write(errfd, &e, sizeof e);
    (void)w;
}

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

/* [lo, hi] closed in one system call: close_range(2), Linux 5.9. */
static bool close_span(unsigned lo, unsigned hi)
{
#ifdef SYS_close_range
    return syscall(SYS_close_range, lo, hi, 0) == 0;
#else
    (void)lo;
    (void)hi;
    errno = ENOSYS;
    return false;
#endif
}

static bool kept(const int *keep, size_t n, long fd)
{
    for (size_t i = 0; i < n; i++)
        if (keep[i] == fd)
            return true;
    return false;
}

void rt_close_others(const int *keep, size_t n, RtCloseWay way)
{
    if (way == RT_CLOSE_ANY) {
        /* The gaps between the kept descriptors, in ascending order. */
        int k[RT_CLOSE_KEEP_MAX];
        size_t m = 0;
        for (size_t i = 0; i < n && m < RT_CLOSE_KEEP_MAX; i++) {
            if (keep[i] < 3 || kept(k, m, keep[i]))
                continue;
            size_t j = m++;
            for (; j > 0 && k[j - 1] > keep[i]; j--)
                k[j] = k[j - 1];
            k[j] = keep[i];
        }
        unsigned lo = 3;
        bool ok = n <= RT_CLOSE_KEEP_MAX;
        for (size_t i = 0; i < m && ok; i++) {
            if ((unsigned)k[i] > lo)
                ok = close_span(lo, (unsigned)k[i] - 1);
            lo = (unsigned)k[i] + 1;
        }
        if (ok && close_span(lo, ~0u))
            return;
        way = RT_CLOSE_PROC;    /* no close_range here (ENOSYS), or more to keep than k holds */
    }
    if (way == RT_CLOSE_PROC) {
        /* What /proc/self/fd lists, read with getdents64 (opendir would
        ** allocate); closing while reading is fine, the offsets are the
        ** descriptor numbers. */
        int d = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (d >= 0) {
            _Alignas(struct dirent64) char buf[4096];
            long r;
            while ((r = syscall(SYS_getdents64, d, buf, sizeof buf)) > 0) {
                for (long off = 0; off < r;) {
                    const struct dirent64 *e = (const struct dirent64 *)(buf + off);
                    long fd = 0;
                    const char *c = e->d_name;
                    for (; *c >= '0' && *c <= '9' && fd < INT_MAX / 10; c++)
                        fd = fd * 10 + (*c - '0');
                    if (!*c && c != e->d_name && fd >= 3 && fd != d && !kept(keep, n, fd))
                        close((int)fd);
                    off += e->d_reclen;
                }
            }
            close(d);
            if (r == 0)
                return;
        }
    }
    /* No /proc either: every number below the descriptor limit (no
    ** limit: below the kernel's default fs.nr_open, 2^20). */
    struct rlimit rl;
    rlim_t max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < INT_MAX
                     ? rl.rlim_cur : (rlim_t)1 << 20;
    for (long fd = 3; fd < (long)max; fd++)
        if (!kept(keep, n, fd))
            close((int)fd);
}

/* The program's process: never returns. */
static void program(const RtProcSpawn *sp, char *const *envp, int errfd)
{
    sigset_t none;
    sigemptyset(&none);
    static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGCHLD, SIGPIPE };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int e;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        goto fail;
    if (sp->setup) {
        if ((e = sp->setup(sp->setup_arg)) != 0) {
            errno = e;
            goto fail;
        }
    } else if (setpgid(0, 0) != 0 || (sp->cwd && sp->cwd[0] && chdir(sp->cwd) != 0)) {
        goto fail;
    }
    if (sp->path)
        execve(sp->path, sp->argv, envp);
    else
        execvpe(sp->argv[0], sp->argv, envp);
fail:
    e = errno;
    report(errfd, e);
    _exit(127);
}

/* The pids of init's children, from /proc (no allocation): up to cap. */
static size_t children_of(pid_t me, pid_t *out, size_t cap)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)me, (int)me);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0)
        return 0;
    buf[r] = 0;
    size_t n = 0;
    for (char *s = buf; *s && n < cap;) {
        char *end;
        long p = strtol(s, &end, 10);
        if (end == s)
            break;
        if (p > 0)
            out[n++] = (pid_t)p;
        s = end;
    }
    return n;
}

/* Without a namespace: SIGKILL every child (orphans come to us, the
** subreaper) until none is left; each round reaps what died, and what
** their deaths reparented to us is killed in the next. */
static void sweep(pid_t prog)
{
    pid_t me = getpid();
    kill(-prog, SIGKILL);
    for (;;) {
        pid_t kids[256];
        size_t n = children_of(me, kids, 256);
        for (size_t i = 0; i < n; i++)
            kill(kids[i], SIGKILL);
        int st;
        pid_t r = waitpid(-1, &st, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return;         /* ECHILD: nothing left */
    }
}

/* init: sets up (the namespace's /proc, or the subreaper), starts the
** program, then serves until the life pipe closes.  Never returns. */
static void proc_init(const RtProcSpawn *sp, char *const *envp, bool ns, int errfd, int status_w, int life_r,
                      int sync_r)
{
    if (prctl(PR_SET_PDEATHSIG, ns ? SIGKILL : SIGTERM, 0, 0, 0) != 0)
        goto setup_failed;
    prctl(PR_SET_NAME, sp->name ? sp->name : "scvm-proc-init", 0, 0, 0);      /* for ps(1) */
    pid_t parent = getppid();   /* 0 in a namespace; scvm's pid otherwise */
    if (sync_r >= 0) {
        /* the uid and gid maps are written (or not: 'x') */
        char c = 0;
        ssize_t r;
        do {
            r = read(sync_r, &c, 1);
        } while (r < 0 && errno == EINTR);
        close(sync_r);
        if (r != 1 || c != 'y')
            goto setup_failed;
    }
    if (ns) {
        /* The namespace's own /proc, so pids and /proc agree (ps, kill). */
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
            goto setup_failed;
    } else if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        goto setup_failed;
    }
    /* The program's descriptors on 0, 1, 2 (through fresh copies, so an
    ** fd given for two of them, or already on one, is not lost). */
    int src[3] = { sp->fd0, sp->fd1, sp->fd2 }, dup_[3];
    for (int i = 0; i < 3; i++) {
        dup_[i] = src[i] >= 0 ? fcntl(src[i], F_DUPFD_CLOEXEC, 3) : open("/dev/null", O_RDWR | O_CLOEXEC);
        if (dup_[i] < 0)
            goto fail;
    }
    for (int i = 0; i < 3; i++)
        if (dup2(dup_[i], i) < 0)
            goto fail;
    /* Signals blocked and read from a signalfd: nothing is lost between
    ** poll and wait.  pid 1 gets only the signals it handles. */
    static const int sigs[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1 };
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&set, sigs[i]);
    sigprocmask(SIG_BLOCK, &set, NULL);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0)
        goto fail;
    int keep[] = { errfd, status_w, life_r, sfd, sp->keep_fd >= 3 ? sp->keep_fd : errfd };
    rt_close_others(keep, sizeof keep / sizeof keep[0], RT_CLOSE_ANY);
    pid_t prog = fork();
    if (prog < 0)
        goto fail;
    if (prog == 0) {
        close(status_w);
        close(life_r);
        close(sfd);
        program(sp, envp, errfd);
    }
    close(errfd);
    if (sp->keep_fd >= 3)
        close(sp->keep_fd);
    /* init holds none of the program's streams: their readers see EOF
    ** when the program's tree is gone. */
    int null = open("/dev/null", O_RDWR);
    for (int i = 0; i < 3 && null >= 0; i++)
        dup2(null, i);
    if (null > 2)
        close(null);
    bool reported = false;
    for (;;) {
        struct pollfd pf[2] = { { .fd = sfd, .events = POLLIN }, { .fd = life_r, .events = POLLIN } };
        if (poll(pf, 2, -1) < 0 && errno != EINTR)
            break;
        if (pf[1].revents)
            break;              /* scvm is done with it, or gone */
        bool end = false;
        struct signalfd_siginfo si;
        while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
            int sig = (int)si.ssi_signo;
            if (sig == SIGCHLD)
                continue;
            /* without a namespace, SIGTERM is also scvm's death (the
            ** death signal): then the tree goes with it */
            if (!ns && sig == SIGTERM && getppid() != parent)
                end = true;
            int to = sig == SIGUSR1 ? SIGKILL : sig;
            kill(-prog, to);
            kill(prog, to);
        }
        if (end)
            break;
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
    if (!ns)
        sweep(prog);
    _exit(0);                   /* in a namespace, the kernel kills the rest */
setup_failed:
    report(errfd, NS_SETUP);
    _exit(127);
fail:
    report(errfd, errno);
    _exit(127);
}

/* Writes the user namespace's maps for child: our uid and gid mapped to
** themselves (files it writes stay ours).  False when refused. */
static bool write_maps(pid_t child)
{
    char path[64], line[64];
    struct { const char *file; unsigned id; bool deny; } m[] = {
        { "setgroups", 0, true }, { "uid_map", (unsigned)getuid(), false }, { "gid_map", (unsigned)getgid(), false },
    };
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "/proc/%d/%s", (int)child, m[i].file);
        int n = m[i].deny ? snprintf(line, sizeof line, "deny") : snprintf(line, sizeof line, "%u %u 1", m[i].id, m[i].id);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            return false;
        bool ok = write(fd, line, (size_t)n) == n;
        close(fd);
        if (!ok)
            return false;
    }
    return true;
}

/* The program's pid as we see it: init's only child. */
static pid_t first_child(pid_t init)
{
    pid_t k[1];
    return children_of(init, k, 1) == 1 ? k[0] : init;
}

static void close2(int p[2])
{
    for (int i = 0; i < 2; i++)
        if (p[i] >= 0) {
            close(p[i]);
            p[i] = -1;
        }
}

/* One try: kind 0 = a PID namespace, 1 = user + PID namespaces, 2 = the
** subreaper.  Returns the handle; NULL with *err an errno, or with *err
** NS_SETUP when this kind is not available here. */
static RtProc *try_spawn(const RtProcSpawn *sp, char *const *envp, int kind, int *err)
{
    int ep[2] = { -1, -1 }, stp[2] = { -1, -1 }, lp[2] = { -1, -1 }, syp[2] = { -1, -1 };
    if (pipe2(ep, O_CLOEXEC) != 0 || pipe2(stp, O_CLOEXEC) != 0 || pipe2(lp, O_CLOEXEC) != 0 ||
        (kind == 1 && pipe2(syp, O_CLOEXEC) != 0)) {
        *err = errno;
        close2(ep);
        close2(stp);
        close2(lp);
        close2(syp);
        return NULL;
    }
    unsigned long flags = kind == 0 ? CLONE_NEWPID : kind == 1 ? (CLONE_NEWUSER | CLONE_NEWPID) : 0;
    fflush(NULL);
    /* the raw system call: glibc's clone wants a new stack, and the child
    ** here runs on a copy of this one, as after fork */
    pid_t pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0UL);
    if (pid == 0) {
        close(ep[0]);
        close(stp[0]);
        close(lp[1]);
        if (syp[1] >= 0)
            close(syp[1]);
        proc_init(sp, envp, kind != 2, ep[1], stp[1], lp[0], syp[0]);
    }
    int e = errno;
    close(ep[1]);
    close(stp[1]);
    close(lp[0]);
    ep[1] = stp[1] = lp[0] = -1;
    if (syp[0] >= 0) {
        close(syp[0]);
        syp[0] = -1;
    }
    if (pid < 0) {
        close2(ep);
        close2(stp);
        close2(lp);
        close2(syp);
        *err = kind == 2 ? e : NS_SETUP;
        return NULL;
    }
    if (kind == 1) {
        char c = write_maps(pid) ? 'y' : 'x';
        ssize_t w = write(syp[1], &c, 1);
        (void)w;
        close2(syp);
    }
    int ce = 0;
    ssize_t r;
    do {
        r = read(ep[0], &ce, sizeof ce);
    } while (r < 0 && errno == EINTR);
    close2(ep);
    RtProc *p = sc_calloc(1, sizeof *p);
    if (!p) {
        ce = ENOMEM;
        r = sizeof ce;
    }
    if (r == (ssize_t)sizeof ce) {
        /* not started: init ends (life pipe closed) and is reaped */
        close2(lp);
        if (kind != 2)
            kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        close2(stp);
        sc_free(p);
        *err = ce;
        return NULL;
    }
    fcntl(stp[0], F_SETFL, fcntl(stp[0], F_GETFL) | O_NONBLOCK);      /* rt_proc_reap polls */
    p->init = pid;
    p->ns = kind != 2;
    p->status_fd = stp[0];
    p->life_fd = lp[1];
    p->prog = first_child(pid);
    return p;
}

RtProc *rt_proc_spawn(const RtProcSpawn *sp, int *err)
{
    int dummy;
    if (!err)
        err = &dummy;
    *err = 0;
    if (!sp->argv || !sp->argv[0]) {
        *err = EINVAL;
        return NULL;
    }
    char *const *envp = sp->envp ? sp->envp : environ;
    /* SCVM_PIDNS: unset or "1" = every way in turn; "user" = the user
    ** namespace's way, then the subreaper; "0" = the subreaper only (the
    ** fallback, for tests and for kernels that refuse namespaces). */
    const char *v = getenv("SCVM_PIDNS");
    int first = sp->no_pidns || (v && strcmp(v, "0") == 0) ? 2 : v && strcmp(v, "user") == 0 ? 1 : 0;
    for (int kind = first; kind <= 2; kind++) {
        RtProc *p = try_spawn(sp, envp, kind, err);
        if (p || *err != NS_SETUP)
            return p;
    }
    *err = ENOSYS;
    return NULL;
}

pid_t rt_proc_pid(const RtProc *p) { return p->prog; }
bool rt_proc_contained(const RtProc *p) { return p->ns; }
int rt_proc_exit_fd(const RtProc *p) { return p->status_fd; }

bool rt_proc_reap(RtProc *p, int *wstatus)
{
    if (!p->exited) {
        int st;
        ssize_t n;
        do {
            n = read(p->status_fd, &st, sizeof st);
        } while (n < 0 && errno == EINTR);
        if (n == (ssize_t)sizeof st) {
            p->exited = true;
            p->status = st;
        } else if (n == 0) {
            p->exited = true;       /* init gone without a word: the tree was killed */
            p->status = SIGKILL;
        }
    }
    if (p->exited && wstatus)
        *wstatus = p->status;
    return p->exited;
}

void rt_proc_signal(RtProc *p, int sig)
{
    kill(p->init, sig == SIGKILL ? SIGUSR1 : sig);     /* init forwards it to the group */
}

void rt_proc_close(RtProc *p)
{
    if (!p)
        return;
    close(p->life_fd);
    if (p->ns) {
        kill(p->init, SIGKILL);     /* the namespace's end: the kernel kills the rest */
    } else {
        /* init sweeps, then ends: wait for that (its status pipe's EOF),
        ** then make sure */
        uint64_t deadline = sc_now_ms() + 10000;
        for (;;) {
            uint64_t now = sc_now_ms();
            char b[64];
            ssize_t n = read(p->status_fd, b, sizeof b);
            if (n == 0 || now >= deadline)
                break;
            if (n > 0)
                continue;
            struct pollfd pf = { .fd = p->status_fd, .events = POLLIN };
            poll(&pf, 1, (int)(deadline - now));
        }
        kill(p->init, SIGKILL);
    }
    while (waitpid(p->init, NULL, 0) < 0 && errno == EINTR)
        ;
    close(p->status_fd);
    sc_free(p);
}

/* ---- rt_proc_run ---- */

static void append(Buf *out, const char *s, size_t n, size_t max_out, RtProcResult *res, size_t *kept)
{
    size_t room = max_out - *kept;
    size_t take = n < room ? n : room;
    if (out)
        buf_put(out, s, take);
    *kept += take;
    res->dropped += n - take;
}

int rt_proc_run(char *const argv[], const char *dir, unsigned timeout_ms, Buf *out, size_t max_out,
                RtProcResult *res)
{
    return rt_proc_run_env(argv, NULL, dir, timeout_ms, out, max_out, res);
}

/* stderr_too: stderr joins stdout in out; false: stderr goes to /dev/null. */
static int run(char *const argv[], char *const envp[], const char *dir, unsigned timeout_ms, Buf *out,
               size_t max_out, bool stderr_too, RtProcResult *res)
{
    memset(res, 0, sizeof *res);
    int op[2] = { -1, -1 };
    if (out && pipe2(op, O_CLOEXEC) != 0)
        return -1;
    RtProcSpawn sp = { .argv = argv, .envp = envp, .cwd = dir, .fd0 = -1, .fd1 = op[1], .fd2 = stderr_too ? op[1] : -1 };
    int e = 0;
    RtProc *p = rt_proc_spawn(&sp, &e);
    if (op[1] >= 0)
        close(op[1]);
    if (!p) {
        if (op[0] >= 0)
            close(op[0]);
        res->end = RT_PROC_FAILED;
        res->code = e;
        return 0;
    }
    if (op[0] >= 0)
        fcntl(op[0], F_SETFL, fcntl(op[0], F_GETFL) | O_NONBLOCK);
    uint64_t start = sc_now_ms();
    bool eof = op[0] < 0, done = false;
    int wstatus = 0;
    size_t kept = 0;
    char chunk[8192];
    while (!done) {
        uint64_t now = sc_now_ms();
        if (rt_proc_reap(p, &wstatus)) {
            res->end = WIFEXITED(wstatus) ? RT_PROC_EXITED : RT_PROC_SIGNALED;
            res->code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : WTERMSIG(wstatus);
            break;
        }
        int sig = rt_cancel_signal();
        if (sig || (timeout_ms && now - start >= timeout_ms)) {
            res->end = sig ? RT_PROC_CANCELLED : RT_PROC_TIMEOUT;
            res->code = sig;
            break;
        }
        int wait = -1;
        if (timeout_ms)
            wait = (int)(start + timeout_ms - now);
        struct pollfd pf[3] = { { .fd = eof ? -1 : op[0], .events = POLLIN },
                                { .fd = rt_proc_exit_fd(p), .events = POLLIN },
                                { .fd = rt_cancel_fd(), .events = POLLIN } };
        int pr = poll(pf, 3, wait);
        if (pr < 0 && errno != EINTR)
            break;
        if (pr > 0 && !eof && (pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(op[0], chunk, sizeof chunk);
            if (n > 0)
                append(out, chunk, (size_t)n, max_out, res, &kept);
            else if (n == 0 || (errno != EAGAIN && errno != EINTR))
                eof = true;
        }
    }
    /* the program ended, or its time did: so does everything it started */
    rt_proc_close(p);
    /* what the tree wrote before it went: every writer is dead, so the
    ** pipe ends (the bound only guards against a descriptor passed on) */
    uint64_t until = sc_now_ms() + 1000;
    while (!eof) {
        uint64_t now = sc_now_ms();
        if (now >= until)
            break;
        struct pollfd pf = { .fd = op[0], .events = POLLIN };
        if (poll(&pf, 1, (int)(until - now)) <= 0)
            continue;
        ssize_t n = read(op[0], chunk, sizeof chunk);
        if (n > 0)
            append(out, chunk, (size_t)n, max_out, res, &kept);
        else if (n == 0 || (errno != EAGAIN && errno != EINTR))
            eof = true;
    }
    if (op[0] >= 0)
        close(op[0]);
    return out && out->oom ? -1 : 0;
}

int rt_proc_run_env(char *const argv[], char *const envp[], const char *dir, unsigned timeout_ms, Buf *out,
                    size_t max_out, RtProcResult *res)
{
    return run(argv, envp, dir, timeout_ms, out, max_out, true, res);
}

int rt_proc_run_stdout(char *const argv[], const char *dir, unsigned timeout_ms, Buf *out, size_t max_out,
                       RtProcResult *res)
{
    return run(argv, NULL, dir, timeout_ms, out, max_out, false, res);
}
