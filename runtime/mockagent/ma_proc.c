/* ma_proc.c - running a command for the mock agent (ma_proc.h): fork, a
** process group of its own, one pipe for stdout and stderr, poll(2) on it
** and on the cancel pipe with the deadline, SIGKILL to the group at the
** end. */
#include "ma_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runtime/rt_cancel.h"

/* While the command's pipe is open, poll wakes this often to see whether
** the command itself has exited (a background child of it may hold the
** pipe open for ever); after the command exited and its group was killed,
** what is still in the pipe is read for at most DRAIN_MS (a grandchild
** that left the group may keep it open). */
enum { SLICE_MS = 50, DRAIN_MS = 200 };

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The child: its own process group, the pipe as stdout and stderr, the
** folder, the program.  Reports errno on the status pipe if exec fails. */
static void child(char *const argv[], const char *dir, int out_fd, int status_fd)
{
    setpgid(0, 0);
    rt_cancel_uninstall();
    signal(SIGPIPE, SIG_DFL);       /* the mock agent ignores it; its commands must not */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    int null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0 ||
        (dir && dir[0] && chdir(dir) != 0)) {
        int e = errno;
        ssize_t w = write(status_fd, &e, sizeof e);
        (void)w;
        _exit(127);
    }
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(status_fd, &e, sizeof e);
    (void)w;
    _exit(127);
}

static void append(Buf *out, const char *p, size_t n, MaProcResult *res, size_t *kept)
{
    size_t room = MA_PROC_OUT_MAX - *kept;
    size_t take = n < room ? n : room;
    buf_put(out, p, take);
    *kept += take;
    res->dropped += n - take;
}

int ma_proc_run(char *const argv[], const char *dir, unsigned timeout_ms, Buf *out, MaProcResult *res)
{
    memset(res, 0, sizeof *res);
    int op[2], sp[2];
    if (pipe(op) != 0)
        return -1;
    if (pipe(sp) != 0) {
        int e = errno;
        close(op[0]);
        close(op[1]);
        errno = e;
        return -1;
    }
    fcntl(op[0], F_SETFD, FD_CLOEXEC);
    fcntl(sp[0], F_SETFD, FD_CLOEXEC);
    fcntl(sp[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(op[0]);
        close(op[1]);
        close(sp[0]);
        close(sp[1]);
        res->end = MA_PROC_FAILED;
        res->code = e;
        return 0;
    }
    if (pid == 0)
        child(argv, dir, op[1], sp[1]);
    setpgid(pid, pid);      /* also here: no window where a kill misses the group */
    close(op[1]);
    close(sp[1]);
    int e = 0;
    ssize_t got;
    while ((got = read(sp[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    close(sp[0]);
    if (got == (ssize_t)sizeof e) {     /* exec (or the set-up) failed */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        close(op[0]);
        res->end = MA_PROC_FAILED;
        res->code = e;
        return 0;
    }
    fcntl(op[0], F_SETFL, fcntl(op[0], F_GETFL) | O_NONBLOCK);

    uint64_t start = now_ms(), drain_until = 0;
    bool eof = false, exited = false, stopped = false;
    int wstatus = 0;
    size_t kept = 0;
    char chunk[8192];
    for (;;) {
        uint64_t now = now_ms();
        if (!exited && waitpid(pid, &wstatus, WNOHANG) == pid) {
            exited = true;
            kill(-pid, SIGKILL);        /* what it left running */
            drain_until = now + DRAIN_MS;
        }
        if (exited && (eof || now >= drain_until))
            break;
        if (!exited && ((timeout_ms && now - start >= timeout_ms) || rt_cancel_signal())) {
            res->end = rt_cancel_signal() ? MA_PROC_CANCELLED : MA_PROC_TIMEOUT;
            res->code = rt_cancel_signal();
            kill(-pid, SIGKILL);
            while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
                ;
            exited = stopped = true;
            drain_until = now + DRAIN_MS;   /* what it wrote before */
            continue;
        }
        int wait = SLICE_MS;
        if (exited)
            wait = (int)(drain_until - now);
        else if (timeout_ms && start + timeout_ms - now < (uint64_t)wait)
            wait = (int)(start + timeout_ms - now);
        struct pollfd pf[2] = { { .fd = eof ? -1 : op[0], .events = POLLIN },
                                { .fd = exited ? -1 : rt_cancel_fd(), .events = POLLIN } };
        int pr = poll(pf, 2, wait);
        if (pr < 0 && errno != EINTR)
            break;
        if (pr > 0 && !eof && (pf[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(op[0], chunk, sizeof chunk);
            if (n > 0)
                append(out, chunk, (size_t)n, res, &kept);
            else if (n == 0 || (errno != EAGAIN && errno != EINTR))
                eof = true;
        }
    }
    close(op[0]);
    if (!stopped && WIFEXITED(wstatus)) {
        res->end = MA_PROC_EXITED;
        res->code = WEXITSTATUS(wstatus);
    } else if (!stopped && WIFSIGNALED(wstatus)) {
        res->end = MA_PROC_SIGNALED;
        res->code = WTERMSIG(wstatus);
    }
    return out->oom ? -1 : 0;
}

void ma_proc_describe(const MaProcResult *r, unsigned timeout_ms, char *buf, size_t cap)
{
    switch (r->end) {
    case MA_PROC_EXITED: snprintf(buf, cap, "exit %d", r->code); break;
    case MA_PROC_SIGNALED: snprintf(buf, cap, "killed by signal %d", r->code); break;
    case MA_PROC_TIMEOUT: snprintf(buf, cap, "timed out after %u ms, killed", timeout_ms); break;
    case MA_PROC_CANCELLED: snprintf(buf, cap, "cancelled by signal %d, killed", r->code); break;
    case MA_PROC_FAILED: snprintf(buf, cap, "cannot be started: %s", strerror(r->code)); break;
    }
}
