/* SPDX-License-Identifier: MIT */
/* proc_unit.c - the descriptors a spawned program inherits
** (runtime/rt_proc.h): rt_close_others by each of its three ways, in a
** child with descriptors open low and as high as the limits allow, some
** of them kept; then a real spawn (rt_proc_run of ls /proc/self/fd) from
** a process holding descriptors without FD_CLOEXEC, which the program
** must not see.  The highest is 69,999 where the hard limit can be raised
** (the old loop stopped at 65,536); on a machine whose hard limit is lower
** and that lacks CAP_SYS_RESOURCE (this project's CI: 20,000) it is the
** limit's last number, and the test says which it used. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/rt_proc.h"
#include "tests/check.h"

/* The highest descriptor number this process may use, raised toward
** 70,000 when the limits allow (root may raise the hard one). */
static int high_fd(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1000;
    if (rl.rlim_cur < 70000) {
        struct rlimit want = { 70000, rl.rlim_max < 70000 ? 70000 : rl.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &want) != 0 && rl.rlim_max != RLIM_INFINITY) {
            want.rlim_cur = want.rlim_max = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &want);
        }
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur > 70000 ? 69999 : (int)rl.rlim_cur - 1;
}

static bool is_open(int fd) { return fcntl(fd, F_GETFD) >= 0 || errno != EBADF; }

/* In a child: descriptors at 5, 9, 10, 40, hi - 1 and hi; keep 9, hi - 1
** (and 1 and 9 again: below 3 and repeats are allowed); extra = more
** entries than RT_CLOSE_KEEP_MAX.  Exit status: 0, or the first wrong
** descriptor's index + 1. */
static int closes_right(RtCloseWay way, int hi, bool extra)
{
    pid_t p = fork();
    if (p == 0) {
        int nul = open("/dev/null", O_RDONLY);
        int at[] = { 5, 9, 10, 40, hi - 1, hi };
        for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
            if (dup2(nul, at[i]) != at[i])
                _exit(100);
        int keep[12] = { 9, hi - 1, 1, 9 };
        size_t n = 4;
        if (extra)
            for (; n < 12; n++)
                keep[n] = 40;
        rt_close_others(keep, n, way);
        bool want[] = { false, true, false, extra, true, false };
        for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
            if (is_open(at[i]) != want[i])
                _exit((int)i + 1);
        if (is_open(nul))
            _exit(102);
        for (int fd = 0; fd < 3; fd++)
            if (!is_open(fd))
                _exit(103);
        _exit(0);
    }
    int st = -1;
    if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

int main(void)
{
    int hi = high_fd();
    CHECKF(hi > 100, "RLIMIT_NOFILE too low to test (%d)", hi);
    static const char *const names[] = { "close_range", "/proc/self/fd", "the loop" };
    for (int w = RT_CLOSE_ANY; w <= RT_CLOSE_LOOP; w++) {
        int r = closes_right((RtCloseWay)w, hi, false);
        CHECKF(r == 0, "%s: %d (highest descriptor %d)", names[w], r, hi);
    }
    int r = closes_right(RT_CLOSE_ANY, hi, true);
    CHECKF(r == 0, "more kept than RT_CLOSE_KEEP_MAX: %d", r);

    /* A spawn: the program sees its 0, 1, 2 and the directory ls opens. */
    int a = open("/dev/null", O_RDONLY), b = dup2(a, hi), c = dup2(a, 7);
    CHECK(a >= 0 && b == hi && c == 7);
    char *argv[] = { "ls", "-1", "/proc/self/fd", NULL };
    Buf out;
    buf_init(&out);
    RtProcResult res;
    CHECK(rt_proc_run(argv, NULL, 10000, &out, 4096, &res) == 0);
    buf_put(&out, "", 1);
    CHECKF(res.end == RT_PROC_EXITED && res.code == 0, "ls ended %d, %d", (int)res.end, res.code);
    CHECKF(strcmp((const char *)out.data, "0\n1\n2\n3\n") == 0, "the program saw descriptors:\n%s", out.data);
    buf_fini(&out);
    close(a);
    close(b);
    close(c);
    if (failures) {
        fprintf(stderr, "proc_unit: %d check(s) failed\n", failures);
        return 1;
    }
    printf("proc_unit: ok (descriptors up to %d)\n", hi);
    return 0;
}
