/* sbx_probe.c - tries what a sandboxed program might try and prints what
** happened, one line per attempt, for tests/pty/sandbox_test.py:
**
**   sbx_probe write PATH        create PATH           -> "write PATH: ok" or ": <errno name>"
**   sbx_probe read PATH         read PATH
**   sbx_probe connect PORT      TCP connect to 127.0.0.1:PORT
**   sbx_probe exec PROG ARG...  execv PROG (prints only when it fails)
**   sbx_probe child CMD ARGS... the same from a grandchild: fork, fork
**                               again, run CMD there, wait for both
**   sbx_probe ptrace            PTRACE_TRACEME (seccomp refuses it)
**
** Several commands may follow each other, separated by "--".  After the
** last one it prints "probe done" and exits 0. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *ename(int e)
{
    switch (e) {
    case 0: return "ok";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ENETUNREACH: return "ENETUNREACH";
    case ECONNREFUSED: return "ECONNREFUSED";
    case EROFS: return "EROFS";
    default: return strerror(e);
    }
}

static void run(char **a, int n, const char *who)
{
    if (n < 1)
        return;
    if (strcmp(a[0], "write") == 0 && n >= 2) {
        int fd = open(a[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = fd < 0 ? errno : 0;
        if (fd >= 0) {
            if (write(fd, "x\n", 2) != 2)
                e = errno;
            close(fd);
        }
        printf("%swrite %s: %s\n", who, a[1], ename(e));
    } else if (strcmp(a[0], "read") == 0 && n >= 2) {
        int fd = open(a[1], O_RDONLY);
        int e = fd < 0 ? errno : 0;
        if (fd >= 0)
            close(fd);
        printf("%sread %s: %s\n", who, a[1], ename(e));
    } else if (strcmp(a[0], "connect") == 0 && n >= 2) {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        int e = s < 0 ? errno : 0;
        if (s >= 0) {
            struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(a[1])) };
            inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
            e = connect(s, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : errno;
            close(s);
        }
        printf("%sconnect %s: %s\n", who, a[1], ename(e));
    } else if (strcmp(a[0], "exec") == 0 && n >= 2) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            char *argv[16];
            int k = 0;
            for (int i = 1; i < n && k < 15; i++)
                argv[k++] = a[i];
            argv[k] = NULL;
            execv(a[1], argv);
            printf("%sexec %s: %s\n", who, a[1], ename(errno));
            fflush(stdout);
            _exit(127);
        }
        int st;
        waitpid(p, &st, 0);
        if (WIFEXITED(st) && WEXITSTATUS(st) != 127)
            printf("%sexec %s: ok\n", who, a[1]);
    } else if (strcmp(a[0], "ptrace") == 0) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            int e = ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 ? 0 : errno;
            printf("%sptrace: %s\n", who, ename(e));
            fflush(stdout);
            _exit(0);
        }
        waitpid(p, NULL, 0);
    } else if (strcmp(a[0], "child") == 0) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            pid_t q = fork();
            if (q == 0) {
                run(a + 1, n - 1, "grandchild ");
                fflush(stdout);
                _exit(0);
            }
            waitpid(q, NULL, 0);
            _exit(0);
        }
        waitpid(p, NULL, 0);
    } else {
        printf("unknown: %s\n", a[0]);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int s = 1;
    for (int i = 1; i <= argc; i++) {
        if (i == argc || strcmp(argv[i], "--") == 0) {
            run(argv + s, i - s, "");
            s = i + 1;
        }
    }
    puts("probe done");
    fflush(stdout);
    pause();        /* the scenario ends the session */
    return 0;
}
