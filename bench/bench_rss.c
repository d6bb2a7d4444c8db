/* SPDX-License-Identifier: MIT */
/* bench_rss.c - runs a command and prints its peak resident set size.
**
**   bench_rss CMD [ARG...]      prints: maxrss_kb N, status N
**
** Linux carries a process's peak RSS across fork and exec, so a child of
** the Python driver would report at least Python's own size; started from
** this small program, the figure is the command's. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: bench_rss CMD [ARG...]\n", stderr);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_rss: fork");
        return 2;
    }
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror("bench_rss: exec");
        _exit(127);
    }
    int st;
    struct rusage ru;
    /* the only child, so RUSAGE_CHILDREN's peak is its peak */
    if (waitpid(pid, &st, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru) != 0) {
        perror("bench_rss: waitpid");
        return 2;
    }
    printf("maxrss_kb %ld\nstatus %d\n", ru.ru_maxrss, WIFEXITED(st) ? WEXITSTATUS(st) : 128);
    return 0;
}
